"""Layer-wise linear probes (explorer.core.probing): features per layer of tiny models of several encoder families,
the probes' splits and intervals, a label the features hold exactly, the base-vs-fine-tuned study on the token
and the sentence label, and `bert-explorer layer-probes` (JSON and refusals)."""

import json

import numpy as np
import pytest

from explorer import cli
from explorer.core.probing.linear import ProbeFitError, majority_accuracy, plan_splits, probe_curve
from explorer.core.probing.states import ProbeInputError, text_features, word_features
from explorer.core.probing.study import run_sentence_labels, sentence_study, token_study
from helpers import (TINY_CONLL, save_tiny_model, tiny_loaded_model, write_tiny_classification, write_tiny_conll,
                     write_tiny_squad)

FAMILY_TEXTS = ["ada was born in london", "the river of paris is long", "bert is a model of text",
                "who wrote the first answer", "a good and fine model", "the worst year of the city"]


def test_word_features_one_row_per_word_per_layer():
    loaded = tiny_loaded_model("token_classification", num_labels=3)
    sentences = [w.split() for w, _ in TINY_CONLL]
    f = word_features(loaded, sentences, batch_size=3)
    n_words = sum(len(s) for s in sentences)
    assert f.features.shape == (3, n_words, 32)          # embeddings + 2 blocks, hidden 32
    assert f.num_layers == 2 and f.truncated == 0
    assert list(f.groups) == [k for k, s in enumerate(sentences) for _ in s]
    assert list(f.word_index) == [i for s in sentences for i in range(len(s))]
    # the first piece of each word in the model's own hidden states
    import torch

    enc = loaded.tokenizer([sentences[0]], is_split_into_words=True, return_tensors="pt")
    with torch.no_grad():
        states = loaded.model(**enc, output_hidden_states=True).hidden_states
    assert np.allclose(f.features[2, 1], states[2][0, 2].numpy(), atol=1e-5)    # word 1 = token 2 after [CLS]


def test_words_past_max_seq_length_are_counted_and_left_out():
    loaded = tiny_loaded_model("token_classification", num_labels=3)
    f = word_features(loaded, [("ada " * 20).split()], max_seq_length=8)
    assert f.features.shape[1] == 6 and f.truncated == 14


@pytest.mark.parametrize("family", ["bert", "roberta", "deberta-v2", "modernbert"])
def test_text_features_every_family(tmp_path, family):
    from explorer.core.models.loading import load_model
    from family_models import FAMILIES, family_tokenizer, save_family

    fam = FAMILIES[family]
    tok = family_tokenizer(fam, FAMILY_TEXTS * 3)
    loaded = load_model(str(save_family(tmp_path / family, fam, tok, task="classification")), task="classification")
    mean = text_features(loaded, FAMILY_TEXTS, pooling="mean")
    cls = text_features(loaded, FAMILY_TEXTS, pooling="cls")
    n_layers = loaded.model.config.num_hidden_layers + 1
    assert mean.features.shape == cls.features.shape == (n_layers, len(FAMILY_TEXTS), 32)
    assert np.isfinite(mean.features).all() and not np.allclose(mean.features, cls.features)
    words = word_features(loaded, [t.split() for t in FAMILY_TEXTS])
    assert words.features.shape == (n_layers, sum(len(t.split()) for t in FAMILY_TEXTS), 32)
    # batching does not change a row (padding is masked out of the mean)
    one = text_features(loaded, FAMILY_TEXTS[:1], pooling="mean")
    assert np.allclose(one.features[:, 0], mean.features[:, 0], atol=1e-4)


def test_probe_reads_a_label_the_features_hold_and_not_noise():
    rng = np.random.default_rng(0)
    n, groups = 300, np.repeat(np.arange(60), 5)
    y = rng.integers(0, 3, size=n)
    noise = rng.normal(size=(n, 8))
    signal = noise.copy()
    signal[:, 0] += 4.0 * y                          # layer 1 holds the label linearly, layer 0 does not
    features = np.stack([noise, signal])
    plan = plan_splits(groups, seeds=(0, 1, 2))
    for train, test in plan.splits:                  # sentences never split across train and test
        assert not set(groups[train]) & set(groups[test])
    curve = probe_curve(features, y, plan, name="synthetic")
    assert curve.mean[1] > 0.95 and curve.mean[0] < 0.6 and curve.best_layer() == 1
    assert all(lo <= m <= hi for lo, m, hi in zip(curve.low, curve.mean, curve.high))
    assert np.asarray(curve.per_seed).shape == (3, 2)
    assert 0.2 < majority_accuracy(y, plan) < 0.5
    with pytest.raises(ProbeFitError, match="one class"):
        probe_curve(features, np.zeros(n), plan, name="x")
    with pytest.raises(ProbeFitError, match="300 rows"):
        probe_curve(features, y[:10], plan, name="x")


def test_token_study_base_and_fine_tuned_on_the_same_splits(tmp_path):
    data = write_tiny_conll(tmp_path / "tags.txt", repeat=6)
    base = tiny_loaded_model("token_classification", seed=1, num_labels=3)
    tuned = tiny_loaded_model("token_classification", seed=2, num_labels=3)
    study = token_study([("base model", base), ("fine-tuned", tuned)], str(data), cap=0, seeds=(0, 1))
    words = sum(len(w.split()) for w, _ in TINY_CONLL) * 6
    assert study.n_rows == words and study.n_sentences == 24 and study.kind == "tokens"
    assert set(study.label_names) == {"O", "B-PER", "B-LOC", "B-MISC", "I-MISC"}
    assert [c.name for c in study.curves] == ["base model", "fine-tuned"]
    assert len(study.change()) == 3 and study.change()[0] == pytest.approx(study.curves[1].mean[0] -
                                                                          study.curves[0].mean[0])
    d = study.to_dict()
    assert json.loads(json.dumps(d))["curves"][1]["layers"] == [0, 1, 2]


def test_sentence_labels_of_a_classifier_run_and_of_a_squad_v2_run(tmp_path):
    table = write_tiny_classification(tmp_path / "dev.tsv", repeat=4)
    labelled = run_sentence_labels("single", str(table), cap=0)
    assert len(labelled.texts_a) == 32 and labelled.texts_b is None and len(set(labelled.labels)) == 2
    squad = write_tiny_squad(tmp_path / "dev.json", v2=True, repeat=3)
    qa = run_sentence_labels("squad_v2", str(squad), cap=0)
    assert qa.label_names == ["answerable", "unanswerable"] and qa.texts_b and set(qa.labels) == {0, 1}
    with pytest.raises(ProbeInputError, match="no class per text"):
        run_sentence_labels("regression", str(table))
    model = tiny_loaded_model("classification")
    study = sentence_study([("fine-tuned", model)], labelled, seeds=(0, 1, 2))
    assert len(study.curves) == 1 and study.change() == [] and study.n_rows == 32


def test_cli_layer_probes_on_a_run(tmp_path, capsys):
    base = save_tiny_model(tmp_path / "base", "classification", seed=1)
    run = tmp_path / "runs" / "r1"
    ckpt = save_tiny_model(run / "checkpoints" / "best", "classification", seed=2)
    dev = write_tiny_classification(tmp_path / "dev.tsv", repeat=4)
    (run / "config.json").write_text(json.dumps({"task": "single", "model": str(base), "dev": str(dev)}))
    out = tmp_path / "probes.json"
    assert cli.main(["layer-probes", "--model", str(ckpt), "--labels", "sentences", "--seeds", "2",
                     "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    got = json.loads(out.read_text())
    assert [c["name"] for c in got["curves"]] == ["base model", "fine-tuned"]
    assert got["n_rows"] == 32 and len(got["change"]) == 3 and "majority class" in printed
    conll = write_tiny_conll(tmp_path / "tags.txt", repeat=4)
    assert cli.main(["layer-probes", "--model", str(ckpt), "--labels", "tokens", "--data", str(conll),
                     "--seeds", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["kind"] == "tokens"
    assert cli.main(["layer-probes", "--model", str(ckpt), "--labels", "tokens"]) == 2
    assert "needs a CoNLL or JSONL tagging file" in capsys.readouterr().err
    assert cli.main(["layer-probes", "--model", str(base), "--labels", "sentences"]) == 2
    assert "give the base model" in capsys.readouterr().err
