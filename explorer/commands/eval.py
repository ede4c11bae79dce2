"""`bert-explorer eval`: batched SQuAD inference over a whole file, official files and metrics.

Example::

    bert-explorer eval --model bundled:minilm --data dev-v2.0.json --out eval_out --cap 300

Writes predictions.json, nbest_predictions.json and (SQuAD 2.0) null_odds.json to --out, prints
exact_match / f1 (v2.0: HasAns / NoAns, the official best threshold, best_tau and a short tau grid),
and questions per second. Progress goes to stderr; ``--json`` prints the metrics as JSON on stdout.
"""

from __future__ import annotations

import json
import sys
import time


def add_arguments(parser) -> None:
    parser.add_argument("--model", required=True, help="hub id, local folder or bundled:minilm")
    parser.add_argument("--data", required=True, help="official SQuAD JSON file or hub id (rajpurkar/squad_v2)")
    parser.add_argument("--split", default="validation", help="hub split (default validation)")
    parser.add_argument("--out", default="eval_out", help="folder for the official files (default ./eval_out)")
    parser.add_argument("--cap", type=int, default=None, help="evaluate only the first N questions")
    parser.add_argument("--batch-size", type=int, default=32)
    window_note = ("default: the value in the run's config.json when --model is a run checkpoint "
                   "(runs/<id>/checkpoints/<name>), else {}")
    parser.add_argument("--max-seq-length", type=int, default=None,
                        help="tokens per input window; " + window_note.format(384))
    parser.add_argument("--doc-stride", type=int, default=None,
                        help="overlap in tokens between consecutive passage windows; " + window_note.format(128))
    parser.add_argument("--max-query-length", type=int, default=None,
                        help="question tokens kept; " + window_note.format(64))
    parser.add_argument("--n-best-size", type=int, default=20)
    parser.add_argument("--max-answer-length", type=int, default=30)
    parser.add_argument("--tau", type=float, default=0.0, help="answer iff score_diff > tau (SQuAD 2.0)")
    parser.add_argument("--bf16", action="store_true", help="bf16 autocast for the forward (fast on AMX CPUs)")
    parser.add_argument("--repair", action="store_true",
                        help="move answer_start offsets that miss their text to the nearest occurrence")
    parser.add_argument("--skip-invalid", action="store_true",
                        help="skip invalid question records (counted in the summary) instead of stopping")
    parser.add_argument("--json", action="store_true", help="print the metrics as JSON on stdout")


class _Progress:
    """A small progress bar on stderr (a redraw at most every 0.2 s; plain lines when not a terminal)."""

    def __init__(self, label: str, stream=None):
        stream = stream or sys.stderr
        self.label, self.stream, self.t0, self.last = label, stream, time.perf_counter(), 0.0
        self.tty = getattr(stream, "isatty", lambda: False)()
        self.last_decile = -1

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        rate = done / max(now - self.t0, 1e-9)
        frac = done / max(total, 1)
        if self.tty:
            if now - self.last < 0.2 and done < total:
                return
            self.last = now
            bar = "#" * int(30 * frac) + "." * (30 - int(30 * frac))
            self.stream.write(f"\r{self.label} [{bar}] {done}/{total} windows, {rate:.1f}/s")
            if done >= total:
                self.stream.write("\n")
        else:
            decile = int(10 * frac)
            if decile == self.last_decile:
                return
            self.last_decile = decile
            self.stream.write(f"{self.label}: {done}/{total} windows ({100 * frac:.0f}%), {rate:.1f}/s\n")
        self.stream.flush()


def _tau_grid_lines(sweep, taus=(-4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0)) -> list[str]:
    lines = ["  tau     F1     EM  HasAns_f1  NoAns_f1  answer rate"]
    for t in taus:
        r = sweep.at(t)
        lines.append(f"  {r['tau']:+5.2f} {r['f1']:6.2f} {r['exact_match']:6.2f} {r['HasAns_f1']:10.2f} "
                     f"{r['NoAns_f1']:9.2f} {r['answer_rate']:10.1f}%")
    lines.append(f"  best grid tau {sweep.best_tau:+.2f}: F1 {sweep.best_f1:.2f}  (grid -6..+6 step 0.25)")
    return lines


def run(args) -> int:
    from explorer.core.data.squad import SquadDataError, gold_answers, load_squad, squad_version
    from explorer.core.decoding import decode_predictions, write_official_files
    from explorer.core.models import ModelSourceError, load_model

    err = sys.stderr
    try:
        dataset, report = load_squad(args.data, split=args.split, repair=args.repair,
                                     strict=not args.skip_invalid)
    except SquadDataError as exc:
        print(f"error: {exc}", file=err)
        return 2
    print(report.summary(), file=err)
    for line in report.problems[:5]:
        print(f"  warning: {line}", file=err)
    if len(report.problems) > 5:
        print(f"  ... and {len(report.problems) - 5} more", file=err)
    if args.cap is not None:
        if args.cap < 1:
            print("error: --cap must be at least 1", file=err)
            return 2
        dataset = dataset.select(range(min(args.cap, len(dataset))))
    try:
        loaded = load_model(args.model, task="qa")
    except ModelSourceError as exc:
        print(f"error: {exc}", file=err)
        return 2
    print(loaded.describe(), file=err)
    from explorer.core.checkpoint_windows import resolve_window_settings

    window = resolve_window_settings(args.model, max_seq_length=args.max_seq_length, doc_stride=args.doc_stride,
                                     max_query_length=args.max_query_length)
    args.max_seq_length, args.doc_stride, args.max_query_length = (window.max_seq_length, window.doc_stride,
                                                                   window.max_query_length)
    print(f"window settings: {window.describe()}", file=err)
    if loaded.head_initialised:
        print("note: the QA head is untrained, so the scores are near zero; this run checks the pipeline.", file=err)

    from explorer.core.inference import predict_squad

    t0 = time.perf_counter()
    try:
        features, start, end = predict_squad(
            loaded, dataset, max_seq_length=args.max_seq_length, doc_stride=args.doc_stride,
            max_query_length=args.max_query_length, batch_size=args.batch_size, bf16=args.bf16,
            progress=_Progress("eval"))
    except ValueError as exc:
        print(f"error: {exc}", file=err)
        return 2
    t_infer = time.perf_counter() - t0
    decodings = decode_predictions(dataset, features, start, end, n_best_size=args.n_best_size,
                                   max_answer_length=args.max_answer_length)
    seconds = time.perf_counter() - t0

    from explorer.core.metric_display import explain_best_threshold
    from explorer.core.metrics import evaluate_decodings, tau_sweep

    version = squad_version(dataset)
    gold = gold_answers(dataset)
    metrics = evaluate_decodings(decodings, gold, tau=args.tau, version=version)
    paths = write_official_files(decodings, args.out, tau=args.tau, version_2_with_negative=version == "v2.0")
    n_q = len(dataset)
    speed = {"questions": n_q, "windows": len(features), "seconds": round(seconds, 3),
             "questions_per_second": round(n_q / seconds, 2), "inference_seconds": round(t_infer, 3)}
    result = {"data": args.data, "model": args.model, "version": version, "metrics": metrics, "speed": speed,
              "files": {k: str(v) for k, v in paths.items()}}
    sweep = tau_sweep(decodings, gold) if version == "v2.0" else None
    if sweep is not None:
        result["tau_grid"] = {"taus": sweep.taus.tolist(), "f1": sweep.f1.round(3).tolist(),
                              "answer_rate": sweep.answer_rate.round(3).tolist(),
                              "best_tau": sweep.best_tau, "best_f1": sweep.best_f1}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    out = [f"SQuAD {version}: {n_q} questions, {len(features)} windows "
           f"(max_seq_length {args.max_seq_length}, doc_stride {args.doc_stride}); EM and F1 in percent"]
    if version == "v1.1":
        out.append(f"exact_match {metrics['exact_match']:.2f}   f1 {metrics['f1']:.2f}")
    else:
        out.append(f"tau {args.tau:+.2f}: exact_match {metrics['exact_match']:.2f}   f1 {metrics['f1']:.2f}")
        for part in ("HasAns", "NoAns"):
            if f"{part}_total" in metrics:
                out.append(f"  {part}: exact {metrics[part + '_exact']:.2f}  f1 {metrics[part + '_f1']:.2f}  "
                           f"({metrics[part + '_total']} questions)")
        n_answered = sum(1 for d in decodings.values() if d.score_diff > metrics["best_tau"])
        out += explain_best_threshold(metrics, n_answered)
        out.append(f"best_exact {metrics['best_exact']:.2f} (EM at its own best threshold)")
        out += _tau_grid_lines(sweep)
    out.append(f"speed: {speed['questions_per_second']:.1f} questions/s ({n_q} questions in {seconds:.1f} s; "
               f"inference {t_infer:.1f} s, batch {args.batch_size}{', bf16' if args.bf16 else ''})")
    out.append("files: " + ", ".join(str(p) for p in paths.values()))
    print("\n".join(out))
    return 0
