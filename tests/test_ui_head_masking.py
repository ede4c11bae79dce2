"""Head masking in the GUI: the Qt-free rules (a typed selection, the side-by-side rows, the importance caption)
and, offscreen with the inspector child's thread double, the controls of the Tag, Classify and Spans & τ pages and
the Attention page's head importance map."""

from __future__ import annotations

import pytest
from helpers import tiny_loaded_model, write_tiny_classification, write_tiny_conll, write_tiny_squad

from explorer.core.ablation.one_input import mask_classify
from explorer.core.attention.gates import gate_tensor, head_layout
from explorer.ui.inspectors.components.head_masking import (MASK_DEV_CAP, comparison_html, comparison_rows,
                                                            curve_points, dev_fields, importance_axes,
                                                            importance_hover, importance_request,
                                                            importance_summary, parse_selection)

TAGS = ["O", "B-LOC", "I-LOC", "B-PER", "I-PER"]


# ------------------------------------------------------------------------------------------- Qt-free rules


@pytest.mark.parametrize("text, heads, layers", [
    ("1.2, 2.4", [(0, 1), (1, 3)], []),     # counted from 1, as the Attention page counts
    ("2.* 1.3", [(0, 2)], [1]),
    ("L2; 2.3, 1.1", [(0, 0)], [1]),        # a head of a whole layer is named once, by its layer
    ("1.2,1.2", [(0, 1)], []),
])
def test_a_typed_selection_names_heads_and_whole_layers(text, heads, layers):
    sel = parse_selection(text, 2, 4)
    assert (sel.heads, sel.layers, sel.error) == (heads, layers, "")
    assert sel.request() == {"heads": [list(p) for p in heads], "layers": layers}


@pytest.mark.parametrize("text, message", [
    ("3", "is not a head"), ("a.b", "is not a head"),
    ("3.1", "layer 3 does not exist: this model has layers 1-2 and heads 1-4 per layer"),
    ("1.5", "head 5 of layer 1 does not exist: this model has layers 1-2 and heads 1-4 per layer"),
    ("0.1", "layer 0 does not exist"), ("L3", "layer 3 does not exist")])
def test_a_bad_selection_says_which_item_and_why(text, message):
    sel = parse_selection(text, 2, 4)
    assert message in sel.error and sel.empty


def test_the_rows_put_the_unmasked_and_masked_probabilities_side_by_side():
    loaded = tiny_loaded_model("classification", num_labels=3)
    layout = head_layout(loaded.model)
    result = mask_classify(loaded.model, loaded.tokenizer, "a good model", gate_tensor(layout, layers=[0, 1]))
    d = {**result.to_dict(), "layers": 2, "heads_per_layer": 4}
    rows = comparison_rows(d)
    assert [r[0] for r in rows] == ["P(label 0)", "P(label 1)", "P(label 2)", "predicted"] or \
        [r[0] for r in rows][-1] == "predicted"
    assert rows[0][1] == f"{result.base.values[0]:.3f}" and rows[0][2] == f"{result.masked.values[0]:.3f}"
    assert "8 of 8 heads off (1.*, 2.*)" in comparison_html(d)    # which heads, as they are typed
    d["dev"] = {"metric": "accuracy", "examples": 8, "base": 0.75, "masked": 0.5, "change": -0.25}
    assert comparison_rows(d)[0] == ("dev accuracy (8 examples)", "0.75", "0.5")
    assert comparison_html(d).startswith("<p>8 of 8 heads off") and "Dev accuracy: -0.25." in comparison_html(d)


def test_the_importance_caption_names_the_heads_and_the_curve():
    report = {"importance": {"scores": [[0.0, 1.0], [0.5, 0.2]], "examples": 8, "tokens": 90, "metric": "accuracy"},
              "least_important_first": [[0, 0], [1, 1], [1, 0], [0, 1]],
              "prune_curve": [{"heads_kept": 4, "heads_total": 4, "value": 0.75},
                              {"heads_kept": 2, "heads_total": 4, "value": 0.5},
                              {"heads_kept": 1, "heads_total": 4, "value": None}]}
    text = importance_summary(report, n=2)
    assert "Most important: 1.2, 2.1" in text and "Least important: 1.1, 2.2" in text
    assert "accuracy 0.75 with all 4 heads, 0.5 with 2 kept" in text
    assert curve_points(report) == ([4, 2], [0.75, 0.5])
    assert importance_request("qa", "  ", 10, 2) is None
    assert importance_request("qa", "d.json", 10, 2, {"doc_stride": 16})["doc_stride"] == 16
    assert importance_request("qa", "d.json", 10, 2, iterative=True)["iterative"] is True
    assert "2 kept (iterative pruning)." in importance_summary({**report, "pruning": "iterative"}, n=2)


def test_the_importance_map_names_layers_and_heads_as_heads_off_reads_them():
    report = {"importance": {"scores": [[0.0, 1.0], [0.5, 0.2]]},
              "least_important_first": [[0, 0], [1, 1], [1, 0], [0, 1]]}
    assert importance_axes(report) == (["layer 1", "layer 2"], ["h1", "h2"])
    assert importance_hover(report, 1, 0) == "head 2.1 (layer 2, head 1): importance 0.50, rank 2 of 4 (1 = most " \
                                             "important)"
    assert parse_selection("2.1", 2, 2).heads == [(1, 0)]        # the hovered head, typed as the readout names it
    assert importance_hover(report, 2, 0) == ""


def test_the_dev_fields_name_the_file_a_capped_count_the_task_and_the_table_settings():
    assert dev_fields("  ", 10, "single") is None
    assert dev_fields(" d.tsv ", 50, "pair") == {"dev": "d.tsv", "cap": 50, "task": "pair"}
    assert dev_fields("d.tsv", 0)["cap"] == MASK_DEV_CAP      # "all" on a dev page: capped, scored each Compare
    assert dev_fields("d.tsv", 5, settings={"text_columns": ["a"]})["settings"] == {"text_columns": ["a"]}


# ------------------------------------------------------------------------------------------- pages offscreen


def test_tag_page_compares_the_sentence_with_heads_off(qtbot):
    from explorer.ui.inspectors.tag_view import TagView

    view = TagView()
    qtbot.addWidget(view)
    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=1)
    loaded.model.config.id2label = dict(enumerate(TAGS))
    view.set_loaded(loaded)
    view.sentence.setText("ada was born in london")
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    view.head_mask.field.setText("L1, 2.3")
    assert view.head_mask.compare() is not None
    qtbot.waitUntil(lambda: view.head_mask.result is not None, timeout=30000)
    res = view.head_mask.result
    assert res["masked_heads"] == [[0, 0], [0, 1], [0, 2], [0, 3], [1, 2]]
    assert res["base"]["words"] == ["ada", "was", "born", "in", "london"]
    assert "5 of 8 heads off (1.*, 2.3)" in view.head_mask.table.text()
    view.head_mask.field.setText("1.9")       # the model's size is known now: the index is refused here
    assert view.head_mask.compare() is None
    assert "head 9 of layer 1 does not exist: this model has layers 1-2" in view.head_mask.table.text()


def test_classify_page_compares_the_probabilities_with_heads_off(qtbot):
    from explorer.ui.inspectors.classify_view import ClassifyView

    view = ClassifyView()
    qtbot.addWidget(view)
    assert view.head_mask.compare() is None and "Type the heads" in view.head_mask.table.text()
    view.set_loaded(tiny_loaded_model("classification", num_labels=2))
    view.head_mask.field.setText("3.1")       # the loaded model's size is known before any comparison
    assert view.head_mask.compare() is None
    assert view.head_mask.table.text() == "layer 3 does not exist: this model has layers 1-2 and heads 1-4 per layer"
    view.inputs.text_a.setText("a good model")
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    view.head_mask.field.setText("2.*")
    view.head_mask.compare()
    qtbot.waitUntil(lambda: view.head_mask.result is not None, timeout=30000)
    assert view.head_mask.result["kind"] == "probabilities"
    assert "all heads" in view.head_mask.table.text() and "heads off" in view.head_mask.table.text()
    view.run_label_names = ["negative", "positive"]      # the page's class names name the rows too
    view.head_mask.show_result(view.head_mask.result)
    assert "P(negative)" in view.head_mask.table.text()
    assert view.head_mask.result["base"]["predicted"][0] in ("negative", "positive")


def test_spans_page_compares_the_decision_and_attention_page_maps_importance(qtbot, tmp_path):
    from helpers import probe_in_small_windows

    from explorer.ui.inspectors.hub import InspectorHub

    hub = InspectorHub()
    qtbot.addWidget(hub.panel)
    hub.set_model(tiny_loaded_model("qa"))
    result = probe_in_small_windows(qtbot, hub, "Where was Ada born?", "Ada was born in London in 1815.")
    assert hub.result is result
    hub.head_mask.field.setText("1.1, 1.2")
    hub.head_mask.compare()
    qtbot.waitUntil(lambda: hub.head_mask.result is not None, timeout=30000)
    res = hub.head_mask.result
    assert res["kind"] == "span_decision" and res["base"]["score_diff"] == pytest.approx(result.score_diff, abs=1e-5)
    assert "score_diff" in hub.head_mask.table.text()
    panel = hub.head_importance
    panel.dev.setText(str(write_tiny_squad(tmp_path / "dev.json")))
    panel.cap.setValue(6)
    panel.steps.setValue(2)
    reports = []
    panel.job.progress.connect(lambda done, total: reports.append((done, total, panel.job_bar.detail.text())))
    assert panel.run() is not None
    assert panel.job_bar.running and not panel.run_button.isEnabled()   # the progress row and Cancel, at once
    qtbot.waitUntil(lambda: panel.report is not None or "scoring" not in panel.caption.text(), timeout=60000)
    assert panel.report is not None, panel.caption.text()
    # counted in dev batches over the map's pass and the curve's two masked points, the last one "N of N"
    assert reports and reports[-1][0] == reports[-1][1] and reports[-1][1] % 3 == 0
    assert [d for d, _t, _x in reports] == list(range(1, reports[-1][1] + 1))
    assert f"of {reports[-1][1]} dev batches" in reports[-1][2]
    assert not panel.job_bar.running and panel.run_button.isEnabled()
    assert panel.heat.matrix.shape == (2, 4)
    assert "6 dev examples" in panel.caption.text()
    assert [p["heads_kept"] for p in panel.report["prune_curve"]] == [8, 4, 1]
    hub.head_mask.result = None
    hub.head_mask.on_dev.setChecked(True)     # the dev file of the Head importance tab, scored with and without
    hub.head_mask.compare()
    qtbot.waitUntil(lambda: hub.head_mask.result is not None, timeout=60000)
    dev = hub.head_mask.result["dev"]
    assert dev["examples"] == 6 and dev["metric"] == "best_f1"
    assert dev["base"] == pytest.approx(panel.report["importance"]["metrics"]["best_f1"])
    assert "dev best_f1 (6 examples)" in hub.head_mask.table.text()


def test_classify_page_scores_its_dev_page_file_with_heads_off(qtbot, tmp_path):
    from explorer.ui.inspectors.classify_view import classify_tabs

    (_, view), (_, dev) = classify_tabs()
    qtbot.addWidget(view)
    qtbot.addWidget(dev)
    view.set_loaded(tiny_loaded_model("classification", num_labels=2))
    view.inputs.text_a.setText("a good model")
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    bar = view.head_mask
    bar.field.setText("1.*")
    bar.on_dev.setChecked(True)
    assert not bar.on_dev.isHidden()
    assert bar.compare() is None and "Choose a dev file in the Classify: dev set page" in bar.table.text()
    dev.path.setText(str(write_tiny_classification(tmp_path / "dev.tsv")))
    dev.cap.setValue(6)
    assert bar.compare() is not None
    qtbot.waitUntil(lambda: bar.result is not None, timeout=60000)
    d = bar.result["dev"]
    assert d["examples"] == 6 and d["metric"] == "accuracy" and d["source"] == dev.path.text()
    assert d["masked"] is not None and d["change"] == pytest.approx(d["masked"] - d["base"])
    assert "dev accuracy (6 examples)" in bar.table.text()


def test_tag_page_scores_its_dev_page_file_with_heads_off(qtbot, tmp_path):
    from explorer.ui.inspectors.tag_view import tag_tabs

    (_, view), (_, dev) = tag_tabs()
    qtbot.addWidget(view)
    qtbot.addWidget(dev)
    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=1)
    loaded.model.config.id2label = dict(enumerate(["O", "B-PER", "B-LOC", "B-MISC", "I-MISC"]))  # the file's tags
    loaded.model.config.label2id = {n: k for k, n in loaded.model.config.id2label.items()}
    view.set_loaded(loaded)
    view.sentence.setText("ada was born in london")
    view.run()
    qtbot.waitUntil(lambda: view.result is not None, timeout=30000)
    dev.path.setText(str(write_tiny_conll(tmp_path / "dev.txt")))
    bar = view.head_mask
    bar.field.setText("L1")
    bar.on_dev.setChecked(True)
    assert bar.compare() is not None
    qtbot.waitUntil(lambda: bar.result is not None, timeout=60000)
    d = bar.result["dev"]
    assert d["examples"] == 4 and d["metric"] == "f1"     # the whole tiny file: under the cap of "all"
    assert "dev f1 (4 examples)" in bar.table.text()


def test_head_importance_dev_file_is_the_inspected_runs_dev_file(qtbot, tmp_path, tiny_qa):
    """Head importance's Dev file is pre-filled from the inspected run, from the same source as τ on dev set's
    (its config.json's dev, found here), for a SQuAD v1.1 run too (τ on dev set leaves that one out: no
    unanswerable question); a file the user typed stays; a model without a run clears only what a run put in."""
    import dataclasses
    import json

    from explorer.ui.inspectors.components.dev_tau import run_dev_file
    from explorer.ui.inspectors.hub import InspectorHub

    ckpts = {}
    for task in ("squad_v1", "squad_v2"):
        dev = tmp_path / f"{task}_dev.json"
        dev.write_text("{}", encoding="utf-8")
        run = tmp_path / "runs" / task
        (run / "checkpoints" / "best").mkdir(parents=True)
        (run / "config.json").write_text(json.dumps({"task": task, "dev": str(dev)}), encoding="utf-8")
        ckpts[task] = str(run / "checkpoints" / "best")
    hub = InspectorHub()
    qtbot.addWidget(hub.panel)
    controls, field = hub.head_controls, hub.head_importance.dev

    controls.model_in(dataclasses.replace(tiny_qa, path=ckpts["squad_v1"]))
    assert field.text() == str(tmp_path / "squad_v1_dev.json") and run_dev_file(ckpts["squad_v1"]) == ""
    assert hub.head_importance.task.currentText() == "squad_v1"
    controls.model_in(dataclasses.replace(tiny_qa, path=ckpts["squad_v2"]))   # another run's file replaces it
    assert field.text() == str(tmp_path / "squad_v2_dev.json") == run_dev_file(ckpts["squad_v2"])
    controls.model_in(dataclasses.replace(tiny_qa, path=str(tmp_path / "elsewhere")))
    assert field.text() == ""
    field.setText(str(tmp_path / "mine.json"))                                 # typed: kept
    controls.model_in(dataclasses.replace(tiny_qa, path=ckpts["squad_v1"]))
    assert field.text() == str(tmp_path / "mine.json")
