"""A run beside its bag-of-words baseline (`bert-explorer baseline`) and the pair-cosine baseline; the figures
checked against scikit-learn and scipy."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from explorer.core.metrics.optimism import FEW_EXAMPLES

WORDS = ["red", "blue", "green", "cat", "dog", "runs", "sleeps", "fast", "slow", "big", "small", "tree"]


def _write(path, start, n):
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "sentence", "label"])
        for i in range(start, start + n):
            words = " ".join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(3 + i % 4))
            label = "pos" if i % 2 else "neg"
            w.writerow([f"r{i:02d}", f"{words} {'good' if label == 'pos' else 'bad'} {i}", label])
    return path


# -- the pair cosine -------------------------------------------------------------------------------
def test_cosine_rows_equal_sklearn():
    from sklearn.metrics.pairwise import cosine_similarity

    from explorer.core.embeddings.pair_cosine import cosine_rows

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 8)), rng.normal(size=(5, 8))
    assert np.allclose(cosine_rows(a, b), np.diag(cosine_similarity(a, b)))


def test_pair_cosine_is_the_cosine_of_mean_pooled_last_layer_vectors():
    import torch
    from helpers import tiny_loaded_model

    from explorer.core.embeddings.pair_cosine import pair_cosine

    loaded = tiny_loaded_model("classification")
    model, tok = loaded.model, loaded.tokenizer
    got = pair_cosine("", ["a cat runs"], ["the dog sleeps"], loaded=loaded)
    vecs = []
    for text in ("a cat runs", "the dog sleeps"):
        enc = tok(text, return_tensors="pt")
        with torch.no_grad():
            h = model.bert(**enc).last_hidden_state[0]
        vecs.append(h.mean(0).numpy())
    want = float(vecs[0] @ vecs[1] / np.linalg.norm(vecs[0]) / np.linalg.norm(vecs[1]))
    assert got[0] == pytest.approx(want, abs=1e-5)


# -- a run against its baseline --------------------------------------------------------------------
def test_a_fine_tune_with_constant_predictions_beside_the_pair_cosine_is_undefined_with_the_reason(monkeypatch):
    """A sentence-pair regression fine-tune predicting one score has no Pearson r: its difference from the base
    encoder's cosine is undefined with the reason (it printed "+nan (+nan to +nan)" and saved NaN, not JSON)."""
    from types import SimpleNamespace

    from explorer.core.specs.heads import REGRESSION
    from explorer.core.studies.baseline import versus_model
    from explorer.core.studies.run_baseline import RunBaselineReport, _encoder_cosine

    gold = np.array([0.0, 1.0, 2.0, 4.0, 5.0])
    monkeypatch.setattr("explorer.core.embeddings.pair_cosine.pair_cosine",
                        lambda *a, **k: np.array([0.1, 0.3, 0.2, 0.7, 0.9]))
    dev = SimpleNamespace(texts_a=list("abcde"), texts_b=list("vwxyz"))
    cosine = _encoder_cosine(SimpleNamespace(model="m", max_seq_length=16), dev, gold, np.full(5, 2.5), 200)
    json.dumps(cosine, allow_nan=False)
    report = RunBaselineReport(run_id="r", checkpoint="last", n_train=5, n_dev=5, encoder_cosine=cosine,
                               verdict=versus_model(gold, gold + 0.5, np.full(5, 2.5), REGRESSION, resamples=200))
    assert report.lines()[-1].endswith("fine-tuned - encoder undefined (the predictions are constant (2.5 for all 5 "
                                       "rows))")
    assert "Pearson r 0.9" in report.lines()[-1]     # the encoder's own r is defined and printed


def test_cli_baseline_matches_sklearn_and_mcnemar_on_the_run_dev_rows(tmp_path, monkeypatch):
    from helpers import REPO_ROOT, run_cli, save_tiny_model, worker_env
    from scipy.stats import binomtest
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from explorer.core.predict.engine import predict_file

    for name, value in worker_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(REPO_ROOT)
    model = save_tiny_model(tmp_path / "enc", "classification")
    train, dev = _write(tmp_path / "train.csv", 0, 24), _write(tmp_path / "dev.csv", 24, 12)
    runs = tmp_path / "runs"
    p = run_cli(["train", "--model", str(model), "--task", "single", "--train", str(train), "--dev", str(dev),
                 "--text-columns", "sentence", "--label-column", "label", "--max-steps", "2", "--batch-size", "4",
                 "--max-seq-length", "24", "--output-dir", str(runs), "--run-id", "r1"])
    assert p.returncode == 0, p.stderr[-2000:]
    out = run_cli(["baseline", str(runs / "r1"), "--json", "--resamples", "500", "--progress"])
    assert out.returncode == 0, out.stderr[-2000:]
    from explorer.ui.runs.baseline_jobs import progress_of

    stages = [r for r in map(progress_of, out.stderr.splitlines()) if r is not None]
    assert [s for s, _d, _t in stages][:2] == ["reading the run's training and dev rows",
                                              "fitting TF-IDF + linear on 24 training rows"]
    assert ("scoring checkpoints/last on the dev rows", 12, 12) in stages
    report = json.loads(out.stdout)

    rows = lambda f: list(csv.DictReader(open(f, encoding="utf-8")))  # noqa: E731
    tr, dv = rows(train), rows(dev)
    ref = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                        LogisticRegression(max_iter=1000, random_state=0))
    ref.fit([r["sentence"] for r in tr], [r["label"] for r in tr])
    base_pred = ref.predict([r["sentence"] for r in dv])
    gold = [r["label"] for r in dv]
    assert report["figures"]["baseline"]["accuracy"] == pytest.approx(np.mean(base_pred == np.array(gold)))

    predict_file(str(runs / "r1" / "checkpoints" / "last"), str(dev), str(tmp_path / "p.csv"), calibration=False)
    model_pred = [r["predicted_label"] for r in rows(tmp_path / "p.csv")]
    assert report["figures"]["model"]["accuracy"] == pytest.approx(np.mean(np.array(model_pred) == np.array(gold)))
    only_base = sum(b == g != m for b, m, g in zip(base_pred, model_pred, gold))
    only_model = sum(m == g != b for b, m, g in zip(base_pred, model_pred, gold))
    p_ref = binomtest(only_base, only_base + only_model, 0.5).pvalue if only_base + only_model else 1.0
    assert any(f"{only_base} rows only bag-of-words got right, {only_model} only fine-tuned" in line
               for line in report["lines"])
    assert report["difference"]["mcnemar_p"] == pytest.approx(p_ref)
    assert report["n_dev"] == 12 and report["n_train"] == 24
    assert [m["reason"] for m in report["marks"]] == [FEW_EXAMPLES, FEW_EXAMPLES]
    # kept in the run folder, where the Runs list and the capsule read it
    from explorer.core.studies.run_baseline import read_run_baseline
    from explorer.ui.runs.baseline_cells import BaselineCells
    from explorer.ui.runs.state import RunState

    saved = read_run_baseline(runs / "r1")
    assert saved["lines"] == report["lines"] and saved["metrics"] == report["figures"]["baseline"]
    assert saved["name"].startswith("bag-of-words") and "McNemar p" in saved["detail"]
    cell = BaselineCells().text(RunState(run_id="r1", path=runs / "r1", config={"task": "single"}))
    assert cell.split()[0] == f"{100 * report['difference']['difference']:+.1f}"
    best = run_cli(["baseline", str(runs / "r1"), "--best", "--resamples", "200"])
    if best.returncode == 0:
        assert "checkpoints/best, picked by accuracy) was chosen on these same rows" in best.stdout


# -- label sets -------------------------------------------------------------------------------------
def test_micro_f1_difference_interval_is_scipys_bootstrap_of_sklearn():
    from scipy.stats import bootstrap
    from sklearn.metrics import f1_score

    from explorer.core.metrics.multilabel import paired_bootstrap_micro_f1

    rng = np.random.default_rng(3)
    gold = (rng.random((80, 3)) < 0.4).astype(int)
    a = np.where(rng.random((80, 3)) < 0.7, gold, 1 - gold)
    b = np.where(rng.random((80, 3)) < 0.85, gold, 1 - gold)
    got = paired_bootstrap_micro_f1(gold, a, b, resamples=30, seed=2)
    micro = lambda g, p: f1_score(g, p, average="micro", zero_division=0)  # noqa: E731
    assert (got.value_a, got.value_b) == pytest.approx((micro(gold, a), micro(gold, b)))
    rows = np.arange(80)
    ref = bootstrap((rows,), lambda i: micro(gold[i], b[i]) - micro(gold[i], a[i]), vectorized=False,
                    n_resamples=30, method="percentile", random_state=np.random.default_rng(2))
    assert (got.low, got.high) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high))


def test_cli_baseline_of_a_multilabel_run_is_sklearns_one_vs_rest_at_one_half(tmp_path, capsys):
    from helpers import save_tiny_model
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score
    from sklearn.multiclass import OneVsRestClassifier
    from sklearn.pipeline import make_pipeline
    from test_training_loop import run as train   # the worker's main in this process

    from explorer.cli import main as cli
    from explorer.core.studies.run_baseline import baseline_problem

    assert baseline_problem("multilabel") == ""
    sets = ["econ", "politics", "econ;politics", ""]
    texts = [f"{' '.join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(3))} {['money', 'vote', 'money vote', 'rain'][i % 4]}"
             for i in range(36)]
    for path, part in ((tmp_path / "train.tsv", range(24)), (tmp_path / "dev.tsv", range(24, 36))):
        path.write_text("text\tlabels\n" + "".join(f"{texts[i]}\t{sets[i % 4]}\n" for i in part), encoding="utf-8")
    model = save_tiny_model(tmp_path / "enc", "classification", num_labels=2)
    runs = tmp_path / "runs"
    rc, events = train(["--model", model, "--task", "multilabel", "--train", tmp_path / "train.tsv",
                        "--dev", tmp_path / "dev.tsv", "--max-steps", 2, "--batch-size", 4, "--max-seq-length", 16,
                        "--output-dir", runs, "--run-id", "m1"])
    assert rc == 0, events[-1]
    capsys.readouterr()
    assert cli(["baseline", str(runs / "m1"), "--json", "--resamples", "200"]) == 0
    report = json.loads(capsys.readouterr().out)

    onehot = lambda part: np.array([[int("econ" in sets[i % 4]), int("politics" in sets[i % 4])] for i in part])  # noqa: E731
    ref = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                        OneVsRestClassifier(LogisticRegression(max_iter=1000)))
    ref.fit(texts[:24], onehot(range(24)))
    gold = onehot(range(24, 36))
    base = (ref.predict_proba(texts[24:]) >= 0.5).astype(int)
    assert report["figures"]["baseline"]["micro_f1"] == pytest.approx(f1_score(gold, base, average="micro"))
    assert report["figures"]["baseline"]["subset_accuracy"] == pytest.approx((base == gold).all(axis=1).mean())
    assert report["difference"]["metric"] == "micro_f1" and report["n_dev"] == 12 and report["n_train"] == 24
    assert any("every label at probability 0.5 on both sides" in line for line in report["lines"])


def test_label_set_verdict_is_sklearns_micro_f1_and_scipys_mcnemar():
    from scipy.stats import binomtest
    from sklearn.metrics import f1_score

    from explorer.core.specs.heads import MULTI_LABEL
    from explorer.core.studies.baseline import versus_model

    rng = np.random.default_rng(5)
    gold = (rng.random((60, 3)) < 0.4).astype(int)
    base_probabilities = np.clip(gold * 0.6 + rng.random((60, 3)) * 0.5, 0, 1)
    model_logits = (gold * 2 - 1) * 2.0 + rng.normal(scale=1.5, size=(60, 3))
    verdict = versus_model(gold, base_probabilities, model_logits, MULTI_LABEL, resamples=200)
    a, b = (base_probabilities >= 0.5).astype(int), (model_logits >= 0).astype(int)   # sigmoid >= 0.5
    assert verdict.figures["baseline"]["micro_f1"] == pytest.approx(f1_score(gold, a, average="micro"))
    assert verdict.figures["model"]["macro_f1"] == pytest.approx(f1_score(gold, b, average="macro"))
    right_a, right_b = (a == gold).all(axis=1), (b == gold).all(axis=1)
    only_a, only_b = int((right_a & ~right_b).sum()), int((right_b & ~right_a).sum())
    assert verdict.difference["mcnemar_p"] == pytest.approx(binomtest(only_b, only_a + only_b, 0.5).pvalue)
    assert verdict.difference["low"] <= verdict.difference["difference"] <= verdict.difference["high"]
