"""A run's last dev evaluation row by row (``<run>/dev_outputs.json``; Qt-free, torch-free).

A figure such as macro F1 or Matthews' correlation has no closed-form interval; its bootstrap interval
resamples the dev rows, so it needs each row's gold label and the model's output, not only the figure. The
classification and regression tasks write them at every evaluation (the file is replaced atomically, so it
always holds the last one: the final evaluation on the whole dev set once the run has finished)::

    {"kind": "classes", "label_names": ["AGAINST", "FAVOR", "NONE"], "gold": [0, 2, ...],
     "logits": [[1.2, -0.3, 0.1], ...], "lines": [7, 2, ...]}
    {"kind": "scores", "gold": [3.8, 1.2, ...], "scores": [3.5, 1.9, ...], "lines": [...]}

The rows are in the order the run evaluates them (its dev sample's order: the stratified order of
core/data/sample.py), not the file's; ``lines`` gives each row's line in the dev file (1-based, the header is
line 1, a multi-line record's first line; absent from files written before it was kept), so a row can be found
in its file again.

Readers: core/studies/capsule_intervals.py (the capsule's intervals), core/studies/cv_runs.py (a cross-validation
fold's held-out rows: the pooled out-of-fold figure without predicting them again).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.runs.layout import dev_outputs_file


@dataclass(kw_only=True)
class DevOutputs:
    """One evaluation's rows. kind "classes": ``gold`` (n,) class ids, ``logits`` (n, K), ``label_names`` (K,);
    kind "scores": ``gold`` (n,) gold scores, ``scores`` (n,) predictions. ``lines``: (n,) each row's line in the
    dev file, or [] when unknown."""

    kind: str
    gold: list
    logits: list = field(default_factory=list)
    scores: list = field(default_factory=list)
    label_names: list = field(default_factory=list)
    lines: list = field(default_factory=list)

    @property
    def n(self) -> int:
        """Rows."""
        return len(self.gold)

    def to_dict(self) -> dict:
        out = {"kind": self.kind, "gold": self.gold}
        if self.kind == "classes":
            out.update(label_names=self.label_names, logits=self.logits)
        else:
            out["scores"] = self.scores
        if self.lines:
            out["lines"] = self.lines
        return out


def write_dev_outputs(run_dir: str | Path, outputs: DevOutputs) -> Path:
    """Replace ``<run_dir>/dev_outputs.json`` with ``outputs`` (a temporary file renamed over it, so a reader
    never sees half a file). Raises OSError (disk full, no permission)."""
    path = dev_outputs_file(run_dir)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(outputs.to_dict(), separators=(",", ":")), encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_dev_outputs(run_dir: str | Path) -> DevOutputs | None:
    """The run's last evaluation row by row, or None when the run has no (readable) dev_outputs.json: a run
    of another task, or one trained before the file was written."""
    path = dev_outputs_file(run_dir)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("kind") not in ("classes", "scores"):
        return None
    return DevOutputs(kind=doc["kind"], gold=list(doc.get("gold") or []), logits=list(doc.get("logits") or []),
                      scores=list(doc.get("scores") or []), label_names=[str(n) for n in doc.get("label_names") or []],
                      lines=list(doc.get("lines") or []))
