"""A screenshot of the Layer probes page, offscreen, on a real fine-tuned checkpoint (for the user guide).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_layer_probes.py OUT_DIR --checkpoint RUN/checkpoints/best \
        [--labels sentences] [--data FILE] [--seeds 3] [--cap 0]

Opens the real main window (temporary runs folder and settings, the real inspector child), shows the Layer probes
tab, fills its form (the base model comes from the run's config.json), runs the probes, waits for the two curves
and writes OUT_DIR/layer_probes.png (the whole window, scaled down until it is under --max-kb). Prints the
page's summary line.

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_layer_probes.py OUT_DIR --checkpoint RUN/checkpoints/best \
        --from-json probes.json

draws instead the JSON of ``bert-explorer layer-probes --json`` on the page alone (its own rendering of the same
numbers, no second computation) and writes OUT_DIR/layer_probes.png as a 256-colour PNG.
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
    ap.add_argument("--from-json", default="", help="draw this layer-probes JSON instead of running the probes")
    a = ap.parse_args(argv)
    if a.from_json:
        return page_from_json(a)
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


def study_from_dict(d: dict):
    """A ProbeStudy rebuilt from its to_dict() (None bounds read as NaN)."""
    from explorer.core.probing.linear import LayerCurve
    from explorer.core.probing.study import ProbeStudy

    def nan(values):
        return [float("nan") if v is None else float(v) for v in values]

    curves = [LayerCurve(name=c["name"], source=c["source"], layers=list(c["layers"]), mean=nan(c["mean"]),
                         low=nan(c["low"]), high=nan(c["high"]), per_seed=c["per_seed"]) for c in d["curves"]]
    return ProbeStudy(kind=d["kind"], what=d["what"], data=d["data"], label_names=d["label_names"], n_rows=d["n_rows"],
                      n_sentences=d["n_sentences"], seeds=d["seeds"], test_fraction=d["test_fraction"],
                      majority=d["majority"], curves=curves, pooling=d.get("pooling", ""), notes=d.get("notes", []),
                      seconds=d.get("seconds", 0.0))


def page_from_json(a) -> int:
    """The Layer probes page alone with the form filled and the JSON's study drawn, saved as a small PNG."""
    import json

    from PySide6.QtWidgets import QApplication

    from explorer.ui.inspectors.layer_probes_view import LayerProbesView
    from screenshots_heads import save_small

    app = QApplication.instance() or QApplication([])
    d = json.loads(Path(a.from_json).read_text(encoding="utf-8"))
    view = LayerProbesView(client=object())
    view.model.setText(a.checkpoint)
    view.labels.setCurrentIndex(view.labels.findData(d["kind"]))
    view.data.setText(a.data)
    view.seeds.setValue(len(d["seeds"]))
    view.cap.setValue(a.cap)
    view.resize(1280, 720)
    view.show_study(study_from_dict(d))
    view.show()
    for _ in range(5):
        app.processEvents()
    out = Path(a.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    save_small(view, out / "layer_probes.png")
    print(view.status.text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
