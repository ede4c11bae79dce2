"""The metric table (explorer/core/specs/metrics.py) and what reads it: labels and scales, which direction is
better (checkpoints/best, the Runs list, groups and core/runs.summarize agree), metric_for_best refused
with the task's list, and an open vocabulary of scalars in Curves (case best-metric-lower-is-better)."""

from __future__ import annotations

import ast
import math

import pytest
from helpers import REPO_ROOT

from explorer.core.specs import metrics as ms
from explorer.core.specs import tasks as tf
from explorer.core.specs.best import best_evaluation, best_of_events, is_improvement
from explorer.core.errors import ConfigError
from explorer.core.specs.train_config import TrainConfig


# ---- the table -------------------------------------------------------------------------------------
def test_every_metric_a_task_declares_has_a_row_and_the_agreed_names_too():
    for name in tf.task_names():
        facts = tf.get_task_facts(name)
        assert facts.metrics, name
        assert facts.best_metric in facts.metrics, name
        for metric in facts.metrics + tf.emitted_metrics(name, num_labels=1):
            assert ms.known_metric(metric), f"{name} reports {metric!r} without a row in core/specs/metrics"
    agreed = ["exact_match", "f1", "best_f1", "accuracy", "macro_f1", "weighted_f1", "matthews_corrcoef", "f_avg",
              "pearson", "spearman", "mse", "micro_f1", "subset_accuracy", "precision", "recall", "token_accuracy",
              "loss", "HasAns_f1", "NoAns_f1", "HasAns_exact", "NoAns_exact", "best_exact", "best_exact_thresh",
              "best_f1_thresh", "best_tau", "answer_rate"]
    assert [n for n in agreed if not ms.known_metric(n)] == []


def test_directions_and_the_rule_for_unknown_names():
    lower = [n for n in ms.METRICS if ms.METRICS[n].higher_is_better is False]
    assert sorted(lower) == ["loss", "mae", "mse", "rmse"]
    assert ms.higher_is_better("f1") and ms.higher_is_better("matthews_corrcoef")
    for name in ("eval_loss", "train_loss", "val_mse", "dev_mae", "xrmse"):
        assert not ms.higher_is_better(name), name
    assert ms.higher_is_better("bleu") and ms.metric_spec("bleu").label == "bleu"
    # thresholds and counts have no direction and can never pick the best checkpoint
    assert not ms.metric_spec("best_f1_thresh").can_pick_best and ms.metric_spec("total").is_count


def test_signed_and_percent_derive_from_the_table():
    from explorer.core.specs.metric_display import display_scale, is_percent, metric_label
    from explorer.ui.curves.plot import non_negative

    assert set(ms.signed_metrics()) == {"best_f1_thresh", "best_exact_thresh", "best_tau", "tau",
                                        "matthews_corrcoef", "pearson", "spearman", "r2"}
    for name, spec in ms.METRICS.items():
        assert non_negative("dev/" + name) is (not spec.signed)
        assert is_percent(name) is (spec.unit == "%")
        assert display_scale(name, "single") == spec.scale and display_scale(name, "squad_v2") == 1.0
    assert display_scale("macro_f1", "single") == 100.0 and metric_label("macro_f1") == "macro F1 (%)"
    assert display_scale("pearson", "single") == 1.0 and not is_percent("pearson")
    assert not non_negative("dev/spearman") and non_negative("dev/unheard_of")


def _assigned_tuples(path):
    """Module-level NAME = (string, ...) assignments of a source file: the vocabulary tables."""
    out = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Tuple, ast.List, ast.Set)):
            items = [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if items:
                out[node.targets[0].id if isinstance(node.targets[0], ast.Name) else "?"] = items
    return out


def test_no_other_module_restates_the_metric_vocabulary():
    """The tables the issue listed (LABELS, DEV_ORDER, DEFAULT_DEV, SIGNED, SKIP_METRICS, FALLBACK_METRICS,
    the glossary's metric entries) are gone or derived: no tuple of metric names outside the table (the
    tasks' own ``metrics`` tuples in task_facts are the one declaration of what each task reports)."""
    names = set(ms.METRICS) - {"total", "loss", "tau"}
    for rel in ("explorer/core/specs/metric_display.py", "explorer/ui/curves/panel.py", "explorer/ui/curves/plot.py",
                "explorer/ui/runs/state.py", "explorer/glossary.py"):
        for var, items in _assigned_tuples(REPO_ROOT / rel).items():
            assert not names & set(items), f"{rel}: {var} restates metric names {sorted(names & set(items))}"
    glossary = (REPO_ROOT / "explorer/glossary.py").read_text(encoding="utf-8")
    assert '"HasAns_f1": (' not in glossary and '"accuracy":' not in glossary
    from explorer.glossary import tooltip

    assert tooltip("HasAns_f1") == ms.METRICS["HasAns_f1"].help
    assert tf.FALLBACK_METRICS == ms.ranking_fallbacks() and "matthews_correlation" not in tf.FALLBACK_METRICS


# ---- metric_for_best --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, task, hint", [
    ("acc", "single", "did you mean accuracy?"),
    ("matthews_correlation", "pair", "did you mean matthews_corrcoef?"),
    ("eval_loss", "single", "accuracy, f1, macro_f1, weighted_f1, f_avg, matthews_corrcoef, loss"),
    ("mse", "single", "the single task reports (accuracy, f1, macro_f1, weighted_f1, f_avg, matthews_corrcoef, loss)"),
    ("accuracy", "squad_v2", "exact_match, f1, HasAns_exact"),
    ("F1", "squad_v1", "did you mean f1?"),
])
def test_metric_for_best_the_task_never_reports_is_refused_with_its_list(name, task, hint):
    with pytest.raises(ConfigError) as err:
        TrainConfig(model="bundled:minilm", task=task, train="x", metric_for_best=name).validate()
    message = str(err.value)
    assert f"metric_for_best {name!r}" in message and hint in message


def test_metric_for_best_accepted_names():
    for task, name in (("single", "loss"), ("single", "matthews_corrcoef"), ("squad_v2", "HasAns_f1"),
                       ("swag", "loss"), ("pair", "")):
        TrainConfig(model="m", task=task, train="x", metric_for_best=name).validate()
    TrainConfig(model="m", task="single", train="x", num_labels=1, metric_for_best="mse").validate()   # regression head
    with pytest.raises(ConfigError, match="not a score"):
        TrainConfig(model="m", task="squad_v2", train="x", metric_for_best="best_f1_thresh").validate()


def test_worker_refuses_before_any_work(tmp_path, capsys):
    from explorer.worker.train import EXIT_USAGE, main as train_main

    rc = train_main(["--model", str(tmp_path / "no-such-model"), "--task", "single", "--train", str(tmp_path / "x.tsv"),
                     "--output-dir", str(tmp_path), "--run-id", "r", "--metric-for-best", "acc"])
    out = capsys.readouterr()
    assert rc == EXIT_USAGE and "did you mean accuracy?" in out.out + out.err
    assert not (tmp_path / "r" / "checkpoints").exists()


# ---- the best rule, everywhere ---------------------------------------------------------------------------
LOSS_EVALS = [(0, 0.6932), (1, 0.6942), (2, 0.6963), (3, 0.6963), (4, 0.6942)]   # the case's shape


def test_best_follows_the_direction_skips_step_zero_and_keeps_the_earlier_tie():
    assert best_evaluation(LOSS_EVALS, metric="loss") == (1, 0.6942)
    assert best_evaluation(LOSS_EVALS, metric="accuracy") == (2, 0.6963)
    assert best_evaluation(LOSS_EVALS, metric="loss", include_step_zero=True) == (0, 0.6932)
    assert is_improvement(0.40, 0.52, "loss") and not is_improvement(0.60, 0.52, "loss")
    assert is_improvement(0.40, 0.52, "eval_mse") and not is_improvement(math.nan, 0.52, "loss")


def _run_events(metric, values, task="single"):
    ev = [{"event": "started", "time": 1.0, "steps_total": len(values) - 1, "config": {"task": task}}]
    ev += [{"event": "eval", "step": i, "time": 2.0 + i, "metrics": {"accuracy": 0.5, metric: v, "total": 8}}
           for i, v in enumerate(values)]
    return ev


def test_runs_list_groups_and_summarize_use_the_same_rule():
    from explorer.core.studies.group_stats import group_table, member_data
    from explorer.core.runs.reading import RunRecord, summarize
    from explorer.ui.runs.state import RunState

    cfg = {"task": "single", "metric_for_best": "loss"}
    events = _run_events("loss", [v for _, v in LOSS_EVALS])
    events[0]["config"] = cfg
    s = summarize("r", REPO_ROOT, cfg, events, alive=False)
    assert (s.metric_name, s.metric_value) == ("loss", 0.6942)          # was max over every eval: 0.6963
    assert best_of_events(events, "loss") == (1, 0.6942)
    assert RunState.from_events("r", events, config=cfg).best_metric() == ("loss", 0.6942, 1)
    # step 0 never counts, for a higher-is-better metric either (summarize took max including step 0)
    up = _run_events("accuracy", [0.9, 0.6, 0.7])
    assert summarize("u", REPO_ROOT, {"task": "single"}, up, alive=False).metric_value == 0.7

    record = RunRecord(run_id="r", path=str(REPO_ROOT), config=cfg, events=events, summary=s)
    other_events = _run_events("loss", [0.1, 0.5, 0.3])
    other = RunRecord(run_id="o", path=str(REPO_ROOT), config=cfg, events=other_events,
                      summary=summarize("o", REPO_ROOT, cfg, other_events, alive=False))
    members = [member_data(record), member_data(other)]
    assert [m.best for m in members] == [pytest.approx(0.6942), pytest.approx(0.3)]
    table = group_table(members, [])
    assert table.best.best == pytest.approx(0.3) and table.best.worst == pytest.approx(0.6942)
    assert "total" not in members[0].final_metrics


def test_the_tagging_entity_count_is_a_size_not_a_curve():
    """The NER run's ``entities`` (the dev set's gold entity count) has a count row: never a dev curve."""
    spec = ms.METRICS["entities"]
    assert spec.unit == "count" and not spec.drawn_by_default and spec.higher_is_better is None


def test_correlations_have_three_decimals_and_never_round_up_to_a_perfect_one():
    from explorer.core.specs.metric_display import display_number, format_metric

    assert format_metric("matthews_corrcoef", 0.412, "classification") == "matthews_corrcoef 0.412"
    assert format_metric("matthews_corrcoef", 0.997, "classification") == "matthews_corrcoef 0.997"
    assert format_metric("matthews_corrcoef", 0.9997, "classification") == "matthews_corrcoef 0.9997"
    assert format_metric("pearson", 0.99996, "regression") == "pearson 0.9999"
    assert format_metric("spearman", -0.9998, "regression") == "spearman -0.9998"
    assert format_metric("matthews_corrcoef", 1.0, "classification") == "matthews_corrcoef 1.000"
    assert display_number("matthews_corrcoef", 0.9997) == "0.9997"
    assert format_metric("accuracy", 0.5, "classification") == "accuracy (%) 50.00"
