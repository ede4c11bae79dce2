"""Suspected label errors from out-of-fold predictions (confident learning: cleanlab; Qt- and torch-free).

A label is suspect when a model that never saw its row gives the row's given class a low probability compared
with how confident the model is on the rows of that class (Northcutt et al., "Confident learning", JAIR 2021).
The probabilities must be out-of-fold: a model's predictions on its own training rows agree with the given
labels, wrong ones included, and would flag almost nothing. ``bert-explorer group --cv K`` writes them
(oof_predictions.csv, core/studies/cv_runs.py); a predictions file of another out-of-fold model with a gold
column works too.

:func:`find_suspects` is cleanlab's ``cleanlab.filter.find_label_issues`` (``prune_by_noise_rate``), ranked by
cleanlab's self-confidence label quality (``cleanlab.rank.get_label_quality_scores``; lowest = most suspect).
:func:`write_review_file` writes the suspects, most suspect first, as a predictions file with its review
(``<file>.review.json``) so the Predictions page opens them for a person to check; a corrected label retrains
through the page's usual "fine-tune on reviewed rows" (core/predict/review.finetune_data), where a reviewed row
that is a training row replaces that row's label.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from explorer.core.errors import UserError

ISSUES_FILE = "label_issues.csv"
ISSUES_SUMMARY = "label_issues.json"    # the group's figures: share per class, the top suspects
ISSUE_COLUMNS = ("suspect_rank", "row", "given_label", "label_quality")


class LabelIssuesError(UserError):
    """Out-of-fold predictions that cannot be checked: no probabilities, a label that is no class, too few rows."""


@dataclass(frozen=True, kw_only=True)
class ClassShare:
    """One class of the given labels: ``n`` rows carry it, ``flagged`` of them are suspect; ``share`` =
    flagged / n (a fraction; NaN when n is 0)."""

    label: str
    n: int
    flagged: int

    @property
    def share(self) -> float:
        return self.flagged / self.n if self.n else math.nan


@dataclass(kw_only=True)
class LabelIssues:
    """The suspects of one labelled set.

    rows: the suspect rows (0-based, input order), most suspect first. quality: (len(rows),) cleanlab's
    self-confidence of each (the out-of-fold probability of its given label; lower = more suspect).
    given / suggested: each suspect's given class and the model's most probable class (names).
    per_class: one ClassShare per class in class order. n: rows checked."""

    n: int
    class_names: list[str]
    rows: list[int]
    quality: list[float]
    given: list[str]
    suggested: list[str]
    per_class: list[ClassShare]
    notes: list[str] = field(default_factory=list)
    withheld: str = ""   # why no label is judged (the fold models learned nothing): then no suspects at all

    def share_lines(self) -> list[str]:
        """"AGAINST: 41 of 1342 (3.1%) suspected" per class, then the total; where no label can be judged
        (``withheld``), that sentence alone instead of counts."""
        if self.withheld:
            return [self.withheld]
        out = [f"{c.label}: {c.flagged} of {c.n} ({100 * c.share:.1f}%) suspected" if c.n
               else f"{c.label}: no row carries this label" for c in self.per_class]
        out.append(f"all: {len(self.rows)} of {self.n} ({100 * len(self.rows) / max(self.n, 1):.1f}%) suspected")
        return out

    def to_dict(self, top: int | None = None) -> dict:
        """JSON-ready: n, flagged, per_class (label, n, flagged, share) and the ``top`` suspects (all: None)."""
        k = len(self.rows) if top is None else min(top, len(self.rows))
        return {"n": self.n, "flagged": len(self.rows), "class_names": self.class_names,
                "per_class": [{"label": c.label, "n": c.n, "flagged": c.flagged,
                               "share": None if math.isnan(c.share) else c.share} for c in self.per_class],
                "suspects": [{"rank": i + 1, "row": self.rows[i], "given_label": self.given[i],
                              "suggested_label": self.suggested[i], "label_quality": self.quality[i]}
                             for i in range(k)],
                "notes": self.notes, "withheld": self.withheld}


def find_suspects(labels, pred_probs, class_names: list[str]) -> LabelIssues:
    """cleanlab's label issues of ``labels`` (n,) class ids 0..K-1 given out-of-fold ``pred_probs`` (n, K), rows
    summing to 1, ranked by self-confidence (most suspect first).

    Raises LabelIssuesError: shapes that do not match, a label outside 0..K-1, fewer than two classes."""
    from cleanlab.filter import find_label_issues
    from cleanlab.rank import get_label_quality_scores

    y = np.asarray(labels, dtype=int).ravel()
    p = np.asarray(pred_probs, dtype=float)
    k = len(class_names)
    if p.ndim != 2 or p.shape[0] != len(y) or p.shape[1] != k:
        raise LabelIssuesError(f"label issues: {len(y)} labels, probabilities of shape {p.shape}, {k} classes")
    if k < 2:
        raise LabelIssuesError("label issues need at least two classes")
    if len(y) and (y.min() < 0 or y.max() >= k):
        raise LabelIssuesError(f"label issues: a label id outside 0..{k - 1}")
    p = p / p.sum(axis=1, keepdims=True)   # predict writes rounded probabilities; cleanlab wants rows of sum 1
    ranked = find_label_issues(y, p, return_indices_ranked_by="self_confidence")
    quality = get_label_quality_scores(y, p, method="self_confidence")
    counts = np.bincount(y, minlength=k)
    withheld = withheld_reason(y, p, class_names)
    if withheld:   # the fold models learned nothing: every "suspect" would only be "not the majority class"
        ranked = np.zeros(0, dtype=int)
    flagged = np.bincount(y[ranked], minlength=k)
    shares = [ClassShare(label=class_names[c], n=int(counts[c]), flagged=int(flagged[c])) for c in range(k)]
    return LabelIssues(n=len(y), class_names=list(class_names), rows=[int(i) for i in ranked],
                       quality=[float(quality[i]) for i in ranked], given=[class_names[y[i]] for i in ranked],
                       suggested=[class_names[int(np.argmax(p[i]))] for i in ranked], per_class=shares,
                       withheld=withheld)


NOT_JUDGED = ("no given label can be judged from these folds (a row is suspected only for not being what the models "
              "always give); train the folds longer, with a larger learning rate (e.g. {rate}) or class weights "
              "\"balanced\", then check the labels again")


def withheld_reason(labels: np.ndarray, pred_probs: np.ndarray, class_names: list[str]) -> str:
    """Why no label can be judged from out-of-fold predictions that learned nothing, else "": every row predicted
    as one class, or the predictions right no more often than always giving the most common label. Confident
    learning then flags the model's errors, not wrong labels: a fold model left at the majority class makes every
    row of the other classes a suspect, and a researcher would "correct" right labels."""
    from explorer.core.metrics.baselines import SUGGESTED_LEARNING_RATE

    if not len(labels):
        return ""
    predicted = pred_probs.argmax(axis=1)
    right = float(np.mean(predicted == labels))
    counts = np.bincount(labels, minlength=len(class_names))
    majority = float(counts.max() / len(labels))
    tail = NOT_JUDGED.format(rate=SUGGESTED_LEARNING_RATE)
    if len(set(predicted.tolist())) == 1:
        return (f"the fold models predict only '{class_names[int(predicted[0])]}' for every held-out row (they "
                f"learned nothing): {tail}")
    if right > majority:
        return ""
    return (f"the out-of-fold predictions are right on {100 * right:.1f}% of the rows, no better than always giving "
            f"'{class_names[int(counts.argmax())]}' ({100 * majority:.1f}%): {tail}")


def probabilities_of(columns: list[str], rows: list[dict], class_names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The ``p_<class>`` columns of predict's output as (n, K) in ``class_names`` order, and a (n,) mask of the
    rows that have all K (an empty text has none). A model that names its classes otherwise (integer labels
    read as LABEL_0, LABEL_1) has its K p_ columns taken in file order, which is its id order. Raises
    LabelIssuesError naming a missing column."""
    wanted = [f"p_{c}" for c in class_names]
    missing = [c for c in wanted if c not in columns]
    in_file = [c for c in columns if c.startswith("p_")]
    if missing and len(in_file) == len(class_names):
        wanted = in_file
    elif missing:
        raise LabelIssuesError(f"the predictions have no {missing[0]} column (columns: {', '.join(columns[:12])})")
    p = np.full((len(rows), len(class_names)), np.nan)
    for i, r in enumerate(rows):
        for j, c in enumerate(wanted):
            try:
                p[i, j] = float(r.get(c))
            except (TypeError, ValueError):
                pass
    return p, np.isfinite(p).all(axis=1)


def suspects_of_predictions(columns: list[str], rows: list[dict], gold: list[str], class_names: list[str]) -> LabelIssues:
    """:func:`find_suspects` over predict's rows (p_<class> columns) and their given labels ``gold`` (names or
    ids 0..K-1; "" = none). Rows without probabilities or a given label are left out (said in ``notes``);
    ``rows`` of the result index the input. Raises LabelIssuesError: a given label that is no class."""
    from explorer.core.predict.review import gold_as_names

    p, ok = probabilities_of(columns, rows, class_names)
    names = gold_as_names([str(g) for g in gold], class_names)
    index = {c: i for i, c in enumerate(class_names)}
    keep = [i for i in range(len(rows)) if ok[i] and names[i].strip()]
    unknown = sorted({names[i] for i in keep if names[i] not in index})
    if unknown:
        raise LabelIssuesError(f"given label {unknown[0]!r} is not a class of the predictions "
                               f"({', '.join(class_names)})")
    result = find_suspects([index[names[i]] for i in keep], p[keep], class_names)
    result.rows = [keep[i] for i in result.rows]
    if len(keep) < len(rows):
        result.notes.append(f"{len(rows) - len(keep)} rows without a given label or probabilities left out")
    return result


def review_columns(columns: list[str], text_columns=()) -> tuple[list[str], list[str]]:
    """(the input columns of predict's output: all but p_<class>, predicted_label, margin, fold, error; the text
    columns: ``text_columns`` that are there, else the usual names text / sentence / Tweet / text_a, text_b)."""
    predicted = {"predicted_label", "margin", "fold", "error"}
    inputs = [c for c in columns if not c.startswith("p_") and c not in predicted]
    texts = [c for c in text_columns if c in columns]
    return inputs, texts or [c for c in inputs if c in ("text", "sentence", "Tweet", "text_a", "text_b")][:2]


def write_review_file(out: str | Path, columns: list[str], rows: list[dict], issues: LabelIssues, *,
                      kind: str, text_columns: list[str], gold_column: str, input_columns: list[str],
                      model: str = "", data: str = "", train_config: str = "") -> Path:
    """Write the suspects, most suspect first, as a predictions file ``out`` (predict's columns + suspect_rank,
    row (1-based data row of the checked file), given_label, label_quality) and its review JSON, which names
    the gold column (the given label, shown beside the model's), the classes and ``train_config`` (the run
    config whose training file the corrections go back into). Returns ``out``."""
    from explorer.core.predict.review import Review
    from explorer.core.predict.writing import write_table

    extra = [c for c in ISSUE_COLUMNS if c not in columns]
    out_rows = []
    for rank, (i, given, q) in enumerate(zip(issues.rows, issues.given, issues.quality), start=1):
        out_rows.append({**rows[i], "suspect_rank": rank, "row": i + 1, "given_label": given,
                         "label_quality": f"{q:.4f}"})
    path = write_table(out, list(columns) + extra, out_rows)
    review = Review(str(path), model=model, data=data, kind=kind, label_names=list(issues.class_names),
                    input_columns=list(input_columns), text_columns=list(text_columns), gold_column=gold_column,
                    train_config=train_config)
    review.save()
    return Path(path)


def group_label_issues(runs_dir: str | Path, name: str) -> tuple[LabelIssues, Path]:
    """The suspects of a finished cross-validation group (its oof_predictions.csv and folds.json's labels),
    written to ``label_issues.csv`` (+ review) in the group folder with the group's base config as the
    config the corrections retrain. Returns (issues, that file). Raises LabelIssuesError: not a cv group of a
    classification table, or its out-of-fold predictions are not all in yet."""
    import csv

    from explorer.core.studies.cv_runs import OOF_FILE, read_folds
    from explorer.core.studies.groups import GROUP_FILE, group_dir, load_group_file

    folder = group_dir(runs_dir, name)
    if not (folder / GROUP_FILE).is_file():
        raise LabelIssuesError(f"no group {name!r} in {runs_dir} (no {folder / GROUP_FILE}): label issues need a "
                               "cross-validation group of a classification table (bert-explorer group --cv K); "
                               "another runs folder: --output-dir")
    plan = read_folds(folder)
    if plan is None or plan.kind != "table" or plan.labels is None:
        raise LabelIssuesError(f"group {name!r}: label issues need a cross-validation group of a classification "
                               "table (bert-explorer group --cv K)")
    oof = folder / OOF_FILE
    if not oof.is_file():
        raise LabelIssuesError(f"group {name!r}: no {OOF_FILE} yet (give the group's --cv command again to "
                               "finish the folds)")
    with open(oof, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        columns, rows = list(reader.fieldnames or []), list(reader)
    names = plan.class_names
    issues = suspects_of_predictions(columns, rows, [names[int(v)] for v in plan.labels], names)
    try:
        base = dict(load_group_file(folder / GROUP_FILE).base)
    except (OSError, ValueError):
        base = {}
    config_path = folder / "label_issues.config.json"
    config_path.write_text(json.dumps({**base, "train": plan.source}, indent=1), encoding="utf-8")
    label_col = base.get("label_column") or ""
    inputs, text_cols = review_columns(columns, base.get("text_columns") or [])
    gold = label_col if label_col in columns else next((c for c in inputs if c.lower() in ("label", "stance")), "")
    out = write_review_file(folder / ISSUES_FILE, columns, rows, issues, kind="classification", text_columns=text_cols,
                            gold_column=gold, input_columns=inputs, data=plan.source,
                            train_config=str(config_path))
    summary = {**issues.to_dict(top=20), "lines": issues.share_lines(), "file": str(out)}
    (folder / ISSUES_SUMMARY).write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return issues, out


def read_group_label_issues(runs_dir: str | Path, name: str) -> dict | None:
    """The group's label_issues.json (LabelIssues.to_dict with the share ``lines`` and the ``file``), or None
    when it was not written (not a finished cv group of a table) or cannot be read."""
    from explorer.core.studies.groups import group_dir

    try:
        summary = json.loads((group_dir(runs_dir, name) / ISSUES_SUMMARY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(summary, dict):
        return None
    weak = [n for n in summary.get("notes") or [] if isinstance(n, str) and "no better than always giving" in n]
    if weak and not summary.get("withheld"):   # written before such folds were withheld: their counts judge nothing
        from explorer.core.metrics.baselines import SUGGESTED_LEARNING_RATE

        summary["withheld"] = (weak[0].split(": the suspects are")[0] + ": "
                               + NOT_JUDGED.format(rate=SUGGESTED_LEARNING_RATE))
    if summary.get("withheld"):
        summary["lines"] = [summary["withheld"]]
    return summary
