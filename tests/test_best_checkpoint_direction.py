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
