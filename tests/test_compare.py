"""Two-checkpoint comparison (core/qa/compare.py, `bert-explorer compare`): per-question scores, counts that add up."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

from explorer.core.qa.compare import compare_decodings
from helpers import run_cli, save_tiny_model, write_tiny_squad


@dataclass
class _Dec:   # the two things compare_decodings reads of an ExampleDecoding
    text: str
    score_diff: float

    def answer(self, tau=0.0):
        return self.text if self.text and self.score_diff > tau else ""

    @property
    def best_text(self):
        return self.text


def test_counts_by_hand_squad2():
    gold = {"q1": ["Paris"], "q2": ["Ada Lovelace"], "q3": [], "q4": ["1815"], "q5": []}
    a = {"q1": _Dec("Paris", 2.0), "q2": _Dec("Lovelace", 1.0), "q3": _Dec("London", -1.0),
         "q4": _Dec("1816", 3.0), "q5": _Dec("x", 0.5)}
    b = {"q1": _Dec("paris.", 2.0), "q2": _Dec("Ada Lovelace", 1.0), "q3": _Dec("London", 1.0),
         "q4": _Dec("1815", -2.0), "q5": _Dec("y", -0.5)}
    c = compare_decodings(a, b, gold, version="v2.0")
    # A answers: Paris(right) Lovelace(wrong, f1 2/3) "" (q3 right) 1816(wrong) x (q5 wrong)
    # B answers: paris.(right) Ada Lovelace(right) London(wrong) ""(q4 wrong) ""(q5 right)
    assert c.counts["both_right"] == 1 and c.counts["only_a"] == 1 and c.counts["only_b"] == 2
    assert c.counts["both_wrong"] == 1
    assert c.counts == {**c.counts, "both_answered": 2, "only_a_answered": 2, "only_b_answered": 1,
                        "both_abstained": 0}
    assert sum(c.counts[k] for k in ("both_right", "only_a", "only_b", "both_wrong")) == 5
    assert sum(c.counts[k] for k in ("both_answered", "only_a_answered", "only_b_answered", "both_abstained")) == 5
    assert c.metrics_a["exact_match"] == pytest.approx(40.0) and c.metrics_a["f1"] == pytest.approx(100 * (1 + 2 / 3 + 1) / 5)
    dis = c.disagreements()
    assert "q1" not in [q.id for q in dis]          # "Paris" and "paris." normalise to the same answer
    assert [abs(q.f1_diff) for q in dis] == sorted((abs(q.f1_diff) for q in dis), reverse=True)
    assert [q.id for q in dis] == ["q3", "q5", "q2", "q4"]   # |diff| 1, 1, 1/3, 0 (both wrong, different answers)
    assert dis[2].f1_diff == pytest.approx(1 / 3) and dis[0].f1_diff == -1.0
    assert "both right 1 | only A 1 | only B 2 | both wrong 1 (of 5)" in c.count_lines()[0]


def test_v11_ignores_tau_and_missing_ids_are_named():
    gold = {"q1": ["Paris"]}
    c = compare_decodings({"q1": _Dec("Paris", -5.0)}, {"q1": _Dec("Rome", 5.0)}, gold, version="v1.1")
    assert c.counts == {"both_right": 0, "only_a": 1, "only_b": 0, "both_wrong": 0}
    with pytest.raises(ValueError, match="B: 1 of 1 questions have no decoding"):
        compare_decodings({"q1": _Dec("Paris", 1.0)}, {}, gold)


def _cli(args):
    """The entry point in a child process (one call per command is enough; the others use run_cli)."""
    return subprocess.run([sys.executable, "-m", "explorer", "compare", *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=300)


@pytest.mark.slow
def test_cli_compare_two_tiny_checkpoints(tmp_path):
    a = save_tiny_model(tmp_path / "a", seed=0)
    b = save_tiny_model(tmp_path / "b", seed=1)
    data = write_tiny_squad(tmp_path / "dev.json", v2=True)
    p = _cli(["--a", str(a), "--b", str(b), "--data", str(data), "--max-seq-length", "64", "--doc-stride", "16",
              "--max-query-length", "16", "--out", str(tmp_path / "rep"), "--json"])
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    c = out["counts"]
    assert out["questions"] == 14 and out["version"] == "v2.0"
    assert c["both_right"] + c["only_a"] + c["only_b"] + c["both_wrong"] == 14
    assert c["both_answered"] + c["only_a_answered"] + c["only_b_answered"] + c["both_abstained"] == 14
    rows = list(csv.DictReader(open(tmp_path / "rep" / "questions.csv", encoding="utf-8")))
    assert len(rows) == 14
    dis = list(csv.DictReader(open(tmp_path / "rep" / "disagreements.csv", encoding="utf-8")))
    assert len(dis) == out["disagreements"]
    assert "# " in (tmp_path / "rep" / "report.md").read_text()
    same = run_cli(["compare", "--a", str(a), "--b", str(a), "--data", str(data), "--cap", "5", "--max-seq-length", "64",
                 "--doc-stride", "16", "--max-query-length", "16", "--json"])
    out = json.loads(same.stdout)
    assert out["disagreements"] == 0 and out["counts"]["only_a"] == out["counts"]["only_b"] == 0


def test_cli_compare_bad_inputs_are_messages(tmp_path):
    data = write_tiny_squad(tmp_path / "dev.json", v2=True)
    p = run_cli(["compare", "--a", str(tmp_path / "nope"), "--b", str(tmp_path / "nope"), "--data", str(data)])
    assert p.returncode == 2 and "error:" in p.stderr and "Traceback" not in p.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    p = run_cli(["compare", "--a", "x", "--b", "y", "--data", str(bad)])
    assert p.returncode == 2 and "bad.json" in p.stderr and "Traceback" not in p.stderr


@pytest.mark.real_data
def test_real_squad2_dev_counts_add_up_and_follow_the_official_has_answer(tmp_path, real_data):
    """8 real SQuAD 2.0 dev questions, two different tiny checkpoints: every 2x2 count adds up to 8, and a
    question counts as right for an abstention exactly when its raw gold list is empty (official v2.0)."""
    real = str(real_data)          # conftest: skips when EXPLORER_REAL_DATA is unset or not a folder
    from explorer.core.data.squad import gold_answers, load_squad
    from explorer.core.qa.decoding import decode_predictions
    from explorer.core.qa.inference import predict_squad
    from explorer.core.models.loading import load_model

    dataset, _ = load_squad(os.path.join(real, "squad_v2.0", "dev-subset.json"))
    dataset = dataset.select(range(8))
    gold = gold_answers(dataset)
    decs = []
    for seed in (0, 1):
        loaded = load_model(str(save_tiny_model(tmp_path / f"m{seed}", seed=seed)), task="qa")
        feats, start, end = predict_squad(loaded, dataset, max_seq_length=128, doc_stride=32, max_query_length=32)
        decs.append(decode_predictions(dataset, feats, start, end))
    c = compare_decodings(*decs, gold, version="v2.0")
    k = c.counts
    assert k["both_right"] + k["only_a"] + k["only_b"] + k["both_wrong"] == 8
    assert k["both_answered"] + k["only_a_answered"] + k["only_b_answered"] + k["both_abstained"] == 8
    for q in c.questions:
        if not q.answer_a:
            assert q.exact_a == (1.0 if not gold[q.id] else 0.0)
    assert c.metrics_a["exact_match"] == pytest.approx(100 * sum(q.exact_a for q in c.questions) / 8)


def test_cli_compare_marks_a_best_checkpoint_chosen_on_the_compared_questions(tmp_path):
    """A is a run's checkpoints/best, chosen among 5 evaluations on the very dev file compared on; B is a folder
    of no run: `compare` marks A's figures optimistic with the evaluations it was chosen among and names the
    figures not chosen on these questions; B gets no mark."""
    from explorer.core.runs.layout import config_file, events_file
    from explorer.core.specs.train_config import TrainConfig

    data = write_tiny_squad(tmp_path / "dev.json", v2=True)
    run = tmp_path / "runs" / "r"
    a = save_tiny_model(run / "checkpoints" / "best", seed=0)
    b = save_tiny_model(tmp_path / "b", seed=1)
    config_file(run).write_text(json.dumps(TrainConfig(dev=str(data), run_id="r").to_dict()), encoding="utf-8")
    events = [{"event": "started", "config": {}, "steps_total": 5}] + [
        {"event": "eval", "step": s, "metrics": {"best_f1": 10.0 + (s * 3) % 7}} for s in range(6)]
    events_file(run).write_text("".join(json.dumps({"run_id": "r", "time": 1.0, **e}) + "\n" for e in events),
                                encoding="utf-8")
    args = ["compare", "--a", str(a), "--b", str(b), "--data", str(data), "--cap", "3", "--max-seq-length", "64",
            "--doc-stride", "16", "--max-query-length", "16"]
    p = run_cli(args)
    assert p.returncode == 0, p.stderr
    assert ("! optimistic: A's checkpoint (checkpoints/best: picked by best F1 among 5 evaluations) was chosen on these "
            "same rows") in p.stdout
    assert "! Not chosen on these rows: each run's last checkpoint (checkpoints/last)" in p.stdout
    assert "B's checkpoint" not in p.stdout
