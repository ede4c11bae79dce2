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
