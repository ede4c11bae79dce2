"""The longest GUI event-loop stall while a real fine-tune runs (prints figures, asserts nothing).

    QT_QPA_PLATFORM=offscreen python scripts/gui_stall_probe.py [--duration 120] [--shots /tmp/shots]

Starts the real app offscreen (temp runs folder and settings), launches the launcher's offline
default (bundled:minilm on the bundled SQuAD 2.0 sample) by clicking Launch, and runs a 10 ms QTimer
probe: a stall is the time between two probe ticks minus 10 ms, i.e. how long the event loop could
not answer. Runs for --duration seconds (the run is cancelled at the end if it is still going).
With --shots, saves launcher.png before the launch and curves.png (plus curves_<s>.png every 30 s)
of the whole window; the time spent grabbing screenshots is left out of the stall figures.
Target: longest stall under 50 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=120.0, help="seconds to probe after the launch")
    ap.add_argument("--shots", default="", help="folder for screenshots (launcher.png, curves.png)")
    ap.add_argument("--runs-dir", default="", help="runs folder (default: a temp folder)")
    ap.add_argument("--top", type=int, default=5, help="list the N longest stalls with what preceded them")
    ap.add_argument("--verbose", action="store_true", help="also time the window's own handlers")
    ap.add_argument("--settle", type=float, default=8.0, help="seconds to let the app start before launching")
    a = ap.parse_args()

    from PySide6.QtCore import QElapsedTimer, Qt, QTimer
    from PySide6.QtTest import QTest

    from explorer.ui.app import create_window

    slow: list[tuple[float, str]] = []      # (ms, name) of the window's own handlers that took > 20 ms
    if a.verbose:   # time the window's own handlers (patched on the classes, before any connect)
        from explorer.ui.curves import CurvesPanel
        from explorer.ui.main_window import MainWindow
        from explorer.ui.runs_panel import RunsPanel

        def timed(cls, name):
            fn = getattr(cls, name)

            def wrapper(self, *args, **kwargs):
                t = time.perf_counter()
                try:
                    return fn(self, *args, **kwargs)
                finally:
                    ms = (time.perf_counter() - t) * 1000
                    if ms > 20:
                        slow.append((ms, f"{cls.__name__}.{name}"))
            setattr(cls, name, wrapper)

        for cls, name in ((CurvesPanel, "_stagger_tick"), (CurvesPanel, "_live_tick"), (CurvesPanel, "_update_progress"),
                          (MainWindow, "_run_changed"), (MainWindow, "_run_ended"), (RunsPanel, "refresh")):
            timed(cls, name)

    tmp = Path(tempfile.mkdtemp(prefix="stall_probe_"))
    runs_dir = a.runs_dir or str(tmp / "runs")
    app, win = create_window(runs_dir, str(tmp / "settings.ini"))
    win.resize(1500, 940)
    win.show()
    shots = Path(a.shots) if a.shots else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)

    clock = QElapsedTimer()
    clock.start()
    gaps: list[float] = []
    where: list[tuple[float, float, str]] = []   # (seconds since launch, stall ms, last thing seen)
    state = {"last": None, "measure": False, "t0": 0.0, "seen": "start"}

    def tick():
        now = clock.nsecsElapsed() / 1e6
        if state["measure"] and state["last"] is not None:
            gap = now - state["last"] - 10.0
            gaps.append(gap)
            if gap > 50:
                where.append((time.monotonic() - state["t0"], gap, state["seen"]))
        state["last"] = now

    import gc

    gc_pauses: list[float] = []
    gc_t = {}

    def on_gc(phase, info):
        if phase == "start":
            gc_t["t"] = time.perf_counter()
        elif "t" in gc_t:
            ms = (time.perf_counter() - gc_t.pop("t")) * 1000
            if ms > 5:
                gc_pauses.append(ms)
                state["seen"] = f"gc gen{info.get('generation')} {ms:.0f} ms"

    gc.callbacks.append(on_gc)
    refresh = win.curves._refresh_next

    def traced_refresh(key=None):
        shown = key if key is not None else next(iter(win.curves._pending), "?")
        refresh(key)
        state["seen"] = f"plot refresh {shown}"

    win.curves._refresh_next = traced_refresh
    probe = QTimer()
    probe.setTimerType(Qt.TimerType.PreciseTimer)
    probe.setInterval(10)
    probe.timeout.connect(tick)
    probe.start()

    def wait(seconds: float):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.002)

    def grab(name: str):
        state["measure"] = False
        win.grab().save(str(shots / name))
        app.processEvents()
        state["last"] = None
        state["measure"] = True

    wait(a.settle)          # device probe, data preview and runs scan finish in the background
    win.tabs.setCurrentWidget(win.launcher)
    if shots:
        grab("launcher.png")
    cfg = win.launcher.config()
    print(f"launching: {cfg.model} {cfg.task} train={Path(cfg.train).name} dev={Path(cfg.dev).name} "
          f"epochs={cfg.epochs:g} batch={cfg.batch_size} lr={cfg.resolved_learning_rate():g} "
          f"max_seq_length={cfg.resolved_max_seq_length()} precision={cfg.mixed_precision}", flush=True)
    state["measure"] = True
    t0 = state["t0"] = time.monotonic()
    QTest.mouseClick(win.launcher.launch_btn, Qt.MouseButton.LeftButton)
    run_id = next(iter(win.manager.states))
    win.manager.procs[run_id].event.connect(lambda ev: state.__setitem__("seen", f"after {ev['event']}"))
    run = win.manager.states[run_id]
    next_shot = 30.0
    while time.monotonic() - t0 < a.duration:
        wait(0.5)
        if shots and time.monotonic() - t0 >= next_shot:
            grab(f"curves_{int(next_shot):03d}s.png")
            next_shot += 30.0
        if not run.is_live and time.monotonic() - t0 > 5:
            break
    elapsed = time.monotonic() - t0
    state["measure"] = False
    if shots:
        win.curves.redraw_now()
        grab("curves.png")
        state["measure"] = False
    status_at_end = run.status
    if run.is_live:
        win.manager.cancel_all(wait_ms=10_000)

    gaps_sorted = sorted(gaps)
    n = len(gaps_sorted)
    pct = (lambda q: gaps_sorted[min(n - 1, int(q * n))]) if n else (lambda q: float("nan"))
    best = run.best_metric()
    print(f"run {run_id}: {status_at_end} at step {run.step} of {run.steps_total}, device "
          f"{run.device or '?'} {run.mixed_precision}, {len(run.evals)} evaluations"
          + (f", best dev {best[0]} {best[1]:.2f}" if best else "")
          + (f", error: {run.error}" if run.error else ""))
    sps = run.series.get("samples_per_second")
    if sps is not None and len(sps):
        print(f"worker throughput: median {statistics.median(sps.y):.2f} samples/s")
    print(f"event-loop probe (10 ms QTimer) over {elapsed:.0f} s, {n} ticks: longest stall {max(gaps_sorted or [0]):.1f} ms, "
          f"p99 {pct(0.99):.1f} ms, p50 {pct(0.5):.1f} ms, stalls > 50 ms: {sum(g > 50 for g in gaps)}")
    if a.verbose:
        slow.sort(reverse=True)
        print(f"own handlers > 20 ms: {len(slow)}" + "".join(f"\n  {ms:7.1f} ms {name}" for ms, name in slow[:8]))
    if gc_pauses:
        print(f"garbage-collector pauses > 5 ms: {len(gc_pauses)}, longest {max(gc_pauses):.0f} ms")
    for t, gap, seen in sorted(where, key=lambda w: -w[1])[: a.top]:
        print(f"  stall {gap:7.1f} ms at {t:6.1f} s ({seen})")
    if shots:
        print(f"screenshots in {shots}")
    win.close()
    from PySide6.QtCore import QCoreApplication, QEvent

    win.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return 0


if __name__ == "__main__":
    sys.exit(main())
