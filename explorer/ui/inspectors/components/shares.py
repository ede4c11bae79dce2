"""What the Class shares dialog of a Predictions page shows (Qt-free; explorer.ui.inspectors.shares_dialog shows it).

The estimate is core/predict/shares.review_shares (naive, reviewed rows alone, prediction-powered); this model
turns it into table rows and a status line, draws the random review sample into the review, and says what is
missing (no sample yet, too few of its rows reviewed) in words instead of an error dialog.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.core.errors import UserError
from explorer.core.predict.review import PredictionTable, Review
from explorer.core.predict.shares import draw_review_sample, review_shares

COLUMNS = ("class", "naive (predicted labels)", "reviewed rows alone", "prediction-powered", "reviewed rows needed")


@dataclass(frozen=True, kw_only=True)
class SharesView:
    """The dialog's content: ``rows`` (one tuple of COLUMNS' texts per class), ``status`` (the line over the
    table: rows, reviewed, level; or what is missing), ``notes`` (where the gold labels came from)."""

    rows: list[tuple[str, ...]]
    status: str
    notes: list[str]


class SharesModel:
    """The class shares of one predicted file and its review."""

    def __init__(self, table: PredictionTable, review: Review):
        self.table, self.review = table, review

    def sample_size(self) -> int:
        """Rows drawn for review (0: none yet)."""
        return len(self.review.sample)

    def draw(self, size: int, seed: int) -> str:
        """Draw ``size`` rows at random into the review (saved); returns the status line."""
        try:
            rows = draw_review_sample(self.review, len(self.table), size, seed)
        except UserError as exc:
            return str(exc)
        return (f"{len(rows)} rows drawn at random (seed {seed}). Show them with the Predicted label filter "
                "\"random sample\" and label every one, in any order.")

    def view(self, width_points: float, level: float = 0.95) -> SharesView:
        """The table for a target half-width of ``width_points`` percentage points (±)."""
        try:
            report = review_shares(self.table, self.review, level=level, width=2 * width_points / 100)
        except UserError as exc:
            return SharesView(rows=[], status=str(exc), notes=[])
        rows = []
        for c in report.classes:
            need = c.rows_needed
            rows.append((c.label, c.naive.text(), c.gold.text(), c.corrected.text(),
                         "not with this file's rows" if need is None else f"{need} (reached)" if need <= report.n_reviewed
                         else str(need)))
        status = (f"{report.n_rows} rows, {report.n_reviewed} reviewed from the random sample; "
                  f"{round(100 * report.level)}% intervals. The naive share counts the model's labels as right; "
                  "the prediction-powered share corrects it with the reviewed rows.")
        return SharesView(rows=rows, status=status, notes=list(report.notes))
