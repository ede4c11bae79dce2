"""Did one run train on the rows another is judged on? The texts two classification runs share between one run's
dev rows and the other's training rows.

Compare scores two checkpoints on the dev rows of run A. When run B trained on some of them (B was fine-tuned on
reviewed rows of a file that also holds A's held-out rows, or B's training file is another cut of the same
table), B is judged partly on rows it learned, and its advantage is optimistic: the paired tests assume neither
model saw the rows. Rows are matched by their texts (text_a, text_b): row ids differ between files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["RunRows", "TrainedOn", "run_rows", "trained_on"]


@dataclass(frozen=True, kw_only=True)
class RunRows:
    """The texts of one run's training rows and dev rows.

    Attributes:
        train: (text_a, text_b or "") of every row the run trained on (its training file less its held-out rows).
        dev: (text_a, text_b or "") of its dev rows, in order (its dev file, or the rows it held out).
    """

    train: frozenset
    dev: tuple


@dataclass(frozen=True, kw_only=True)
class TrainedOn:
    """How many of the judged dev rows a run trained on.

    Attributes:
        rows: dev rows whose texts are among the run's training rows.
        total: dev rows judged.
    """

    rows: int
    total: int

    def sentence(self, name: str) -> str:
        """'B trained on 123 of these 432 dev rows (the same texts): …', or '' when it trained on none."""
        if not self.rows:
            return ""
        return (f"Warning: {name} trained on {self.rows:,} of these {self.total:,} dev rows (the same texts), so its "
                "figures on them are optimistic and the comparison favours it; compare the two on rows neither "
                "trained on (a dev file kept apart from both training files).")


def _texts(data) -> list[tuple[str, str]]:
    b = data.texts_b or [""] * len(data.texts_a)
    return [(str(x), str(y)) for x, y in zip(data.texts_a, b)]


def run_rows(run_dir: str | Path) -> RunRows | None:
    """The training and dev texts of the classification run in ``run_dir`` (its config.json, its training file and
    its ``dev_split.csv``, read as the run read them); None when they cannot be known: not a classification run,
    a file gone, or a run that held rows out without its dev_split.csv.

    Source: the run's own reader (explorer.core.training.tasks.classification.ClassificationTask.load / split_dev).
    """
    from explorer.core.errors import UserError
    from explorer.core.runs.layout import config_file, dev_split_file
    from explorer.core.specs.heads import SINGLE_LABEL
    from explorer.core.specs.tasks import find_task_facts
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.training.tasks import get_task

    run_dir = Path(run_dir)
    try:
        config = TrainConfig.load(config_file(run_dir))
        facts = find_task_facts(config.task)
        if facts is None or facts.head is not SINGLE_LABEL:
            return None
        task = get_task(config.task)
        data = task.load(config, "train")
        split = dev_split_file(run_dir)
        if config.dev:
            dev = task.load(config, "dev")
            train = data
        elif split.is_file():
            train, dev, _notes = task.split_dev(data, config, run_dir)
        elif config.resolved_dev_fraction() <= 0:
            train, dev = data, None
        else:
            return None
    except (OSError, ValueError, UserError):
        return None
    return RunRows(train=frozenset(_texts(train)), dev=tuple(_texts(dev)) if dev is not None else ())


def trained_on(dev_texts, train_texts) -> TrainedOn:
    """How many of ``dev_texts`` ((text_a, text_b) pairs) are in ``train_texts`` (a set of such pairs)."""
    dev_texts = list(dev_texts)
    return TrainedOn(rows=sum(t in train_texts for t in dev_texts), total=len(dev_texts))
