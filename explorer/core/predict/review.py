"""A person's review of a predictions file: corrections, reviewed marks, the labelled file, agreement and the
data for the next fine-tune (Qt-free, torch-free; the Predictions page renders these).

The review lives beside the predictions as ``<predictions>.review.json`` (written atomically after every
change), so closing the app loses nothing and opening the predictions again restores it::

    {"version": 1, "predictions": "...", "model": "...", "data": "...", "kind": "classification",
     "label_names": [...], "input_columns": [...], "text_columns": [...], "tau": null,
     "labels": {"17": "positive"}, "reviewed": [17, 40], "person_column": "", "gold_column": "label"}

Row numbers are 0-based data rows of the predictions file (its input order).

Uncertainty ("least certain first"): classification the margin between the two top probabilities (smallest
first), SWAG the same over the endings, multi-label the smallest |p - threshold| over the labels (0.5 when not
saved), regression none (file order), QA |score_diff - τ| (the questions nearest τ first; abstentions with no
span sort last). Metrics: accuracy and macro F1 (scikit-learn) with the confusion matrix (rows gold, columns
predicted); agreement with a person's label column: Cohen's κ (``sklearn.metrics.cohen_kappa_score``) and
the share of equal labels; with several annotators' label columns (``annotator_columns``,
``predict --annotator-columns``), :func:`annotator_agreement`: Krippendorff's α among the annotators and
each annotator against the model and against each other (Cohen's κ), one table (core/stats.py).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from explorer.core.predict.reading import PredictDataError, iter_rows, text_of
from explorer.core.predict.facts import MULTILABEL, SWAG
from explorer.core.predict.writing import write_table

GOLD_NAMES = ("label", "labels", "gold_label", "Quality", "Stance", "gold")
REVIEW_SUFFIX = ".review.json"


def review_path(predictions: str | Path) -> Path:
    """``<predictions>.review.json``."""
    p = Path(predictions)
    return p.with_name(p.name + REVIEW_SUFFIX)


@dataclass
class Review:
    """See the module docstring. ``labels``: row -> label set by a person; ``reviewed``: rows marked."""

    predictions: str
    model: str = ""
    data: str = ""
    kind: str = "classification"
    label_names: list[str] = field(default_factory=list)
    input_columns: list[str] = field(default_factory=list)
    text_columns: list[str] = field(default_factory=list)
    tau: float | None = None
    labels: dict[int, str] = field(default_factory=dict)
    reviewed: set[int] = field(default_factory=set)
    person_column: str = ""
    gold_column: str = ""
    annotator_columns: list[str] = field(default_factory=list)
    version: int = 1

    @classmethod
    def from_summary(cls, summary: dict) -> "Review":
        """A fresh review of the file a predict run wrote (PredictSummary.to_dict())."""
        r = cls(summary["out"], summary.get("model", ""), summary.get("data", ""), summary.get("kind", ""),
                list(summary.get("label_names") or []), list(summary.get("input_columns") or []),
                list(summary.get("text_columns") or []), summary.get("tau"))
        r.gold_column = next((c for c in GOLD_NAMES if c in r.input_columns), "")
        return r

    @property
    def path(self) -> Path:
        return review_path(self.predictions)

    def set_label(self, row: int, label: str) -> None:
        """A person's label for ``row`` (also marks it reviewed)."""
        if self.label_names and label not in self.label_names:
            raise PredictDataError(f"{label!r} is not one of the labels {', '.join(self.label_names)}")
        self.labels[int(row)] = label
        self.reviewed.add(int(row))

    def clear_label(self, row: int) -> None:
        self.labels.pop(int(row), None)

    def mark_reviewed(self, row: int, on: bool = True) -> None:
        (self.reviewed.add if on else self.reviewed.discard)(int(row))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["labels"] = {str(k): v for k, v in sorted(self.labels.items())}
        d["reviewed"] = sorted(self.reviewed)
        return d

    def save(self) -> Path:
        """Write the review JSON atomically (temp file + rename); returns its path."""
        path = self.path
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, predictions: str | Path) -> "Review | None":
        """The saved review of a predictions file, or None when there is none (or it is unreadable)."""
        path = review_path(predictions)
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(d, dict):
            return None
        known = {f for f in cls.__dataclass_fields__}
        d = {k: v for k, v in d.items() if k in known}
        d["predictions"] = str(predictions)
        r = cls(**d)
        r.labels = {int(k): str(v) for k, v in (d.get("labels") or {}).items()}
        r.reviewed = {int(x) for x in d.get("reviewed") or []}
        return r


@dataclass
class PredictionTable:
    """A predictions file in memory as columns of text (what the page shows). ``columns``: names in file
    order; ``cells``: one list of strings per column (all the same length)."""

    path: str
    columns: list[str]
    cells: list[list[str]]

    def __len__(self) -> int:
        return len(self.cells[0]) if self.cells else 0

    def column(self, name: str) -> list[str]:
        return self.cells[self.columns.index(name)] if name in self.columns else [""] * len(self)

    def numbers(self, name: str) -> np.ndarray:
        """A column as float64 (NaN where not a number)."""
        out = np.full(len(self), np.nan)
        for i, v in enumerate(self.column(name)):
            try:
                out[i] = float(v)
            except (TypeError, ValueError):
                pass
        return out


def load_predictions(path: str | Path) -> PredictionTable:
    """Read a predictions file (any format predict writes) into a PredictionTable."""
    info, rows = iter_rows(path, "utf-8-sig" if Path(path).suffix.lower() != ".xlsx" else "auto")
    columns = list(info.columns)
    cells: list[list[str]] = [[] for _ in columns]
    for r in rows:
        for k, c in enumerate(columns):
            v = r.values.get(c, "")
            cells[k].append(json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else text_of(v))
    return PredictionTable(str(path), columns, cells)


def uncertainty(table: PredictionTable, review: Review) -> np.ndarray:
    """Per row, smaller = less certain (see the module docstring); NaN rows sort last."""
    n = len(table)
    if review.kind in ("classification",):
        return table.numbers("margin")
    if review.kind == SWAG:
        p = np.stack([table.numbers(f"p_ending{k}") for k in range(4)], axis=1) if n else np.zeros((0, 4))
        s = np.sort(p, axis=1)
        return s[:, -1] - s[:, -2]
    if review.kind == MULTILABEL and review.label_names:
        p = np.stack([table.numbers(f"p_{x}") for x in review.label_names], axis=1)
        return np.min(np.abs(p - 0.5), axis=1)
    if review.kind == "qa":
        return np.abs(table.numbers("score_diff") - (review.tau or 0.0))
    return np.arange(n, dtype=float)


def current_labels(table: PredictionTable, review: Review) -> list[str]:
    """Per row, the label in force: the person's when set, else the model's predicted_label (or ending)."""
    col = "predicted_ending" if review.kind == SWAG else "predicted_label"
    pred = table.column(col)
    return [review.labels.get(i, pred[i]) for i in range(len(table))]


def gold_as_names(values: list[str], names: list[str]) -> list[str]:
    """Gold labels as class names: ids 0..K-1 become names[id]; names stay; "" stays ""."""
    out = []
    for v in values:
        v = str(v).strip()
        if v.lstrip("-").isdigit() and names and 0 <= int(v) < len(names) and v not in names:
            out.append(names[int(v)])
        elif v.endswith(".0") and v[:-2].isdigit() and names and int(v[:-2]) < len(names):
            out.append(names[int(v[:-2])])
        else:
            out.append(v)
    return out


@dataclass
class Agreement:
    """Metrics of the model (or a person) against a label column. n: rows compared (both labels present);
    accuracy, macro_f1 (fractions), kappa (Cohen's κ, NaN when undefined), labels and confusion (rows: the
    reference column, columns: the model's labels; counts)."""

    n: int
    accuracy: float
    macro_f1: float
    kappa: float
    labels: list[str]
    confusion: np.ndarray


def agreement(reference: list[str], predicted: list[str], labels: list[str] | None = None) -> Agreement | None:
    """Accuracy, macro F1, Cohen's κ and the confusion matrix of ``predicted`` against ``reference`` over the
    rows where both are set; None when no row has both."""
    from sklearn.metrics import cohen_kappa_score, confusion_matrix, f1_score

    pairs = [(a, b) for a, b in zip(reference, predicted) if str(a).strip() and str(b).strip()]
    if not pairs:
        return None
    ref, pred = [a for a, _ in pairs], [b for _, b in pairs]
    names = list(labels or [])
    names += sorted({*ref, *pred} - set(names))
    acc = float(np.mean([a == b for a, b in pairs]))
    f1 = float(f1_score(ref, pred, labels=names, average="macro", zero_division=0))
    with np.errstate(all="ignore"):
        try:
            kappa = float(cohen_kappa_score(ref, pred, labels=names))
        except ValueError:
            kappa = math.nan
    return Agreement(len(pairs), acc, f1, kappa, names, confusion_matrix(ref, pred, labels=names))


@dataclass
class AgreementRow:
    """One row of the annotator table: ``who`` ("a vs model", "a vs b", "all annotators"), the statistic
    ("Cohen's κ" or "Krippendorff's α", nominal), its value (NaN when undefined: one label everywhere) and n
    (rows where both labels are set; for α the rows with at least two annotators' labels)."""

    who: str
    statistic: str
    value: float
    n: int


@dataclass
class AnnotatorAgreement:
    """Agreement among annotator columns and with the model's predicted labels: rows in the order
    annotator-vs-model (κ), annotator-vs-annotator (κ), then all annotators (α)."""

    columns: list[str]
    rows: list[AgreementRow]

    def lines(self) -> list[str]:
        """The table as text lines for the CLI report."""
        width = max(len(r.who) for r in self.rows) if self.rows else 10
        out = [f"{'agreement':<{width}}  {'statistic':<17}  {'value':>6}  n"]
        for r in self.rows:
            value = "-" if math.isnan(r.value) else f"{r.value:.3f}"
            out.append(f"{r.who:<{width}}  {r.statistic:<17}  {value:>6}  {r.n}")
        return out


def annotator_agreement(table: PredictionTable, columns: list[str], predicted: list[str],
                        names: list[str] | None = None) -> AnnotatorAgreement:
    """Krippendorff's α (nominal, the ``krippendorff`` package) among the annotator ``columns`` of the
    predictions file, and Cohen's κ (scikit-learn) of each annotator against ``predicted`` (the model's labels,
    (n,)) and against each other annotator, over the rows where both labels are set. Label ids 0..K-1 in a
    column are read as ``names[id]`` (:func:`gold_as_names`), so "1" and "positive" agree.

    Raises PredictDataError naming a column the file does not have, or fewer than two columns."""
    from explorer.core.stats import cohen_kappa, krippendorff_alpha

    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise PredictDataError(f"annotator column {missing[0]!r} is not in {table.path} "
                               f"(columns: {', '.join(table.columns[:12])})")
    if len(columns) < 2:
        raise PredictDataError(f"agreement among annotators needs at least two annotator columns (got {len(columns)})")
    labels = {c: gold_as_names(table.column(c), list(names or [])) for c in columns}

    def kappa(x, y, who):
        keep = [i for i, (a, b) in enumerate(zip(x, y)) if str(a).strip() and str(b).strip()]
        value = cohen_kappa([x[i] for i in keep], [y[i] for i in keep]) if keep else math.nan
        return AgreementRow(who, "Cohen's κ", value, len(keep))

    rows = [kappa(labels[c], predicted, f"{c} vs model") for c in columns]
    rows += [kappa(labels[a], labels[b], f"{a} vs {b}") for i, a in enumerate(columns) for b in columns[i + 1:]]
    n_alpha = sum(1 for i in range(len(table)) if sum(bool(str(labels[c][i]).strip()) for c in columns) >= 2)
    try:
        alpha = krippendorff_alpha({c: [v if str(v).strip() else None for v in labels[c]] for c in columns})
    except (ValueError, ZeroDivisionError):   # one value everywhere: α is undefined
        alpha = math.nan
    rows.append(AgreementRow("all annotators", "Krippendorff's α", alpha, n_alpha))
    return AnnotatorAgreement(list(columns), rows)


def save_labelled(table: PredictionTable, review: Review, out: str | Path) -> Path:
    """Write the labelled file: the input columns, ``label`` (the person's where set, else the model's) and
    ``label_source`` ("person" / "model"); format by the suffix of ``out``. An input column named ``label`` (a
    gold column) is replaced by the new one; the prediction columns are left out."""
    inputs = [c for c in (review.input_columns or table.columns) if c in table.columns and c != "label"]
    cols = [table.column(c) for c in inputs]
    labels = current_labels(table, review)

    def rows():
        for i in range(len(table)):
            r = {c: cols[k][i] for k, c in enumerate(inputs)}
            r["label"] = labels[i]
            r["label_source"] = "person" if i in review.labels else "model"
            yield r
    return write_table(out, inputs + ["label", "label_source"], rows())


# run config keys a fine-tune on corrected rows does not take from the run it corrects: its identity and
# folders, and how the old training file was read (the combined file is read by the fields set below)
_NOT_CARRIED = frozenset({"run_id", "output_dir", "resume", "train", "text_columns", "label_column", "no_header",
                          "encoding", "id_column", "label_names", "skip_invalid", "train_cap", "watch"})

def finetune_data(table: PredictionTable, review: Review, run_config: dict, folder: str | Path) -> tuple[dict, str]:
    """The TrainConfig fields of a new run on the original training file plus the corrected rows, and a note.

    The training config names one train file, so a combined TSV is written into ``folder`` (the runs folder's
    ``.corrections``): the original training examples (read with the run's column mapping) and the rows a
    person labelled, as ``text`` (or ``text_a``/``text_b``) and ``label`` (the class names), with the fields'
    ``label_names`` the model's id2label order, so the new run's head has the same classes in the same order.

    Raises:
        PredictDataError: no corrected rows, or a label that is not a class of the model.
    """
    if not review.labels:
        raise PredictDataError("no corrected rows yet: set the label of a row (keys 1..K) first")
    names = review.label_names
    text_cols = review.text_columns or [c for c in ("text", "sentence") if c in table.columns][:1]
    pair = len(text_cols) == 2
    header = ["text_a", "text_b", "label"] if pair else ["text", "label"]
    rows, note_parts = [], []
    train = str(run_config.get("train") or "")
    if train:
        from explorer.core.data.classification import load_classification

        data = load_classification(train, pair=pair, text_columns=run_config.get("text_columns") or None,
                                   label_column=run_config.get("label_column") or "")
        own = list(data.label_names) if data.label_names else list(names)   # integer ids: the head's names
        for k in range(len(data)):
            r = {header[0]: data.texts_a[k], "label": own[int(data.labels[k])]}
            if pair:
                r["text_b"] = data.texts_b[k]
            rows.append(r)
        note_parts.append(f"{len(data)} rows of {train}")
    texts = [table.column(c) for c in text_cols]
    for i, label in sorted(review.labels.items()):
        if label not in names:
            raise PredictDataError(f"row {i + 1}: {label!r} is not a class of the model ({', '.join(names)})")
        r = {header[0]: texts[0][i], "label": label}
        if pair:
            r["text_b"] = texts[1][i]
        rows.append(r)
    note_parts.append(f"{len(review.labels)} corrected rows of {Path(review.predictions).name}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stem = Path(review.predictions).name.split(".")[0]
    out = folder / f"{stem}-train-plus-corrected.tsv"
    write_table(out, header, rows)
    note = (f"The training config takes one train file, so {out} combines {' and '.join(note_parts)}"
            + (f" (the original: {train})" if train else "") + ".")
    # the run's own recipe (class weights, dev fraction, steps, learning rate...), not what the launcher held
    # last; the data settings describe the combined file (a header, UTF-8, no id column)
    fields = {k: v for k, v in run_config.items() if k not in _NOT_CARRIED and v is not None}
    fields.update({"train": str(out), "text_columns": header[:-1], "label_column": "label", "no_header": False,
                   "encoding": "", "id_column": "", "skip_invalid": False})
    fields["task"] = fields.get("task") or ("pair" if pair else "single")
    fields["model"] = fields.get("model") or review.model   # the run's starting model: the same recipe, more data
    fields["num_labels"] = len(names)
    fields["label_names"] = list(names)
    return fields, note
