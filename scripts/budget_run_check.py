"""How a time-budgeted run spent its wall time, and how true its remaining-time estimate was.

    python scripts/budget_run_check.py RUN_DIR [--results] [--load-start X] [--command "how the run was started"]

Reads RUN_DIR/events.jsonl of a finished run started with ``--time-budget-minutes``. Prints

- the budget, the wall seconds from the first evaluation to the end (what the budget counts), the seconds in
  training steps (the clock of the last step event) and their share of the budget; the set-up before the first
  evaluation (reading and tokenizing the data, loading the model) is reported apart;
- the remaining time the GUI showed after each step event (explorer.ui.runs.state.RunState.eta on the events up
  to it, as the Runs list computes it) against the time the run really had left, from a quarter of the run on:
  the largest and the median relative error, the share of steps within 15%, and the share within 15% or 2 s
  (in the run's last seconds a second of the final save is a large share of what is left).

The GUI's estimate is computed by the same code the window runs; nothing here is timed, so the figures depend
only on the recorded events.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from explorer.benchmarks import add_results_argument, record  # noqa: E402
from explorer.core.protocol.events import read_events  # noqa: E402
from explorer.ui.runs.state import RunState  # noqa: E402

TOLERANCE = 0.15
NEAR_END_SECONDS = 2.0


def budget_figures(events: list[dict]) -> dict:
    """The wall-time split and the estimate's errors of one finished, time-budgeted run's ``events``.

    Raises:
        ValueError: the run has no ``finished`` event, no ``started`` event with a config budget, or no steps.
    """
    ends = [e for e in events if e["event"] == "finished"]
    starts = [e for e in events if e["event"] == "started"]
    steps = [i for i, e in enumerate(events) if e["event"] == "step"]
    if not ends or not starts or not steps:
        raise ValueError("the events hold no finished run with steps (started, step ... finished)")
    state = RunState.from_events("run", events, alive=False)
    budget = state.budget_seconds
    if budget <= 0:
        raise ValueError("the run had no time budget (config time_budget_minutes)")
    t_first = events[0]["time"]
    t_begin = next((e["time"] for e in events if e["event"] in ("evaluating", "eval")), starts[0]["time"])
    t_end = ends[-1]["time"]
    last_step = events[steps[-1]]
    train = float(last_step.get("train_seconds") or 0.0)
    wall = t_end - t_begin
    errors, near = [], []
    live = RunState.from_events("run", [], alive=True)   # the events applied one by one, as the window receives them
    done = 0
    for i in steps:
        ev = events[i]
        for earlier in events[done:i + 1]:
            live.apply(earlier)
        done = i + 1
        if ev["time"] - t_begin < wall / 4:
            continue
        truth = t_end - ev["time"]
        if truth <= 0:
            continue
        eta = live.eta()
        if eta is not None:
            errors.append(abs(eta - truth) / truth)
            near.append(abs(eta - truth) <= NEAR_END_SECONDS or errors[-1] <= TOLERANCE)
    if not errors:
        raise ValueError("no step events from a quarter of the run on")
    return {"budget_seconds": budget, "wall_seconds": wall, "train_seconds": train,
            "train_share_of_budget": train / budget, "setup_seconds": t_begin - t_first,
            "steps": int(last_step["step"]), "evaluations": sum(e["event"] == "eval" for e in events),
            "estimates_checked": len(errors), "estimate_error_max": max(errors),
            "estimate_error_median": statistics.median(errors),
            "estimates_within_15pct": sum(err <= TOLERANCE for err in errors) / len(errors),
            "estimates_within_15pct_or_2s": sum(near) / len(near)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run_dir")
    ap.add_argument("--command", default="", help="how the run itself was started (kept with the figures)")
    ap.add_argument("--load-start", type=float, default=None, help="the load average when the run started")
    ap.add_argument("--notes", default="")
    ap.add_argument("--commit", default=None, help="the commit the run was trained at (default: this checkout's)")
    add_results_argument(ap)
    a = ap.parse_args(argv)
    run_dir = Path(a.run_dir)
    events = read_events(run_dir / "events.jsonl")
    figures = budget_figures(events)
    config = json.loads((run_dir / "config.json").read_text(encoding="utf-8")) if (run_dir / "config.json").is_file() else {}
    for name, value in figures.items():
        print(f"{name}: {value:.4g}" if isinstance(value, float) else f"{name}: {value}")
    best = next((e for e in reversed(events) if e["event"] == "finished"), {}).get("metrics", {})
    if best:
        figures["final_metrics"] = {k: v for k, v in best.items() if isinstance(v, (int, float))}
    case = f"{config.get('model', '?')} · {config.get('task', '?')} · {Path(str(config.get('train', '?'))).name} · " \
           f"budget {config.get('time_budget_minutes', '?')} min"
    notes = "; ".join(x for x in (f"run: {a.command}" if a.command else "", a.notes) if x)
    record(a, "budget_run", figures=figures, case=case, load_start=a.load_start, notes=notes, commit=a.commit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
