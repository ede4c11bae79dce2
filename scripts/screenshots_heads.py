"""Screenshots of heads switched off on Spans & τ and of the Attention page's head importance for a QA checkpoint
(offscreen), into docs/images: heads_spans.png and heads_importance.png; with ``--classifier`` also heads off on
the Classify page with the dev metric (heads_classify.png).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_heads.py --model SQUAD2_RUN/checkpoints/best \\
        --dev ../shared/data/squad_v2.0/dev-subset.json --cap 40 --heads "1.4, 6.*" [--iterative] \\
        [--classifier SST2_RUN/checkpoints/best --classifier-dev ../shared/data/glue_sst2/dev.tsv]

The views render what the inspector child's ``probe``, ``mask_heads`` and ``head_importance`` ops return; here
the ops run in this process on the loaded checkpoint (no child), so the pictures are the pages' own rendering of
those results.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTION = "Which company built the first commercial computer?"
PASSAGE = ("The UNIVAC I was built by the Eckert-Mauchly Computer Corporation and sold to the Census Bureau in "
           "1951. It was the first commercial computer produced in the United States.")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="", help="a QA checkpoint folder (empty: only the Classify picture)")
    p.add_argument("--dev", default="", help="a SQuAD dev file for the importance map")
    p.add_argument("--task", default="squad_v2")
    p.add_argument("--cap", type=int, default=40)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--heads", default="1.4, 6.*", help="the heads switched off, as typed in the Heads off field")
    p.add_argument("--iterative", action="store_true", help="the pruning curve ranks the heads again at each step")
    p.add_argument("--report", default="", help="draw this `heads importance` JSON instead of scoring the heads again")
    p.add_argument("--window", default="256,128,64", help="max_seq_length,doc_stride,max_query_length")
    p.add_argument("--size", default="1280x800", help="the window's width x height in pixels (a laptop screen)")
    p.add_argument("--classifier", default="", help="a classifier checkpoint for heads_classify.png")
    p.add_argument("--classifier-dev", default="", help="its dev file (the dev-set page's file)")
    p.add_argument("--classifier-heads", default="6.*")
    p.add_argument("--sentence", default="the acting is superb , but the script is a mess .")
    p.add_argument("--out", default=str(ROOT / "docs" / "images"))
    a = p.parse_args(argv)
    from PySide6.QtWidgets import QApplication, QTabWidget

    from explorer.core.models.loading import load_model
    from explorer.ui.inspectors.components.head_masking import parse_selection
    from explorer.ui.inspectors.hub import InspectorHub
    from explorer.worker.head_ops import op_head_importance, op_mask_heads
    from explorer.worker.inspector_ops import State, op_probe

    app = QApplication.instance() or QApplication([])
    state = State()
    out = Path(a.out)
    if a.classifier:
        classify_shot(app, state, a, out / "heads_classify.png")
    if not a.model:
        return 0
    state.models["qa"] = load_model(a.model, "qa")
    hub = InspectorHub()
    tabs = QTabWidget()
    for title, w in hub.tabs():
        tabs.addTab(w, title)
    tabs.resize(*map(int, a.size.split("x")))
    window = dict(zip(("max_seq_length", "doc_stride", "max_query_length"), map(int, a.window.split(","))))
    for key, value in window.items():   # the probe panel shows the window the probes ran with
        getattr(hub.panel, key).setValue(value)
    result = op_probe(state, {"slot": "qa", "question": QUESTION, "passage": PASSAGE, "attentions": True, **window},
                      None, lambda: False)
    from explorer.core.models.info import model_info

    hub.panel.show_model(model_info(state.models["qa"], "qa"))
    hub.panel.set_inputs(QUESTION, PASSAGE)
    hub.show_result(result)
    hub.head_mask.field.setText(a.heads)
    hub.head_importance.dev.setText(a.dev)
    hub.head_importance.cap.setValue(a.cap)
    hub.head_importance.steps.setValue(a.steps)
    hub.head_importance.set_tasks([a.task], a.task)
    sel = parse_selection(a.heads)
    hub.head_mask.on_dev.setChecked(True)
    masked = op_mask_heads(state, {"slot": "qa", "text": QUESTION, "text_pair": PASSAGE, **window, **sel.request(),
                                   "dev": a.dev, "cap": a.cap, "task": a.task}, None, lambda: False)
    hub.head_mask.show_result(masked)
    hub.head_importance.iterative.setChecked(a.iterative)
    if a.report:   # the command's JSON: the same report the inspector child returns
        import json

        report = json.loads(Path(a.report).read_text(encoding="utf-8"))
        hub.head_importance.cap.setValue(report["importance"]["examples"])
        hub.head_importance.steps.setValue(max(len(report["prune_curve"]) - 1, 0))
        hub.head_importance.iterative.setChecked(report.get("pruning") == "iterative")
    else:
        report = op_head_importance(state, {"slot": "qa", "dev": a.dev, "cap": a.cap, "steps": a.steps,
                                            "task": a.task, "iterative": a.iterative, **window},
                                    lambda *_: None, lambda: False)
    hub.head_importance.show_report(report)
    tabs.show()
    for index, name in ((1, "heads_spans.png"), (0, "heads_importance.png")):
        tabs.setCurrentIndex(index)
        if index == 0:
            hub.attention_view.bottom.setCurrentWidget(hub.head_importance)
        for _ in range(5):
            app.processEvents()
        save_small(tabs, out / name)
    return 0


def save_small(widget, path: Path) -> None:
    """The widget's picture as a 256-colour PNG (text stays sharp; a fifth of the bytes)."""
    from PIL import Image

    widget.grab().save(str(path))
    Image.open(path).convert("RGB").quantize(256).save(path, optimize=True)
    print(path, path.stat().st_size // 1024, "KB")


def classify_shot(app, state, a, path: Path) -> None:
    """The Classify page with ``a.classifier_heads`` off on ``a.sentence`` and on the first ``a.cap`` rows of
    ``a.classifier_dev`` (the Classify: dev set page's file)."""
    from explorer.core.models.info import model_info
    from explorer.core.models.loading import load_model
    from explorer.ui.inspectors.classify_view import classify_tabs
    from explorer.ui.inspectors.components.head_masking import parse_selection
    from explorer.worker.head_ops import op_mask_heads
    from explorer.worker.inspector_ops import op_classify

    state.models["classify"] = load_model(a.classifier, "classification")
    (_, view), (_, dev) = classify_tabs()
    view.resize(1280, 860)
    view.source.setText(a.classifier)
    view.loaded = model_info(state.models["classify"], "classify")
    view.inputs.text_a.setText(a.sentence)
    view.show_result(op_classify(state, {"slot": "classify", "kind": "single", "text_a": a.sentence}, None,
                                 lambda: False))
    dev.path.setText(a.classifier_dev)
    dev.cap.setValue(a.cap)
    view.head_mask.field.setText(a.classifier_heads)
    view.head_mask.on_dev.setChecked(True)
    fields = view.head_mask.dev()
    masked = op_mask_heads(state, {"slot": "classify", "text": a.sentence, **parse_selection(a.classifier_heads)
                                   .request(), **fields}, None, lambda: False)
    view.head_mask.show_result(masked)
    view.show()
    for _ in range(5):
        app.processEvents()
    save_small(view, path)


if __name__ == "__main__":
    sys.exit(main())
