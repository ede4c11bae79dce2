"""`bert-explorer predict`: label every row of a file with a fine-tuned checkpoint.

Example::

    bert-explorer predict --model runs/x/checkpoints/best --data new.csv --out new.predicted.csv
    bert-explorer predict --model runs/x/checkpoints/best --data new.csv --out new.predicted.csv --resume

The output keeps the input columns and adds the task's columns (explorer.core.predict.engine: predicted_label,
p_<label>, margin; predicted_score; predicted_labels; predicted_ending, p_ending0..3; answer, answer_start,
answer_end, score_diff, null_score, decision, window; error). On stderr: "reading FILE…" and "loading model…" at
once, then a tqdm bar from the first batch on (rows / total with ETA; rows/s while the rows are counted; "saved N":
the rows already in OUT: a chunk's rows are written together, so the count run can be ahead of them inside a
chunk). Ctrl-C, ``kill`` (SIGTERM) and a closed terminal (SIGHUP) all stop by one rule: at once after the batch under
way (explorer.core.predict.engine), every row run is kept: written to OUT in input order up to the first row not
run, the rows run after it in OUT.ahead.jsonl; the bar's last line is the rows kept (no rate, no time left), and
``--resume`` continues from exactly there without running a kept row again; a closed terminal stops silently when
nothing can be written any more. Exit codes: 0 done, 2 bad input, 130 interrupted with Ctrl-C, 143
SIGTERM, 129 the terminal closed (the rows written so far stay every way).
"""

from __future__ import annotations

import json
import os
import signal
import sys

from explorer.core.errors import exits_on_user_error

FALLBACK_SIZE = (100, 24)   # the bar's (columns, lines) when the terminal says 0 (a pty from `script`, IDEs, CI)


def add_arguments(parser) -> None:
    from explorer.cli_vocabulary import add_table_arguments
    from explorer.commands.window_args import add_device_argument, add_tokenizer_argument

    parser.add_argument("--model", required=True, help="a fine-tuned checkpoint folder (a run's checkpoints/best)")
    add_tokenizer_argument(parser)
    parser.add_argument("--data", required=True,
                        help=".csv / .tsv / .jsonl / .xlsx, or .txt (one text per line; with tabs: TSV); QA: also a "
                             "SQuAD JSON. Read as train reads it (a .csv of tab-separated fields is TSV)")
    parser.add_argument("--out", required=True, help="output file; its suffix picks the format: .csv .tsv .jsonl .xlsx")
    add_table_arguments(parser, text_help="default: the run's, or sentence / text / Tweet ...; QA: question "
                                          "context", encoding_default="auto")
    parser.add_argument("--tau", type=float, default=None,
                        help="QA: answer iff score_diff > tau (default: the τ saved with the checkpoint, else 0)")
    from explorer.core.qa.decode_rules import DECODE_RULES, DEFAULT_RULE

    parser.add_argument("--decode-rule", choices=tuple(DECODE_RULES), default=DEFAULT_RULE,
                        help="QA: how spans are searched: " + "; ".join(f"{k}: {v}" for k, v in DECODE_RULES.items())
                             + ". The other_rule_answer column holds the other rule's answer where it differs "
                               "(default: %(default)s)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--chunk-rows", type=int, default=2048, help="rows read, run and written together")
    parser.add_argument("--max-seq-length", type=int, default=None, help="default: the run's, else the task's")
    parser.add_argument("--doc-stride", type=int, default=None)
    parser.add_argument("--max-query-length", type=int, default=None)
    parser.add_argument("--bf16", action="store_true", help="bf16 autocast for the forward (fast on AMX CPUs)")
    add_device_argument(parser)
    parser.add_argument("--no-calibration", action="store_true",
                        help="classification: the raw softmax, not scaled by the run's calibration.json temperature")
    parser.add_argument("--annotator-columns", type=_column_list, default=None, metavar="A,B,C",
                        help="classification: two or more columns of --data holding annotators' labels; the report "
                             "adds Krippendorff's alpha among them and each one's Cohen's kappa against the model "
                             "(and against each other), and the Predictions page shows the same table")
    parser.add_argument("--resume", action="store_true", help="continue after the rows already in --out")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")


def _column_list(text: str) -> list[str]:
    return [c.strip() for c in text.split(",") if c.strip()]


def _terminal_size(stream) -> tuple[int, int]:
    """(columns, lines) of the terminal behind ``stream``; (0, 0) when it is no terminal or reports no size."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return 0, 0
    return size.columns, size.lines


class _Bar:
    """tqdm over rows on ``stream`` (rows done / total with ETA once the rows are counted, rows/s before), and
    after them "saved N": the rows in the output file, which a Ctrl-C keeps (a chunk reaches the file whole, so
    a Ctrl-C at "896/3000" may keep 256 rows: the bar says so before, not only afterwards).

    A terminal that reports a 0 x 0 size (a pseudo-terminal nobody sized: ``script``, some IDEs and CI runners)
    made tqdm hide its only bar as "below the screen" (position 0 >= lines - 1), so nothing showed until the
    end; the size is then fixed at FALLBACK_SIZE."""

    def __init__(self, stream=None):
        self.stream = stream if stream is not None else sys.stderr
        self.bar = None
        self.said: list[str] = []   # the status lines printed (a note said before the bar is not repeated after it)
        self.kept = 0               # rows in the output file (saved)

    def __call__(self, done: int, total: int | None) -> None:
        from tqdm import tqdm

        if self.bar is None:
            columns, lines = _terminal_size(self.stream)
            sized = columns > 0 and lines > 1
            self.bar = tqdm(total=total, initial=done, unit="row", file=self.stream, dynamic_ncols=sized,
                            ncols=None if sized else FALLBACK_SIZE[0], nrows=None if sized else FALLBACK_SIZE[1],
                            desc="predict", mininterval=0, miniters=1,   # every report drawn: the engine
                            postfix=self._postfix())   # reports once per batch at most every BATCH_PROGRESS_SECONDS
        else:
            if total is not None and total != self.bar.total:
                self.bar.total = total
            if self._complete(done):
                self.bar.n = done   # drawn by close(), which draws the last line whatever was drawn before
            else:
                self.bar.update(done - self.bar.n)

    def _complete(self, rows: int) -> bool:
        """Whether ``rows`` is the whole file: that line is drawn once, by ``close()`` (tqdm's close draws the last
        state with the overall rate), so a log or a console that shows every redraw on a line of its own shows the
        last "N/N rows" line once."""
        return self.bar is not None and self.bar.total is not None and rows >= self.bar.total

    def _postfix(self) -> str:
        return f"saved {self.kept:,}"

    def saved(self, rows: int) -> None:
        """The rows now in the output file: shown after the bar's rate ("…, 33.3row/s, saved 1,024]"). Rows in the
        file have run: a count of rows run that lags (reported at most every BATCH_PROGRESS_SECONDS) moves up to
        them, so the bar never reads "96/4000 … saved 128"."""
        self.kept = rows
        if self.bar is not None:
            if rows > self.bar.n:
                self.bar.n = rows
            # drawn at once (the count may not move at a chunk end), except the whole file's: close() draws that
            self.bar.set_postfix_str(self._postfix(), refresh=not self._complete(self.bar.n))

    def status(self, line: str) -> None:
        """A line of its own before the bar (what is being read or loaded), at once."""
        self.said.append(line)
        print(line, file=self.stream, flush=True)

    def stopped_at(self, rows: int) -> None:
        """Close the bar at a stop: its last line is the ``rows`` kept ("predict: 736/4000 rows kept"),
        without the rate and time left of a run that no longer runs."""
        if self.bar is not None:
            self.bar.bar_format = "{desc}: {n_fmt}/{total_fmt} rows kept" if self.bar.total else \
                "{desc}: {n_fmt} rows kept"
            self.bar.n = rows   # drawn once, by close()
        self.close()

    def close(self):
        if self.bar is not None:
            self.bar.close()


class _Safe:
    """A text stream whose writes are dropped once they fail: after the terminal closed (SIGHUP) every write to it
    raises OSError (EIO), which must not turn a clean stop into a traceback."""

    def __init__(self, stream):
        self.stream, self.dead = stream, False

    def write(self, text: str) -> int:
        if not self.dead:
            try:
                return self.stream.write(text)
            except (OSError, ValueError):
                self.dead = True
        return len(text)

    def flush(self) -> None:
        if not self.dead:
            try:
                self.stream.flush()
            except (OSError, ValueError):
                self.dead = True

    def __getattr__(self, name):   # fileno, isatty, encoding, ...: the stream's own
        return getattr(self.stream, name)


class _Stops:
    """Ctrl-C (SIGINT), ``kill`` (SIGTERM) and a closed terminal (SIGHUP) all stop after the batch under way; a
    second Ctrl-C quits at once. A SIGHUP that was ignored when the command started (``nohup``) stays ignored.
    ``why``: "" (Ctrl-C), "SIGTERM" or "SIGHUP"; ``restore()`` puts the previous handlers back."""

    def __init__(self, err):
        self.err, self.flag, self.why = err, False, ""
        self.previous = {signal.SIGINT: signal.signal(signal.SIGINT, self._sigint),
                         signal.SIGTERM: signal.signal(signal.SIGTERM, self._sigterm)}
        hup = getattr(signal, "SIGHUP", None)
        if hup is not None and signal.getsignal(hup) is not signal.SIG_IGN:
            self.previous[hup] = signal.signal(hup, self._sighup)

    @property
    def hangup(self) -> bool:
        return self.why == "SIGHUP"

    def exit_code(self) -> int:
        """130 Ctrl-C, 143 SIGTERM, 129 SIGHUP (128 + the signal's number, as a shell reports it)."""
        return {"SIGTERM": 143, "SIGHUP": 129}.get(self.why, 130)

    def _sigint(self, signum, frame):
        if self.flag:
            raise KeyboardInterrupt
        self.flag = True
        print("\nstopping after the current batch… (Ctrl-C again to quit at once)", file=self.err, flush=True)

    def _sigterm(self, signum, frame):
        self.flag, self.why = True, "SIGTERM"
        print("\nSIGTERM: stopping after the current batch…", file=self.err, flush=True)

    def _sighup(self, signum, frame):
        self.flag, self.why = True, "SIGHUP"
        print("\nthe terminal was closed (SIGHUP): stopping after the current batch…", file=self.err, flush=True)

    def restore(self) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)


def _stopped_line(rows: int | None, ahead: int, out: str, why: str) -> str:
    """What a stop says, plainly: the rows done in all; that OUT is written in input order, so the ``ahead`` rows
    run ahead of a slower batch wait in OUT.ahead.jsonl; and that ``--resume`` continues without running them again.
    "stopped: 32 rows done: 0 written to OUT (it is written in input order) and 32 run ahead of a slower batch,
    waiting in OUT.ahead.jsonl; continue with the same command and --resume, which runs none of them again"."""
    from explorer.core.predict.writing import ahead_path

    said = {"SIGHUP": " (the terminal was closed: SIGHUP)", "SIGTERM": " (SIGTERM)"}.get(why, "")
    resume = "; continue with the same command and --resume, which runs none of them again"
    if rows is None:
        return f"stopped{said}: the rows done so far are written to {out}{resume}"
    if not ahead:
        return f"stopped{said}: {rows:,} rows done, all written to {out} in input order{resume}"
    return (f"stopped{said}: {rows + ahead:,} rows done: {rows:,} written to {out} (it is written in input order) "
            f"and {ahead:,} run ahead of a slower batch, waiting in {ahead_path(out)}{resume}")


def summary_line(summary) -> str:
    """The line printed when predict ends (engine.PredictSummary): rows written, and on a resumed call the rows
    that were already there, with the errors counted over the rows this call wrote (the engine's count), said so.
    Rows an earlier, stopped call had run ahead of the rows it wrote (``kept_ahead``, taken from OUT.ahead.jsonl)
    are told from the rows run now: "100 rows written to OUT (10 were already there; 12 kept from the stopped
    run, not run again; 78 run now); 0 of the 90 rows this call wrote with an error"."""
    tau = f"; τ {summary.tau:+.3f}" if summary.tau is not None else ""
    if summary.kept_ahead:
        there = f"{summary.resumed_from} were already there; " if summary.resumed_from else ""
        rows = (f"{summary.rows} rows written to {summary.out} ({there}{summary.kept_ahead} kept from the stopped "
                f"run, not run again; {summary.run_rows} run now); {summary.errors} of the {summary.new_rows} rows "
                "this call wrote with an error")
    elif summary.resumed_from:
        rows = (f"{summary.rows} rows written to {summary.out} ({summary.resumed_from} were already there); "
                f"{summary.errors} of the {summary.new_rows} rows run now with an error")
    else:
        rows = f"{summary.rows} rows written to {summary.out}; {summary.errors} with an error"
    return (f"{rows}; {summary.kind}{tau}; text columns {', '.join(summary.text_columns)}; "
            f"{summary.rows_per_second:.1f} rows/s")


@exits_on_user_error
def run(args) -> int:
    """Predict ``args.data`` into ``args.out``; the exit code (0, 129 or 130). Bad input raises UserError, printed
    by ``exits_on_user_error`` (``error: ...``, exit 2), after the bar is closed."""
    from explorer.core.errors import Cancelled, UserError
    from explorer.core.predict.engine import predict_file

    err, out = _Safe(sys.stderr), _Safe(sys.stdout)
    annotators = list(args.annotator_columns or [])
    if annotators:   # check the columns before an hour of predicting, not after
        from explorer.core.predict.facts import checkpoint_facts
        from explorer.core.predict.reading import read_header, reads_without_header

        # read as predict_file reads it: --header / --no-header, else as the run read its data
        headerless = reads_without_header(checkpoint_facts(args.model).run_config, args.no_header)
        columns = read_header(args.data, args.encoding, no_header=headerless).columns
        missing = [c for c in annotators if c not in columns]
        if missing or len(annotators) < 2:
            why = (f"--annotator-columns: {missing[0]!r} is not a column of {args.data} (columns: "
                   f"{', '.join(columns[:12])})" if missing else "--annotator-columns needs at least two columns")
            raise UserError(why)
    stop = _Stops(err)
    bar = _Bar(err)
    try:
        summary = predict_file(args.model, args.data, args.out, text_columns=args.text_columns,
                               no_header=args.no_header, encoding=args.encoding, tau=args.tau, batch_size=args.batch_size,
                               chunk_rows=args.chunk_rows, resume=args.resume, max_seq_length=args.max_seq_length,
                               doc_stride=args.doc_stride, max_query_length=args.max_query_length, bf16=args.bf16,
                               progress=bar, cancelled=lambda: stop.flag,
                               calibration=not args.no_calibration, status=bar.status, tokenizer=args.tokenizer,
                               device=args.device, saved=bar.saved, decode_rule=args.decode_rule)
    except Cancelled as exc:
        rows, ahead = getattr(exc, "rows_written", None), getattr(exc, "rows_ahead", 0) or 0
        if rows is not None:
            bar.stopped_at(rows + ahead)   # the last line: the rows kept, no rate or time left
        else:
            bar.close()
        print(_stopped_line(rows, ahead, args.out, stop.why), file=err)
        return stop.exit_code()
    except KeyboardInterrupt:   # a second Ctrl-C: quit at once, the rows in the file said, no traceback
        return _quit_at_once(bar, args.out, err)
    except UserError:
        bar.close()   # the bar's last line ends before the error's
        raise
    finally:
        stop.restore()
    bar.close()
    table = None
    if annotators and not _labels_by_name(summary.kind):
        print(f"note: --annotator-columns compares class labels; a {summary.kind} checkpoint has none", file=err)
    elif annotators:
        table = _annotator_table(summary, annotators)
    if args.json:
        data = summary.to_dict()
        if table is not None:
            data["annotator_agreement"] = [dict(vars(r)) for r in table.rows]
        print(json.dumps(data, indent=2), file=out)
        return 0
    for note in summary.notes:   # a note already said before the bar (the tokenizer's) is not said twice
        if f"note: {note}" not in bar.said:
            print(f"note: {note}", file=err)
    print(summary_line(summary), file=out)
    if table is not None:
        print(f"annotator agreement ({', '.join(annotators)}; κ = Cohen's kappa, α = Krippendorff's alpha, nominal):", file=out)
        print("\n".join(f"  {line}" for line in table.lines()), file=out)
    return 0


def _quit_at_once(bar, out: str, err) -> int:
    """A second Ctrl-C stopped predict mid-batch: close the bar and say the complete rows in ``out`` (a row torn by
    the stop is cut off, as ``--resume`` does: core.predict.writing.count_rows) and how to go on. Returns 130."""
    from explorer.core.predict.writing import count_rows

    try:
        bar.close()
    except Exception:   # noqa: BLE001 - a bar interrupted mid-write; the rows below are what matter
        pass
    rows, _ = count_rows(out)
    print(f"\nquit at once: {rows} rows in {out} (the batch under way was not written); continue with the "
          "same command and --resume", file=err)
    return 130


def _labels_by_name(kind: str) -> bool:
    """Whether a predict run of ``kind`` writes one class name per row (its head's ``prediction.labels_by_name``,
    explorer.core.specs.heads), which annotators' label columns compare with."""
    from explorer.core.specs.heads import for_prediction_kind

    head = for_prediction_kind(kind)
    return head is not None and head.prediction.labels_by_name


def _annotator_table(summary, annotators: list[str]):
    """The annotator table of the written file (core.predict.review.annotator_agreement), saved in its review
    file so the Predictions page shows it too."""
    from explorer.core.predict.review import Review, annotator_agreement, load_predictions

    table = load_predictions(summary.out)
    review = Review.load(summary.out) or Review.from_summary(summary.to_dict())
    review.annotator_columns = list(annotators)
    review.save()
    return annotator_agreement(table, annotators, table.column("predicted_label"), summary.label_names)
