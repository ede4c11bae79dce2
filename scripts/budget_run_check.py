"""Where a time-budgeted run's wall time went, and how well its remaining-time estimate held, from its events.

Reads RUN_DIR/events.jsonl of a finished run (``bert-explorer train --time-budget-minutes M`` or a launcher run)
and prints:

- the wall time from the worker's first event to ``finished``, split into set-up (reading, loading the model,
  tokenizing: first event to ``started``), training (the last step event's ``train_seconds``) and the rest
  (evaluations, saves); training against the budget;
- the remaining time the Runs list shows (explorer.ui.runs.state.RunState.eta, on the events up to each step
  event, as the GUI replays them) against the time the run really had left, at every step event from a quarter
  of the run on: the worst relative error and the share of step events within 15%.

    python scripts/budget_run_check.py RUN_DIR [--load-start X --load-end Y] [--run-command "..."] [--run-commit C] [--results]

The run's machine load is not in its events: give the load averages read at its start and end (``uptime``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOLERANCE = 0.15    # the estimate holds when within 15% of the truth


def read_events(run_dir: Path) -> list[dict]:
    """The run's events in order (events.jsonl; lines that are not JSON objects are skipped)."""
    events = []
    for line in (run_dir / "events.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if isinstance(ev, dict) and "event" in ev:
            events.append(ev)
    return events


def wall_split(events: list[dict]) -> dict:
    """Seconds: wall (first event to the last), set-up (to ``started``), training (last step's train_seconds),
    other (evaluations and saves: the rest after set-up), and the budget (config time_budget_minutes x 60).

    Raises ValueError when the run has no ``started`` or no step event."""
    started = next((e for e in events if e["event"] == "started"), None)
    steps = [e for e in events if e["event"] == "step"]
    if started is None or not steps:
        raise ValueError("the run has no 'started' or no step event: nothing to measure")
    t0, t_end = events[0]["time"], events[-1]["time"]
    train = float(steps[-1].get("train_seconds") or 0.0)
    budget = 60.0 * float((started.get("config") or {}).get("time_budget_minutes") or 0.0)
    return {"wall_s": t_end - t0, "setup_s": started["time"] - t0, "train_s": train,
            "evaluations_and_saves_s": t_end - started["time"] - train, "budget_s": budget,
            "steps": int(steps[-1]["step"]), "evaluations": sum(e["event"] == "eval" for e in events)}


def eta_errors(events: list[dict], run_id: str = "run", from_share: float = 0.25) -> list[tuple[float, float, float]]:
    """(seconds since started, estimate, truth) at every step event from ``from_share`` of the run (started to
    the last event) on: the estimate is RunState.eta on the events up to it, the truth the time to the last
    event. Step events without an estimate are left out."""
    from explorer.ui.runs.state import RunState

    start = next(e["time"] for e in events if e["event"] == "started")
    end = events[-1]["time"]
    out = []
    for i, ev in enumerate(events):
        if ev["event"] != "step" or ev["time"] - start < from_share * (end - start):
            continue
        eta = RunState.from_events(run_id, events[:i + 1], alive=True).eta()
        if eta is not None:
            out.append((ev["time"] - start, eta, end - ev["time"]))
    return out


def main(argv: list[str] | None = None) -> int:
    from explorer.benchmarks import add_results_argument, record

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--load-start", type=float, default=None, help="load average when the run started (uptime)")
    ap.add_argument("--load-end", type=float, default=None, help="load average when the run ended (uptime)")
    ap.add_argument("--run-command", default="", help="the command that ran the run, recorded with the figures")
    ap.add_argument("--run-commit", default=None, help="the commit the run ran (default: this checkout's)")
    add_results_argument(ap)
    args = ap.parse_args(argv)
    events = read_events(args.run_dir)
    if events[-1]["event"] != "finished":
        print(f"{args.run_dir}: the run did not finish (last event {events[-1]['event']!r})", file=sys.stderr)
        return 1
    split = wall_split(events)
    print(f"wall {split['wall_s']:.0f} s: set-up {split['setup_s']:.0f} s, training {split['train_s']:.0f} s, "
          f"evaluations and saves {split['evaluations_and_saves_s']:.0f} s ({split['evaluations']} evaluations, "
          f"{split['steps']} steps); budget {split['budget_s']:.0f} s")
    errors = eta_errors(events, args.run_dir.name)
    rel = [abs(eta - truth) / truth for _, eta, truth in errors if truth > 0]
    within = sum(r <= TOLERANCE for r in rel)
    for t, eta, truth in errors[:: max(1, len(errors) // 12)]:
        print(f"  at {t:6.0f} s: estimate {eta:6.0f} s, truth {truth:6.0f} s ({(eta - truth) / truth:+.1%})")
    worst = max(rel) if rel else float("nan")
    print(f"estimate from a quarter of the run on: {within} of {len(rel)} step events within {TOLERANCE:.0%}, "
          f"worst {worst:.1%}")
    ratios = {"training / budget": split["train_s"] / split["budget_s"] if split["budget_s"] else None,
              "training / wall": split["train_s"] / split["wall_s"],
              "step events with the estimate within 15%, from a quarter on (share)": within / len(rel) if rel else None,
              "worst estimate error from a quarter on (relative)": worst}
    figures = {**split, "step events checked": len(rel)}
    notes = f"run: {args.run_command}" if args.run_command else ""
    started = next(e for e in events if e["event"] == "started")
    cfg = started.get("config") or {}
    case = (f"{cfg.get('model')} {cfg.get('task')} on {Path(str(cfg.get('train'))).parent.name}/"
            f"{Path(str(cfg.get('train'))).name} ({started.get('num_train_examples')} rows), "
            f"{cfg.get('time_budget_minutes'):g}-minute budget")
    record(args, "budget_run_check", case=case, figures=figures, ratios=ratios, load_start=args.load_start,
           load_end=args.load_end, notes=notes, commit=args.run_commit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
