"""`group --cv K` (explorer/core/studies/cv_runs.py): folds written once, members trained through `train`, one
out-of-fold prediction per example in predict's format, the spread and the pooled figures by hand."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from explorer.core.studies import cv_runs
from explorer.core.studies import groups
from explorer.core.specs.train_config import TrainConfig

WORDS = ["red", "blue", "green", "cat", "dog", "runs", "sleeps", "fast", "slow", "big", "small", "tree"]


def _write_table(path, n=12, groups_of=None):
    """n rows id,author,sentence,label with unique sentences, labels alternating pos / neg."""
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "author", "sentence", "label"])
        for i in range(n):
            words = " ".join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(3 + i % 4))
            author = groups_of(i) if groups_of else f"a{i}"
            w.writerow([f"r{i:02d}", author, f"{words} number {i}", "pos" if i % 2 else "neg"])
    return path


def _rows(path):
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_cli_cv_predicts_every_row_once_out_of_fold_and_summarises_by_hand(tmp_path, monkeypatch):
    """``group --cv 3`` in this process (helpers.run_cli; test_groups runs the group entry point in a child
    process); its members train in child processes with the environment a worker gets. No --batch-size: the
    held-out folds are predicted at the default batch (a train flag not given is absent from the arguments)."""
    from helpers import REPO_ROOT, run_cli, save_tiny_model, worker_env

    for name, value in worker_env().items():   # what the members inherit, as from a `group` child process
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(REPO_ROOT)

    model = save_tiny_model(tmp_path / "enc", "classification")
    data = _write_table(tmp_path / "data.csv")
    runs = tmp_path / "runs"
    cmd = ["group", "--group", "cv", "--cv", "3", "--model", str(model),
           "--task", "single", "--train", str(data), "--text-columns", "sentence", "--label-column", "label",
           "--id-column", "id", "--max-steps", "3", "--learning-rate", "0.05",
           "--max-seq-length", "24", "--output-dir", str(runs)]
    p = run_cli(cmd)
    assert p.returncode == 0, p.stderr[-3000:]
    folder = runs / ".groups" / "cv"
    group = groups.load_group_file(folder / "group.json")
    assert group.kind == "cv" and [m.params["fold"] for m in group.members] == [1, 2, 3]

    # every input row exactly once, in input order, in predict's format plus its fold
    source = _rows(data)
    oof = _rows(folder / cv_runs.OOF_FILE)
    assert [r["id"] for r in oof] == [r["id"] for r in source]
    assert {"predicted_label", "p_neg", "p_pos", "margin", "error", "fold"} <= set(oof[0])
    plan = json.loads((folder / cv_runs.FOLDS_FILE).read_text())
    assert [int(r["fold"]) for r in oof] == plan["fold"] and sorted(set(plan["fold"])) == [1, 2, 3]

    # no row in its own fold's training set; each member trained on exactly the other folds
    for m in group.members:
        config = json.loads((runs / m.run_id / "config.json").read_text())
        train_ids = {r["id"] for r in _rows(config["train"])}
        dev_ids = [r["id"] for r in _rows(config["dev"])]
        fold = m.params["fold"]
        assert not train_ids & set(dev_ids)
        assert dev_ids == [r["id"] for r in oof if int(r["fold"]) == fold]
        assert train_ids == {r["id"] for r in oof if int(r["fold"]) != fold}

    # the spread across folds: mean, sd and t interval of each member's last evaluation, by hand
    finals = []
    for m in group.members:
        events = [json.loads(line) for line in (runs / m.run_id / "events.jsonl").read_text().splitlines() if line]
        finals.append([e for e in events if e.get("event") == "eval"][-1]["metrics"]["accuracy"] * 100)
    mean, sd = float(np.mean(finals)), float(np.std(finals, ddof=1))
    assert f"final accuracy (%): {mean:.4f} ± {sd:.4f}" in p.stdout
    if sd > 0:
        from scipy.stats import t
        half = t.ppf(0.975, 2) * sd / math.sqrt(3)
        low = f"{mean - half:.4f}" if mean - half >= 0 else "0.0000 (clipped)"   # an accuracy is 0..100 %
        high = f"{mean + half:.4f}" if mean + half <= 100 else "100.0000 (clipped)"
        assert f"95% t interval of the mean: {low} to {high} (n 3)" in p.stdout

    # the pooled out-of-fold figures, by hand from the file
    gold = [r["label"] for r in source]
    acc = 100 * np.mean([o["predicted_label"] == g for o, g in zip(oof, gold)])
    pooled = json.loads((folder / cv_runs.OOF_METRICS_FILE).read_text())
    assert pooled["metrics"]["accuracy"] == pytest.approx(acc) and pooled["n"] == 12
    f1s = []
    for c in ("neg", "pos"):
        tp = sum(o["predicted_label"] == c and g == c for o, g in zip(oof, gold))
        fp = sum(o["predicted_label"] == c and g != c for o, g in zip(oof, gold))
        fn = sum(o["predicted_label"] != c and g == c for o, g in zip(oof, gold))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    assert pooled["metrics"]["macro_f1"] == pytest.approx(100 * np.mean(f1s))
    assert f"accuracy (%) {acc:.2f}" in p.stdout and "pooled out-of-fold (n 12" in p.stdout

    # the TF-IDF baseline on the same folds, by hand with scikit-learn, against the pooled predictions
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    base_pred = [None] * 12
    for m in group.members:
        config = json.loads((runs / m.run_id / "config.json").read_text())
        tr, dv = _rows(config["train"]), _rows(config["dev"])
        ref = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True),
                            LogisticRegression(max_iter=1000, random_state=0))
        ref.fit([r["sentence"] for r in tr], [r["label"] for r in tr])
        index = {r["id"]: i for i, r in enumerate(source)}
        for r, pred in zip(dv, ref.predict([r["sentence"] for r in dv])):
            base_pred[index[r["id"]]] = pred
    baseline = json.loads((folder / "oof_baseline.json").read_text())
    assert baseline["figures"]["baseline"]["accuracy"] == pytest.approx(np.mean(np.array(base_pred) == np.array(gold)))
    assert baseline["figures"]["model"]["accuracy"] == pytest.approx(acc / 100)
    assert "against a TF-IDF + logistic regression baseline on the same folds (n 12)" in p.stdout
    assert f"(n 12 dev rows of {data.name}, each row predicted by the fold that held it out;" in p.stdout

    # the same command again: folds, fold files and predictions reused, no member trained again
    stamps = {f: f.stat().st_mtime_ns for f in (folder / "folds").iterdir()}
    stamps[folder / cv_runs.FOLDS_FILE] = (folder / cv_runs.FOLDS_FILE).stat().st_mtime_ns
    again = run_cli(cmd)
    assert again.returncode == 0, again.stderr[-3000:]
    assert again.stderr.count("already done; kept") == 3 and "starting" not in again.stderr
    assert {f: f.stat().st_mtime_ns for f in stamps} == stamps
    assert _rows(folder / cv_runs.OOF_FILE) == oof


def test_group_column_keeps_each_author_in_one_fold(tmp_path):
    data = _write_table(tmp_path / "d.csv", n=18, groups_of=lambda i: f"author{i // 3}")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label", seed=3)
    group, configs, cvdata, folds = cv_runs.plan_cv(base, tmp_path, "g", 3, "author")
    cv_runs.write_folds(groups.group_dir(tmp_path, "g"), cvdata, folds, 3, 3, "author")
    for c in configs:
        train_authors = {r["author"] for r in _rows(c.train)}
        dev_authors = {r["author"] for r in _rows(c.dev)}
        assert dev_authors and not train_authors & dev_authors
        assert c.label_names == ["neg", "pos"] and c.num_labels == 2 and c.encoding == ""
    plan = cv_runs.read_folds(groups.group_dir(tmp_path, "g"))
    assert plan.grouping == "author" and len(plan.fold) == 18


def test_squad_folds_are_whole_articles(tmp_path):
    from helpers import write_tiny_squad

    data = write_tiny_squad(tmp_path / "sq.json", repeat=1)
    titles = [a["title"] for a in json.loads(data.read_text())["data"]]
    k = min(3, len(set(titles)))
    base = TrainConfig(task="squad_v2", train=str(data))
    group, configs, cvdata, folds = cv_runs.plan_cv(base, tmp_path, "sq", k)
    cv_runs.write_folds(groups.group_dir(tmp_path, "sq"), cvdata, folds, k, 0, "")
    for c in configs:
        train = {a["title"] for a in json.loads(open(c.train).read())["data"]}
        dev = {a["title"] for a in json.loads(open(c.dev).read())["data"]}
        assert dev and not train & dev and train | dev == set(titles)


def test_cv_refuses_what_it_cannot_fold(tmp_path):
    data = _write_table(tmp_path / "d.csv")
    with pytest.raises(cv_runs.CrossValidationError, match="leave out --dev"):
        cv_runs.load_cv_data(TrainConfig(task="single", train=str(data), dev=str(data)))
    with pytest.raises(cv_runs.CrossValidationError, match="--task single, pair"):
        cv_runs.load_cv_data(TrainConfig(task="regression", train=str(data)))
    with pytest.raises(cv_runs.CrossValidationError, match="local file"):
        cv_runs.load_cv_data(TrainConfig(task="single", train="glue::mrpc"))


def test_groups_tab_shows_the_folds_spread_and_the_pooled_figures(qtbot, tmp_path):
    from test_groups import _fake_run

    from explorer.ui.groups.tabs import GroupsTab

    data = _write_table(tmp_path / "d.csv")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label")
    group, configs, cvdata, folds = cv_runs.plan_cv(base, tmp_path, "cvg", 3)
    groups.write_group(tmp_path, group)
    cv_runs.write_folds(groups.group_dir(tmp_path, "cvg"), cvdata, folds, 3, 0, "")
    for member, acc in zip(group.members, (0.5, 0.75, 0.25)):
        _fake_run(tmp_path, member.run_id, [(0, 0.4), (3, acc)], task="single")
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("cvg")
    text = tab.view.summary.text()
    assert "3-fold cross-validation of d.csv" in tab.view.title.text()
    assert "final accuracy (%): 50.00 ± 25.00" in text            # (50, 75, 25): mean 50, sd 25
    # t_{0.975, 2} * sd / sqrt(3) = 62.1 runs past both ends of an accuracy: clipped to 0 and 100, and said
    assert "95% interval 0.00 (clipped) to 100.00 (clipped) (n 3)" in text
    assert "pooled out-of-fold: not yet" in text
    pooled = cv_runs.OofResult(groups.group_dir(tmp_path, "cvg") / cv_runs.OOF_FILE, 12, 3, 3,
                               {"accuracy": 58.33, "macro_f1": 57.14})
    (groups.group_dir(tmp_path, "cvg") / cv_runs.OOF_METRICS_FILE).write_text(json.dumps(pooled.to_dict()))
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("cvg")
    text = tab.view.summary.text()
    assert "pooled out-of-fold (n 12, each example predicted once, 3 of 3 folds): accuracy (%) 58.33, " \
           "macro F1 (%) 57.14" in text and "oof_predictions.csv" in text
    report = tab.view.export_report(tmp_path / "report")
    md = (report / "report.md").read_text()
    assert "- pooled out-of-fold (n 12, each example predicted once, 3 of 3 folds): accuracy (%) 58.33" in md
    assert md.index("pooled out-of-fold") < md.index("## Runs")


def test_out_of_fold_prediction_reports_rows_over_all_folds_and_cancel_keeps_the_folds_done(tmp_path):
    """The Groups page's out-of-fold step: progress over the k folds' held-out rows; a cancel between batches
    stops it and the folds predicted before stay cached for the next try."""
    from explorer.core.errors import Cancelled
    from explorer.core.runs.layout import INFO_FILE

    data = _write_table(tmp_path / "d.csv")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       output_dir=str(tmp_path))
    group, _configs, _ = cv_runs.start_cv_group(base, tmp_path, "cvg", 3)
    for member in group.members:
        last = tmp_path / member.run_id / "checkpoints" / "last"
        last.mkdir(parents=True)
        (last / INFO_FILE).write_text("{}", encoding="utf-8")
    calls, reports, stop = [], [], []

    def predict(ckpt, dev, out, *, progress=None, cancelled=None, **_kwargs):
        calls.append(dev)
        rows = _rows(dev)
        for done in range(1, len(rows) + 1):   # one row a batch
            progress(done, len(rows))
            if len(calls) == 2 and done == 2:
                stop.append(True)              # the user presses Cancel during the second fold
            if cancelled():
                raise Cancelled()
        with open(out, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "predicted_label", "p_neg", "p_pos"])
            w.writerows([r["id"], r["label"], 0.5, 0.5] for r in rows)

    with pytest.raises(Cancelled):
        cv_runs.collect_oof(tmp_path, group, predict=predict, progress=lambda d, n: reports.append((d, n)),
                            cancelled=lambda: bool(stop))
    plan = cv_runs.read_folds(groups.group_dir(tmp_path, "cvg"))
    first = len(plan.folds()[0].dev)
    assert reports[:first] == [(d, 12) for d in range(1, first + 1)]       # fold 1's rows of all 12
    assert reports[first] == (first, 12) and reports[-1] == (first + 2, 12)   # fold 2 goes on from there
    assert cv_runs.fold_predictions_path(groups.group_dir(tmp_path, "cvg"), 0).is_file()   # fold 1 kept
    calls.clear()
    stop.clear()
    result = cv_runs.collect_oof(tmp_path, group, predict=predict, progress=lambda d, n: reports.append((d, n)),
                                 cancelled=lambda: False)
    assert len(calls) == 2 and result.folds_done == 3 and reports[-1] == (12, 12)   # fold 1 from the cache


def test_a_group_name_message_is_checked_again_as_the_name_is_typed(qtbot, tmp_path):
    """Queue with a name that is no plain folder name says "group name 'fin/cv' must be …"; typing a valid name
    clears it (it stayed beside the valid name), typing an invalid one says what is wrong with that one."""
    from explorer.core.studies.groups import GroupError
    from explorer.ui.groups.tabs import GroupsTab

    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    base = TrainConfig(task="single", train=str(tmp_path / "d.csv"), text_columns=["sentence"], label_column="label")
    qtbot.keyClicks(tab.group_name, "fin/cv")
    with pytest.raises(GroupError) as exc:
        tab.plan_group("restarts", base)
    tab.message.setText(str(exc.value))   # as the Groups page's queue buttons show it
    assert tab.message.text().startswith("group name 'fin/cv' must be a plain folder name")
    tab.group_name.clear()
    qtbot.keyClicks(tab.group_name, "fincv")
    assert tab.message.text() == ""
    qtbot.keyClicks(tab.group_name, " x")
    assert tab.message.text().startswith("group name 'fincv x' must be")


def test_pooled_out_of_fold_line_gives_the_groups_ranking_metric_f_avg_first(tmp_path):
    """A group whose runs report F_avg over their F1 classes pools F_avg too, by the runs' own rule
    (classification_metrics' f_avg over the same classes), and its pooled line names it first."""
    from explorer.core.metrics.glue import classification_metrics
    from explorer.core.runs.layout import INFO_FILE

    data = _write_table(tmp_path / "d.csv")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       output_dir=str(tmp_path), f1_classes=["pos"])
    group, _configs, _ = cv_runs.start_cv_group(base, tmp_path, "cvg", 3)
    for member in group.members:
        last = tmp_path / member.run_id / "checkpoints" / "last"
        last.mkdir(parents=True)
        (last / INFO_FILE).write_text("{}", encoding="utf-8")

    def predict(ckpt, dev, out, **_kwargs):   # says "pos" for every third row: right and wrong on both classes
        with open(out, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "predicted_label", "p_neg", "p_pos"])
            for r in _rows(dev):
                pos = int(r["id"][1:]) % 3 == 0
                w.writerow([r["id"], "pos" if pos else "neg", 0.2 if pos else 0.8, 0.8 if pos else 0.2])

    result = cv_runs.collect_oof(tmp_path, group, predict=predict)
    gold = np.array([i % 2 for i in range(12)])                     # neg, pos alternating: ids 0 (neg), 1 (pos)
    said = np.array([[0.2, 0.8] if i % 3 == 0 else [0.8, 0.2] for i in range(12)])
    by_hand = classification_metrics(gold, np.log(said), label_names=["neg", "pos"], f1_classes=["pos"])
    assert result.metrics["f_avg"] == pytest.approx(100 * by_hand["f_avg"])
    assert result.text("single", first="f_avg").startswith(
        f"pooled out-of-fold (n 12, each example predicted once, 3 of 3 folds): F_avg (%) {100 * by_hand['f_avg']:.2f}, "
        "accuracy (%)")


def test_folds_start_from_the_model_a_run_checkpoint_started_from(tmp_path):
    """Cross-validating with a run's checkpoint in the Launch tab (set there by Fine-tune on reviewed rows, a
    checkpoint trained on rows of this very table): every fold starts from the model the runs started from, and
    the note says so; a folder that is no run's checkpoint is kept."""
    from explorer.core.runs.layout import CONFIG_FILE

    data = _write_table(tmp_path / "d.csv", n=24)
    runs = tmp_path / "runs"
    first, reviewed = runs / "stance", runs / "stance-reviewed"
    for run, model in ((first, "bundled:minilm"), (reviewed, str(first / "checkpoints" / "best"))):
        (run / "checkpoints" / "best").mkdir(parents=True)
        (run / CONFIG_FILE).write_text(json.dumps({"model": model, "train": str(data)}), encoding="utf-8")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       model=str(reviewed / "checkpoints" / "best"))
    _group, configs, note = cv_runs.start_cv_group(base, runs, "cvg", 3)
    assert {c.model for c in configs} == {"bundled:minilm"}
    assert ("each fold starts from bundled:minilm (the model stance started from), not from stance-reviewed's "
            "checkpoint") in note
    elsewhere = tmp_path / "saved-model"
    elsewhere.mkdir()
    assert cv_runs.fold_start_model(str(elsewhere)) == (str(elsewhere), "")


def test_folds_save_checkpoints_even_when_the_base_settings_turn_them_off(tmp_path):
    """Each fold's held-out rows are predicted with its checkpoints/last: a cross-validation planned with Save
    checkpoints off saves them in every fold and says why, or its pooled figure would never come."""
    data = _write_table(tmp_path / "d.csv", n=12)
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       model="bundled:minilm", save_checkpoints=False)
    _group, configs, note = cv_runs.start_cv_group(base, tmp_path / "runs", "cvg", 3)
    assert [c.save_checkpoints for c in configs] == [True, True, True]
    assert "each fold saves its checkpoints although Save checkpoints is off" in note
    on = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                     model="bundled:minilm")
    assert "Save checkpoints" not in cv_runs.start_cv_group(on, tmp_path / "runs", "cvh", 3)[2]


def test_the_folds_split_the_rows_the_train_cap_keeps(tmp_path):
    """A Launch form with Train cap 12 on a 30-row table: the folds split the same stratified 12 rows a run with
    that cap trains on (core.data.sample.capped_rows_of), each fold trains on all of its train file, every kept
    row is predicted once, and the note and the dialog's sentence say so."""
    from explorer.core.data.classification import load_classification
    from explorer.core.data.sample import capped_rows_of

    data = _write_table(tmp_path / "d.csv", n=30)
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       model="bundled:minilm", train_cap=12, seed=7)
    group, configs, note = cv_runs.start_cv_group(base, tmp_path / "runs", "cvg", 3)
    whole = load_classification(str(data), text_columns=["sentence"], label_column="label")
    kept = [_rows(data)[i]["id"] for i in capped_rows_of(whole, 12, base.dev_split_seed())]
    plan = cv_runs.read_folds(groups.group_dir(tmp_path / "runs", "cvg"))
    assert plan.n == 12 and len(set(plan.fold)) == 3
    assert sorted(r["id"] for c in configs for r in _rows(c.dev)) == sorted(kept)
    assert [c.train_cap for c in configs] == [0, 0, 0] and group.cv["train_cap"] == 12
    assert note.startswith("12 examples (Train cap 12 of 30 rows), fold sizes 4, 4, 4")
    said = cv_runs.cv_cap_note(base)
    assert said.startswith("Train cap 12: the folds split the same stratified 12 training rows") and "seed 7" in said
    assert cv_runs.cv_cap_note(TrainConfig(task="single", train=str(data))) == ""


def test_a_fold_run_without_checkpoints_is_named_as_never_predicted(tmp_path):
    """A fold that ran with checkpoints off (a group made before folds kept them) is said to need a re-run,
    not to be waiting for a checkpoint that never comes."""
    from explorer.core.runs.layout import CONFIG_FILE

    data = _write_table(tmp_path / "d.csv", n=12)
    runs = tmp_path / "runs"
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       model="bundled:minilm")
    group, configs, _ = cv_runs.start_cv_group(base, runs, "cvg", 3)
    for i, c in enumerate(configs):
        (runs / c.run_id).mkdir(parents=True)
        (runs / c.run_id / CONFIG_FILE).write_text(json.dumps({"save_checkpoints": i != 1}), encoding="utf-8")
    result = cv_runs.collect_oof(runs, group, predict=lambda *a, **k: pytest.fail("nothing to predict"))
    assert result.metrics in (None, {}) and result.folds_done == 0
    assert result.notes[1] == ("cvg-02 ran with Save checkpoints off, so fold 2's held-out rows cannot be predicted: "
                               "re-run that fold with checkpoints on")
    assert result.notes[0] == "cvg-01: no complete checkpoints/last yet; fold 1 not predicted"


def _write_rare_table(path, n=12):
    """n rows alternating pos / neg, then 1 row of sad|disgust|angry and 2 of sad|angry (classes of 1 and 2 rows)."""
    _write_table(path, n=n)
    with open(path, "a", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        for i, label in enumerate(["sad|disgust|angry", "sad|angry", "sad|angry"]):
            w.writerow([f"x{i}", f"b{i}", f"rare words {i}", label])
    return path


def test_classes_with_fewer_rows_than_folds_are_folded_and_named_in_the_note_summary_and_report(tmp_path):
    """A table whose classes have 1 and 2 rows is cross-validated with 3 folds (each rare row held out once, in as
    many folds as its class has rows); the note, the group's summary and its report name the classes; the pooled
    macro F1 averages over the classes in the gold labels or the predictions, as scikit-learn's."""
    from sklearn.metrics import f1_score

    from explorer.commands.group import summary_lines
    from explorer.core.studies.group_stats import group_table
    from explorer.core.studies.reports import write_group_report
    from explorer.core.runs.layout import INFO_FILE

    data = _write_rare_table(tmp_path / "d.csv")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       id_column="id", output_dir=str(tmp_path))
    group, configs, note = cv_runs.start_cv_group(base, tmp_path, "rare", 3)
    said = ("sad|disgust|angry has 1 row and sad|angry 2, fewer than the 3 folds: they are held out in only 1 and 2 "
            "of the 3 folds;")
    assert said in note and note.startswith("15 examples, fold sizes 5, 5, 5; ")
    assert groups.load_group_file(groups.group_dir(tmp_path, "rare") / "group.json").cv["rare_classes"] == \
        {"sad|angry": 2, "sad|disgust|angry": 1}
    held = [[r["label"] for r in _rows(c.dev)] for c in configs]
    assert sorted(d.count("sad|disgust|angry") for d in held) == [0, 0, 1]
    assert sorted(d.count("sad|angry") for d in held) == [0, 1, 1]
    assert all(c.label_names == ["neg", "pos", "sad|angry", "sad|disgust|angry"] for c in configs)

    for member in group.members:
        last = tmp_path / member.run_id / "checkpoints" / "last"
        last.mkdir(parents=True)
        (last / INFO_FILE).write_text("{}", encoding="utf-8")
    names = ["neg", "pos", "sad|angry", "sad|disgust|angry"]

    def predict(ckpt, dev, out, **_kwargs):   # "pos" for ids ending in an odd digit, else "neg"; never a rare class
        with open(out, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "predicted_label"] + [f"p_{c}" for c in names])
            for r in _rows(dev):
                pos = int(r["id"][-1]) % 2 == 1
                w.writerow([r["id"], "pos" if pos else "neg", 0.1 if pos else 0.7, 0.7 if pos else 0.1, 0.1, 0.1])

    result = cv_runs.collect_oof(tmp_path, group, predict=predict)
    source = _rows(data)
    gold = [r["label"] for r in source]
    said_by = ["pos" if int(r["id"][-1]) % 2 == 1 else "neg" for r in source]
    assert result.n == 15 and result.metrics["macro_f1"] == pytest.approx(100 * f1_score(gold, said_by, average="macro"))
    # each fold's own macro F1 (its run's dev metric, the same classification_metrics) over the classes in its
    # held-out rows or its predictions: a rare class absent from a fold does not count there as F1 0
    from explorer.core.metrics.glue import classification_metrics

    for c in configs:
        dev = _rows(c.dev)
        ids = np.array([names.index(r["label"]) for r in dev])
        probs = np.array([[0.1, 0.7, 0.1, 0.1] if int(r["id"][-1]) % 2 == 1 else [0.7, 0.1, 0.1, 0.1] for r in dev])
        fold = classification_metrics(ids, np.log(probs), label_names=names)
        assert fold["macro_f1"] == pytest.approx(f1_score(ids, probs.argmax(axis=1), average="macro"))

    lines = summary_lines(tmp_path, "rare")
    assert any(said in line for line in lines)
    loaded, members, _ = groups.load_group_data(tmp_path, "rare")
    write_group_report(tmp_path / "report", loaded, members, group_table(members, list(loaded.varied)),
                       pooled=result)
    assert said in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    # each fold's macro F1 averages over the classes its held-out rows hold, the pooled one over all 4: both named
    held_classes = sorted(len({r["label"] for r in _rows(c.dev)}) for c in configs)
    assert sorted(result.fold_classes) == held_classes and result.classes == 4 and held_classes[0] < 4
    span = f"{held_classes[0]}" if held_classes[0] == held_classes[-1] else f"{held_classes[0]} to {held_classes[-1]}"
    differ = f"(per fold: macro over the {span} classes each fold's dev part holds; pooled: over all 4 classes)"
    assert result.text("single").endswith(differ)
    assert differ in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert cv_runs.read_oof(tmp_path, "rare").class_note() == differ[1:-1]


def test_group_cv_plans_a_table_with_a_one_row_class_and_says_so_by_name(tmp_path):
    """`group --cv 2 --plan-only` on a table with a 1-row class: planned, and the class named on stderr."""
    from helpers import run_cli

    data = _write_rare_table(tmp_path / "d.csv")
    p = run_cli(["group", "--group", "rare2", "--cv", "2", "--plan-only", "--task", "single", "--train", str(data),
                 "--text-columns", "sentence", "--label-column", "label", "--output-dir", str(tmp_path / "runs")])
    assert p.returncode == 0, p.stderr[-2000:]
    assert "group rare2: 15 examples, fold sizes 8, 7; sad|disgust|angry has 1 row, fewer than the 2 folds: it is " \
           "held out in only 1 of the 2 folds;" in p.stderr
    assert p.stdout.count("bert-explorer train --config") == 2


def test_group_cv_with_f1_classes_writes_members_that_pick_their_best_by_f_avg(tmp_path):
    """`group --cv` with --f1-classes and "Best checkpoint by" left automatic: each member's config picks
    checkpoints/best by F_avg, as the launcher's runs with F1 classes do (accuracy picked them)."""
    from helpers import run_cli

    from explorer.core.specs.tasks import best_metric_name

    data = _write_table(tmp_path / "d.csv")
    p = run_cli(["group", "--group", "fav", "--cv", "2", "--plan-only", "--task", "single", "--train", str(data),
                 "--text-columns", "sentence", "--label-column", "label", "--f1-classes", "pos",
                 "--output-dir", str(tmp_path / "runs")])
    assert p.returncode == 0, p.stderr[-2000:]
    configs = sorted((tmp_path / "runs" / ".groups" / "fav" / "configs").glob("*.json"))
    assert len(configs) == 2
    assert [best_metric_name(json.loads(c.read_text(encoding="utf-8"))) for c in configs] == ["f_avg", "f_avg"]


def test_groups_page_names_the_classes_held_out_in_only_some_folds(qtbot, tmp_path):
    from explorer.ui.groups.tabs import GroupsTab

    data = _write_rare_table(tmp_path / "d.csv")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label")
    cv_runs.start_cv_group(base, tmp_path, "rarecv", 3)
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("rarecv")
    assert "sad|disgust|angry has 1 row and sad|angry 2, fewer than the 3 folds: they are held out in only 1 and 2 " \
           "of the 3 folds;" in tab.view.summary.text()


def test_groups_page_names_the_classes_the_fold_and_the_pooled_macro_f1_average_over(qtbot, tmp_path):
    """The pooled figures of a group whose folds hold fewer classes than the table say so beside the figures, also
    when oof_metrics.json was written without the class counts (they are counted from folds.json)."""
    import json

    from explorer.core.studies.groups import group_dir
    from explorer.ui.groups.tabs import GroupsTab

    data = _write_rare_table(tmp_path / "d.csv")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label")
    cv_runs.start_cv_group(base, tmp_path, "rarecv", 3)
    plan = cv_runs.read_folds(group_dir(tmp_path, "rarecv"))
    per_fold, total = cv_runs.fold_class_counts(plan)
    assert total == 4 and min(per_fold) < 4
    older = {"path": None, "n": 15, "k": 3, "folds_done": 3, "metrics": {"macro_f1": 20.64, "accuracy": 56.77},
             "notes": []}
    (group_dir(tmp_path, "rarecv") / cv_runs.OOF_METRICS_FILE).write_text(json.dumps(older), encoding="utf-8")
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("rarecv")
    span = f"{min(per_fold)}" if min(per_fold) == max(per_fold) else f"{min(per_fold)} to {max(per_fold)}"
    assert (f"(per fold: macro over the {span} classes each fold's dev part holds; pooled: over all 4 classes)"
            in tab.view.summary.text())


def test_folds_that_all_predict_one_class_for_every_row_are_said_in_words(qtbot, tmp_path):
    """Every fold's run predicts "neg" for every held-out row: the pooled figures come with one plain sentence, by
    the single run's one-class rule and advice (a larger learning rate than the folds' 2e-5), in the group's summary,
    its report and its page, also when oof_metrics.json was written without it; folds that predict both classes
    get none."""
    from explorer.commands.group import summary_lines
    from explorer.core.runs.layout import INFO_FILE
    from explorer.core.studies.group_stats import group_table
    from explorer.core.studies.groups import group_dir
    from explorer.core.studies.reports import write_group_report
    from explorer.ui.groups.tabs import GroupsTab

    data = _write_table(tmp_path / "d.csv")
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       output_dir=str(tmp_path), learning_rate=2e-5)
    group, _configs, _ = cv_runs.start_cv_group(base, tmp_path, "stuck", 3)
    for member in group.members:
        last = tmp_path / member.run_id / "checkpoints" / "last"
        last.mkdir(parents=True)
        (last / INFO_FILE).write_text("{}", encoding="utf-8")

    def predict(ckpt, dev, out, **_kwargs):   # "neg" for every row
        with open(out, "w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["id", "predicted_label", "p_neg", "p_pos"])
            for r in _rows(dev):
                w.writerow([r["id"], "neg", 0.8, 0.2])

    result = cv_runs.collect_oof(tmp_path, group, predict=predict)
    said = ("every fold predicts only 'neg' for every held-out row (the model learned nothing): try a larger "
            "learning rate, e.g. 1e-4 (this run: 2e-5), or more epochs")
    assert result.one_class == "neg" and result.one_class_note(group.base) == said
    assert f"note: {said}" in summary_lines(tmp_path, "stuck")
    loaded, members, _ = groups.load_group_data(tmp_path, "stuck")
    write_group_report(tmp_path / "report", loaded, members, group_table(members, list(loaded.varied)),
                       pooled=result)
    assert said in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    metrics_file = group_dir(tmp_path, "stuck") / cv_runs.OOF_METRICS_FILE
    older = json.loads(metrics_file.read_text(encoding="utf-8"))
    del older["one_class"]
    metrics_file.write_text(json.dumps(older), encoding="utf-8")
    assert cv_runs.read_oof(tmp_path, "stuck").one_class == "neg"
    tab = GroupsTab(tmp_path)
    qtbot.addWidget(tab)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("stuck")
    assert said.replace("'", "&#x27;") in tab.view.summary.text()

    mixed = [dict(r, p_neg=0.2 if int(r["id"][1:]) % 2 else 0.8, p_pos=0.8 if int(r["id"][1:]) % 2 else 0.2)
             for r in _rows(data)]   # both classes predicted: no such sentence
    assert cv_runs.one_class_of(cv_runs.read_folds(group_dir(tmp_path, "stuck")), mixed) == ""


def test_the_disk_k_folds_keep_is_said_from_the_models_weight_files():
    from explorer.core.studies.cv import fold_disk_line

    # 30 M parameters in fp32: last = model + AdamW state (3 x 120 MB), best = the model (120 MB)
    assert fold_disk_line(120_000_000, 5) == ("each fold keeps checkpoints/last (model + optimizer state) and "
                                              "checkpoints/best: about 480 MB per fold, 2,400 MB for 5")
    assert fold_disk_line(None, 5) == ""


def test_a_text_holding_a_lone_carriage_return_stays_one_row_in_its_folds_file(tmp_path):
    """A tweet "#tips \rhttp://…" (a CR inside a quoted field, as Sanders' corpus has): the folds' files keep it
    one row, so every fold's dev file holds, for the reader that predicts it, as many rows as folds.json gives it
    (one row read as two made "1705 predictions for 1704 dev examples" and no pooled figure)."""
    from explorer.core.predict.reading import iter_rows

    data = tmp_path / "d.csv"
    with open(data, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        w.writerow(["id", "sentence", "label"])
        for i in range(12):
            text = " ".join(WORDS[(i * 5 + j) % len(WORDS)] for j in range(3 + i % 4)) + f" number {i}"
            w.writerow([f"r{i:02d}", text + (" #tips \rhttp://t.co/x" if i == 3 else ""), "pos" if i % 2 else "neg"])
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       output_dir=str(tmp_path))
    cv_runs.start_cv_group(base, tmp_path, "cvcr", 3)
    folder = groups.group_dir(tmp_path, "cvcr")
    plan = json.loads((folder / cv_runs.FOLDS_FILE).read_text())
    texts = []
    for k in range(3):
        _info, rows = iter_rows(cv_runs.fold_files(folder, k, "table")[1])
        rows = list(rows)
        assert len(rows) == plan["fold"].count(k + 1)
        texts += [str(r.values.get("sentence")) for r in rows]
    assert sum("#tips \rhttp://t.co/x" in t for t in texts) == 1


def test_two_processes_predicting_the_same_fold_at_once_each_write_their_own_temporary_file(tmp_path, monkeypatch):
    """The app and a ``group --cv`` command may predict a fold's held-out rows at the same moment (the command's
    last fold ended as the person opened the group): each writes its own temporary file and renames it into
    place; with one shared name the first rename took the other's file away (FileNotFoundError, the command
    ended without its pooled figure)."""
    from pathlib import Path
    from types import SimpleNamespace

    from explorer.core.training import checkpoints

    ckpt = tmp_path / "run" / "checkpoints" / "last"
    ckpt.mkdir(parents=True)
    monkeypatch.setattr(checkpoints, "checkpoint_dir", lambda run_dir, kind: ckpt)
    monkeypatch.setattr(cv_runs, "fold_files", lambda folder, index, kind: (None, tmp_path / "dev.csv"))
    group_folder = tmp_path / "group"
    cv_runs.fold_predictions_path(group_folder, 1).parent.mkdir(parents=True)
    plan = SimpleNamespace(kind="table")

    def other_process_meanwhile(model, dev, out, **kw):
        Path(out).write_text("id,predicted_label\n1,pos\n")
        monkeypatch.setattr(cv_runs.os, "getpid", lambda: 2002)   # the other process, while this one predicts
        done = cv_runs.predict_fold(group_folder, plan, 1, tmp_path / "run",
                                    predict=lambda m, d, o, **k: Path(o).write_text("id,predicted_label\n1,pos\n"))
        assert done is not None and done.is_file()

    monkeypatch.setattr(cv_runs.os, "getpid", lambda: 1001)
    out = cv_runs.predict_fold(group_folder, plan, 1, tmp_path / "run", predict=other_process_meanwhile)
    assert out is not None and out.read_text() == "id,predicted_label\n1,pos\n"
    assert not list(out.parent.glob("*.tmp*"))


def _emotion_per_class(accurate: bool) -> tuple[float, dict]:
    """(accuracy, per-class table) of 300 held-out rows of classes joy (102), anger, fear (99 each): predictions
    spread over all three classes at chance (``accurate`` False: near the majority class's 34.00%), else 90% right."""
    from explorer.core.metrics.glue import per_class_metrics

    gold = np.array([0] * 102 + [1] * 99 + [2] * 99)
    rng = np.random.default_rng(0)
    if accurate:
        pred = np.where(rng.random(300) < 0.9, gold, (gold + 1) % 3)
    else:
        pred = rng.integers(0, 3, 300)
    return float(np.mean(pred == gold)), per_class_metrics(gold, pred, ["joy", "anger", "fear"])["per_class"]


def _cv_of(tmp_path, accurate: tuple[bool, ...], name: str):
    """A finished 3-class cv group written by hand, one fold run per entry of ``accurate`` (_emotion_per_class)."""
    from test_groups import _fake_run

    members = [groups.GroupMember(f"{name}-{i:02d}", 1, {"fold": i}) for i in range(1, len(accurate) + 1)]
    group = groups.Group(name=name, kind="cv", members=members, varied=["fold"], seeds=[1],
                         base=TrainConfig(task="single", learning_rate=5e-5).to_dict(),
                         cv={"k": len(accurate), "data": "table"})
    groups.write_group(tmp_path, group)
    for m, good in zip(members, accurate):
        acc, per_class = _emotion_per_class(good)
        _fake_run(tmp_path, m.run_id, [(0, 0.34), (5, acc), (10, acc)], task="single", metric="accuracy",
                  per_class=per_class)
    return group


def test_a_fold_no_better_than_the_majority_class_marks_the_group_as_learning_nothing(qtbot, tmp_path):
    """Fold 1 predicts all three classes yet scores about the majority class's 34.00% on its rows: the group's
    sentence names it with both figures in the CLI summary, the report, the Groups page and the Runs list's group
    row, which is marked; a group whose folds all learned has none of it."""
    from PySide6.QtCore import Qt

    from explorer.commands.group import summary_lines
    from explorer.core.metrics.baselines import AT_MAJORITY, one_class_note
    from explorer.core.studies.group_classes import SOME_LEARNED_NOTHING, members_class_note
    from explorer.core.studies.group_stats import group_table
    from explorer.core.studies.reports import write_group_report
    from explorer.ui.groups.view import GroupView
    from explorer.ui.runs.dock import COLUMNS
    from test_ui_runs_groups import _runs_panel

    acc, per_class = _emotion_per_class(False)
    assert one_class_note({"accuracy": acc, "per_class": per_class}).kind == AT_MAJORITY
    assert not one_class_note(dict(zip(("accuracy", "per_class"), _emotion_per_class(True))))

    _cv_of(tmp_path, (False, True, True), "weak")
    _cv_of(tmp_path, (True, True, True), "fine")
    top = max(per_class, key=lambda c: per_class[c]["predicted"])   # the class fold 1 answers most
    said = (f"fold 1 scores {100 * acc:.2f}% accuracy on the 300 rows evaluated, answering '{top}' for "
            f"{per_class[top]['predicted']} of them: no better than the 34.00% of always answering the majority class "
            "'joy' (it learned nothing, and the mean ± sd mixes it with the others)")
    group, members, notes = groups.load_group_data(tmp_path, "weak")
    note = members_class_note(group, members)
    assert note.kind == SOME_LEARNED_NOTHING and note.text.startswith(said)
    assert any(line.startswith(f"note: {said}") for line in summary_lines(tmp_path, "weak"))
    report = write_group_report(tmp_path / "report", group, members, group_table(members, list(group.varied)),
                                notes=notes)
    assert said in (report / "report.md").read_text(encoding="utf-8")
    view = GroupView()
    qtbot.addWidget(view)
    view.set_group(group, members, notes)
    assert said in view.summary.text().replace("&#x27;", "'")
    panel = _runs_panel(qtbot, tmp_path, ("weak-01", "weak-02", "weak-03", "fine-01", "fine-02", "fine-03"))
    cell = panel.model.group_index("weak").siblingAtColumn(COLUMNS.index("Best dev"))
    assert panel.model.data(cell).endswith(" !")
    assert said in panel.model.data(cell, Qt.ItemDataRole.ToolTipRole)

    assert not any("learned nothing" in line for line in summary_lines(tmp_path, "fine"))
    fine = panel.model.group_index("fine").siblingAtColumn(COLUMNS.index("Best dev"))
    assert not panel.model.data(fine).endswith(" !")
    view.set_group(*groups.load_group_data(tmp_path, "fine"))
    assert "learned nothing" not in view.summary.text()


def _stance_per_class(missing_none: bool) -> dict:
    """The per-class table of 563 held-out rows of classes AGAINST (280), FAVOR (135), NONE (148): a fold that never
    predicts 'NONE' (``missing_none``: 'AGAINST' for 402 rows, 'FAVOR' for 161; accuracy 67.50%, well above the
    majority class's 49.73%), else one that gets every row right."""
    from explorer.core.metrics.glue import per_class_metrics

    gold = np.array([0] * 280 + [1] * 135 + [2] * 148)
    pred = np.array([0] * 270 + [1] * 10 + [1] * 110 + [0] * 25 + [0] * 107 + [1] * 41) if missing_none else gold
    return per_class_metrics(gold, pred, ["AGAINST", "FAVOR", "NONE"])["per_class"]


def test_a_fold_that_never_predicts_a_class_names_the_class_it_answers_most(tmp_path):
    """A fold whose model never predicts 'NONE' says what it answers instead, from its evaluation's predicted counts,
    as the at-majority note does: 'AGAINST' for 402 of the 563 held-out rows; the group's sentence, the CLI summary
    and a single run's note carry it. An evaluation without predicted counts gets no such note (nothing is guessed)."""
    from test_groups import _fake_run

    from explorer.commands.group import summary_lines
    from explorer.core.metrics.baselines import MISSED_CLASSES, one_class_note
    from explorer.core.studies.group_classes import CLASSES_MISSED, members_class_note

    missing = _stance_per_class(True)
    assert [missing[c]["predicted"] for c in ("AGAINST", "FAVOR", "NONE")] == [402, 161, 0]
    said = "never predicts 'NONE' (148 of 563 dev rows are theirs), answering 'AGAINST' for 402 of the 563 rows"
    note = one_class_note({"accuracy": 380 / 563, "per_class": missing}, 1e-4, steps=35)
    assert note.kind == MISSED_CLASSES and note.what == said
    assert note.text.startswith(f"{said} after 35 training steps at learning rate 1e-4: train longer")
    older = {c: {k: v for k, v in row.items() if k != "predicted"} for c, row in missing.items()}
    assert not one_class_note({"accuracy": 380 / 563, "per_class": older})

    members = [groups.GroupMember(f"stance-{i:02d}", 1, {"fold": i}) for i in (1, 2, 3)]
    group = groups.Group(name="stance", kind="cv", members=members, varied=["fold"], seeds=[1],
                         base=TrainConfig(task="single", learning_rate=1e-4).to_dict(), cv={"k": 3, "data": "table"})
    groups.write_group(tmp_path, group)
    for m, stuck in zip(members, (True, False, False)):
        per_class = _stance_per_class(stuck)
        acc = 380 / 563 if stuck else 1.0
        _fake_run(tmp_path, m.run_id, [(0, 0.5), (5, acc), (10, acc)], task="single", metric="accuracy",
                  per_class=per_class)
    group, members, _notes = groups.load_group_data(tmp_path, "stance")
    note = members_class_note(group, members)
    assert note.kind == CLASSES_MISSED and note.text.startswith(f"fold 1 {said}")
    assert any(line.startswith(f"note: fold 1 {said}") for line in summary_lines(tmp_path, "stance"))


def test_pooled_out_of_fold_predictions_no_better_than_the_majority_class_are_said(tmp_path):
    """The folds predict both classes yet the pooled predictions are right on half of 40 rows, the majority class's
    share: the pooled note says both figures (also read back from oof_metrics.json); right on every row: none."""
    from explorer.commands.group import summary_lines
    from explorer.core.runs.layout import INFO_FILE

    data = _write_table(tmp_path / "d.csv", n=40)
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       output_dir=str(tmp_path), learning_rate=5e-5)
    def started(name):
        group, _configs, _ = cv_runs.start_cv_group(base, tmp_path, name, 2)
        for member in group.members:
            last = tmp_path / member.run_id / "checkpoints" / "last"
            last.mkdir(parents=True)
            (last / INFO_FILE).write_text("{}", encoding="utf-8")
        return group

    def predicting(right: bool):
        def predict(ckpt, dev, out, **_kwargs):
            with open(out, "w", encoding="utf-8", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(["id", "predicted_label", "p_neg", "p_pos"])
                for r in _rows(dev):
                    i = int(r["id"][1:])
                    pos = i % 2 == 1 if right else i % 4 < 2
                    w.writerow([r["id"], "pos" if pos else "neg", 0.3 if pos else 0.7, 0.7 if pos else 0.3])
        return predict

    group = started("chance")
    result = cv_runs.collect_oof(tmp_path, group, predict=predicting(False))
    said = ("the pooled out-of-fold predictions reach 50.00% accuracy on the 40 rows evaluated, answering 'neg' for "
            "20 of them: no better than the 50.00% of always answering the majority class")
    assert result.one_class == "" and result.one_class_note(group.base).startswith(said)
    assert cv_runs.read_oof(tmp_path, "chance").one_class_note(group.base).startswith(said)
    assert any(line.startswith(f"note: {said}") for line in summary_lines(tmp_path, "chance"))
    healthy = started("learned")   # the fold predictions are kept per group: another group predicts afresh
    assert not cv_runs.collect_oof(tmp_path, healthy, predict=predicting(True)).one_class_note(healthy.base)


def _trained_cv_group(tmp_path, name="cvt", n=12, k=3):
    """A cv group of a tiny classifier whose k members trained in this process (a few steps each, on the CPU)."""
    import contextlib
    import io

    from helpers import save_tiny_model

    from explorer.worker.train import EXIT_OK, main as train_main

    model = save_tiny_model(tmp_path / "enc", "classification")
    data = _write_table(tmp_path / "data.csv", n=n)
    runs = tmp_path / "runs"
    base = TrainConfig(model=str(model), task="single", train=str(data), text_columns=["sentence"],
                       label_column="label", id_column="id", max_steps=3, learning_rate=0.05, max_seq_length=24,
                       batch_size=4, dropout=0.0)
    group, configs, _ = cv_runs.start_cv_group(base, runs, name, k)
    for c in configs:
        path = runs / ".groups" / name / "configs" / f"{c.run_id}.json"
        with contextlib.redirect_stdout(io.StringIO()):
            assert train_main(["--config", str(path)]) == EXIT_OK
    return runs, group


def test_pooled_figure_from_the_folds_final_evaluations_runs_no_second_prediction_pass(tmp_path):
    """Every fold's final evaluation kept its held-out rows' logits and lines (dev_outputs.json), so the pooled step
    predicts nothing again, and its file and figures are those of predicting every held-out row with the folds'
    checkpoints/last (the earlier way, forced here by leaving the lines out of each run's dev_outputs.json)."""
    from explorer.core.predict.engine import predict_file
    from explorer.core.runs.layout import dev_outputs_file

    runs, group = _trained_cv_group(tmp_path)
    for m in group.members:   # the rows of the run's final evaluation, each with its line in the fold's dev file
        kept = json.loads(dev_outputs_file(runs / m.run_id).read_text())
        assert len(kept["lines"]) == len(kept["gold"]) == 4 and min(kept["lines"]) >= 2
    calls = []

    def counting(*args, **kwargs):
        calls.append(args[1])
        return predict_file(*args, **kwargs)

    stored = cv_runs.collect_oof(runs, group, predict=counting)
    assert calls == [] and stored.folds_done == 3 and stored.metrics
    folder = runs / ".groups" / group.name
    stored_rows = _rows(folder / cv_runs.OOF_FILE)

    for m in group.members:   # the earlier way: each fold's held-out rows predicted with its checkpoints/last
        path = dev_outputs_file(runs / m.run_id)
        kept = json.loads(path.read_text())
        kept.pop("lines")
        path.write_text(json.dumps(kept))
    for i in range(3):   # the fold files made from the stored rows, so that none is reused
        cv_runs.fold_predictions_path(folder, i).unlink()
    predicted = cv_runs.collect_oof(runs, group, predict=counting)
    assert len(calls) == 3
    predicted_rows = _rows(folder / cv_runs.OOF_FILE)
    assert [r["predicted_label"] for r in stored_rows] == [r["predicted_label"] for r in predicted_rows]
    assert list(stored_rows[0]) == list(predicted_rows[0])
    for a, b in zip(stored_rows, predicted_rows):
        assert {c: a[c] for c in a if not c.startswith("p_") and c != "margin"} == \
               {c: b[c] for c in b if not c.startswith("p_") and c != "margin"}
        for c in ("p_neg", "p_pos", "margin"):
            assert float(a[c]) == pytest.approx(float(b[c]), abs=1e-6)
    assert set(stored.metrics) == set(predicted.metrics)
    for name, value in predicted.metrics.items():
        assert stored.metrics[name] == pytest.approx(value, abs=1e-6), name
    assert stored.text("single") == predicted.text("single")


def _finished_fold_runs(runs, group, configs, *, finished=True, save_checkpoints=False, swap_gold=False):
    """Member run folders written by hand: config.json, events.jsonl (finished or still without an end) and
    dev_outputs.json holding each held-out row's logits (row i of the table: [0, i]) and its line in the fold's
    dev file, in another order than the file's (as a run's dev sample order puts them)."""
    from explorer.core.runs.dev_outputs import DevOutputs, write_dev_outputs
    from explorer.core.runs.layout import config_file, events_file

    plan = cv_runs.read_folds(runs / ".groups" / group.name)
    for f, c in zip(plan.folds(), configs):
        run = runs / c.run_id
        run.mkdir(parents=True)
        config = {**c.to_dict(), "save_checkpoints": save_checkpoints}
        config_file(run).write_text(json.dumps(config), encoding="utf-8")
        events = [{"event": "started", "run_id": c.run_id, "time": 1.0, "config": config}]
        if finished:
            events.append({"event": "finished", "run_id": c.run_id, "time": 2.0, "metrics": {}, "seconds": 1.0})
        events_file(run).write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        rows = list(reversed(f.dev.tolist()))
        gold = [int(plan.labels[i]) for i in rows]
        if swap_gold:
            gold = [1 - g for g in gold]
        lines = [2 + f.dev.tolist().index(i) for i in rows]   # the header is line 1
        write_dev_outputs(run, DevOutputs(kind="classes", gold=gold, logits=[[0.0, float(i)] for i in rows],
                                          label_names=list(plan.class_names), lines=lines))
    return plan


def test_a_fold_run_without_checkpoints_is_pooled_from_its_final_evaluation_in_input_order(tmp_path):
    """A finished fold run with Save checkpoints off has no checkpoints/last to predict with, yet its final
    evaluation kept every held-out row's outputs: the pooled figure comes from them, each row in its place."""
    data = _write_table(tmp_path / "d.csv", n=12)
    runs = tmp_path / "runs"
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       model="bundled:minilm")
    group, configs, _ = cv_runs.start_cv_group(base, runs, "cvs", 3)
    plan = _finished_fold_runs(runs, group, configs)
    result = cv_runs.collect_oof(runs, group, predict=lambda *a, **k: pytest.fail("nothing to predict again"))
    assert result.folds_done == 3 and result.notes == []
    oof = _rows(runs / ".groups" / "cvs" / cv_runs.OOF_FILE)
    assert [r["id"] for r in oof] == [r["id"] for r in _rows(data)]
    names = plan.class_names
    for i, r in enumerate(oof):   # logits [0, i]: class 1 wins for every row but the first, which ties (class 0)
        assert r["predicted_label"] == names[1 if i else 0] and r["error"] == ""
        assert float(r[f"p_{names[1]}"]) == pytest.approx(1 / (1 + math.exp(-i)))
    gold = [names[int(x)] for x in plan.labels]
    assert result.metrics["accuracy"] == pytest.approx(100 * np.mean([r["predicted_label"] == g
                                                                      for r, g in zip(oof, gold)]))


@pytest.mark.parametrize("case", ["not finished", "other labels"])
def test_fold_rows_that_cannot_stand_in_for_a_prediction_are_predicted_again(tmp_path, case):
    """A run that has not finished (its last evaluation may be a dev sample's or an earlier step's) or whose kept
    rows hold other labels than the fold's is predicted with its checkpoint as before (here: none, so the note)."""
    data = _write_table(tmp_path / "d.csv", n=12)
    runs = tmp_path / "runs"
    base = TrainConfig(task="single", train=str(data), text_columns=["sentence"], label_column="label",
                       model="bundled:minilm")
    group, configs, _ = cv_runs.start_cv_group(base, runs, "cvn", 3)
    _finished_fold_runs(runs, group, configs, finished=case != "not finished", save_checkpoints=True,
                        swap_gold=case == "other labels")
    result = cv_runs.collect_oof(runs, group, predict=lambda *a, **k: pytest.fail("no checkpoint to predict with"))
    assert result.folds_done == 0 and not (runs / ".groups" / "cvn" / cv_runs.OOF_FILE).exists()
    assert result.notes[0] == "cvn-01: no complete checkpoints/last yet; fold 1 not predicted"
