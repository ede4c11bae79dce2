"""What the main window's status bar says about the runs, decided without Qt: the activity line, the device line,
the message after the runs folder was read, after a run ended, and the note about saved files that are gone.
explorer.ui.shell.main_window.MainWindow shows them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from explorer.core.runs import status as run_status
from explorer.ui.runs.queue_wait import waits_sentence, waits_short
from explorer.ui.runs.stopping import waiting_text

__all__ = ["activity_line", "activity_short", "device_line", "device_short", "ended_message", "gone_note",
           "scan_message"]


def activity_line(states: list, name_of: Callable[[str], str]) -> tuple[str, str]:
    """('running: <name> step 120/400 · 2 running · 2 queued', the active run's id for the tooltip) over the runs
    this window tracks (``states``): those driven here and those running elsewhere (a run left training when the
    app last quit, another window, the CLI); ("", "") when none is active or queued. Queued runs that wait for a
    run training outside this window name it ("1 queued: waits for sst2-a (training outside this window)"), the
    whole reason in the tooltip."""
    running = sum(s.status in run_status.WORKING for s in states)
    queued = sum(s.status == run_status.QUEUED for s in states)
    # "1 running" beside the run named as running says nothing more: the count shows from two runs on (the status
    # bar is crowded at 1280x800)
    # a queue held by a run training outside this window (a terminal's): the status bar names it
    waiting = next((s.waits_for for s in states if s.status == run_status.QUEUED and getattr(s, "waits_for", ())), ())
    names = [name_of(r) for r in waiting]
    queued_part = (f"{queued} queued: {waits_short(names)} (training outside this window)" if waiting else
                   f"{queued} queued")
    parts = ([f"{running} running"] if running > 1 else []) + ([queued_part] if queued else [])
    active = next((s for s in states if s.status in run_status.WORKING), None)
    if active is not None:   # the active run by name, with its progress (an evaluation's rows while it evaluates)
        about = "~" if active.budget_seconds else ""   # the steps a time budget fits: an estimate the run refines
        step = f" step {active.step}/{about}{active.steps_total}" if active.steps_total else ""
        evaluating = waiting_text(active)
        parts.insert(0, f"{name_of(active.run_id)}: {evaluating}" if evaluating else
                     f"{active.status}: {name_of(active.run_id)}{step}")
    tip = active.run_id if active is not None else ""
    return " · ".join(parts), "\n".join(t for t in (tip, waits_sentence(names) if waiting else "") if t)


def activity_short(states: list) -> str:
    """The activity line's short form, whole words where the status bar has no room for the line (1280 px beside a
    message and the device): the counts alone, "2 running · 1 queued" ("1 running" too: the name is in the
    tooltip); "" when none is active or queued."""
    running = sum(s.status in run_status.WORKING for s in states)
    queued = sum(s.status == run_status.QUEUED for s in states)
    return " · ".join(([f"{running} running"] if running else []) + ([f"{queued} queued"] if queued else []))


def device_short(states: list, idle_device: str, host_of: Callable[[str], str]) -> str:
    """The device line's short form where the status bar has no room for it: the host alias of a run training on
    another machine ("gpubox3"), else the device's first word ("CPU", "cuda:0") without the reasons in brackets."""
    live = [s for s in states if s.is_live and s.status != run_status.QUEUED]
    host = host_of(live[0].run_id) if live else ""
    if host:
        return host
    device = (live[0].device if live and live[0].device else idle_device) or ""
    return device.split(" (")[0].split()[0] if device.split() else device


def device_line(states: list, idle_device: str, host_of: Callable[[str], str],
                describe: Callable[[str, str], str]) -> str:
    """'device: <the first live run's device>' (from its `started` event; ``describe(device, mixed_precision)``
    words it, "on <host>" for a remote run), else what a new run would use (``idle_device``), starting or idle."""
    live = [s for s in states if s.is_live and s.status != run_status.QUEUED]
    host = host_of(live[0].run_id) if live else ""
    if live and live[0].device:
        return f"device: {describe(live[0].device, live[0].mixed_precision)}" + (f" on {host}" if host else "")
    if live:
        return f"device: {idle_device} (starting)"
    return f"device: {idle_device} (idle)"


def ended_message(run_id: str, status: str, state) -> str:
    """'<run>: <status>', with the error of a failed run (``state``: its RunState, None when no longer listed), or
    the note of a run that predicted one class for every dev row (RunState.one_class_note): its figure is the
    majority rate, not a model that learned."""
    msg = f"{run_id}: {status}"
    if status == run_status.FAILED and state is not None:
        msg += f" — {state.error}"
    elif state is not None and (note := state.one_class_note()):
        msg += f" — {note.text}"
    return msg


def scan_message(runs_dir: Path, states: list, problems: list[str], listed: int, settings_note: str,
                 opened: int = 0) -> str:
    """The status line after the runs folder was read: how many runs it holds and the ``opened`` run folders
    outside it the list shows too (their reads may end after this line), how many are listed with those queued,
    the unreadable ones and the runs read with parts skipped (first of each),
    and the start's settings note kept in view."""
    n = len(states)
    text = f"{n} run{'' if n == 1 else 's'} in {runs_dir}"
    if opened:
        text += f", {opened} opened folder{'' if opened == 1 else 's'}"
    if listed > n + opened:   # the dock also lists runs opened from other folders, queued or just launched
        text += f" ({listed} listed with those opened from elsewhere or queued)"
    if problems:
        text += f"; {len(problems)} unreadable: {problems[0]}"
    noted = [s for s in states if s.read_notes]
    if noted:
        text += f"; {len(noted)} read with parts skipped (see the Status tooltip): {noted[0].read_notes[0]}"
    if settings_note:  # keep the startup note in view (this message replaces it)
        text += f". Note: {settings_note}"
    return text


def gone_note(gone: list[str], what: str, verb: str) -> str:
    """'2 run folders opened before no longer exist and were skipped: A, B' for saved paths that are gone ("" for
    none); ``what``: the kind of path ("run folder"), ``verb``: how it was used ("opened")."""
    if not gone:
        return ""
    one = len(gone) == 1
    return (f"{len(gone)} {what}{'' if one else 's'} {verb} before no longer exist{'s' if one else ''} and "
            f"{'was' if one else 'were'} skipped: " + ", ".join(gone))


def window_title(runs_dir: Path) -> str:
    """The main window's title: "runs in <parent>/<folder>" (the last two parts of the runs folder, the home folder
    as "~"), not the whole path: a deep path filled the title bar and pushed the app's name out of it. The status
    bar and the File menu name the whole folder."""
    path = Path(runs_dir).expanduser()
    home = Path.home()
    if path == home:
        return "runs in ~"
    short = f"~/{path.name}" if path.parent == home else str(Path(*path.parts[-2:]))
    return f"runs in {short}"
