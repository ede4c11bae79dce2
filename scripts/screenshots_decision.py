"""Screenshots of Spans & τ explaining a SQuAD 2.0 decision (offscreen), into docs/images: the Why (no) answer tab
with the integrated gradients of score_diff (why_no_answer.png) and, for a question the two decode rules answer
differently, the other rule's answer under the decision (decode_rule.png).

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_decision.py --model SQUAD2_RUN/checkpoints/best \\
        --question "..." --passage "..." [--rule-question "..." --rule-passage "..." --rule run_qa]

The question of the decode-rule picture comes from ``bert-explorer eval --decode-rule ... --json``
(``decode_rule.differences``). The views render what the inspector child's ``probe`` and ``decision`` ops
return; here the ops run in this process on the loaded checkpoint, so the pictures are the pages' own rendering.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="a SQuAD 2.0 checkpoint folder")
    p.add_argument("--question", required=True)
    p.add_argument("--passage", required=True)
    p.add_argument("--rule-question", default="", help="a question the decode rules answer differently")
    p.add_argument("--rule-passage", default="")
    p.add_argument("--rule", default="run_qa", help="the rule the probe panel is set to for decode_rule.png")
    p.add_argument("--tau", type=float, default=0.0)
    p.add_argument("--window", default="256,128,64", help="max_seq_length,doc_stride,max_query_length")
    p.add_argument("--size", default="1280x800", help="the window's width x height in pixels (a laptop screen)")
    p.add_argument("--out", default=str(ROOT / "docs" / "images"))
    a = p.parse_args(argv)
    from PySide6.QtWidgets import QApplication, QTabWidget

    from explorer.core.models.info import model_info
    from explorer.core.models.loading import load_model
    from explorer.ui.inspectors.hub import InspectorHub
    from explorer.worker.inspector_ops import State, op_decision, op_probe
    from screenshots_heads import save_small

    app = QApplication.instance() or QApplication([])
    state = State()
    state.models["qa"] = load_model(a.model, "qa")
    hub = InspectorHub()
    tabs = QTabWidget()
    for title, w in hub.tabs():
        tabs.addTab(w, title)
    tabs.resize(*map(int, a.size.split("x")))
    hub.panel.show_model(model_info(state.models["qa"], "qa"))
    window = dict(zip(("max_seq_length", "doc_stride", "max_query_length"), map(int, a.window.split(","))))
    for key, value in window.items():   # the probe panel shows the window the probes ran with
        getattr(hub.panel, key).setValue(value)
    out = Path(a.out)
    tabs.show()
    tabs.setCurrentIndex(1)

    def show(question: str, passage: str, rule: str):
        hub.panel.set_inputs(question, passage)
        hub.panel.decode_rule.setCurrentIndex(hub.panel.decode_rule.findData(rule))
        result = op_probe(state, {"slot": "qa", "question": question, "passage": passage, "attentions": True,
                                  "tau": a.tau, "decode_rule": rule, **window}, None, lambda: False)
        hub.show_result(result)
        hub.spans_view.spin.setValue(a.tau) if hasattr(hub.spans_view, "spin") else None
        return result

    result = show(a.question, a.passage, "passage")
    why = hub.spans_view.why
    attribution = op_decision(state, {"slot": "qa", "window": result.windows[why.window],
                                      "max_answer_length": int(result.max_answer_length)},
                              lambda *_: None, lambda: False)
    why._show(None, attribution)
    why.parentWidget().parentWidget().setCurrentWidget(why)
    for _ in range(5):
        app.processEvents()
    save_small(tabs, out / "why_no_answer.png")
    print(why.summary.text())
    if a.rule_question:
        show(a.rule_question, a.rule_passage or a.passage, a.rule)
        for _ in range(5):
            app.processEvents()
        print(hub.spans_view.decision.other_rule_label.text())
        save_small(tabs, out / "decode_rule.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
