"""`bert-explorer capsule`: a replication capsule of a run, and the check that reproduces it.

Example::

    bert-explorer capsule ~/bert-explorer-runs/stance-0412            # writes <run>/capsule
    bert-explorer capsule ~/bert-explorer-runs/stance-0412 --out appendix/stance --json
    bert-explorer capsule --check appendix/stance                     # retrain, compare the printed figures

The folder (explorer.core.studies.capsule) holds the config and exact command lines, the SHA-256 of the data
and the starting model, the seed, the versions of Python, torch, transformers and this package, the figures
with their intervals, the calibration, the baselines and a methods paragraph. ``--check`` refuses when an
input's bytes changed, trains the capsule's config into ``FOLDER/reproduced`` in a child process and prints each
final figure as the capsule printed it beside the reproduction's: exit 0 when every figure matches to the
printed digit, 1 when one differs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from explorer.core.errors import UserError, exits_on_user_error


def add_arguments(parser) -> None:
    parser.add_argument("run", nargs="?", default="", metavar="RUN", help="a run folder (its config.json, events)")
    parser.add_argument("--out", default="", metavar="DIR", help="the capsule folder (default: RUN/capsule)")
    parser.add_argument("--check", default="", metavar="CAPSULE",
                        help="reproduce a capsule: train its config again and compare the printed figures")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def write(run_dir: str, out: str = "") -> tuple[dict, Path]:
    """Build and write the capsule of ``run_dir`` (default folder ``run_dir/capsule``); (capsule, folder)."""
    from explorer.benchmarks import git_commit
    from explorer.core.studies.capsule import CAPSULE_FOLDER, build_capsule, read_capsule, write_capsule

    run = Path(run_dir).expanduser()
    if not run.is_dir():
        raise UserError(f"{run}: no such run folder")
    doc = build_capsule(run, commit=git_commit())
    folder = write_capsule(doc, Path(out).expanduser() if out else run / CAPSULE_FOLDER)
    return read_capsule(folder), folder


def check(folder: str) -> tuple[object, Path]:
    """Retrain a capsule's config into ``folder/reproduced/reproduced`` and compare (CheckResult, log file)."""
    from explorer.core.studies.capsule import CapsuleError, changed_inputs, compare_reproduction, read_capsule

    folder = Path(folder).expanduser()
    doc = read_capsule(folder)
    changed = changed_inputs(doc)
    if changed:
        raise CapsuleError("the capsule's inputs are not the ones it was written for: " + "; ".join(changed))
    out = folder / "reproduced"
    target = out / "reproduced"
    if target.exists():
        shutil.rmtree(target)      # an earlier check's reproduction, inside the capsule folder
    out.mkdir(parents=True, exist_ok=True)
    log = out / "reproduced.log"
    argv = [sys.executable, "-m", "explorer", "train", "--config", str(folder / "config.json"), "--output-dir",
            str(out), "--run-name", "reproduced"]
    with open(log, "w", encoding="utf-8") as fh:
        rc = subprocess.run(argv, stdout=fh, stderr=subprocess.STDOUT, check=False).returncode
    if rc != 0:
        raise CapsuleError(f"the reproduction's training stopped (exit code {rc}); see {log}")
    result = compare_reproduction(doc, target)
    return result, log


@exits_on_user_error
def run(args) -> int:
    if bool(args.run) == bool(args.check):
        raise UserError("capsule: give a RUN folder to write its capsule, or --check CAPSULE to reproduce one")
    if args.run:
        doc, folder = write(args.run, args.out)
        if args.json:
            print(json.dumps({**doc, "folder": str(folder)}, indent=1))
        else:
            print(f"capsule of {doc['run_id']} written to {folder}")
            print((folder / "methods.md").read_text(encoding="utf-8").strip())
            print(f"reproduce: {doc['commands'][-1]}")
        return 0
    result, log = check(args.check)
    if args.json:
        print(json.dumps({**result.to_dict(), "log": str(log)}, indent=1))
    else:
        width = max(len(m) for m, _, _ in result.rows)
        print(f"{'metric':<{width}}  {'capsule':>12}  {'reproduced':>12}")
        for m, a, b in result.rows:
            print(f"{m:<{width}}  {a:>12}  {b:>12}" + ("" if a == b else "  differs"))
        print("every figure reproduced to the printed digit" if result.same
              else "the reproduction differs (see the rows marked); same machine, software and data are needed")
    return 0 if result.same else 1
