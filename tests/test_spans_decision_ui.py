"""Spans & τ: the decision's "why?" (integrated gradients of score_diff computed in the inspector double) and the
decode rule setting with the other rule's answer under the decision (pytest-qt, offscreen, tiny random model)."""

import pytest

from explorer.core.qa.probe import probe
from explorer.ui.inspectors.components.decision_why import why_html, why_status, why_summary
from explorer.ui.inspectors.components.spans import decision_lines, other_rule_line

QUESTION = "where was ada born?"
PASSAGE = "ada lovelace was born in london in 1815. she wrote the first program. " * 3


@pytest.fixture
def hub(qtbot, tiny_qa, tmp_path, monkeypatch):
    monkeypatch.setenv("EXPLORER_CACHE_DIR", str(tmp_path / "cache"))
    from explorer.ui.inspectors import InspectorHub

    h = InspectorHub()
    for _, w in h.tabs():
        qtbot.addWidget(w)
    h.set_model(tiny_qa)
    yield h


def probe_in_hub(qtbot, hub):
    with qtbot.waitSignal(hub.result_changed, timeout=20000) as blocker:
        hub.open_example(QUESTION, PASSAGE)
    return blocker.args[0]


def test_why_attributes_the_decision_beside_the_inequality(qtbot, hub):
    result = probe_in_hub(qtbot, hub)
    why = hub.spans_view.why
    assert why.button.isEnabled() and why.summary.text() == ""
    reports = []
    why.job.progress.connect(lambda done, total: reports.append((done, total)))
    with qtbot.waitSignal(why.job.finished, timeout=60000):
        why.button.click()
        assert why.job_bar.running and not why.button.isEnabled()   # steps done, time left and Cancel meanwhile
    a = why.attribution
    assert a.target.kind == "score_diff" and a.target_value == pytest.approx(result.score_diff, abs=1e-4)
    assert why.summary.text().startswith("toward answering:") and "gap" in why.summary.text()
    assert hub.spans_view.right_tabs.currentWidget() is why
    assert len({done for done, _ in reports}) >= 3 and reports[-1][0] == reports[-1][1] > 1   # batch by batch
    assert not why.job_bar.running and why.button.isEnabled()
    # the job row beside the button, the result at the tab's full width (not a narrow column beside the button)
    decision = hub.spans_view.decision
    assert decision.isAncestorOf(why.job_bar) and decision.isAncestorOf(why.button)
    assert why.isAncestorOf(why.summary) and not decision.isAncestorOf(why.summary)
    assert "question:" in why.text.toPlainText() and "passage:" in why.text.toPlainText()
    probe_in_hub(qtbot, hub)          # a new probe forgets the old attributions
    assert why.attribution is None and why.summary.text() == ""


def test_decode_rule_setting_reaches_the_probe_and_the_other_answer_shows_where_it_differs(qtbot, hub):
    hub.panel.n_best_size.setValue(2)
    hub.panel.decode_rule.setCurrentIndex(hub.panel.decode_rule.findData("run_qa"))
    hub.panel.debounce.stop()
    result = probe_in_hub(qtbot, hub)
    assert result.decode_rule == "run_qa" and result.n_best_size == 2
    label = hub.spans_view.decision.other_rule_label
    differs = result.other_rule_answer(hub.spans_view.tau) is not None
    assert not label.isHidden() == differs
    if differs:
        assert "decode rule run_qa gives" in label.text() and "passage would give" in label.text()
    hub.spans_view.set_tau(abs(result.score_diff) + abs(result.other_decoding.score_diff) + 1)   # both abstain
    assert label.isHidden()


def test_other_rule_line_and_why_texts(tiny_qa):
    r = probe(tiny_qa, QUESTION, PASSAGE, n_best_size=2)
    other = r.other_rule_answer(-100.0)
    line = other_rule_line(r, -100.0)
    assert (line == "") == (other is None)
    if other is not None:
        assert line.startswith("decode rule passage gives") and "run_qa would give" in line
    assert decision_lines(r, -100.0).other_rule == line
    assert other_rule_line(r, 1e9) == ""
    from explorer.core.explain.decision import explain_probe_window

    a = explain_probe_window(tiny_qa.model, tiny_qa.tokenizer, r.best_window, steps=8)
    text = why_summary(a)
    assert text.startswith("toward answering:") and f"{a.target_value:+.2f}" in text
    page = why_html(a)
    assert "rgba(214,39,40" in page or "rgba(31,119,180" in page
    assert why_status(r, r.best_window.index, a).endswith("(the decision's)")   # one window, the passage rule
    theirs = probe(tiny_qa, QUESTION, PASSAGE, n_best_size=1, decode_rule="run_qa")
    if abs(theirs.score_diff - a.target_value) > 1e-3:
        assert "the run_qa decode rule searched fewer spans" in why_status(theirs, 0, a)


def test_the_why_summary_writes_a_negative_baseline_in_parentheses():
    """The completeness check subtracts the [PAD] baseline's score_diff: a negative one reads "+1.20 − (-0.50)",
    never "+1.20 − -0.50"; one that rounds to zero reads "0.00"."""
    from types import SimpleNamespace

    attr = SimpleNamespace(details={"toward_answer": [("london", 1.0)], "toward_no_answer": []}, total=1.7,
                           target_value=1.2, baseline_value=-0.5, relative_gap=0.001, steps=8, warning="")
    text = why_summary(attr)
    assert "score_diff +1.20 − (-0.50) at the [PAD] baseline = +1.70" in text and "− -" not in text
    attr.baseline_value = -0.001
    assert "score_diff +1.20 − 0.00 at the [PAD]" in why_summary(attr)


def test_a_question_typed_while_the_checkpoint_loads_is_kept_over_the_runs_example(monkeypatch):
    """Open best checkpoint fills the probe panel with the run's first dev example once it is read; a question
    the person typed while the checkpoint loaded stays and is probed (it was replaced by the example); an
    untouched panel gets the example."""
    from types import SimpleNamespace

    from explorer.ui.inspectors import hub as hub_module
    from explorer.ui.shell import tasks

    class Panel:
        def __init__(self):
            self.question, self.passage = "Who wrote it?", "The old passage."
            self.filled = (self.question, self.passage)   # put in by the app

        def holds_typed_text(self):
            return (self.question, self.passage) != self.filled

    calls, pending = [], []
    fake = SimpleNamespace(panel=Panel(), tabs=lambda: [], open_model=lambda path: calls.append(("load", path)),
                           open_example=lambda q, p: calls.append(("example", q, p)),
                           probe_now=lambda: calls.append(("probe", fake.panel.question)))
    monkeypatch.setattr(tasks, "run_in_thread", lambda fn, *a, owner=None, on_done=None: pending.append(on_done))
    pages = hub_module.HubPages(SimpleNamespace(_inspector_opened=False), fake)
    pages.open_checkpoint("Spans & τ", "runs/a/checkpoints/best", "squad_v1", {})
    fake.panel.question = "In which city was the piano invented?"   # typed while it loads
    pending.pop()(("What is the run's first question?", "Its passage."))
    assert calls == [("load", "runs/a/checkpoints/best"), ("probe", "In which city was the piano invented?")]
    calls.clear()
    fake.panel.filled = (fake.panel.question, fake.panel.passage)   # as if the app had put it there
    pages.open_checkpoint("Spans & τ", "runs/b/checkpoints/best", "squad_v1", {})
    pending.pop()(("What is the run's first question?", "Its passage."))
    assert calls == [("load", "runs/b/checkpoints/best"),
                     ("example", "What is the run's first question?", "Its passage.")]


def test_the_probe_panel_tells_a_typed_question_or_passage_from_one_the_app_put_in(qtbot):
    """An example or a picked row put in by the app may be replaced by the next run's example; a question or passage
    the person typed, before a checkpoint opens or while it loads, is theirs and stays."""
    from explorer.ui.inspectors.probe_panel import ProbePanel

    panel = ProbePanel()
    qtbot.addWidget(panel)
    assert not panel.holds_typed_text()                      # empty
    panel.set_inputs("Who invented the piano?", "The piano was invented by Cristofori.")
    assert not panel.holds_typed_text()                      # the app's example
    panel.question.setText("In which city was the piano invented?")
    assert panel.holds_typed_text()
    panel.set_inputs("Who invented the piano?", "The piano was invented by Cristofori.")
    panel.passage.setPlainText("My own passage.")
    assert panel.holds_typed_text()


def test_a_question_typed_before_a_checkpoint_opens_is_not_replaced_by_its_runs_example(qtbot, monkeypatch):
    """The person typed a question over the earlier example, then opened a run's checkpoint: the run's example,
    read once the open began, does not overwrite it; their question is probed with the new checkpoint."""
    from types import SimpleNamespace

    from explorer.ui.inspectors import hub as hub_module
    from explorer.ui.inspectors.probe_panel import ProbePanel
    from explorer.ui.shell import tasks

    panel = ProbePanel()
    qtbot.addWidget(panel)
    panel.set_inputs("Who invented the piano?", "The piano was invented by Cristofori in Florence.")
    panel.question.setText("In which city was the piano invented?")
    calls, pending = [], []
    fake = SimpleNamespace(panel=panel, tabs=lambda: [], open_model=lambda path: calls.append(("load", path)),
                           open_example=lambda q, p: calls.append(("example", q)),
                           probe_now=lambda: calls.append(("probe", panel.question.text())))
    monkeypatch.setattr(tasks, "run_in_thread", lambda fn, *a, owner=None, on_done=None: pending.append(on_done))
    pages = hub_module.HubPages(SimpleNamespace(_inspector_opened=False), fake)
    pages.open_checkpoint("Spans & τ", "runs/a/checkpoints/best", "squad_v1", {})
    pending.pop()(("What is the run's first question?", "Its passage."))
    assert calls == [("load", "runs/a/checkpoints/best"), ("probe", "In which city was the piano invented?")]
    assert panel.question.text() == "In which city was the piano invented?"
