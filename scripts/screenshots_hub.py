"""Screenshots of the inspector's hub download: the bundled encoder served by a local hub (scripts/local_hub.py)
as ``test-org/minilm-squad``, throttled so the download takes a while, downloaded by the real inspector child
process; the Attention page is grabbed at 1280x800 while the bar shows bytes, rate and time left, then Cancel
is pressed and the page grabbed again (and the cache checked for half files).

    python scripts/screenshots_hub.py [OUT_DIR] [--rate MB_PER_S]      (default /tmp/hub_shots, 8 MB/s)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import local_hub  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="/tmp/hub_shots")
    parser.add_argument("--rate", type=float, default=8.0, help="MB per second the local hub sends")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    home = Path(tempfile.mkdtemp(prefix="hub-shots-"))
    server = local_hub.LocalHub([local_hub.HubRepo("test-org/minilm-squad", local_hub.bundled_encoder_folder())],
                                throttle_bps=int(args.rate * 1e6)).start()
    # before huggingface_hub is imported anywhere (this process and the inspector child read them once)
    os.environ.update({"HF_ENDPOINT": server.url, "HF_HOME": str(home), "HF_HUB_OFFLINE": "0",
                       "HF_DATASETS_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0", "QT_QPA_PLATFORM": "offscreen"})
    from PySide6.QtWidgets import QApplication, QTabWidget

    from explorer.ui.inspectors.hub import InspectorHub

    app = QApplication.instance() or QApplication([])
    hub = InspectorHub()
    tabs = QTabWidget()
    for title, widget in hub.tabs():
        tabs.addTab(widget, title)
    tabs.resize(1280, 800)
    tabs.show()
    seen: list[str] = []
    hub.downloads.job.progress.connect(lambda d, t: seen.append(hub.download_bar.detail.text()))
    cancelled: list[bool] = []
    hub.downloads.job.cancelled.connect(lambda: cancelled.append(True))
    hub.open_model("test-org/minilm-squad")

    def wait(until, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while not until() and time.monotonic() < end:
            app.processEvents()
            time.sleep(0.02)
        return until()

    ok = wait(lambda: len(seen) >= 25 and "left" in seen[-1], 120)
    app.processEvents()
    tabs.grab().save(str(out / "download_progress.png"))
    hub.download_bar.grab().save(str(out / "download_bar.png"))
    print("progress:", seen[-1] if seen else "(none)", "" if ok else "(timed out waiting for progress)")
    hub.download_bar.cancel_button.click()
    wait(lambda: bool(cancelled), 60)
    app.processEvents()
    tabs.grab().save(str(out / "download_cancelled.png"))
    half = sorted(str(p) for p in home.rglob("*.incomplete"))
    print("cancelled:", bool(cancelled), "| status:", hub.panel.status.text(), "| .incomplete files left:", half)
    launcher_shot(app, out, wait)
    hub.client.stop()
    server.stop()
    print("wrote", ", ".join(str(out / n) for n in ("download_progress.png", "download_bar.png",
                                                     "download_cancelled.png", "launcher_download.png")))
    return 0 if ok and cancelled and not half else 1


def launcher_shot(app, out: Path, wait) -> None:
    """The launcher at 1280x800 while Launch downloads the hub model first (the run would start after it)."""
    from explorer.ui.launch.launcher import LauncherPanel

    panel = LauncherPanel(Path(tempfile.mkdtemp(prefix="hub-shots-runs-")))
    panel.resize(1280, 800)
    panel.show()
    panel.editors["model"].set("test-org/minilm-squad")
    panel.launch()
    wait(lambda: "left" in panel.download_bar.detail.text(), 60)
    wait(lambda: False, 1.5)
    panel.grab().save(str(out / "launcher_download.png"))
    panel.download_bar.cancel_button.click()
    wait(lambda: not panel.downloader().running, 60)
    print("launcher:", panel.problem.text())


if __name__ == "__main__":
    raise SystemExit(main())
