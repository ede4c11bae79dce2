"""A screenshot of the Explain page, offscreen, on a real fine-tuned checkpoint (for the user guide).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_explain.py OUT_DIR --checkpoint RUN/checkpoints/best \
        [--task single] [--text "a sentence"] [--method ig] [--steps 50]

Opens the real main window (temporary runs folder and settings, the real inspector child), shows the Explain
tab, loads the checkpoint as --task, explains --text with the margin target (integrated gradients, word
pieces merged), waits for the result and writes OUT_DIR/explain.png (the whole window, scaled down until it
is under --max-kb). Prints the completeness line.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--checkpoint", required=True, help="a fine-tuned checkpoint folder")
    ap.add_argument("--task", default="single", help="the checkpoint's task (default single)")
    ap.add_argument("--text", default="a gripping, beautifully acted film that never lets go .")
    ap.add_argument("--method", choices=["ig", "gxi"], default="ig")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--max-kb", type=int, default=300)
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args(argv)
    from screenshots import AppDriver

    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="explorer_explain_shots_"))
    drv = AppDriver(tmp / "runs", tmp / "settings.ini")
    try:
        drv.show_tab("Explain")
        view = drv.win.pages["Explain"]
        view.open_checkpoint(a.checkpoint, a.task)
        drv.wait_until(lambda: view.loaded is not None, a.timeout, "the checkpoint to load in Explain")
        view.text_a.setText(a.text)
        view.target.setCurrentIndex(max(view.target.findData("margin"), 0))
        view.method.setCurrentIndex(max(view.method.findData(a.method), 0))
        view.steps.setValue(a.steps)
        view.merge.setChecked(True)
        view.explain()
        drv.wait_until(lambda: view.result is not None, a.timeout, "the attributions")
        drv.wait(0.5)
        print(view.result.completeness_line(), flush=True)
        shot = drv.grab(out / "explain.png", a.max_kb)
        print(f"explain.png {shot[0]}x{shot[1]} {shot[2] // 1024} KB", flush=True)
    finally:
        drv.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
