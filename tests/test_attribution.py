"""Attributions for every head (explorer.core.explain.attribution) on tiny random models built in memory:
integrated gradients with 300 steps satisfy completeness (sum of attributions = f(input) - f(baseline))
within 1 %; gradient x input equals the finite-difference derivative along each token's embedding (scaling
it by 1 +- eps, in float64); `bert-explorer explain` writes the same numbers; bad targets are clear errors."""

import json

import numpy as np
import pytest
import torch
from helpers import save_tiny_model, tiny_loaded_model

from explorer import cli
from explorer.core.explain.attribution import (AttributionError, encode, explain, explained_head, forward_target,
                                       pad_baseline)

SENTIMENT = {0: "NEGATIVE", 1: "POSITIVE"}
TAGS = {0: "O", 1: "B-PER", 2: "I-PER", 3: "B-LOC", 4: "I-LOC"}
ENDINGS = ["in london", "in paris", "on the river", "in the first year"]

# name -> (task, num_labels, id2label, inputs for explain)
CASES = {
    "single": ("classification", 2, SENTIMENT, dict(text="ada was born in london", target="POSITIVE")),
    "pair": ("classification", 2, SENTIMENT, dict(text="ada was born in london",
                                                  text_pair="ada was born in the city", target="margin")),
    "regression": ("classification", 1, None, dict(text="the river is in paris", text_pair="paris has a river")),
    "swag": ("multiple_choice", 1, None, dict(text="ada was born", endings=ENDINGS, target="2")),
    "tagging": ("token_classification", 5, TAGS, dict(text="ada was born in london", token=5, target="B-LOC")),
    "qa": ("qa", 2, None, dict(text="where was ada born?", text_pair="ada was born in london.", target="span")),
}


def _loaded(name: str):
    """A tiny random model whose weights are drawn wider than BERT's 0.02 (std 0.3), so that its outputs move
    by whole logits between the input and the baseline and the paths are far from linear."""
    task, k, names, _ = CASES[name]
    loaded = tiny_loaded_model(task, seed=4, num_labels=k)
    gen = torch.Generator().manual_seed(11)
    with torch.no_grad():
        for pname, p in loaded.model.named_parameters():
            if p.dim() == 2 and "LayerNorm" not in pname:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.3)
    if names:
        loaded.model.config.id2label = dict(names)
        loaded.model.config.label2id = {v: i for i, v in names.items()}
    return loaded


@pytest.fixture(scope="module")
def models():
    return {name: _loaded(name) for name in CASES}


@pytest.mark.parametrize("name", list(CASES))
def test_integrated_gradients_with_300_steps_are_complete_within_one_percent(models, name):
    loaded = models[name]
    res = explain(loaded.model, loaded.tokenizer, method="ig", steps=300, **CASES[name][3])
    diff = res.target_value - res.baseline_value
    assert abs(diff) > 0.05                                    # the check can fail: f moves between the two
    assert res.relative_gap < 0.01, (res.completeness_gap, diff)
    assert res.completeness_gap == pytest.approx(res.attributions.sum() - diff, abs=1e-12)
    assert res.warning == ""
    assert len(res.tokens) == len(res.attributions) == len(res.segments) == len(res.choices)
    assert res.head == explained_head(loaded.model) and res.steps == 300 and res.method == "ig"


def _encoded(loaded, kw):
    head = explained_head(loaded.model)
    return encode(loaded.tokenizer, head, kw["text"], kw.get("text_pair", ""), kw.get("endings"))


def _f(loaded, res, enc, x) -> float:
    return float(forward_target(loaded.model, res.head, enc.batch, res.target, inputs_embeds=x)[0])


@pytest.mark.parametrize("name", list(CASES))
def test_gradient_x_input_equals_finite_differences(models, name):
    loaded = models[name]
    kw = CASES[name][3]
    model = loaded.model.double()
    try:
        res = explain(model, loaded.tokenizer, method="gxi", **kw)
        enc = _encoded(loaded, kw)
        ids = enc.batch["input_ids"]
        x0 = model.get_input_embeddings()(ids).detach()
        rows = x0.reshape(-1, ids.shape[-1], x0.shape[-1]).shape[0]
        eps, fd = 1e-5, []
        with torch.no_grad():
            for r in range(rows):
                for i, m in enumerate(enc.mask[r]):
                    if not m:
                        continue
                    up, down = x0.clone(), x0.clone()
                    up.view(rows, -1, x0.shape[-1])[r, i] *= 1 + eps
                    down.view(rows, -1, x0.shape[-1])[r, i] *= 1 - eps
                    fd.append((_f(loaded, res, enc, up) - _f(loaded, res, enc, down))
                              / (2 * eps))
        assert np.allclose(res.attributions, fd, rtol=1e-5, atol=1e-8), np.abs(res.attributions - fd).max()
        assert np.abs(res.attributions).max() > 1e-4            # not all zero: the check can fail
        assert res.steps == 0 and res.method == "gxi"
    finally:
        loaded.model.float()


def test_targets_read_the_logits_they_name(models):
    loaded = models["pair"]
    res = explain(loaded.model, loaded.tokenizer, method="gxi", **CASES["pair"][3])
    k, r = res.target.index, res.target.other
    assert res.target_value == pytest.approx(res.logits[k] - res.logits[r], abs=1e-5)
    assert res.logits[k] >= res.logits[r] and "margin" in res.target.description
    assert {"a", "b", "special"} == set(res.segments)
    assert res.segments[0] == "special" and res.segments.count("special") == 3
    swag = explain(models["swag"].model, models["swag"].tokenizer, method="gxi", **CASES["swag"][3])
    z = swag.logits
    assert swag.target_value == pytest.approx(z[2] - (z.sum() - z[2]) / 3, abs=1e-5)
    assert sorted(set(swag.choices)) == [0, 1, 2, 3]
    tag = explain(models["tagging"].model, models["tagging"].tokenizer, method="gxi", **CASES["tagging"][3])
    assert tag.target.token == 5 and tag.target_value == pytest.approx(tag.logits[3], abs=1e-5)


def test_word_pieces_merge_into_words_keeping_the_total(models):
    loaded = models["single"]
    kw = dict(text="lovelace was born in london", target="NEGATIVE", method="ig", steps=20)
    pieces = explain(loaded.model, loaded.tokenizer, **kw)
    words = explain(loaded.model, loaded.tokenizer, merge_words=True, **kw)
    assert words.tokens == ["[CLS]", "lovelace", "was", "born", "in", "london", "[SEP]"]
    assert len(pieces.tokens) > len(words.tokens) and words.merged
    assert words.attributions.sum() == pytest.approx(pieces.attributions.sum(), abs=1e-9)
    assert words.completeness_gap == pytest.approx(pieces.completeness_gap, abs=1e-9)


def test_the_pad_baseline_keeps_cls_and_sep(models):
    tok = models["pair"].tokenizer
    enc = encode(tok, "classification", "ada was born", "in london")
    base = pad_baseline(enc.batch["input_ids"], tok)[0].tolist()
    ids = enc.batch["input_ids"][0].tolist()
    assert base[0] == tok.cls_token_id and base[-1] == tok.sep_token_id
    assert base.count(tok.sep_token_id) == 2 and base.count(tok.pad_token_id) == len(ids) - 3
    unk = encode(tok, "classification", "ada [UNK] born").batch["input_ids"]
    assert tok.unk_token_id in unk[0].tolist() and tok.unk_token_id not in pad_baseline(unk, tok)[0].tolist()


def test_few_steps_over_the_threshold_warn_and_suggest_more(models):
    loaded = models["regression"]
    res = explain(loaded.model, loaded.tokenizer, method="ig", steps=2, **CASES["regression"][3])
    assert res.relative_gap > 0.05 and "use more steps (e.g. 8)" in res.warning
    assert res.warning in res.completeness_line()


def test_bad_targets_are_clear_errors(models):
    loaded = models["single"]
    with pytest.raises(AttributionError, match=r"'NEUTRAL' is not one of the head's classes \(NEGATIVE, POSITIVE\)"):
        explain(loaded.model, loaded.tokenizer, "ada was born", target="NEUTRAL")
    with pytest.raises(AttributionError, match=r"class 7 is outside 0..1"):
        explain(loaded.model, loaded.tokenizer, "ada was born", target="7")
    tag = models["tagging"]
    with pytest.raises(AttributionError, match=r"token 40 is outside the 5 tokens of this text \(0..4\)"):
        explain(tag.model, tag.tokenizer, "ada was born", token=40)
    with pytest.raises(AttributionError, match="the text is empty"):
        explain(loaded.model, loaded.tokenizer, "  ")
    with pytest.raises(AttributionError, match="method 'shap' is not one of gxi, ig"):
        explain(loaded.model, loaded.tokenizer, "ada was born", method="shap")
    with pytest.raises(AttributionError, match="regression head has one output"):
        explain(models["regression"].model, models["regression"].tokenizer, "ada", target="POSITIVE")
    with pytest.raises(AttributionError, match="needs at least two non-empty endings"):
        explain(models["swag"].model, models["swag"].tokenizer, "ada was born", endings=["in london"])


@pytest.mark.parametrize("name,head", [("pair", "classification"), ("tagging", "token_classification")])
def test_cli_json_equals_the_core_numbers(tmp_path, name, head):
    task, k, names, kw = CASES[name]
    folder = save_tiny_model(tmp_path / "model", task, num_labels=k, seed=4)
    out = tmp_path / "explain.json"
    argv = ["explain", "--model", str(folder), "--text", kw["text"], "--method", "ig", "--steps", "30",
            "--merge-words", "--out", str(out)]
    if kw.get("text_pair"):
        argv += ["--text-pair", kw["text_pair"]]
    if kw.get("token") is not None:
        argv += ["--token", str(kw["token"])]
    assert cli.main(argv) == 0
    got = json.loads(out.read_text(encoding="utf-8"))
    from explorer.core.models.loading import load_model

    loaded = load_model(str(folder), task=head)
    want = explain(loaded.model, loaded.tokenizer, kw["text"], kw.get("text_pair", ""), token=kw.get("token"),
                   method="ig", steps=30, merge_words=True).to_dict()
    assert got["tokens"] == want["tokens"] and got["target"] == want["target"]
    assert np.allclose(got["attributions"], want["attributions"], rtol=0, atol=1e-12)
    for key in ("target_value", "baseline_value", "completeness_gap"):
        assert got[key] == pytest.approx(want[key], abs=1e-12)
    assert got["method"] == "ig" and got["steps"] == 30 and len(got["attributions"]) == len(got["tokens"])
    assert got["completeness_gap"] == pytest.approx(
        sum(got["attributions"]) - (got["target_value"] - got["baseline_value"]), abs=1e-9)


def test_cli_says_what_was_wrong(tmp_path, capsys):
    folder = save_tiny_model(tmp_path / "model", "classification")
    rc = cli.main(["explain", "--model", str(folder), "--text", "ada", "--target", "NEUTRAL",
                   "--out", str(tmp_path / "x.json")])
    assert rc == 2 and "error: class 'NEUTRAL' is not one of the head's classes" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


def test_integrated_gradients_report_progress_and_stop_when_cancelled(models):
    from explorer.core.errors import Cancelled

    loaded = models["single"]
    seen = []
    explain(loaded.model, loaded.tokenizer, method="ig", steps=40, internal_batch_size=10,
            progress=lambda done, total: seen.append((done, total)), **CASES["single"][3])
    assert seen and {t for _, t in seen} == {4} and seen[-1][0] == 4 and seen == sorted(seen)
    calls = []
    with pytest.raises(Cancelled):
        explain(loaded.model, loaded.tokenizer, method="ig", steps=40, internal_batch_size=10,
                cancelled=lambda: calls.append(1) or len(calls) > 2, **CASES["single"][3])
    assert len(calls) == 3 and not loaded.model.training
