"""What the Runs list says about a run's bag-of-words baseline (Qt-free): the saved comparison of the fine-tune
with a TF-IDF + linear baseline on the run's own dev rows (core/studies/run_baseline.py, written by
`bert-explorer baseline` or the list's "Compute bag-of-words baseline"), as the "vs BoW" cell's text, sort key and
the tooltip lines. Files are read once per change (their modification time), not on every paint."""

from __future__ import annotations

from pathlib import Path

__all__ = ["BaselineCells", "difference_text", "verdict_lines"]


def difference_text(difference: dict, task: str = "") -> str:
    """'+3.1 better', '-31.1 worse' or '+0.4 tie': the judged metric's fine-tuned - baseline on the display scale
    (points of a share), and whether its 95% interval lies above 0, below it, or spans it."""
    from explorer.core.specs.metrics import metric_spec

    spec = metric_spec(str(difference.get("metric", "")))
    scale = spec.scale if spec.is_percent else 1.0
    d, lo, hi = (scale * float(difference[k]) for k in ("difference", "low", "high"))
    verdict = "better" if lo > 0 else "worse" if hi < 0 else "tie"
    digits = 1 if scale != 1.0 else 3
    return f"{d:+.{digits}f} {verdict}"


def verdict_lines(data: dict, name: str, task: str = "") -> list[str]:
    """What the Runs list says when a comparison was just written (``data``: RunBaselineReport.saved): a headline
    naming the run and its rows, the paired test's sentences ("accuracy (secondary): bag-of-words is better by 5.6 accuracy
    points, 95% interval 1.9 to 9.4; McNemar p = 0.005") and each model's figures on the display scale."""
    from explorer.core.specs.metric_display import format_metric

    cell = f" ({difference_text(data['difference'], task)})" if data.get("difference") else ""
    out = [f"{name}{cell} against a TF-IDF + linear baseline fitted on its {data.get('n_train')} training rows, both "
           f"scored on its {data.get('n_dev')} dev rows:", *[str(line) for line in data.get("lines", [])]]
    figures = data.get("figures") or {}
    for key, who in (("model", f"fine-tuned (checkpoints/{data.get('checkpoint', 'last')})"),
                     ("baseline", "bag-of-words")):
        values = figures.get(key) or {}
        if values:
            out.append(f"{who}: " + ", ".join(format_metric(m, float(v), task) for m, v in values.items()))
    return out


class BaselineCells:
    """The saved bag-of-words comparison of each run (``read(path)``: core.studies.run_baseline.read_run_baseline by
    default), cached per run folder and its file's modification time."""

    def __init__(self, read=None):
        if read is None:
            from explorer.core.studies.run_baseline import read_run_baseline as read
        self._read = read
        self._cache: dict[str, tuple[int, dict | None]] = {}

    def saved(self, state) -> dict | None:
        """The run's saved comparison (RunBaselineReport.saved), None when none was computed."""
        from explorer.core.runs.layout import bag_of_words_file

        if state.path is None:
            return None
        try:
            stamp = bag_of_words_file(state.path).stat().st_mtime_ns
        except OSError:
            self._cache.pop(str(state.path), None)
            return None
        hit = self._cache.get(str(state.path))
        if hit is None or hit[0] != stamp:
            hit = self._cache[str(state.path)] = (stamp, self._read(Path(state.path)))
        return hit[1]

    def text(self, state) -> str:
        """The "vs BoW" cell: '+3.1 better' ('' when no baseline was computed)."""
        data = self.saved(state)
        return difference_text(data["difference"], state.task) if data and data.get("difference") else ""

    def sort_key(self, state) -> float:
        """The difference (runs without one last when sorted down)."""
        data = self.saved(state)
        return float(data["difference"]["difference"]) if data and data.get("difference") else float("-inf")

    def tooltip_lines(self, state) -> list[str]:
        """The comparison in words ('bag-of-words baseline (…, checkpoints/last on its 562 dev rows):' then its
        lines), else a line saying how to compute one (none for a task without a baseline)."""
        from explorer.core.studies.run_baseline import baseline_problem

        data = self.saved(state)
        if not data:   # a hint only where one can be computed (a table's classification or regression run)
            return [] if baseline_problem(state.task) else [
                "bag-of-words baseline: none computed (right-click: Compute bag-of-words baseline)"]
        head = (f"bag-of-words baseline (TF-IDF + linear, fitted on its {data.get('n_train')} training rows; "
                f"checkpoints/{data.get('checkpoint')} on its {data.get('n_dev')} dev rows):")
        return [head, *[f"  {line}" for line in data.get("lines", [])]]
