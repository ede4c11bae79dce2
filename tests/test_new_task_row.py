"""A task added as one TaskFacts row (plus its Task subclass) reaches every reader of task kinds: the data
sniffer, the baseline, the launcher's data preview, the metric display, Classify and checkpoint routing;
no module outside the task table tests task names, and none outside the head spec (core/specs/heads.py) tests
head, problem or prediction-kind names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.core.specs import heads
from explorer.core.specs import tasks as task_facts
from explorer.core.specs.tasks import TaskFacts, add_task_facts

TSV = "sentence1\tsentence2\tlabel\nAda was born.\tShe was born.\t1\nIt rains.\tThe sun shines.\t0\nA cat.\tA cat.\t1\n"


@pytest.fixture
def toy_pair(monkeypatch):
    monkeypatch.setattr(task_facts, "_TABLE", dict(task_facts._TABLE))
    return add_task_facts(TaskFacts(name="toy_pair", label="Toy pair task", head=heads.SINGLE_LABEL,
                                    trainer="explorer.core.training.tasks.classification:ClassificationTask",
                                    best_metric="accuracy", default_learning_rate=2e-5, default_max_seq_length=128,
                                    data_formats="a .tsv file", pair=True))


def test_a_new_row_reaches_every_reader(toy_pair, tmp_path):
    from explorer.core.metrics.baselines import dev_baseline
    from explorer.core.data.sniff import sniff_data_file
    from explorer.core.specs.metric_display import display_scale
    from explorer.ui.launch.data_preview import preview_data

    path = tmp_path / "dev.tsv"
    path.write_text(TSV, encoding="utf-8")
    assert sniff_data_file(path).fits_task("toy_pair")
    assert dev_baseline({"task": "toy_pair", "dev": str(path)}).metrics["accuracy"] == pytest.approx(2 / 3)
    preview = preview_data(str(path), "toy_pair")
    assert preview["ok"] and preview["used"]["text_columns"] == ["sentence1", "sentence2"]   # a pair: both texts
    assert preview["records"][0]["sentence2"] == "She was born."     # the file's rows as they are
    assert display_scale("accuracy", "toy_pair") == 100.0
    assert task_facts.task_for_model("classification", "", "toy_pair") == "toy_pair"
    assert task_facts.task_for_checkpoint(heads.SINGLE_LABEL, "toy_pair") == "toy_pair"
    assert task_facts.task_for_checkpoint(heads.REGRESSION, "toy_pair") == "regression"


def test_the_row_alone_makes_the_task_trainable_by_the_trainer_it_names(toy_pair):
    from explorer.core.training.tasks import get_task, task_names

    task = get_task("toy_pair")
    assert type(task).__name__ == "ClassificationTask" and task.name == "toy_pair"
    assert task.pair is True and task.head == "classification" and "toy_pair" in task_names()


def test_classify_offers_the_new_row(toy_pair):
    pytest.importorskip("PySide6")
    from explorer.ui.inspectors.classify_view import classify_tasks

    assert classify_tasks()["Toy pair task"] == "toy_pair"


def test_no_task_name_tests_outside_task_facts_and_the_tasks():
    root = Path(__file__).resolve().parents[1] / "explorer"
    names = "|".join(task_facts.task_names())
    test = re.compile(rf"""(==|!=|\bin)\s*\(?\s*["']({names})["']|["']({names})["']\s*(==|!=)|startswith\(["']squad""")
    allowed = {root / "core" / "specs" / "tasks.py"} | set((root / "core" / "training" / "tasks").glob("*.py"))
    found = [f"{p.relative_to(root)}:{i}: {line.strip()}" for p in root.rglob("*.py") if p not in allowed
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if test.search(line)]
    assert not found, "\n".join(found)


def _comparisons(words, allowed, keys=()):
    """Lines of explorer/ outside ``allowed`` that compare one of ``words`` as a string literal (==, !=, in), or key
    a dispatch table by one of ``keys``."""
    root = Path(__file__).resolve().parents[1] / "explorer"

    def alt(names):
        return "|".join(sorted(map(re.escape, names), key=len, reverse=True))

    test = re.compile(rf"""(==|!=|\bin)\s*\(?\s*["']({alt(words)})["']|["']({alt(words)})["']\s*(==|!=|\bin\b)""")
    key = re.compile(rf"""[{{,]\s*["']({alt(keys)})["']\s*:\s*[^\s"']""") if keys else None
    allowed = {root / p for p in allowed}
    return [f"{p.relative_to(root)}:{i}: {line.strip()}" for p in sorted(root.rglob("*.py")) if p not in allowed
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if test.search(line) or (key is not None and key.search(line))]


def test_no_head_problem_or_kind_tests_outside_the_head_spec():
    """Every name a head goes by (its entry, its model head, its problem and transformers' problem_type, predict's
    kind, what explain calls it) is asked of core/specs/heads.py, never compared by its spelling elsewhere, nor
    used as the key of a table of its own (data kinds, which name readers, excepted)."""
    words = set()
    for h in heads.heads():
        words |= {h.name, h.model_head, h.problem, h.problem_type, h.prediction.kind, h.explained.value}
    words -= {""}
    data_kinds = {task_facts.get_task_facts(n).data_kind for n in task_facts.task_names()}
    found = _comparisons(words, ("core/specs/heads.py", "core/specs/tasks.py"), keys=words - data_kinds)
    assert not found, "\n".join(found)
