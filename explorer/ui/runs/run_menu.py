"""What the Runs list's context menu holds for the selected runs, decided without Qt: each entry's label, the
RunsPanel method it calls, whether it is on and its tooltip, in menu order (``None``: a separator).
explorer.ui.runs.dock.RunsPanel.context_menu builds the QMenu from it; what the selection allows is
explorer.ui.runs.selection.RunSelection's.
"""

from __future__ import annotations

import dataclasses

from explorer.ui.runs.selection import RunSelection

__all__ = ["COMPARE_CLASSIFIERS_ACTION", "MenuEntry", "run_menu_entries"]

COMPARE_CLASSIFIERS_ACTION = "Compare two classifiers on the dev rows…"   # the Runs list's menu entry (named elsewhere)


@dataclasses.dataclass(frozen=True, kw_only=True)
class MenuEntry:
    """One entry of the run menu: ``label``; ``slot``: the RunsPanel method it calls; ``enabled``; ``tip``; and
    ``checkpoints``: [(label, folder)] offered in a submenu right after it (every checkpoint of the run)."""

    label: str
    slot: str
    enabled: bool
    tip: str = ""
    checkpoints: tuple[tuple[str, str], ...] = ()


def run_menu_entries(sel: RunSelection) -> list[MenuEntry | None]:
    """The run menu's entries for the selection ``sel`` in order, ``None`` between groups (a separator)."""
    choices = tuple(sel.checkpoint_choices())
    return [
        MenuEntry(label="Rename…", slot="rename_selected", enabled=sel.can_rename()),
        MenuEntry(label="Delete…", slot="delete_selected", enabled=sel.ended_ours()),
        None,
        MenuEntry(label="Keep only best checkpoint…", slot="keep_only_best_selected",
                  enabled=sel.can_keep_only_best()),
        MenuEntry(label="Delete optimizer state…", slot="delete_optimizer_state_selected",
                  enabled=sel.can_delete_optimizer_state()),
        None,
        MenuEntry(label="Open folder", slot="_open_folder", enabled=sel.one is not None),
        MenuEntry(label="Open best checkpoint in inspectors", slot="_open_checkpoint", enabled=sel.can_inspect(),
                  # every checkpoint of the run (an HF Trainer folder's checkpoint-N), one click away
                  checkpoints=choices if len(choices) > 1 else ()),
        MenuEntry(label="Predict on a file…", slot="_predict_on_file", enabled=sel.can_inspect()),
        MenuEntry(label="Compare on one example…", slot="_compare_two", enabled=sel.can_compare_qa(),
                  tip="Two QA runs' best checkpoints on the Attention page's example: A, B and B − A attention"),
        MenuEntry(label=COMPARE_CLASSIFIERS_ACTION, slot="_compare_classifiers", enabled=sel.can_compare_classifiers(),
                  tip="Both runs' best checkpoints on the first run's dev rows: the difference in accuracy and macro "
                      "F1 with a paired bootstrap interval, and McNemar's exact test"),
        None,
        MenuEntry(label="Export scalars to CSV…", slot="export_csv_selected", enabled=sel.can_export()),
    ]
