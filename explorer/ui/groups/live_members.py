"""A group's members as the window's runner knows them (Qt-free): a member it has queued has no folder yet and a
starting one may have none, so the folder alone reads "missing"; the Groups page shows the runner's status
("queued", "running", ...) for every member it holds in its queue or runs, and the folder's for the others
("missing" only for a member that has no folder and is not in the runner's hands).

``live_of(run_id)`` is the status the window's run list gives the run (None when it does not list it). A member
the list sees end (also one trained from a terminal, whose folder the list re-reads) reads the list's ended status
(status_after_change), not the "running" its folder said when the page read it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from explorer.core.runs import status as run_status

LiveOf = Callable[[str], "str | None"]


def shown_status(run_id: str, on_disk: str, live_of: LiveOf | None) -> str:
    """The status a member reads in the Groups page: the runner's while it is queued or live (run_status.LIVE),
    else ``on_disk`` (the folder's status, or "missing")."""
    live = live_of(run_id) if live_of is not None else None
    return live if live in run_status.LIVE else on_disk


def status_after_change(on_disk: str, live: str | None) -> str:
    """The folder's status of a member once the run list has listed it again or seen it move on: the list's
    status when the run has ended there (a run started from a terminal that finished since its folder was read
    here: the list re-read its folder), else ``on_disk`` (a queued or live status stays the runner's, over it)."""
    return live if live is not None and live not in run_status.LIVE else on_disk


def with_live_status(members: list, notes: list[str], live_of: LiveOf | None) -> tuple[list, list[str]]:
    """(``members`` (group_stats.MemberData) with the runner's status for those queued or live, ``notes`` without
    the "no run folder" line of those members: a queued run has no folder yet, which is no problem)."""
    out, live_ids = [], set()
    for m in members:
        status = shown_status(m.run_id, m.status, live_of)
        if status != m.status:
            live_ids.add(m.run_id)
            m = replace(m, status=status)
        out.append(m)
    kept = [n for n in notes if not any(n.startswith(f"{rid}: no run folder") for rid in live_ids)]
    return out, kept
