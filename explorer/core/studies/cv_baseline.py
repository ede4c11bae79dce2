"""Cross-validation's bag-of-words baseline on the same folds (Qt-free, torch-free).

For a cross-validation group of a table, the TF-IDF baseline (core.studies.baseline) is fitted on each fold's
training file and scored on that fold's held-out rows, exactly the rows and splits of the fine-tuned members;
its out-of-fold outputs are put back in input order and compared with the members' pooled out-of-fold
predictions by the paired test Compare uses (core.studies.baseline.versus_model). Written to
``oof_baseline.json`` beside ``oof_metrics.json``; ``bert-explorer group --summary`` prints its lines.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

BASELINE_FILE = "oof_baseline.json"


def cv_baseline(runs_dir: str | Path, group, *, resamples: int = 10_000) -> dict | None:
    """The baseline against the pooled out-of-fold predictions of cv ``group``; None for SQuAD folds or before
    oof_predictions.csv exists. Writes and returns {"lines", "figures", "difference", "n"}."""
    from explorer.core.specs.tasks import best_metric_name, head_of_task
    from explorer.core.studies.baseline import baseline_outputs, load_rows, model_outputs, versus_model
    from explorer.core.studies.cv_runs import OOF_FILE, fold_files, read_folds
    from explorer.core.studies.groups import group_dir

    folder = group_dir(runs_dir, group.name)
    plan = read_folds(folder)
    if plan is None or plan.kind != "table" or not (folder / OOF_FILE).is_file():
        return None
    base = dict(group.base)
    head = head_of_task(str(base.get("task", "")))
    if head is None or not head.bag_of_words:
        return None
    names = list(plan.class_names)
    settings = {**base, "encoding": "", "label_names": names}
    from explorer.core.studies.curve_results import _pair

    pair = _pair(base)
    outputs = np.zeros((plan.n, len(names)))
    for fold in plan.folds():
        train_path, dev_path = fold_files(folder, fold.index, "table")
        train = load_rows(str(train_path), settings, regression=False, pair=pair, class_names=names)
        dev = load_rows(str(dev_path), settings, regression=False, pair=pair, class_names=names)
        outputs[fold.dev] = baseline_outputs(train, dev, head, num_classes=len(names), seed=plan.seed)
    with open(folder / OOF_FILE, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    model = model_outputs(rows, head, names)
    verdict = versus_model(np.asarray(plan.labels, dtype=np.int64), outputs, model, head, class_names=names,
                           f1_classes=base.get("f1_classes") or (), metric=best_metric_name(base),
                           resamples=resamples, name_model="fine-tuned (out-of-fold)",
                           source=f"{Path(str(group.cv.get('source') or base.get('train') or '')).name}, each row "
                                  "predicted by the fold that held it out")
    out = {"n": verdict.n, "lines": verdict.lines, "figures": verdict.figures, "difference": verdict.difference}
    (folder / BASELINE_FILE).write_text(json.dumps(out, indent=2), encoding="utf-8")
    return out


def read_cv_baseline(runs_dir: str | Path, name: str) -> dict | None:
    """oof_baseline.json of a cv group, or None."""
    from explorer.core.studies.groups import group_dir

    path = group_dir(runs_dir, name) / BASELINE_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, ValueError):
        return None
