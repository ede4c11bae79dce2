"""Runs queued on their own (not a group's members) that still waited in the queue when the app quit: the next start
offers them again in one click, a button in the status bar that names them, as it offers a group's never-started
members (explorer.ui.groups.hooks.offer_never_started). Which runs: explorer.core.studies.groups.never_started_runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

__all__ = ["offer_never_started_runs", "offer_text", "requeue_runs"]

NAMED = 3   # run ids named in the button; more are counted


def offer_text(run_ids: list[str]) -> str:
    """"2 run(s) were queued and never started (a, b): Queue them again"."""
    named = ", ".join(run_ids[:NAMED]) + (f" and {len(run_ids) - NAMED} more" if len(run_ids) > NAMED else "")
    return f"{len(run_ids)} run(s) were queued and never started ({named}): Queue them again"


def offer_never_started_runs(window):
    """Once the window is built (its status bar in place): the button that queues again the runs of
    ``window.runs_dir`` left queued when the app last quit; None when there are none."""
    from explorer.core.studies.groups import never_started_runs
    from explorer.ui.shell.offer_button import offer_button

    folders = never_started_runs(window.runs_dir, busy=set(window.manager.states))
    if not folders:
        return None
    ids = [p.name for p in folders]
    button = offer_button(offer_text(ids), "Runs that waited in the queue when the app quit: " + ", ".join(ids) +
                          ". Their settings are kept in each run's config.json. Click to queue them again under "
                          "their run ids.", "queue_never_started_runs")

    def queue_again() -> None:
        window.statusBar().removeWidget(button)
        button.deleteLater()
        queued, problems = requeue_runs(window.manager, folders)
        window.show_message(f"Queued again: {len(queued)} run(s)" + (f"; {'; '.join(problems)}" if problems else ""),
                            15000 if problems else 8000)

    button.clicked.connect(queue_again)
    window.statusBar().addPermanentWidget(button)
    return button


def requeue_runs(manager, folders: list[Path]) -> tuple[list[str], list[str]]:
    """Queue the runs of ``folders`` (records of runs cancelled while queued) under their own run ids on ``manager``
    (the RunManager): each record gives way to the run itself. Returns (the run ids queued, a sentence per run that
    could not be: its config edited or its data gone since)."""
    from explorer.core.errors import UserError
    from explorer.core.runs.layout import config_file
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.studies.groups import cancelled_while_queued

    queued, problems = [], []
    for folder in folders:
        try:
            data = json.loads(config_file(folder).read_text(encoding="utf-8"))
            cfg = TrainConfig.from_dict(dict(data, run_id=folder.name, output_dir=str(folder.parent)))
            cfg.validate()
            if cancelled_while_queued(folder):
                shutil.rmtree(folder)
            queued += manager.enqueue([cfg])
        except (OSError, ValueError, UserError) as exc:
            problems.append(f"{folder.name} could not be queued: {exc}")
    return queued, problems
