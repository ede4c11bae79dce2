"""The Explain page (explorer/ui/inspectors/explain_view.py) driven through the in-thread inspector double:
its numbers equal `bert-explorer explain`'s JSON for the same checkpoint and input, every head's inputs and
targets are offered, errors land in the status line, and the view exports to PNG and SVG."""

import json

import numpy as np
import pytest
from helpers import save_tiny_model, tiny_loaded_model

from explorer.ui.inspectors.explain_view import ExplainView, bar_rows, explain_html, target_choices


@pytest.fixture
def view(qtbot):
    v = ExplainView()
    v.resize(1280, 700)
    qtbot.addWidget(v)
    v.show()
    qtbot.waitExposed(v)
    return v


def _explain(qtbot, view):
    with qtbot.waitSignal(view.computed, timeout=30_000) as blocker:
        view.run_button.click()
    return blocker.args[0]


def test_the_page_shows_the_cli_numbers(qtbot, view, tmp_path):
    folder = save_tiny_model(tmp_path / "pair", "classification", seed=2)
    view.set_task("pair")
    view.source.setText(str(folder))
    with qtbot.waitSignal(view._loader.finished, timeout=30_000):
        view.load_model()
    assert view.text_b.isVisible() and not view.ending_row.isVisible()
    view.text_a.setText("ada was born in london")
    view.text_b.setText("lovelace was born in the city")
    view.target.setCurrentIndex(view.target.findData("margin"))
    view.method.setCurrentIndex(view.method.findData("ig"))
    view.steps.setValue(40)
    view.merge.setChecked(True)
    shown = _explain(qtbot, view)
    out = tmp_path / "cli.json"
    from explorer import cli

    assert cli.main(["explain", "--model", str(folder), "--text", "ada was born in london", "--text-pair",
                     "lovelace was born in the city", "--target", "margin", "--method", "ig", "--steps", "40",
                     "--merge-words", "--out", str(out)]) == 0
    want = json.loads(out.read_text(encoding="utf-8"))
    got = shown.to_dict()
    assert got["tokens"] == want["tokens"] and "lovelace" in got["tokens"]
    assert np.allclose(got["attributions"], want["attributions"], rtol=0, atol=1e-12)
    for key in ("target", "target_value", "baseline_value", "completeness_gap", "method", "steps"):
        assert got[key] == pytest.approx(want[key], abs=1e-12) if isinstance(want[key], float) else got[key] == want[key]
    assert "gap" in view.completeness.text() and "warning" not in view.completeness.text()
    assert view.bars.rows == bar_rows(shown, "pair") and len(view.bars.rows) == len(shown.tokens)
    assert abs(view.bars.rows[0][1]) == max(abs(a) for a in got["attributions"])
    html = view.text.toHtml()
    assert "Sentence A" in html and "Sentence B" in html and "lovelace" in html


def test_every_head_gets_its_inputs_and_targets(qtbot, view):
    swag = tiny_loaded_model("multiple_choice", num_labels=1, seed=1)
    view.set_loaded(swag)
    assert view.current_task() == "swag" and view.ending_row.isVisible()
    assert [view.target.itemText(i) for i in range(view.target.count())][-1] == "ending 3 against the others"
    view.text_a.setText("ada was born")
    for e, text in zip(view.endings, ("in london", "in paris", "on the river", "in the year")):
        e.setText(text)
    view.target.setCurrentIndex(view.target.findData("1"))
    view.method.setCurrentIndex(view.method.findData("gxi"))
    res = _explain(qtbot, view)
    assert res.head == "multiple_choice" and sorted(set(res.choices)) == [0, 1, 2, 3]
    assert "ending 1 against the others" in res.target.description
    assert "Ending 3:" in view.text.toHtml() and "Context (ending 3):" in view.text.toHtml()
    assert "no completeness property" in view.completeness.text()
    assert any(label.endswith("(end 1)") for label, _ in view.bars.rows)

    tagger = tiny_loaded_model("token_classification", num_labels=3, seed=1)
    view.set_loaded(tagger)
    assert view.current_task() == "ner" and view.token.isVisible() and not view.end.isVisible()
    view.text_a.setText("ada was born")
    view.token.setValue(40)
    view.run_button.click()
    qtbot.waitUntil(lambda: "outside the 5 tokens" in view.status.text(), timeout=30_000)
    assert view.run_button.isEnabled()
    view.token.setValue(3)
    assert _explain(qtbot, view).target.token == 3

    assert [v for _, v in target_choices("squad_v2", [])] == ["span", "start", "end", "score_diff"]
    assert target_choices("regression", ["score"]) == [("the score", "score")]


def test_the_view_exports_to_png_and_svg(qtbot, view, tmp_path):
    view.set_loaded(tiny_loaded_model("qa", seed=1))
    assert view.current_task() in ("squad_v1", "squad_v2") and view.end.isVisible()
    view.text_a.setText("where was ada born?")
    view.text_b.setText("ada was born in london.")
    view.steps.setValue(8)
    res = _explain(qtbot, view)
    assert "Question" in explain_html(res, view.current_task()) and "Passage" in view.text.toHtml()
    assert "special tokens ([CLS], [SEP]): 0 (the baseline keeps them)" in view.text.toHtml()   # IG: exactly 0
    png, svg = view.export_png(str(tmp_path / "x.png")), view.export_svg(str(tmp_path / "x.svg"))
    from PySide6.QtGui import QImage

    image = QImage(png)
    assert (image.width(), image.height()) == (view.view.width(), view.view.height())
    text = (tmp_path / "x.svg").read_text(encoding="utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text and "where" in text and svg.endswith(".svg")


def test_a_squad_v2_model_explains_its_answer_or_abstain_decision(qtbot, view):
    qa = tiny_loaded_model("qa")
    view.set_loaded(qa)
    view.set_task("squad_v2")
    view.text_a.setText("where was ada born?")
    view.text_b.setText("ada lovelace was born in london in 1815.")
    view.target.setCurrentIndex(view.target.findData("score_diff"))
    view.method.setCurrentIndex(view.method.findData("ig"))
    view.steps.setValue(16)
    res = _explain(qtbot, view)
    assert res.target.kind == "score_diff" and "toward_answer" in res.details
    assert abs(res.total - (res.target_value - res.baseline_value)) <= 0.01 * abs(res.target_value - res.baseline_value)
