"""`bert-explorer group --curve`'s planning, time estimate and summary (explorer/core/studies/learning_curve.py,
curve_results.py); explorer/commands/group.py runs the members and scores the curve.
"""

from __future__ import annotations

import argparse
from pathlib import Path



def plan_curve_group(args: argparse.Namespace, base):
    """(Group, member config paths, runs folder, member training rows, base, notes): a new curve group written
    here, or the existing one of that name read back. ``base``: the TrainConfig of the training flags.
    Raises ConfigError / GroupError / LearningCurveError / data errors."""
    from explorer.core.errors import ConfigError
    from explorer.core.studies.groups import GROUP_FILE, group_dir, load_group_file
    from explorer.core.studies.learning_curve import start_learning_curve
    from explorer.paths import default_runs_dir

    if args.restarts is not None or args.seeds is not None or args.grid or args.cv is not None:
        raise ConfigError("--curve makes one member per size; leave out --restarts / --seeds / --grid / --cv")
    if getattr(args, "resume", None):
        raise ConfigError("--resume continues one run; give the same --curve command again to resume the group")
    if base.run_id:
        raise ConfigError("--run-name names one run; a group names its members <group>-01, <group>-02, ...")
    runs_dir = Path(base.output_dir).expanduser() if base.output_dir else default_runs_dir()
    folder = group_dir(runs_dir, args.group_name)
    if (folder / GROUP_FILE).is_file():
        group = load_group_file(folder / GROUP_FILE)
        if group.kind != "curve":
            raise ConfigError(f"group {group.name!r} already exists and is not a learning curve; choose another "
                              "--group name")
        paths = [folder / "configs" / f"{m.run_id}.json" for m in group.members]
        rows = [int(m.params.get("train_rows", 0)) for m in group.members]
        return group, paths, runs_dir, rows, base, [f"resuming: sizes and member configs as written in {folder}"]
    group, configs, note = start_learning_curve(base, runs_dir, args.group_name, args.curve)
    paths = [group_dir(runs_dir, group.name) / "configs" / f"{c.run_id}.json" for c in configs]
    return group, paths, runs_dir, [int(m.params["train_rows"]) for m in group.members], base, [note]


def estimate_line(base, runs_dir: Path, rows: list[int]) -> str:
    """The time the members will take here, from this machine's measured speed for the model."""
    from explorer.core.models.speed import measured_speed
    from explorer.core.runs.throughput import estimate_text
    from explorer.core.studies.learning_curve import curve_samples

    return estimate_text(curve_samples(base, rows), measured_speed(runs_dir, base.model, base.task),
                         on_top="each size's evaluations and the dev predictions come on top",
                         budget_seconds=60.0 * float(base.time_budget_minutes or 0.0), after="the dev predictions")


def curve_summary_lines(runs_dir: Path, name: str, task: str | None = None) -> list[str]:
    """The curve's figures as collect_curve last wrote them (core.studies.curve_results.curve_lines)."""
    from explorer.core.studies.curve_results import curve_lines

    return curve_lines(runs_dir, name, task)
