"""Run under a real X server (tests/test_x11_repaint.py starts Xvfb): the app's own start (splash, window,
event loop), then, once the inspector hub has shown its Attention page unseen (its prewarm), a status-bar label
changed; prints one JSON line saying whether the label's new text reached the screen. The screen is read on a
connection of its own (scripts/startup_time.XScreen: libX11's XGetImage), what a user sees; widget.grab()
renders the widget itself and would pass whatever the screen shows."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


def prewarmed(window) -> bool:
    """Has the inspector hub (once the idle chain built it) shown its Attention page unseen? Read without
    building any page."""
    return any(getattr(getattr(ps, "hub", None), "_prewarmed", False) for ps in window.lazy_pages.page_sets.values())


class Check:
    """Drives the checks from timers inside app.exec(), as the running app would see them."""

    def __init__(self, app, window, screen, limit_s: float):
        self.app, self.window, self.screen, self.limit = app, window, screen, limit_s
        self.result: dict = {}
        self.start = time.monotonic()

    def region(self):
        """The screen under the window's status bar (a fixed rectangle: the label it holds may change width)."""
        from PySide6.QtCore import QPoint

        bar = self.window.statusBar()
        at = bar.mapToGlobal(QPoint(0, 0))
        return self.screen.pixels(at.x(), at.y(), bar.width(), bar.height())

    def change_text(self, key: str, text: str, then) -> None:
        """Set the label's text, then look at the screen every 100 ms (up to the limit) for a change."""
        from PySide6.QtCore import QTimer

        old = self.region()
        self.window.device_label.setText(text)
        deadline = time.monotonic() + self.limit

        def look() -> None:
            now = self.region()
            if now.shape != old.shape or not (now == old).all():
                self.result[key] = True
                then()
            elif time.monotonic() > deadline:
                self.result[key] = False
                then()
            else:
                QTimer.singleShot(100, look)
        QTimer.singleShot(100, look)

    def wait_prewarm(self) -> None:
        from PySide6.QtCore import QTimer

        if prewarmed(self.window) or time.monotonic() - self.start > 6 * self.limit:
            self.result["prewarmed"] = prewarmed(self.window)
            QTimer.singleShot(500, lambda: self.change_text("after", "device: after the prewarm", self.finish))
        else:
            QTimer.singleShot(100, self.wait_prewarm)

    def finish(self) -> None:
        print(json.dumps(self.result), flush=True)
        self.app.quit()


def main(runs: str, settings: str) -> int:
    from PySide6.QtCore import QTimer
    from startup_time import XScreen

    from explorer.ui.app import create_app, create_window
    from explorer.ui.shell.splash import hand_over, show_splash

    app = create_app()
    splash = show_splash()     # explorer.ui.app.main's start
    app, window = create_window(runs, settings, probe_device=False, splash=splash)
    hand_over(splash, window)
    check = Check(app, window, XScreen(os.environ["DISPLAY"]), limit_s=20.0)
    QTimer.singleShot(300, lambda: check.change_text("before", "device: before the prewarm", check.wait_prewarm))
    app.exec()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
