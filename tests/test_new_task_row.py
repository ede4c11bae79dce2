"""A task added as one TaskFacts row (plus its Task subclass) reaches every reader of task kinds: the data
sniffer, the baseline, the launcher's data preview, the metric display, Classify and checkpoint routing;
no module outside task_facts.py tests task names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.core.specs import tasks as task_facts
from explorer.core.specs.tasks import TaskFacts, add_task_facts

TSV = "sentence1\tsentence2\tlabel\nAda was born.\tShe was born.\t1\nIt rains.\tThe sun shines.\t0\nA cat.\tA cat.\t1\n"


@pytest.fixture
def toy_pair(monkeypatch):
    monkeypatch.setattr(task_facts, "_TABLE", dict(task_facts._TABLE))
    return add_task_facts(TaskFacts("toy_pair", "Toy pair task", "classification", False, "accuracy", 2e-5, 128,
                                    "a .tsv file", pair=True))


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
    assert task_facts.task_for_checkpoint("classification", "toy_pair") == "toy_pair"
    assert task_facts.task_for_checkpoint("classification", "toy_pair", "classification") == "toy_pair"
    assert task_facts.task_for_checkpoint("classification", "toy_pair", "regression") == "regression"


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
