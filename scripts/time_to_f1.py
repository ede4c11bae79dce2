"""Time to a useful model: dev F1 against minutes of fine-tuning, for one recipe.

    python scripts/time_to_f1.py --out /tmp/ttf1 --minutes 30                  # the fast-CPU preset
    python scripts/time_to_f1.py --out /tmp/ttf1 --minutes 30 --batch-size 32 --learning-rate 2e-4
    python scripts/time_to_f1.py --out /tmp/ttf1 --eval-only                   # evaluate the snapshots again

What it does:
1. Trains ``bundled:minilm`` on ../shared/data/squad_v1.1/train-subset.json with the launcher's fast-CPU
   preset (explorer.core.specs.run_presets.fast_cpu_preset: a 30-minute time budget, so the schedule ends
   with the learning rate at 0 when the budget is spent), overridden by the flags given, through the real
   CLI (``python -m explorer train``) in a child process. No evaluation runs during training.
   ``--time-budget-minutes 0 --max-steps N`` trains a fixed number of steps instead (a schedule that ends
   at step N; then the minutes depend on the machine's load, the windows do not).
2. Copies the model of every ``last`` checkpoint (``--save-every`` steps) to ``<out>/snapshots/step-N``
   with the training wall time at that step (seconds since the run started, from the step events).
3. Evaluates each snapshot (``python -m explorer eval``) on the first ``--dev-questions`` (1,000) questions
   of ../shared/data/squad_v1.1/dev-part1.json (held out: the train subset holds none of them) and prints
   the curve: minutes, step, windows seen, exact_match, f1.

Evaluation time is not counted in the minutes (it is measurement, not training). Figures depend on the
machine and its load; the load average is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("EXPLORER_REAL_DATA", ROOT.parent / "shared" / "data"))
MODEL_FILES = ("model.safetensors", "config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt",
               "special_tokens_map.json")


def load() -> str:
    """The 1-minute load average, as text."""
    return f"{os.getloadavg()[0]:.2f}"


def train_command(args, run_dir: Path) -> list[str]:
    """``python -m explorer train`` with the fast-CPU preset's settings, overridden by the flags given."""
    import dataclasses

    sys.path.insert(0, str(ROOT))
    from explorer.core.specs.run_presets import fast_cpu_preset
    from explorer.core.specs.train_config import TrainConfig

    cfg = fast_cpu_preset(TrainConfig(model=args.model, task="squad_v1", train=args.train, dev="",
                                      output_dir=str(run_dir.parent), run_id=run_dir.name))
    overrides = {f: getattr(args, f) for f in ("batch_size", "learning_rate", "max_seq_length", "doc_stride",
                                               "warmup_ratio", "epochs", "max_steps", "time_budget_minutes")
                 if getattr(args, f) is not None}
    cfg = dataclasses.replace(cfg, save_every=args.save_every, log_every=1, watch=[], **overrides)
    return [sys.executable, "-m", "explorer", "train", *cfg.to_cli_args(), *args.extra]


def train(args, run_dir: Path, snaps: Path) -> list[dict]:
    """Run the CLI fine-tune, snapshotting each ``last`` checkpoint; returns the snapshot records."""
    cmd = train_command(args, run_dir)
    batch = int(cmd[cmd.index("--batch-size") + 1]) if "--batch-size" in cmd else 32
    print("$", " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    elapsed, records = 0.0, []
    for line in proc.stdout:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            print(line.rstrip(), flush=True)
            continue
        kind = event.get("event")
        if kind == "step":
            elapsed = float(event.get("elapsed") or elapsed)
            if int(event["step"]) % 25 == 0:
                print(f"step {event['step']}: loss {event['loss']:.3f}, {event['samples_per_second']:.2f} windows/s, "
                      f"{elapsed / 60:.1f} min, load {load()}", flush=True)
        elif kind == "checkpoint" and event.get("kind") == "last":
            dest = snaps / f"step-{event['step']}"
            dest.mkdir(parents=True, exist_ok=True)
            for name in MODEL_FILES:
                src = Path(event["path"]) / name
                if src.is_file():
                    shutil.copy2(src, dest / name)
            rec = {"step": int(event["step"]), "seconds": elapsed, "windows": int(event["step"]) * batch}
            (dest / "snapshot.json").write_text(json.dumps(rec))
            records.append(rec)
            print(f"snapshot step {rec['step']} at {elapsed / 60:.1f} min", flush=True)
        elif kind in ("finished", "failed", "started", "log"):
            print(json.dumps(event)[:400], flush=True)
    if proc.wait() != 0:
        raise SystemExit(f"the fine-tune failed (exit {proc.returncode}); see the events above")
    return records


def evaluate(args, snaps: Path) -> list[dict]:
    """Evaluate every snapshot on the first --dev-questions dev questions; returns the curve rows."""
    rows = []
    for snap in sorted(snaps.glob("step-*"), key=lambda p: int(p.name.split("-")[1])):
        rec = json.loads((snap / "snapshot.json").read_text())
        if args.only and rec["step"] not in args.only:
            continue
        out = snap / "eval"
        cmd = [sys.executable, "-m", "explorer", "eval", "--model", str(snap), "--data", args.dev,
               "--cap", str(args.dev_questions), "--out", str(out),
               "--max-seq-length", str(args.max_seq_length or 256), "--json"]
        if args.doc_stride is not None:
            cmd += ["--doc-stride", str(args.doc_stride)]
        res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        try:
            metrics = json.loads(res.stdout)["metrics"]
        except (json.JSONDecodeError, KeyError):
            print(res.stdout[-800:], res.stderr[-800:])
            continue
        rows.append({**rec, "exact_match": metrics.get("exact_match", metrics.get("exact")), "f1": metrics["f1"]})
        print(f"{rec['seconds'] / 60:6.1f} min  step {rec['step']:4d}  {rec['windows']:6d} windows  "
              f"exact_match {rows[-1]['exact_match']:.2f}  f1 {rows[-1]['f1']:.2f}", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--train", default=str(DATA / "squad_v1.1" / "train-subset.json"))
    ap.add_argument("--dev", default=str(DATA / "squad_v1.1" / "dev-part1.json"))
    ap.add_argument("--minutes", "--time-budget-minutes", dest="time_budget_minutes", type=float, default=None,
                    help="the time budget (default: the preset's 30)")
    ap.add_argument("--batch-size", type=int)
    ap.add_argument("--learning-rate", type=float)
    ap.add_argument("--max-seq-length", type=int)
    ap.add_argument("--doc-stride", type=int)
    ap.add_argument("--warmup-ratio", type=float)
    ap.add_argument("--epochs", type=float)
    ap.add_argument("--max-steps", type=int)
    ap.add_argument("--save-every", type=int, default=50)
    ap.add_argument("--dev-questions", type=int, default=1000)
    ap.add_argument("--eval-only", action="store_true")
    ap.add_argument("--only", type=lambda t: [int(x) for x in t.split(",")], default=None,
                    help="evaluate only these snapshot steps, e.g. 150,300,470")
    ap.add_argument("extra", nargs="*", help="further train flags, after --")
    sys.path.insert(0, str(ROOT))
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args()
    load0 = load_average()
    out = Path(args.out)
    snaps = out / "snapshots"
    print(f"load at start: {load()} (2-core machine: above ~0.5 the figures are slowed)", flush=True)
    if not args.eval_only:
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        train(args, out / "runs" / "ttf1", snaps)
    rows = evaluate(args, snaps)
    (out / "curve.json").write_text(json.dumps(rows, indent=1))
    print(f"load at end: {load()}; curve in {out / 'curve.json'}")
    if rows:
        end = rows[-1]
        figures = {"dev F1 at the end": end["f1"], "dev EM at the end": end["exact_match"], "windows seen": end["windows"],
                   "training minutes": end["seconds"] / 60}
        figures.update({f"dev F1 after {r['seconds'] / 60:.1f} min": r["f1"] for r in rows[:-1]})
        record(args, "time_to_f1", case=f"{args.model}, {args.time_budget_minutes or 30:g}-minute budget"
               + (f", {' '.join(args.extra)}" if args.extra else ""), figures=figures, load_start=load0)


if __name__ == "__main__":
    main()
