"""A classifier's predictions file written from logits already computed, in predict's format, without a model.

A run's final evaluation has scored every row of its dev file (``<run>/dev_outputs.json``: each row's logits and
its line in the file, core/runs/dev_outputs.py). :func:`write_from_logits` turns those logits into the file
``predict_file`` would write for the same model and file: the input columns, then ``predicted_label``,
``p_<label>`` per class (softmax), ``margin`` and ``error``, one row per input row in input order. The cells come
from core.predict.engine.softmax_rows, the function ``predict_file`` computes them with, so equal logits give an equal file.
A cross-validation's pooled out-of-fold figure is made this way from each fold's final evaluation
(core/studies/cv_runs.py) instead of a second pass over every held-out row. Qt-free, torch-free.
"""

from __future__ import annotations

import os
from pathlib import Path

from explorer.core.predict.engine import _row_texts, resolve_text_columns, softmax_rows
from explorer.core.predict.facts import CheckpointFacts
from explorer.core.predict.reading import iter_rows, reads_without_header
from explorer.core.predict.writing import write_table


def write_from_logits(data: str | Path, out: str | Path, *, lines: list[int], logits: list, label_names: list[str],
                      task: str, run_config: dict, encoding: str = "auto") -> bool:
    """Write ``out`` (.csv, .tsv, .jsonl) as ``predict_file(checkpoint, data, out, calibration=False)`` would for
    the single-label classifier whose outputs on ``data``'s rows are ``logits`` (row ``lines[i]`` of the file:
    1-based, its first line for a multi-line record; any order). ``run_config``: the run's config (how it read its
    files: the header rule). Returns False, writing nothing, when the rows do not fit: a row of the file without
    logits, logits of a line that is no row, or a row whose texts predict could not use."""
    from explorer.core.specs.heads import SINGLE_LABEL
    from explorer.core.specs.tasks import head_of_task

    head = head_of_task(task)
    if head is None or head.prediction != SINGLE_LABEL.prediction:   # a single-label classifier's softmax only
        return False
    if len(lines) != len(logits) or len(set(lines)) != len(lines):
        return False
    path = Path(data)
    info, rows = iter_rows(path, encoding, no_header=reads_without_header(run_config, None, path, encoding))
    rows = list(rows)
    if sorted(r.line for r in rows) != sorted(lines):
        return False
    facts = CheckpointFacts(source=str(data), spec=head, label_names=list(label_names), run_config=dict(run_config))
    cols = resolve_text_columns(info, facts, None)
    if any(_row_texts(r, cols, head)[0] is None for r in rows):
        return False
    cells = softmax_rows(logits, list(label_names))
    of_line = dict(zip(lines, cells))
    pred_cols = head.prediction.output_columns(label_names)
    columns = list(dict.fromkeys([c for c in info.columns if c not in pred_cols] + pred_cols))
    out_rows = []
    for r in rows:
        row = {c: r.values.get(c, "") for c in info.columns}
        row.update({c: None for c in pred_cols})
        row.update(of_line[r.line])
        row["error"] = ""
        out_rows.append(row)
    out = Path(out)
    tmp = out.with_name(f"{out.stem}.{os.getpid()}.tmp{out.suffix}")   # another process may write it too
    write_table(tmp, columns, out_rows)
    os.replace(tmp, out)
    return True
