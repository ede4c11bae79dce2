"""How a run's checkpoint was picked (Qt- and torch-free): ``checkpoints/best`` is the best of the run's dev
evaluations by its selection metric (core/specs/best's rule), ``checkpoints/last`` is the last step, chosen on
nothing. A figure of ``best`` on the rows it was chosen on reads better than the model will do on new rows, and
the more evaluations it was chosen among, the more (core.metrics.optimism says so beside the figure).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from explorer.core.runs.layout import config_file, run_dir_of


@dataclass(frozen=True, kw_only=True)
class CheckpointChoice:
    """Which checkpoint of a run a folder is, and what it was chosen among.

    Attributes:
        kind: "best" or "last" (a ``.old`` copy counts as its kind).
        metric: the selection metric of the run (its metric_for_best, else the task's); "" for ``last``.
        evaluations: the dev evaluations ``best`` was chosen among (step 0, the untrained model, never is one;
            nor an evaluation without a finite value of the metric); 0 for ``last``.
        step: the step of the chosen evaluation (None: none qualified, or ``last``).
    """

    kind: str
    metric: str = ""
    evaluations: int = 0
    step: int | None = None

    @property
    def chosen(self) -> bool:
        """Whether the checkpoint was picked among two or more evaluations on its run's dev rows."""
        return self.kind == "best" and self.evaluations >= 2


def checkpoint_choice(source: str | Path) -> CheckpointChoice | None:
    """The :class:`CheckpointChoice` of a checkpoint folder ``<run>/checkpoints/<kind>`` of a run of this app,
    from the run's config.json and events.jsonl (core.runs.reading); None for any other folder (a hub model,
    another tool's checkpoint, a folder saved elsewhere)."""
    from explorer.core.runs.reading import load_run
    from explorer.core.specs.best import best_of_events

    path = Path(str(source).rstrip("/"))
    run_dir = run_dir_of(path)
    if run_dir is None or run_dir == path or not config_file(run_dir).is_file():
        return None
    kind = path.name.removesuffix(".old")
    if kind != "best":
        return CheckpointChoice(kind=kind)
    try:
        record = load_run(run_dir)
    except (OSError, ValueError):
        return None
    metric = record.summary.metric_name if record.summary else ""
    values = [(e.get("metrics") or {}).get(metric) for e in record.evals() if (e.get("step") or 0) > 0]
    n = sum(1 for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v))
    best = best_of_events(record.events, metric)
    return CheckpointChoice(kind=kind, metric=metric, evaluations=n, step=best[0] if best else None)
