"""Evaluations fitted to the run, in the training loop: the planned cadence and dev sample (fake measured
rates, so nothing depends on this machine's speed), checkpoints/best on the sample's rows, a stop early
during an evaluation, and a cancel between evaluation batches."""

import contextlib
import io
from dataclasses import dataclass

import pytest
import torch
from helpers import save_tiny_model, write_tiny_classification

import explorer.core.training.eval_schedule as eval_schedule
import explorer.core.training.loop as loop
from explorer.core.errors import Cancelled
from explorer.core.protocol.events import iter_events
from explorer.core.training.evaluation import gather_outputs
from explorer.worker.train import EXIT_CANCELLED, EXIT_OK, main as train_main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("fit-files")
    return {"cls": str(save_tiny_model(d / "cls", "classification")),
            "train": str(write_tiny_classification(d / "train.tsv", repeat=8)),     # 64 rows
            "dev": str(write_tiny_classification(d / "dev.tsv", repeat=50))}       # 400 rows, two classes


@pytest.fixture
def fake_rates(monkeypatch):
    """Training at 16 windows/s and evaluating at 500 rows/s with no cost besides the rows' forward, whatever this
    machine does: over 8 steps of 16
    windows (8 s) a fifth of the wall time leaves 2 s of evaluations, 0.8 s of them the final one on all 400
    rows; 200 rows (the smallest sample) cost 0.4 s, so 2 evaluations fit between: every 3 steps."""
    real = eval_schedule.plan_evaluations

    def planned(**kw):
        return real(**{**kw, "train_rate": 16.0, "eval_rate": 500.0, "overhead": 0.0})

    monkeypatch.setattr(eval_schedule, "plan_evaluations", planned)


@pytest.fixture
def faster_evaluation(monkeypatch):
    """As fake_rates, evaluating at 1,000 rows/s: the whole dev set (0.4 s) fits at the wanted every 2."""
    real = eval_schedule.plan_evaluations
    monkeypatch.setattr(eval_schedule, "plan_evaluations",
                        lambda **kw: real(**{**kw, "train_rate": 16.0, "eval_rate": 1000.0, "overhead": 0.0}))


def run(files, tmp_path, *extra):
    argv = ["--model", files["cls"], "--task", "single", "--train", files["train"], "--dev", files["dev"],
            "--max-steps", 8, "--batch-size", 16, "--eval-every", 2, "--eval-share", 0.2, "--output-dir", tmp_path,
            "--run-id", "r", *extra]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in argv])
    return rc, list(iter_events(buf.getvalue().splitlines()))


def of(events, kind):
    return [e for e in events if e["event"] == kind]


def test_planned_cadence_and_stratified_sample_with_the_whole_dev_set_at_the_end(files, tmp_path, fake_rates):
    rc, ev = run(files, tmp_path)
    assert rc == EXIT_OK, ev[-1]
    evals = of(ev, "eval")
    assert [e["step"] for e in evals] == [0, 3, 6, 8]
    assert [e["dev_rows"] for e in evals] == [200, 200, 200, 400]
    assert all(e["dev_total"] == 400 for e in evals)
    plan = [e["message"] for e in of(ev, "log") if e["message"].startswith("Evaluate ")]
    assert len(plan) == 1 and "every 3 steps (not every 2" in plan[0] and "200 of the 400 dev rows" in plan[0]
    assert "Whole run about" in plan[0]
    best = [e for e in of(ev, "checkpoint") if e["kind"] == "best"]
    assert best and all(e["picked_on"] == "the 200-row stratified sample of the 400 dev rows" for e in best)
    assert of(ev, "finished")[0]["metrics"]["total"] == 400


def test_full_dev_set_at_every_evaluation_when_asked(files, tmp_path, fake_rates):
    rc, ev = run(files, tmp_path, "--full-dev-evals")
    assert rc == EXIT_OK, ev[-1]
    assert {e["dev_rows"] for e in of(ev, "eval")} == {400}


@dataclass
class StopDuringEvaluationAt(loop.Control):
    """Stop early asked for just after the loop checked at ``at_step`` (so during the evaluation that follows)."""

    at_step: int = 3
    checks: int = 0

    def stop_requested(self) -> bool:
        if self.step >= self.at_step:
            self.checks += 1
            return self.checks > 1
        return False


def test_stop_during_a_sampled_evaluation_ends_with_the_final_one_alone(files, tmp_path, fake_rates, monkeypatch):
    monkeypatch.setattr(loop, "Control", StopDuringEvaluationAt)
    rc, ev = run(files, tmp_path)
    assert rc == EXIT_OK, ev[-1]
    evals = of(ev, "eval")
    assert [(e["step"], e["dev_rows"]) for e in evals] == [(0, 200), (3, 400)]   # the sampled one at 3 dropped
    assert of(ev, "finished")[0]["stopped_early"] is True


@dataclass
class StopDuringEvaluationAt4(StopDuringEvaluationAt):
    at_step: int = 4


def test_stop_during_a_whole_dev_evaluation_makes_it_the_final_one(files, tmp_path, faster_evaluation,
                                                                     monkeypatch):
    monkeypatch.setattr(loop, "Control", StopDuringEvaluationAt4)
    rc, ev = run(files, tmp_path, "--full-dev-evals")
    assert rc == EXIT_OK, ev[-1]
    evals = of(ev, "eval")
    plan = [e["message"] for e in of(ev, "log") if e["message"].startswith("Evaluate ")]
    assert "every 2 steps" in plan[0]
    assert [(e["step"], e["dev_rows"]) for e in evals] == [(0, 400), (2, 400), (4, 400)]   # none after the stop
    assert of(ev, "finished")[0]["metrics"] == evals[-1]["metrics"]


class CancelDuringEvaluationAt3(loop.Control):
    """Cancel arrives while the evaluation after step 3 forwards its first batch (the loop reads ``cancel`` before
    every training micro-batch, the evaluation before every batch it forwards)."""

    def __init__(self, *args, **kwargs):
        self.reads, self._cancel = 0, False
        super().__init__(*args, **kwargs)

    @property
    def cancel(self) -> bool:
        if self.step >= 3:
            self.reads += 1
        return self._cancel or self.reads > 1

    @cancel.setter
    def cancel(self, value: bool) -> None:
        self._cancel = value


def test_cancel_during_an_evaluation_of_a_run_ends_it_without_finishing_the_evaluation(files, tmp_path, fake_rates,
                                                                                      monkeypatch):
    monkeypatch.setattr(loop, "Control", CancelDuringEvaluationAt3)
    rc, ev = run(files, tmp_path)
    assert rc == EXIT_CANCELLED, ev[-1]
    assert [e["step"] for e in of(ev, "evaluating") if not e.get("final")][-1] == 3    # it had begun
    assert [e["step"] for e in of(ev, "eval")] == [0]            # and never finished, nor did a final one run
    assert of(ev, "cancelled") and not of(ev, "finished")


class _Task:
    token_level_outputs = ()

    def model_inputs(self, batch):
        return {"x": batch["x"]}

    def eval_outputs(self, outputs, batch):
        return {"logits": outputs}


class _Accelerator:
    num_processes = 1
    mixed_precision = "no"


def test_cancel_during_an_evaluation_stops_at_the_next_batch():
    control = loop.Control()
    forwards = []

    def model(x):
        forwards.append(len(x))
        control.cancel = True          # the user cancels while this batch runs
        return torch.zeros(len(x), 2)

    model.eval, model.training = (lambda: None), False
    features = type("F", (), {"lengths": [3] * 8, "__len__": lambda self: 8})()
    loader = [{"x": torch.zeros(4, 3), "feature_index": torch.arange(i, i + 4)} for i in (0, 4)]
    with pytest.raises(Cancelled):
        gather_outputs(_Accelerator(), _Module(model), _Task(), features, loader, control)
    assert forwards == [4]


class _Module(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)
