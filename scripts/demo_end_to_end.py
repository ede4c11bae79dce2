"""The whole loop on real data, through the real app (offscreen), with a report.

    QT_QPA_PLATFORM=offscreen python scripts/demo_end_to_end.py --minutes 20 --out demo_out
    QT_QPA_PLATFORM=offscreen python scripts/demo_end_to_end.py --minutes 2 --dev-cap 60 --tau-cap 100 --out /tmp/d

What it does, as a user would in the GUI:
1. starts the main window offscreen and fills the launcher: bundled:minilm, SQuAD v2.0, --train
   (default ../shared/data/squad_v2.0/train-subset.json), dev --dev capped at --dev-cap questions,
   the fast-CPU settings (max_seq_length 256, lr 1e-4, length-grouped batches, precision "auto",
   one epoch), evaluation every --eval-every steps, two real dev questions (the first answerable
   and the first unanswerable one) as watch examples; screenshot launcher.png; clicks Launch;
2. trains for --minutes of training (counted from the end of the step-0 evaluation, periodic
   evaluations included), grabbing the Curves panel every --shot-every minutes
   (curves_<mm>m.png), then clicks "Stop early" in the Runs list: the worker finishes its step,
   evaluates, saves, and reports `finished` (stopped_early); screenshot curves_final.png;
3. clicks "Open best checkpoint in inspectors" and probes the two dev questions (attention_<k>.png,
   spans_<k>.png); runs the τ sweep on the dev file (first --tau-cap questions) in the "τ on dev
   set" panel (tau.png) and opens the question nearest the chosen τ in Spans & τ (spans_near_tau.png);
4. writes OUT/report.md: dev EM / F1 before (step-0 evaluation) and after, every evaluation, best τ
   and the honest half-split figure, the block flow of each watch example before and after
   fine-tuning (from the eval events' `watch` field), throughput, and the screenshots.

The run folder is kept under OUT/runs/<run_id>/ (config.json, events.jsonl, checkpoints/).
Prints progress; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from screenshots import TAB_ATTENTION, TAB_CURVES, TAB_LAUNCH, TAB_SPANS, TAB_TAU, AppDriver, DriverError  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "squad_v2.0"
FLOW_COLUMNS = (("question->passage", "q→p"), ("passage->question", "p→q"),
                ("question->special", "q→[CLS]/[SEP]"), ("passage->special", "p→[CLS]/[SEP]"))
# Samples per second assumed when --eval-every is not given (a 2-core CPU in fp32, max_seq_length 256).
ASSUMED_SAMPLES_PER_SECOND = 3.0


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def pick_watch(dev_path: str, cap: int) -> tuple[list[dict], dict]:
    """The first answerable and the first unanswerable question among the first `cap` dev questions;
    also id -> gold answers of those questions."""
    from explorer.core.data.squad import gold_answers, load_squad

    ds, _report = load_squad(dev_path)
    n = min(len(ds), cap) if cap else len(ds)
    rows = ds.select(range(n))
    gold = gold_answers(rows)
    picked: list[dict] = []
    for want_answer in (True, False):
        for r in rows:
            if bool(gold[r["id"]]) == want_answer:
                picked.append({"question": r["question"], "passage": r["context"], "id": r["id"],
                               "gold": gold[r["id"]]})
                break
    return picked, gold


def auto_eval_every(minutes: float, batch_size: int, evals: int = 6) -> int:
    """Steps between evaluations so that about `evals` land in the budget at the assumed speed."""
    steps = minutes * 60 * ASSUMED_SAMPLES_PER_SECOND / batch_size
    return max(5, int(steps / evals))


def fmt(x, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def md_table(header: list[str], rows: list[list]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def write_report(out: Path, a, info: dict, events: list[dict], shots: list[tuple[str, str]], probes: list[dict],
                 tau: dict | None) -> Path:
    """OUT/report.md from the run's events.jsonl and what the driver saw."""
    started = next((e for e in events if e["event"] == "started"), {})
    steps = [e for e in events if e["event"] == "step"]
    evals = [e for e in events if e["event"] == "eval"]
    end = next((e for e in reversed(events) if e["event"] in ("finished", "failed", "cancelled")), {})
    cfg = started.get("config", {})
    L = [f"# BERT Explorer end-to-end demo: {info['run_id']}", ""]
    L.append(f"Command: `{info['command']}`  ")
    L.append(f"Date: {time.strftime('%Y-%m-%d %H:%M')}; machine: {platform.processor() or platform.machine()}, "
             f"{os.cpu_count()} CPU threads; device {started.get('device', '?')}, precision "
             f"{started.get('mixed_precision', '?')} (asked: {cfg.get('mixed_precision', '?')}).")
    if cfg.get("mixed_precision") == "auto" and started.get("mixed_precision") == "no":
        L.append("(\"auto\" chose fp32: bf16 autocast is only fast with hardware bf16 matmul, i.e. AMX tiles "
                 "or a bf16 GPU, and this device has neither.)")
    L.append("")
    L.append("## Run")
    L += md_table(["setting", "value"], [
        ["model", cfg.get("model")], ["task", cfg.get("task")],
        ["train", f"{cfg.get('train')} ({started.get('num_train_examples', '?')} questions, "
                  f"{started.get('num_train_features', '?')} windows)"],
        ["dev", f"{cfg.get('dev')} (first {cfg.get('dev_cap') or 'all'} questions: "
                f"{started.get('num_dev_examples', '?')})"],
        ["batch_size / learning_rate / warmup_ratio", f"{cfg.get('batch_size')} / {cfg.get('learning_rate')} / "
                                                      f"{cfg.get('warmup_ratio')}"],
        ["max_seq_length / doc_stride", f"{cfg.get('max_seq_length')} / {cfg.get('doc_stride')}"],
        ["eval_every", f"{cfg.get('eval_every')} steps"],
        ["steps planned (one epoch)", started.get("steps_total", "?")],
        ["status", f"{end.get('event', '?')}{' (stopped early)' if end.get('stopped_early') else ''}; "
                   + (f"{steps[-1]['step']} steps, epoch {steps[-1]['epoch']:.2f}" if steps else "no steps")],
        ["run folder", info["run_dir"]],
    ])
    L.append("")
    L.append("## Time")
    eval_s = sum(float(e.get("seconds") or 0) for e in evals)
    L += md_table(["phase", "seconds"], [
        ["launch click → `started` (worker start, data, tokenize, model load)", fmt(info.get("setup_s"), 0)],
        ["step-0 evaluation", fmt(float(evals[0].get("seconds") or 0) if evals else None, 0)],
        ["training budget (from the end of the step-0 evaluation, evaluations included)",
         f"{fmt(info.get('train_s'), 0)} (asked {a.minutes:g} min)"],
        ["stop-early click → `finished` (finish the step, final evaluation, save)", fmt(info.get("stop_s"), 0)],
        ["all evaluations together", fmt(eval_s, 0)],
        ["τ sweep (inference + figures)", fmt(tau.get("seconds") if tau else None, 0)],
        ["whole demo", fmt(info.get("total_s"), 0)],
    ])
    L.append("")
    if steps:
        sps = [float(s["samples_per_second"]) for s in steps if s.get("samples_per_second")]
        n = max(1, min(10, len(steps) // 4))
        first = statistics.mean(float(s["loss"]) for s in steps[:n])
        last = statistics.mean(float(s["loss"]) for s in steps[-n:])
        L.append("## Throughput and loss")
        L.append(f"- samples/s (worker `step` events, evaluations excluded): median {statistics.median(sps):.2f}, "
                 f"max {max(sps):.2f}; {steps[-1]['step'] * int(cfg.get('batch_size') or 0):,} training windows seen.")
        if evals and cfg.get("dev_cap"):
            per = [int(cfg["dev_cap"]) / float(e["seconds"]) for e in evals if e.get("seconds")]
            L.append(f"- dev evaluation: {statistics.median(per):.1f} questions/s (median over {len(per)} evaluations, "
                     "inference + decoding + metrics + watch probes).")
        L.append(f"- training loss: mean of the first {n} steps {first:.3f} → mean of the last {n} steps {last:.3f}.")
        L.append("")
    if evals:
        e0, e1 = evals[0]["metrics"], evals[-1]["metrics"]
        L.append("## Dev metrics (official SQuAD v2.0 script logic, τ = 0)")
        L.append(f"**Before fine-tuning (step {evals[0]['step']})**: EM {fmt(e0.get('exact_match'))}, "
                 f"F1 {fmt(e0.get('f1'))}. **After (step {evals[-1]['step']})**: EM {fmt(e1.get('exact_match'))}, "
                 f"F1 {fmt(e1.get('f1'))}.")
        L.append("")
        L += md_table(["step", "EM", "F1", "HasAns_f1", "NoAns_f1", "best_f1", "best_tau", "seconds"],
                      [[e["step"], fmt(e["metrics"].get("exact_match")), fmt(e["metrics"].get("f1")),
                        fmt(e["metrics"].get("HasAns_f1")), fmt(e["metrics"].get("NoAns_f1")),
                        fmt(e["metrics"].get("best_f1")), fmt(e["metrics"].get("best_tau"), 3),
                        fmt(e.get("seconds"), 1)] for e in evals])
        L.append("")
        L.append("best_f1 / best_tau: the official best-threshold search on the same questions (optimistic: τ is "
                 "chosen and scored on one set; the honest figure is below).")
        L.append("")
    if tau:
        f = tau
        L.append(f"## τ on the dev set ({f['n']} questions of {Path(f['path']).name}, checkpoint of step "
                 f"{info.get('checkpoint', {}).get('step', '?')})")
        L.append(f"Settings of the sweep's inference: {f.get('settings')}; inference {fmt(f.get('inference_s'), 1)} s.")
        L.append("")
        L.append(f"- at τ = 0: EM {fmt(f['official']['exact_match'])}, F1 {fmt(f['official']['f1'])}, "
                 f"HasAns_f1 {fmt(f['official'].get('HasAns_f1'))}, NoAns_f1 {fmt(f['official'].get('NoAns_f1'))}.")
        L.append(f"- best τ on the grid (−6..+6, step 0.25): **{f['best_tau']:+.2f}**, F1 {f['best_f1']:.2f}; official "
                 f"exact search: best_f1 {fmt(f['official'].get('best_f1'))} at τ {f['official'].get('best_tau', 0):+.3f}.")
        h = f.get("honest")
        if h:
            L.append(f"- **honest τ** (chosen on one random half, scored on the other): half A ({h['n_A']} q) picks "
                     f"τ {h['tau_A']:+.2f} → F1 on half B {h['f1_B_at_tau_A']:.2f}; half B picks τ {h['tau_B']:+.2f} → "
                     f"F1 on half A {h['f1_A_at_tau_B']:.2f}; **honest F1 {h['honest_f1']:.2f}** vs "
                     f"{h['dev_best_f1']:.2f} when τ is chosen and scored on the same questions.")
        L.append("")
    if evals and evals[0].get("watch") and evals[-1].get("watch"):
        L.append("## Block flow of the watch examples, before and after fine-tuning")
        L.append("Share of attention (mean over heads and over the from-block's tokens) that one block sends to "
                 "another, per layer, from the eval events' `watch` field (step "
                 f"{evals[0]['step']} vs step {evals[-1]['step']}).")
        L.append("")
        for k, (w0, w1) in enumerate(zip(evals[0]["watch"], evals[-1]["watch"])):
            L.append(f"### Watch {k + 1}: {w0['question']}")
            gold = info["watch"][k]["gold"] if k < len(info["watch"]) else None
            if gold is not None:
                L.append(f"Gold: {', '.join(repr(g) for g in gold) or '(no answer)'}. "
                         f"Before: answer {w0.get('answer') or '(no answer)'!r}, best span {w0.get('best_span')!r}, "
                         f"score_diff {fmt(w0.get('score_diff'))}. After: answer {w1.get('answer') or '(no answer)'!r}, "
                         f"best span {w1.get('best_span')!r}, score_diff {fmt(w1.get('score_diff'))}.")
                L.append("")
            if "flow" in w0 and "flow" in w1:
                header = ["layer"] + [f"{short} before" for _, short in FLOW_COLUMNS] + \
                         [f"{short} after" for _, short in FLOW_COLUMNS]
                rows = []
                for layer in range(len(w0["flow"]["question->passage"])):
                    rows.append([layer + 1] + [f"{w0['flow'][key][layer]:.3f}" for key, _ in FLOW_COLUMNS]
                                + [f"{w1['flow'][key][layer]:.3f}" for key, _ in FLOW_COLUMNS])
                L += md_table(header, rows)
                L.append("")
    if probes:
        ck = info.get("checkpoint", {})
        L.append(f"## Inspectors on real dev questions (checkpoint {ck.get('path', '?')}: step {ck.get('step', '?')}, "
                 f"dev F1 {fmt((ck.get('metrics') or {}).get('f1'))} at save time)")
        L.append(f"Probe settings: {info.get('probe_settings', '?')}.")
        L.append("")
        for p in probes:
            L.append(f"- {p['question']!r} (gold {', '.join(repr(g) for g in p['gold']) or '(no answer)'}): "
                     f"{p['decision']} → {p['answer'] or '(no answer)'!r}; best span {p['best_span']!r}; by-hand "
                     f"check max |T_i·W + b − logits| {p['byhand']}; probe {p['ms']:.0f} ms.")
        L.append("")
    L.append("## Screenshots")
    for name, caption in shots:
        L.append(f"- [{name}]({name}): {caption}")
    L.append("")
    L.append("![curves](curves_final.png)" if any(n == "curves_final.png" for n, _ in shots) else "")
    path = out / "report.md"
    path.write_text("\n".join(L) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="demo_out", help="folder for report.md, screenshots and runs/ (default demo_out)")
    ap.add_argument("--train", default=str(DATA / "train-subset.json"), help="SQuAD v2.0 train file")
    ap.add_argument("--dev", default=str(DATA / "dev-subset.json"), help="SQuAD v2.0 dev file")
    ap.add_argument("--model", default="bundled:minilm")
    ap.add_argument("--minutes", type=float, default=20.0, help="minutes of training before 'Stop early'")
    ap.add_argument("--dev-cap", type=int, default=300, help="dev questions evaluated during training")
    ap.add_argument("--tau-cap", type=int, default=1000, help="dev questions in the τ sweep (0 = all)")
    ap.add_argument("--eval-every", type=int, default=0,
                    help=f"steps between evaluations (default: about 6 in the budget at "
                         f"{ASSUMED_SAMPLES_PER_SECOND:g} samples/s)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--train-cap", type=int, default=0, help="use only the first N train questions (0 = all)")
    ap.add_argument("--precision", default="auto", choices=("auto", "no", "bf16", "fp16"))
    ap.add_argument("--shot-every", type=float, default=4.0, help="minutes between curve screenshots")
    ap.add_argument("--max-kb", type=int, default=500, help="largest PNG size; bigger grabs are scaled down")
    a = ap.parse_args(argv)

    for path in (a.train, a.dev):
        if not Path(path).is_file():
            print(f"error: {path} does not exist (give --train / --dev)", file=sys.stderr)
            return 2
    out = Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="explorer_demo_"))
    os.environ.setdefault("EXPLORER_CACHE_DIR", str(tmp / "cache"))
    eval_every = a.eval_every or auto_eval_every(a.minutes, a.batch_size)
    t_all = time.monotonic()
    watch, _gold = pick_watch(a.dev, a.dev_cap)
    log(f"watch examples (real dev questions): {[w['question'] for w in watch]}")

    drv = AppDriver(out / "runs", tmp / "settings.ini")
    win = drv.win
    shots: list[tuple[str, str]] = []
    probes: list[dict] = []
    tau: dict | None = None
    info: dict = {"watch": watch, "command": " ".join(["python", "scripts/demo_end_to_end.py", *sys.argv[1:]])}

    def shot(name: str, caption: str) -> None:
        w, h, size = drv.grab(out / name, a.max_kb)
        shots.append((name, caption))
        log(f"{name} {w}x{h} {size // 1024} KB")

    run_id = ""
    rc = 0
    try:
        drv.show_tab(TAB_LAUNCH)
        win.launcher.apply_preset("offline")       # fast-CPU settings (max_seq_length 256, lr 1e-4, 1 epoch)
        drv.fill_form(model=a.model, task="squad_v2", train=a.train, dev=a.dev, dev_cap=a.dev_cap,
                      train_cap=a.train_cap, epochs=1.0, max_steps=0, batch_size=a.batch_size,
                      eval_every=eval_every, mixed_precision=a.precision,
                      watch=[{"question": w["question"], "passage": w["passage"]} for w in watch])
        drv.wait_previews(timeout=300)
        shot("launcher.png", "the launcher filled for this run, with the data preview and the command line")

        t_launch = time.monotonic()
        run_id = drv.launch()
        state = drv.state(run_id)
        info.update(run_id=run_id, run_dir=str(out / "runs" / run_id))
        log(f"launched {run_id}: {win.launcher.command.toPlainText()}")
        drv.show_tab(TAB_CURVES)
        drv.wait_until(lambda: state.status != "starting", 600, "the worker's `started` event")
        info["setup_s"] = time.monotonic() - t_launch
        if not state.is_live:
            raise DriverError(f"the run ended at start: {state.status} {state.error}")
        log(f"started after {info['setup_s']:.0f} s: {state.steps_total} steps planned, device {state.device} "
            f"{state.mixed_precision}; step-0 evaluation on {a.dev_cap or 'all'} dev questions …")
        drv.wait_until(lambda: len(state.evals) >= 1 or not state.is_live, 1800, "the step-0 evaluation")
        t_train = time.monotonic()
        budget = a.minutes * 60
        next_shot = a.shot_every * 60
        last_log = 0.0

        def tick() -> None:
            nonlocal next_shot, last_log
            now = time.monotonic() - t_train
            if now >= next_shot and now < budget:
                win.curves.redraw_now()
                drv.wait(0.3)
                shot(f"curves_{int(now // 60):02d}m.png", f"Curves after {now / 60:.1f} minutes of training "
                                                          f"(step {state.step})")
                next_shot += a.shot_every * 60
            if now - last_log >= 60:
                last_log = now
                best = state.best_metric()
                loss = state.series.get("loss")
                log(f"{now / 60:4.1f} min: step {state.step}/{state.steps_total}, loss "
                    f"{loss.y[-1] if loss is not None and len(loss) else float('nan'):.3f}, {len(state.evals)} evals"
                    + (f", best dev {best[0]} {best[1]:.2f}" if best else ""))

        try:
            drv.wait_until(lambda: not state.is_live or time.monotonic() - t_train >= budget, budget + 60,
                           "the training budget", tick=tick)
        except DriverError:
            pass
        info["train_s"] = time.monotonic() - t_train
        if state.is_live:
            log(f"budget reached at step {state.step}: clicking Stop early")
            t_stop = time.monotonic()
            drv.stop_early(run_id)
            drv.wait_run_done(run_id, 1800)
            info["stop_s"] = time.monotonic() - t_stop
        log(f"run ended: {state.status} at step {state.step}" + (f": {state.error}" if state.error else ""))
        if state.status not in ("finished", "stopped"):
            raise DriverError(f"run {run_id} ended {state.status}: {state.error}")
        win.curves.redraw_now()
        drv.wait(1.0)
        shot("curves_final.png", "Curves at the end: loss, learning rate, gradient norm, samples/s and the dev metrics")

        ckpt = drv.open_best_checkpoint(run_id)
        try:
            info["checkpoint"] = dict(json.loads((Path(ckpt) / "checkpoint.json").read_text(encoding="utf-8")),
                                      path=ckpt)
        except (OSError, ValueError):
            info["checkpoint"] = {"path": ckpt}
        info["probe_settings"] = {k: v for k, v in win.hub.panel.inputs().items() if k not in ("question", "passage")}
        for k, w in enumerate(watch, start=1):
            res = drv.probe(w["question"], w["passage"])
            d = res.decision()
            probes.append({"question": w["question"], "gold": w["gold"], "answer": d.answer_text,
                           "decision": d.inequality, "best_span": res.decoding.best_text,
                           "byhand": fmt(res.byhand_max_abs_diff, 8) if res.byhand_max_abs_diff is not None
                           else res.byhand_note, "ms": res.seconds * 1000})
            log(f"probe {w['question']!r}: {d.inequality} -> {d.answer_text or 'no answer'!r} (gold {w['gold']})")
            drv.show_tab(TAB_ATTENTION)
            drv.wait(1.0)
            shot(f"attention_{k}.png", f"Attention panel on dev question {w['question']!r}")
            drv.show_tab(TAB_SPANS)
            drv.wait(1.0)
            shot(f"spans_{k}.png", f"Spans & τ panel on dev question {w['question']!r}")

        drv.show_tab(TAB_TAU)
        t0 = time.monotonic()
        study, fig = drv.tau_study(a.dev, a.tau_cap, timeout=3600)
        tau = {"n": len(study), "path": a.dev, "seconds": time.monotonic() - t0, "best_tau": fig.grid.best_tau,
               "best_f1": fig.grid.best_f1, "official": fig.official, "honest": fig.honest,
               "settings": study.settings, "inference_s": study.seconds}
        log(f"τ sweep: {len(study)} questions in {tau['seconds']:.0f} s; best τ {fig.grid.best_tau:+.2f} "
            f"(F1 {fig.grid.best_f1:.2f})" + (f", honest F1 {fig.honest['honest_f1']:.2f}" if fig.honest else ""))
        shot("tau.png", f"τ on dev set: {len(study)} questions, F1/EM/HasAns/NoAns/answer rate against τ")
        view = win.hub.dev_view
        if view.table.rowCount():
            question, _passage = view.row_question(0)
            view.table.cellClicked.emit(0, 0)      # what a click on the first row does
            drv.wait_until(lambda: win.hub.result is not None and win.hub.result.question == question
                           and not win.hub.probes._outstanding, 300, "the question nearest τ")
            drv.wait(1.0)
            shot("spans_near_tau.png", f"the dev question nearest the chosen τ, opened from the τ table: {question!r}")
    except DriverError as exc:
        log(f"error: {exc}")
        rc = 1
    finally:
        drv.close()
    info["total_s"] = time.monotonic() - t_all
    if run_id:
        from explorer.core.protocol.events import read_events
        from explorer.core.runs.layout import events_file

        events_path = events_file(out / "runs" / run_id)
        events = read_events(events_path) if events_path.is_file() else []
        report = write_report(out, a, info, events, shots, probes, tau)
        log(f"report: {report}")
    log(f"done in {info['total_s'] / 60:.1f} min")
    return rc


if __name__ == "__main__":
    sys.exit(main())
