"""The class shares of a reviewed predictions file: which rows give gold labels, and the estimate (Qt-free).

The gold labels of prediction-powered shares (core/metrics/ppi.py) must come from a uniform random sample of
the rows. Two sources: the review's ``sample`` (rows drawn by :func:`draw_review_sample`, labelled on the
Predictions page; a drawn row counts once a person set its label or marked it reviewed), or a gold column of
the file whose non-empty cells the user vouches are a random sample. ``bert-explorer shares`` and the
Predictions page both ask :func:`review_shares`.
"""

from __future__ import annotations

from explorer.core.errors import UserError
from explorer.core.metrics.ppi import SharesReport, class_shares, draw_sample
from explorer.core.predict.review import GOLD_NAMES, PredictionTable, Review, gold_as_names, reviewed_labels

PREDICTION_COLUMNS = ("predicted_label", "margin", "error")


def class_names(table: PredictionTable) -> list[str]:
    """The classes of a predictions file: its p_<class> columns in order, else the predicted labels seen."""
    names = [c[2:] for c in table.columns if c.startswith("p_")]
    return names or sorted(set(table.column("predicted_label")) - {""})


def review_of(path: str, table: PredictionTable) -> Review:
    """The saved review of a predictions file, or a new one (single-label classification) when none."""
    review = Review.load(path)
    if review is None:
        inputs = [c for c in table.columns if not c.startswith("p_") and c not in PREDICTION_COLUMNS]
        review = Review(str(path), kind="classification", label_names=class_names(table), input_columns=inputs,
                        gold_column=next((c for c in GOLD_NAMES if c in inputs), ""))
    return review


def draw_review_sample(review: Review, n_rows: int, size: int, seed: int = 0) -> list[int]:
    """Draw ``size`` rows of ``n_rows`` at random with ``seed`` into ``review.sample`` and save the review;
    returns the rows (0-based). Raises core.metrics.ppi.SharesError for a size outside 1..n_rows."""
    review.sample = draw_sample(n_rows, size, seed)
    review.save()
    return review.sample


def sample_gold(table: PredictionTable, review: Review, gold_column: str = "") -> tuple[list[str], list[str]]:
    """(gold label per row, "" outside the random sample; notes saying where the gold labels came from).

    Raises UserError: a gold column the file lacks; no gold column and no drawn sample."""
    names = class_names(table)
    if gold_column:
        if gold_column not in table.columns:
            raise UserError(f"{table.path}: no column {gold_column!r} (columns: {', '.join(table.columns[:12])})")
        return gold_as_names(table.column(gold_column), names), [
            f"gold labels: the non-empty cells of {gold_column}, taken as a uniform random sample of the rows"]
    if not review.sample:
        raise UserError(f"{table.path}: no random sample to review yet: draw one (shares --draw N, or Draw sample "
                        "on the Predictions page) and label those rows, or give a gold column")
    labelled = reviewed_labels(table, review)
    gold = [""] * len(table)
    done = [i for i in review.sample if i in labelled]
    for i in done:
        gold[i] = labelled[i][0]
    notes = [f"gold labels: {len(done)} of the {len(review.sample)} rows drawn at random (seeded) are reviewed"]
    if len(done) < len(review.sample):
        notes.append("review every drawn row, in any order, before reporting: rows skipped because they were "
                     "hard would make the sample no longer random")
    return gold, notes


def review_shares(table: PredictionTable, review: Review, *, gold_column: str = "", level: float = 0.95,
                  width: float = 0.05) -> SharesReport:
    """Naive, reviewed-rows-alone and prediction-powered shares of every class of a predictions file (see
    core/metrics/ppi.class_shares), with notes on the gold labels' source. Raises UserError (no predicted_label
    column, no sample, too few reviewed rows, a gold label that is no class)."""
    if "predicted_label" not in table.columns:
        raise UserError(f"{table.path}: no predicted_label column (a file written by bert-explorer predict)")
    gold, notes = sample_gold(table, review, gold_column)
    report = class_shares(table.column("predicted_label"), gold, class_names(table), level=level, width=width)
    report.notes = notes + report.notes
    return report
