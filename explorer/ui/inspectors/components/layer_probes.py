"""What the Layer probes page asks for and shows, without Qt: the request from the form (checked first), the two
curves in percent with their interval bands, the per-layer table's rows and the summary line.
explorer.ui.inspectors.layer_probes_view draws them; the numbers come from explorer.core.probing (in the
inspector child).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

CURVE_COLOURS = {"base model": "#7f7f7f", "fine-tuned": "#1f55c0"}
MAJORITY_COLOUR = "#b03030"
TABLE_HEADERS = ("layer",)   # then one column per curve, then "change"
DATA_HINT = {"tokens": "a CoNLL or JSONL tagging file (e.g. conll2003/dev.txt)",
             "sentences": "the run's dev file when empty (or a file of the run's task)"}


def offered_labels(offered) -> tuple[str, str]:
    """(label, data) for the form from an offered checkpoint (components.offered_checkpoint.OfferedCheckpoint): a
    tagger's checkpoint probes its entity tags on its run's dev file (explorer.core.models.checkpoint_windows
    .run_dev_file, "" when the run has none); any other head the run's own classes, read from the run's dev file
    when the data field stays empty."""
    from explorer.core.models.checkpoint_windows import run_dev_file
    from explorer.core.specs.heads import Inputs, for_model_head

    head = for_model_head(offered.head)
    if head is None or head.inputs is not Inputs.WORDS:
        return "sentences", ""
    dev = run_dev_file(offered.path)
    return "tokens", (dev.shown if dev is not None else "")


class FormError(ValueError):
    """The form cannot make a request: no checkpoint, no tagging file for the token label."""


def request_from(form: dict) -> dict:
    """The inspector child's ``layer_probes`` request from the form's values (model, base, labels, data, cap,
    seeds, pooling, max_seq_length). Raises FormError saying what is missing."""
    model = str(form.get("model", "")).strip()
    if not model:
        raise FormError("choose the fine-tuned checkpoint (a run's checkpoints/best)")
    labels = form.get("labels", "sentences")
    data = str(form.get("data", "")).strip()
    if labels == "tokens" and not data:
        raise FormError("the token label needs " + DATA_HINT["tokens"])
    return {"model": model, "base": str(form.get("base", "")).strip(), "labels": labels, "data": data,
            "cap": int(form.get("cap", 0)), "seeds": int(form.get("seeds", 3)),
            "pooling": form.get("pooling", "mean"), "max_seq_length": int(form.get("max_seq_length", 128))}


@dataclass(frozen=True)
class CurveSeries:
    """One curve as drawn: its name and colour, layers (x), mean, low and high accuracy in percent (low / high
    None without an interval: one seed)."""

    name: str
    colour: str
    layers: list[int]
    mean: list[float]
    low: list[float] | None
    high: list[float] | None


def curve_series(study) -> list[CurveSeries]:
    """The study's curves in percent, with their bands where the seeds give an interval."""
    out = []
    for c in study.curves:
        banded = all(math.isfinite(v) for v in list(c.low) + list(c.high))
        out.append(CurveSeries(name=c.name, colour=CURVE_COLOURS.get(c.name, "#2ca02c"), layers=list(c.layers),
                               mean=[100 * v for v in c.mean], low=[100 * v for v in c.low] if banded else None,
                               high=[100 * v for v in c.high] if banded else None))
    return out


def table_rows(study) -> tuple[list[str], list[list[str]]]:
    """(headers, rows) of the per-layer table: layer ("emb" for 0), each curve's "mean ± half interval" in
    percent, and the change (last curve - first) in points when there are two."""
    headers = ["layer"] + [c.name for c in study.curves] + (["change"] if len(study.curves) > 1 else [])
    change = study.change()
    rows = []
    for k, layer in enumerate(study.curves[0].layers):
        cells = ["emb" if layer == 0 else str(layer)]
        for c in study.curves:
            half = (c.high[k] - c.low[k]) / 2
            cells.append(f"{100 * c.mean[k]:.1f} ± {100 * half:.1f}" if math.isfinite(half)
                         else f"{100 * c.mean[k]:.1f}")
        if change:
            cells.append(f"{100 * change[k]:+.1f}")
        rows.append(cells)
    return headers, rows


def summary_line(study) -> str:
    """"entity tag of each word: 812 rows from 40 sentences; 3 splits, 30 % held out; majority class 83.1 %;
    best layer base 4 (92.3 %), fine-tuned 3 (91.0 %)"."""
    best = ", ".join(f"{c.name} {c.best_layer()} ({100 * max(c.mean):.1f} %)" for c in study.curves)
    notes = f"; {'; '.join(study.notes)}" if study.notes else ""
    return (f"{study.what}: {study.n_rows} rows from {study.n_sentences} sentences; {len(study.seeds)} splits, "
            f"{100 * study.test_fraction:.0f} % held out; majority class {100 * study.majority:.1f} %; best layer "
            f"{best}{notes}")
