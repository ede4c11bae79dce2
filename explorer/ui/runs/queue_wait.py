"""What a queued run of this window waits for when the queue's place is taken by runs training outside it (a
`bert-explorer train` started from a terminal, or a run an earlier window left training at quit): one run trains at
a time on this machine, so the queue waits for them (explorer.ui.runs.runner.RunManager.occupied). The Runs list's
status cell, its tooltip and the status bar's activity line say it in these words (Qt-free)."""

from __future__ import annotations

__all__ = ["waits_cell", "waits_sentence", "waits_short"]


def waits_short(run_ids) -> str:
    """"waits for sst2-a" (several: "waits for sst2-a, sst2-b")."""
    return f"waits for {', '.join(run_ids)}"


def waits_cell(run_ids) -> str:
    """The Runs list's status of such a run: "queued: waits for sst2-a"."""
    return f"queued: {waits_short(run_ids)}"


def waits_sentence(run_ids) -> str:
    """The whole reason, for a tooltip and the status bar's."""
    them = "it ends" if len(run_ids) == 1 else "they end"
    return (f"Queued: {waits_short(run_ids)}, started outside this window (from a terminal, or left training when "
            f"the app last quit). One run trains at a time on this machine: this run starts when {them}.")
