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

from explorer.commands.window_args import add_device_argument, add_tokenizer_argument, add_window_arguments
from explorer.core.errors import UserError, as_user_error, exits_on_user_error


def add_arguments(parser) -> None:
    parser.add_argument("--model", required=True, help="hub id, local folder or bundled:minilm")
    add_tokenizer_argument(parser)
    parser.add_argument("--data", required=True, help="official SQuAD JSON file or hub id (rajpurkar/squad_v2)")
    parser.add_argument("--split", default="validation", help="hub split (default validation)")
    parser.add_argument("--out", default="eval_out", help="folder for the official files (default ./eval_out)")
    parser.add_argument("--cap", type=int, default=None, help="evaluate only the first N questions")
    parser.add_argument("--batch-size", type=int, default=32)
    add_window_arguments(parser)
    parser.add_argument("--n-best-size", type=int, default=20)
    parser.add_argument("--max-answer-length", type=int, default=30)
    parser.add_argument("--tau", type=float, default=0.0, help="answer iff score_diff > tau (SQuAD 2.0)")
    from explorer.core.qa.decode_rules import DECODE_RULES, DEFAULT_RULE

    parser.add_argument("--decode-rule", choices=tuple(DECODE_RULES), default=DEFAULT_RULE,
                        help="how spans are searched: " + "; ".join(f"{k}: {v}" for k, v in DECODE_RULES.items())
                             + ". run_qa reproduces the numbers of transformers' run_qa.py; the questions whose "
                               "answer differs under the other rule are listed (default: %(default)s)")
    parser.add_argument("--bf16", action="store_true", help="bf16 autocast for the forward (fast on AMX CPUs)")
    add_device_argument(parser)
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
    from explorer.core.qa.scores import grid_text

    lines = ["  tau     F1     EM  HasAns_f1  NoAns_f1  answer rate"]
    for t in taus:
        r = sweep.at(t)
        has, no = (f"{v:{w}.2f}" if v == v else f"{'-':>{w}}" for v, w in ((r["HasAns_f1"], 10), (r["NoAns_f1"], 9)))
        lines.append(f"  {r['tau']:+5.2f} {r['f1']:6.2f} {r['exact_match']:6.2f} {has} {no} {r['answer_rate']:10.1f}%")
    grid = grid_text(sweep.taus).replace("\u2212", "-")   # the terminal's minus
    lines.append(f"  best grid tau {sweep.best_tau:+.2f}: F1 {sweep.best_f1:.2f}  (grid {grid})")
    return lines


def _metric_lines(metrics: dict, result: dict, sweep, tau: float) -> list[str]:
    """The metric lines of the text report (v1.1: EM/F1; v2.0: at tau, HasAns/NoAns, best thresholds, grid)."""
    if result["version"] == "v1.1":
        return [f"exact_match {metrics['exact_match']:.2f}   f1 {metrics['f1']:.2f}"]
    out = [f"tau {tau:+.2f}: exact_match {metrics['exact_match']:.2f}   f1 {metrics['f1']:.2f}"]
    for part in ("HasAns", "NoAns"):
        if f"{part}_total" in metrics:
            n = metrics[part + "_total"]
            out.append(f"  {part}: exact {metrics[part + '_exact']:.2f}  f1 {metrics[part + '_f1']:.2f}  "
                       f"({n} question{'s' if n != 1 else ''})")
    # two thresholds in two units, each said once (they are not the same number with a sign flipped)
    out.append(f"official best threshold on the written files: best_f1 {metrics['best_f1']:.2f} at "
               f"best_f1_thresh {metrics['best_f1_thresh']:.3f}; best_exact {metrics['best_exact']:.2f}")
    out.append("  (null-odds units: null_odds.json = null_score - best_non_null_score; answer iff null odds <= it)")
    from explorer.core.specs.metric_display import abstain_note

    note = abstain_note(metrics)
    if note:
        out.append("  " + note)
    b = result["best_spans"]
    out.append(f"every threshold on the best spans (independent of --tau): best_f1 {b['best_f1']:.2f} at "
               f"best_tau {b['best_tau']:+.3f}; best_exact {b['best_exact']:.2f}")
    out.append("  (score_diff units, this app's τ: score_diff = best_non_null_score - null_score; answer iff "
               "score_diff > τ; use it as --tau or in the Spans & τ tab)")
    return out + _tau_grid_lines(sweep)


def figure_marks_of(args, version: str) -> list:
    """The optimism marks of eval's figures (core.metrics.optimism): the file is the checkpoint's training
    file; on SQuAD 2.0 the best thresholds (best_f1, best_tau) are chosen on these same questions."""
    from explorer.core.metrics.optimism import figure_marks, trained_on_file
    from explorer.core.runs.reading import run_config_of

    chosen = ("the threshold of best_f1 / best_tau",) if version == "v2.0" else ()
    return figure_marks(on_training_rows=trained_on_file(run_config_of(args.model), args.data), chosen_on_rows=chosen)


def _text_report(result: dict, sweep, args) -> list[str]:
    """The lines `eval` prints without --json."""
    speed, metrics, n_q = result["speed"], result["metrics"], result["speed"]["questions"]
    out = [f"SQuAD {result['version']}: {n_q} questions, {speed['windows']} windows "
           f"(max_seq_length {args.max_seq_length}, doc_stride {args.doc_stride}); EM and F1 in percent"]
    out += _metric_lines(metrics, result, sweep, args.tau)
    out.append(f"speed: {speed['questions_per_second']:.1f} questions/s ({n_q} questions in {speed['seconds']:.1f} s; "
               f"inference {speed['inference_seconds']:.1f} s, batch {args.batch_size}{', bf16' if args.bf16 else ''})")
    from explorer.core.metrics.optimism import mark_lines

    out += mark_lines(figure_marks_of(args, result["version"]), indent="")
    out += rule_lines(result["decode_rule"])
    out.append("files: " + ", ".join(result["files"].values()))
    out.append("same numbers: " + result["score_command"])
    return out


SHOWN_DIFFERENCES = 5     # questions with both answers in the text report (the JSON lists them all)


def rule_report(rule: str, decodings: dict, others: dict, tau: float, dataset) -> dict:
    """The decode rule used and the questions whose answer at ``tau`` differs under the other rule
    (explorer.core.qa.decode_rules): {"rule", "other_rule", "differences": [{id, question, answer,
    other_answer, score_diff, other_score_diff}], "n_questions"}."""
    from explorer.core.qa.decode_rules import other_rule, rule_differences

    questions = dict(zip(dataset["id"], dataset["question"]))
    rows = [{"id": r["id"], "question": questions.get(r["id"], ""), **{k: v for k, v in r.items() if k != "id"}}
            for r in rule_differences(decodings, others, tau)]
    return {"rule": rule, "other_rule": other_rule(rule), "differences": rows, "n_questions": len(decodings)}


def rule_lines(report: dict) -> list[str]:
    """The text report's lines on the decode rule: the count of questions answered differently under the
    other rule and the first few with both answers."""
    rows, n = report["differences"], report["n_questions"]
    out = [f"decode rule {report['rule']}: {len(rows)} of {n} question{'s' if n != 1 else ''} answered differently "
           f"under {report['other_rule']}" + (":" if rows else "")]
    for r in rows[:SHOWN_DIFFERENCES]:
        out.append(f"  {r['id']}: {r['answer']!r} (score_diff {r['score_diff']:+.3f}) vs {report['other_rule']} "
                   f"{r['other_answer']!r} (score_diff {r['other_score_diff']:+.3f})")
    if len(rows) > SHOWN_DIFFERENCES:
        out.append(f"  ... and {len(rows) - SHOWN_DIFFERENCES} more (all in --json)")
    return out


def official_from_files(gold: dict, paths: dict, version: str, tau: float) -> tuple[dict, float]:
    """The official metrics of the files eval wrote, read back: what ``score`` prints for them.

    v2.0 uses ``--na-prob-thresh max(1.0, -tau)`` (the official default unless tau < -1, where the default
    would blank answers eval gave) so the numbers are those of the decision ``score_diff > tau``.
    Returns (metrics with exact_match, f1, ... and ``tau``; the na_prob_thresh used).
    """
    from explorer.core.metrics.squad import squad_evaluate

    preds = json.loads(paths["predictions"].read_text(encoding="utf-8"))
    if version == "v1.1":
        return squad_evaluate(gold, preds, version="v1.1"), 1.0
    odds = json.loads(paths["null_odds"].read_text(encoding="utf-8"))
    thresh = max(1.0, -float(tau))
    metrics = squad_evaluate(gold, preds, odds, thresh, version="v2.0")
    metrics["tau"] = float(tau)
    return metrics, thresh


def score_command(data: str, paths: dict, na_prob_thresh: float, capped: bool) -> str:
    """The ``bert-explorer score`` line that prints eval's numbers from the written files."""
    cmd = f"bert-explorer score --data {data} --predictions {paths['predictions']}"
    if "null_odds" in paths:
        cmd += f" --null-odds {paths['null_odds']}"
        if na_prob_thresh != 1.0:
            cmd += f" --na-prob-thresh {na_prob_thresh:g}"
    if capped:
        cmd += ("  (eval ran on the first questions only (--cap): score needs --allow-missing and then counts "
                "the others as wrong)")
    return cmd


def _load_inputs(args, err):
    """(dataset, its SquadReport, loaded model) ready for inference, checked before any work (data, cap, model, window
    settings against the model and the longest question). Raises UserError naming what is wrong."""
    from explorer.core.data.squad import SquadDataError, load_squad
    from explorer.core.models.loading import ModelSourceError, load_model
    from explorer.core.models.window_settings import WindowSettingsError, longest_question_tokens, require_window_settings

    from explorer.core.models.checkpoint_windows import resolve_window_settings
    from explorer.core.models.loading import source_other_task_error
    from explorer.core.models.window_settings import check_source_settings

    wrong = source_other_task_error(args.model, "qa")    # a classifier: say so, not a window-settings error
    if wrong:
        raise ModelSourceError(wrong)   # a UserError: "error: ..." on stderr, exit 2
    window = resolve_window_settings(args.model, max_seq_length=args.max_seq_length, doc_stride=args.doc_stride,
                                     max_query_length=args.max_query_length)
    args.max_seq_length, args.doc_stride, args.max_query_length = (window.max_seq_length, window.doc_stride,
                                                                   window.max_query_length)
    early = [p for p in check_source_settings(args.model, args.max_seq_length, args.doc_stride, args.max_query_length)
             if p.severity == "error"]      # from the model's JSON files, before reading data or loading weights
    if early:
        raise WindowSettingsError(early)
    t0 = time.perf_counter()
    try:
        dataset, report = load_squad(args.data, split=args.split, repair=args.repair,
                                     strict=not args.skip_invalid)
    except SquadDataError as exc:
        raise as_user_error(exc) from None
    print(report.summary(), file=err)
    if report.n_misaligned:  # answers whose answer_start misses their text: what was done with them
        print(f"answer check: {report.answer_check()}", file=err)
    for line in report.problems[:5]:
        print(f"  warning: {line}", file=err)
    if len(report.problems) > 5:
        print(f"  ... and {len(report.problems) - 5} more", file=err)
    if args.cap is not None:
        if args.cap < 1:
            raise UserError("--cap must be at least 1")
        dataset = dataset.select(range(min(args.cap, len(dataset))))
    t_data = time.perf_counter() - t0
    t0 = time.perf_counter()
    try:
        loaded = load_model(args.model, task="qa", refuse_other_task=True, tokenizer=args.tokenizer)
    except ModelSourceError as exc:
        raise as_user_error(exc) from None
    from explorer.core.devices import place

    device = place(loaded.model, args.device, bf16=args.bf16)
    t_model = time.perf_counter() - t0
    print(loaded.describe() + f"; on {device}", file=err)
    print(f"window settings: {window.describe()}", file=err)
    loading = getattr(loaded, "load_report", None)
    if loading is not None and loading.warning():
        print(f"warning: {args.model}: {loading.warning()}", file=err)
    elif loaded.head_note:
        print(f"note: {loaded.head_note}", file=err)
    elif loaded.head_initialised:
        print("note: the QA head is untrained, so the scores are near zero; this run checks the pipeline.", file=err)
    try:  # before any work: the settings must fit this model and the longest question of the data
        require_window_settings(loaded.tokenizer, loaded.model.config, args.max_seq_length, args.doc_stride,
                                args.max_query_length, name=args.model, question_tokens=longest_question_tokens(
                                    loaded.tokenizer, dataset["question"], args.max_query_length))
    except WindowSettingsError as exc:
        raise as_user_error(exc) from None
    return dataset, report, loaded, {"data_load": t_data, "model_load": t_model}


@exits_on_user_error
def run(args) -> int:
    """`bert-explorer eval`: exit 0 (metrics printed, files written) or 2 (bad data, model or settings: a
    UserError, printed by ``exits_on_user_error``)."""
    from explorer.core.qa.decode_rules import decode_predictions_by, other_rule

    err = sys.stderr
    dataset, report, loaded, timing = _load_inputs(args, err)
    from explorer.core.qa.windows import prepare_qa_features
    from explorer.core.qa.inference import predict_squad

    t0 = time.perf_counter()
    try:
        features = prepare_qa_features(list(dataset["question"]), list(dataset["context"]), loaded.tokenizer,
                                       max_seq_length=args.max_seq_length, doc_stride=args.doc_stride,
                                       max_query_length=args.max_query_length)
        timing["windows"] = time.perf_counter() - t0
        features, start, end = predict_squad(
            loaded, dataset, max_seq_length=args.max_seq_length, doc_stride=args.doc_stride,
            max_query_length=args.max_query_length, batch_size=args.batch_size, bf16=args.bf16,
            features=features, progress=_Progress("eval"))
    except ValueError as exc:
        raise as_user_error(exc) from None
    t_infer = time.perf_counter() - t0
    timing["forward"] = t_infer - timing["windows"]
    t1 = time.perf_counter()
    decodings = decode_predictions_by(args.decode_rule, dataset, features, start, end, n_best_size=args.n_best_size,
                                      max_answer_length=args.max_answer_length)
    seconds = time.perf_counter() - t0
    timing["decoding"] = time.perf_counter() - t1
    others = decode_predictions_by(other_rule(args.decode_rule), dataset, features, start, end,
                                   n_best_size=args.n_best_size, max_answer_length=args.max_answer_length)
    t1 = time.perf_counter()
    result, sweep = _score(args, dataset, report, decodings, features, seconds, t_infer)
    result["decode_rule"] = rule_report(args.decode_rule, decodings, others, args.tau, dataset)
    timing["files_and_metrics"] = time.perf_counter() - t1
    result["speed"]["timing"] = {k: round(v, 3) for k, v in timing.items()}
    if args.json:
        result["marks"] = [m.to_dict() for m in figure_marks_of(args, result["version"])]
        print(json.dumps(result, indent=2))
        return 0
    print("\n".join(_text_report(result, sweep, args)))
    return 0


def _score(args, dataset, report, decodings, features, seconds: float, t_infer: float):
    """Write the official files, score them, and build eval's result dict -> (result, tau sweep or None)."""
    from explorer.core.data.squad import gold_answers, squad_version
    from explorer.core.qa.decoding import write_official_files
    from explorer.core.qa.scores import evaluate_decodings, question_scores_from, tau_grid, tau_sweep

    version = "v2.0" if report.version == "v2.0" else squad_version(dataset)   # as `score` decides
    gold = gold_answers(dataset)
    paths = write_official_files(decodings, args.out, tau=args.tau, version_2_with_negative=version == "v2.0")
    metrics, na_prob_thresh = official_from_files(gold, paths, version, args.tau)
    spans = evaluate_decodings(decodings, gold, tau=args.tau, version=version) if version == "v2.0" else None
    n_q = len(dataset)
    speed = {"questions": n_q, "windows": len(features), "seconds": round(seconds, 3),
             "questions_per_second": round(n_q / seconds, 2), "inference_seconds": round(t_infer, 3)}
    result = {"data": args.data, "model": args.model, "version": version, "metrics": metrics, "speed": speed,
              "files": {k: str(v) for k, v in paths.items()},
              "score_command": score_command(args.data, paths, na_prob_thresh, capped=n_q < report.n_questions)}
    if spans is not None:
        result["best_spans"] = {k: spans[k] for k in ("best_exact", "best_exact_thresh", "best_f1",
                                                      "best_f1_thresh", "best_tau")}
    sweep = None
    if version == "v2.0":
        scores = question_scores_from(decodings, gold)
        sweep = tau_sweep(scores, taus=tau_grid(scores.score_diff))
    if sweep is not None:
        result["tau_grid"] = {"taus": sweep.taus.tolist(), "f1": sweep.f1.round(3).tolist(),
                              "answer_rate": sweep.answer_rate.round(3).tolist(),
                              "best_tau": sweep.best_tau, "best_f1": sweep.best_f1}
    return result, sweep
