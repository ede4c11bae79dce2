"""`bert-explorer compare`: two checkpoints on one SQuAD dev set, question by question.

Usage::

    bert-explorer compare --a runs/r-01/checkpoints/best --b runs/r-02/checkpoints/best --data dev-v2.0.json \
        [--cap 300] [--tau-a 0 --tau-b 0] [--out compare_report] [--json]

Prints each checkpoint's EM/F1, the agreement counts (both right / only A / only B / both wrong; SQuAD 2.0
also answered / abstained), whether B is better than A (McNemar's exact test on exact match, paired bootstrap
intervals of EM and F1; core/metrics/significance.py), a mark on each checkpoint that is a run's checkpoints/best
chosen among its evaluations on this same file (its figures read optimistic; core/metrics/optimism.py) and the
questions where the answers differ, largest F1 difference first.
``--out`` writes the report folder (report.md, questions.csv, disagreements.csv, counts.csv;
explorer/core/studies/reports.py). Exit codes: 0 done, 2 unusable data, model or settings.
"""

from __future__ import annotations

import json
import sys

from explorer.core.errors import UserError, as_user_error, exits_on_user_error


def add_arguments(parser) -> None:
    from explorer.core.models.window_settings import (
        DOC_STRIDE_HELP,
        MAX_QUERY_LENGTH_HELP,
        MAX_SEQ_LENGTH_HELP,
    )

    parser.add_argument("--a", required=True, metavar="CKPT", help="checkpoint A: folder, hub id or bundled:minilm")
    parser.add_argument("--b", required=True, metavar="CKPT", help="checkpoint B")
    parser.add_argument("--data", required=True, help="official SQuAD JSON file (v1.1 or v2.0) or hub id")
    parser.add_argument("--split", default="validation", help="hub split (default validation)")
    parser.add_argument("--cap", type=int, default=None, help="compare on the first N questions only")
    parser.add_argument("--tau-a", type=float, default=0.0, help="A answers iff score_diff > tau (SQuAD 2.0)")
    parser.add_argument("--tau-b", type=float, default=0.0, help="B answers iff score_diff > tau (SQuAD 2.0)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--max-seq-length", type=int, default=384, help=MAX_SEQ_LENGTH_HELP)
    parser.add_argument("--doc-stride", type=int, default=128, help=DOC_STRIDE_HELP)
    parser.add_argument("--max-query-length", type=int, default=64, help=MAX_QUERY_LENGTH_HELP)
    parser.add_argument("--n-best-size", type=int, default=20)
    parser.add_argument("--max-answer-length", type=int, default=30)
    from explorer.commands.window_args import add_device_argument

    add_device_argument(parser)
    parser.add_argument("--show", type=int, default=10, help="disagreements to print (default 10)")
    parser.add_argument("--out", default=None, help="write a report folder (Markdown + CSV) here")
    parser.add_argument("--json", action="store_true", help="print the counts and metrics as JSON")


def _decode(source: str, dataset, args, err):
    """Decodings of one checkpoint over the dataset. Raises UserError (model, window settings, data)."""
    from explorer.core.qa.decoding import decode_predictions
    from explorer.core.qa.inference import predict_squad
    from explorer.core.models.loading import ModelSourceError, load_model
    from explorer.core.models.window_settings import (
        WindowSettingsError,
        longest_question_tokens,
        require_window_settings,
    )

    try:
        loaded = load_model(source, task="qa")
    except ModelSourceError as exc:
        raise as_user_error(exc) from None
    from explorer.core.devices import place

    place(loaded.model, args.device)
    print(loaded.describe(), file=err)
    try:
        require_window_settings(loaded.tokenizer, loaded.model.config, args.max_seq_length, args.doc_stride,
                                args.max_query_length, name=source, question_tokens=longest_question_tokens(
                                    loaded.tokenizer, dataset["question"], args.max_query_length))
        features, start, end = predict_squad(loaded, dataset, max_seq_length=args.max_seq_length,
                                             doc_stride=args.doc_stride, max_query_length=args.max_query_length,
                                             batch_size=args.batch_size)
    except (WindowSettingsError, ValueError) as exc:
        raise as_user_error(exc, f"{source}: ") from None
    return decode_predictions(dataset, features, start, end, n_best_size=args.n_best_size,
                              max_answer_length=args.max_answer_length)


def _load_data(args, err):
    from explorer.core.data.squad import SquadDataError, load_squad

    try:
        dataset, report = load_squad(args.data, split=args.split)
    except SquadDataError as exc:
        raise as_user_error(exc) from None
    print(report.summary(), file=err)
    if args.cap is not None:
        if args.cap < 1:
            raise UserError("--cap must be at least 1")
        dataset = dataset.select(range(min(args.cap, len(dataset))))
    return dataset


def _lines(result, show: int, marks=()) -> list[str]:
    lines = [f"A {result.label_a}: exact_match {result.metrics_a['exact_match']:.2f}, f1 {result.metrics_a['f1']:.2f}",
             f"B {result.label_b}: exact_match {result.metrics_b['exact_match']:.2f}, f1 {result.metrics_b['f1']:.2f}",
             *result.count_lines(), *(result.significance().lines() if result.questions else []),
             *(f"! {m}" for m in marks)]
    dis = result.disagreements()
    lines.append(f"{len(dis)} questions where the answers differ; largest F1 difference first:")
    for q in dis[:show]:
        lines.append(f"  {q.f1_diff:+.2f}  {q.id}  {q.question[:60]!r}  A {q.answer_a[:30]!r}  B {q.answer_b[:30]!r}  "
                     f"gold {(q.gold[0] if q.gold else '(no answer)')[:30]!r}")
    return lines


def chosen_lines(args, questions: int) -> tuple[list[str], list]:
    """The optimism marks of A's and B's figures when a checkpoint is a run's checkpoints/best chosen among its
    evaluations on ``--data`` (the run's dev file): core.metrics.optimism.chosen_checkpoint_notes, the rule the
    GUI's two-classifier comparison uses. Returns (lines, [A's, B's evaluations chosen among, None if not])."""
    from explorer.core.metrics.optimism import DevOverlap, chosen_checkpoint_notes, evaluated_on_file
    from explorer.core.runs.choice import checkpoint_choice
    from explorer.core.runs.reading import run_config_of

    named = []
    for name, source in (("A", args.a), ("B", args.b)):
        on_data = evaluated_on_file(run_config_of(source), args.data)
        named.append((name, checkpoint_choice(source), DevOverlap(shared=questions, n_dev=questions) if on_data else None))
    among = [c.evaluations if c is not None and c.chosen and o is not None else None for _, c, o in named]
    return chosen_checkpoint_notes(named), among


@exits_on_user_error
def run(args) -> int:
    """Decode both checkpoints, compare, print (and write the report folder with --out)."""
    from explorer.core.qa.compare import compare_decodings
    from explorer.core.data.squad import gold_answers, squad_version

    err = sys.stderr
    dataset = _load_data(args, err)
    decodings = [_decode(source, dataset, args, err) for source in (args.a, args.b)]
    version = squad_version(dataset)
    result = compare_decodings(*decodings, gold_answers(dataset), questions=dict(zip(dataset["id"], dataset["question"])),
                               contexts=dict(zip(dataset["id"], dataset["context"])),
                               version=version, tau_a=args.tau_a, tau_b=args.tau_b, label_a=args.a, label_b=args.b)
    result.settings = {k: getattr(args, k) for k in ("max_seq_length", "doc_stride", "max_query_length",
                                                      "n_best_size", "max_answer_length")}
    if args.out:
        from explorer.core.studies.reports import write_comparison_report

        folder = write_comparison_report(args.out, result, data=args.data)
        print(f"report: {folder / 'report.md'}", file=err)
    marks, among = chosen_lines(args, len(dataset))
    if args.json:
        print(json.dumps({"version": version, "questions": len(result.questions), "counts": result.counts,
                          "chosen_among": among,
                          "a": {"source": args.a, **result.metrics_a}, "b": {"source": args.b, **result.metrics_b},
                          "disagreements": len(result.disagreements()),
                          "significance": result.significance().to_dict() if result.questions else None}, indent=2))
        return 0
    print("\n".join(_lines(result, args.show, marks)))
    return 0
