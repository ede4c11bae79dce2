"""`bert-explorer group`: queue N restarts of one configuration, or the paper's grid, as a named group.

Usage::

    bert-explorer group --group mrpc-seeds --restarts 3 --model bundled:minilm --task pair --train ... --dev ...
    bert-explorer group --group mrpc-seeds --seeds 1,2,3 --config run.json
    bert-explorer group --group squad-grid --grid paper --config run.json [--seeds 1,2]
    bert-explorer group ... --plan-only        # write group.json and the member configs, start nothing
    bert-explorer group --group mrpc-seeds --summary [--output-dir RUNS]   # the spread of a group's runs
    bert-explorer group --group mrpc-cv --cv 5 --model bundled:minilm --task pair --train train.tsv
                                               # 5-fold cross-validation; the same line again resumes it
    bert-explorer group --group stance-curve --curve --model bundled:minilm --task single --train train.txt
                                               # a learning curve: 12.5, 25, 50, 100% of the training rows

Every training flag of ``bert-explorer train`` is accepted and applies to every member. The group file
(explorer/core/studies/groups.py) is written before the first member starts; then the members run one after
the other, each as its own ``bert-explorer train --config`` child process, so a member that fails or is
killed never stops the group file from being read, and the next member still runs. The members' JSON events
become a few human lines on stderr (explorer/commands/group_members.py); the summary goes to stdout.

``--cv K`` (explorer/core/studies/cv_runs.py): K seeded folds of ``--train`` (stratified by label; SQuAD grouped by
article title; ``--cv-group-column COL`` keeps each value of COL in one fold), written once to the group folder
with folds.json; member i trains on the other folds with fold i as its dev set; then each fold's held-out
predictions are those of its member's final model (checkpoints/last): a table fold's taken from the rows its final
evaluation kept (dev_outputs.json), a SQuAD fold's predicted again (cached per fold), and ``oof_predictions.csv``
(predict's columns + fold) and the pooled out-of-fold metrics are written. Giving the same command again reuses the folds, skips the
finished members, resumes an unfinished one and predicts only the folds not yet predicted.

Exit codes: 0 every member finished, 1 some member did not, 2 unusable arguments, 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from pathlib import Path

from explorer.core.errors import exits_on_user_error


def _predict_batch(args) -> int:
    """Inputs per forward pass when the members' checkpoints predict the held-out folds or the dev rows: the given
    --batch-size, else 32 (the train flags are absent from ``args`` unless given: argparse.SUPPRESS)."""
    return int(getattr(args, "batch_size", 0) or 32)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The train flags (explorer.worker.train.add_arguments) plus the group's own."""
    from explorer.worker.train import add_arguments as train_arguments

    train_arguments(parser)
    parser.description = ("Queue N restarts of one configuration, or the paper's grid, as a named group in the "
                          "runs folder (group.json), then run the members one after the other.")
    parser.epilog = "Exit codes: 0 every member finished, 1 some member did not, 2 unusable arguments."
    g = parser.add_argument_group("group")
    g.add_argument("--group", dest="group_name", required=True, metavar="NAME",
                   help="the group's name (a folder name); members are named NAME-01, NAME-02, ...")
    g.add_argument("--restarts", type=int, default=None, metavar="N",
                   help="N restarts of the configuration with generated seeds (or give --seeds)")
    g.add_argument("--seeds", type=_seed_list, default=None, metavar="S1,S2",
                   help="the seeds of the restarts (a grid runs every point once per seed)")
    g.add_argument("--grid", choices=["paper"], default=None,
                   help="paper: batch_size 16,32 x learning_rate 5e-5..2e-5 x epochs 2,3,4 (24 runs per seed)")
    g.add_argument("--cv", type=int, default=None, metavar="K",
                   help="K-fold cross-validation of --train: one member per fold (trained on the other K-1, dev = "
                        "the held-out fold), then one out-of-fold prediction per example (oof_predictions.csv in "
                        "the group folder) and the pooled metrics")
    g.add_argument("--cv-group-column", default="", metavar="COL",
                   help="with --cv: keep all rows with the same value of COL (name or 1-based position) in one "
                        "fold, e.g. one author or one target per fold (default: stratified by label; SQuAD: by "
                        "article title)")
    g.add_argument("--curve", nargs="?", const=_fraction_list("12.5,25,50,100"), type=_fraction_list, default=None,
                   metavar="P1,P2", help="a learning curve: one member per share of the training rows (default "
                        "12.5,25,50,100 percent; nested, stratified subsets), all scored on the same dev rows "
                        "(--dev, else --dev-fraction held out once); then each size's figure with its 95%% "
                        "interval, the TF-IDF baseline beside it, and the fitted curve's next doubling")
    g.add_argument("--plan-only", action="store_true",
                   help="write group.json and the member configs, print the train commands, start nothing")
    g.add_argument("--summary", action="store_true",
                   help="print the group's per-run table and the mean ± sd (best, worst) of every final dev metric "
                        "of an existing group in --output-dir; start nothing")
    g.add_argument("--versus", default=None, metavar="OTHER",
                   help="with --summary: Welch's t test of every final dev metric, this group against group OTHER "
                        "(e.g. two learning rates over restarts)")


GROUP_ONLY = ("group_name", "restarts", "seeds", "grid", "plan_only", "summary", "versus", "cv", "cv_group_column",
              "curve")


def _fraction_list(text: str) -> list[float]:
    """"12.5,25,50,100" (percent) -> [0.125, 0.25, 0.5, 1.0]."""
    try:
        values = [float(part) / 100 for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--curve takes percentages separated by commas, got {text!r}") from None
    if not values or any(not 0 < v <= 1 for v in values) or values != sorted(values):
        raise argparse.ArgumentTypeError(f"--curve takes ascending percentages above 0 and at most 100, got {text!r}")
    return values


def _seed_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seeds takes whole numbers separated by commas, got {text!r}") from None


def plan(args: argparse.Namespace):
    """(Group, member TrainConfigs, runs folder) from the arguments. Raises ConfigError / GroupError."""
    from explorer.core.errors import ConfigError
    from explorer.core.studies.groups import generate_seeds, plan_grid, plan_restarts
    from explorer.paths import default_runs_dir
    from explorer.worker.train import config_from_args

    if getattr(args, "resume", None):
        raise ConfigError("--resume continues one run; resume a group member with `bert-explorer train --resume`")
    train_args = argparse.Namespace(**{k: v for k, v in vars(args).items() if k not in GROUP_ONLY})
    base = config_from_args(train_args)
    if base.run_id:
        raise ConfigError("--run-name names one run; a group names its members <group>-01, <group>-02, ...")
    runs_dir = Path(base.output_dir).expanduser() if base.output_dir else default_runs_dir()
    seeds = args.seeds
    if args.restarts is not None and seeds is not None and len(seeds) != args.restarts:
        raise ConfigError(f"--restarts {args.restarts} but {len(seeds)} --seeds given; give one or the other")
    if args.grid:
        group, configs = plan_grid(base, args.group_name, seeds or None)
    else:
        if seeds is None:
            if args.restarts is None:
                raise ConfigError("say what the group is: --restarts N, --seeds S1,S2,... or --grid paper")
            seeds = generate_seeds(args.restarts, seed=base.seed)
        group, configs = plan_restarts(base, args.group_name, seeds)
    configs = [c.__class__(**{**c.to_dict(), "output_dir": str(runs_dir)}) for c in configs]
    return group, configs, runs_dir


def write_member_configs(runs_dir: Path, group, configs) -> list[Path]:
    """Each member's TrainConfig as ``.groups/<name>/configs/<run_id>.json`` (explorer.core.studies.groups)."""
    from explorer.core.studies.groups import write_member_configs as write

    return write(runs_dir, group, configs)


def summary_lines(runs_dir: Path, name: str, versus: str | None = None) -> list[str]:
    """The group's table (one line per member: status, varied settings, final and best dev metric) and one
    line per final dev metric: mean ± sd (best, worst, n) and the 95% t interval over the members (a learning
    curve: the metric at each size instead, as its members train on different rows); with
    ``versus`` (another group's name) Welch's test of each metric, this group against that one.
    Raises GroupError."""
    from explorer.core.studies.group_stats import (
        final_metric_intervals,
        final_metric_stats,
        group_table,
        per_size_lines,
        welch_lines,
    )
    from explorer.core.studies.groups import load_group_data

    group, members, notes = load_group_data(runs_dir, name)
    table = group_table(members, list(group.varied))
    lines = [f"group {group.name}: {group.kind}, {len(members)} runs, varied {', '.join(group.varied)}"]
    if group.kind == "cv":
        grouping = (f"grouped by {group.cv['group_column']}" if group.cv.get("group_column")
                    else "folds stratified by label" if group.cv.get("data") == "table" else "grouped by article title")
        lines[0] += f"; {group.cv.get('k')}-fold cross-validation of {group.cv.get('source')}, {grouping}"
        from explorer.core.studies.cv_runs import group_rare_note

        if rare := group_rare_note(group):
            lines.append(f"  {rare}")
    def figure(v) -> str:   # a member that ended without a dev evaluation has no figure, never "nan"
        return "—" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4f}"

    for row in table.rows:
        params = " ".join(f"{k}={row[k]}" for k in group.varied)
        lines.append(f"  {row['run_id']:<24} {row['status']:<9} {params}  final {table.label} "
                     f"{figure(row['final'])}  best {figure(row['best'])}")
    from explorer.core.metrics.optimism import figure_marks, mark_lines
    from explorer.core.specs.metric_display import metric_label

    figures = any(figure(row["best"]) != "—" for row in table.rows)
    if figures:
        lines += mark_lines(figure_marks(chosen_on_rows=("each run's best evaluation (the best column)",)))
    else:
        lines.append("no member has a dev figure yet (none has finished an evaluation): no mean to give")
    from explorer.core.studies.cv_runs import read_oof
    from explorer.core.studies.group_classes import members_class_note

    oof = read_oof(runs_dir, name) if group.kind == "cv" else None
    if not (oof is not None and oof.one_class_note(group.base)):   # a cv's pooled note says it for every fold
        if stuck := members_class_note(group, members, table.best.sd if table.best.has_spread else None):
            lines.append(f"note: {stuck.text}")
    task = next((m.task for m in members if m.task), None)
    intervals = final_metric_intervals(members)
    for metric, st in final_metric_stats(members).items() if group.kind != "curve" and figures else ():
        ci = intervals[metric]
        lines.append(f"final {metric_label(metric, task)}: {st.text(4)}")
        if ci.n > 1:
            lines.append(f"  95% t interval of the mean: {ci.bounds_text(4)} (n {ci.n})")
    if group.kind == "curve":   # each size trains on other rows: its figures size by size, never a mean across
        lines += [f"final {line}" for line in per_size_lines(members, table.metric_name)]
        from explorer.commands.group_curve import curve_summary_lines

        lines += curve_summary_lines(runs_dir, group.name, task)
    if group.kind == "cv":
        if oof is None:
            lines.append("pooled out-of-fold: not yet (give the group's --cv command again to predict the folds)")
        else:
            lines.append(oof.text(task))
            if oof.path:
                lines.append(f"  out-of-fold predictions: {oof.path}")
            if stuck := oof.one_class_note(group.base):
                lines.append(f"note: {stuck}")
            from explorer.core.studies.cv_baseline import read_cv_baseline

            baseline = read_cv_baseline(runs_dir, name)
            if baseline:
                lines.append(f"against a TF-IDF + logistic regression baseline on the same folds (n {baseline['n']}):")
                lines += [f"  {line}" for line in baseline["lines"]]
        from explorer.core.studies.label_issues import read_group_label_issues

        issues = read_group_label_issues(runs_dir, name)
        if issues is not None and issues.get("withheld"):   # folds that learned nothing judge no label
            lines.append(f"suspected label errors: none listed: {issues['withheld']}")
        elif issues is not None:
            lines.append(f"suspected label errors (cleanlab on the out-of-fold probabilities; review: "
                         f"bert-explorer label-issues --group {name}):")
            lines += [f"  {line}" for line in issues["lines"]]
    if versus:
        _, other, _ = load_group_data(runs_dir, versus)
        lines.append(f"Welch's t test, {name} (B) against {versus} (A):")
        lines += [f"  {line}" for line in welch_lines(other, members, versus, name)]
    return lines + [f"note: {n}" for n in notes]


@exits_on_user_error
def run(args: argparse.Namespace) -> int:
    """Plan, write the group, run the members in turn; the exit code as in the module docstring."""
    from explorer.core.errors import ConfigError, as_user_error
    from explorer.core.studies.groups import GroupError, write_group

    if args.summary:
        from explorer.paths import default_runs_dir

        given = getattr(args, "output_dir", None)   # a train flag, absent from the namespace unless given
        runs_dir = Path(given).expanduser() if given else default_runs_dir()
        try:
            print("\n".join(summary_lines(runs_dir, args.group_name, versus=args.versus)))
        except GroupError as exc:
            raise as_user_error(exc) from None
        return 0

    if args.cv is not None:
        return run_cv(args)
    if args.curve is not None:
        return run_curve(args)
    try:
        group, configs, runs_dir = plan(args)
        path = write_group(runs_dir, group)
    except (ConfigError, GroupError) as exc:
        raise as_user_error(exc) from None
    config_paths = write_member_configs(runs_dir, group, configs)
    kind = {"restarts": "restart", "grid": "grid point"}.get(group.kind, group.kind)
    print(f"group {group.name}: {len(configs)} {kind}{'s' if len(configs) != 1 else ''}, varied {', '.join(group.varied)}; {path}",
          file=sys.stderr)
    commands = [[sys.executable, "-m", "explorer", "train", "--config", str(p)] for p in config_paths]
    if args.plan_only:
        for config_path in config_paths:     # each line runs as it stands (bert-explorer is on PATH once installed)
            print(f"bert-explorer train --config {shlex.quote(str(config_path))}")
        return 0
    from explorer.commands.group_members import say
    from explorer.core.studies.groups import driving

    say(f"group {group.name}: queued " + ", ".join(f"{m.run_id} (seed {m.seed})" for m in group.members))
    with driving(runs_dir, group.name):   # an app started meanwhile leaves the members not yet started to us
        failed = _train_in_order(group, commands, path)
    if failed is None:
        return 130
    print("\n".join(summary_lines(runs_dir, group.name)))
    if failed:
        print(f"group {group.name}: {len(failed)} of {len(commands)} member(s) did not finish: {', '.join(failed)}",
              file=sys.stderr)
        return 1
    return 0


def _train_in_order(group, commands: list[list[str]], path: Path) -> list[str] | None:
    """Run each restart or grid member's train command in turn; the failed ones as "run_id (exit N)", None when
    Ctrl-C stopped one."""
    from explorer.commands.group_members import MemberLines, run_member, say

    failed = []
    for i, (member, cmd) in enumerate(zip(group.members, commands)):
        say(f"group {group.name}: starting {member.run_id} (seed {member.seed}; {i + 1} of {len(commands)})")
        try:
            rc = run_member(cmd, MemberLines(member.run_id, say, info=i == 0))
        except KeyboardInterrupt:   # Ctrl-C reaches the member too: it stops early and saves
            print(f"group {group.name}: interrupted during {member.run_id}; the members after it were not started "
                  f"(group file {path} stays readable)", file=sys.stderr)
            return None
        if rc != 0:
            failed.append(f"{member.run_id} (exit {rc})")
    return failed


def plan_cv_group(args: argparse.Namespace):
    """(Group, member config paths, runs folder, notes) of ``--cv K``: a new group (folds, fold files,
    group.json and member configs written here), or the existing cv group of that name read back (its folds
    reused as written). Raises ConfigError / GroupError / CrossValidationError / data errors."""
    from explorer.core.studies.cv_runs import check_source_unchanged, read_folds, start_cv_group
    from explorer.core.errors import ConfigError
    from explorer.core.studies.groups import GROUP_FILE, group_dir, load_group_file
    from explorer.paths import default_runs_dir
    from explorer.worker.train import config_from_args

    if args.restarts is not None or args.seeds is not None or args.grid:
        raise ConfigError("--cv makes one member per fold; leave out --restarts / --seeds / --grid")
    if getattr(args, "resume", None):
        raise ConfigError("--resume continues one run; give the same --cv command again to resume the group")
    train_args = argparse.Namespace(**{k: v for k, v in vars(args).items() if k not in GROUP_ONLY})
    base = config_from_args(train_args)
    if base.run_id:
        raise ConfigError("--run-name names one run; a group names its members <group>-01, <group>-02, ...")
    runs_dir = Path(base.output_dir).expanduser() if base.output_dir else default_runs_dir()
    folder = group_dir(runs_dir, args.group_name)
    if (folder / GROUP_FILE).is_file():
        group = load_group_file(folder / GROUP_FILE)
        plan_ = read_folds(folder)
        if group.kind != "cv" or plan_ is None:
            raise ConfigError(f"group {group.name!r} already exists and is not a cross-validation group; "
                              "choose another --group name")
        if plan_.k != args.cv:
            raise ConfigError(f"group {group.name!r} was made with --cv {plan_.k}, not {args.cv}; give --cv "
                              f"{plan_.k} to resume it or choose another --group name")
        paths = [folder / "configs" / f"{m.run_id}.json" for m in group.members]
        notes = [n for n in [check_source_unchanged(plan_)] if n]
        return group, paths, runs_dir, ["resuming: folds and member configs as written in " + str(folder)] + notes
    group, configs, note = start_cv_group(base, runs_dir, args.group_name, args.cv, args.cv_group_column)
    paths = [group_dir(runs_dir, group.name) / "configs" / f"{c.run_id}.json" for c in configs]
    return group, paths, runs_dir, [note]



def train_members(runs_dir: Path, group, config_paths, what) -> list[str] | None:
    """Train each member of ``group`` not done yet, one worker process after another (its config file from
    ``config_paths``; ``what(member)``: its words in the progress lines, "fold 2"). Returns the failed members
    as "run_id (exit N)", or None when Ctrl-C interrupted one (the same command continues the group)."""
    from explorer.core.studies.groups import driving

    with driving(runs_dir, group.name):   # an app started meanwhile leaves the members not yet started to us
        return _train_each(runs_dir, group, config_paths, what)


def _train_each(runs_dir: Path, group, config_paths, what) -> list[str] | None:
    """train_members' loop: each member not done, in order (:func:`_member_command`)."""
    from explorer.commands.group_members import MemberLines, run_member, say

    failed = []
    commands = [(m, _member_command(runs_dir / m.run_id, p)) for m, p in zip(group.members, config_paths)]
    queued = [f"{m.run_id} ({what(m)})" for m, cmd in commands if cmd is not None]
    say(f"group {group.name}: queued {', '.join(queued) or 'nothing: every member is done'}")
    started = 0
    for member, cmd in commands:
        if cmd is None:
            say(f"group {group.name}: {member.run_id} ({what(member)}) already done; kept")
            continue
        started += 1
        say(f"group {group.name}: starting {member.run_id} ({what(member)}; {started} of {len(queued)})")
        try:
            rc = run_member(cmd, MemberLines(member.run_id, say, info=started == 1))
        except KeyboardInterrupt:
            print(f"group {group.name}: interrupted during {member.run_id}; give the same command again to "
                  "continue", file=sys.stderr)
            return None
        if rc != 0:
            failed.append(f"{member.run_id} (exit {rc})")
    return failed


def _member_command(run_dir: Path, config_path: Path) -> list[str] | None:
    """The train command of a cv member: --config (not started), --resume (a checkpoint, unfinished), None
    (finished; or a run that left no checkpoint, which cannot be continued)."""
    from explorer.core.runs.layout import checkpoint_path
    from explorer.worker.train import _already_finished

    if not run_dir.exists():
        return [sys.executable, "-m", "explorer", "train", "--config", str(config_path)]
    if _already_finished(run_dir) is not None:
        return None
    if checkpoint_path(run_dir, "last").exists():
        return [sys.executable, "-m", "explorer", "train", "--resume", str(run_dir)]
    return None


@exits_on_user_error
def run_cv(args: argparse.Namespace) -> int:
    """``group --cv K``: plan (or reuse) the folds, run the members not finished, predict the held-out folds,
    write the out-of-fold file and print the summary. Exit codes as the module docstring."""
    from explorer.core.studies.cv_runs import CrossValidationError, collect_oof
    from explorer.core.data.classification import ClassificationDataError
    from explorer.core.errors import ConfigError, UserError, as_user_error
    from explorer.core.studies.groups import GroupError

    try:
        group, config_paths, runs_dir, notes = plan_cv_group(args)
    except (ConfigError, GroupError, CrossValidationError, ClassificationDataError) as exc:
        raise as_user_error(exc) from None
    for n in notes:
        print(f"group {group.name}: {n}", file=sys.stderr)
    if args.plan_only:
        for config_path in config_paths:
            print(f"bert-explorer train --config {shlex.quote(str(config_path))}")
        return 0
    failed = train_members(runs_dir, group, config_paths, lambda m: f"fold {m.params.get('fold')}")
    if failed is None:
        return 130
    print(f"group {group.name}: pooling the held-out folds (each member's final evaluation; a fold without its rows "
          "kept is predicted with its checkpoints/last)", file=sys.stderr)
    try:
        oof = collect_oof(runs_dir, group, batch_size=_predict_batch(args))
    except UserError as exc:
        raise as_user_error(exc) from None
    for n in oof.notes:
        print(f"group {group.name}: {n}", file=sys.stderr)
    if oof.path is not None:
        from explorer.core.studies.cv_baseline import cv_baseline

        cv_baseline(runs_dir, group)
    if oof.path is not None and group.cv.get("data") == "table":
        from explorer.core.studies.label_issues import group_label_issues

        try:
            group_label_issues(runs_dir, group.name)   # the suspected label errors: label_issues.csv / .json
        except UserError as exc:
            print(f"group {group.name}: no label issues ({exc})", file=sys.stderr)
    print("\n".join(summary_lines(runs_dir, group.name)))
    if failed or oof.path is None:
        print(f"group {group.name}: {len(failed)} of {len(config_paths)} member(s) did not finish: "
              f"{', '.join(failed) or '-'}; {oof.folds_done} of {oof.k} folds predicted", file=sys.stderr)
        return 1
    return 0


def _base_config(args: argparse.Namespace):
    """The TrainConfig of the training flags (the group's own flags left out). Raises ConfigError."""
    from explorer.worker.train import config_from_args

    return config_from_args(argparse.Namespace(**{k: v for k, v in vars(args).items() if k not in GROUP_ONLY}))


@exits_on_user_error
def run_curve(args: argparse.Namespace) -> int:
    """``group --curve``: plan or resume the sizes, print the time estimate, run the members not finished, then
    predict the shared dev rows with each member's checkpoints/last and print each size's figure with its
    interval beside the bag-of-words baseline and the fitted curve's next doubling. Exit codes as the module
    docstring."""
    from explorer.commands.group_curve import estimate_line, plan_curve_group
    from explorer.core.data.classification import ClassificationDataError
    from explorer.core.errors import ConfigError, UserError, as_user_error
    from explorer.core.studies.curve_results import collect_curve
    from explorer.core.studies.groups import GroupError

    try:
        group, config_paths, runs_dir, rows, base, notes = plan_curve_group(args, _base_config(args))
    except (ConfigError, GroupError, ClassificationDataError, ValueError) as exc:
        raise as_user_error(exc) from None
    for n in notes + [estimate_line(base, runs_dir, rows)]:
        print(f"group {group.name}: {n}", file=sys.stderr)
    if args.plan_only:
        for config_path in config_paths:
            print(f"bert-explorer train --config {shlex.quote(str(config_path))}")
        return 0
    failed = train_members(runs_dir, group, config_paths,
                           lambda m: f"{100 * float(m.params.get('fraction', 0)):g}%, {m.params.get('train_rows')} rows")
    if failed is None:
        return 130
    print(f"group {group.name}: predicting the dev rows (checkpoints/last of each size) and fitting the baseline",
          file=sys.stderr)
    try:
        result = collect_curve(runs_dir, group, batch_size=_predict_batch(args))
    except (UserError, ValueError) as exc:
        raise as_user_error(exc) from None
    print("\n".join(summary_lines(runs_dir, group.name)))
    if failed or any(p.model is None for p in result.points):
        print(f"group {group.name}: {len(failed)} member(s) did not finish: {', '.join(failed) or '-'}",
              file=sys.stderr)
        return 1
    return 0
