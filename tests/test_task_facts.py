"""Task facts in one torch-free table (explorer/core/specs/tasks.py), read by the config, the loop, the
runs list, the GUI's run states, the data preview and the worker's flags."""

import pytest
from helpers import REPO_ROOT, write_file

from explorer.core.specs import tasks as tf
from explorer.core.specs.heads import MULTIPLE_CHOICE
from explorer.core.specs.train_config import TASKS, ConfigError, TrainConfig, field_help


def test_table_rows_and_defaults():
    assert tf.task_names() == ["squad_v1", "squad_v2", "single", "pair", "swag", "regression", "multilabel", "ner"]
    assert list(TASKS) == tf.task_names()
    assert tf.qa_task_names() == ("squad_v1", "squad_v2")
    assert [tf.get_task_facts(n).best_metric for n in tf.task_names()] == ["f1", "best_f1", "accuracy", "accuracy",
                                                                     "accuracy", "pearson", "micro_f1", "f1"]
    assert TrainConfig(task="squad_v1").resolved_learning_rate() == 3e-5
    assert TrainConfig(task="pair").resolved_learning_rate() == 2e-5
    assert TrainConfig(task="squad_v2").resolved_max_seq_length() == 384
    assert TrainConfig(task="single").resolved_max_seq_length() == 128
    with pytest.raises(KeyError, match="pos"):
        tf.get_task_facts("pos")


def test_best_metric_rule_is_the_same_for_loop_runs_and_gui():
    from explorer.core.runs.reading import summarize
    from explorer.ui.runs.state import RunState

    cfg = {"task": "squad_v2"}
    assert tf.best_metric_name(cfg) == "best_f1"
    assert tf.best_metric_name({"task": "squad_v2", "metric_for_best": "exact_match"}) == "exact_match"
    # regression heads report pearson, not accuracy: the fallback picks it
    assert tf.choose_metric({"pearson": 0.5, "spearman": 0.4}, {"task": "single"}) == "pearson"
    assert tf.choose_metric({"loss": 1.0}, {"task": "single"}) is None
    events = [{"event": "started", "time": 1.0, "steps_total": 4, "config": cfg},
              {"event": "eval", "step": 2, "time": 2.0, "metrics": {"f1": 50.0, "best_f1": 60.0}},
              {"event": "eval", "step": 4, "time": 3.0, "metrics": {"f1": 70.0, "best_f1": 55.0}}]
    s = summarize("r", REPO_ROOT, cfg, events, alive=False)
    assert (s.metric_name, s.metric_value) == ("best_f1", 60.0)
    state = RunState.from_events("r", events, config=cfg)
    assert state.best_metric() == ("best_f1", 60.0, 2)


def test_unknown_task_is_a_config_error_naming_the_known_ones():
    with pytest.raises(ConfigError, match="'pos' is not one of squad_v1, squad_v2, single, pair, swag"):
        TrainConfig(task="pos", train="x").validate()


def test_help_texts_come_from_the_table():
    assert "best_f1 for squad_v2" in field_help("metric_for_best")
    assert field_help("learning_rate").endswith("default: 3e-5 for QA, 2e-5 for classification, 2e-5 for multiple_choice, "
                                               "5e-5 for token_classification")
    assert "SQuAD v2.0 (QA + no answer)" in field_help("task")
    assert "QA: an official-format SQuAD JSON file" in field_help("train")
    assert "classification: a .tsv / .csv file with a header row" in field_help("train")
    assert "overlap" in field_help("doc_stride") and field_help("batch_size").endswith("(default: 32)")
    with pytest.raises(KeyError):
        field_help("nope")


def test_registered_tasks_take_their_facts_from_the_table():
    from explorer.core.training.tasks import Task, get_task

    assert get_task("squad_v2").head == "qa" and get_task("squad_v2").version == "v2.0"
    assert get_task("pair").head == "classification" and get_task("pair").pair is True

    class Swag(Task):
        name = "swag_not_in_table"

    with pytest.raises(ValueError, match="task_facts"):
        Swag()


def test_a_facts_row_without_a_training_implementation_is_a_config_error():
    from explorer.core.training.tasks import get_task

    tf.add_task_facts(tf.TaskFacts(name="swag_test", label="SWAG (test row)", head=MULTIPLE_CHOICE,
                                   best_metric="accuracy", default_learning_rate=2e-5, default_max_seq_length=128,
                                   data_formats="a SWAG CSV file"))
    try:
        assert TrainConfig(task="swag_test", train="x").validate().task == "swag_test"
        with pytest.raises(ConfigError, match="'swag_test' cannot be trained.*squad_v1, squad_v2, single, pair"):
            get_task("swag_test")
    finally:
        tf._TABLE.pop("swag_test")


def test_settings_doc_is_generated_from_the_field_help():
    from explorer.core.specs.train_config import settings_markdown

    doc = (REPO_ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert doc == settings_markdown(), "regenerate docs/settings.md with explorer.core.specs.train_config.settings_markdown()"
    assert "| `doc_stride` | `--doc-stride` | 128 | >= 0 | QA: overlap in tokens" in doc


def test_every_task_that_holds_rows_out_says_so_in_its_facts(tmp_path):
    """TaskFacts.dev_split is the one place the launcher reads; it agrees with what each task's split_dev does."""
    from explorer.core.specs.tasks import find_task_facts, no_dev_file_note
    from explorer.core.training.tasks import get_task

    rows = "text\tlabel\n" + "".join(f"row {i}\t{'ab'[i % 2]}\n" for i in range(20))
    scores = "text\tlabel\n" + "".join(f"row {i}\t{i / 4:.2f}\n" for i in range(20))
    for task, data in (("single", rows), ("regression", scores), ("multilabel", rows)):
        path = write_file(tmp_path / task / "train.tsv", data)
        config = TrainConfig(task=task, train=str(path))
        t = get_task(task)
        _train, dev, _notes = t.split_dev(t.load(config, "train"), config, None)
        assert bool(dev is not None) == bool(find_task_facts(task).dev_split), task
    assert "will not be evaluated" in no_dev_file_note("ner", 0.1, 42)
    assert "holds out 10%" in no_dev_file_note("pair", 0.1, 7) and "seed 7" in no_dev_file_note("pair", 0.1, 7)
