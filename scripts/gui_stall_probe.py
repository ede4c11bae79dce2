"""The longest GUI event-loop stall while a real fine-tune runs and the inspectors are used (prints figures,
asserts nothing).

    QT_QPA_PLATFORM=offscreen python scripts/gui_stall_probe.py [--duration 240] [--dev-cap 100]
        [--no-train] [--no-actions] [--py-spy /tmp/gui.txt] [--stacks] [--shots /tmp/shots]

Starts the real app offscreen (temp runs folder, settings and τ-study cache), launches the launcher's offline
default (bundled:minilm on the bundled SQuAD 2.0 sample) by clicking Launch, waits for its first training
step, and then, while it trains, drives the inspectors as a user would: the first visit of the Attention tab
(the inspector child starts, loads the bundled encoder and probes the example), a probe with attentions of a
passage longer than one 384-token window, attention-view changes (layer, head, window, rollout, merged word
pieces), and the τ study on the run's dev file (first --dev-cap questions). A 10 ms QTimer measures the event
loop: a stall is the time between two ticks minus 10 ms; the GUI thread's CPU time within each gap is measured
too (on a loaded machine a gap is also the turns other processes took). The worst stall is printed per action,
for the training alone (plot refreshes) and overall. Target: every action's worst stall <= 50 ms.

With --py-spy FILE, py-spy (pip install py-spy) samples this process without pausing it (--nonblocking) during
the actions; the busiest frames of the GUI thread are printed (what the remaining stalls are made of). With
--stacks a thread samples the GUI thread's Python stack while a tick is late and each action's worst gap is
printed with the stacks seen in it.
$EXPLORER_INSPECT_NICE / $EXPLORER_WORKER_NICE set the child processes' niceness (defaults 5 and 10).
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LONG_PASSAGE = " ".join(["Ada Lovelace was born in London in 1815 and wrote the first program for the Analytical "
                         "Engine, which Charles Babbage designed but never finished building."] * 14)


STACK_DEPTH = [7]   # frames kept per sampled stack (--stack-depth)


def _short_stack(frame, depth: int | None = None) -> str:
    """The innermost ``depth`` frames of a stack, outermost first, as 'file:line func' (site-packages shortened)."""
    parts, depth = [], depth or STACK_DEPTH[0]
    while frame is not None and len(parts) < depth:
        code = frame.f_code
        path = code.co_filename
        for marker in ("site-packages/", "/explorer/", "/scripts/"):
            if marker in path:
                path = ("explorer/" if marker == "/explorer/" else "") + path.split(marker, 1)[1]
                break
        parts.append(f"{os.path.basename(path) if '/' not in path else path}:{frame.f_lineno} {code.co_name}")
        frame = frame.f_back
    return " <- ".join(parts)


class StallSampler:
    """A thread that, while the GUI thread has not ticked for ``after_ms``, samples the GUI thread's Python
    stack every ``every_ms``; the meter files the samples with the gap they fell in, so the worst gap of each
    action comes with what the GUI thread was running during it ("gui_stall_probe.py:.. wait" innermost =
    Qt's own C++ work inside processEvents: painting, layout, signal delivery)."""

    def __init__(self, meter, every_ms: float = 2.0, after_ms: float = 15.0):
        import threading

        self.meter, self.every, self.after = meter, every_ms / 1000, after_ms / 1000
        self.main = threading.main_thread().ident
        self.samples: list[str] = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True, name="stall-sampler")
        self.thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            if self.meter.action is None or time.perf_counter() - self.meter.last_wall < self.after:
                continue
            frame = sys._current_frames().get(self.main)
            if frame is not None:
                self.samples.append(_short_stack(frame))

    def take(self) -> list[str]:
        out, self.samples = self.samples, []
        return out

    def stop(self) -> None:
        self._stop.set()


class StallMeter:
    """A 10 ms precise QTimer; gaps are filed under the current action (and 'seen': the last thing noticed)."""

    def __init__(self, app):
        from PySide6.QtCore import QElapsedTimer, Qt, QTimer

        self.app = app
        self.clock = QElapsedTimer()
        self.clock.start()
        self.action = None
        self.gaps: dict[str, list[float]] = collections.defaultdict(list)
        self.worst: dict[str, tuple[float, str]] = {}
        self.seconds: dict[str, float] = collections.defaultdict(float)
        self.last = None
        self.last_cpu = 0.0
        self.cpu_worst: dict[str, tuple[float, float, str]] = {}   # action -> (GUI CPU ms in a gap, its wall, seen)
        self.last_wall = time.perf_counter()
        self.sampler: StallSampler | None = None
        self.worst_stacks: dict[str, list[str]] = {}
        self.long_gaps: dict[str, list] = collections.defaultdict(list)   # with --stacks: every gap over 30 ms
        self.seen = "start"
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(10)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        self._gc_t = None
        gc.callbacks.append(self._on_gc)

    def tick(self) -> None:
        now = self.clock.nsecsElapsed() / 1e6
        cpu = time.thread_time() * 1000   # this (the GUI) thread's CPU time: what it ran, not what it waited for
        self.last_wall = time.perf_counter()
        stacks = self.sampler.take() if self.sampler is not None else []
        if self.action is not None and self.last is not None:
            gap, cpu_gap = now - self.last - 10.0, cpu - self.last_cpu
            self.gaps[self.action].append(gap)
            if gap > self.worst.get(self.action, (-1.0, ""))[0]:
                self.worst[self.action] = (gap, self.seen)
                self.worst_stacks[self.action] = stacks
            if cpu_gap > self.cpu_worst.get(self.action, (-1.0, 0.0, ""))[0]:
                self.cpu_worst[self.action] = (cpu_gap, gap, self.seen)
            if gap > 30 and self.sampler is not None:
                self.long_gaps[self.action].append((round(gap), self.seen, collections.Counter(stacks).most_common(2),
                                                    round(cpu_gap)))
        self.last, self.last_cpu = now, cpu

    def _on_gc(self, phase, info) -> None:
        if phase == "start":
            self._gc_t = time.perf_counter()
        elif self._gc_t is not None:
            ms = (time.perf_counter() - self._gc_t) * 1000
            self._gc_t = None
            if ms > 5:
                self.seen = f"gc gen{info.get('generation')} {ms:.0f} ms"

    def start(self, action: str) -> None:
        self.action, self.last, self.seen = action, None, action
        self.cpu_worst.pop(action, None)
        self._t0 = time.monotonic()

    def stop(self) -> None:
        if self.action is not None:
            self.seconds[self.action] += time.monotonic() - self._t0
        self.action, self.last = None, None

    def wait(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.app.processEvents()
            time.sleep(0.002)

    def wait_until(self, done, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if done():
                return True
            self.app.processEvents()
            time.sleep(0.002)
        return done()


TRAINING = {"run": None}   # the fine-tune's RunState, to say whether it still trained during an action


def bytecode_note() -> str:
    """Whether this process reads and writes compiled bytecode: without it (PYTHONDONTWRITEBYTECODE) every first
    import compiles its module's source on the GUI thread (the pages built after the first paint, the first
    evaluation's modules), turns of hundreds of ms that an installed app does not have."""
    if sys.dont_write_bytecode:
        return "bytecode not written (PYTHONDONTWRITEBYTECODE): first imports compile their source"
    return "bytecode cached" + (" under PYTHONPYCACHEPREFIX" if sys.pycache_prefix else "")


def run_action(meter: StallMeter, name: str, start, done, timeout: float, settle: float = 0.5) -> None:
    """Measure one action: ``start()``, then the event loop until ``done()`` and ``settle`` seconds more."""
    meter.start(name)
    t0 = time.monotonic()
    start()
    ok = meter.wait_until(done, timeout)
    took = time.monotonic() - t0
    meter.wait(settle)
    meter.stop()
    run = TRAINING["run"]
    during = "" if run is None else (f", fine-tune at step {run.step}" if run.is_live else ", the fine-tune had ended")
    print(f"  {name}: {'done' if ok else 'TIMED OUT'} in {took:.1f} s{during}", flush=True)


def inspector_actions(meter: StallMeter, win, dev_file: str, dev_cap: int) -> None:
    """The inspector actions, in the order a user would do them."""
    hub = win.hub
    seen: dict[str, object] = {}
    hub.result_changed.connect(lambda r: seen.__setitem__("result", r))
    hub.model_changed.connect(lambda m: seen.__setitem__("model", m))
    hub.message.connect(lambda text: setattr(meter, "seen", f"hub message: {text[:60]}"))
    hub.client._arrived.connect(lambda reply, value, _gen: setattr(
        meter, "seen", f"inspector reply {reply.get('event')} {type(value).__name__ if value is not None else ''}"))
    attention_page = hub.tabs()[0][1]
    run_action(meter, "first inspector load (tab visit: child start, model load, probe)",
               lambda: win.tabs.setCurrentWidget(attention_page),
               lambda: "model" in seen and "result" in seen, timeout=300)
    seen.pop("result", None)
    question = "Who designed the Analytical Engine?"
    run_action(meter, "probe with attentions (2 windows of 384 tokens)",
               lambda: hub.open_example(question, LONG_PASSAGE),
               lambda: "result" in seen and seen["result"].question == question, timeout=120)
    result = seen.get("result")
    view = hub.attention_view

    groups = {"layer": [lambda i=i: view.layer.setCurrentIndex(i) for i in range(view.layer.count())],
              "head": [lambda i=i: view.head.setCurrentIndex(i) for i in (1, 5, 0)],
              "window": [lambda: view.set_window(1), lambda: view.set_window(0)]
              if result is not None and len(result.windows) > 1 else [],
              "rollout on / off": [lambda: view.mode.setCurrentIndex(1), lambda: view.mode.setCurrentIndex(0)],
              "merge word pieces on / off": [lambda: view.merge.setChecked(not view.merge.isChecked())] * 2}
    for what, steps in groups.items():
        def change(steps=steps):
            for step in steps:
                step()
                meter.wait(0.3)
        if steps:
            run_action(meter, f"attention view: {what} changes ({len(steps)})", change, lambda: True, 30, settle=0.2)
    if not dev_file:
        print("  τ study skipped: no dev file")
        return
    dev = hub.dev_view
    done: list = []
    dev.study_ready.connect(done.append)
    dev.job.failed.connect(lambda m, _tb: done.append(m))
    run_action(meter, f"τ study on the dev file (first {dev_cap} questions)",
               lambda: (win.tabs.setCurrentWidget(dev), dev.run(dev_file, dev_cap)), lambda: bool(done), 600)
    if done and isinstance(done[0], str):
        print(f"  τ study failed: {done[0]}")


def launch(meter: StallMeter, win):
    """Click Launch on the offline default; returns the run's state once it has reported a training step."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    win.tabs.setCurrentWidget(win.launcher)
    cfg = win.launcher.config()
    print(f"launching: {cfg.model} {cfg.task} train={Path(cfg.train).name} dev={Path(cfg.dev).name} "
          f"epochs={cfg.epochs:g} batch={cfg.batch_size} lr={cfg.resolved_learning_rate():g} "
          f"max_seq_length={cfg.resolved_max_seq_length()} precision={cfg.mixed_precision}", flush=True)
    steps: list = []
    meter.start("training start (launch to first step)")
    QTest.mouseClick(win.launcher.launch_btn, Qt.MouseButton.LeftButton)
    run_id = next(iter(win.manager.states))

    def on_event(ev):
        meter.seen = f"after {ev['event']}"
        if ev.get("event") == "step":
            steps.append(ev)

    win.manager.procs[run_id].event.connect(on_event)
    win.curves._refresh_next = _traced(win.curves._refresh_next, meter)
    meter.wait_until(lambda: bool(steps) or not win.manager.states[run_id].is_live, 300)
    meter.stop()
    return cfg, win.manager.states[run_id]


def _traced(refresh, meter: StallMeter):
    def traced_refresh(key=None):
        refresh(key)
        meter.seen = f"plot refresh {key or ''}".strip()
    return traced_refresh


def start_py_spy(out: str, native: bool = False) -> subprocess.Popen | None:
    """py-spy recording this process into ``out`` (raw format); ``native``: with C/C++ frames (py-spy then pauses
    the process for each sample: the stalls measured meanwhile are longer, the profile says what Qt did)."""
    beside = Path(sys.executable).with_name("py-spy")
    exe = shutil.which("py-spy") or (str(beside) if beside.exists() else None)
    if exe is None:
        print("py-spy not found (pip install py-spy): no profile")
        return None
    how = ["--native"] if native else ["--nonblocking"]
    return subprocess.Popen([exe, "record", "--pid", str(os.getpid()), "--rate", "250", *how,
                             "--format", "raw", "--threads", "--output", out], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def report_py_spy(proc: subprocess.Popen, out: str, top: int) -> None:
    """Stop py-spy and print the GUI thread's busiest frames of this project, PySide6 and pyqtgraph."""
    proc.send_signal(2)   # SIGINT: py-spy writes its file and exits
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
    try:
        lines = Path(out).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        print(f"py-spy wrote no profile ({exc}): {proc.stderr.read().decode(errors='replace')[-300:]}")
        return
    own, total = collections.Counter(), 0
    for line in lines:
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not frames or "MainThread" not in frames[0] or not count.isdigit():
            continue
        n = int(count)
        total += n
        ours = [f for f in frames[1:] if ("/explorer/" in f or "pyqtgraph" in f) and "gui_stall_probe" not in f]
        if ours:
            own[ours[-1] if ours[-1] == frames[-1] else f"{ours[-1]} -> {frames[-1]}"] += n
        elif "gui_stall_probe" in frames[-1]:
            own["Qt C++ inside processEvents (painting, layout, signal delivery without Python frames)"] += n
        else:
            own[frames[-1]] += n
    print(f"py-spy: {total} busy samples of the GUI thread at 250 Hz ({total / 250:.1f} s busy); busiest frames:")
    for frame, n in own.most_common(top):
        print(f"  {100 * n / max(total, 1):5.1f}%  {frame}")


def print_report(meter: StallMeter, top: int) -> None:
    everything = [g for gaps in meter.gaps.values() for g in gaps]
    print("\nworst event-loop stall per action (10 ms QTimer; target <= 50 ms):")
    for name, gaps in meter.gaps.items():
        worst, seen = meter.worst.get(name, (0.0, ""))
        ordered = sorted(gaps)
        p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else float("nan")
        cpu, cpu_wall, cpu_seen = meter.cpu_worst.get(name, (0.0, 0.0, ""))
        print(f"  {worst:7.1f} ms worst, p99 {p99:5.1f} ms, {sum(g > 50 for g in gaps):3d} > 50 ms over "
              f"{meter.seconds[name]:5.1f} s  {name}" + (f"  [worst after: {seen}]" if worst > 50 else ""))
        print(f"          GUI thread CPU in one gap: {cpu:.1f} ms at most (a {cpu_wall:.0f} ms gap"
              + (f", after {cpu_seen}" if cpu > 30 else "") + ")")
        if meter.sampler is not None and worst > 30:
            for stack, n in collections.Counter(meter.worst_stacks.get(name, [])).most_common(3):
                print(f"      {n:3d} x {stack}")
            gaps = meter.long_gaps.get(name, [])
            if len(gaps) > 1:
                print("      all gaps over 30 ms: " + "; ".join(f"{g} ms ({c} ms CPU) after {seen}"
                                                             for g, seen, _, c in gaps[:8]))
                for g, seen, top, c in gaps[:8]:
                    if g > 50 and top:
                        print(f"        {g} ms gap ({c} ms CPU): {top[0][1]} x {top[0][0]}")
    if everything:
        cpus = [c for c, _, _ in meter.cpu_worst.values()]
        print(f"  overall: worst {max(everything):.1f} ms, median {statistics.median(everything):.1f} ms, "
              f"{sum(g > 50 for g in everything)} stalls > 50 ms in {len(everything)} ticks; the GUI thread's CPU in "
              f"one gap at most {max(cpus):.1f} ms; process CPU {time.process_time():.1f} s; load average "
              f"{os.getloadavg()}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=240.0, help="seconds of training to probe in all")
    ap.add_argument("--dev-cap", type=int, default=100, help="questions of the dev file for the τ study")
    ap.add_argument("--dev-file", default="", help="dev file for the τ study (default: the run's dev file)")
    ap.add_argument("--no-train", action="store_true", help="the inspector actions without a fine-tune")
    ap.add_argument("--no-actions", action="store_true", help="only the fine-tune (plot refreshes)")
    ap.add_argument("--py-spy", default="", help="profile the GUI process with py-spy into this file")
    ap.add_argument("--shots", default="", help="folder for a screenshot of the window at the end")
    ap.add_argument("--native", action="store_true",
                    help="with --py-spy: native (C++) frames too; py-spy then pauses the process for each sample")
    ap.add_argument("--top", type=int, default=10, help="frames listed from the py-spy profile")
    ap.add_argument("--stacks", action="store_true",
                    help="sample the GUI thread's stack during gaps (a thread, every 2 ms once a tick is 15 ms late) "
                         "and print what ran in each action's worst gap")
    ap.add_argument("--keep", action="store_true", help="keep the temporary runs folder (printed at the start)")
    ap.add_argument("--stack-depth", type=int, default=7, help="innermost frames printed per --stacks sample")
    ap.add_argument("--settle", type=float, default=8.0, help="seconds to let the app start before launching")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    a = ap.parse_args()
    load0 = load_average()
    STACK_DEPTH[0] = a.stack_depth

    tmp = Path(tempfile.mkdtemp(prefix="stall_probe_"))
    print(f"runs, settings and cache in {tmp}" + ("" if a.keep else " (removed at the end)"), flush=True)
    os.environ.setdefault("EXPLORER_CACHE_DIR", str(tmp / "cache"))   # the τ study is computed, not cached
    from explorer.ui.app import create_window

    app, win = create_window(str(tmp / "runs"), str(tmp / "settings.ini"))
    win.resize(1500, 940)
    win.show()
    meter = StallMeter(app)
    if a.stacks:
        meter.sampler = StallSampler(meter)
    meter.wait(a.settle)          # device probe, data preview and runs scan finish in the background
    print(f"GUI pid {os.getpid()}, niceness {os.nice(0)}; EXPLORER_WORKER_NICE="
          f"{os.environ.get('EXPLORER_WORKER_NICE', '10 (default)')}, EXPLORER_INSPECT_NICE="
          f"{os.environ.get('EXPLORER_INSPECT_NICE', '5 (default)')}; load average {os.getloadavg()}; "
          f"{bytecode_note()}", flush=True)
    t0 = time.monotonic()
    run, cfg = None, win.launcher.config()
    if not a.no_train:
        cfg, run = launch(meter, win)
        TRAINING["run"] = run
    spy = start_py_spy(a.py_spy, a.native) if a.py_spy else None
    if not a.no_actions:
        inspector_actions(meter, win, a.dev_file or cfg.dev, a.dev_cap)
    if spy is not None:
        report_py_spy(spy, a.py_spy, a.top)
    if run is not None:
        meter.start("training only (plot refreshes), after the actions")
        meter.wait_until(lambda: not run.is_live, max(10.0, a.duration - (time.monotonic() - t0)))
        meter.stop()
        best = run.best_metric()
        sps = run.series.get("samples_per_second")
        print(f"run: {run.status} at step {run.step} of {run.steps_total}"
              + (f", best dev {best[0]} {best[1]:.2f}" if best else "")
              + (f", median {statistics.median(sps.y):.2f} samples/s" if sps is not None and len(sps) else ""))
        if run.is_live:
            win.manager.cancel_all(wait_ms=10_000)
    if meter.sampler is not None:
        meter.sampler.stop()
    print_report(meter, a.top)
    everything = [g for gaps in meter.gaps.values() for g in gaps]
    if everything:
        figures = {f"worst stall, {name} (ms)": meter.worst.get(name, (0.0, ""))[0] for name in meter.gaps}
        figures.update({"stalls over 50 ms": sum(g > 50 for g in everything), "ticks": len(everything)})
        record(a, "gui_stall_probe", case=f"{'no training' if a.no_train else 'a fine-tune'}, {a.duration:.0f} s",
               figures=figures, load_start=load0, notes=bytecode_note())
    if a.shots:
        Path(a.shots).mkdir(parents=True, exist_ok=True)
        win.grab().save(str(Path(a.shots) / "stall_probe_end.png"))
    if win.hub is not None:
        win.hub.client.stop()
    win.close()
    from PySide6.QtCore import QCoreApplication, QEvent

    win.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)   # the run (checkpoints), settings and cache of this probe
    return 0


if __name__ == "__main__":
    sys.exit(main())
