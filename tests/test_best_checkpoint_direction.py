"""Case best-metric-lower-is-better: ``--metric-for-best loss`` keeps the evaluation with the LOWEST dev loss
in checkpoints/best (transformers PR #31142: greater_is_better is False for *loss metrics), the step-0
evaluation never counts, and the Runs list names the same step."""

import contextlib
import io
import json

from helpers import save_tiny_model, write_tiny_classification

from explorer.core.specs.best import best_evaluation
from explorer.core.protocol.events import iter_events
from explorer.core.runs.reading import summarize
from explorer.ui.runs.state import RunState
from explorer.worker.train import EXIT_OK, main as train_main


def test_metric_for_best_loss_keeps_the_lowest_dev_loss(tmp_path):
    model = save_tiny_model(tmp_path / "cls", "classification")
    data = write_tiny_classification(tmp_path / "sst.tsv", repeat=2)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in (
            "--model", model, "--task", "single", "--train", data, "--dev", data, "--output-dir", tmp_path / "runs",
            "--run-id", "r", "--max-steps", 4, "--eval-every", 1, "--batch-size", 8, "--learning-rate", 3e-3,
            "--warmup-ratio", 0, "--seed", 1, "--max-seq-length", 32, "--metric-for-best", "loss",
            "--mixed-precision", "no")])
    events = list(iter_events(buf.getvalue().splitlines()))
    assert rc == EXIT_OK, events[-1]
    losses = [(e["step"], e["metrics"]["loss"]) for e in events if e["event"] == "eval"]
    assert [s for s, _ in losses] == [0, 1, 2, 3, 4]
    trained = [v for s, v in losses if s > 0]
    assert len(set(trained)) > 1, "the dev loss must move for this test to tell lowest from highest"
    lowest = min(trained)
    want = next(s for s, v in losses if s > 0 and v == lowest)          # the earlier of equal losses
    best_steps = [e["step"] for e in events if e["event"] == "checkpoint" and e.get("kind") == "best"]
    assert best_steps[-1] == want
    saved = json.loads((tmp_path / "runs" / "r" / "checkpoints" / "best" / "checkpoint.json").read_text())
    assert saved["step"] == want and saved["metrics"]["loss"] == lowest
    assert best_evaluation(losses, metric="loss") == (want, lowest)
    cfg = json.loads((tmp_path / "runs" / "r" / "config.json").read_text())
    assert summarize("r", tmp_path / "runs" / "r", cfg, events, alive=False).metric_value == lowest
    assert RunState.from_events("r", events, config=cfg).best_metric() == ("loss", lowest, want)


def test_best_dev_names_the_evaluation_the_loop_saved_when_it_chose_on_the_sample(tmp_path):
    """The loop compares evaluations on the dev sample; the final evaluation reports the whole dev set. Its
    all-rows figure (74.67) is below step 32's sample figure (75.00), yet step 63 is what checkpoints/best holds
    (75.50 on the sample): the Runs list, Curves and the run's summary name step 63 and 74.67, the figure
    Classify: dev set gives for that checkpoint, not 75.00 @32 of weights that were replaced."""
    from explorer.core.specs.best import best_of_events

    events = [{"event": "started", "run_id": "r", "time": 1.0, "steps_total": 63},
              {"event": "eval", "run_id": "r", "time": 2.0, "step": 0, "metrics": {"accuracy": 0.5}},
              {"event": "eval", "run_id": "r", "time": 3.0, "step": 32, "metrics": {"accuracy": 0.75}},
              {"event": "checkpoint", "run_id": "r", "time": 3.1, "step": 32, "kind": "best", "metric": "accuracy",
               "path": "runs/r/checkpoints/best"},
              {"event": "eval", "run_id": "r", "time": 4.0, "step": 63, "metrics": {"accuracy": 0.7466666666666667}},
              {"event": "checkpoint", "run_id": "r", "time": 4.1, "step": 63, "kind": "best", "metric": "accuracy",
               "path": "runs/r/checkpoints/best"},
              {"event": "finished", "run_id": "r", "time": 5.0, "metrics": {}, "seconds": 4.0}]
    assert best_of_events(events, "accuracy") == (63, 0.7466666666666667)
    assert summarize("r", tmp_path, {"task": "single"}, events, False).metric_value == 0.7466666666666667
    name, value, step = RunState.from_events("r", events, config={"task": "single"}).best_metric()
    assert (name, round(value, 2), step) == ("accuracy", 74.67, 63)
    from types import SimpleNamespace

    from explorer.core.studies.group_stats import member_data

    record = SimpleNamespace(run_id="r", status="finished", events=events, config={"task": "single"},
                             summary=summarize("r", tmp_path, {"task": "single"}, events, False))
    assert round(member_data(record).best, 2) == 74.67     # a group's "best" column: the same evaluation
    # a log without the loop's picks (another tool's, an older run) keeps the rule over the evaluations
    plain = [e for e in events if e["event"] != "checkpoint"]
    assert best_of_events(plain, "accuracy") == (32, 0.75)


def _squad_v2_events(task="squad_v2"):
    """A SQuAD 2.0 run whose checkpoints/best best_f1 picked at step 70: F1 55.68 at τ = 0 there, best_f1 58.54 (the
    threshold chosen on the same dev questions); step 35 has the higher f1 but the lower best_f1."""
    def ev(step, f1, best_f1):
        return {"event": "eval", "run_id": "v2", "time": 2.0 + step, "step": step,
                "metrics": {"exact_match": f1 - 3, "f1": f1, "best_f1": best_f1, "best_f1_thresh": -1.2,
                            "HasAns_f1": 49.95, "NoAns_f1": 66.67, "total": 35}}
    return [{"event": "started", "run_id": "v2", "time": 1.0, "steps_total": 70, "config": {"task": task}},
            ev(0, 34.29, 34.29), ev(35, 56.10, 51.00),
            {"event": "checkpoint", "run_id": "v2", "time": 40.0, "step": 35, "kind": "best", "metric": "best_f1",
             "path": "runs/v2/checkpoints/best"},
            ev(70, 55.68, 58.54),
            {"event": "checkpoint", "run_id": "v2", "time": 80.0, "step": 70, "kind": "best", "metric": "best_f1",
             "path": "runs/v2/checkpoints/best"},
            {"event": "finished", "run_id": "v2", "time": 90.0, "metrics": {}, "seconds": 89.0}]


def test_a_squad_v2_run_is_listed_by_its_f1_at_tau_zero_with_the_best_f1_that_picked_it_in_the_tooltip():
    """best_f1 still picks the checkpoint (τ is tuned after training: the checkpoint that ranks answers against
    "no answer" best), but the Runs list shows and sorts the run by that checkpoint's f1 at τ = 0, a figure not
    tuned on the dev questions it scores; the tooltip gives best_f1 as tuned on them and points to τ on dev set."""
    from explorer.ui.runs.run_cells import COLUMNS, RunCells

    state = RunState.from_events("v2", _squad_v2_events())
    cells = RunCells(type("Source", (), {"names": {}, "sizes": {}})())
    col = COLUMNS.index("Best dev")
    assert state.best_metric() == ("best_f1", 58.54, 70)          # what picked checkpoints/best
    assert state.listed_best() == ("f1", 55.68, 70)               # what the run is listed by
    assert cells.text(state, col) == "55.68% F1"
    assert cells.sort_key(state, col) == 55.68
    tip = cells.tooltip(state, col)
    assert tip.startswith("F1 (%) 55.68 @70 (τ = 0)")
    assert state.best_text().startswith("F1 (%) 55.68 @70 (τ = 0)")   # Curves' legend: not read as the best_f1 plot
    assert "picked by best F1 (%) 58.54 at this step" in tip and "same dev questions" in tip
    assert "τ on dev set" in tip and "τ = 0" in tip


def test_the_runs_command_lists_a_squad_v2_run_by_its_f1_and_names_the_best_f1_that_picked_it(tmp_path):
    from explorer.commands.runs import row_line, run_row
    from types import SimpleNamespace

    summary = summarize("v2", tmp_path, {"task": "squad_v2"}, _squad_v2_events(), False)
    assert (summary.metric_name, summary.metric_value) == ("best_f1", 58.54)   # still what picks the checkpoint
    assert summary.listed() == ("f1", 55.68)
    row = run_row(SimpleNamespace(run_id="v2", kind="BERT Explorer", summary=summary, best=None, path=str(tmp_path)))
    assert row["best"] == {"name": "f1", "value": 55.68,
                           "picked_by": {"name": "best_f1", "value": 58.54, "tuned_on_dev": True}}
    best = row_line(row).split("\t")[5]
    assert best.startswith("f1=55.68% (checkpoint picked by best_f1=58.54%") and "same dev questions" in best


def test_squad_v1_and_classifier_runs_are_listed_by_the_metric_that_picked_them(tmp_path):
    from explorer.ui.runs.run_cells import COLUMNS, RunCells

    v1 = [e for e in _squad_v2_events("squad_v1") if e["event"] != "checkpoint"]   # no best_f1 in a v1.1 run
    for e in v1:
        if e["event"] == "eval":
            e["metrics"] = {"exact_match": e["metrics"]["exact_match"], "f1": e["metrics"]["f1"]}
    state = RunState.from_events("v1", v1)
    assert state.listed_best() == state.best_metric() == ("f1", 56.10, 35) and state.picked_by() is None
    cells = RunCells(type("Source", (), {"names": {}, "sizes": {}})())
    assert "picked by" not in cells.tooltip(state, COLUMNS.index("Best dev"))
    assert summarize("v1", tmp_path, {"task": "squad_v1"}, v1, False).listed() == ("f1", 56.10)
    cls = [{"event": "started", "run_id": "c", "time": 1.0, "config": {"task": "single"}},
           {"event": "eval", "run_id": "c", "time": 2.0, "step": 4, "metrics": {"accuracy": 0.8, "macro_f1": 0.9}}]
    assert RunState.from_events("c", cls).listed_best() == ("accuracy", 80.0, 4)
    assert summarize("c", tmp_path, {"task": "single"}, cls, False).listed() == ("accuracy", 0.8)


def test_a_group_of_squad_v2_runs_is_listed_by_their_f1_at_the_checkpoints_best_f1_picked(tmp_path):
    """The group's row in the Runs list and on the Groups page, and the Groups page's member figures, average the
    figure each member is listed by (f1 at τ = 0 of best_f1's pick), not the dev-tuned best_f1."""
    from types import SimpleNamespace

    from explorer.core.studies import groups
    from explorer.core.studies.group_stats import member_data
    from explorer.core.specs.train_config import TrainConfig
    from explorer.ui.groups.tree_cells import group_best_cell, member_cells
    from explorer.ui.runs.group_rows import GroupRow

    group, _configs = groups.plan_restarts(TrainConfig(task="squad_v2"), "g", [1, 2])
    events = _squad_v2_events()
    summary = summarize("v2", tmp_path, {"task": "squad_v2"}, events, False)
    record = SimpleNamespace(run_id="v2", status="finished", events=events, config={"task": "squad_v2"},
                             summary=summary)
    data = member_data(record)
    assert (data.metric_name, data.best) == ("f1", 55.68)
    members = [groups.MemberState(member=m, path=None, status="finished", summary=summary) for m in group.members]
    assert group_best_cell("restarts", members)[0] == "55.7 ± 0.0%"
    assert member_cells(members[0]).best == "55.68% F1"
    state = RunState.from_events("v2", events)
    assert GroupRow(group, [state, state]).best_cell_text() == "55.7 ± 0.0% F1"
