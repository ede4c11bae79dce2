"""Which figures are optimistic, and why: the one place that decides the marks (Qt- and torch-free).

A figure reads better than the model will do on new rows when it was computed

- on the training rows (the model saw them);
- on the rows that chose something about the model: a decision threshold (multi-label), SQuAD 2.0's τ, a
  temperature, or the checkpoint itself (``checkpoints/best`` picked by this dev metric);
- on fewer than :data:`MIN_CLASS_ROWS` examples of a class (a per-class figure from a handful of rows swings
  by tens of points from one row: the binomial standard error of a share p on n rows is sqrt(p (1 - p) / n),
  0.09 for p = 0.5 and n = 30);
- on dev rows that also occur in the training rows (exact duplicates after lower-casing and collapsing white
  space): the model is scored on rows it learnt.

:func:`figure_marks` turns those facts into :class:`OptimismMark` rows; every place a figure is shown (the CLI's
eval and group summaries, reports, the GUI's Runs and Classify views) asks it and prints each mark's
``text`` beside the figure. :func:`dev_overlap` finds the duplicates; a training run records them in a ``log``
event (:func:`dev_overlap_fields`) and :func:`dev_overlap_mark` reads that event back, for every place that shows
the run's dev figures (the Runs list, Curves, Classify: dev set, the replication capsule).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MIN_CLASS_ROWS = 30

TRAINING_ROWS = "training rows"
CHOSE_ON_THESE_ROWS = "chosen on these rows"
FEW_EXAMPLES = "few examples"
DEV_OVERLAP = "dev overlaps training"
REASONS = (TRAINING_ROWS, CHOSE_ON_THESE_ROWS, FEW_EXAMPLES, DEV_OVERLAP)
DEV_OVERLAP_TOPIC = "dev_overlap"   # the ``topic`` of the training run's log event that records the overlap
OVERLAP_MESSAGE_PREFIX = "dev figures "   # that event's message: "dev figures optimistic: 3 of 40 dev rows ..."


@dataclass(frozen=True, kw_only=True)
class OptimismMark:
    """One reason a figure is optimistic: ``reason`` (one of REASONS), ``text`` (a plain sentence for the
    place the figure is shown), ``subject`` (what it applies to: "" = every figure of the evaluation, else a
    class name or a metric name)."""

    reason: str
    text: str
    subject: str = ""

    def to_dict(self) -> dict:
        return {"reason": self.reason, "text": self.text, "subject": self.subject}


@dataclass(frozen=True, kw_only=True)
class DevOverlap:
    """Dev rows whose text also occurs in the training rows: ``shared`` of ``n_dev``; ``examples``: the first
    few shared texts (normalised)."""

    shared: int
    n_dev: int
    examples: tuple[str, ...] = ()

    @property
    def share(self) -> float:
        return self.shared / self.n_dev if self.n_dev else 0.0


def normalise(text: str) -> str:
    """Lower-cased, white space collapsed: how two rows are found to be the same text."""
    return re.sub(r"\s+", " ", str(text)).strip().lower()


def dev_overlap(train_texts, dev_texts, *, show: int = 3) -> DevOverlap:
    """The dev rows (texts, or tuples of a pair's texts) that also occur in the training rows."""
    def key(t):
        return tuple(normalise(x) for x in t) if isinstance(t, (tuple, list)) else normalise(t)

    seen = {key(t) for t in train_texts}
    dev = [key(t) for t in dev_texts]
    shared = [k for k in dev if k in seen]
    examples = tuple(" | ".join(s) if isinstance(s, tuple) else s for s in shared[:show])
    return DevOverlap(shared=len(shared), n_dev=len(dev), examples=examples)


def trained_on_file(run_config: dict, data: str) -> bool:
    """Whether scoring the file ``data`` scores rows the run trained on: it is the run's training file (a run
    that held some of its rows out as dev trained on the rest of them). ``run_config``: the run's config.json
    ({} for a checkpoint that is not a run of this app: False)."""
    return _same_file(str(run_config.get("train") or ""), data)


def evaluated_on_file(run_config: dict, data: str) -> bool:
    """Whether the file ``data`` is the dev file the run evaluated on (and chose its checkpoints/best on).
    ``run_config``: the run's config.json ({}: False)."""
    return _same_file(str(run_config.get("dev") or ""), data)


def _same_file(path: str, data: str) -> bool:
    from pathlib import Path

    if not path or not data:
        return False
    try:
        return Path(path).expanduser().resolve() == Path(data).expanduser().resolve()
    except OSError:
        return False


def figure_marks(*, on_training_rows: bool = False, chosen_on_rows: tuple[str, ...] = (),
                 class_support: dict | None = None, overlap: DevOverlap | None = None,
                 min_class_rows: int = MIN_CLASS_ROWS) -> list[OptimismMark]:
    """The marks of an evaluation's figures.

    Args:
        on_training_rows: the rows scored are (or include) the rows the model was trained on.
        chosen_on_rows: what was chosen on the scored rows ("the checkpoint (best by f_avg)", "τ",
            "the temperature", "the per-label thresholds").
        class_support: class name -> rows of that class among the scored rows (gold support).
        overlap: :func:`dev_overlap` of the training and the scored rows.
        min_class_rows: a class with fewer rows is marked.

    Returns the marks, evaluation-wide ones first, then one per thin class in the order given.
    """
    marks: list[OptimismMark] = []
    if on_training_rows:
        marks.append(OptimismMark(reason=TRAINING_ROWS, text="optimistic: computed on the rows the model was "
                                  "trained on, not on held-out rows"))
    for what in chosen_on_rows:
        marks.append(OptimismMark(reason=CHOSE_ON_THESE_ROWS, subject=what,
                                  text=f"optimistic: {what} was chosen on these same rows; new rows will score "
                                       "lower (hold out other rows, or cross-validate)"))
    if overlap is not None and overlap.shared:
        marks.append(OptimismMark(reason=DEV_OVERLAP, text=(
            f"optimistic: {overlap.shared:,} of {overlap.n_dev:,} dev rows ({100 * overlap.share:.1f}%) also occur in "
            "the training rows" + (f", e.g. {overlap.examples[0]!r}" if overlap.examples else ""))))
    for name, n in (class_support or {}).items():
        if n < min_class_rows:
            marks.append(OptimismMark(reason=FEW_EXAMPLES, subject=str(name), text=(
                f"optimistic or pessimistic by chance: class {name} has {n} dev row{'s' if n != 1 else ''} (fewer than {min_class_rows}); "
                "its figures can swing by many points on one row")))
    return marks


def dev_overlap_fields(overlap: DevOverlap) -> dict | None:
    """The fields of the training run's ``log`` warning that its dev rows repeat training rows: the message (as
    printed and logged) and the counts as data (``topic`` DEV_OVERLAP_TOPIC, ``overlap``, ``dev_rows``,
    ``examples``), which :func:`dev_overlap_mark` reads; None when no dev row repeats one."""
    marks = figure_marks(overlap=overlap)
    if not marks:
        return None
    return {"level": "warning", "message": OVERLAP_MESSAGE_PREFIX + marks[0].text, "topic": DEV_OVERLAP_TOPIC,
            "overlap": overlap.shared, "dev_rows": overlap.n_dev, "examples": list(overlap.examples)}


def dev_overlap_mark(events, *, example: bool = True) -> OptimismMark | None:
    """The mark of a run's dev figures when its dev rows repeat training rows, read from the run's ``events``
    (the last such warning: a resumed run read its data again); None when the run found none.

    The counts come from the event's fields; a run written before they were recorded has only the message, whose
    text is the mark's. ``example``: the mark ends with one shared text (", e.g. 'the cat'"), as logged; False
    leaves it out for a line beside a figure (a tweet would make it a paragraph)."""
    found = None
    for e in events:
        if e.get("event") == "log" and (e.get("topic") == DEV_OVERLAP_TOPIC or str(e.get("message", "")).startswith(
                OVERLAP_MESSAGE_PREFIX + "optimistic")):
            found = e
    if found is None:
        return None
    try:
        overlap = DevOverlap(shared=int(found["overlap"]), n_dev=int(found["dev_rows"]),
                             examples=tuple(str(x) for x in found.get("examples") or ()) if example else ())
    except (KeyError, TypeError, ValueError):   # a run written before the counts were fields: its message
        text = str(found.get("message", ""))[len(OVERLAP_MESSAGE_PREFIX):]
        counts = re.match(r"optimistic: ([\d,]+) of ([\d,]+) dev rows", text)
        if example or counts is None:
            return OptimismMark(reason=DEV_OVERLAP, text=text)
        overlap = DevOverlap(shared=int(counts[1].replace(",", "")), n_dev=int(counts[2].replace(",", "")))
    marks = figure_marks(overlap=overlap)
    return marks[0] if marks else None


def chosen_checkpoint_mark(name: str, *, metric: str, evaluations: int, shared: int, n_rows: int) -> OptimismMark:
    """The mark of a figure of ``name``'s ``checkpoints/best`` scored on rows it was chosen on: the best ``metric``
    of ``evaluations`` dev evaluations of its run, ``shared`` of the ``n_rows`` scored rows among that run's dev
    rows (all of them: "these same rows"). The more evaluations, the larger the favour: the best of many noisy
    evaluations is the one whose rows happened to suit it. ``figure_marks``' rule, with the count said."""
    from explorer.core.specs.metrics import metric_spec

    label = metric_spec(metric).label if metric else "dev figure"
    some = f"; {shared:,} of these {n_rows:,} rows are among those it was chosen on" if shared < n_rows else ""
    what = f"{name}'s checkpoint (checkpoints/best: picked by {label} among {evaluations:,} evaluations{some})"
    return figure_marks(chosen_on_rows=(what,))[0]


def chosen_checkpoint_notes(named) -> list[str]:
    """The marks of a comparison (two classifiers in the GUI, two SQuAD checkpoints in ``compare``) whose
    checkpoints were chosen on the rows it judges on, one line per such model,
    then which figures are not chosen on them. ``named``: (name, choice, overlap) for model A and model B, choice
    a core.runs.choice.CheckpointChoice (None: not a run of this app), overlap a core.metrics.optimism.DevOverlap
    of that run's own dev rows against the judged rows (None: not known). A checkpoint picked as the best of
    many evaluations on these rows reads better here than on new rows, so a comparison favours the model chosen
    among more evaluations. [] when neither was chosen on them."""
    chosen = [(name, c, o) for name, c, o in named if c is not None and c.chosen and o is not None and o.shared]
    if not chosen:
        return []
    lines = [chosen_checkpoint_mark(name, metric=c.metric, evaluations=c.evaluations, shared=o.shared,
                                    n_rows=o.n_dev).text for name, c, o in chosen]
    among = sorted(chosen, key=lambda t: -t[1].evaluations)
    favoured = (f"; {among[0][0]} was chosen among the most evaluations ({among[0][1].evaluations:,} against "
                f"{among[1][1].evaluations:,}), so the comparison favours it" if len(among) == 2
                and among[0][1].evaluations > among[1][1].evaluations else
                f", so the comparison favours {among[0][0]}" if len(among) == 1 else "")
    lines.append(f"Not chosen on these rows: each run's last checkpoint (checkpoints/last), or a dev file neither "
                 f"run evaluated on{favoured}.")
    return lines


def mark_lines(marks: list[OptimismMark], indent: str = "  ") -> list[str]:
    """One printed line per mark ("  ! optimistic: ...")."""
    return [f"{indent}! {m.text}" for m in marks]
