"""Switching heads off on one input (explorer.core.ablation.one_input), on a capped dev set (dev), head importance
and the pruning curve (importance), and `bert-explorer heads` (JSON), on tiny models."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from helpers import (run_cli, save_tiny_model, tiny_loaded_model, write_tiny_classification,
                     write_tiny_conll, write_tiny_squad)

from explorer.core.ablation.dev import dev_gate_gradients, dev_metrics, load_dev_set
from explorer.core.ablation.importance import (head_importance, least_important_on, normalise_importance, prune_counts,
                                              prune_curve)
from explorer.core.ablation.one_input import class_outputs, mask_classify, mask_qa, mask_tags, masked_pairs
from explorer.core.attention.gates import gate_tensor, head_gates, head_layout
from explorer.core.qa.probe import probe

QUESTION = "Where was Ada born?"
PASSAGE = "Ada was born in London in 1815. She wrote the first program for the engine of Babbage."


CONLL_TAGS = {0: "O", 1: "B-PER", 2: "B-LOC", 3: "B-MISC", 4: "I-MISC"}   # the tags of helpers.TINY_CONLL


def _tagger():
    loaded = tiny_loaded_model("token_classification", num_labels=len(CONLL_TAGS))
    loaded.model.config.id2label = dict(CONLL_TAGS)
    loaded.model.config.label2id = {n: k for k, n in CONLL_TAGS.items()}
    return loaded


# ------------------------------------------------------------------------------------------- one input


def test_qa_with_no_head_masked_is_the_probe_and_masking_every_head_moves_score_diff():
    loaded = tiny_loaded_model("qa")
    layout = head_layout(loaded.model)
    same = mask_qa(loaded, QUESTION, PASSAGE, gate_tensor(layout), tau=1.0)
    assert same.masked.score_diff == pytest.approx(same.base.score_diff, abs=1e-7)
    assert same.masked_heads == []
    off = mask_qa(loaded, QUESTION, PASSAGE, gate_tensor(layout, layers=[0, 1]), base=same.base, tau=1.0)
    assert off.base is same.base
    assert len(off.masked_heads) == 8
    d = off.to_dict()
    assert d["kind"] == "span_decision" and d["base"]["tau"] == 1.0
    assert d["change"]["score_diff"] == pytest.approx(off.masked.score_diff - off.base.score_diff)
    assert abs(d["change"]["score_diff"]) > 1e-6     # a random tiny model's heads add little
    assert set(d["masked"]) >= {"answer", "answered", "inequality", "score_diff", "null_score", "nbest"}
    json.dumps(d)


def test_qa_masked_probe_is_the_probe_of_the_model_whose_head_columns_are_zeroed():
    loaded = tiny_loaded_model("qa")
    layout = head_layout(loaded.model)
    masked = mask_qa(loaded, QUESTION, PASSAGE, gate_tensor(layout, heads=[(1, 2)])).masked
    with torch.no_grad():
        layout.projections[1].weight[:, 2 * layout.head_dim:3 * layout.head_dim] = 0
    zeroed = probe(loaded, QUESTION, PASSAGE)
    assert masked.score_diff == pytest.approx(zeroed.score_diff, abs=1e-5)
    assert np.allclose(masked.windows[0].start_logits, zeroed.windows[0].start_logits, atol=1e-6)


def test_classify_masking_gives_probabilities_beside_the_unmasked_ones():
    loaded = tiny_loaded_model("classification", num_labels=3)
    model, tok = loaded.model, loaded.tokenizer
    layout = head_layout(model)
    base = class_outputs(model, tok, "a good model")
    same = mask_classify(model, tok, "a good model", gate_tensor(layout), base=base)
    assert np.allclose(same.masked.values, base.values, atol=1e-6)
    off = mask_classify(model, tok, "a good model", gate_tensor(layout, heads=[(0, 0), (1, 3)]))
    d = off.to_dict()
    assert len(d["base"]["values"]) == 3 and sum(d["masked"]["values"]) == pytest.approx(1.0)
    assert np.abs(np.asarray(d["change"]["values"])).max() > 1e-6
    assert masked_pairs(gate_tensor(layout, heads=[(0, 0), (1, 3)])) == [(0, 0), (1, 3)]


def test_tag_masking_gives_each_words_tag_beside_the_unmasked_tag():
    loaded = _tagger()
    layout = head_layout(loaded.model)
    same = mask_tags(loaded.model, loaded.tokenizer, "ada was born in london", gate_tensor(layout))
    assert same.masked.tags == same.base.tags
    assert np.allclose(same.masked.logits, same.base.logits, atol=1e-6)
    off = mask_tags(loaded.model, loaded.tokenizer, "ada was born in london", gate_tensor(layout, layers=[0, 1]))
    d = off.to_dict()
    assert d["base"]["words"] == ["ada", "was", "born", "in", "london"]
    assert not np.allclose(off.masked.logits, off.base.logits, atol=1e-4)
    assert d["change"]["words_changed"] == [i for i, (a, b) in enumerate(zip(off.base.tags, off.masked.tags))
                                            if a != b]


# ------------------------------------------------------------------------------------------- dev set


def test_dev_metrics_with_gates_at_one_are_the_unmasked_metrics_and_masking_changes_the_loss(tmp_path):
    loaded = tiny_loaded_model("qa")
    dev = load_dev_set(loaded.model, loaded.tokenizer, "squad_v2", str(write_tiny_squad(tmp_path / "dev.json")),
                       cap=8, max_seq_length=64, settings={"doc_stride": 16})
    assert len(dev) == 8 and dev.metric == "best_f1" and dev.higher_is_better
    layout = head_layout(loaded.model)
    base = dev_metrics(loaded.model, dev)
    assert dev_metrics(loaded.model, dev, gate_tensor(layout)) == base
    masked = dev_metrics(loaded.model, dev, gate_tensor(layout, layers=[0, 1]))
    assert masked["loss"] != pytest.approx(base["loss"], abs=1e-6)


def test_heads_off_that_leave_constant_predictions_give_an_undefined_dev_metric_not_nan(monkeypatch):
    """A regression head whose heads off leave every dev prediction the same: the masked Pearson is undefined, so
    the change is none (never NaN, which no strict JSON reader takes), the reason is given and the sentence under
    the masked result says it; a metric defined on both sides still gives its change. A pruning curve's point is
    a gap with the same reason, and the map's caption says it."""
    import explorer.core.ablation.dev as ablation_dev
    from explorer.core.ablation.importance import prune_point
    from explorer.core.metrics.regression import regression_metrics
    from explorer.ui.inspectors.components.head_masking import change_line, comparison_rows, importance_summary

    gold = [0.0, 1.0, 4.0, 5.0]
    base, flat = regression_metrics([0.5, 1.0, 3.0, 4.5], gold), regression_metrics([2.5] * 4, gold)
    dev = type("Dev", (), {"metric": "pearson", "higher_is_better": True, "__len__": lambda self: 4})()
    monkeypatch.setattr(ablation_dev, "dev_metrics", lambda model, d, gates=None, **kw: flat)
    change = ablation_dev.dev_change(None, dev, "gates", base=base)
    json.dumps(change, allow_nan=False)
    reason = "the predictions are constant (2.5 for all 4 rows)"
    assert change["masked"] is None and change["change"] is None and change["base"] == pytest.approx(base["pearson"])
    assert change["undefined"] == {"masked": reason} and "pearson" in change["base_metrics"]
    side = {"value_name": "score", "names": ["score"], "values": [2.5], "predicted": []}
    result = {"kind": "probabilities", "masked_heads": [[0, 1]], "heads_per_layer": 2, "layers": 2, "base": side,
              "masked": side, "change": {"values": [0.1], "prediction_changed": False}, "dev": change}
    assert change_line(result).endswith(f"Dev pearson undefined with these heads off: {reason}.")
    assert comparison_rows(result)[0] == ("dev pearson (4 examples)", f"{base['pearson']:.4g}", "undefined")
    monkeypatch.setattr(ablation_dev, "dev_metrics", lambda model, d, gates=None, **kw: base)
    same = ablation_dev.dev_change(None, dev, "gates", base=base)
    assert same["change"] == 0.0 and "undefined" not in same

    points = [prune_point(4, [], base, "pearson").to_dict(),
              prune_point(4, [(0, 0), (0, 1)], flat, "pearson").to_dict()]
    json.dumps(points, allow_nan=False)                                   # the pruning curve: a gap, said
    assert points[1]["value"] is None and points[1]["undefined"] == reason and "undefined" not in points[0]
    report = {"importance": {"examples": 4, "tokens": 20, "metric": "pearson"}, "least_important_first": [[0, 0]],
              "prune_curve": points}
    assert importance_summary(report).endswith(f" pearson undefined with 2 heads kept: {reason}.")


def test_dev_gradients_are_the_finite_difference_of_the_dev_loss(tmp_path):
    loaded = tiny_loaded_model("classification", num_labels=2)
    model = loaded.model.double()
    dev = load_dev_set(model, loaded.tokenizer, "single", str(write_tiny_classification(tmp_path / "dev.tsv")))
    layout = head_layout(model)
    grads, metrics, tokens = dev_gate_gradients(model, dev, batch_size=64)   # one batch: |d mean loss / d gate|
    assert tokens > 0 and "accuracy" in metrics
    batch = dev.features.collate(list(range(len(dev.features))))

    def loss_at(gates):   # the mean cross-entropy in float64
        with torch.no_grad(), head_gates(model, gates):
            logits = model(**dev.task.model_inputs(batch)).logits
        return float(torch.nn.functional.cross_entropy(logits.double(), batch["labels"]))

    eps = 1e-4
    for layer, head in [(0, 1), (1, 3)]:
        up, down = gate_tensor(layout).double(), gate_tensor(layout).double()
        up[layer, head] += eps
        down[layer, head] -= eps
        numeric = (loss_at(up) - loss_at(down)) / (2 * eps)
        assert abs(numeric) > 1e-8
        assert grads[layer, head] == pytest.approx(abs(numeric), rel=1e-3)


def test_tagging_dev_labels_follow_the_models_tag_order(tmp_path):
    loaded = _tagger()
    dev = load_dev_set(loaded.model, loaded.tokenizer, "ner", str(write_tiny_conll(tmp_path / "dev.txt")))
    assert dev.examples.label_names == list(CONLL_TAGS.values())
    assert "f1" in dev_metrics(loaded.model, dev)


# ------------------------------------------------------------------------------------------- importance


def test_importance_is_normalised_per_layer_then_scaled_to_zero_one():
    raw = np.array([[3.0, 4.0, 0.0], [1.0, 1.0, 1.0]])
    scores = normalise_importance(raw)
    per_layer = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    expected = (per_layer - per_layer.min()) / (per_layer.max() - per_layer.min())
    assert np.allclose(scores, expected)
    assert scores.min() == 0 and scores.max() == 1
    assert np.all(normalise_importance(np.ones((2, 2))) == 1)


def test_prune_counts_step_through_the_heads_leaving_one():
    assert prune_counts(144, 10) == [0, 14, 29, 43, 58, 72, 86, 101, 115, 130, 143]
    assert prune_counts(8, 4) == [0, 2, 4, 6, 7]


def test_head_importance_and_the_prune_curve_on_a_classifier(tmp_path):
    loaded = tiny_loaded_model("classification", num_labels=2)
    dev = load_dev_set(loaded.model, loaded.tokenizer, "single", str(write_tiny_classification(tmp_path / "d.tsv")))
    imp = head_importance(loaded.model, dev)
    assert imp.scores.shape == (2, 4) and imp.examples == 8 and imp.metric == "accuracy"
    assert imp.scores.min() == 0 and imp.scores.max() == 1
    order = imp.order()
    assert imp.scores[order[0]] == 0 and imp.scores[order[-1]] == 1
    curve = prune_curve(loaded.model, dev, imp, steps=4)
    assert [p.heads_kept for p in curve] == [8, 6, 4, 2, 1]
    assert curve[0].value == imp.metrics["accuracy"]
    assert curve[2].masked == order[:4]
    assert curve[2].metrics == dev_metrics(loaded.model, dev, gate_tensor(head_layout(loaded.model),
                                                                        heads=order[:4]))
    json.dumps([p.to_dict() for p in curve] + [imp.to_dict()])


def test_least_important_on_skips_the_heads_already_masked():
    scores = np.array([[0.5, 0.1, 0.9], [0.1, 0.0, 0.7]])
    assert least_important_on(scores, [], 3) == [(1, 1), (0, 1), (1, 0)]
    assert least_important_on(scores, [(1, 1), (0, 1)], 2) == [(1, 0), (0, 0)]


def test_iterative_pruning_ranks_the_heads_again_with_the_masked_ones_off(tmp_path):
    loaded = tiny_loaded_model("classification", num_labels=2)
    dev = load_dev_set(loaded.model, loaded.tokenizer, "single", str(write_tiny_classification(tmp_path / "d.tsv")))
    layout = head_layout(loaded.model)
    imp = head_importance(loaded.model, dev)
    curve = prune_curve(loaded.model, dev, imp, steps=4, iterative=True)
    assert [p.heads_kept for p in curve] == [8, 6, 4, 2, 1]
    assert curve[0].masked == [] and curve[0].metrics == imp.metrics
    assert curve[1].masked == imp.order()[:2]
    for before, after in zip(curve, curve[1:]):   # heads once off stay off
        assert after.masked[:len(before.masked)] == before.masked and len(set(after.masked)) == len(after.masked)
    # the third and fourth heads: the least important by the map estimated with the first two off
    grads, metrics, tokens = dev_gate_gradients(loaded.model, dev, gate_tensor(layout, heads=curve[1].masked))
    assert curve[1].metrics == metrics
    assert curve[2].masked[2:] == least_important_on(normalise_importance(grads / tokens), curve[1].masked, 2)
    assert curve[3].metrics == dev_metrics(loaded.model, dev, gate_tensor(layout, heads=curve[3].masked))


def test_importance_report_counts_every_dev_batch_and_stops_between_batches(tmp_path):
    from explorer.core.ablation.dev import dev_batch_count
    from explorer.core.ablation.importance import importance_report
    from explorer.core.errors import Cancelled

    loaded = tiny_loaded_model("classification", num_labels=2)
    source = str(write_tiny_classification(tmp_path / "d.tsv"))
    dev = load_dev_set(loaded.model, loaded.tokenizer, "single", source)
    batches = dev_batch_count(dev, 2)
    assert batches > 1
    seen = []
    report = importance_report(loaded.model, loaded.tokenizer, "single", source, steps=2, batch_size=2,
                               progress=lambda done, total: seen.append((done, total)))
    points = len(report["prune_curve"])        # the first point (nothing masked) costs no pass
    total = points * batches
    assert seen == [(i, total) for i in range(1, total + 1)]

    def stop_after_two(done, _total):
        if done == 2:
            raise Cancelled()
    calls = []
    with pytest.raises(Cancelled):
        importance_report(loaded.model, loaded.tokenizer, "single", source, steps=2, batch_size=2,
                          progress=lambda d, t: (calls.append(d), stop_after_two(d, t)))
    assert calls == [1, 2]                     # stopped inside the map's pass, not at its end


def test_iterative_pruning_follows_the_new_map_not_the_first_one(tmp_path, monkeypatch):
    import explorer.core.ablation.importance as importance

    loaded = tiny_loaded_model("classification", num_labels=2)
    dev = load_dev_set(loaded.model, loaded.tokenizer, "single", str(write_tiny_classification(tmp_path / "d.tsv")))
    imp = head_importance(loaded.model, dev)
    # once any head is off, the map turns over: the first map's most important heads become the least important
    reversed_map = np.asarray(1.0 - imp.scores)
    monkeypatch.setattr(importance, "dev_gate_gradients", lambda *a, **k: (reversed_map, {"accuracy": 0.5}, 1))
    curve = prune_curve(loaded.model, dev, imp, steps=4, iterative=True)
    first = imp.order()
    assert curve[1].masked == first[:2]
    expected = least_important_on(normalise_importance(reversed_map), first[:2], 2)
    assert expected != first[2:4]   # the one-shot order would mask other heads
    assert curve[2].masked[2:] == expected
    assert curve[2].value == 0.5


# ------------------------------------------------------------------------------------------- command line


def test_heads_mask_prints_the_qa_comparison_and_the_dev_change(tmp_path):
    model = save_tiny_model(tmp_path / "qa", task="qa")
    dev = write_tiny_squad(tmp_path / "dev.json")
    r = run_cli(["heads", "mask", "--model", model, "--text", QUESTION, "--text-pair", PASSAGE, "--mask", "1.2",
                 "--mask-layer", "2", "--dev", dev, "--task", "squad_v2", "--cap", "6", "--max-seq-length", "64", "--doc-stride", "16", "--out",
                 tmp_path / "o.json"])
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["kind"] == "span_decision" and d["task"] == "squad_v2"
    assert d["masked_heads"] == [[0, 1], [1, 0], [1, 1], [1, 2], [1, 3]]     # 0-based index pairs
    assert d["masked_head_labels"] == ["1.2", "2.1", "2.2", "2.3", "2.4"]   # as typed, counted from 1
    assert d["dev"]["examples"] == 6 and d["dev"]["metric"] == "best_f1"
    assert json.loads((tmp_path / "o.json").read_text()) == d


def test_heads_importance_prints_the_map_and_the_curve(tmp_path):
    model = save_tiny_model(tmp_path / "cls", task="classification")
    dev = write_tiny_classification(tmp_path / "dev.tsv")
    r = run_cli(["heads", "importance", "--model", model, "--dev", dev, "--steps", "2"])
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert np.asarray(d["importance"]["scores"]).shape == (2, 4)
    assert [p["heads_kept"] for p in d["prune_curve"]] == [8, 4, 1]
    assert len(d["least_important_first"]) == 8
    assert d["least_important_first_labels"] == [f"{a + 1}.{h + 1}" for a, h in d["least_important_first"]]


def test_heads_importance_iterative_prunes_in_steps(tmp_path):
    model = save_tiny_model(tmp_path / "cls", task="classification")
    dev = write_tiny_classification(tmp_path / "dev.tsv")
    r = run_cli(["heads", "importance", "--model", model, "--dev", dev, "--steps", "2", "--iterative"])
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["pruning"] == "iterative"
    assert [len(p["masked"]) for p in d["prune_curve"]] == [0, 4, 7]


@pytest.mark.parametrize("argv, message", [
    (["--mask", "3"], "layer.head"),
    (["--mask", "3.1"], "layer 3 does not exist: this model has layers 1-2 and heads 1-4 per layer"),
    (["--mask", "1.0"], "--mask head 0 of layer 1 does not exist: layers and heads are counted from 1"),
    (["--mask-layer", "x"], "--mask-layer 'x' is not a layer"),
    ([], "--mask L.H"),
])
def test_heads_mask_says_what_was_wrong(tmp_path, argv, message):
    model = save_tiny_model(tmp_path / "cls", task="classification")
    r = run_cli(["heads", "mask", "--model", model, "--text", "a good model", *argv])
    assert r.returncode == 2 and message in r.stderr


def test_every_head_of_the_spec_gets_its_input_compared_or_a_clear_refusal(every_head):
    from helpers import tiny_head_model

    from explorer.core.ablation.one_input import mask_input
    from explorer.core.errors import UserError
    from explorer.core.specs.heads import Inputs

    loaded = tiny_head_model(every_head)
    gates = gate_tensor(head_layout(loaded.model), layers=[0])
    if every_head.inputs is Inputs.CHOICES:
        with pytest.raises(UserError, match="multiple-choice"):
            mask_input(loaded, gates, text="a good model")
        return
    pair = PASSAGE if every_head.inputs is Inputs.QUESTION_PASSAGE else ""
    result = mask_input(loaded, gates, text=QUESTION if pair else "ada was born in london", text_pair=pair,
                        max_seq_length=64, **({"doc_stride": 16} if pair else {}))
    d = result.to_dict()
    assert d["masked_heads"] == [[0, h] for h in range(4)]
    def numbers(r):   # the logits behind the summary (a random tiny model's tags may all stay)
        return np.asarray(r.logits if hasattr(r, "logits") else r.windows[0].start_logits, dtype=float)

    assert not np.allclose(numbers(result.base), numbers(result.masked), atol=1e-7)
    json.dumps(d)
