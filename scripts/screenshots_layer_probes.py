"""A screenshot of the Layer probes page, offscreen, on a real fine-tuned checkpoint (for the user guide).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_layer_probes.py OUT_DIR --checkpoint RUN/checkpoints/best \
        [--labels sentences] [--data FILE] [--seeds 3] [--cap 0]

Opens the real main window (temporary runs folder and settings, the real inspector child), shows the Layer probes
tab, fills its form (the base model comes from the run's config.json), runs the probes, waits for the two curves
and writes OUT_DIR/layer_probes.png (the whole window, scaled down until it is under --max-kb). Prints the
page's summary line.
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
    ap.add_argument("--checkpoint", required=True, help="a fine-tuned checkpoint folder in its run folder")
    ap.add_argument("--labels", choices=["sentences", "tokens"], default="sentences")
    ap.add_argument("--data", default="", help="tokens: a CoNLL file; sentences: default the run's dev file")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--cap", type=int, default=0)
    ap.add_argument("--max-kb", type=int, default=300)
    ap.add_argument("--timeout", type=float, default=1200)
    a = ap.parse_args(argv)
    from screenshots import AppDriver

    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="explorer_probe_shots_"))
    drv = AppDriver(tmp / "runs", tmp / "settings.ini")
    try:
        drv.show_tab("Layer probes")
        view = drv.win.pages["Layer probes"]
        view.model.setText(a.checkpoint)
        view.labels.setCurrentIndex(view.labels.findData(a.labels))
        view.data.setText(a.data)
        view.seeds.setValue(a.seeds)
        view.cap.setValue(a.cap)
        view.run_probes()
        drv.wait_until(lambda: view.study is not None, a.timeout, "the probes")
        drv.wait(0.5)
        print(view.status.text(), flush=True)
        shot = drv.grab(out / "layer_probes.png", a.max_kb)
        print(f"layer_probes.png {shot[0]}x{shot[1]} {shot[2] // 1024} KB", flush=True)
    finally:
        drv.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
