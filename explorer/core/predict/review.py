"""A person's review of a predictions file: corrections, reviewed marks, the labelled file, agreement and the
data for the next fine-tune (Qt-free, torch-free; the Predictions page renders these).

The review lives beside the predictions as ``<predictions>.review.json`` (written atomically after every
change), so closing the app loses nothing and opening the predictions again restores it::

    {"version": 1, "predictions": "...", "model": "...", "data": "...", "kind": "classification",
     "label_names": [...], "input_columns": [...], "text_columns": [...], "tau": null,
     "labels": {"17": "positive"}, "reviewed": [17, 40], "person_column": "", "gold_column": "label",
     "train_config": "", "sample": [3, 17, 58]}

``train_config`` names the run config the reviewed rows retrain (a cross-validation group's suspected label
errors: the group's config, whose training file holds those rows); empty: the model's run. ``sample``: rows
drawn uniformly at random (``bert-explorer shares --draw N``) whose review gives the gold labels of
prediction-powered class shares (core/metrics/ppi.py).

Row numbers are 0-based data rows of the predictions file (its input order).

Uncertainty ("least certain first"): classification the margin between the two top probabilities (smallest
first), SWAG the same over the endings, multi-label the smallest |p - threshold| over the labels (0.5 when not
saved), regression none (file order), QA |score_diff - τ| (the questions nearest τ first; abstentions with no
span sort last). Metrics: accuracy and macro F1 (scikit-learn) with the confusion matrix (rows gold, columns
predicted); agreement with a person's label column: Cohen's κ (``sklearn.metrics.cohen_kappa_score``) and
the share of equal labels; with several annotators' label columns (``annotator_columns``,
``predict --annotator-columns``), :func:`annotator_agreement`: Krippendorff's α among the annotators and
each annotator against the model and against each other (Cohen's κ), one table (core/metrics/significance.py).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from explorer.core.predict.reading import PredictDataError, iter_rows, text_of
from explorer.core.predict.seen import trained_rows
from explorer.core.specs.heads import HeadSpec, Uncertainty, for_prediction_kind
from explorer.core.specs.train_config import dev_split_seed_of
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
    train_config: str = ""
    sample: list[int] = field(default_factory=list)   # rows drawn at random for prediction-powered shares
    version: int = 1

    @classmethod
    def from_summary(cls, summary: dict) -> "Review":
        """A fresh review of the file a predict run wrote (PredictSummary.to_dict())."""
        r = cls(summary["out"], summary.get("model", ""), summary.get("data", ""), summary.get("kind", ""),
                list(summary.get("label_names") or []), list(summary.get("input_columns") or []),
                list(summary.get("text_columns") or []), summary.get("tau"))
        r.gold_column = r.run_label_column() or next((c for c in GOLD_NAMES if c in r.input_columns), "")
        return r

    def run_label_column(self) -> str:
        """The input column named as the one the model's run was trained on (its config's ``label_column``), or
        "" (no run config, no such name, or not among the file's columns): the gold the model is measured
        against before the usual names."""
        path = None if self.train_config else self.run_config_path()
        if path is None:
            return ""
        try:
            column = str(json.loads(path.read_text(encoding="utf-8")).get("label_column") or "")
        except (OSError, ValueError, AttributeError):
            return ""
        return column if column in self.input_columns else ""

    @property
    def path(self) -> Path:
        return review_path(self.predictions)

    @property
    def head(self) -> HeadSpec | None:
        """The head whose predictions these are (by ``kind``: explorer.core.specs.heads); None when unknown."""
        return for_prediction_kind(self.kind)

    def run_config_path(self) -> Path | None:
        """The run config whose training file the reviewed rows go back into: ``train_config`` when the review
        names one (suspected label errors of a cross-validation group: the group's own config), else the
        config.json of the run the model's checkpoint belongs to; None when neither is there."""
        if self.train_config:
            return Path(self.train_config)
        if not self.model:
            return None
        from explorer.core.models.checkpoint_windows import run_config_for_checkpoint

        return run_config_for_checkpoint(self.model)

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

    def reviewed_in(self, n_rows: int) -> int:
        """Rows among the file's first ``n_rows`` a person reviewed (corrected or confirmed): the count the
        Predictions page shows and Save labelled file… reports."""
        return sum(1 for i in self.reviewed if 0 <= i < n_rows)

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
        # a row a person labelled is reviewed (a review written by hand or by an older version may list it only
        # under "labels": its ✓ must show all the same)
        r.reviewed = {int(x) for x in d.get("reviewed") or []} | set(r.labels)
        r.sample = sorted(int(x) for x in d.get("sample") or [])
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
    head = review.head
    how = head.prediction.uncertainty if head is not None else Uncertainty.NONE
    if how is Uncertainty.MARGIN:
        return table.numbers("margin")
    if how is Uncertainty.CHOICE_MARGIN:
        k = head.prediction.choices
        p = np.stack([table.numbers(f"p_ending{c}") for c in range(k)], axis=1) if n else np.zeros((0, k))
        s = np.sort(p, axis=1)
        return s[:, -1] - s[:, -2]
    if how is Uncertainty.THRESHOLD and review.label_names:
        p = np.stack([table.numbers(f"p_{x}") for x in review.label_names], axis=1)
        return np.min(np.abs(p - 0.5), axis=1)
    if how is Uncertainty.TAU:
        return np.abs(table.numbers("score_diff") - (review.tau or 0.0))
    return np.arange(n, dtype=float)


def current_labels(table: PredictionTable, review: Review) -> list[str]:
    """Per row, the label in force: the person's when set, else the model's predicted_label (or ending)."""
    col = review.head.prediction.label_column if review.head is not None else "predicted_label"
    pred = table.column(col)
    return [review.labels.get(i, pred[i]) for i in range(len(table))]


def gold_as_names(values: list[str], names: list[str]) -> list[str]:
    """Gold labels as class names: ids 0..K-1 become names[id], and a column numbered 1..K with no 0 (K names, as
    explorer.core.data.classification reads one) names[id - 1]; names stay; "" stays ""."""
    ints = [int(v) for v in (str(x).strip() for x in values) if v.lstrip("-").isdigit()]
    first = 1 if ints and names and min(ints) >= 1 and max(ints) == len(names) \
        and not any(str(y) in names for y in ints) else 0
    out = []
    for v in values:
        v = str(v).strip()
        if v.lstrip("-").isdigit() and names and 0 <= int(v) - first < len(names) and v not in names:
            out.append(names[int(v) - first])
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
    rows where both are set; None when no row has both. The confusion matrix has every label of ``labels``; the
    macro F1 averages the labels that occur in either column (scikit-learn's default set): a class the model
    knows that neither the file nor the model ever names would add an F1 of 0 and pull the mean down (18 classes
    of a model, 14 of them in a 40-row file: 34.78 against 44.72)."""
    from sklearn.metrics import cohen_kappa_score, confusion_matrix, f1_score

    pairs = [(a, b) for a, b in zip(reference, predicted) if str(a).strip() and str(b).strip()]
    if not pairs:
        return None
    ref, pred = [a for a, _ in pairs], [b for _, b in pairs]
    names = list(labels or [])
    names += sorted({*ref, *pred} - set(names))
    acc = float(np.mean([a == b for a, b in pairs]))
    present = [n for n in names if n in set(ref) | set(pred)]
    f1 = float(f1_score(ref, pred, labels=present, average="macro", zero_division=0))
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
    from explorer.core.metrics.significance import cohen_kappa, krippendorff_alpha

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
    """Write the labelled file: the input columns, ``label`` (the person's where set, else the model's),
    ``label_source``: "person" (a person set it), "model, reviewed" (the model's label, which a person looked
    at and kept), "model", or "none" (no label: a row the model could not predict, e.g. an empty text), and the
    model's per-class columns (``p_<label>`` probabilities, one per class name; the head's
    ``prediction.label_columns``). Format by the suffix of ``out``. An input column named ``label`` (often a
    person's gold labels, in the ids or names the file uses) is kept, as ``label_in_file``: the new ``label``
    never overwrites what the person had. The other prediction columns are left out."""
    inputs = [c for c in (review.input_columns or table.columns) if c in table.columns]
    head = review.head
    per_class = [c for c in (head.prediction.label_columns(review.label_names) if head is not None else [])
                 if c in table.columns and c not in inputs]
    cols = [table.column(c) for c in inputs + per_class]
    labels = current_labels(table, review)

    names = [saved_name(c) for c in inputs]   # the file's own label column, kept

    def rows():
        for i in range(len(table)):
            r = {c: cols[k][i] for k, c in enumerate(names)}
            r["label"] = labels[i]
            r["label_source"] = ("person" if i in review.labels else "none" if not str(labels[i]).strip()
                                 else "model, reviewed" if i in review.reviewed else "model")
            r.update({c: cols[len(inputs) + k][i] for k, c in enumerate(per_class)})
            yield r
    return write_table(out, names + ["label", "label_source"] + per_class, rows())


KEPT_LABEL = "label_in_file"   # save_labelled: the input's own ``label`` column, beside the reviewed ``label``


def saved_name(column: str) -> str:
    """The name an input column has in the labelled file (:func:`save_labelled`), and on the Predictions page: the
    file's own ``label`` is ``label_in_file``, beside the reviewed ``label``; the others keep theirs."""
    return KEPT_LABEL if column == "label" else column


# run config keys a fine-tune on reviewed rows does not take from the run it corrects: its identity and
# folders, and how the old training file was read (the combined file is read by the fields set below)
_NOT_CARRIED = frozenset({"run_id", "output_dir", "resume", "train", "text_columns", "label_column", "no_header",
                          "encoding", "id_column", "label_names", "skip_invalid", "train_cap", "watch"})
LABEL_SOURCE = "label_source"   # the column saying where a row's label came from (save_labelled's too)


def _original_rows(source: str, run_config: dict, pair: bool, names: list[str], split: str = "train"):
    """The rows of a run's data file as the run read them (its text/label/id columns, no_header, encoding, label
    names, skip_invalid): (the file's columns, one dict per example with every column of the file and the label as a
    class name (integer ids as the head's ``names``), the ClassificationData). Raises ClassificationDataError."""
    from explorer.core.data.classification import _open_table, load_classification

    how = {"no_header": bool(run_config.get("no_header")), "encoding": str(run_config.get("encoding") or "")}
    data = load_classification(source, pair=pair, text_columns=run_config.get("text_columns") or None,
                               label_column=run_config.get("label_column") or "", split=split,
                               id_column=run_config.get("id_column") or "",
                               label_names=run_config.get("label_names") or None,   # "-1,1": classes, not ids
                               skip_invalid=bool(run_config.get("skip_invalid")), **how)
    table, _ = _open_table(source, split, how["no_header"], how["encoding"])
    columns = list(table.columns)
    by_line = dict(table.rows)
    own = list(data.label_names) if data.label_names else list(names)   # integer ids: the head's names
    records = []
    for k, line in enumerate(data.lines):
        values = list(by_line.get(line) or [])
        r = {c: ("" if k_ >= len(values) or values[k_] is None else values[k_]) for k_, c in enumerate(columns)}
        r[data.columns[0]] = data.texts_a[k]
        if pair:
            r[data.columns[1]] = data.texts_b[k]
        r[data.columns[2]] = data.raw_labels[k] if data.regression else own[int(data.labels[k])]
        records.append(r)
    return columns, records, data


def finetune_data(table: PredictionTable, review: Review, run_config: dict, folder: str | Path,
                  run_dir: str | Path | None = None) -> tuple[dict, str]:
    """The TrainConfig fields of a new run on the original training file plus the reviewed rows, and a note.

    From the reviewed checkpoint (:func:`start_model`), which already learned the training file, the run is sized
    to the reviewed rows (core.predict.refit): the combined file holds the reviewed rows and REPLAY_PER_ROW rows
    of the training file per reviewed row, for SHORT_EPOCHS epochs (the first run's max_steps and time budget
    cleared), and the note says the rows, epochs and steps. From the first run's model, the combined file holds
    every training row and the run takes the first run's recipe.

    The reviewed rows are every labelled example a person gave: the rows whose label a person set (corrected,
    ``label_source`` "person") and the rows a person marked reviewed with the model's label kept (confirmed,
    "model, reviewed", as :func:`save_labelled` writes them: a confirmed row is a labelled example too). Rows not
    reviewed, and rows the model could not read (an error, no label), are left out.

    A first run with a Train cap trained on the rows it kept (a stratified random ``train_cap`` of them,
    core.predict.seen.trained_rows): the combined file holds those (less the dev rows) and the fields set
    ``train_cap`` to 0, so every reviewed row is trained on (a cap left in the form would draw its own rows of the
    combined file and leave reviewed rows out).

    The training config names one train file, so a combined TSV, ``<train>-plus-corrected-<predictions>.tsv``, is
    written into ``folder`` (the runs folder's ``.corrections``): every column of the original training file (ID, Target, ...; read as the run read it:
    its columns, no_header, encoding) for its examples, then the rows a person labelled (their texts in the
    file's text columns, the correction in its label column, other columns by name from the predictions file),
    and a ``label_source`` column ("original" / "person"; kept when the file has one). Labels are class names;
    the fields' ``label_names`` are the model's id2label order, so the new run's head has the same classes.

    The dev set stays the first run's, so both runs' dev figures are measured on the same rows: with an explicit
    dev file it is kept (rewritten with a header, in UTF-8, when the run read it with no_header or an
    encoding); a run that held training rows out as dev (``run_dir``'s ``dev_split.csv``) has those
    rows written, with their original gold labels, to ``<train>-dev-rows-of-<run_id>.tsv`` (the new run's dev file, dev fraction
    0) and left out of the combined training file; a corrected row whose text is one of those dev rows is left
    out of training too (it would leak the dev set), and its dev label stays the original one.

    Raises:
        PredictDataError: no reviewed rows, or a label that is not a class of the model.
        ClassificationDataError: the original training (or dev) file cannot be read as the run read it, or its
            dev_split.csv names rows the file no longer has.
    """
    reviewed = reviewed_labels(table, review)
    if not reviewed:
        raise PredictDataError("no reviewed rows yet: set the label of a row (keys 1..K) or mark it reviewed (R) "
                               "first")
    names = review.label_names
    for i, (label, _source) in sorted(reviewed.items()):
        if label not in names:
            raise PredictDataError(f"row {i + 1}: {label!r} is not a class of the model ({', '.join(names)})")
    text_cols = review.text_columns or [c for c in ("text", "sentence") if c in table.columns][:1]
    pair = len(text_cols) == 2
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stem = Path(review.predictions).name.split(".")[0]
    train = str(run_config.get("train") or "")
    # named after the data they hold (the training file's rows), then where the corrections came from
    train_stem = Path(train).name.split(".")[0] if train else "rows"
    if train:
        dev_name = f"{train_stem}-dev-rows-of-{run_config.get('run_id') or stem}.tsv"
        base = _original_with_dev(train, run_config, run_dir, pair, names, folder / dev_name)
    else:
        header = ["text_a", "text_b"] if pair else ["text"]
        base = _Base(header=header + ["label", LABEL_SOURCE], text_names=list(header), label_col="label")
    rows, in_dev, corrected = _person_rows(table, reviewed, text_cols, base)
    n = len(rows) + base.relabelled
    note_parts = base.note_parts + [
        f"{n} reviewed row{'s' if n != 1 else ''} of {Path(review.predictions).name} ({corrected} corrected, "
        f"{n - corrected} confirmed: the model's label, kept"
        + (f"; {base.relabelled} of them training rows, relabelled in place rather than added" if base.relabelled
           else "") + ")"]
    dev_note = base.dev_note
    if in_dev:
        dev_note += (f" {in_dev} reviewed row{'s are' if in_dev != 1 else ' is'} among those dev rows: "
                     "left out of training; the dev labels stay the original ones.")
    task = str(run_config.get("task") or ("pair" if pair else "single"))
    model, start = start_model(run_config, review, task, names)
    recipe = None
    if model == str(review.model or "") and model != str(run_config.get("model") or review.model):
        # from the reviewed checkpoint, which already learned the training file: a run sized to the reviewed rows
        recipe = _short_recipe(base, rows, run_config, train)
        note_parts = ([f"{recipe.mixed_in:,} rows of {train}"] if recipe.mixed_in else []) + \
            note_parts[len(base.note_parts):]
        start += " " + recipe.sentence(Path(train).name if train else "the training file",
                                      _first_recipe(run_config, len(base.rows) + len(rows)))
    out = folder / f"{train_stem}-plus-corrected-{stem}.tsv"
    write_table(out, base.header, recipe.rows if recipe is not None else base.rows + rows)
    # the dev sentence first: a status bar shows the start of a long message. The combined file by its name (its
    # path is the form's Train data; two long paths would make the note 10 lines in the launcher banner)
    note = ((dev_note + " " if dev_note else "")
            + f"The training config takes one train file, so {out.name} (in {folder.name}; Train data "
            f"has its path) combines {' and '.join(note_parts)}.")
    if review.train_config and not base.out_dev and not run_config.get("dev"):
        note += (" The rows were a cross-validation group's training rows and it has no dev set: cross-validate "
                 "the combined file again (Cross-validate… or group --cv) to compare it with the first group.")
    fields = _new_run_fields(run_config, review, out, base, pair, names)
    fields["model"] = model
    if recipe is not None:
        fields.update(recipe.fields())
    return fields, f"{note} {start}"


def _short_recipe(base: "_Base", rows: list[dict], run_config: dict, train: str):
    """The short fine-tune (core.predict.refit) of the reviewed rows, those appended (``rows``) and the training
    rows relabelled in place, with rows of the rest of ``base`` mixed in, at the first run's batch."""
    from explorer.core.predict.refit import short_recipe
    from explorer.core.specs.train_config import TrainConfig

    defaults = TrainConfig.__dataclass_fields__
    batch = int(run_config.get("batch_size") or defaults["batch_size"].default) * int(
        run_config.get("gradient_accumulation_steps") or 1)
    reviewed = [base.rows[j] for j in sorted(base.relabelled_rows)] + rows
    others = [r for j, r in enumerate(base.rows) if j not in base.relabelled_rows]
    return short_recipe(reviewed, others, base.label_col, batch=batch, seed=dev_split_seed_of(run_config))


def _first_recipe(run_config: dict, rows: int) -> str:
    """The first run's recipe in words, over the ``rows`` a whole run on the combined file would train on."""
    from explorer.core.specs.train_config import TrainConfig

    steps = int(run_config.get("max_steps") or 0)
    if steps > 0:
        return f"{steps:,} steps over {rows:,} rows"
    epochs = float(run_config.get("epochs") or TrainConfig.__dataclass_fields__["epochs"].default)
    return f"{epochs:g} epochs over {rows:,} rows"


def start_model(run_config: dict, review: Review, task: str, names) -> tuple[str, str]:
    """The model the next run starts from, and the sentence that says which and why: the reviewed checkpoint
    (``review.model``, the one whose predictions a person corrected), as "fine-tune again" means, when it can take
    the run as it is: a local checkpoint whose head is the head of ``task`` (core.specs.heads.recognise, the
    task's row in core.specs.tasks) and whose classes are ``names`` in the same order (its config.json id2label).
    Otherwise the first run's own starting model (``run_config["model"]``), with the reason; also for suspected
    label errors of a cross-validation group (no one checkpoint made those predictions)."""
    from types import SimpleNamespace

    from explorer.core.specs.heads import output_names, recognise
    from explorer.core.specs.tasks import find_task_facts

    base = str(run_config.get("model") or review.model)
    checkpoint = str(review.model or "")
    if review.train_config or not checkpoint or checkpoint == base:
        return base, f"The new run starts from {base}, the first run's model."
    facts = find_task_facts(task)
    shown = "/".join(Path(checkpoint).parts[-3:])   # <run>/checkpoints/best: Model has the whole path
    try:
        config = json.loads((Path(checkpoint).expanduser() / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        config = None
    config = config if isinstance(config, dict) else None
    head = recognise(config, run_head=facts.head if facts else None) if config is not None else None
    if config is None:
        why = "it is not a checkpoint folder here"
    elif facts is None or head is not facts.head:
        why = f"its head is {head.words if head else 'none'}, not the {task} task's"
    elif output_names(SimpleNamespace(**config), len(names)) != list(names) or int(
            config.get("num_labels") or len(config.get("id2label") or {})) != len(names):
        why = "its classes are not the run's (" + ", ".join(names) + ")"
    else:
        return checkpoint, (f"The new run starts from the reviewed checkpoint {shown} (same head, same classes), "
                            "as fine-tuning again does.")
    return base, f"The new run starts from {base}, the first run's model: the reviewed checkpoint {shown} " \
                 f"cannot ({why})."


@dataclass
class _Base:
    """What the combined training file starts from: the original file's rows less the held-out dev rows."""

    header: list[str]
    text_names: list[str]
    label_col: str
    rows: list[dict] = field(default_factory=list)
    dev_keys: set[tuple] = field(default_factory=set)
    out_dev: str = ""
    dev_note: str = ""
    relabelled: int = 0   # reviewed rows that were training rows: their label changed in place, not appended
    relabelled_rows: set[int] = field(default_factory=set)   # those rows' indices in ``rows``
    note_parts: list[str] = field(default_factory=list)


def _original_with_dev(train: str, run_config: dict, run_dir, pair: bool, names, dev_out: Path) -> _Base:
    """The original training rows as the run read them, with the run's dev rows written to ``dev_out``
    (held-out rows of its dev_split.csv, or its dev file rewritten with a header in UTF-8) and left out."""
    columns, records, data = _original_rows(train, run_config, pair, names)
    base = _Base(header=columns + ([LABEL_SOURCE] if LABEL_SOURCE not in columns else []),
                 text_names=list(data.columns[:2 if pair else 1]), label_col=data.columns[2])
    held: set[int] = set()
    split = None
    if run_dir is not None and not run_config.get("dev"):
        from explorer.core.runs.layout import dev_split_file

        split = dev_split_file(run_dir)
    if split is not None and split.is_file():
        from explorer.core.data.split import load_dev_split

        held = set(load_dev_split(split, data))
        base.dev_keys = {(data.texts_a[k], data.texts_b[k] if pair else "") for k in held}
    for r in records:
        r.setdefault(LABEL_SOURCE, "original")
    # a capped first run trained on the rows its Train cap kept (less its dev rows): the combined file holds
    # those, so the reviewed rows are trained on and the recipe is the same, with the cap itself cleared
    cap = int(run_config.get("train_cap") or 0)
    kept = set(trained_rows(data, run_config))
    base.rows = [r for k, r in enumerate(records) if k not in held and k in kept]
    base.note_parts.append(f"{len(base.rows)} rows of {train}"
                           + (f" (the {cap:,} rows the first run's Train cap kept, seed {dev_split_seed_of(run_config)})"
                              if 0 < cap < len(records) else ""))
    dev = run_config.get("dev")
    if held:
        base.out_dev = str(write_table(dev_out, base.header, [records[k] for k in sorted(held)]))
        base.dev_note = (f"The dev rows are the first run's: the {len(held)} training rows it held out "
                         f"(its {split.name}), with their original labels and not trained on, so both runs' dev "
                         f"figures are measured on the same rows (Dev data: {dev_out.name}).")
    elif dev and (run_config.get("no_header") or run_config.get("encoding")):
        # the new fields read files with a header, in UTF-8: the same dev rows, rewritten that way
        dev_cols, dev_rows, _ = _original_rows(str(dev), run_config, pair, names, "validation")
        for r in dev_rows:
            r.setdefault(LABEL_SOURCE, "original")
        base.out_dev = str(write_table(dev_out, dev_cols + ([LABEL_SOURCE] if LABEL_SOURCE not in dev_cols else []),
                                       dev_rows))
        base.dev_note = f"The dev rows are the first run's: its dev file {dev}, rewritten as {base.out_dev}."
    elif dev:
        base.dev_note = f"The dev rows are the first run's: its dev file {dev} is kept."
    return base


def reviewed_labels(table: PredictionTable, review: Review) -> dict[int, tuple[str, str]]:
    """row -> (label, label_source) of the rows a person reviewed: "person" where a person set the label (also
    when it is the model's), "model, reviewed" where the row is marked reviewed and the model's label was kept;
    rows with an error (no prediction, e.g. an empty text) are not labelled examples and are left out."""
    errors = table.column("error")
    predicted = table.column("predicted_label")
    # rows past the file's end (a saved review of an earlier, longer file of the same name) are left out
    out = {int(i): (label, "person") for i, label in review.labels.items()
           if i < len(table) and not str(errors[i]).strip()}
    for i in review.reviewed:
        if i not in out and i < len(table) and not str(errors[i]).strip() and str(predicted[i]).strip():
            out[int(i)] = (predicted[i], "model, reviewed")
    return out


def _person_rows(table: PredictionTable, reviewed: dict[int, tuple[str, str]], text_cols: list[str],
                 base: _Base) -> tuple[list[dict], int, int]:
    """The reviewed rows (:func:`reviewed_labels`), in the combined file's columns, with their label_source; how
    many were left out as dev rows; how many of those kept carry another label than the model's (corrected)."""
    pair = len(text_cols) == 2
    texts = [table.column(c) for c in text_cols]
    predicted = table.column("predicted_label")
    training = {}   # a text of the training file -> its rows there (a reviewed training row is relabelled in place)
    for j, r in enumerate(base.rows):
        training.setdefault((r.get(base.text_names[0], ""), r.get(base.text_names[1], "") if pair else ""), []).append(j)
    rows, in_dev, corrected = [], 0, 0
    for i, (label, source) in sorted(reviewed.items()):
        key = (texts[0][i], texts[1][i] if pair else "")
        if key in base.dev_keys:
            in_dev += 1
            continue
        corrected += label != predicted[i]
        if key in training and len(base.text_names) == len(text_cols):
            for j in training[key]:
                base.rows[j][base.label_col] = label
                base.rows[j][LABEL_SOURCE] = source
                base.relabelled_rows.add(j)
            base.relabelled += 1
            continue
        r = {c: (table.column(c)[i] if c in table.columns else "") for c in base.header}
        for c, t in zip(base.text_names, texts):
            r[c] = t[i]
        r[base.label_col] = label
        r[LABEL_SOURCE] = source
        rows.append(r)
    return rows, in_dev, corrected


def _new_run_fields(run_config: dict, review: Review, out: Path, base: _Base, pair: bool, names) -> dict:
    """The new run's TrainConfig fields: the first run's own recipe (class weights, dev fraction, steps, learning
    rate...), not what the launcher held last: a field the first run left unset (None: learning_rate and
    max_seq_length at the task's default) or its config.json does not hold (TrainConfig's default, as the run
    read it) is carried as such, so a value left in the form does not replace it. The data settings describe the
    combined file (a header, UTF-8, no id column)."""
    import dataclasses

    from explorer.core.specs.train_config import TrainConfig

    defaults = TrainConfig()
    fields = {f.name: getattr(defaults, f.name) for f in dataclasses.fields(TrainConfig) if f.name not in _NOT_CARRIED}
    fields.update({k: v for k, v in run_config.items() if k not in _NOT_CARRIED})
    fields.update({"train": str(out), "text_columns": list(base.text_names), "label_column": base.label_col,
                   "no_header": False, "encoding": "", "id_column": "", "skip_invalid": False, "train_cap": 0})
    if base.out_dev:
        fields.update({"dev": base.out_dev, "dev_fraction": 0.0})
    fields["task"] = fields.get("task") or ("pair" if pair else "single")
    fields["model"] = fields.get("model") or review.model   # the run's starting model: the same recipe, more data
    fields["num_labels"] = len(names)
    fields["label_names"] = list(names)
    return fields
