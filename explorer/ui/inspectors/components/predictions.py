"""What the Predictions page decides and says about a predicted file under review, without Qt: the labels a row
may get and what a key or a choice does to it, the row's full text, the page's info line, the model's agreement
with the gold and a person's labels, the notes on the file as a whole (rows the run trained on), the annotators' agreement, and the order the table opens in.
explorer.ui.inspectors.predictions_view shows it; explorer.core.predict.review keeps and saves the review.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.core.predict.review import (KEPT_LABEL, PredictionTable, Review, agreement, annotator_agreement,
                                          current_labels, gold_as_names, saved_name)
from explorer.core.specs.heads import PredictionSpec, Uncertainty
from explorer.ui.shell.short_names import short_name

FLOAT_COLUMNS = ("margin", "score_diff", "null_score", "predicted_score")   # shown with 4 decimals (sorted exactly)
HEADER_TITLES = {"reviewed": "✓"}
LINES_READ_MAX = 200_000   # rows: a larger input file is not read again for its line numbers (the GUI would wait)
HEADER_TIPS = {"reviewed": "reviewed: ✓ where a person looked at the row (R marks it, a label key sets it)",
               "label": "the person's label where set (blue, bold), else the model's",
               "margin": "the top probability minus the second: small = the model hesitates",
               KEPT_LABEL: "label_in_file: the file's own label column (\"label\" in the file; Save labelled file… keeps "
                           "it under this name), often gold labels: the model is measured against it"}
ANNOTATORS_HINT = ("Tick two or more columns of annotators' labels to see how far they agree with each other and "
                   "with the model.")
ANNOTATORS_NOTE = ("Cohen's κ: two labelings beyond chance; Krippendorff's α: all annotators together (nominal; "
                   "missing labels allowed). 1 = perfect, 0 = chance.")


_UNKNOWN_HEAD = PredictionSpec(kind="", columns=())   # a review whose kind names no head: no head's rules apply


def prediction_spec(review) -> PredictionSpec:
    """What predict wrote for the review's head (explorer.core.specs.heads PredictionSpec)."""
    head = review.head if review is not None else None
    return head.prediction if head is not None else _UNKNOWN_HEAD


def uncertainty_header(review) -> str:
    """The title of the uncertainty column the table adds ("" when the file's own margin column, or none, is
    sorted by)."""
    how = prediction_spec(review).uncertainty
    return how.value if how not in (Uncertainty.MARGIN, Uncertainty.NONE) else ""


TAGS_NOTE = ("a tagger: one tag per word (the tags column), no label per row to set here; see a sentence's tags word "
             "by word in the Tag page, and score them against gold tags in Tag: dev set")
KEYED = 9   # the digit keys 1..9 set a label; a tenth class and on only through the Label drop-down


def review_keys(choices: list[str]) -> str:
    """Which digit key sets which label, in the labels' id order: "1 = -1, 2 = 1" (a class named by a number, "-1"
    and "1", or by anything else, reads unambiguously); past nine labels the rest are "… (the others: the Label
    box)"; "" without labels. A long class name is cut (short_name): a paragraph of a label stays a few words."""
    pairs = ", ".join(f"{k} = {short_name(label)}" for k, label in enumerate(choices[:KEYED], start=1))
    more = ", … (the others: the Label box)" if len(choices) > KEYED else ""
    return pairs + more


def is_number_column(name: str) -> bool:
    """A column of the model's numbers (p_<label>, margin, score_diff, ...): shown with 4 decimals, beside the
    text."""
    return name in FLOAT_COLUMNS or name.startswith("p_")


def answer_span(table: PredictionTable, i: int) -> tuple[int, int] | None:
    """(answer_start, answer_end) of row ``i`` when it answered, else None."""
    try:
        a, b = int(float(table.column("answer_start")[i])), int(float(table.column("answer_end")[i]))
    except ValueError:
        return None
    return (a, b) if 0 <= a < b else None


@dataclass(frozen=True)
class AnnotatorRow:
    """A row of the annotator table: who, which statistic, its value ("-" when undefined), on how many rows."""

    who: str
    statistic: str
    value: str
    n: str


SAMPLE_FILTER = "random sample"   # the Predicted label filter's entry for the rows drawn for review


def filtered_rows(predicted: list[str], review: Review, label: str | None) -> np.ndarray:
    """The file rows a Predicted label filter shows, in file order: all (None), the rows drawn at random for
    review (SAMPLE_FILTER, when the review has a sample), or the rows predicted as ``label``."""
    rows = np.arange(len(predicted))
    if label is None:
        return rows
    if label == SAMPLE_FILTER and review.sample:
        return np.asarray(sorted(i for i in review.sample if i < len(predicted)), dtype=int)
    return rows[np.array([p == label for p in predicted], dtype=bool)] if len(predicted) else rows


class ReviewState:
    """One predicted file (``table``) and its review (``review``): the model's label of every row (``predicted``)
    and the label shown (``labels``: the person's where set, else the model's)."""

    def __init__(self, table: PredictionTable, review: Review):
        self.table, self.review = table, review
        pred_col = prediction_spec(review).label_column
        self.predicted = table.column(pred_col)
        self.labels = current_labels(table, review)

    # -- where a row is in the input file -------------------------------------------------------------------------
    def input_lines(self) -> list[int] | None:
        """The line of the input file (the review's ``data``) each row starts on (core.predict.reading.row_lines),
        read once; None when it is not known (the file moved or changed, a SQuAD file, over LINES_READ_MAX rows)."""
        if not hasattr(self, "_lines"):
            from explorer.core.predict.reading import read_layout

            n, data = len(self.table), self.review.data
            self._lines, self._skipped = read_layout(data, n) if data and n <= LINES_READ_MAX else (None, [])
        return self._lines

    def skipped_lines(self) -> list[int]:
        """The empty lines of the input file that are no rows (core.predict.reading.read_layout), read with
        :meth:`input_lines`; [] when none, or when the file is not read again."""
        self.input_lines()
        return self._skipped

    def row_header(self) -> tuple[str, str]:
        """The first column's title and tooltip: the input file's line when known, else the data row's number,
        said so (a "#" read as the file's line or an id column is off by the header and any multi-line text)."""
        name = Path(self.review.data).name if self.review.data else "the input file"
        if self.input_lines() is not None:
            return "line", f"line: where the row starts in {name} (its header is line 1)"
        return "row", (f"row: the row's number among the data rows of {name} (1 = the first row under its header), "
                       "not a line number and not an id column")

    # -- columns --------------------------------------------------------------------------------------------------
    def column_title(self, name: str) -> str:
        """An input column as the page titles it: a file read without a header row names its columns by position
        ("1", "2", ...), and a bare number beside the probability columns reads as a class; such a column is
        titled by its role, "text" (one text column), "text (column 2)" (several), else "column 3". Any other
        column keeps its name (the file's own ``label`` as ``label_in_file``)."""
        r = self.review
        if name not in r.input_columns or not str(name).isdigit():
            return saved_name(name)
        if name in r.text_columns:
            return "text" if len(r.text_columns) == 1 else f"text (column {name})"
        return f"column {name}"

    def column_tip(self, name: str) -> str | None:
        """The tooltip of a column :meth:`column_title` titled by its role: where it is in the file; else None."""
        if self.column_title(name) == saved_name(name):
            return None
        role = ": the text the model read" if name in self.review.text_columns else ""
        return f"column {name} of the input file (read without a header row){role}"

    # -- labels ---------------------------------------------------------------------------------------------------
    def choices(self) -> list[str]:
        """The labels a row may get: the endings' numbers (SWAG) or the head's labels; none for a tagger (a tag per
        word, not a label per row: its tag names are no row's label)."""
        if prediction_spec(self.review).tags_per_word:
            return []
        choices = prediction_spec(self.review).choices
        if choices:
            return [str(k) for k in range(choices)]
        return list(self.review.label_names)

    def error(self, i: int) -> str:
        """Row ``i``'s error ("" when the model read it)."""
        return str(self.table.column("error")[i]).strip()

    def labelable(self, i: int) -> bool:
        """Whether a row can get a label: the model read it (no error, e.g. not an empty text)."""
        return not self.error(i)

    def key_label(self, text: str) -> str | None:
        """The label key ``text`` ("1".."9", :func:`review_keys`) stands for, or None."""
        choices = self.choices()[:KEYED]
        return choices[int(text) - 1] if text.isdigit() and 1 <= int(text) <= len(choices) else None

    def set_label(self, i: int, label: str) -> str:
        """A person's label for row ``i`` (the same as the model's still counts as reviewed). Returns why it
        cannot be set ("" when set; the caller saves the review)."""
        if not self.labelable(i):
            return f"Row {i + 1} has no label: {self.table.column('error')[i]}"
        if label == self.predicted[i] and i not in self.review.labels:
            self.review.mark_reviewed(i)
        else:
            self.review.set_label(i, label)
        self._relabel(i)
        return ""

    def mark_reviewed(self, i: int, on: bool = True) -> str:
        """Row ``i`` reviewed (``on``) or not; returns why it cannot be ("" when done). A corrected row (a person's
        label other than the model's) stays reviewed: its ✓ is what marks a correction in the table."""
        if on and not self.labelable(i):
            return f"Row {i + 1} has no label to confirm: {self.table.column('error')[i]}"
        if not on and self.review.labels.get(i, self.predicted[i]) != self.predicted[i]:
            return (f"Row {i + 1} is corrected ({self.review.labels[i]}; the model said {self.predicted[i]}) and "
                    "stays reviewed: give it the model's label to take the correction back")
        self.review.mark_reviewed(i, on)
        self._relabel(i)
        return ""

    def _relabel(self, i: int) -> None:
        self.labels[i] = self.review.labels.get(i, self.predicted[i])

    def corrected(self) -> int:
        """Rows whose label a person changed from the model's (rows of the saved review past the file's end, an
        earlier longer file of the same name, are not counted)."""
        n = len(self.predicted)
        return sum(1 for i, v in self.review.labels.items() if i < n and v != self.predicted[i])

    def reviewed(self) -> int:
        """Rows of the file a person reviewed (corrected or confirmed)."""
        return self.review.reviewed_in(len(self.predicted))

    # -- what the page says ---------------------------------------------------------------------------------------
    def person_choices(self) -> list[str]:
        """The columns that may hold a person's labels (input columns that are not the text)."""
        r = self.review
        return [c for c in r.input_columns if c not in r.text_columns]

    def info(self, shown: int) -> str:
        """The line over the table (HTML): the file, rows, kind, model, errors, corrections, keys."""
        t, r = self.table, self.review
        errors = sum(bool(v) for v in t.column("error"))
        tau = f", τ {r.tau:+.2f}" if prediction_spec(r).answers_with_tau and r.tau is not None else ""
        keys = f"keys {html.escape(review_keys(self.choices()))} set the label and " if self.choices() else ""
        each = "each " if keys else ""
        if prediction_spec(r).tags_per_word:
            keys, each = f"{TAGS_NOTE}; ", ""
        how = prediction_spec(r).uncertainty if r.head is not None else None
        first = {Uncertainty.TAU: "nearest τ first", Uncertainty.NONE: "in file order"}.get(how, "least certain first")
        if "suspect_rank" in t.columns:
            first = "most suspect label first (R takes the model's label, 1..K sets another)"
        return (f"<b>{Path(t.path).name}</b>: {len(t)} rows ({shown} shown), {r.kind}{tau}, model "
                f"{r.model or '?'}; {errors} with an error; <b>{self.corrected()} corrected</b>, "
                f"{self.reviewed()} reviewed. Sorted {first}; {keys}R marks reviewed, {each}moving to the "
                "next row; Shift+R un-marks.")

    def file_notes(self) -> list[str]:
        """Plain sentences about the predicted file as a whole, shown over the table in amber (found once per
        file): the empty lines of the input file skipped as no rows, how many of its rows the checkpoint's run
        trained on."""
        if not hasattr(self, "_notes"):
            from explorer.core.predict.reading import skipped_note

            self._notes = [n for n in (skipped_note(self.skipped_lines()), self._training_note()) if n]
        return self._notes

    def _training_note(self) -> str:
        """"N of these M rows were in the run's training data…" (core.predict.seen), or "" when none were, the
        run's training file is gone, or the rows are training rows by design (a review of suspected label errors
        names its group's config)."""
        from explorer.core.predict.seen import text_key, training_keys, training_rows

        t, r = self.table, self.review
        if r.train_config or not r.model or not r.text_columns or any(c not in t.columns for c in r.text_columns):
            return ""
        run_cfg, _folder, run_dir = self.corrections_place()
        keys = training_keys(run_cfg, run_dir) if run_cfg else None
        if not keys:
            return ""
        texts, errors = [t.column(c) for c in r.text_columns], t.column("error")
        row_keys = (text_key([c[i] for c in texts]) for i in range(len(t))
                    if not errors[i] and all(c[i].strip() for c in texts))
        seen = training_rows(row_keys, keys)
        return seen.sentence() if seen is not None else ""

    def row_html(self, i: int) -> str:
        """Row ``i`` in full: its text columns as paragraphs (a QA answer marked in its passage), then the rest."""
        t, r = self.table, self.review
        parts = []
        span = answer_span(t, i) if prediction_spec(r).answers_with_tau else None
        for c in r.text_columns + [c for c in t.columns if c not in r.text_columns]:
            if c in t.columns:
                v = t.column(c)[i]
                if c == "context" and span is not None:   # the answer marked where it stands in the passage
                    a, b = span
                    shown = (f"{html.escape(v[:a])}<b style='background:#ffe082'>{html.escape(v[a:b])}</b>"
                             f"{html.escape(v[b:])}")
                else:
                    shown = html.escape(v)
                parts.append(f"<p><b>{html.escape(self.column_title(c))}</b>: {shown}</p>" if c in r.text_columns
                             else f"<span style='color:#555'>{html.escape(self.column_title(c))}: {shown}</span><br>")
        return "".join(parts)

    def agreements(self):
        """(lines, the agreement with the gold column or None): the model against the gold column and against a
        person's column, for a classification or SWAG file (names and scales from the metric table)."""
        from explorer.core.specs.metric_display import format_metric

        t, r = self.table, self.review
        if not prediction_spec(r).one_label_per_row:
            return [], None
        lines, with_gold = [], None
        names = self.choices()
        gold_col = r.gold_column if r.gold_column in t.columns else ""
        if gold_col:
            gold = gold_as_names(t.column(gold_col), names) if prediction_spec(r).labels_by_name else t.column(gold_col)
            a = agreement(gold, self.predicted, names)
            if a is not None:
                lines.append(f"Model vs gold <b>{html.escape(self.column_title(gold_col))}</b> ({a.n} rows): "
                             f"{format_metric('accuracy', a.accuracy, 'single')}, "
                             f"{format_metric('macro_f1', a.macro_f1, 'single')}")
                with_gold = a
        if r.person_column:
            person = gold_as_names(t.column(r.person_column), names)
            a = agreement(person, self.predicted, names)
            if a is not None:
                lines.append(f"Model vs person <b>{html.escape(saved_name(r.person_column))}</b> ({a.n} rows): Cohen's κ {a.kappa:.3f}, "
                             f"{format_metric('accuracy', a.accuracy, 'single')}")
        return lines, with_gold

    def annotators(self) -> tuple[str, list[AnnotatorRow]]:
        """The note over the annotator table and its rows, for the ticked annotator columns
        (core.predict.review.annotator_agreement)."""
        r = self.review
        cols = list(r.annotator_columns)
        if not prediction_spec(r).labels_by_name or not cols:
            return (ANNOTATORS_HINT if prediction_spec(r).labels_by_name else ""), []
        if len(cols) < 2:
            return f"{saved_name(cols[0])} ticked; tick at least one more annotator column.", []
        table = annotator_agreement(self.table, cols, self.predicted, self.choices())
        return ANNOTATORS_NOTE, [AnnotatorRow(row.who, row.statistic, "-" if row.value != row.value
                                              else f"{row.value:.3f}", str(row.n)) for row in table.rows]

    def corrections_place(self) -> tuple[dict, Path, Path | None]:
        """Where the next run's data is made: (the run config the review names (Review.run_config_path: its
        ``train_config``, else the review's model's run), {} when none; the
        folder of the combined training file, ``.corrections`` beside the runs or else beside the predictions;
        the model's run folder or None)."""
        import json

        from explorer.core.runs.layout import run_dir_of

        r = self.review
        cfg_path = r.run_config_path()   # a review of suspected label errors names its group's config
        run_cfg = {}
        if cfg_path is not None:
            try:
                run_cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                run_cfg = {}
        run_dir = run_dir_of(r.model) if cfg_path and r.model and not r.train_config else None  # beside the runs
        folder = (run_dir.parent if run_dir is not None else Path(r.predictions).parent) / ".corrections"
        return run_cfg, folder, run_dir

    def first_sort(self, headers: list[str]) -> int:
        """The column the table opens sorted by (ascending): the least certain first (margin, |score_diff − τ|);
        regression: file order (column 0); suspected label errors (label-issues): the most suspect first."""
        if "suspect_rank" in headers:
            return headers.index("suspect_rank")
        how = prediction_spec(self.review).uncertainty
        if how is Uncertainty.MARGIN and "margin" in headers:
            return headers.index("margin")
        if uncertainty_header(self.review):
            return headers.index(uncertainty_header(self.review))
        return 0
