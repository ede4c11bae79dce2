"""The recipe of a fine-tune that starts from the reviewed checkpoint: sized to the reviewed rows.

The reviewed checkpoint already learned the training file over the first run's epochs; running that whole
recipe again over the training file plus a handful of reviewed rows costs a full run, and the reviewed rows,
a few among thousands, barely move it. A proportionate fine-tune trains on the reviewed rows mixed with
REPLAY_PER_ROW training rows per reviewed row (a seeded, class-stratified draw: the model keeps what it learned
while it learns the corrections) for SHORT_EPOCHS epochs, so its steps grow with the rows reviewed. A fine-tune
from the first run's model (the checkpoint cannot take the run) keeps the first run's whole recipe instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from explorer.core.data.sample import capped_rows

__all__ = ["REPLAY_PER_ROW", "SHORT_EPOCHS", "ShortRecipe", "short_recipe"]

REPLAY_PER_ROW = 3     # training rows mixed in per reviewed row
SHORT_EPOCHS = 3.0     # passes over the reviewed rows and the rows mixed in


@dataclass
class ShortRecipe:
    """The rows of a short fine-tune (``rows``: the reviewed ones, then those of the training file mixed in), how
    many of each, and its epochs and optimizer steps (one process; ``batch``: examples per optimizer step)."""

    rows: list[dict] = field(default_factory=list)
    reviewed: int = 0
    mixed_in: int = 0
    epochs: float = SHORT_EPOCHS
    batch: int = 32

    @property
    def steps(self) -> int:
        """Optimizer steps: ceil(rows / batch) per epoch, over ``epochs`` epochs."""
        return math.ceil(self.epochs * math.ceil(len(self.rows) / max(1, self.batch))) if self.rows else 0

    def fields(self) -> dict:
        """The TrainConfig fields this recipe sets: the epochs, and no step count or time budget of the first run
        (they would size the run to the first run's data, not to these rows)."""
        return {"epochs": self.epochs, "max_steps": 0, "time_budget_minutes": 0.0}

    def sentence(self, train_name: str, first: str) -> str:
        """What the run will do, said in the launcher before Launch; ``first``: the first run's recipe in words
        ("4 epochs over 8,000 rows")."""
        s = "s" if self.reviewed != 1 else ""
        mixed = (f" and {self.mixed_in:,} rows of {train_name} mixed in ({REPLAY_PER_ROW} per reviewed row, drawn at "
                 "random by class, so the model keeps what it learned)") if self.mixed_in else ""
        return (f"A short fine-tune sized to the reviewed rows: {self.epochs:g} epochs over the {self.reviewed} "
                f"reviewed row{s}{mixed}, {len(self.rows):,} rows in all: about {self.steps:,} optimizer "
                f"step{'s' if self.steps != 1 else ''} at batch {self.batch}, not the first run's {first}.")


def short_recipe(reviewed: list[dict], training: list[dict], label_column: str, *, batch: int,
                 seed: int) -> ShortRecipe:
    """The short fine-tune of ``reviewed`` rows (dicts in the combined file's columns) with REPLAY_PER_ROW rows of
    ``training`` per reviewed row (all of them when it has fewer), drawn with ``seed`` so every class of
    ``label_column`` keeps its share (core.data.sample.capped_rows); ``batch``: examples per optimizer step."""
    want = REPLAY_PER_ROW * len(reviewed)
    keep = capped_rows(len(training), want, seed, [str(r.get(label_column, "")) for r in training])
    mixed = [training[k] for k in keep]
    return ShortRecipe(rows=list(reviewed) + mixed, reviewed=len(reviewed), mixed_in=len(mixed), batch=batch)
