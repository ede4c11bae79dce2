"""What the Runs list lets the user do with the selected runs, decided without Qt: which buttons and menu entries
are on, what "Open best checkpoint in inspectors" says when it is greyed, the failed run's line, the list's note
and the questions before a deletion. explorer.ui.runs.dock.RunsPanel shows it.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Callable

from explorer.core.runs import status as run_status
from explorer.core.runs.layout import checkpoint_path
from explorer.core.runs.reading import OURS
from explorer.ui.runs.disk import format_size, optimizer_state_files
from explorer.ui.runs.run_cells import EMPTY_TEXT, FINISHED, LOADING_TEXT
from explorer.ui.runs.state import RunState

__all__ = ["INSPECT_TIP", "RunSelection", "list_note"]

INSPECT_TIP = ("Load checkpoints/best (else last) of the selected run into the inspector page for its model head "
               "(QA, classification, tagging), with an example from the run's dev data.")


def list_note(loading: bool, has_runs: bool) -> str:
    """The line above the list: that the runs folder is being read (never "no runs" before the read is done), what
    to do when it holds no run, else ""."""
    return LOADING_TEXT if loading else "" if has_runs else EMPTY_TEXT


@dataclass(frozen=True)
class RunSelection:
    """The selected runs (``states``, in list order) and what can be done with them."""

    states: list[RunState]

    # ---- buttons -----------------------------------------------------------------------------
    @property
    def one(self) -> RunState | None:
        """The selected run when exactly one is selected."""
        return self.states[0] if len(self.states) == 1 else None

    def can_stop(self) -> bool:
        """Stop early: a selected run whose worker trains (or is starting)."""
        return any(s.status in (run_status.RUNNING, run_status.STARTING) for s in self.states)

    def can_cancel(self) -> bool:
        """Cancel: a selected run is live (queued too)."""
        return any(s.is_live for s in self.states)

    def can_open_folder(self) -> bool:
        return self.one is not None and self.one.path is not None

    def can_inspect(self) -> bool:
        """Open best checkpoint: one run with a checkpoint (best, else last)."""
        return self.one is not None and self.one.best_checkpoint_path() is not None

    def checkpoint_choices(self) -> list[tuple[str, str]]:
        """(label, folder) of every checkpoint of the one selected run that is on disk, by step ("checkpoint-8",
        "checkpoint-16 (best)", "checkpoint-24 (last)"; ours: "best", "last"): an HF Trainer folder opens any of
        its checkpoints from the list, not only its best; [] unless one run is selected."""
        import re
        from pathlib import Path

        one = self.one
        if one is None:
            return []
        kinds: dict[str, list[str]] = {}   # folder -> the kinds naming it
        for kind, folder in one.checkpoints.items():
            if folder and Path(folder).is_dir():
                kinds.setdefault(folder, []).append(kind)
        if one.path is not None:
            for kind in ("best", "last"):
                folder = checkpoint_path(one.path, kind)
                if folder.is_dir():
                    kinds.setdefault(str(folder), []).append(kind)

        def step(folder: str) -> float:
            found = re.fullmatch(r"checkpoint-(\d+)", Path(folder).name)
            return float(found.group(1)) if found else float("inf")

        out = []
        for folder in sorted(kinds, key=lambda f: (step(f), "last" in kinds[f], f)):
            names = kinds[folder]
            own = next((k for k in names if k not in ("best", "last")), "")
            marks = [k for k in ("best", "last") if k in names]
            label = f"{own} ({', '.join(marks)})" if own and marks else own or ", ".join(marks)
            out.append((label, folder))
        return out

    def inspect_tip(self, name_of: Callable[[str], str]) -> str:
        """The tooltip of "Open best checkpoint in inspectors": what it does, or why it is greyed (early in a run,
        before the first checkpoint, a greyed button must say why)."""
        if len(self.states) != 1:
            return INSPECT_TIP + ("" if not self.states else f" ({len(self.states)} runs are selected: select one.)")
        s = self.states[0]
        if s.best_checkpoint_path() is not None:
            return INSPECT_TIP
        name = name_of(s.run_id)
        if s.status == run_status.QUEUED:
            return f"{name} is queued: it saves its first checkpoint once it trains."
        if s.is_live:
            every = int(s.config.get("eval_every") or 0)
            when = (f"at its first evaluation after training starts (every {every} steps, Evaluate every)"
                    if every > 0 else "at the end of training (Evaluate every is 0: evaluations at the start and "
                                      "the end only)")
            return f"No checkpoint yet: {name} saves checkpoints/best {when}."
        return f"{name} left no checkpoint (neither checkpoints/best nor checkpoints/last is in its folder)."

    def first_visit_checkpoint(self, takes_task: Callable[[str], bool],
                               name_of: Callable[[str], str]) -> tuple[str | None, str]:
        """What an inspector page's first visit opens for this selection, so that a key that shows the page never
        gives a model other than the selected run's without saying so: (its checkpoint folder, "") for one selected
        run whose task the page takes (``takes_task``) that has a checkpoint (best, else last); (None, why) for one
        such run without a checkpoint yet (:meth:`inspect_tip`'s sentence: queued, training, left none), which opens
        nothing; (None, "") for no run, several, or a run of another task: the page's own default."""
        one = self.one
        if one is None or not takes_task(one.task):
            return None, ""
        path = one.best_checkpoint_path()
        return (path, "") if path is not None else (None, self.inspect_tip(name_of))

    def failed(self) -> list[RunState]:
        """The selected runs that failed."""
        return [s for s in self.states if s.status == run_status.FAILED]

    def failed_line(self) -> str:
        """The first failed run's error under the list (rich text), "" when none failed."""
        failed = self.failed()
        if not failed:
            return ""
        s = failed[0]
        return (f"<b>{s.run_id} failed:</b> {html.escape(s.error, quote=False)} "
                f"<span style='color:#666'>(Show error… for the traceback)</span>")

    def with_error(self) -> list[RunState]:
        """The selected runs whose error can be shown (failed, or with an error message)."""
        return [s for s in self.states if s.status == run_status.FAILED or s.error]

    # ---- the context menu ----------------------------------------------------------------------
    def ended_ours(self) -> bool:
        """Every selected run ended and is ours (a folder we wrote): it may be deleted or cleaned up."""
        return all(s.status in FINISHED and s.path is not None and s.kind == OURS for s in self.states)

    def can_rename(self) -> bool:
        return self.one is not None and self.one.path is not None

    def can_keep_only_best(self) -> bool:
        """Keep only best checkpoint: one ended run of ours that has checkpoints/best."""
        one = self.one
        return self.ended_ours() and one is not None and one.path is not None and \
            checkpoint_path(one.path, "best").is_dir()

    def can_delete_optimizer_state(self) -> bool:
        """Delete optimizer state: one ended run of ours whose checkpoints hold optimizer state."""
        one = self.one
        return self.ended_ours() and one is not None and one.path is not None and \
            bool(optimizer_state_files(one.path))

    def can_compare_qa(self) -> bool:
        """Compare on one example: two QA runs with checkpoints."""
        from explorer.core.specs.tasks import is_qa_task

        return len(self.states) == 2 and all(s.best_checkpoint_path() is not None and is_qa_task(s.task)
                                             for s in self.states)

    def can_compare_classifiers(self) -> bool:
        """Compare two classifiers on the dev rows: two single-label table runs with checkpoints."""
        from explorer.core.specs.tasks import is_single_label_table

        return len(self.states) == 2 and all(s.best_checkpoint_path() is not None and is_single_label_table(s.task)
                                             for s in self.states)

    def can_export(self) -> bool:
        """Export scalars to CSV: a selected run has a folder."""
        return any(s.path is not None for s in self.states)

    # ---- deleting ------------------------------------------------------------------------------
    def delete_question(self, sizes: dict[str, int]) -> str:
        """The question before the selected runs' folders go to the trash: how many, their size, their ids."""
        size = sum(sizes.get(s.run_id, 0) for s in self.states)
        names = "\n".join(f"  {s.run_id}" for s in self.states[:8]) + ("\n  …" if len(self.states) > 8 else "")
        return (f"Delete {len(self.states)} run(s) ({format_size(size) or 'size unknown'})?\n{names}\n\n"
                "Their folders move to .trash in the runs folder (delete it by hand to free the space).")
