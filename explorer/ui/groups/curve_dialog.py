"""The Groups page's "Learning curve…": what the curve will run and how long it takes, asked before anything
is written; then the group of ``bert-explorer group --curve`` (core.studies.learning_curve.start_learning_curve)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtWidgets import QMessageBox


def curve_question(plan_record: dict, train_name: str, estimate_text: str) -> str:
    """The confirmation text: the sizes, the shared dev rows and the time estimate."""
    sizes = ", ".join(f"{n} ({100 * f:g}%)" for n, f in zip(plan_record["sizes"], plan_record["fractions"]))
    dev = (f"{plan_record['dev_rows']} rows of {train_name} held out once" if plan_record["dev_held_out"]
           else f"the dev file {Path(plan_record['dev']).name}")
    return (f"Queue a learning curve of {train_name}: {len(plan_record['sizes'])} runs on {sizes} training rows "
            f"(nested, stratified), every one scored on the same dev rows ({dev}), beside a TF-IDF baseline fitted "
            f"on the same rows? They run one after another.\n\n{estimate_text}")


def confirm_learning_curve(tab, base, estimate=None):
    """Plan the curve from ``base`` (the Launch tab's TrainConfig), ask with :func:`curve_question`, and on yes
    write it (start_learning_curve) and return (group, configs); None when cancelled or refused (the reason on
    ``tab.message``). Raises GroupError / UserError (a taken name, unusable data)."""
    from explorer.core.studies.groups import GROUP_FILE, group_dir
    from explorer.core.studies.learning_curve import plan_learning_curve, start_learning_curve

    if not base.train or not Path(base.train).expanduser().is_file():
        tab.message.setText("A learning curve needs a local training file: choose one in the Launch tab.")
        return None
    name = tab.group_name.text().strip() or f"{Path(base.train).stem}-curve"
    if (group_dir(tab.runs_dir, name) / GROUP_FILE).exists():
        tab.message.setText(f"A group named {name} exists; type another name in the new group name box.")
        return None
    base = dataclasses.replace(base, output_dir=str(tab.runs_dir), run_id="", train_cap=0)
    _, _, _, record = plan_learning_curve(base, tab.runs_dir, name)
    text = curve_question(record, Path(base.train).name, estimate(record["sizes"]) if estimate else "")
    if QMessageBox.question(tab, "Learning curve", text) != QMessageBox.StandardButton.Yes:
        return None
    group, configs, _ = start_learning_curve(base, tab.runs_dir, name)
    tab.refresh()
    return group, configs
