"""The checkpoint opened last, offered to the model pages that have no model of their own (Qt-free).

"Open best checkpoint in inspectors" opens a checkpoint in the one page for its head (Spans & τ, Classify, Tag).
The other pages that can use it (Explain, Layer probes) would otherwise keep an empty model box and their default
task, and the person types the path again. The rule, decided here once for every such page:

- a page takes the offer only while it has no model of its own: nothing loaded or loading, and its model box empty
  or still holding the previous offer (never a path the person typed or chose);
- taking it fills the model box with the path and the task picker with the checkpoint's task (its run's), and loads
  nothing: a load costs seconds and memory, and the person may never look at that page;
- the first time the page is shown afterwards it loads the offered checkpoint (as the QA pages load their model on
  a first visit), once, and only while the box still holds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, kw_only=True)
class OfferedCheckpoint:
    """A checkpoint opened from the Runs list. ``path``: its folder; ``head``: the ``model_head`` it was saved with
    (explorer.core.specs.heads, None for a bare encoder); ``task``: the task it opens as (its run's,
    explorer.core.models.checkpoint_windows.checkpoint_task_name); ``run_config``: its run's config.json ({} when
    none)."""

    path: str
    head: str | None
    task: str | None
    run_config: dict = field(default_factory=dict)


LOADS_ON_SHOW = "it loads when this page is shown"


def offered_note(path: str, then: str = LOADS_ON_SHOW) -> str:
    """The page's status line once it holds an offered checkpoint: what it is and what happens ``then``."""
    return f"{path}: the checkpoint opened last, filled in; {then}"


class CheckpointOffer:
    """One page's side of the rule (module docstring). ``filled``: the offered path put in the page's model box
    (None before any); ``pending``: it is still to be loaded on the page's next showing."""

    def __init__(self):
        self.filled: str | None = None
        self.pending = False

    def takes(self, typed: str, has_model: bool) -> bool:
        """Does a page whose model box holds ``typed`` (``has_model``: a model loaded or loading) take an offer?"""
        typed = typed.strip()
        return not has_model and (not typed or typed == self.filled)

    def fill(self, path: str) -> None:
        """The page put ``path`` in its model box (it loads when the page is shown)."""
        self.filled, self.pending = path, True

    def due(self, typed: str) -> bool:
        """Is the offered checkpoint to be loaded now that the page is shown (its box, ``typed``, still holds it)?
        Answers True once: a later showing loads nothing."""
        due = self.pending and typed.strip() == self.filled
        self.pending = False
        return due
