"""The main window's size on its screen: the whole available area at a first start; on reopen the saved geometry
fitted to the current screen, and a window that filled a smaller screen fills a larger one. Screens are faked
(screen_fit.available_geometry), never the machine's."""

from __future__ import annotations

from PySide6.QtCore import QRect

from explorer.ui.shell.window_geometry import first_rect, fills_unframed, restored_rect, runs_dock_width


def test_first_start_and_reopen_rectangles_for_any_screen():
    full_hd, laptop = QRect(0, 0, 1920, 1080), QRect(0, 0, 1280, 800)
    assert first_rect(full_hd).size().toTuple() == (1904, 1040)
    assert first_rect(laptop).size().toTuple() == (1264, 760)
    # filled the laptop screen -> fills the large one
    assert restored_rect(QRect(0, 0, 1264, 760), (1280, 800), full_hd) == first_rect(full_hd)
    # a window the user made smaller keeps its size and place
    assert restored_rect(QRect(100, 50, 1000, 700), (1280, 800), full_hd) == QRect(100, 50, 1000, 700)
    # filled the large screen -> fits the laptop's whole screen, not larger
    assert restored_rect(QRect(0, 0, 1904, 1040), (1920, 1080), laptop) == first_rect(laptop)
    # screen unknown (saved before it was remembered): fitted inside the current screen
    got = restored_rect(QRect(300, 200, 1500, 940), None, laptop)
    assert laptop.contains(got) and got.size().toTuple() == (1264, 760)
    assert runs_dock_width(1280) == 372 and runs_dock_width(1920) > 560


def test_a_session_at_1280x800_reopens_filling_a_1920x1080_screen(qtbot, tmp_path, monkeypatch):
    from explorer.ui.shell import screen_fit
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    screen = {"area": QRect(0, 0, 1280, 800)}
    monkeypatch.setattr(screen_fit, "available_geometry", lambda widget: screen["area"])

    def window():
        w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
        w.manager.max_parallel = 0
        qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
        w.show()
        qtbot.waitUntil(lambda: not w.runs.loading, timeout=10_000)
        return w

    first = window()   # offscreen, as on a bare X server: no window manager frames or maximises it
    qtbot.waitUntil(lambda: first.size().toTuple() == (1280, 800), timeout=10_000)   # the whole area
    first.close()
    screen["area"] = QRect(0, 0, 1920, 1080)
    again = window()
    qtbot.waitUntil(lambda: again.size().toTuple() == (1920, 1080), timeout=10_000)   # not a corner of the screen
    qtbot.waitUntil(lambda: again.runs_dock.width() > 500)   # the dock widened with it


def test_without_a_window_manager_the_window_fills_the_screen_and_a_remembered_size_still_wins(qtbot, tmp_path,
                                                                                             monkeypatch):
    """No window manager (a bare X server; offscreen here): nobody frames or maximises the window, so a first start
    takes the whole available area; a window with a frame, or of a size of its own (remembered), is left alone."""
    from explorer.ui.shell import screen_fit
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    area = QRect(0, 0, 1920, 1080)
    assert fills_unframed((1904, 1040), (1904, 1040), area)            # first-start size, no frame
    assert fills_unframed((1904, 1040), (1908, 1044), area)            # a border but no title bar
    assert not fills_unframed((1904, 1040), (1920, 1080), area)        # a window manager framed it
    assert not fills_unframed((1000, 700), (1000, 700), area)          # a remembered size of its own
    monkeypatch.setattr(screen_fit, "available_geometry", lambda widget: area)
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.show()
    qtbot.waitUntil(lambda: w.size() == area.size(), timeout=10_000)
    w.setGeometry(QRect(100, 50, 1400, 900))
    assert not w.fill_without_frame.fill() and w.size().toTuple() == (1400, 900)


def test_a_window_that_covered_its_screen_without_a_frame_reopens_on_the_whole_screen(qtbot, tmp_path, monkeypatch):
    """Quit at 1280x800 without a window manager, the window filling the screen (1280x800, no frame): the next start
    opens on the whole area at once, not on the 1264x760 sized for a frame (which left a black strip right and
    bottom); a window the person sized smaller keeps its size."""
    from explorer.ui.shell import screen_fit
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    laptop = QRect(0, 0, 1280, 800)
    assert restored_rect(QRect(0, 0, 1280, 800), (1280, 800), laptop) == laptop
    assert restored_rect(QRect(0, 0, 1280, 800), (1280, 800), QRect(0, 0, 1920, 1080)) == QRect(0, 0, 1920, 1080)
    assert restored_rect(QRect(0, 0, 1264, 760), (1280, 800), laptop) == first_rect(laptop)   # framed: room for it
    assert restored_rect(QRect(40, 30, 1000, 700), (1280, 800), laptop) == QRect(40, 30, 1000, 700)
    monkeypatch.setattr(screen_fit, "available_geometry", lambda widget: laptop)
    settings = AppSettings(tmp_path / "s.ini")
    w = MainWindow(tmp_path / "runs", settings, probe_device=False)
    w.manager.max_parallel = 0
    w.resize(1280, 800)
    w.move(0, 0)
    w.close()   # remembers 1280x800 on a 1280x800 screen
    again = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    again.manager.max_parallel = 0
    qtbot.addWidget(again, before_close_func=lambda w: w.manager.cancel_all())
    assert again.size().toTuple() == (1280, 800)   # before any show or timer: the restored rectangle itself
