"""Figures for the inspectors: probe latency (p50/p95) and the attention view's redraw time.

    QT_QPA_PLATFORM=offscreen python scripts/bench_inspectors.py [--model bundled:minilm] [--repeats 20]
        [--shots /tmp/shots] [--dev-file FILE --dev-cap 200]

Prints:
- probe latency for a ~200-token passage and for a passage that fills a full 384-token window, with
  attentions (what the inspector runs) and without;
- the Attention view alone on a full 384-token window: layer and head changes, median and p95 of the update and of
  the update + paint (target <= 30 ms); ``--attention-only`` prints only this;
- the attention view redraw in the hub for a full 384-token window: set_result, layer change, head change,
  merge word pieces, rollout, head-view hover; each timed until the widget has painted (grab());
- the Spans view: set_result and a τ change (no forward pass).
With --shots, saves a PNG of each view (and of the dev-set view with --dev-file). Never asserts speed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WORDS = ("the lighthouse keeper trimmed the wick every evening and the lamp burned lard oil until kerosene "
         "replaced it because it was cheaper and brighter and the keepers wrote each change into the log").split()


def passage_of(tokenizer, n_tokens: int) -> str:
    """A passage of about n_tokens word pieces (repeating a plain sentence)."""
    words, k = [], 0
    while len(tokenizer(" ".join(words), add_special_tokens=False)["input_ids"]) < n_tokens:
        words.append(WORDS[k % len(WORDS)])
        k += 1
    return " ".join(words)


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def time_probe(loaded, question, passage, repeats, attentions) -> tuple[float, float, int]:
    from explorer.core.qa.probe import probe

    probe(loaded, question, passage, attentions=attentions)  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        r = probe(loaded, question, passage, attentions=attentions)
        times.append(time.perf_counter() - t0)
    return pct(times, 0.5) * 1000, pct(times, 0.95) * 1000, len(r.windows[0].tokens)


def timed(app, widget, action, repeats=5) -> float:
    """Median ms of action() + processEvents until all of it is drawn (settle) + a full paint (grab)."""
    times = []
    for k in range(repeats):
        t0 = time.perf_counter()
        action(k)
        settle(app, widget)
        widget.grab()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def settle(app, widget) -> None:
    """processEvents until the widget has nothing left for a later turn (a view with ``redraw_pending``: the part
    of a change it draws after the paint)."""
    pending = getattr(widget, "redraw_pending", lambda: False)
    app.processEvents()
    for _ in range(100):
        if not pending():
            return
        app.processEvents()


def run_in_loop(action, pending) -> tuple[float, float, list[float], float]:
    """Run ``action()`` inside a real event loop (QEventLoop.exec) with a 1 ms precise timer ticking beside it, as
    the app's own loop runs it; returns (ms until the first tick after the view has nothing ``pending`` (its
    paints included: they run before timers), the GUI thread's CPU ms over that time, the gaps between ticks
    (ms, less the 1 ms interval): each gap is an event-loop turn that held the GUI thread, and the
    time.perf_counter() at which the action started)."""
    from PySide6.QtCore import QEventLoop, Qt, QTimer

    loop, ticks, state = QEventLoop(), [], {}
    meter = QTimer()
    meter.setTimerType(Qt.TimerType.PreciseTimer)
    meter.setInterval(1)

    def tick() -> None:
        now = time.perf_counter()
        if "t0" in state:
            ticks.append(now)
            if not pending() and len(ticks) >= 2:
                state["t1"], state["c1"] = now, time.thread_time()
                loop.quit()

    def go() -> None:
        state["c0"], state["t0"] = time.thread_time(), time.perf_counter()
        ticks.append(state["t0"])
        action()

    meter.timeout.connect(tick)
    meter.start()
    QTimer.singleShot(2, go)
    QTimer.singleShot(5000, loop.quit)   # a safety net; never reached in practice
    loop.exec()
    meter.stop()
    gaps = [max(0.0, (b - a) * 1000 - 1.0) for a, b in zip(ticks, ticks[1:])]
    t1, c1 = state.get("t1", time.perf_counter()), state.get("c1", time.thread_time())
    return (t1 - state["t0"]) * 1000, (c1 - state["c0"]) * 1000, gaps, state["t0"]


def timed_split(app, widget, action, repeats, prepare=None) -> dict[str, list[float]]:
    """Per repeat, the change run in a real event loop (run_in_loop): ms until all of it is drawn ("update"), ms
    of that plus a full paint (grab, "total"), the GUI thread's CPU ms of the update (time.thread_time: what the
    change costs, without the turns other processes took on a loaded machine, "cpu"), and the longest event-loop
    turn of the update ("turn": what the app's event loop could not answer input for); prepare(k), when given,
    runs (and paints) before each timing, untimed."""
    pending = getattr(widget, "redraw_pending", lambda: False)
    out: dict[str, list[float]] = {"update": [], "total": [], "cpu": [], "turn": []}
    for k in range(repeats):
        if prepare is not None:
            prepare(k)
            settle(app, widget)
            widget.grab()
        update, cpu, gaps, t0 = run_in_loop(lambda: action(k), pending)
        widget.grab()
        out["update"].append(update)
        out["total"].append((time.perf_counter() - t0) * 1000)
        out["cpu"].append(cpu)
        out["turn"].append(max(gaps) if gaps else update)
    return out


def attention_redraw(app, result, repeats: int) -> dict:
    """The Attention view alone (1500 x 950, as in the app) on one probed window: layer and head changes,
    timed until painted; median and p95 (target: <= 30 ms for a layer / head change)."""
    from explorer.ui.inspectors.attention_view import AttentionView

    view = AttentionView()
    view.resize(1500, 950)
    view.show()
    view.set_result(result)
    app.processEvents()
    view.grab()
    att = result.attention[0]
    layers, heads = att.num_layers, att.num_heads
    def next_layer(k):
        view.layer.setCurrentIndex((view.layer.currentIndex() + 1) % layers)

    rows = [
        ("layer change (mean over heads)", next_layer),
        ("head change", lambda k: view.head.setCurrentIndex(1 + k % heads)),
        ("layer change (one head)", next_layer),
        ("one head -> mean over heads", lambda k: view.head.setCurrentIndex(0),
         lambda k: view.head.setCurrentIndex(1 + k % heads)),
    ]
    n = len(result.windows[0].tokens)
    print(f"\nattention view alone, {n}-token window ({layers} layers x {heads} heads), {repeats} changes each, "
          f"ms (update = the change + processEvents until all of it is drawn; + paint = until grab() has painted "
          f"the view; longest turn = the longest of the update's event-loop turns); "
          f"load average {os.getloadavg()[0]:.2f}:")
    print(f"  {'':32s} {'update p50':>10s} {'p95':>6s} {'+ paint p50':>12s} {'p95':>6s} {'update CPU p50':>15s} "
          f"{'p95':>6s} {'longest turn p50':>17s} {'p95':>6s}")
    cpu0 = time.process_time()
    figures = {}
    for name, action, *prepare in rows:
        m = timed_split(app, view, action, repeats, *prepare)
        figures.update({f"{name} p50 (ms)": pct(m["update"], 0.5), f"{name} p95 (ms)": pct(m["update"], 0.95),
                        f"{name}, GUI CPU p95 (ms)": pct(m["cpu"], 0.95)})
        print(f"  {name:32s} " + " ".join(f"{pct(m[key], 0.5):{width}.1f} {pct(m[key], 0.95):6.1f}" for key, width in
                                          (("update", 10), ("total", 12), ("cpu", 15), ("turn", 17))))
    print(f"  process CPU time of these changes: {time.process_time() - cpu0:.2f} s; load average {os.getloadavg()[0]:.2f}")
    view.close()
    return figures


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--shots", default="", help="folder for PNG screenshots of each view")
    ap.add_argument("--dev-file", default="", help="SQuAD v2.0 file for the dev-set view screenshot")
    ap.add_argument("--dev-cap", type=int, default=200)
    ap.add_argument("--attention-only", action="store_true",
                    help="only the Attention view's layer / head redraw (no probe latency, hub or spans view)")
    from explorer.benchmarks import add_results_argument, load_average, record

    add_results_argument(ap)
    args = ap.parse_args(argv)
    load0 = load_average()

    import torch
    from PySide6.QtWidgets import QApplication, QTabWidget

    from explorer.core.models.loading import load_model
    from explorer.core.qa.probe import probe

    app = QApplication.instance() or QApplication(sys.argv)
    print(f"torch threads {torch.get_num_threads()}, model {args.model}")
    loaded = load_model(args.model)
    print(loaded.describe())
    tok = loaded.tokenizer
    question = "What fuel replaced lard oil in lighthouse lamps?"
    p200 = passage_of(tok, 200)
    p384 = passage_of(tok, 384 - len(tok(question, add_special_tokens=False)["input_ids"]) - 3)

    if args.attention_only:
        figures = attention_redraw(app, probe(loaded, question, p384, attentions=True), max(args.repeats, 20))
        record(args, "bench_inspectors", case=f"Attention view, full 384-token window, {args.model}",
               figures=figures, load_start=load0)
        return 0
    print("\nprobe latency (ms), p50 / p95 over", args.repeats, "runs:")
    figures = {}
    for name, passage in (("~200-token passage", p200), ("full 384-token window", p384)):
        for att in (True, False):
            p50, p95, n = time_probe(loaded, question, passage, args.repeats, att)
            print(f"  {name:22s} ({n} tokens in window 1), attentions={att!s:5}: p50 {p50:7.1f}  p95 {p95:7.1f}")
            figures[f"probe, {name}{', attentions' if att else ''}, p95 (ms)"] = p95

    from explorer.ui.inspectors import InspectorHub

    figures.update(attention_redraw(app, probe(loaded, question, p384, attentions=True), max(args.repeats, 20)))
    record(args, "bench_inspectors", case=f"probes and the Attention view, full 384-token window, {args.model}",
           figures=figures, load_start=load0)
    hub = InspectorHub()
    tabs = QTabWidget()
    for title, w in hub.tabs():
        tabs.addTab(w, title)
    tabs.resize(1500, 950)
    tabs.show()
    hub.set_model(loaded)
    result = probe(loaded, question, p384, attentions=True)
    n = len(result.windows[0].tokens)
    view = hub.attention_view
    tabs.setCurrentIndex(0)
    app.processEvents()
    print(f"\nattention view redraw, full window of {n} tokens "
          f"({result.attention[0].num_layers} layers x {result.attention[0].num_heads} heads), median ms:")
    hub.panel.set_inputs(question, p384)
    view.set_result(result)
    layers, heads = view.layer.count(), view.head.count()
    rows = [
        ("set_result (new probe)", lambda k: view.set_result(result)),
        ("layer change", lambda k: view.layer.setCurrentIndex((view.layer.currentIndex() + 1) % layers)),
        ("head change", lambda k: view.head.setCurrentIndex(1 + k % (heads - 1))),
        ("mean over heads", lambda k: (view.head.setCurrentIndex(1), view.head.setCurrentIndex(0))),
        ("merge word pieces on/off", lambda k: view.merge.setChecked(not view.merge.isChecked())),
        ("rollout on/off", lambda k: view.mode.setCurrentIndex(1 - view.mode.currentIndex())),
        ("all tokens -> all tokens lines", lambda k: view.direction.setCurrentIndex(2 if k % 2 == 0 else 0)),
        ("head-view hover", lambda k: view.head_view.set_hover("left", k % max(1, len(view.head_view.left_labels)))),
    ]
    for name, action in rows:
        print(f"  {name:32s} {timed(app, view, action):7.1f}")
    view.mode.setCurrentIndex(0)
    view.merge.setChecked(False)
    view.direction.setCurrentIndex(0)
    view.head.setCurrentIndex(0)

    spans = hub.spans_view
    tabs.setCurrentIndex(1)
    app.processEvents()
    print("\nspans view, median ms:")
    print(f"  {'set_result (new probe)':32s} {timed(app, spans, lambda k: spans.set_result(result)):7.1f}")
    print(f"  {'τ change (no forward pass)':32s} {timed(app, spans, lambda k: spans.set_tau(0.25 * k)):7.1f}")

    if args.shots:
        out = Path(args.shots)
        out.mkdir(parents=True, exist_ok=True)
        examples = {e["title"]: e for e in hub.panel.examples}
        ada = next((e for t, e in examples.items() if t.startswith("Ada Lovelace")), hub.panel.examples[0])
        shot = probe(loaded, ada["question"], ada["passage"], attentions=True)
        hub.panel.set_inputs(ada["question"], ada["passage"])
        hub.show_result(shot)
        spans.set_tau(0.0)
        tabs.setCurrentIndex(0)
        view.layer.setCurrentIndex(view.layer.count() - 1)
        view.merge.setChecked(True)
        app.processEvents()
        tabs.grab().save(str(out / "attention.png"))
        left = view.head_view.left_labels
        view.head_view.set_hover("left", left.index("born") if "born" in left else 0)
        app.processEvents()
        tabs.grab().save(str(out / "attention_hover.png"))
        view.head_view.set_hover("", -1)
        view.bottom.setCurrentIndex(1)
        app.processEvents()
        tabs.grab().save(str(out / "attention_model_view.png"))
        view.bottom.setCurrentIndex(0)
        view.merge.setChecked(False)
        hub.panel.set_inputs(question, p384)
        hub.show_result(result)
        app.processEvents()
        tabs.grab().save(str(out / "attention_384.png"))
        hub.panel.set_inputs(ada["question"], ada["passage"])
        hub.show_result(shot)
        tabs.setCurrentIndex(1)
        app.processEvents()
        tabs.grab().save(str(out / "spans.png"))
        spans.right_tabs.setCurrentWidget(spans.probs)
        app.processEvents()
        tabs.grab().save(str(out / "spans_probs.png"))
        spans.right_tabs.setCurrentWidget(spans.table_map)
        long_ex = next((e for t, e in examples.items() if "long passage" in t), None)
        if long_ex is not None:
            r = probe(loaded, long_ex["question"], long_ex["passage"], attentions=True)
            hub.panel.set_inputs(long_ex["question"], long_ex["passage"])
            hub.show_result(r)
            app.processEvents()
            tabs.grab().save(str(out / "spans_long.png"))
        if args.dev_file:
            dev = hub.dev_view
            tabs.setCurrentIndex(2)
            done = []
            dev.study_ready.connect(done.append)
            dev.job.failed.connect(lambda m, tb: done.append(m))
            dev.run(args.dev_file, args.dev_cap)
            t0 = time.perf_counter()
            while not done and time.perf_counter() - t0 < 600:
                app.processEvents()
                time.sleep(0.02)
            print(f"\ndev-set view: {args.dev_cap} questions in {time.perf_counter() - t0:.1f} s "
                  f"({dev.status.text()})")
            app.processEvents()
            tabs.grab().save(str(out / "dev.png"))
        print(f"\nscreenshots in {out}")
    hub.client.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
