"""The eleventh fresh-user trial (issue 25), first half: the launcher's Dev data preview says what a run without a
dev file does, the best checkpoint can be picked by the researcher's metric, the banner keeps its height, Classify
asks for Sentence B of a pair model and classifies on Return, Classify: dev set scores the run's own dev rows, and
a tagging run evaluates during training and prefills Tag: dev set."""

from pathlib import Path

from explorer.core.training.config import TrainConfig

STANCE = ("ID\tTarget\tTweet\tStance\n" + "".join(
    f"{i}\tAtheism\t{text} {i}\t{label}\n" for i, (text, label) in enumerate(
        [("god is not real", "AGAINST"), ("pray every day", "FAVOR"), ("the weather is nice", "NONE")] * 10)))


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _counted(w, source: str, task: str) -> None:
    """The launcher's train preview answered for ``source`` (the data check, run here rather than in its child)."""
    from explorer.ui.launch.data_preview import preview_data

    w.train_preview._token += 1
    w.train_preview._done(w.train_preview._token, preview_data(source, task))


def test_the_dev_data_preview_says_the_run_holds_out_the_dev_fraction(qtbot, tmp_path):
    """Eleventh trial (MAJOR, borderline): Single sentence, the stance file and no dev file: the Dev data tab said
    "No data given. The run will not be evaluated." while Dev fraction was 0.10 and the run held out 281 rows as
    dev and evaluated on them."""
    from explorer.ui.launch.launcher import LauncherPanel

    stance = str(_write(tmp_path / "stance" / "train.txt", STANCE))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="single", train=stance))
    text = w.dev_preview.summary.text()
    assert "will not be evaluated" not in text
    assert "No dev file: the run holds out 10% of the training rows as dev" in text and "stratified, seed 42" in text
    _counted(w, stance, "single")                      # the file is counted: the share's size is said
    assert "(about 3 of 30)" in w.dev_preview.summary.text()
    w.editors["dev_fraction"].set(0.2)                 # follows Dev fraction
    assert "holds out 20%" in w.dev_preview.summary.text() and "(about 6 of 30)" in w.dev_preview.summary.text()
    w.editors["dev_fraction"].set(0.0)                 # "not evaluated" only when true
    assert "Dev fraction 0: the run will not be evaluated" in w.dev_preview.summary.text()
    w.editors["dev_fraction"].set(0.1)
    w.editors["task"].set("regression")                # scores: a random split
    assert "(random, seed 42" in w.dev_preview.summary.text()
    w.editors["task"].set("multilabel")                # no split for multi-label data: said, and the field is off
    assert "holds out no dev split" in w.dev_preview.summary.text()
    assert not w.editors["dev_fraction"].widget.isEnabled()
    w.editors["task"].set("single")
    assert w.editors["dev_fraction"].widget.isEnabled()
    w.editors["dev"].set(stance)                       # a dev file: its own preview, no note about a split
    w.refresh_previews()
    assert "holds out" not in w.dev_preview.summary.text()


def test_every_task_that_holds_rows_out_says_so_in_its_facts(tmp_path):
    """TaskFacts.dev_split is the one place the launcher reads; it agrees with what each task's split_dev does."""
    from explorer.core.task_facts import find_task_facts, no_dev_file_note
    from explorer.core.training.tasks import get_task

    rows = "text\tlabel\n" + "".join(f"row {i}\t{'ab'[i % 2]}\n" for i in range(20))
    scores = "text\tlabel\n" + "".join(f"row {i}\t{i / 4:.2f}\n" for i in range(20))
    for task, data in (("single", rows), ("regression", scores), ("multilabel", rows)):
        path = _write(tmp_path / task / "train.tsv", data)
        config = TrainConfig(task=task, train=str(path))
        t = get_task(task)
        _train, dev, _notes = t.split_dev(t.load(config, "train"), config, None)
        assert bool(dev is not None) == bool(find_task_facts(task).dev_split), task
    assert "will not be evaluated" in no_dev_file_note("ner", 0.1, 42)
    assert "holds out 10%" in no_dev_file_note("pair", 0.1, 7) and "seed 7" in no_dev_file_note("pair", 0.1, 7)
