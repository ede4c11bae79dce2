"""The GUI of the research figures, offscreen: the Predictions page's Class shares dialog (a random review sample
drawn, its rows filtered, naive and prediction-powered shares side by side), a cross-validation group's suspected
label errors opened for review from the Runs list, and a run's replication capsule from its menu."""

from __future__ import annotations

import csv
import json

import numpy as np
from PySide6.QtWidgets import QTabBar  # noqa: F401 - the Qt widgets module loaded before the views

from explorer.core.metrics.ppi import class_shares
from explorer.ui.inspectors.components.predictions import SAMPLE_FILTER
from explorer.ui.inspectors.components.shares import COLUMNS, SharesModel
from explorer.ui.inspectors.predictions_view import PredictionsView

NAMES = ["AGAINST", "FAVOR", "NONE"]


def _stance_predictions(tmp_path, n=240, seed=0):
    """A predicted file whose model over-predicts AGAINST, with the true stance kept aside."""
    rng = np.random.default_rng(seed)
    true = rng.choice(3, n, p=[0.45, 0.3, 0.25])
    pred = np.where(rng.random(n) < 0.7, true, 0)
    path = tmp_path / "tweets-pred.csv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Tweet", "predicted_label"] + [f"p_{c}" for c in NAMES] + ["margin", "error"])
        for i in range(n):
            p = [0.1, 0.1, 0.1]
            p[pred[i]] = 0.8
            w.writerow([f"tweet number {i}", NAMES[pred[i]], *p, 0.7, ""])
    return path, [NAMES[t] for t in true]


def test_class_shares_dialog_draws_a_sample_and_shows_naive_and_corrected(qtbot, tmp_path):
    path, true = _stance_predictions(tmp_path)
    view = PredictionsView()
    qtbot.addWidget(view)
    view.resize(1280, 700)
    view.open(path, {"kind": "classification", "label_names": NAMES, "input_columns": ["Tweet"],
                     "text_columns": ["Tweet"]})
    dialog = view.show_shares()
    qtbot.addWidget(dialog)
    assert "no random sample" in dialog.status.text() and dialog.table.rowCount() == 0
    assert SAMPLE_FILTER not in [view.filter.itemText(k) for k in range(view.filter.count())]
    dialog.size.setValue(60)
    dialog.seed.setValue(3)
    dialog.draw()
    assert len(view.review.sample) == 60
    # the filter shows exactly the drawn rows; the person labels every one of them
    assert view.filter.itemText(view.filter.count() - 1) == SAMPLE_FILTER
    view.filter.setCurrentText(SAMPLE_FILTER)
    assert sorted(view.model.order.tolist()) == view.review.sample
    for i in view.review.sample:
        view.set_label(i, true[i])
    dialog.refresh()
    assert dialog.table.rowCount() == 3
    gold = [true[i] if i in set(view.review.sample) else "" for i in range(len(true))]
    expected = class_shares(view.table_data.column("predicted_label"), gold, NAMES, width=0.05)
    for r, c in enumerate(expected.classes):
        cells = [dialog.table.item(r, k).text() for k in range(len(COLUMNS))]
        assert cells[:4] == [c.label, c.naive.text(), c.gold.text(), c.corrected.text()]
    assert "60 reviewed" in dialog.status.text() and "60 of the 60" in dialog.notes.text()
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.grab().save(str(tmp_path / "shares_dialog.png"))
    # the review keeps the sample: reopening the file restores the filter entry
    again = PredictionsView()
    qtbot.addWidget(again)
    again.open(path)
    assert again.review.sample == view.review.sample
    assert SAMPLE_FILTER in [again.filter.itemText(k) for k in range(again.filter.count())]


def test_shares_model_says_what_is_missing_in_words(tmp_path):
    from explorer.core.predict.review import Review, load_predictions

    path, _ = _stance_predictions(tmp_path, n=20)
    model = SharesModel(load_predictions(path), Review(str(path), kind="classification", label_names=NAMES))
    assert model.view(2.5).rows == [] and "draw one" in model.view(2.5).status
    assert "1 to 20" in model.draw(50, 0)
    model.draw(5, 0)
    assert "at least 2 reviewed" in model.view(2.5).status


class _Window:
    """The parts of the main window the research actions use."""

    def __init__(self, qtbot):
        self.pages, self.messages, self.asked = [], [], []
        self.qtbot = qtbot

    def open_predictions(self, path):
        page = PredictionsView()
        self.qtbot.addWidget(page)
        page.open(path)
        self.pages.append(page)
        return page

    def show_message(self, text, ms=0):
        self.messages.append(text)


def test_suspected_label_errors_open_for_review_from_the_runs_list(qtbot, tmp_path):
    from test_label_issues import _cv_group

    from explorer.ui.runs.dock import RunsPanel
    from explorer.ui.runs.research_actions import open_label_issues

    _cv_group(tmp_path)
    dock = RunsPanel()
    qtbot.addWidget(dock)
    dock.runs_dir_getter = lambda: tmp_path / "runs"
    menu = dock.group_menu("cv")
    action = next(a for a in menu.actions() if a.text() == "Suspected label errors…")
    assert action.isEnabled()
    assert not next(a for a in dock.group_menu("other").actions() if a.text() == "Suspected label errors…").isEnabled()
    window = _Window(qtbot)
    page = open_label_issues(window, tmp_path / "runs", "cv")
    assert page is not None and len(page.table_data) == 2
    assert [page.model.file_row(r) for r in range(2)] == [0, 1]      # opened most suspect first
    assert "most suspect label first" in page.info.text()
    assert page.model.headers[page.view.horizontalHeader().sortIndicatorSection()] == "suspect_rank"
    assert page.review.gold_column == "label" and page.review.train_config
    assert "pos: 2 of 20 (10.0%) suspected" in window.messages[-1]
    # the page's fine-tune goes back into the group's own training file
    run_cfg, _folder, run_dir = page.state.corrections_place()
    assert run_cfg["train"].endswith("data.csv") and run_dir is None
    page.resize(1280, 500)
    page.show()
    qtbot.waitExposed(page)
    page.grab().save(str(tmp_path / "label_issues_page.png"))
    asked = []
    assert open_label_issues(window, tmp_path / "runs", "missing", ask=lambda *a: asked.append(a)) is None
    assert "label issues need a cross-validation group" in asked[0][2]
    assert "no group 'missing' in" in asked[0][2]   # a name that is not there says so, not what kind it is


def test_replication_capsule_from_the_run_menu(qtbot, tmp_path):
    from explorer.ui.runs.research_actions import write_run_capsule

    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    train = tmp_path / "train.tsv"
    train.write_text("sentence\tlabel\na\t0\nb\t1\n")
    (run / "config.json").write_text(json.dumps({"task": "single", "model": "bundled:minilm", "train": str(train),
                                                 "dev": str(train), "seed": 5, "batch_size": 4}))
    (run / "events.jsonl").write_text(
        json.dumps({"event": "started", "run_id": "r1", "time": 1.0, "config": {}, "device": "cpu"}) + "\n"
        + json.dumps({"event": "eval", "run_id": "r1", "time": 2.0, "step": 3, "epoch": 1.0,
                      "metrics": {"accuracy": 0.5, "loss": 0.69, "total": 2}}) + "\n")
    asked = []
    folder = write_run_capsule(_Window(qtbot), run, ask=lambda *a: asked.append(a))
    assert folder == run / "capsule" and (folder / "methods.md").is_file()
    assert "seed 5" in asked[0][2] and "capsule --check" in asked[0][2]
    assert write_run_capsule(_Window(qtbot), tmp_path / "nothing", ask=lambda *a: asked.append(a)) is None
    assert "no config.json" in asked[-1][2]
    # the run menu's action: on for one ended run, off for a live one or none, and it asks for the run's folder
    from types import SimpleNamespace

    from PySide6.QtWidgets import QMenu

    from explorer.ui.runs.research_actions import add_capsule_action

    requested = []
    for state, on in ((SimpleNamespace(path=run, is_live=False), True), (SimpleNamespace(path=run, is_live=True), False),
                      (None, False)):
        menu = QMenu()
        add_capsule_action(menu, state, requested.append)
        action = menu.actions()[-1]
        assert action.text() == "Replication capsule…" and action.isEnabled() is on
        if on:
            action.trigger()
    assert requested == [str(run)]


def test_groups_tab_and_report_state_the_share_of_suspected_label_errors(qtbot, tmp_path):
    from test_label_issues import _cv_group

    from explorer.core.studies.label_issues import group_label_issues
    from explorer.ui.groups.tabs import GroupsTab

    _cv_group(tmp_path)
    group_label_issues(tmp_path / "runs", "cv")
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("cv")
    qtbot.waitUntil(lambda: "suspected label errors" in tab.view.summary.text(), timeout=10_000)
    assert "pos: 2 of 20 (10.0%) suspected" in tab.view.summary.text()
    md = (tab.view.export_report(tmp_path / "report") / "report.md").read_text()
    assert "  - pos: 2 of 20 (10.0%) suspected" in md and md.index("suspected label errors") < md.index("## Runs")


def test_folds_that_learned_nothing_open_no_review_and_the_groups_page_lists_no_suspects(qtbot, tmp_path):
    """Every held-out row predicted "neg": "Suspected label errors…" says why no label can be judged instead of
    opening rows to "correct"; the Groups page and its report give that reason, no counts."""
    from test_label_issues import _cv_group

    from explorer.ui.groups.tabs import GroupsTab
    from explorer.ui.runs.research_actions import open_label_issues

    _cv_group(tmp_path, stuck=True)
    asked = []
    window = type("Window", (), {"open_predictions": lambda self, path: asked.append(("opened", path)),
                                 "show_message": lambda self, *a: None})()
    assert open_label_issues(window, tmp_path / "runs", "cv", ask=lambda *a: asked.append(a)) is None
    assert len(asked) == 1 and "no suspected label errors listed: the fold models predict only 'neg'" in asked[0][2]
    tab = GroupsTab(tmp_path / "runs")
    qtbot.addWidget(tab)
    with qtbot.waitSignal(tab.group_shown, timeout=10_000):
        tab.show_group("cv")
    qtbot.waitUntil(lambda: "suspected label errors" in tab.view.summary.text(), timeout=10_000)
    text = tab.view.summary.text().replace("&#x27;", "'")
    assert "suspected label errors: none listed: the fold models predict only 'neg'" in text
    assert "of 20" not in text and "neg: " not in text
    md = (tab.view.export_report(tmp_path / "report") / "report.md").read_text()
    assert "- suspected label errors: none listed: the fold models predict only 'neg'" in md
    assert "of 20" not in md
