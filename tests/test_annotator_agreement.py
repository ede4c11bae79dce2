"""Several annotators' label columns: Krippendorff's α among them and each one's Cohen's κ against
the model, in one table - by hand on a small table, in `predict --annotator-columns` and on the Predictions page."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys

import pytest

from explorer.core.predict.review import Review, annotator_agreement, load_predictions

MODEL = ["pos", "pos", "neg", "neg", "pos", "neg"]
A = ["pos", "pos", "neg", "neg", "pos", "neg"]    # agrees with the model everywhere: κ 1
B = ["pos", "neg", "neg", "neg", "pos", "pos"]    # 4 of 6 with the model, marginals 1/2 each: κ (4/6 - 1/2) / (1/2) = 1/3
C = ["1", "", "0", "0", "1", "0"]                 # ids (1 = pos), one label missing: 5 rows, all as the model


def _predictions(path):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["text", "a", "b", "c", "predicted_label", "p_neg", "p_pos", "margin", "error"])
        for i in range(6):
            p = 0.8 if MODEL[i] == "pos" else 0.2
            w.writerow([f"row {i}", A[i], B[i], C[i], MODEL[i], 1 - p, p, abs(2 * p - 1), ""])
    return path


def test_table_by_hand(tmp_path):
    table = load_predictions(_predictions(tmp_path / "p.csv"))
    two = annotator_agreement(table, ["a", "b"], MODEL, ["neg", "pos"])
    rows = {r.who: r for r in two.rows}
    assert rows["a vs model"].value == pytest.approx(1.0) and rows["a vs model"].n == 6
    assert rows["b vs model"].value == pytest.approx(1 / 3)
    assert rows["a vs b"].value == pytest.approx(1 / 3)
    # Krippendorff's α (nominal), two coders, 6 units: coincidences o_pp 4, o_nn 4, o_pn = o_np 2; n_p = n_n = 6,
    # n 12: D_o = 4/12, D_e = 2 * 6 * 6 / (12 * 11), α = 1 - D_o / D_e = 1 - 11/18 = 7/18
    alpha = rows["all annotators"]
    assert alpha.statistic == "Krippendorff's α" and alpha.value == pytest.approx(7 / 18) and alpha.n == 6
    assert [r.who for r in two.rows] == ["a vs model", "b vs model", "a vs b", "all annotators"]

    three = {r.who: r for r in annotator_agreement(table, ["a", "b", "c"], MODEL, ["neg", "pos"]).rows}
    assert three["c vs model"].n == 5 and three["c vs model"].value == pytest.approx(1.0)   # ids read as names
    assert three["a vs c"].value == pytest.approx(1.0) and three["all annotators"].n == 6
    lines = annotator_agreement(table, ["a", "b"], MODEL, ["neg", "pos"]).lines()
    assert any(line.startswith("b vs model") and "0.333" in line for line in lines)
    assert any(line.startswith("all annotators") and "0.389" in line for line in lines)


def test_clear_errors(tmp_path):
    from explorer.core.predict.reading import PredictDataError

    table = load_predictions(_predictions(tmp_path / "p.csv"))
    with pytest.raises(PredictDataError, match="'z' is not in"):
        annotator_agreement(table, ["a", "z"], MODEL)
    with pytest.raises(PredictDataError, match="at least two"):
        annotator_agreement(table, ["a"], MODEL)


def test_cli_predict_prints_the_table_and_refuses_a_missing_column(tmp_path):
    from helpers import REPO_ROOT, run_cli, save_tiny_model, worker_env

    ckpt = save_tiny_model(tmp_path / "ckpt", "classification", num_labels=2)
    cfg = json.loads((ckpt / "config.json").read_text())
    cfg["id2label"], cfg["label2id"] = {"0": "neg", "1": "pos"}, {"neg": 0, "pos": 1}
    (ckpt / "config.json").write_text(json.dumps(cfg))
    data = tmp_path / "new.csv"
    with open(data, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["text", "a", "b"])
        for i in range(6):
            w.writerow([f"a good model {i}", A[i], B[i]])
    out = tmp_path / "out.csv"
    base = [sys.executable, "-m", "explorer", "predict", "--model", str(ckpt), "--data", str(data), "--out", str(out)]
    bad = run_cli(base[3:] + ["--annotator-columns", "a,zz"])   # in this process; the entry point below
    assert bad.returncode == 2 and "--annotator-columns: 'zz' is not a column" in bad.stderr and not out.exists()
    p = subprocess.run(base + ["--annotator-columns", "a,b"], capture_output=True, text=True, env=worker_env(),
                       cwd=REPO_ROOT, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    from explorer.core.metrics.significance import cohen_kappa, krippendorff_alpha

    predicted = load_predictions(out).column("predicted_label")
    kappa = cohen_kappa(A, predicted)
    shown = "-" if math.isnan(kappa) else f"{kappa:.3f}"
    assert "annotator agreement (a, b;" in p.stdout
    assert any(line.split()[:3] == ["a", "vs", "model"] and line.split()[-2] == shown for line in p.stdout.splitlines())
    assert f"{krippendorff_alpha({'a': A, 'b': B}):.3f}" in p.stdout
    assert Review.load(out).annotator_columns == ["a", "b"]      # the Predictions page shows the same table



def test_cli_annotator_columns_are_positions_of_a_file_read_as_a_headerless_run_read_its_data(tmp_path, capsys):
    """A run trained without a header row: `predict --annotator-columns 2,3` names columns by position, as the
    predictions are read (the check read the first row as a header and refused "'2' is not a column")."""
    from helpers import save_tiny_model

    from explorer.cli import main

    run = tmp_path / "runs" / "run1"
    ckpt = save_tiny_model(run / "checkpoints" / "best", "classification", num_labels=2)
    cfg = json.loads((ckpt / "config.json").read_text())
    cfg["id2label"], cfg["label2id"] = {"0": "neg", "1": "pos"}, {"neg": 0, "pos": 1}
    (ckpt / "config.json").write_text(json.dumps(cfg))
    (run / "config.json").write_text(json.dumps({"task": "single", "no_header": True, "text_columns": ["1"],
                                                 "train": "", "dev": "", "output_dir": str(run.parent)}))
    data = tmp_path / "new.csv"
    with open(data, "w", newline="") as fh:
        csv.writer(fh).writerows([f"a good model {i}", A[i], B[i]] for i in range(6))
    out = tmp_path / "out.csv"
    assert main(["predict", "--model", str(ckpt), "--data", str(data), "--out", str(out),
                 "--annotator-columns", "2,3"]) == 0
    assert "annotator agreement (2, 3;" in capsys.readouterr().out

def test_predictions_page_shows_the_table(qtbot, tmp_path):
    from PySide6.QtCore import Qt

    from explorer.ui.inspectors.predictions_view import PredictionsView

    path = _predictions(tmp_path / "p.csv")
    page = PredictionsView()
    qtbot.addWidget(page)
    page.open(path, {"out": str(path), "kind": "classification", "label_names": ["neg", "pos"],
                     "input_columns": ["text", "a", "b", "c"], "text_columns": ["text"]})
    assert page.annotator_table.rowCount() == 0 and "Tick two or more" in page.annotator_note.text()
    items = {page.annotator_list.item(i).text(): page.annotator_list.item(i) for i in range(page.annotator_list.count())}
    assert set(items) == {"a", "b", "c"}
    items["a"].setCheckState(Qt.CheckState.Checked)
    assert page.annotator_table.rowCount() == 0 and "at least one more" in page.annotator_note.text()
    items["b"].setCheckState(Qt.CheckState.Checked)
    cells = [[page.annotator_table.item(r, c).text() for c in range(4)] for r in range(page.annotator_table.rowCount())]
    assert cells == [["a vs model", "Cohen's κ", "1.000", "6"], ["b vs model", "Cohen's κ", "0.333", "6"],
                     ["a vs b", "Cohen's κ", "0.333", "6"], ["all annotators", "Krippendorff's α", "0.389", "6"]]
    assert Review.load(path).annotator_columns == ["a", "b"]       # saved with the review, restored on reopening
    again = PredictionsView()
    qtbot.addWidget(again)
    again.open(path)
    assert again.annotator_table.rowCount() == 4
