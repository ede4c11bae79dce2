"""Runs-list actions for a paper: a cross-validation group's suspected label errors, a run's replication capsule
(and, through explorer.ui.runs.baseline_jobs, its bag-of-words baseline). The work is core's
(core/studies/label_issues.group_label_issues, core/studies/capsule); here it is started with a wait cursor and its
result shown (a Predictions page, a message box)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from explorer.core.errors import UserError


class _Waiting:
    """A wait cursor over a few seconds of work in the GUI process (no torch: cleanlab, hashing)."""

    def __enter__(self):
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)

    def __exit__(self, *exc):
        QApplication.restoreOverrideCursor()


def open_label_issues(window, runs_dir: str | Path, name: str, *, ask=QMessageBox.information):
    """Flag the suspected label errors of cv group ``name`` and open them, most suspect first, in a Predictions
    page (the given label is its gold column; "Fine-tune on reviewed rows" relabels the training rows). The
    share of suspects per class goes to the status bar. Fold models that learned nothing judge no label: the
    message box says why, and no page opens. Returns the page, or None (said in a message box)."""
    from explorer.core.studies.label_issues import group_label_issues

    try:
        with _Waiting():
            issues, out = group_label_issues(runs_dir, name)
    except UserError as exc:
        ask(window, "Suspected label errors", str(exc))
        return None
    if issues.withheld:   # fold models that learned nothing: no row to review, why instead
        ask(window, "Suspected label errors", f"{name}: no suspected label errors listed: {issues.withheld}")
        return None
    page = window.open_predictions(str(out))
    window.show_message(f"{name}: " + "; ".join(issues.share_lines() + issues.notes), 30000)
    return page


def write_run_capsule(window, run_dir: str | Path, *, ask=QMessageBox.information) -> Path | None:
    """Write ``<run>/capsule`` (explorer.core.studies.capsule) and say where, with its methods paragraph and the
    command that reproduces it. Returns the folder, or None (said in a message box)."""
    from explorer.benchmarks import git_commit
    from explorer.core.studies.capsule import CAPSULE_FOLDER, build_capsule, read_capsule, write_capsule

    run_dir = Path(run_dir)
    try:
        with _Waiting():
            folder = write_capsule(build_capsule(run_dir, commit=git_commit()), run_dir / CAPSULE_FOLDER)
            doc = read_capsule(folder)
    except (UserError, OSError, ValueError) as exc:
        ask(window, "Replication capsule", f"No capsule for {run_dir.name}: {exc}")
        return None
    methods = (folder / "methods.md").read_text(encoding="utf-8").strip()
    ask(window, "Replication capsule", f"Written to {folder}\n\n{methods}\n\nReproduce it with:\n{doc['commands'][-1]}")
    window.show_message(f"capsule of {run_dir.name}: {folder}", 15000)
    return folder


def add_label_issues_action(menu, runs_dir, name: str, request) -> None:
    """A group menu's "Suspected label errors…", on when ``name`` is a cross-validation group whose out-of-fold
    predictions are all in; ``request(name)`` when chosen."""
    from explorer.core.studies.cv_runs import OOF_FILE
    from explorer.core.studies.groups import group_dir

    action = menu.addAction("Suspected label errors…", lambda: request(name))
    action.setEnabled(runs_dir is not None and (group_dir(runs_dir, name) / OOF_FILE).is_file())
    action.setToolTip("A cross-validation group's given labels that its out-of-fold predictions find unlikely "
                      "(cleanlab), most suspect first, in a Predictions page to review and correct")


def add_capsule_action(menu, state, request) -> None:
    """A run menu's "Replication capsule…", on for one ended run with a folder (``state``: its RunState or
    None); ``request(run folder)`` when chosen."""
    action = menu.addAction("Replication capsule…", lambda: request(str(state.path)))
    action.setEnabled(state is not None and state.path is not None and not state.is_live)
    action.setToolTip("Write <run>/capsule: config, command lines, data hashes, seed, versions, figures with "
                      "intervals, calibration, baselines and a methods paragraph (bert-explorer capsule)")


def add_run_research_actions(menu, state, panel) -> None:
    """A run menu's research entries: "Replication capsule…" (``panel.capsule_requested``) and "Compute bag-of-words
    baseline" (explorer.ui.runs.baseline_jobs, in a child process); ``state``: the one selected run or None."""
    from explorer.ui.runs.baseline_jobs import add_baseline_action

    add_capsule_action(menu, state, panel.capsule_requested.emit)
    add_baseline_action(menu, state, panel)
