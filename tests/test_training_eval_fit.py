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
from explorer.core.training.setup import Control
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
    evals = [e for e in of(ev, "eval") if not e.get("rescored")]   # a best of step 3 or 6 is scored again at the end
    assert [e["step"] for e in evals] == [0, 3, 6, 8]
    assert [e["dev_rows"] for e in evals] == [200, 200, 200, 400]
    assert all(e["dev_total"] == 400 for e in of(ev, "eval"))
    assert [(e["step"] in (3, 6), e["dev_rows"]) for e in rescorings(ev)] in ([], [(True, 400)])
    plan = [e["message"] for e in of(ev, "log") if e["message"].startswith("Evaluate ")]
    assert len(plan) == 1 and "every 3 steps (not every 2" in plan[0] and "200 of the 400 dev rows" in plan[0]
    assert "Whole run about" in plan[0]
    best = [e for e in of(ev, "checkpoint") if e["kind"] == "best"]
    assert best and all(e["picked_on"] == "the 200-row stratified sample of the 400 dev rows" for e in best
                        if e["picked_on"] != "all 400 dev rows" or e["step"] != 8)
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


def scored_by_step(monkeypatch, sample: dict, whole: dict) -> dict:
    """Every evaluation's accuracy set by the step whose weights it scores and its rows (``sample``: on the 200-row
    dev sample, ``whole``: on all 400 rows; 0.5 elsewhere), so which checkpoint is best is the test's choice, not
    training's. Returns {step: a fingerprint of the weights its evaluations scored}: an evaluation of a step's
    checkpoint after the run must score that step's own weights."""
    import explorer.core.training.best_rescore as best_rescore

    real = loop.evaluate
    weights: dict = {}

    def evaluate(accelerator, model, *args, on_rows=None, **kwargs):
        res = real(accelerator, model, *args, on_rows=on_rows, **kwargs)
        step, rows, total = (on_rows.fields[k] for k in ("step", "rows_total", "dev_total"))
        fingerprint = float(sum(p.detach().double().sum() for p in model.parameters()))
        assert weights.setdefault(step, fingerprint) == fingerprint, step
        res["metrics"] = {**res["metrics"], "accuracy": (whole if rows == total else sample).get(step, 0.5)}
        if "sample_metrics" in res:
            res["sample_metrics"] = {**res["sample_metrics"], "accuracy": sample.get(step, 0.5)}
        return res

    monkeypatch.setattr(loop, "evaluate", evaluate)
    monkeypatch.setattr(best_rescore, "evaluate", evaluate)
    return weights


def best_readings(run_dir):
    """(step, value) of checkpoints/best as checkpoint.json, the core reader, and the Runs list give it, and the
    Runs list's Best dev cell."""
    import json

    from explorer.core.runs.reading import load_run
    from explorer.core.specs.best import best_of_events
    from explorer.ui.runs.best_rows import sample_mark
    from explorer.ui.runs.state import RunState

    info = json.loads((run_dir / "checkpoints" / "best" / "checkpoint.json").read_text())
    record = load_run(run_dir)
    state = RunState.from_events("r", record.events, config=record.config)
    name, value, step = state.best_metric()
    return {"checkpoint": (info["step"], info["metrics"]["accuracy"]),
            "core": best_of_events(record.events, "accuracy"), "summary": record.summary.metric_value,
            "runs list": (step, value), "mark": sample_mark(state.evals + state.rescorings, step)}


def rescorings(events):
    return [e for e in of(events, "eval") if e.get("rescored")]


@pytest.mark.parametrize("rescored, kept", [(0.6, 8), (0.8, 3)])
def test_best_picked_on_the_sample_is_scored_on_all_dev_rows_and_the_better_one_kept(files, tmp_path, fake_rates,
                                                                                      monkeypatch, rescored, kept):
    """Best on the sample is step 3 (0.9 against 0.8 and 0.7); on all 400 rows the final step 8 scores 0.75 and
    step 3 ``rescored``: checkpoints/best ends as the better of the two on all rows, and every reader names its
    whole-dev figure without "(sample)"."""
    weights = scored_by_step(monkeypatch, {3: 0.9, 6: 0.8, 8: 0.7}, {3: rescored, 8: 0.75})
    rc, ev = run(files, tmp_path, "--metric-for-best", "accuracy")
    assert rc == EXIT_OK, ev[-1]
    assert [(e["step"], e["dev_rows"]) for e in of(ev, "eval")] == [(0, 200), (3, 200), (6, 200), (8, 400), (3, 400)]
    again = rescorings(ev)
    assert len(again) == 1 and again[0]["dev_total"] == 400 and again[0]["metrics"]["accuracy"] == rescored
    assert set(weights) == {0, 3, 6, 8}        # the rescoring scored step 3's weights (scored_by_step checks them)
    value = 0.75 if kept == 8 else rescored
    run_dir = tmp_path / "r"
    assert best_readings(run_dir) == {"checkpoint": (kept, value), "core": (kept, value), "summary": value,
                                      "runs list": (kept, pytest.approx(100 * value)), "mark": ""}
    line = [e["message"] for e in of(ev, "log") if e.get("topic") == "best_rescored"]
    outcome = "the final step is kept as best" if kept == 8 else "step 3 stays best"
    assert line == [f"checkpoints/best (step 3, best on the 200-row sample) scored {100 * rescored:.2f} accuracy on "
                    f"all 400 dev rows against the final step's 75.00: {outcome}"]
    best_events = [e for e in of(ev, "checkpoint") if e["kind"] == "best"]
    assert best_events[-1]["step"] == kept and best_events[-1]["scored_on"] == "all 400 dev rows"
    assert [e.get("scored_on") for e in best_events[:-1]] == ["the 200-row stratified sample of the 400 dev rows"]
    import json

    assert json.loads((run_dir / "checkpoints" / "last" / "checkpoint.json").read_text())["step"] == 8
    assert of(ev, "finished")[0]["metrics"]["accuracy"] == 0.75        # the final evaluation stays the run's final
    from explorer.core.runs.scalars import run_scalars

    scalars = run_scalars(ev)   # the 200-row sample's figures under their own tag; no point at 3 again
    assert [step for step, name, _ in scalars if name == "eval_sample/accuracy"] == [0, 3, 6]
    assert [step for step, name, _ in scalars if name == "eval/accuracy"] == [8]
    from explorer.core.runs.choice import checkpoint_choice
    from explorer.core.runs.reading import load_run

    assert [e["step"] for e in load_run(run_dir).evals()] == [0, 3, 6, 8]
    assert checkpoint_choice(run_dir / "checkpoints" / "best").evaluations == 3   # best is chosen among 3, not 4


def test_a_best_on_all_dev_rows_or_at_the_final_step_is_not_scored_again(files, tmp_path, fake_rates, monkeypatch):
    scored_by_step(monkeypatch, {3: 0.6, 6: 0.7, 8: 0.8}, {8: 0.75})
    rc, ev = run(files, tmp_path, "--metric-for-best", "accuracy")
    assert rc == EXIT_OK, ev[-1]
    assert not rescorings(ev) and best_readings(tmp_path / "r")["core"] == (8, 0.75)
    # the final step is best by its sample's rows, and its record is its figure on all rows, said as such
    assert best_readings(tmp_path / "r")["checkpoint"] == (8, 0.75)
    best = [e for e in of(ev, "checkpoint") if e["kind"] == "best"][-1]
    assert (best["step"], best["picked_on"], best["scored_on"]) == (
        8, "the 200-row stratified sample of the 400 dev rows", "all 400 dev rows")


@dataclass
class StopAt7(loop.Control):
    def stop_requested(self) -> bool:
        return self.step >= 7


def test_a_run_stopped_early_scores_its_sample_best_against_the_final_step(files, tmp_path, fake_rates, monkeypatch):
    monkeypatch.setattr(loop, "Control", StopAt7)
    scored_by_step(monkeypatch, {3: 0.9, 6: 0.8, 7: 0.7}, {3: 0.6, 7: 0.75})
    rc, ev = run(files, tmp_path, "--metric-for-best", "accuracy")
    assert rc == EXIT_OK and of(ev, "finished")[0]["stopped_early"] is True
    assert [(e["step"], e["dev_rows"]) for e in of(ev, "eval")][-2:] == [(7, 400), (3, 400)]
    assert best_readings(tmp_path / "r")["core"] == (7, 0.75)


class CancelAt5(loop.Control):
    """Cancel after step 5: the run's last checkpoint is the one saved after its evaluation at step 3."""

    def __init__(self, *args, **kwargs):
        self._cancel = False
        super().__init__(*args, **kwargs)

    @property
    def cancel(self) -> bool:
        return self._cancel or self.step >= 5

    @cancel.setter
    def cancel(self, value: bool) -> None:
        self._cancel = value


def test_a_resumed_run_scores_the_best_its_first_part_picked_on_the_sample(files, tmp_path, fake_rates, monkeypatch):
    weights = scored_by_step(monkeypatch, {3: 0.9, 6: 0.8, 8: 0.7}, {3: 0.8, 8: 0.75})
    monkeypatch.setattr(loop, "Control", CancelAt5)
    rc, ev = run(files, tmp_path, "--metric-for-best", "accuracy")
    assert rc == EXIT_CANCELLED, ev[-1]
    monkeypatch.setattr(loop, "Control", Control)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main(["--resume", str(tmp_path / "r")])
    ev = list(iter_events(buf.getvalue().splitlines()))
    assert rc == EXIT_OK, ev[-1]
    again = rescorings(ev)
    assert [(e["step"], e["dev_rows"]) for e in again] == [(3, 400)] and 3 in weights
    assert best_readings(tmp_path / "r")["core"] == (3, 0.8)


def test_a_best_that_cannot_be_read_again_stays_best_and_the_log_says_why(files, tmp_path, fake_rates, monkeypatch):
    import explorer.core.training.best_rescore as best_rescore
    from explorer.core.errors import CheckpointError

    def unreadable(model, folder):
        raise CheckpointError(f"{folder}: no model weights (*.safetensors) to score")

    scored_by_step(monkeypatch, {3: 0.9, 6: 0.8, 8: 0.7}, {3: 0.6, 8: 0.75})
    monkeypatch.setattr(best_rescore, "weights_from", unreadable)
    rc, ev = run(files, tmp_path, "--metric-for-best", "accuracy")
    assert rc == EXIT_OK, ev[-1]
    assert not rescorings(ev) and best_readings(tmp_path / "r")["checkpoint"] == (3, 0.9)
    said = [e for e in of(ev, "log") if e.get("topic") == "best_rescored"]
    assert [e["level"] for e in said] == ["warning"] and "could not be scored on all 400 dev rows" in said[0]["message"]


def write_tagged_sentences(path, n: int, seed: int):
    """``n`` CoNLL sentences (IOB2) of words the tiny tokenizer covers, their tags read from the words (ada / bert
    a person, "model" after one going on with it; london / paris a place), every 25th long enough to be several
    windows of 16 tokens."""
    import random

    rng = random.Random(seed)
    vocab = ["ada", "bert", "model", "london", "paris", "the", "of", "was", "born", "in", "river", "xyzq"]
    lines = []
    for i in range(n):
        words = [rng.choice(vocab) for _ in range(30 if i % 25 == 0 else rng.randint(2, 7))]
        tags, prev = [], "O"
        for w in words:
            tag = ("B-PER" if w in ("ada", "bert") else "I-PER" if w == "model" and prev != "O" and prev.endswith("PER")
                   else "B-LOC" if w in ("london", "paris") else "O")
            tags.append(tag)
            prev = tag
        lines += [f"{w} {t}" for w, t in zip(words, tags)] + [""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def tags_by_hand(folder, sentences: list[list[str]]) -> tuple[list[list[str]], int]:
    """The tags checkpoint ``folder`` gives each sentence, every window forwarded alone and each word tagged from its
    first piece in its best window (alignment.merge_word_predictions), and how many sentences were several windows."""
    from transformers import AutoModelForTokenClassification, AutoTokenizer

    from explorer.core.tagging.alignment import merge_word_predictions, window_rows, word_pieces

    model = AutoModelForTokenClassification.from_pretrained(folder).eval()
    tok = AutoTokenizer.from_pretrained(folder)
    names = model.config.id2label
    out, split = [], 0
    for words in sentences:
        rows = window_rows(tok, word_pieces(tok, [words]), 16)
        split += len(rows) > 1
        with torch.no_grad():
            logits = [model(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                            token_type_ids=torch.zeros(1, len(ids), dtype=torch.long)).logits[0].numpy()
                      for ids, _, _ in rows]
        merged = merge_word_predictions([len(words)], rows, logits)[0]
        out.append([names[int(k)] for k in merged.argmax(-1)])
    return out, split


def test_a_tagging_run_evaluates_a_sample_of_its_sentences_and_all_of_them_at_the_end(tmp_path, fake_rates):
    """A dev set of 300 sentences (some several windows) is sampled by sentences: the evaluations during training
    score the first 200 sentences of the seeded sample order (every window of each), the final one all 300; the
    counts are sentences, and the sample's entity F1 is seqeval's on those sentences' tags."""
    import json

    from explorer.core.data.conll import load_tagging
    from explorer.core.data.sample import sample_order
    from explorer.core.metrics.tagging import tagging_metrics

    model = save_tiny_model(tmp_path / "m", "qa")
    train = write_tagged_sentences(tmp_path / "train.txt", 64, seed=1)
    dev = write_tagged_sentences(tmp_path / "dev.txt", 300, seed=2)
    argv = ["--model", model, "--task", "ner", "--train", train, "--dev", dev, "--max-steps", 8, "--batch-size", 16,
            "--eval-every", 2, "--eval-share", 0.2, "--max-seq-length", 16, "--learning-rate", 1e-2, "--seed", 7,
            "--output-dir", tmp_path / "runs", "--run-id", "tags"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = train_main([str(a) for a in argv])
    ev = list(iter_events(buf.getvalue().splitlines()))
    assert rc == EXIT_OK, ev[-1]
    evals = [e for e in of(ev, "eval") if not e.get("rescored")]
    assert [(e["step"], e["dev_rows"], e["dev_total"]) for e in evals] == [(0, 200, 300), (3, 200, 300),
                                                                           (6, 200, 300), (8, 300, 300)]
    assert all(e["metrics"]["total"] == e["dev_rows"] for e in evals)
    assert all(e["rows_total"] in (200, 300) and e["dev_total"] == 300 for e in of(ev, "evaluating"))
    plan = [e["message"] for e in of(ev, "log") if e["message"].startswith("Evaluate ")]
    assert len(plan) == 1 and "200 of the 300 dev rows" in plan[0] and "cannot be sampled" not in plan[0]

    gold = load_tagging(dev)
    sample = sample_order(None, len(gold), seed=7)[:200].tolist()
    last = tmp_path / "runs" / "tags" / "checkpoints" / "last"
    tags, split = tags_by_hand(last, gold.words)
    assert split >= 10                                           # long sentences were scored in several windows
    picked = json.loads((last / "checkpoint.json").read_text())["metrics"]   # the final step on the sample's rows
    by_hand = tagging_metrics([gold.tags[i] for i in sample], [tags[i] for i in sample])
    assert picked["total"] == 200
    for name in ("f1", "precision", "recall", "token_accuracy"):
        assert picked[name] == pytest.approx(by_hand[name]), name
    whole = tagging_metrics(gold.tags, tags)
    for name in ("f1", "precision", "recall", "token_accuracy"):
        assert evals[-1]["metrics"][name] == pytest.approx(whole[name]), name
    assert whole["token_accuracy"] != pytest.approx(by_hand["token_accuracy"])   # other rows than the sample's
