"""What the Groups page does for the main window before (and after) the page is built: the Runs dock's group
rows, its "Compare two classifiers" and the Launch tab's "Queue paper grid" (the Groups and Compare pages are
built on first need, explorer.ui.shell.lazy_pages, but these must work from the start).

``wire(window)`` is the registry's start-up hook of the Groups provider (registry.wiring()); it imports no
page module. Each action reaches the Groups page through ``window.groups_tab``, which builds it when needed.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer

from explorer.ui.inspectors.registry import GROUPS


def wire(window) -> None:
    """Connect the Runs dock's and the launcher's group actions of ``window`` (a MainWindow) to the Groups page."""
    def show_group(name: str) -> None:   # a group row of the Runs dock: its curves and table
        groups = window.groups_tab
        groups.select_group(name)
        window.tabs.setCurrentWidget(groups)

    def groups_changed() -> None:   # a page not built yet reads the folder when it is
        if window.page_sets.built(GROUPS) is not None:
            groups = window.groups_tab
            groups.runs_dir = Path(window.runs_dir)
            groups.refresh()

    def compare_classifiers(runs: list) -> None:   # Runs dock: two classification runs, is the difference real?
        from explorer.ui.groups.classifier_compare import ClassifierCompareWindow

        def show(paths: list[str]) -> None:   # the checkpoints here, or on the host the inspectors moved to
            shown = ClassifierCompareWindow([dict(r, source=p) for r, p in zip(runs, paths)], parent=window)
            window.classifier_comparisons = [w for w in getattr(window, "classifier_comparisons", [])
                                             if w.isVisible()]
            window.classifier_comparisons.append(shown)
            shown.show()
        # a remote run's checkpoint: inspect on its host or fetch a copy, asked (or remembered) as for Open best
        window.remote_inspect.prepare([(window.remote.run_for_path(r["source"]), r["source"]) for r in runs], show)

    window.runs.runs_dir_getter = lambda: Path(window.runs_dir)
    window.runs.group_selected.connect(show_group)
    window.runs.classifiers_compare_requested.connect(compare_classifiers)
    window.runs.groups_changed.connect(groups_changed)
    follow_new_groups(window)
    # every "Queue paper grid" (Launch tab, Run menu, Groups tab) asks first with the count and the estimated
    # time, then queues the grid as a run group
    window.launcher.group_grid = lambda: queue_group(window, "grid")
    window.never_started_offer = None   # the "Queue them again" button once the window is built, when runs wait
    QTimer.singleShot(0, window, lambda: setattr(window, "never_started_offer", offer_never_started(window)))


GROUPS_SETTLE_MS = 300   # runs listed one after the other (a scan, a group's members) re-read the groups once


def follow_new_groups(window) -> QTimer:
    """A run the Runs list learns of that no listed group holds (a ``bert-explorer group`` started in a terminal
    writes its group.json, then its members' folders appear in the runs folder) re-reads the groups: the Runs
    list puts it under its group's row and the Groups page (through ``groups_changed``) lists the group, without
    Refresh. Runs listed together are re-read once; a scan re-reads the groups at its end anyway. Returns the
    timer that gathers them."""
    timer = QTimer(window, singleShot=True, interval=GROUPS_SETTLE_MS)

    def reload() -> None:
        if not window.runs.loading:
            window.runs.reload_groups()

    def added(state) -> None:
        if state.run_id not in window.runs.model.group_of and not window.runs.loading:
            timer.start()

    timer.timeout.connect(reload)
    window.store_events.added.connect(added)
    return timer


def offer_never_started(window):
    """Once the window is built (its status bar in place): the members of groups with a config but no run folder (queued when the app last closed,
    explorer.core.studies.groups.never_started_members) are offered in one click, a button in the status bar
    that names them ("2 run(s) of cv-x were queued and never started: Queue them again"); None when there are
    none, else the button."""
    from explorer.core.studies.groups import never_started_members
    from explorer.ui.shell.offer_button import offer_button

    found = never_started_members(window.runs_dir, busy=set(window.manager.states))
    if not found:
        return None
    text = "; ".join(f.sentence() for f in found)
    button = offer_button(text + ": Queue them again",
                          text + " (queued when the app last closed, or dropped from the queue); their settings are "
                          "kept in the group's configs folder. Click to queue them again under their run ids.",
                          "queue_never_started")

    def queue_again() -> None:
        window.statusBar().removeWidget(button)
        button.deleteLater()
        queued = requeue_never_started(window, found)
        window.show_message(f"Queued again: {queued} run(s)", 8000)

    button.clicked.connect(queue_again)
    window.statusBar().addPermanentWidget(button)
    return button


def requeue_never_started(window, found) -> int:
    """Queue each group's never-started members under their own run ids and follow the group as when it was
    queued (its progress, and a cv group's held-out folds predicted once its last fold ends); the count queued."""
    import json
    import shutil
    from pathlib import Path

    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.studies.groups import cancelled_while_queued

    from explorer.core.errors import UserError

    count = 0
    window.runs.reload_groups()
    for item in found:
        try:
            configs = [TrainConfig.from_dict(json.loads(p.read_text(encoding="utf-8"))) for p in item.configs]
            for cfg in configs:   # the record of a queued run cancelled at quit gives way to the run itself
                folder = Path(window.runs_dir) / cfg.run_id
                if folder.is_dir() and cancelled_while_queued(folder):
                    shutil.rmtree(folder)
            ids = window.manager.enqueue(configs)   # this machine's runs folder holds the group and its configs
        except (OSError, ValueError, UserError) as exc:   # a config edited or its data gone since
            window.groups_tab.message.setText(f"{item.group}: its never-started runs could not be queued: {exc}")
            continue
        window.groups_tab.follow_group(item.group, ids, window.store_events)
        count += len(ids)
    return count


def _cv_estimate(window):
    """estimate(k) for the Cross-validate dialog: K fold runs of the Launch tab's settings at the samples/s that
    past runs of the same model measured on this machine (the paper grid's figure, grid_estimate), and the disk
    their checkpoints take (core.studies.cv.fold_disk_line)."""
    from explorer.ui.launch.grid_estimate import cv_estimate, measured_throughput

    from explorer.core.models.sources import weight_bytes
    from explorer.core.studies.cv import fold_disk_line

    base = window.launcher.config()
    speed = measured_throughput(window.launcher.past_runs(), base.model, base.task)
    n = window.launcher.train_examples()
    weights = weight_bytes(base.model)   # the folds' checkpoints are this size x what each keeps x K

    def estimate(k: int) -> str:
        disk = fold_disk_line(weights, k)
        return cv_estimate(base, k, n, speed) + (f"\n{disk[0].upper()}{disk[1:]}." if disk else "")
    return estimate


def _curve_estimate(window):
    """estimate(sizes) for the learning curve: the runs' training samples at the samples/s past runs of the same
    model measured on this machine (grid_estimate.curve_estimate, as the paper grid's and cross-validation's), and
    when its time budget leaves the sizes it stops too few steps to learn."""
    from explorer.ui.launch.grid_estimate import curve_estimate, measured_throughput

    base = window.launcher.config()
    speed = measured_throughput(window.launcher.past_runs(), base.model, base.task)
    return lambda sizes: curve_estimate(base, sizes, speed)


def queue_group(window, kind: str) -> bool:
    """Queue the Groups page's group of ``kind`` ("restarts", "grid", "cv", "curve") from the Launch tab's settings;
    False when it could not (the page's message line says why)."""
    from explorer.core.errors import UserError
    from explorer.core.studies.groups import GroupError

    groups = window.groups_tab
    note = ""
    try:
        if kind == "curve":   # the same group as `group --curve` (core.studies.learning_curve.start_learning_curve)
            planned = groups.learning_curve(window.launcher.config(), estimate=_curve_estimate(window))
            if planned is None:
                return False
            group, configs = planned
        elif kind == "cv":   # the same group as `group --cv K` (core.studies.cv_runs.start_cv_group)
            columns = (window.launcher.train_preview.result or {}).get("columns") or []
            planned = groups.cross_validate(window.launcher.config(), columns, estimate=_cv_estimate(window))
            if planned is None:
                return False
            group, configs = planned
            note = f" ({groups.cv_note})"
        else:
            group, configs = groups.plan_group(kind, window.launcher.config())
    except (GroupError, UserError, ValueError) as exc:
        groups.message.setText(str(exc))
        return False
    window.runs.reload_groups()   # the members go under the group's row of the Runs dock as they are added
    ids = window.launch(configs)
    groups.message.setText(f"Queued group {group.name}: {len(ids)} runs{note}")
    groups.follow_group(group.name, ids, window.store_events)   # its progress, time left and Cancel
    return True
