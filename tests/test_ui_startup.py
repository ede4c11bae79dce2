"""Start-up (issue 25, finding 9): a splash is on screen before the main window is built, says each step,
and closes when the window is shown."""

from __future__ import annotations


def test_the_splash_paints_at_once_and_follows_the_steps(qtbot, tmp_path):
    from explorer.ui.app import create_window
    from explorer.ui.shell.splash import show_splash, splash_pixmap

    image = splash_pixmap().toImage()
    assert image.width() > 300 and len({image.pixel(x, 76) for x in range(100, 300)}) > 1   # the title is drawn
    splash = show_splash()
    assert splash.isVisible()
    _app, window = create_window(str(tmp_path / "runs"), str(tmp_path / "settings.ini"), probe_device=False,
                                 splash=splash)
    qtbot.addWidget(window)
    assert splash.steps == ["loading the plotting library and building the pages…", "opening the window…"]
    from explorer.ui.shell.splash import hand_over

    hand_over(splash, window)       # no wait on the window system's expose report (second trial, 1920x1080)
    assert window.isVisible() and not splash.isVisible()
