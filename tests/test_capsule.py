"""Replication capsules (explorer/core/studies/capsule.py, `bert-explorer capsule`): what the folder states, and
`capsule --check` reproducing a tiny run's figures to the printed digit (and saying so when they differ)."""

from __future__ import annotations

import hashlib
import json
from importlib import metadata

import pytest

from explorer.core.studies.capsule import Figures, printed, wilson_interval


def test_printed_figures_and_wilson_intervals_match_scipy():
    from scipy.stats import binomtest

    f = Figures.of({"step": 7, "metrics": {"accuracy": 0.8125, "macro_f1": 0.75, "loss": 0.41234, "total": 16}},
                   "single")
    assert f.shown == {"accuracy": "81.2500", "macro_f1": "75.0000", "loss": "0.4123"} and f.n == 16
    ci = binomtest(13, 16).proportion_ci(method="wilson")
    assert f.intervals == {"accuracy": [f"{100 * ci.low:.4f}", f"{100 * ci.high:.4f}"]}
    assert wilson_interval(0.5, 0) is None
    # SQuAD stores percent: the interval is of the share, printed back in percent
    q = Figures.of({"step": 1, "metrics": {"exact_match": 50.0, "f1": 61.0, "total": 10}}, "squad_v1")
    ci = binomtest(5, 10).proportion_ci(method="wilson")
    assert q.intervals["exact_match"] == [f"{100 * ci.low:.4f}", f"{100 * ci.high:.4f}"]
    assert printed(61.0, "f1", "squad_v1") == "61.0000"


@pytest.mark.slow
def test_capsule_states_the_run_and_its_check_reproduces_the_figures(tmp_path, monkeypatch):
    from helpers import REPO_ROOT, run_cli, run_worker, save_tiny_model, worker_env, write_tiny_classification

    model = save_tiny_model(tmp_path / "enc", "classification")
    train = write_tiny_classification(tmp_path / "train.tsv", repeat=3)
    dev = write_tiny_classification(tmp_path / "dev.tsv")
    rc, out, err = run_worker(["--model", str(model), "--task", "single", "--train", str(train), "--dev", str(dev),
                               "--max-steps", "6", "--batch-size", "4", "--learning-rate", "0.05",
                               "--max-seq-length", "24", "--seed", "7", "--output-dir", str(tmp_path / "runs"),
                               "--run-id", "tiny"])
    assert rc == 0, err[-3000:]
    for name, value in worker_env().items():     # what the check's training child inherits
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(REPO_ROOT)
    p = run_cli(["capsule", str(tmp_path / "runs" / "tiny"), "--out", str(tmp_path / "cap"), "--json"])
    assert p.returncode == 0, p.stderr[-3000:]
    doc = json.loads(p.stdout)
    folder = tmp_path / "cap"
    assert {f.name for f in folder.iterdir()} >= {"capsule.json", "config.json", "command.txt", "data.json",
                                                   "versions.json", "metrics.md", "methods.md", "events.jsonl"}
    # hashes of the data and the starting model's files, the seed, the versions
    assert doc["data"]["train"][0]["sha256"] == hashlib.sha256(train.read_bytes()).hexdigest()
    assert doc["data"]["dev"][0]["sha256"] == hashlib.sha256(dev.read_bytes()).hexdigest()
    assert {f["path"] for f in doc["data"]["model"]} >= {str(model / "config.json")}
    assert doc["seed"] == 7 and json.loads((folder / "config.json").read_text())["seed"] == 7
    assert doc["versions"]["torch"] == metadata.version("torch")
    assert doc["versions"]["transformers"] == metadata.version("transformers")
    assert doc["versions"]["bert-explorer"] == metadata.version("bert-explorer")
    # the figures as printed: the run's last evaluation
    events = [json.loads(x) for x in (tmp_path / "runs" / "tiny" / "events.jsonl").read_text().splitlines() if x]
    last = [e for e in events if e.get("event") == "eval"][-1]
    assert doc["final"]["printed"]["accuracy"] == f"{100 * last['metrics']['accuracy']:.4f}"
    # every row of the final evaluation kept with the run: bootstrap intervals of the headline figures
    boot = doc["final"]["bootstrap_95"]
    assert set(boot) >= {"accuracy", "macro_f1", "matthews_corrcoef"} and doc["final"]["bootstrap_note"] == ""
    assert all(b["n"] == doc["final"]["n"] and b["low"] <= b["value"] <= b["high"] for b in boot.values())
    assert f"95% bootstrap interval {boot['macro_f1']['printed'][0]}" in (folder / "metrics.md").read_text()
    assert "- ! optimistic: the best evaluation's checkpoint" in (folder / "metrics.md").read_text()
    methods = (folder / "methods.md").read_text()
    assert "bootstrap" in methods and f"95% CI {boot['macro_f1']['printed'][0]}" in methods
    assert "seed 7" in methods and doc["data"]["train"][0]["sha256"][:12] in methods
    assert f"torch {metadata.version('torch')}" in methods and "Wilson" in methods
    assert f"capsule --check {folder}" in (folder / "command.txt").read_text()

    # the check: retrain the capsule's config, every printed figure the same
    p = run_cli(["capsule", "--check", str(folder), "--json"])
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    check = json.loads(p.stdout)
    assert check["same"] and {m["metric"] for m in check["metrics"]} >= {"accuracy", "loss"}
    assert all(m["capsule"] == m["reproduced"] for m in check["metrics"])

    # a capsule whose figures the run did not give: the check says which differs, exit 1
    capsule = json.loads((folder / "capsule.json").read_text())
    capsule["final"]["printed"]["loss"] = "9.9999"
    (folder / "capsule.json").write_text(json.dumps(capsule))
    p = run_cli(["capsule", "--check", str(folder)])
    assert p.returncode == 1 and "differs" in p.stdout

    # data changed since the capsule: refused before any training
    dev.write_text(dev.read_text() + "one more line\t1\n")
    p = run_cli(["capsule", "--check", str(folder)])
    assert p.returncode == 2 and "dev:" in p.stderr and "changed" in p.stderr


def test_capsule_refuses_a_folder_without_a_run(tmp_path):
    from helpers import run_cli

    p = run_cli(["capsule", str(tmp_path)])
    assert p.returncode == 2 and "no config.json" in p.stderr
    p = run_cli(["capsule"])
    assert p.returncode == 2 and "--check" in p.stderr


def test_capsule_marks_the_best_checkpoint_thin_classes_repeated_rows_and_the_temperature():
    from explorer.core.studies.capsule_marks import capsule_marks, methods_sentence

    events = [{"event": "log", "level": "warning",
               "message": "dev figures optimistic: 3 of 40 dev rows (7.5%) also occur in the training rows"},
              {"event": "log", "level": "warning", "message": "something else"}]
    final = {"accuracy": 0.7, "per_class": {"AGAINST": {"support": 25}, "FAVOR": {"support": 40}}}
    marks = capsule_marks(events=events, final=final, metric="f_avg", calibration={"temperature": 1.3})
    final_texts = [m["text"] for m in marks["final"]]
    assert any("class AGAINST has 25 dev rows" in t for t in final_texts)
    assert not any("FAVOR" in t for t in final_texts)
    assert "optimistic: 3 of 40 dev rows (7.5%) also occur in the training rows" in final_texts
    assert "best by f_avg" in marks["best"][0]["text"] and marks["best"][1:] == marks["final"]
    assert marks["calibration"][0]["subject"] == "the temperature"
    sentence = methods_sentence(marks)
    assert "class AGAINST has 25 dev rows" in sentence and "the temperature was chosen" in sentence
    assert capsule_marks(events=[], final={}, metric="accuracy", calibration=None)["final"] == []
    assert methods_sentence({"final": [], "calibration": []}) == ""
