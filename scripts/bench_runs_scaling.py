"""How the window's start-up and the Curves of a long run grow with the runs folder: the Runs list with 10, 100 and
1,000 runs, and a run of 1,000,000 logged steps read from disk and drawn, against small references in the same run.

    QT_QPA_PLATFORM=offscreen python scripts/bench_runs_scaling.py [--runs 10,100,1000] [--steps 1000000] [--results]

Each case runs in a fresh child process (so its peak memory is its own) on generated run folders in a temporary
folder: every run has a config.json and an events.jsonl of 300 ``step`` events, 10 ``eval`` events and
``finished`` (the size of a short real run, about 60 kB).

- Runs list: seconds from creating the main window (offscreen) to every run listed (the list is read on a worker
  thread, explorer.ui.shell.run_reading) and the peak resident memory of the process; per run against the
  smallest folder.
- A long run: seconds to read a run of ``--steps`` step events from disk the way the window reads a selected run
  (explorer.ui.runs.store.load_run_state: the events replayed and the smoothed curves computed), and one full
  Curves redraw of it with its paint; against a run of 10,000 steps in the same child (per step).

Times are wall clock on whatever else the machine runs: the load average is recorded with them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def write_run(folder: Path, run_id: str, steps: int, evals: int = 10) -> Path:
    """A finished run folder of ``steps`` step events (loss, lr, grad_norm, samples/s) and ``evals`` evaluations."""
    run = folder / run_id
    run.mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"model": "bundled:minilm", "task": "single", "run_id": run_id,
                                                 "train": "train.tsv", "learning_rate": 2e-5}), encoding="utf-8")
    every = max(1, steps // evals)
    t0, seq = 1.8e9, 0
    with open(run / "events.jsonl", "w", encoding="utf-8") as fh:
        def put(ev: dict) -> None:
            nonlocal seq
            seq += 1
            fh.write(json.dumps({**ev, "run_id": run_id, "seq": seq}) + "\n")
        put({"event": "started", "time": t0, "steps_total": steps, "device": "cpu", "mixed_precision": "no",
             "steps_per_epoch": steps, "effective_batch_size": 32})
        for i in range(1, steps + 1):
            put({"event": "step", "time": t0 + i * 0.1, "step": i, "epoch": i / steps, "loss": 1.0 / (1 + i / 100),
                 "lr": 2e-5 * (1 - i / steps), "grad_norm": 1.0 + (i % 7) / 10, "samples_per_second": 300.0,
                 "elapsed": i * 0.1})
            if i % every == 0:
                put({"event": "eval", "time": t0 + i * 0.1, "step": i, "epoch": i / steps,
                     "metrics": {"accuracy": 0.5 + 0.4 * i / steps, "macro_f1": 0.5 + 0.39 * i / steps},
                     "seconds": 1.0, "dev_rows": 872, "dev_total": 872, "rows_per_second": 500.0})
        put({"event": "finished", "time": t0 + steps * 0.1 + 1, "metrics": {"accuracy": 0.9}, "seconds": steps * 0.1,
             "steps": steps, "best_checkpoint": None, "stopped_early": False})
    return run


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _app():
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([])


def _wait(app, done, timeout: float) -> None:
    end = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() > end:
            raise TimeoutError("the window did not finish in time")
        app.processEvents()
        time.sleep(0.002)


def child_runs_list(n: int) -> dict:
    """In this process: a folder of ``n`` runs, the main window created and waited for until all are listed."""
    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings

    app = _app()
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs"
        runs.mkdir()
        for i in range(n):
            write_run(runs, f"run-{i:04d}", 300)
        base = peak_mib()
        t0 = time.perf_counter()
        w = MainWindow(runs, AppSettings(Path(tmp) / "settings.ini"), probe_device=False)
        w.show()
        _wait(app, lambda: len(w.runs.model.rows) >= n, 600)
        seconds = time.perf_counter() - t0
        out = {"runs": n, "listed_s": seconds, "peak_mib": peak_mib(), "peak_mib_before_window": base}
        w.close()
        return out


def child_long_run(steps: int) -> dict:
    """In this process: read a run of ``steps`` logged steps as the window does, and redraw Curves with it."""
    from explorer.ui.curves.panel import CurvesPanel
    from explorer.ui.runs.store import load_run_state

    app = _app()
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, n in (("warm-up", 1_000), ("small", 10_000), ("long", steps)):   # the first panel pays one-off costs
            path = write_run(Path(tmp), name, n)
            t0 = time.perf_counter()
            state = load_run_state(path)
            read_s = time.perf_counter() - t0
            panel = CurvesPanel()
            panel.resize(1400, 1000)
            panel.show()
            app.processEvents()
            t0 = time.perf_counter()
            panel.set_runs([state])
            panel.redraw_now()
            panel.grab()
            draw_s = time.perf_counter() - t0
            if panel.point_count(state.run_id, "loss") != n:
                raise RuntimeError(f"Curves holds {panel.point_count(state.run_id, 'loss')} loss points of {n}")
            out[name] = {"steps": n, "file_mb": (path / "events.jsonl").stat().st_size / 1e6, "read_s": read_s,
                         "redraw_s": draw_s, "peak_mib": peak_mib()}
            panel.close()
            del state
    out.pop("warm-up")
    return out


def _child(kind: str, n: int) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--child", kind, str(n)], capture_output=True, text=True,
                          check=False, timeout=1800)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"the {kind} {n} child failed:\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", default="10,100,1000", help="folder sizes, comma-separated")
    ap.add_argument("--steps", type=int, default=1_000_000, help="logged steps of the long run")
    ap.add_argument("--child", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    a = ap.parse_args(argv)
    if a.child:
        kind, n = a.child[0], int(a.child[1])
        print(json.dumps(child_runs_list(n) if kind == "runs" else child_long_run(n)), flush=True)
        return 0
    load_start = load_average()
    figures, ratios = {}, {}
    sizes = [int(x) for x in a.runs.split(",") if x.strip()]
    for n in sizes:
        res = _child("runs", n)
        figures[f"Runs list, {n:,} runs"] = res
        print(f"Runs list, {n:>5,} runs: listed in {res['listed_s']:6.2f} s, peak {res['peak_mib']:6.0f} MiB "
              f"({res['peak_mib_before_window']:.0f} before the window)", flush=True)
    small, large = figures[f"Runs list, {sizes[0]:,} runs"], figures[f"Runs list, {sizes[-1]:,} runs"]
    ratios["runs_list_seconds_per_run_largest_vs_smallest"] = ((large["listed_s"] / sizes[-1])
                                                               / (small["listed_s"] / sizes[0]))
    long_run = _child("long", a.steps)
    figures["a long run"] = long_run
    s, g = long_run["small"], long_run["long"]
    print(f"long run: {g['steps']:,} steps ({g['file_mb']:.0f} MB of events) read in {g['read_s']:.2f} s, Curves "
          f"redrawn in {g['redraw_s']:.2f} s, peak {g['peak_mib']:.0f} MiB; {s['steps']:,} steps: read "
          f"{s['read_s']:.3f} s, redrawn {s['redraw_s']:.3f} s", flush=True)
    ratios["long_run_read_per_step_vs_10k"] = (g["read_s"] / g["steps"]) / (s["read_s"] / s["steps"])
    ratios["long_run_redraw_vs_10k"] = g["redraw_s"] / s["redraw_s"]
    for k, v in ratios.items():
        print(f"{k}: {v:.2f}")
    print(f"load {load_start} -> {load_average()}")
    record(a, "bench_runs_scaling", figures=figures, ratios=ratios, load_start=load_start,
           case=f"generated run folders ({', '.join(f'{n:,}' for n in sizes)} runs of 300 steps; one of "
                f"{a.steps:,} steps)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
