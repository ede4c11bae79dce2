"""`bert-explorer group --curve`: a learning curve as a run group (explorer/core/studies/learning_curve.py).

Plans the sizes (or reads back the group of that name), prints the time estimate before the first member
starts, runs the members not finished one after the other (each its own ``bert-explorer train --config``
child), then predicts the shared dev rows with each member's checkpoints/last and prints each size's figure
with its interval beside the bag-of-words baseline, and the fitted curve's next doubling
(explorer/core/studies/curve_results.py). The same command again resumes the group.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

from explorer.core.errors import exits_on_user_error


def plan_curve_group(args: argparse.Namespace):
    """(Group, member config paths, runs folder, member training rows, notes): a new curve group written
    here, or the existing one of that name read back. Raises ConfigError / GroupError / LearningCurveError /
    data errors."""
    from explorer.commands.group import GROUP_ONLY
    from explorer.core.errors import ConfigError
    from explorer.core.studies.groups import GROUP_FILE, group_dir, load_group_file
    from explorer.core.studies.learning_curve import start_learning_curve
    from explorer.paths import default_runs_dir
    from explorer.worker.train import config_from_args

    if args.restarts is not None or args.seeds is not None or args.grid or args.cv is not None:
        raise ConfigError("--curve makes one member per size; leave out --restarts / --seeds / --grid / --cv")
    if getattr(args, "resume", None):
        raise ConfigError("--resume continues one run; give the same --curve command again to resume the group")
    train_args = argparse.Namespace(**{k: v for k, v in vars(args).items() if k not in GROUP_ONLY})
    base = config_from_args(train_args)
    if base.run_id:
        raise ConfigError("--run-id names one run; a group names its members <group>-01, <group>-02, ...")
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
    from explorer.core.runs.throughput import estimate_text, measured_speed
    from explorer.core.studies.learning_curve import curve_samples

    return estimate_text(curve_samples(base, rows), measured_speed(runs_dir, base.model),
                         on_top="each size's evaluations and the dev predictions come on top")


def curve_summary_lines(runs_dir: Path, name: str, task: str | None = None) -> list[str]:
    """The curve's figures as collect_curve last wrote them (curve_result.json), or why there are none."""
    from explorer.core.specs.metric_display import metric_label
    from explorer.core.studies.curve_results import read_curve_result

    data = read_curve_result(runs_dir, name)
    if data is None:
        return ["learning curve: not scored yet (give the group's --curve command again)"]
    from explorer.core.metrics.intervals import FigureInterval
    from explorer.core.metrics.optimism import OptimismMark
    from explorer.core.studies.curve_results import CurveResult, SizePoint

    def fig(d):
        return FigureInterval(**d) if d else None

    result = CurveResult(group=data["group"], metric=data["metric"], n_dev=data["n_dev"],
                         points=[SizePoint(fraction=p["fraction"], train_rows=p["train_rows"], run_id=p["run_id"],
                                           model=fig(p["model"]), baseline=fig(p["baseline"]), versus=p["versus"])
                                 for p in data["points"]],
                         fit=data.get("fit"), fit_note=data.get("fit_note", ""), baseline_fit=data.get("baseline_fit"),
                         marks=[OptimismMark(**m) for m in data.get("marks", [])], notes=data.get("notes", []))
    return result.lines(metric_label(result.metric, task))


@exits_on_user_error
def run_curve(args: argparse.Namespace) -> int:
    """Plan or resume, estimate, run the members, score the curve; exit codes as `bert-explorer group`."""
    from explorer.commands.group import _member_command, summary_lines
    from explorer.core.data.classification import ClassificationDataError
    from explorer.core.errors import ConfigError, UserError, as_user_error
    from explorer.core.studies.curve_results import collect_curve
    from explorer.core.studies.groups import GroupError

    try:
        group, config_paths, runs_dir, rows, base, notes = plan_curve_group(args)
    except (ConfigError, GroupError, ClassificationDataError, ValueError) as exc:
        raise as_user_error(exc) from None
    for n in notes + [estimate_line(base, runs_dir, rows)]:
        print(f"group {group.name}: {n}", file=sys.stderr)
    if args.plan_only:
        for config_path in config_paths:
            print(f"bert-explorer train --config {shlex.quote(str(config_path))}")
        return 0
    failed = []
    for member, config_path in zip(group.members, config_paths):
        cmd = _member_command(runs_dir / member.run_id, config_path)
        size = f"{100 * float(member.params.get('fraction', 0)):g}%, {member.params.get('train_rows')} rows"
        if cmd is None:
            print(f"group {group.name}: {member.run_id} ({size}) already done; kept", file=sys.stderr)
            continue
        print(f"group {group.name}: starting {member.run_id} ({size})", file=sys.stderr)
        try:
            rc = subprocess.call(cmd)
        except KeyboardInterrupt:
            print(f"group {group.name}: interrupted during {member.run_id}; give the same command again to "
                  "continue", file=sys.stderr)
            return 130
        if rc != 0:
            failed.append(f"{member.run_id} (exit {rc})")
    print(f"group {group.name}: predicting the dev rows (checkpoints/last of each size) and fitting the baseline",
          file=sys.stderr)
    try:
        result = collect_curve(runs_dir, group, batch_size=args.batch_size or 32)
    except (UserError, ValueError) as exc:
        raise as_user_error(exc) from None
    print("\n".join(summary_lines(runs_dir, group.name)))
    if failed or any(p.model is None for p in result.points):
        print(f"group {group.name}: {len(failed)} member(s) did not finish: {', '.join(failed) or '-'}",
              file=sys.stderr)
        return 1
    return 0
