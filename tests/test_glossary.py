"""Tooltips and panel help texts (explorer/glossary.py)."""

import re

import pytest

from explorer import glossary
from explorer.glossary import GLOSSARY, PANEL_HELP, panel_help, tooltip

# The terms the UI labels use, spelled as they appear on screen.
REQUIRED = [
    "start_logits", "end_logits", "s_null", "null_score", "best_non_null_score", "score_diff", "τ", "tau",
    "n_best_size", "max_answer_length", "max_seq_length", "doc_stride", "max_query_length", "exact_match",
    "f1", "HasAns_f1", "NoAns_f1", "best_f1_thresh", "answer rate", "block flow", "rollout", "by-hand check",
    "warmup", "weight decay", "gradient clipping", "mixed precision", "length grouping", "dev cap",
    "watch examples", "honest τ",
]
PANELS = ["Launcher", "Runs", "Curves"]   # the inspector pages: explorer/ui/inspectors/registry.py


@pytest.mark.parametrize("term", REQUIRED)
def test_required_terms_have_short_tooltips(term):
    text = tooltip(term)
    assert isinstance(text, str) and len(text) >= 30
    sentences = re.findall(r"[.!?](?:\s|$)", text)
    assert 1 <= len(sentences) <= 3, f"{term}: {len(sentences)} sentences"


def test_aliases_resolve_to_the_standard_name():
    assert tooltip("s_null") == tooltip("null_score") == GLOSSARY["null_score"]
    assert tooltip("τ") == tooltip("TAU") == GLOSSARY["tau"]
    assert tooltip("warmup_ratio") == GLOSSARY["warmup"]
    assert tooltip("max_grad_norm") == GLOSSARY["gradient_clipping"]
    assert tooltip("Answer-Rate") == GLOSSARY["answer_rate"]
    assert tooltip("hasans_f1") == GLOSSARY["HasAns_f1"]
    for alias, name in glossary.ALIASES.items():
        assert name in GLOSSARY, f"alias {alias!r} points to missing {name!r}"


def test_formulas_are_given():
    assert "best_non_null_score − null_score" in tooltip("score_diff")
    assert "start_logits[CLS] + end_logits[CLS]" in tooltip("s_null")
    assert "null_score + τ" in tooltip("τ")
    assert "−best_f1_thresh" in tooltip("best_f1_thresh")
    assert "½(A_mean + I)" in tooltip("rollout")


def test_unknown_term_raises_with_the_list():
    with pytest.raises(KeyError) as err:
        tooltip("flux capacitor")
    message = str(err.value)
    assert "flux capacitor" in message and "doc_stride" in message and "score_diff" in message
    with pytest.raises(KeyError):
        tooltip(None)


def test_panel_help():
    assert list(PANEL_HELP) == PANELS
    for panel in PANELS:
        assert len(panel_help(panel)) > 200
    with pytest.raises(KeyError, match="Launcher"):
        panel_help("Settings")


def test_no_qt_import():
    source = open(glossary.__file__, encoding="utf-8").read()
    assert "PySide6" not in source and "pyqtgraph" not in source


def test_the_launcher_help_states_the_forms_defaults_and_every_task():
    """F1 on the Launcher reads the recipe the form starts with (the form's own defaults) and the task list from
    the task table, so neither can go stale beside the form."""
    from explorer.core.specs.tasks import task_labels
    from explorer.ui.launch.form_model import LaunchForm

    form = LaunchForm("runs").config()
    text = panel_help("Launcher")
    assert f"batch {form.batch_size}, {form.epochs:g} epochs" in text
    assert f"learning rate {form.resolved_learning_rate():g}" in text
    for label in task_labels().values():
        assert label in text, label
    assert "offline SQuAD 2.0 preset" in text and "abstain" in text   # the run whose τ figures mean something
