"""``predict_file`` as one part of a larger job: its rows reported as rows of the whole, its batches polling the
whole job's cancel. Cross-validation's out-of-fold step predicts k folds, a learning curve each size's dev rows:
the Groups page shows one progress row for all of them (rows done of all rows, the time left, Cancel)."""

from __future__ import annotations

from typing import Callable


def watched(predict: Callable | None, progress: Callable[[int, int], None] | None,
            cancelled: Callable[[], bool] | None, *, before: int, size: int, total: int) -> Callable | None:
    """``predict`` (None: explorer.core.predict.engine.predict_file) reporting its file's rows as rows ``before``
    + done (at most ``size``) of ``total``, and polling ``cancelled`` after every batch (True raises Cancelled).
    Returns ``predict`` itself when there is nothing to watch (a caller's own predict need not take the two
    keywords then)."""
    if progress is None and cancelled is None:
        return predict
    if predict is None:
        from explorer.core.predict.engine import predict_file as predict

    def part_progress(done, _part_total) -> None:
        if progress is not None:
            progress(before + min(int(done or 0), size), total)

    def run(*args, **kwargs):
        return predict(*args, progress=part_progress, cancelled=cancelled, **kwargs)
    return run
