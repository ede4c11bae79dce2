"""Screenshots of the Classify and classification dev-set tabs, offscreen, on a real checkpoint.

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_classify.py OUT_DIR --checkpoint RUN/checkpoints/best \
        [--dev DEV_FILE] [--text "a sentence"] [--text-b "..."] [--dev-cap 200]

Opens the checkpoint the way the Runs list does (MainWindow.open_checkpoint: classifier and SWAG
checkpoints go to Classify), classifies --text (a sentence / pair; for a SWAG checkpoint the first dev
example is opened instead), grabs OUT_DIR/classify.png, scores the dev file in "Classify: dev set",
grabs OUT_DIR/classify_dev.png (and OUT_DIR/calibration.png, the calibration window, for a classifier),
then clicks the most confident mistake (or the first boundary example)
and grabs OUT_DIR/classify_opened.png. Prints what it did with timings. scripts/screenshots.py calls
:func:`shoot_classify` too when given --classify-checkpoint.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))


def shoot_classify(drv, out: Path, checkpoint: str, dev: str, text: str, text_b: str = "", dev_cap: int = 200,
                   max_kb: int = 300, timeout: float = 600) -> None:
    """Drive Classify and its dev view on ``checkpoint`` with an AppDriver; write the three PNGs."""
    win = drv.win
    view, dev_view = win.classify_pages[0][1], win.classify_pages[1][1]
    t0 = time.monotonic()
    win.open_checkpoint(checkpoint)
    drv.wait_until(lambda: view.loaded is not None, timeout, "the checkpoint to load in Classify")
    print(f"loaded {checkpoint} as {view.current_kind()} in {time.monotonic() - t0:.1f} s", flush=True)
    if view.current_kind() == "swag":
        from explorer.core.data.swag import load_swag

        data = load_swag(dev, cap=1)
        view.open_example({"kind": "swag", "text_a": data.contexts[0], "start": data.starts[0],
                           "endings": data.endings[0], "label": data.labels[0]})
    else:
        view.open_example({"kind": view.current_kind(), "text_a": text, "text_b": text_b, "label": -1})
    # opening a run's checkpoint also classifies the run's first dev example: wait for the answer to these inputs
    drv.wait_until(lambda: view.result is not None and view._result_inputs == view.inputs.values(),  # noqa: SLF001
                   timeout, "the Classify result")
    print("\n".join(view.result_lines(view.result)[-8:]), flush=True)
    shot = drv.grab(out / "classify.png", max_kb)
    print(f"classify.png {shot[0]}x{shot[1]} {shot[2] // 1024} KB", flush=True)
    win.tabs.setCurrentWidget(dev_view)
    if dev:                      # else the run's own dev data (its dev file, or the rows it held out)
        dev_view.path.setText(dev)
    else:
        dev_view.prefill_from_run(checkpoint)
    dev_view.cap.setValue(dev_cap)
    t0 = time.monotonic()
    dev_view.run()
    drv.wait_until(lambda: dev_view.report is not None, timeout, "the dev-set report")
    print(f"dev: {dev_view.metrics.text()} in {time.monotonic() - t0:.1f} s", flush=True)
    shot = drv.grab(out / "classify_dev.png", max_kb)
    print(f"classify_dev.png {shot[0]}x{shot[1]} {shot[2] // 1024} KB", flush=True)
    if dev_view.calibrate.isEnabled():   # reliability before / after temperature scaling, both halves
        cal_view = dev_view.open_calibration()
        if cal_view is not None:
            drv.app.processEvents()
            cal_view.grab().save(str(out / "calibration.png"))
            print(f"calibration.png: {cal_view.summary.text()}", flush=True)
            cal_view.close()
    rep = dev_view.report
    table = dev_view.mistakes if (getattr(rep, "mistakes", None) or getattr(rep, "worst", None)) else dev_view.boundary
    view.result = None
    table.cellClicked.emit(0, 0)
    drv.wait_until(lambda: view.result is not None, timeout, "the clicked dev example in Classify")
    shot = drv.grab(out / "classify_opened.png", max_kb)
    print(f"classify_opened.png {shot[0]}x{shot[1]} {shot[2] // 1024} KB", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--checkpoint", required=True, help="a classifier or SWAG checkpoint folder")
    ap.add_argument("--dev", default="", help="dev file for the dev-set view; empty = the run's own (its dev file, "
                    "or the training rows it held out as dev)")
    ap.add_argument("--text", default="a gripping, beautifully acted film that never lets go .")
    ap.add_argument("--text-b", default="")
    ap.add_argument("--dev-cap", type=int, default=200)
    ap.add_argument("--max-kb", type=int, default=300)
    a = ap.parse_args(argv)
    from screenshots import AppDriver

    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="explorer_classify_shots_"))
    drv = AppDriver(tmp / "runs", tmp / "settings.ini")
    try:
        shoot_classify(drv, out, a.checkpoint, a.dev, a.text, a.text_b, a.dev_cap, a.max_kb)
    finally:
        drv.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
