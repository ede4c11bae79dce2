"""Small shared rules: baselines, the "best" rule, the percent display scale, window
settings read from a run's config, and recognising the kind of a data file."""

import json
import math

import pytest

from explorer.core.metrics.baselines import dev_baseline, majority_class_baseline, squad_no_answer_baseline
from explorer.core.specs.best import best_evaluation, is_improvement
from explorer.core.data.sniff import sniff_data_file
from explorer.core.specs.metric_display import display_scale, format_metric, metric_label, to_display
from explorer.core.models.checkpoint_windows import resolve_window_settings, window_settings_for_checkpoint


# ---- baselines ----------------------------------------------------------------------------------
def test_no_answer_baseline_is_share_of_unanswerable():
    gold = {"a": ["x"], "b": [], "c": ["y", "z"], "d": []}
    b = squad_no_answer_baseline(gold)
    assert b.metrics["f1"] == pytest.approx(50.0) and b.metrics["exact_match"] == pytest.approx(50.0)
    assert b.metrics["HasAns_f1"] == 0.0 and b.metrics["NoAns_f1"] == 100.0
    assert "2 of 4" in b.detail


def test_no_answer_baseline_matches_official_scoring():
    from explorer.core.metrics.squad import squad_evaluate

    gold = {"a": ["x"], "b": [], "c": ["y"], "d": [], "e": []}
    official = squad_evaluate(gold, {k: "" for k in gold})
    b = squad_no_answer_baseline(gold)
    assert b.metrics["f1"] == pytest.approx(official["f1"]) == pytest.approx(60.0)
    assert b.metrics["exact_match"] == pytest.approx(official["exact_match"])


def test_no_answer_baseline_none_for_v1():
    assert squad_no_answer_baseline({"a": ["x"]}) is None
    assert squad_no_answer_baseline({}) is None


def test_majority_class_baseline():
    b = majority_class_baseline([1, 0, 1, 1, 2])
    assert b.metrics["accuracy"] == pytest.approx(0.6) and "class 1" in b.detail
    assert majority_class_baseline([]) is None


def test_dev_baseline_from_files(tmp_path):
    from helpers import tiny_squad_dict

    data = tiny_squad_dict(v2=True)
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    qs = [q for a in data["data"] for p in a["paragraphs"] for q in p["qas"]]
    share = 100 * sum(1 for q in qs if not q["answers"]) / len(qs)
    b = dev_baseline({"task": "squad_v2", "dev": str(path)})
    assert b.metrics["f1"] == pytest.approx(share)
    capped = dev_baseline({"task": "squad_v2", "dev": str(path), "dev_cap": 2})
    assert capped is None or capped.metrics["f1"] == pytest.approx(
        100 * sum(1 for q in qs[:2] if not q["answers"]) / 2)
    assert dev_baseline({"task": "squad_v1", "dev": str(path)}) is None
    assert dev_baseline({"task": "squad_v2", "dev": "rajpurkar/squad_v2"}) is None   # hub id: no baseline
    tsv = tmp_path / "dev.tsv"
    tsv.write_text("sentence\tlabel\ngood\t1\nbad\t0\nfine\t1\n", encoding="utf-8")
    c = dev_baseline({"task": "single", "dev": str(tsv)})
    assert c.metrics["accuracy"] == pytest.approx(2 / 3)
    # a run without a dev file: the majority class of the rows it held out (dev_split.csv), by name
    run = tmp_path / "runs" / "stance"
    run.mkdir(parents=True)
    (run / "dev_split.csv").write_text("row_id,line,label\n1,2,AGAINST\n5,6,NONE\n9,10,AGAINST\n4,5,FAVOR\n",
                                       encoding="utf-8")
    split = dev_baseline({"task": "single", "dev": ""}, run)
    assert split.metrics["accuracy"] == pytest.approx(0.5) and "AGAINST" in split.detail
    assert dev_baseline({"task": "single", "dev": "", "dev_cap": 2}, run).metrics["accuracy"] == pytest.approx(0.5)
    assert dev_baseline({"task": "single", "dev": ""}, tmp_path / "runs" / "none") is None
    assert dev_baseline({"task": "single", "dev": ""}) is None


def test_bundled_v2_dev_sample_baseline():
    from explorer.ui.launch.presets import sample_paths

    _, dev = sample_paths("v2")
    b = dev_baseline({"task": "squad_v2", "dev": dev})
    assert b.metrics["f1"] == pytest.approx(100 * 12 / 35)   # 12 of 35 questions unanswerable


# ---- best ---------------------------------------------------------------------------------------
def test_best_first_occurrence_wins_and_step_zero_is_skipped():
    # the case: flat 34.29 from step 0; checkpoints/best is written at the first saved eval
    evals = [(0, 34.29), (7, 34.29), (14, 34.29), (20, 34.29)]
    assert best_evaluation(evals) == (7, 34.29)
    assert best_evaluation([(0, 10.0), (5, 20.0), (10, 20.0), (15, 19.0)]) == (5, 20.0)
    assert best_evaluation([(0, 50.0)]) is None
    assert best_evaluation([(0, 50.0)], include_step_zero=True) == (0, 50.0)
    assert best_evaluation([(3, float("nan")), (6, 1.0)]) == (6, 1.0)
    assert not is_improvement(1.0, 1.0) and is_improvement(1.5, 1.0) and is_improvement(0.0, None)
    assert not is_improvement(math.inf, None) and not is_improvement(None, None)


@pytest.mark.parametrize("metric", [None, "f1", "loss", "mse", "pearson"])
def test_best_evaluation_is_is_improvement_folded_over_the_points(metric, monkeypatch):
    """best_evaluation looks the metric's direction up once per call, not per evaluation (a legend update asks it of
    every shown run's evaluations): the same pick as folding is_improvement over the points, ties, step 0,
    non-finite, None, bool and text values included."""
    import random

    from explorer.core.specs import best

    pick = random.Random(7)
    values = [1.0, 2.0, 2.0, -3.5, 0.0, float("nan"), float("inf"), -float("inf"), None, True, "x", "2.5", 7]
    for _ in range(300):
        points = [(pick.choice([0, 0.5, 1, 2, 3, 5, 8, 13]), pick.choice(values)) for _ in range(pick.randint(0, 9))]
        want = None
        for step, value in points:
            if int(step) > 0 and is_improvement(value, None if want is None else want[1], metric):
                want = (int(step), float(value))
        assert best_evaluation(points, metric=metric) == want
    asked = []
    real = best.higher_is_better
    monkeypatch.setattr(best, "higher_is_better", lambda m: (asked.append(m), real(m))[1])
    found = best_evaluation([(s, float(s % 7)) for s in range(1, 101)], metric=metric)   # 100 evaluations
    assert found == ((6, 6.0) if real(metric) else (7, 0.0))
    assert len(asked) == 1


def test_checkpoint_keeper_uses_the_shared_rule():
    import inspect

    from explorer.core.training import keeper

    assert "is_improvement(" in inspect.getsource(keeper)


# ---- display scale --------------------------------------------------------------------------------
def test_percent_display():
    assert to_display("accuracy", 0.875, "single") == pytest.approx(87.5)
    assert to_display("f1", 0.5, "pair") == pytest.approx(50.0)
    assert to_display("f1", 66.7, "squad_v2") == pytest.approx(66.7)
    assert display_scale("matthews_corrcoef", "single") == 1.0
    assert display_scale("eval_loss", "single") == 1.0
    assert metric_label("f1") == "F1 (%)" and metric_label("accuracy", "single") == "accuracy (%)"
    assert metric_label("best_f1_thresh") == "best_f1_thresh"
    assert format_metric("accuracy", 0.9, "single") == "accuracy (%) 90.00"


# ---- window settings ----------------------------------------------------------------------------
def _run_with_checkpoint(tmp_path, **config):
    run = tmp_path / "runs" / "r1"
    ckpt = run / "checkpoints" / "best"
    ckpt.mkdir(parents=True)
    (ckpt / "config.json").write_text(json.dumps({"model_type": "bert"}), encoding="utf-8")   # the model's
    (run / "config.json").write_text(json.dumps({"task": "squad_v2", **config}), encoding="utf-8")
    return run, ckpt


def test_window_settings_from_run_config(tmp_path):
    run, ckpt = _run_with_checkpoint(tmp_path, max_seq_length=256, doc_stride=96, max_query_length=48)
    ws = window_settings_for_checkpoint(ckpt)
    assert (ws.max_seq_length, ws.doc_stride, ws.max_query_length) == (256, 96, 48)
    assert ws.source.endswith("config.json") and "256" in ws.describe()
    assert window_settings_for_checkpoint(run).max_seq_length == 256
    # null max_seq_length = the QA default
    _, ck2 = _run_with_checkpoint(tmp_path / "b", max_seq_length=None)
    assert window_settings_for_checkpoint(ck2).max_seq_length == 384


def test_window_settings_defaults_and_explicit_flags_win(tmp_path):
    assert window_settings_for_checkpoint("bundled:minilm").max_seq_length == 384
    assert window_settings_for_checkpoint(tmp_path / "nowhere").source == ""
    _, ckpt = _run_with_checkpoint(tmp_path, max_seq_length=256, doc_stride=64)
    ws = resolve_window_settings(str(ckpt), max_seq_length=320, doc_stride=None, max_query_length=None)
    assert (ws.max_seq_length, ws.doc_stride, ws.max_query_length) == (320, 64, 64)
    bad = tmp_path / "c" / "checkpoints" / "last"
    bad.mkdir(parents=True)
    (tmp_path / "c" / "config.json").write_text("{not json", encoding="utf-8")
    assert window_settings_for_checkpoint(bad).source == ""


# ---- sniff --------------------------------------------------------------------------------------
def test_sniff_kinds(tmp_path):
    from helpers import tiny_squad_dict

    squad = tmp_path / "d.json"
    squad.write_text(json.dumps(tiny_squad_dict()), encoding="utf-8")
    tsv = tmp_path / "mrpc.tsv"
    tsv.write_text("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n1\t1\t2\ta\tb\n", encoding="utf-8")
    csv_ = tmp_path / "x.csv"
    csv_.write_text("sentence,label\n\"a, b\",1\n", encoding="utf-8")
    jsonl = tmp_path / "x.jsonl"
    jsonl.write_text('{"sentence": "a", "label": 1}\n{"sentence": "b", "label": 0}\n', encoding="utf-8")
    other = tmp_path / "o.json"
    other.write_text('{"foo": [1, 2]}', encoding="utf-8")
    empty = tmp_path / "e.tsv"
    empty.write_text("", encoding="utf-8")
    k = sniff_data_file(squad)
    assert k.kind == "squad_json" and k.fits_task("squad_v2") and not k.fits_task("single")
    k = sniff_data_file(tsv)
    assert k.kind == "tsv" and k.columns[0] == "Quality" and k.fits_task("pair")
    msg = k.mismatch("squad_v2")
    assert "tab-separated" in msg and "#1 String" in msg and "single / pair" in msg and "squad_v2" in msg
    assert sniff_data_file(csv_).kind == "csv" and sniff_data_file(csv_).columns == ("sentence", "label")
    assert sniff_data_file(jsonl).kind == "jsonl" and "sentence" in sniff_data_file(jsonl).columns
    assert sniff_data_file(other).kind == "json" and sniff_data_file(other).fits == ()
    assert sniff_data_file(empty).kind == "empty"
    rows = tmp_path / "squad_rows.jsonl"
    rows.write_text('{"id": "1", "question": "q?", "context": "c", "title": "t"}\n' * 2, encoding="utf-8")
    assert "official nested JSON" in sniff_data_file(rows).mismatch("squad_v2")
    assert sniff_data_file(squad).mismatch("squad_v1") is None
    with pytest.raises(OSError):
        sniff_data_file(tmp_path / "missing.json")


@pytest.mark.real_data
def test_sniff_real_mrpc(tmp_path):
    import os
    from pathlib import Path

    root = os.environ.get("EXPLORER_REAL_DATA")
    if not root:
        pytest.skip("EXPLORER_REAL_DATA is not set")
    files = sorted(Path(root, "glue_mrpc").glob("*.tsv"))
    if not files:
        pytest.skip("no MRPC TSV under EXPLORER_REAL_DATA/glue_mrpc")
    k = sniff_data_file(files[0])
    assert k.kind == "tsv" and "#1 String" in k.columns and "squad" not in k.fits


def test_squad_loader_names_a_tsv_for_what_it_is(tmp_path):
    from explorer.core.data.squad import SquadDataError, load_squad

    tsv = tmp_path / "train.tsv"
    tsv.write_text("sentence\tlabel\ngood\t1\n", encoding="utf-8")
    with pytest.raises(SquadDataError) as err:
        load_squad(str(tsv))
    msg = str(err.value)
    assert "tab-separated" in msg and "sentence, label" in msg and "official SQuAD JSON" in msg
    assert "malformed JSON" not in msg
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": "v2.0", "data": [', encoding="utf-8")
    with pytest.raises(SquadDataError, match="malformed JSON at line 1"):   # real broken JSON stays so
        load_squad(str(broken))
