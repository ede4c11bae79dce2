"""Start-up: a splash is on screen before the main window is built, says each step,
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

    hand_over(splash, window)       # no wait on the window system's expose report
    assert window.isVisible() and not splash.isVisible()


def test_the_tooltip_filter_is_installed_once_the_window_is_built(qtbot, tmp_path, monkeypatch):
    """An application-wide event filter in Python sees every event: building the window through it cost a
    quarter of its CPU time, so create_window installs it last."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui import app as app_module
    from explorer.ui.shell import tooltips

    qapp = QApplication.instance()
    old = getattr(qapp, "_tooltip_wrapper", None)
    if old is not None:   # installed by an earlier test's window: start as a fresh app would
        qapp.removeEventFilter(old)
        monkeypatch.delattr(qapp, "_tooltip_wrapper")
    seen = []
    monkeypatch.setattr(tooltips.TooltipWrapper, "eventFilter", lambda self, obj, ev: seen.append(1) or False)
    built = []
    real = app_module.gc.freeze
    monkeypatch.setattr(app_module.gc, "freeze", lambda: (built.append(getattr(qapp, "_tooltip_wrapper", None)), real()))
    _app, window = app_module.create_window(str(tmp_path / "runs"), str(tmp_path / "settings.ini"), probe_device=False)
    qtbot.addWidget(window)
    try:
        assert built == [None]                        # the window was built without it
        wrapper = qapp._tooltip_wrapper
        assert isinstance(wrapper, tooltips.TooltipWrapper)
        QApplication.processEvents()
        assert seen                                    # and it is installed now: it sees the events
    finally:
        qapp.removeEventFilter(qapp._tooltip_wrapper)
        if old is not None:
            qapp.installEventFilter(old)
            qapp._tooltip_wrapper = old


def test_the_splash_is_a_plain_window_that_draws_each_step(qtbot):
    """QSplashScreen.show() waits for the window system to report the splash exposed, up to a second: on an X
    server it took the whole second (show() 1.01 s of wall time, 0.02 s of CPU) before the main window's build
    began. The splash is a plain frameless window now; it still draws each step at its bottom."""
    from PySide6.QtWidgets import QSplashScreen

    from explorer.ui.shell.splash import SPLASH_SIZE, show_splash

    splash = show_splash()
    qtbot.addWidget(splash)
    assert not isinstance(splash, QSplashScreen) and splash.isVisible()
    assert (splash.width(), splash.height()) == SPLASH_SIZE
    before = splash.grab().toImage()
    splash.step("building the pages…")
    after = splash.grab().toImage()
    rows = range(SPLASH_SIZE[1] - 30, SPLASH_SIZE[1] - 2)
    changed = sum(before.pixel(x, y) != after.pixel(x, y) for x in range(12, 200) for y in rows)
    assert changed > 50                                     # the step's text is drawn at the bottom
    assert splash.steps == ["building the pages…"]


def test_the_splash_waits_for_its_first_paint_on_screen_but_not_past_its_bound(qtbot, monkeypatch):
    """One round of events did not always paint the splash on an X server at load 2-3 (3 of 8 starts showed their
    first frame with the main window, 3.1-3.8 s, not at 0.9 s): show_splash processes events until the splash is
    exposed and has painted, and gives up after ``wait_s`` (a clock the test drives, no real waiting)."""
    from explorer.ui.shell import splash as splash_module

    now = [0.0]
    pauses = []

    def pause(seconds):
        pauses.append(seconds)
        now[0] += 0.1

    splash = splash_module.show_splash(wait_s=0.3, clock=lambda: now[0], pause=pause)
    qtbot.addWidget(splash)
    assert splash.painted and pauses == []          # offscreen: exposed and painted in the first round
    monkeypatch.setattr(splash_module.StartupSplash, "paintEvent", lambda self, event: None)   # never painted
    now[0], pauses[:] = 0.0, []
    late = splash_module.show_splash(wait_s=0.3, clock=lambda: now[0], pause=pause)
    qtbot.addWidget(late)
    assert not late.painted and len(pauses) == 3    # 0.0, 0.1, 0.2 paused; at 0.3 it goes on without the paint


def test_the_device_probe_starts_after_the_windows_first_paint(qtbot, tmp_path, monkeypatch):
    """The device probe's child imports torch (1-2 s of CPU): started in MainWindow() it took a core from the
    window's build and first paint on a 2-core machine (startup_time.py, 8 starts in turn at load 2.7-4.1: main
    window 3.2-4.5 s, 2.2-3.1 s with the probe started after the first paint)."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.app import create_window
    from explorer.ui.launch.device import DeviceProbe

    started = []
    monkeypatch.setattr(DeviceProbe, "start", lambda self: started.append(self))
    _app, window = create_window(str(tmp_path / "runs"), str(tmp_path / "settings.ini"), probe_device=True)
    qtbot.addWidget(window)
    QApplication.processEvents()
    assert started == []                                  # built, not painted: no child yet
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: len(started) == 1, timeout=10000)
    window.repaint()
    QApplication.processEvents()
    assert started == [window.device]                     # once, whatever the paints after
