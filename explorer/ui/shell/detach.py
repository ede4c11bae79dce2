"""Quitting while runs are active, and runs left training by an earlier window.

A worker is a separate process started in its own session (explorer.ui.runs.runner), writing every event
to ``<run>/events.jsonl`` and its pid to ``<run>/worker.pid``. So quitting can leave it training: the
window exits without tearing its QProcess objects down (their destructor would kill the child), the
worker carries on (its event writer stops writing to the closed stdout pipe and keeps the log), and
the next window lists it as running (the pid is alive), follows its log and can stop it early (STOP
file) or cancel it (SIGTERM to the pid).
"""

from __future__ import annotations

from typing import Callable, Iterable

from PySide6.QtWidgets import QMessageBox, QWidget

from explorer.core.runs.workers import terminate_worker, worker_pid  # noqa: F401 - the worker's pid and SIGTERM: core/runs/workers

from explorer.ui.shell.quitting import CANCEL, LEAVE, STOP, QuitPlan  # noqa: F401 - the answers, decided in quitting


def _listed(names: list[str]) -> str:
    return ", ".join(names[:3]) + ("…" if len(names) > 3 else "")


def quit_text(running: list[str], queued: list[str], remote: list[tuple[str, str]] = ()) -> tuple[str, str]:
    """(text, informative text) of the quit question: the runs of this machine, then the remote runs this window
    follows ((run, host) pairs), which keep training on their hosts whatever the choice (naming only the local
    run would leave unclear whether "Cancel run and quit" ends the remote one too). With only remote runs the
    question is a notice: they go on on their hosts and are followed again at the next start. With none left (the
    runs ended while the question was open) it says so: quitting then acts on no run."""
    if not (running or queued or remote):
        return "The runs have ended: none is training or queued any more.", "Quit closes the window."
    if remote and not (running or queued):
        shown = [f"{run} on {host}" for run, host in remote]
        return (f"{len(remote)} remote run(s) followed ({_listed(shown)}): they go on on their host and are followed "
                "again at the next start.",
                "Quit closes this window only. To stop a remote run, use Stop early or Cancel in the Runs list first.")
    text = (f"{len(running)} run(s) training ({_listed(running)})" if running else "No run is training here") + \
        (f", {len(queued)} queued" if queued else "") + "."
    if remote:
        shown = [f"{run} on {host}" for run, host in remote]
        text += (f"\n{len(remote)} remote run(s) followed ({_listed(shown)}): they keep training on their host "
                 "whatever you choose.")
    info = ("Leave it training: the worker process goes on without this window; the next start shows it "
            "again. Queued runs do not start; the next start offers them again in one click (a group's runs "
            "with their group).\n"
            "Stop early and quit: the runs finish their step, save and evaluate, then the window closes.\n"
            "Cancel run and quit: terminate the workers now (logged points and checkpoints stay on disk).")
    if remote:
        info += ("\nThe buttons act on the runs of this machine only. A remote run goes on on its host and is "
                 "followed again at the next start; to stop it, use Stop early or Cancel in the Runs list first.")
    return text, info


def ask_quit(parent: QWidget, running: list[str], queued: list[str], remote: list[tuple[str, str]] = (), *,
             current: Callable[[], QuitPlan] | None = None, updates: Iterable = ()) -> str | None:
    """Ask what to do with active runs on quit: LEAVE, STOP, CANCEL (Quit when only remote runs are followed, or
    when none is left), or None (do not quit). ``remote``: the (run, host) pairs of the remote runs followed, named
    as going on on their hosts (:func:`quit_text`).

    The question stays open while the runs go on. ``current`` (the runs now, as a QuitPlan) is read again on each
    signal of ``updates`` (the run store's ``changed`` / ``ended``): a run that ends meanwhile leaves the text, and
    Leave it training / Stop early and quit go when no run of this machine trains any more, so the question names
    the runs the Runs list shows as training. The caller acts on the runs as they are at the answer."""
    box = QMessageBox(QMessageBox.Icon.Question, "Runs are still active", "", parent=parent)
    leave = box.addButton("Leave it training", QMessageBox.ButtonRole.AcceptRole)
    stop = box.addButton("Stop early and quit", QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton("", QMessageBox.ButtonRole.DestructiveRole)
    keep = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(keep)

    def show(running: list[str], queued: list[str], remote: list[tuple[str, str]]) -> None:
        text, info = quit_text(running, queued, list(remote))
        if (text, info) != (box.text(), box.informativeText()):   # a step event changes nothing here
            box.setText(text)
            box.setInformativeText(info)
        leave.setHidden(not running)
        stop.setHidden(not running)
        cancel.setText("Cancel run and quit" if running or queued else "Quit")

    def refresh(*_args) -> None:
        plan = current()
        show(plan.running, plan.queued, plan.remote)

    show(running, queued, remote)
    signals = list(updates) if current is not None else []
    for signal in signals:
        signal.connect(refresh)
    try:
        box.exec()
    finally:
        for signal in signals:
            signal.disconnect(refresh)
    clicked = box.clickedButton()
    answers = {id(leave): LEAVE, id(stop): STOP, id(cancel): CANCEL}
    return answers.get(id(clicked)) if clicked is not None and not clicked.isHidden() else None


terminate_external = terminate_worker   # a run this window did not start (explorer.core.runs.workers.terminate_worker)
