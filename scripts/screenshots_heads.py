"""Screenshots of heads switched off on Spans & τ and of the Attention page's head importance for a QA checkpoint
(offscreen), into docs/images: heads_spans.png and heads_importance.png.

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_heads.py --model SQUAD2_RUN/checkpoints/best \\
        --dev ../shared/data/squad_v2.0/dev-subset.json --cap 40 --heads "0.3, 5.*"

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
    p.add_argument("--model", required=True, help="a QA checkpoint folder")
    p.add_argument("--dev", required=True, help="a SQuAD dev file for the importance map")
    p.add_argument("--task", default="squad_v2")
    p.add_argument("--cap", type=int, default=40)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--heads", default="0.3, 5.*", help="the heads switched off, as typed in the Heads off field")
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
    state.models["qa"] = load_model(a.model, "qa")
    hub = InspectorHub()
    tabs = QTabWidget()
    for title, w in hub.tabs():
        tabs.addTab(w, title)
    tabs.resize(1280, 900)
    window = {"max_seq_length": 384, "doc_stride": 128, "max_query_length": 64}
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
    report = op_head_importance(state, {"slot": "qa", "dev": a.dev, "cap": a.cap, "steps": a.steps, "task": a.task,
                                        **window}, lambda *_: None, lambda: False)
    hub.head_importance.show_report(report)
    out = Path(a.out)
    tabs.show()
    for index, name in ((1, "heads_spans.png"), (0, "heads_importance.png")):
        tabs.setCurrentIndex(index)
        if index == 0:
            hub.attention_view.bottom.setCurrentWidget(hub.head_importance)
        for _ in range(5):
            app.processEvents()
        tabs.grab().save(str(out / name))
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
