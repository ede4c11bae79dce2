"""The bad-input catalogue (docs/reliability.md): one parametrised test per row.

Each row feeds the product one bad input the way a user would (the CLI in-process through
``explorer.cli.main``, the core reading functions the GUI calls, or the main window) and checks that
the message names the file / record / setting, that no traceback reaches the user, and what is kept.
``test_catalogue_matches_the_doc`` keeps this file and the table in docs/reliability.md in step.

Rows for cases being fixed on other branches are ``xfail(strict=True)`` until those branches land
(reason "fixed on branch X"); a strict xfail that starts passing fails the suite, so it gets flipped.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from helpers import save_tiny_model, tiny_squad_dict, write_tiny_classification, write_tiny_squad

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "reliability.md"
ROWS: dict[str, tuple] = {}   # row id -> (function, marks)


def row(row_id: str, *, branch: str | None = None):
    """Register a catalogue row; ``branch``: the case is fixed on that branch, not yet on main."""
    def deco(fn):
        marks = [pytest.mark.xfail(strict=True, reason=f"fixed on branch {branch}")] if branch else []
        ROWS[row_id] = (fn, marks)
        return fn
    return deco


@dataclass
class Result:
    """What a CLI command gave the user."""

    rc: int
    out: str
    err: str

    def user_error(self, rc: int, *names) -> "Result":
        """Exit code ``rc``, no traceback anywhere, and every name in the message (stderr)."""
        assert self.rc == rc, (self.rc, self.err[-1500:])
        assert "Traceback" not in self.err, self.err[-3000:]
        human = [line for line in self.out.splitlines() if not line.startswith('{"event":')]
        assert "Traceback" not in "\n".join(human)        # the failed event keeps it for the error dialog
        for name in names:
            assert str(name) in self.err, (name, self.err[-1500:])
        return self

    def ok(self) -> "Result":
        assert self.rc == 0, self.err[-2000:]
        assert "Traceback" not in self.err
        return self

    def events(self) -> list[dict]:
        from explorer.core.protocol.events import iter_events

        return list(iter_events(self.out.splitlines()))


class Ctx:
    """Per-test helpers: a temp folder, the shared tiny models and files, the CLI in-process."""

    def __init__(self, shared: dict, tmp: Path):
        self.__dict__.update(shared)
        self.tmp = tmp

    def write(self, name: str, content: str | bytes) -> Path:
        path = self.tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    def squad(self, name: str, edit=None, v2: bool = True) -> Path:
        data = tiny_squad_dict(v2=v2)
        if edit:
            edit(data)
        return self.write(name, json.dumps(data))

    def cli(self, *argv) -> Result:
        from helpers import run_cli

        done = run_cli(list(argv))
        return Result(done.returncode, done.stdout, done.stderr)

    def train(self, *argv, model=None, data=None, task="squad_v2") -> Result:
        base = ["--model", model or self.qa, "--task", task, "--train", data or self.sq, "--max-steps", 2,
                "--batch-size", 4, "--max-seq-length", 64, "--doc-stride", 16, "--max-query-length", 16,
                "--mixed-precision", "no", "--output-dir", self.tmp / "runs", "--run-name", "r"]
        return self.cli("train", *base, *argv)

    def eval(self, data, *argv, model=None) -> Result:
        return self.cli("eval", "--model", model or self.qa, "--data", data, "--out", self.tmp / "eval",
                        "--max-seq-length", 64, "--doc-stride", 16, "--max-query-length", 16, *argv)

    def probe(self, *argv, model=None) -> Result:
        return self.cli("probe", "--model", model or self.qa, "--no-flow", *argv)


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad-inputs")
    return {"qa": str(save_tiny_model(d / "qa", "qa")), "base": str(_save_base_model(d / "base")),
            "cls": str(save_tiny_model(d / "cls", "classification")),
            "sq": str(write_tiny_squad(d / "sq.json", v2=True)),
            "sst": str(write_tiny_classification(d / "sst.tsv", repeat=4))}


def _save_base_model(folder: Path) -> Path:
    """A bare encoder (BertModel, no QA head) + tokenizer."""
    from transformers import BertModel

    from helpers import tiny_loaded_model

    loaded = tiny_loaded_model("qa")
    BertModel(loaded.model.config).save_pretrained(folder)
    loaded.tokenizer.save_pretrained(folder)
    return folder


# ---------------------------------------------------------------------------------------------- data files
@row("squad-malformed-json")
def _(c):
    p = c.write("bad.json", '{"version": "v2.0", "data": [')
    c.eval(p).user_error(2, p, "malformed JSON at line 1, column 30")


@row("squad-empty-file")
def _(c):
    p = c.write("empty.json", "")
    c.eval(p).user_error(2, p, "malformed JSON at line 1")


@row("squad-not-squad-shape")
def _(c):
    p = c.write("list.json", "[1, 2]")
    c.eval(p).user_error(2, p, "not an official SQuAD file")


@row("squad-missing-file")
def _(c):
    c.eval(c.tmp / "none.json").user_error(2, c.tmp / "none.json", "no such file")


@row("squad-directory")
def _(c):
    (c.tmp / "adir").mkdir()
    c.eval(c.tmp / "adir").user_error(2, c.tmp / "adir", "is a folder")


@row("squad-wrong-encoding")
def _(c):
    text = json.dumps(tiny_squad_dict()).replace("Ada", "Ad\u00e9")
    p = c.write("latin1.json", text.encode("latin-1"))
    c.eval(p).user_error(2, p, "not UTF-8")


@row("squad-duplicate-ids")
def _(c):
    def dup(d):
        qas = d["data"][0]["paragraphs"][0]["qas"]
        qas[1]["id"] = qas[0]["id"]
    p = c.squad("dup.json", dup)
    c.eval(p).user_error(2, p, "duplicate id", "'q0001'", "--skip-invalid")


@row("squad-empty-passage")
def _(c):
    p = c.squad("noctx.json", lambda d: d["data"][0]["paragraphs"][0].update(context=""))
    c.eval(p).user_error(2, p, "empty context", "id 'q0001'")


@row("squad-empty-question")
def _(c):
    p = c.squad("noq.json", lambda d: d["data"][0]["paragraphs"][0]["qas"][0].update(question=""))
    c.eval(p).user_error(2, p, "empty question", "id 'q0001'")


@row("squad-missing-answers-field-v1")
def _(c):
    p = c.squad("noans.json", lambda d: d["data"][0]["paragraphs"][0]["qas"][0].pop("answers"), v2=False)
    r = c.eval(p)
    r.user_error(2, p, "q0001", "answers")


@row("squad-skip-invalid-in-train")
def _(c):
    p = c.squad("noq.json", lambda d: d["data"][0]["paragraphs"][0]["qas"][0].update(question=""))
    r = c.train(data=p)
    r.user_error(2, p, "empty question", "q0001")
    assert r.events()[-1]["event"] == "failed"


@row("squad2-has-answer")
def _(c):
    qas = [{"id": "q1", "question": "Which word?", "answers": [{"text": "The", "answer_start": 0}],
            "is_impossible": False},
           {"id": "q2", "question": "Unanswerable?", "answers": [], "is_impossible": True},
           {"id": "q3", "question": "Who won?", "answers": [{"text": "Denver Broncos", "answer_start": 9}],
            "is_impossible": False}]
    data = {"version": "v2.0",
            "data": [{"title": "T", "paragraphs": [{"context": "The end. Denver Broncos won. a", "qas": qas}]}]}
    d = c.write("data.json", json.dumps(data))
    p = c.write("pred.json", json.dumps({"q1": "the", "q2": "a", "q3": ""}))
    o = c.write("odds.json", json.dumps({"q1": 2.0, "q2": 2.0, "q3": 2.0}))
    out = json.loads(c.cli("score", "--data", d, "--predictions", p, "--null-odds", o).ok().out)
    assert (out["HasAns_total"], out["NoAns_total"]) == (2, 1)
    assert out["exact"] == pytest.approx(100 / 3) and out["f1"] == pytest.approx(100 / 3)
    assert out["best_f1"] == pytest.approx(200 / 3) and out["best_f1_thresh"] == 2.0


@row("answer-start-misaligned")
def _(c):
    data = {"version": "v1.1", "data": [{"title": "S", "paragraphs": [{"context": "Pure Land sect", "qas": [
        {"id": "syn1", "question": "Which sect?", "answers": [{"text": "Pure Land", "answer_start": 1}]}]}]}]}
    p = c.write("train.json", json.dumps(data))
    r = c.train("--max-steps", 1, data=p, task="squad_v1").ok()
    logs = " ".join(e.get("message", "") for e in r.events() if e["event"] == "log")
    assert re.search(r"misalign|repair|drop", logs + r.err), logs


@row("squad2-no-answers-key")
def _(c):
    from explorer.core.data.squad import load_squad

    qas = [{"id": "a", "question": "What is the capital of Spain?", "is_impossible": True,
            "plausible_answers": [{"text": "Paris", "answer_start": 0}]},
           {"id": "b", "question": "What is the capital of France?", "is_impossible": False,
            "answers": [{"text": "Paris", "answer_start": 0}]}]
    data = {"version": "v2.0",
            "data": [{"title": "T", "paragraphs": [{"context": "Paris is the capital of France.", "qas": qas}]}]}
    ds, report = load_squad(str(c.write("train.json", json.dumps(data))))
    rows = {r["id"]: r for r in ds}
    assert rows["a"]["answers"]["text"] == [] and rows["a"]["is_impossible"] and report.n_impossible == 1


@row("tsv-extra-field")
def _(c):
    p = c.write("train.tsv", "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t11\t12\tHe said \"yes\".\tHe said\tyes.\n"
                "0\t13\t14\tA cat.\tA dog.\n")
    r = c.train("--text-columns", "#1 String,#2 String", "--label-column", "Quality", model=c.cls, data=p,
                task="pair")
    r.user_error(2, p, "line 2", "expected 5 fields", "got 6")


@row("classification-wrong-columns")
def _(c):
    p = c.write("wrong.csv", "phrase,y\nok,1\n")
    c.train(model=c.cls, data=p, task="single").user_error(2, p, "no sentence column found among ['phrase', 'y']")


@row("classification-text-labels")
def _(c):   # string labels are classes; one class alone cannot be learnt
    p = c.write("text.tsv", "sentence\tlabel\ngood\tpositive\n")
    c.train(model=c.cls, data=p, task="single").user_error(2, "text.tsv", "hold only 'positive'")


@row("classification-header-only")
def _(c):
    p = c.write("empty.tsv", "sentence\tlabel\n")
    c.train(model=c.cls, data=p, task="single").user_error(2, p, "no examples")


@row("classification-too-few-fields")
def _(c):
    p = c.write("short.tsv", "sentence\tlabel\ngood movie\n")
    c.train(model=c.cls, data=p, task="single").user_error(2, p, "line 2")


SWAG_HEADER = ",video-id,fold-ind,startphrase,sent1,sent2,gold-source,ending0,ending1,ending2,ending3,label\n"
SWAG_ROW = "0,v0,0,the city. the,the city.,the,gold,river,model,answer,name,{label}\n"


@row("swag-label-out-of-range")
def _(c):
    p = c.write("swag.csv", SWAG_HEADER + SWAG_ROW.format(label=1) + SWAG_ROW.format(label=4))
    c.train(data=p, task="swag").user_error(2, p, "line 3: label 4 is out of range; it must be 0..3")


@row("swag-missing-ending")
def _(c):
    p = c.write("swag3.csv", SWAG_HEADER.replace(",ending3", "") + "0,v0,0,a b,a,b,gold,x,y,z,1\n")
    c.train(data=p, task="swag").user_error(2, p, "missing column(s) ending3 in the header row")


@row("squad-v2-data-v1-task")
def _(c):
    c.train(task="squad_v1").user_error(2, "unanswerable questions (SQuAD 2.0 data) but the task is squad_v1")


# ---------------------------------------------------------------------------------------------- models
@row("hub-id-unreachable")
def _(c):
    c.eval(c.sq, model="someone/not-here").user_error(2, "'someone/not-here'", "offline", "bundled:minilm")


@row("model-folder-missing")
def _(c):
    c.probe("--question", "q", "--passage", "p", model=c.tmp / "nomodel").user_error(2, c.tmp / "nomodel")


@row("model-folder-without-config")
def _(c):
    (c.tmp / "empty_model").mkdir()
    c.probe("--question", "q", "--passage", "p", model=c.tmp / "empty_model").user_error(2, "has no config.json")


@row("model-weights-truncated")
def _(c):
    import shutil

    folder = c.tmp / "torn"
    shutil.copytree(c.qa, folder)
    w = folder / "model.safetensors"
    w.write_bytes(w.read_bytes()[:200])
    r = c.probe("--question", "q", "--passage", "p", model=folder)
    r.user_error(2, folder, "could not read the weights")


@row("model-without-qa-head")
def _(c):
    r = c.probe("--question", "Where was Ada born?", "--passage", "Ada was born in London.", model=c.base).ok()
    assert "untrained" in r.err and c.base in r.err


@row("checkpoint-missing-encoder")
def _(c):
    import shutil

    from safetensors.torch import load_file, save_file

    folder = c.tmp / "wrong_base"
    shutil.copytree(c.qa, folder)
    sd = load_file(str(folder / "model.safetensors"))
    save_file({k.replace("bert.", "encoder_model.", 1): v for k, v in sd.items()}, str(folder / "model.safetensors"),
              metadata={"format": "pt"})
    r = c.probe("--question", "q", "--passage", "p", model=folder).ok()
    text = r.out + r.err
    assert re.search(r"\d+ of \d+ weights", text) and "bert.embeddings" in text and "fine-tuned" not in text


@row("fp16-checkpoint")
def _(c):
    import shutil

    import torch
    from transformers import AutoModelForQuestionAnswering

    folder = c.tmp / "tiny_fp16"
    shutil.copytree(c.qa, folder)
    AutoModelForQuestionAnswering.from_pretrained(c.qa).to(torch.float16).save_pretrained(folder)
    c.train("--mixed-precision", "bf16", model=folder).ok()


@row("max-seq-over-positions")
def _(c):
    c.probe("--question", "q", "--passage", "p " * 50, "--max-seq-length", 1024).user_error(
        2, "max_seq_length 1024 > 512 position embeddings", c.qa)


# ---------------------------------------------------------------------------------------------- settings
@row("negative-learning-rate")
def _(c):
    c.train("--learning-rate=-1e-5").user_error(2, "learning_rate must be > 0, got -1e-05")


@row("zero-batch-size")
def _(c):
    c.train("--batch-size", 0).user_error(2, "batch_size must be >= 1, got 0")


@row("dropout-out-of-range")
def _(c):
    c.train("--dropout", 1.0).user_error(2, "dropout must be in [0, 1), got 1.0")


@row("zero-epochs-and-steps")
def _(c):
    c.train("--epochs", 0, "--max-steps", 0).user_error(2, "give epochs > 0 or max_steps > 0")


@row("doc-stride-leaves-no-room")
def _(c):
    c.train("--doc-stride", 60).user_error(2, "doc_stride (overlap) 60 must be smaller than the passage room 60")


@row("non-numeric-flag")
def _(c):
    r = c.train("--batch-size", "abc")
    r.user_error(2, "--batch-size", "invalid int value: 'abc'")


@row("unknown-task-flag")
def _(c):
    c.train("--task", "pos").user_error(2, "--task", "invalid choice: 'pos'")


@row("unknown-task-in-config")
def _(c):
    p = c.write("task.json", json.dumps({"model": c.qa, "task": "pos", "train": c.sq,
                                         "output_dir": str(c.tmp / "runs")}))
    c.cli("train", "--config", p).user_error(2, "task 'pos' is not one of")
    assert not (c.tmp / "runs").exists()           # refused before a run folder was made


@row("config-unknown-key")
def _(c):
    p = c.write("cfg.json", json.dumps({"lr": 1}))
    c.cli("train", "--config", p).user_error(2, p, "unknown setting(s) lr")


@row("config-wrong-type")
def _(c):
    p = c.write("cfg.json", json.dumps({"model": c.qa, "train": c.sq, "batch_size": "abc"}))
    c.cli("train", "--config", p).user_error(2, p, "batch_size must be an integer, got 'abc'")


@row("config-not-json")
def _(c):
    p = c.write("cfg.json", "{model: x")
    c.cli("train", "--config", p).user_error(2, p, "is not valid JSON")


@row("fp16-on-cpu")
def _(c):
    c.train("--mixed-precision", "fp16").user_error(2, "fp16 needs a CUDA GPU")


@row("run-id-with-slash")
def _(c):
    c.train("--run-name", "a/b").user_error(2, "run_id 'a/b' must be a plain folder name")


@row("eval-cap-zero")
def _(c):
    c.eval(c.sq, "--cap", 0).user_error(2, "--cap must be at least 1")


@row("doc-stride-help")
def _(c):
    for cmd in ("train", "eval", "probe"):
        r = c.cli(cmd, "--help")
        text = re.sub(r"\s+", " ", r.out)
        assert re.search(r"--doc-stride \S+ [^-]*overlap", text), (cmd, text[:400])


# ---------------------------------------------------------------------------------------------- probe / text
@row("probe-empty-question")
def _(c):
    c.probe("--question", "", "--passage", "x y").user_error(2, "the question is empty")


@row("probe-empty-passage")
def _(c):
    c.probe("--question", "q", "--passage", "").user_error(2, "the passage is empty")


@row("probe-passage-file-missing")
def _(c):
    c.probe("--question", "q", "--passage-file", c.tmp / "nofile.txt").user_error(2, c.tmp / "nofile.txt")


@row("question-longer-than-window")
def _(c):
    r = c.probe("--question", "where " * 200, "--passage", "Ada was born in London.", "--json").ok()
    res = json.loads(r.out)
    assert all(len(w["tokens"]) <= 384 for w in res["windows"])


@row("unicode-very-long-passage")
def _(c):
    passage = " ".join(["Zoë écrit 東京 — naïve café ☕."] * 150)
    r = c.probe("--question", "Who writes?", "--passage", passage, "--max-seq-length", 64, "--doc-stride", 16,
                "--json").ok()
    res = json.loads(r.out)
    assert len(res["windows"]) > 5
    for cand in res["nbest"]:
        assert passage[cand["start_char"]:cand["end_char"]].strip() == cand["text"]


@row("whitespace-only-span")
def _(c):
    import numpy as np

    from explorer.core.qa.decoding import decode_example

    def logits(hot):
        v = np.full(5, -10.0)
        v[hot] = 10.0
        return v
    d = decode_example("Paris\u00a0is big", [logits(2)], [logits(2)], [[None, (0, 5), (5, 6), (6, 8), None]], [0])
    assert all(cand.text.strip() for cand in d.nbest)
    d = decode_example("Paris  is big", [logits(1)], [logits(1)], [[None, (0, 6), (7, 9), (10, 13), None]], [0])
    assert (d.nbest[0].text, d.nbest[0].start_char, d.nbest[0].end_char) == ("Paris", 0, 5)


# ---------------------------------------------------------------------------------------------- score
@row("score-missing-predictions")
def _(c):
    p = c.write("pred.json", json.dumps({"q0001": "London"}))
    c.cli("score", "--data", c.sq, "--predictions", p).user_error(2, p, "no prediction for 13 of the 14",
                                                                   "q0002", "--allow-missing")


@row("score-allow-missing-names-them")
def _(c):
    p = c.write("pred.json", json.dumps({"q0001": "London"}))
    r = c.cli("score", "--data", c.sq, "--predictions", p, "--allow-missing").ok()
    assert "13 of 14 questions have no prediction" in r.err and "q0002" in r.err and str(p) in r.err


@row("score-predictions-not-object")
def _(c):
    p = c.write("pred.json", '["a"]')
    c.cli("score", "--data", c.sq, "--predictions", p).user_error(2, p, "expected a JSON object")


@row("score-predictions-malformed")
def _(c):
    p = c.write("pred.json", '{"q0001": ')
    c.cli("score", "--data", c.sq, "--predictions", p).user_error(2, p, "malformed JSON")


# ---------------------------------------------------------------------------------------------- training
@row("nan-loss")
def _(c):
    r = c.train("--learning-rate", 1e38, "--warmup-ratio", 0, "--max-grad-norm", 0, "--max-steps", 5,
                "--batch-size", 8, model=c.cls, data=c.sst, task="single")
    r.user_error(2, "diverged", "lower learning rate")
    assert re.search(r"became (nan|inf)", r.err)


@row("ga-leftover-group")
def _(c):
    """GA 1 gives N steps (batch 1, one window each); GA N-1 leaves a last group holding only the N-th
    window, so its grad_norm must equal GA 1's last (lr 1e-12: the weights do not move)."""
    def grad_norms(ga):
        r = c.cli("train", "--model", c.qa, "--task", "squad_v2", "--train", c.sq, "--train-cap", 3, "--batch-size", 1,
                  "--epochs", 1, "--no-length-grouping", "--dropout", 0, "--learning-rate", 1e-12, "--warmup-ratio", 0,
                  "--max-grad-norm", 0, "--max-seq-length", 32, "--doc-stride", 8, "--max-query-length", 8,
                  "--mixed-precision", "no", "--no-save-checkpoints", "--output-dir", c.tmp, "--run-name", f"ga{ga}",
                  "--gradient-accumulation-steps", ga).ok()
        return [e["grad_norm"] for e in r.events() if e["event"] == "step"]
    ga1 = grad_norms(1)
    assert len(ga1) >= 3
    last = grad_norms(len(ga1) - 1)
    assert len(last) == 2 and last[-1] == pytest.approx(ga1[-1], rel=1e-4)


@row("resume-finished-run")
def _(c):
    c.train("--max-steps", 1).ok()
    c.cli("train", "--resume", c.tmp / "runs" / "r").user_error(2, "run r already finished at step 1")


@row("resume-without-checkpoint")
def _(c):
    c.train("--max-steps", 1, "--no-save-checkpoints").ok()
    # a run that never saved: make it look unfinished (killed), then resume
    ev = c.tmp / "runs" / "r" / "events.jsonl"
    ev.write_text("".join(line + "\n" for line in ev.read_text().splitlines() if '"finished"' not in line))
    c.cli("train", "--resume", c.tmp / "runs" / "r").user_error(2, "no checkpoint to resume from")


@row("resume-not-a-run-folder")
def _(c):
    (c.tmp / "x").mkdir()
    c.cli("train", "--resume", c.tmp / "x").user_error(2, c.tmp / "x", "no config.json")


@row("reuse-failed-run-id")
def _(c):
    c.train("--learning-rate=-1").user_error(2)
    (c.tmp / "runs" / "r").mkdir(parents=True, exist_ok=True)
    (c.tmp / "runs" / "r" / "events.jsonl").write_text("")
    c.train().user_error(2, "left no checkpoint", "choose another run_id")


@row("disk-full-on-checkpoint-save")
def _(c, monkeypatch):
    from explorer.core.training import checkpoints

    monkeypatch.setenv(checkpoints.FAULT_ENV, "enospc_save=2")
    monkeypatch.setattr(checkpoints, "_saves_done", 0)
    r = c.train("--max-steps", 4, "--save-every", 1)
    r.user_error(1, "disk full while writing", "training_state.pt", "free space")
    run_dir = c.tmp / "runs" / "r"
    assert checkpoints.checkpoint_dir(run_dir, "last") is not None
    assert checkpoints.load_training_state(run_dir)[1]["step"] == 1       # the save before the full disk
    assert not list((run_dir / "checkpoints").glob(".tmp-*"))


@row("disk-full-on-events-file")
def _(c):
    from explorer.core.protocol.events import EventWriter

    stream, err = io.StringIO(), io.StringIO()
    w = EventWriter("r", path=Path("/dev/full"), stream=stream)
    with contextlib.redirect_stderr(err):
        w.emit("log", message="one")
        w.emit("log", message="two")
    assert "/dev/full" in w.file_error and "No space left" in err.getvalue() and err.getvalue().count("warning") == 1
    assert len(stream.getvalue().splitlines()) == 2            # the GUI still gets every event


# ---------------------------------------------------------------------------------------------- persisted state
def _run_folder(c, name="run1", events=None, config=None) -> Path:
    run_dir = c.tmp / "runs" / name
    run_dir.mkdir(parents=True)
    cfg = {"model": "m", "task": "squad_v2", "train": "t.json", "run_id": name} if config is None else config
    if cfg is not ...:
        (run_dir / "config.json").write_text(cfg if isinstance(cfg, str) else json.dumps(cfg))
    if events is None:
        lines = [{"event": "started", "run_id": name, "time": 1.0, "config": {"model": "m", "task": "squad_v2"},
                  "steps_total": 3}]
        lines += [{"event": "step", "run_id": name, "time": 1.0 + s, "step": s, "loss": 3.0 - s} for s in (1, 2, 3)]
        events = "".join(json.dumps(e) + "\n" for e in lines)
    (run_dir / "events.jsonl").write_bytes(events if isinstance(events, bytes) else events.encode())
    return run_dir


def _read_both(run_dir: Path):
    """The run as core.runs.reading lists it and as the GUI's run store loads it."""
    from explorer.core.runs.reading import list_runs, load_run
    from explorer.ui.runs.store import load_run_state

    summary = [s for s in list_runs(run_dir.parent) if s.path == str(run_dir)]
    assert len(summary) == 1, "the run is not listed"
    return summary[0], load_run(run_dir), load_run_state(run_dir)


def _steps_and_note(c, events, n_steps, *words, config=None):
    run_dir = _run_folder(c, events=events, config=config)
    summary, rec, state = _read_both(run_dir)
    assert len(rec.steps()) == n_steps and len(state.series.get("loss", [])) == n_steps
    notes = " ".join(rec.notes)
    for w in words:
        assert str(w) in notes, (w, notes)
    assert summary.notes == rec.notes and state.read_notes == rec.notes
    return rec


GOOD = "".join(json.dumps(e) + "\n" for e in (
    {"event": "started", "run_id": "run1", "time": 1.0, "config": {"model": "m", "task": "squad_v2"}},
    {"event": "step", "run_id": "run1", "time": 2.0, "step": 1, "loss": 2.0},
    {"event": "step", "run_id": "run1", "time": 3.0, "step": 2, "loss": 1.5}))


@row("events-torn-last-line")
def _(c):
    rec = _steps_and_note(c, GOOD + '{"event":"step","run_id":"run1","st', 2, "events.jsonl", "line 4",
                          "torn last line")
    assert rec.status == "crashed"


@row("events-garbage-line-in-middle")
def _(c):
    lines = GOOD.splitlines(keepends=True)
    _steps_and_note(c, lines[0] + "garbage {{\n" + "".join(lines[1:]), 2, "line 2", "not JSON", "skipped 1")


@row("events-binary-junk")
def _(c):
    _steps_and_note(c, GOOD.encode() + b"\x00\x00\xff\xfe\x80junk\n" + b"\x00" * 64, 2, "line 4", "skipped 1")


@row("events-empty-file")
def _(c):
    rec = _steps_and_note(c, "", 0, "events.jsonl", "empty")
    assert rec.status == "crashed" and rec.config["model"] == "m"


@row("events-wrong-field-type")
def _(c):
    bad = json.dumps({"event": "step", "run_id": "run1", "time": 4.0, "step": 3, "loss": "abc"}) + "\n"
    _steps_and_note(c, GOOD + bad, 2, "line 4", "field 'loss' is 'abc', not a number")


@row("events-file-is-a-directory")
def _(c):
    run_dir = c.tmp / "runs" / "run1"
    (run_dir / "events.jsonl").mkdir(parents=True)
    (run_dir / "config.json").write_text(json.dumps({"model": "m", "task": "squad_v2"}))
    summary, rec, state = _read_both(run_dir)
    assert rec.events == [] and "events.jsonl" in rec.notes[0] and "unreadable" in rec.notes[0]


@row("events-torn-line-then-resumed-writer")
def _(c):
    from explorer.core.protocol.events import EventWriter, read_event_log

    path = c.write("events.jsonl", GOOD + '{"event":"step","run_id":"run1","st')
    w = EventWriter("run1", path=path)
    w.emit("started", config={})
    w.close()
    log = read_event_log(path)
    assert [e["event"] for e in log.events] == ["started", "step", "step", "started"]
    assert [n for n, _ in log.skipped] == [4]


@row("config-json-missing")
def _(c):
    rec = _steps_and_note(c, GOOD, 2, "config.json: missing", "using the config of the run's started event",
                          config=...)
    assert rec.config == {"model": "m", "task": "squad_v2"}


@row("config-json-invalid")
def _(c):
    rec = _steps_and_note(c, GOOD, 2, "config.json: not valid JSON", "line 1", config="{model: ")
    assert rec.config["model"] == "m"


@row("config-json-wrong-types")
def _(c):
    rec = _steps_and_note(c, GOOD, 2, "batch_size must be an integer, got 'abc'", "left out",
                          config={"model": "m", "task": "squad_v2", "batch_size": "abc"})
    assert "batch_size" not in rec.config and rec.config["model"] == "m"


@row("config-json-unknown-keys")
def _(c):
    rec = _steps_and_note(c, GOOD, 2, "unknown setting(s) colour, lr", config={"model": "m", "lr": 1, "colour": 2})
    assert rec.config == {"model": "m"}


@row("killed-worker")
def _(c):
    from explorer.core.runs.layout import PID_FILE

    run_dir = _run_folder(c)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (run_dir / PID_FILE).write_text(json.dumps({"pid": dead.pid, "host": os.uname().nodename, "time": time.time()}))
    summary, rec, state = _read_both(run_dir)
    assert summary.status == rec.status == state.status == "crashed"
    assert len(rec.steps()) == 3 and len(state.series["loss"]) == 3


@row("checkpoint-temp-folder-left-by-kill")
def _(c):
    from helpers import tiny_loaded_model
    from explorer.core.training.checkpoints import checkpoint_dir, save_checkpoint

    run_dir = c.tmp / "run"
    stale = run_dir / "checkpoints" / ".tmp-last-99999"
    stale.mkdir(parents=True)
    (stale / "model.safetensors").write_bytes(b"half")
    assert checkpoint_dir(run_dir, "last") is None
    loaded = tiny_loaded_model("qa")
    save_checkpoint(run_dir, loaded.model, loaded.tokenizer, step=1)
    assert checkpoint_dir(run_dir, "last").name == "last" and not stale.exists()


@row("checkpoint-crash-between-renames")
def _(c):
    from explorer.core.models.loading import load_model
    from helpers import tiny_loaded_model
    from explorer.core.training.checkpoints import checkpoint_dir, read_checkpoint_info, save_checkpoint

    run_dir = c.tmp / "run"
    loaded = tiny_loaded_model("qa")
    save_checkpoint(run_dir, loaded.model, loaded.tokenizer, step=1)
    base = run_dir / "checkpoints"
    (base / "last").rename(base / "last.old")            # what a kill between the two renames leaves
    assert checkpoint_dir(run_dir, "last").name == "last.old"
    load_model(str(checkpoint_dir(run_dir, "last")), "qa")
    save_checkpoint(run_dir, loaded.model, loaded.tokenizer, step=2)
    assert read_checkpoint_info(checkpoint_dir(run_dir, "last"))["step"] == 2 and not (base / "last.old").exists()


@row("training-state-unreadable")
def _(c):
    c.train("--max-steps", 1).ok()
    run_dir = c.tmp / "runs" / "r"
    ev = run_dir / "events.jsonl"
    ev.write_text("".join(line + "\n" for line in ev.read_text().splitlines() if '"finished"' not in line))
    (run_dir / "checkpoints" / "last" / "training_state.pt").write_bytes(b"garbage")
    c.cli("train", "--resume", run_dir).user_error(2, "training_state.pt", "cannot read the training state")


@row("tau-study-cache-corrupt")
def _(c):
    from helpers import tiny_loaded_model
    from explorer.core.qa.tau_study import cache_path, run_study, study_key

    loaded = tiny_loaded_model("qa")
    key = study_key(loaded, c.sq, 4)
    path = cache_path(key, c.tmp / "cache")
    path.parent.mkdir(parents=True)
    path.write_bytes(gzip.compress(b'{"format": 1, "ids": ')[:-5])
    study = run_study(loaded, c.sq, 4, cache_dir=c.tmp / "cache")
    assert len(study) == 4 and not study.from_cache
    assert str(path) in study.note and "unreadable" in study.note
    again = run_study(loaded, c.sq, 4, cache_dir=c.tmp / "cache")
    assert again.from_cache and again.note == ""


@row("settings-form-not-json")
def _(c, qapp):
    from explorer.ui.shell.settings import AppSettings

    s = AppSettings(c.tmp / "s.ini")
    s.qs.setValue("launcher/last_config", "{batch_size: ")
    values, note = s.saved_form()
    assert values is None and str(c.tmp / "s.ini") in note and "not JSON" in note


@row("settings-runs-dir-is-a-file")
def _(c, qtbot, monkeypatch):
    from explorer.ui.app import create_window
    from explorer.ui.shell.settings import AppSettings

    ini, not_a_folder = c.tmp / "s.ini", c.write("runs-file", "x")
    saved = AppSettings(ini)
    saved.set_runs_dir(str(not_a_folder))
    saved.sync()
    monkeypatch.setenv("EXPLORER_RUNS_DIR", str(c.tmp / "default-runs"))
    _app, w = create_window("", str(ini), probe_device=False)     # the app's own start-up path
    qtbot.addWidget(w)
    assert str(w.runs_dir) == str(c.tmp / "default-runs")
    msg = w.statusBar().currentMessage()
    assert f"saved runs folder {not_a_folder} in {ini}" in msg and "not a folder; using the default" in msg, msg


@row("settings-corrupt")
def _(c, qtbot):
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    ini = c.write("settings.ini", '[launcher]\nlast_config="{\\"batch_size\\": \\"abc\\"}"\n')
    w = MainWindow(c.tmp / "runs", AppSettings(ini), probe_device=False)
    qtbot.addWidget(w)
    msg = w.statusBar().currentMessage()
    assert "saved launcher form" in msg and str(ini) in msg and "batch_size must be an integer, got 'abc'" in msg
    assert isinstance(w.launcher.config().batch_size, int) and w.launcher.config().batch_size > 0   # the defaults
    qtbot.waitUntil(lambda: "runs in" in w.statusBar().currentMessage(), timeout=20000)
    assert "batch_size" in w.statusBar().currentMessage()      # the note survives the runs scan


@row("launcher-config-wrong-type")
def _(c, qtbot, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(c.tmp / "runs", AppSettings(c.tmp / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    before = w.launcher.config()
    p = c.write("run.json", json.dumps({"model": "bundled:minilm", "batch_size": "abc"}))
    warned = []
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(p), ""))
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: warned.append(a[2]))
    w.launcher._ask_load()                                   # Load config… as the button does it
    assert warned and str(p) in warned[0] and "batch_size must be an integer, got 'abc'" in warned[0]
    assert w.launcher.config() == before                     # the form is untouched


@row("closing-app-mid-run")
def _(c, qtbot, monkeypatch):
    from explorer.ui.shell import main_window
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    w = MainWindow(c.tmp / "runs", AppSettings(c.tmp / "s.ini"), probe_device=False)
    qtbot.addWidget(w)
    w.show()
    monkeypatch.setattr(w.manager, "active", lambda: ["run-a"])
    asked, cancelled = [], []
    monkeypatch.setattr(w.manager, "cancel_all", lambda wait_ms=0: cancelled.append(wait_ms))
    monkeypatch.setattr(main_window, "ask_quit", lambda _w, running, queued, **_k: asked.append(running) or None)
    w.close()                                        # the quit dialog's Cancel: the window stays
    assert w.isVisible() and not cancelled and asked[0] == ["run-a"]
    monkeypatch.setattr(main_window, "ask_quit", lambda *_a, **_k: "cancel")
    w.close()                                        # "Cancel run and quit"
    assert not w.isVisible() and cancelled


# ---------------------------------------------------------------------------------------------- every head
def _tagger(c, name: str, tags: list[str]) -> Path:
    """A tiny token-classification checkpoint whose head rows are ``tags`` in this order."""
    from helpers import save_tiny_head_model

    from explorer.core.specs.heads import TOKEN_CLASSIFICATION

    return save_tiny_head_model(c.tmp / name, TOKEN_CLASSIFICATION, names=tags)


def _tag_run(c, model, data, *argv) -> Result:
    return c.cli("train", "--task", "ner", "--model", model, "--train", data, "--dev", data, "--max-steps", 1,
                 "--batch-size", 2, "--learning-rate", 1e-12, "--warmup-ratio", 0, "--max-seq-length", 32,
                 "--mixed-precision", "no", "--output-dir", c.tmp / "runs", "--run-id", "r", *argv)


@row("tag-order-checkpoint")
def _(c):
    from helpers import write_tiny_conll

    order = ["O", "B-MISC", "I-MISC", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    r = _tag_run(c, _tagger(c, "ck", order), write_tiny_conll(c.tmp / "train.txt")).ok()
    assert any("the data's labels are mapped to it by name" in e.get("message", "") for e in r.events())
    saved = json.loads((c.tmp / "runs" / "r" / "checkpoints" / "last" / "config.json").read_text())["id2label"]
    assert [saved[str(i)] for i in range(len(saved))] == order


@row("head-lacks-data-label")
def _(c):
    from helpers import write_tiny_conll

    data = write_tiny_conll(c.tmp / "train.txt")          # its tags: O, B-PER, B-LOC, B-MISC, I-MISC
    _tag_run(c, _tagger(c, "ck", ["O", "B-PER", "B-LOC"]), data).user_error(
        2, "the checkpoint's head has 3 labels (O, B-PER, B-LOC)", "'B-MISC', 'I-MISC' are not in the head",
        "Use --new-head")
    r = _tag_run(c, _tagger(c, "ck2", ["O", "B-PER", "B-LOC"]), data, "--new-head", "--run-id", "n").ok()
    assert any(e.get("message", "").startswith("new head:") for e in r.events())


@row("tensorboard-restart-overlap")
def _(c):
    pytest.importorskip("tensorboard", reason="the tensorboard package (extra 'tensorboard') is not installed")
    from torch.utils.tensorboard import SummaryWriter

    logdir = c.tmp / "tb" / "tb_run"
    first = SummaryWriter(str(logdir), filename_suffix=".a")
    for s in range(16):
        first.add_scalar("train/loss", 10.0 - 0.5 * s, s)
    first.close()
    again = SummaryWriter(str(logdir), filename_suffix=".b", purge_step=10)
    for s in range(10, 13):
        again.add_scalar("train/loss", 100.0 + s, s)
    again.close()
    out = c.tmp / "scalars.csv"
    c.cli("runs", c.tmp / "tb", "--export-csv", out).ok()
    import csv

    rows = [r for r in csv.DictReader(out.open(encoding="utf-8")) if r["name"] in ("loss", "train/loss")]
    assert [(int(r["step"]), float(r["value"])) for r in rows][-4:] == [(9, 5.5), (10, 110.0), (11, 111.0), (12, 112.0)]


@row("long-text-indexing-warning")
def _(c):
    model = _tagger(c, "ck", ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"])
    tokenizer_config = json.loads((model / "tokenizer_config.json").read_text(encoding="utf-8"))
    (model / "tokenizer_config.json").write_text(json.dumps({**tokenizer_config, "model_max_length": 512}))
    data = c.write("long.txt", " ".join(["ada", "was", "born", "in", "london"] * 140) + "\n")
    r = c.cli("predict", "--model", model, "--data", data, "--out", c.tmp / "out.jsonl", "--max-seq-length", 64).ok()
    assert "indexing errors" not in r.err
    assert len(json.loads((c.tmp / "out.jsonl").read_text(encoding="utf-8"))["tags"].split()) == 700


@row("constant-predictions-correlation")
def _(c):
    scores = c.write("scores.tsv", "sentence\tlabel\n" + "".join(f"the city {i}\t{i % 5}.5\n" for i in range(16)))
    r = c.cli("train", "--task", "regression", "--model", c.base, "--train", scores, "--dev", scores, "--max-steps", 4,
              "--eval-every", 2, "--batch-size", 8, "--learning-rate", 1e3, "--max-grad-norm", 0, "--warmup-ratio", 0,
              "--max-seq-length", 32, "--mixed-precision", "no", "--output-dir", c.tmp / "runs", "--run-id", "r").ok()
    evals = [e for e in r.events() if e["event"] == "eval" and e["step"] > 0]
    assert evals and all(e["metrics"]["pearson"] is None and e["metrics"]["mse"] > 0 for e in evals)
    warned = [e["message"] for e in r.events() if e["event"] == "log" and "undefined" in e.get("message", "")]
    assert len(warned) == 1 and "pearson and spearman undefined: the predictions are constant" in warned[0]
    info = (c.tmp / "runs" / "r" / "checkpoints" / "last" / "checkpoint.json").read_text(encoding="utf-8")
    json.loads(info, parse_constant=lambda bad: pytest.fail(f"checkpoint.json holds {bad}"))


@row("raw-text-word-splitting")
def _(c):
    lines = ["AL-AIN B-LOC", ", O", "1996-12-06 O", "", "Jean-Luc B-PER", "met O", "U.S. B-LOC", "officials O", ". O", ""]
    data = c.write("conll.txt", "\n".join(lines))
    _tag_run(c, _tagger(c, "ck", ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]), data, "--new-head").ok()
    raw = c.write("raw.txt", "AL-AIN , 1996-12-06\nJean-Luc met U.S. officials .\n")
    out = c.tmp / "out.jsonl"
    r = c.cli("predict", "--model", c.tmp / "runs" / "r" / "checkpoints" / "last", "--data", raw, "--out", out).ok()
    assert "split by the conll rule" in r.out + r.err
    words = [json.loads(x)["words"] for x in out.read_text(encoding="utf-8").splitlines()]
    assert words == ["AL-AIN , 1996-12-06", "Jean-Luc met U.S. officials ."]


@row("predict-headerless-tab-csv")
def _(c):
    from helpers import save_tiny_head_model

    from explorer.core.specs.heads import REGRESSION

    model = save_tiny_head_model(c.tmp / "reg", REGRESSION)
    data = c.write("stsb.csv", "main\tf\t2012\t1\t5.0\tA man plays.\tA man is playing.\n"
                               "main\tf\t2012\t2\t1.5\tA dog.\tCats.\tsource\tnote\n")
    out = c.tmp / "out.csv"
    c.cli("predict", "--model", model, "--data", data, "--out", out, "--no-header", "--text-columns", 6, 7).ok()
    assert len(out.read_text(encoding="utf-8").splitlines()) == 3


@row("cli-old-spelling")
def _(c):
    c.cli("embed", "--data", c.write("t.txt", "one\n"), "--out", c.tmp / "e", "--text-column", "text",
          "--model", c.base, "--projection", "pca").ok()
    r = c.cli("embed", "--data", c.tmp / "t.txt", "--out", c.tmp / "e", "--text-colums", "text")
    r.user_error(2, "did you mean --text-columns?")


# ---------------------------------------------------------------------------------------------- the tests
def _params():
    return [pytest.param(rid, id=rid, marks=marks) for rid, (_fn, marks) in ROWS.items()]


@pytest.mark.parametrize("row_id", _params())
def test_bad_input(row_id, shared, tmp_path, request):
    fn = ROWS[row_id][0]
    extra = [request.getfixturevalue(name) for name in fn.__code__.co_varnames[1:fn.__code__.co_argcount]]
    fn(Ctx(shared, tmp_path), *extra)


def test_catalogue_matches_the_doc():
    """Every row of docs/reliability.md has a test here and every test a row; 45 rows at least."""
    ids = re.findall(r"^\| `([a-z0-9-]+)`", DOC.read_text(encoding="utf-8"), flags=re.M)
    assert len(ids) == len(set(ids)), "duplicate row ids in docs/reliability.md"
    assert set(ids) == set(ROWS), (sorted(set(ids) - set(ROWS)), sorted(set(ROWS) - set(ids)))
    assert len(ROWS) >= 45
    pending = set(re.findall(r"^\| `([a-z0-9-]+)` \*\(branch", DOC.read_text(encoding="utf-8"), flags=re.M))
    assert pending == {rid for rid, (_fn, marks) in ROWS.items() if marks}, "branch marks differ from the xfails"


def test_every_catalogue_row_says_which_heads_it_is_tested_on():
    """The last column of every row names heads of the spec, "every head", or "— (no model)"."""
    from explorer.core.specs.heads import heads

    names = {h.name for h in heads()}
    text = DOC.read_text(encoding="utf-8")
    for line in (ln for ln in text.splitlines() if re.match(r"^\| `[a-z0-9-]+`", ln)):
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        last = cells[-1]
        named = set(re.findall(r"\b[a-z_]+\b", last.split("(")[0])) & names
        assert len(cells) >= 5 and (named or last.startswith(("every head", "— (no model)"))), line[:80]
