"""Whether a group's members learned anything: their one-class notes said once for the whole group (Qt-free).

A group's headline is the mean ± sd of its members' best dev figures (core.studies.group_stats.best_headline). When
every member predicts only the majority class, each scores the majority rate: the mean is that rate and the ± 0.0
reads as a very stable result while no model learned anything. Each member run has its own note
(core.metrics.baselines.run_one_class_note, from the per-class "predicted" counts of its last evaluation);
:func:`group_class_note` makes the group's sentence from them, for every group kind: the Groups page's summary, its
report, ``bert-explorer group --summary`` and the Runs list's group row all show the same words.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.core.metrics.baselines import AT_MAJORITY, MEAN_SCORE, MISSED_CLASSES, ONE_CLASS, advice_note

LEARNED_NOTHING = "learned nothing"          # every member with a figure predicts one class (or the mean score)
SOME_LEARNED_NOTHING = "some learned nothing"   # some members do, the others learned
CLASSES_MISSED = MISSED_CLASSES              # members never predict some classes; none is stuck on one

MEMBER_NOUNS = {"restarts": "seed", "cv": "fold", "curve": "size"}   # what one member of a group kind is
_STUCK = (ONE_CLASS, MEAN_SCORE, AT_MAJORITY)   # kinds of a member that learned nothing


def run_class_note(record):
    """The core.metrics.baselines.ClassNote a member run gets, by the Runs list's rule (``record``: a
    core.runs.reading.RunRecord; its step events may be only the last): run_one_class_note of its evaluations
    (after step 0 the last one's predicted classes), which, while the run trains, waits until the note persists.
    NO_NOTE without evaluations."""
    from explorer.core.metrics.baselines import NO_NOTE, run_one_class_note
    from explorer.core.protocol.events import run_evaluations
    from explorer.core.runs.status import IN_PROGRESS, LIVE

    evals = run_evaluations(record.events)
    if not evals:
        return NO_NOTE
    summary = record.summary
    try:
        rate = float((record.config or {}).get("learning_rate"))
    except (TypeError, ValueError):
        rate = None
    return run_one_class_note(summary.task if summary else "", evals, rate, step=summary.steps if summary else 0,
                              steps_total=summary.steps_total if summary else 0,
                              live=record.status in LIVE or record.status == IN_PROGRESS)


@dataclass(frozen=True)
class GroupClassNote:
    """What a group's members predict, said once: ``kind`` (:data:`LEARNED_NOTHING`, :data:`SOME_LEARNED_NOTHING`,
    :data:`CLASSES_MISSED`; "" for none), ``text`` (the sentence with what to try), ``noted`` of ``members`` (the
    members with a note of the members with a figure). False when there is none."""

    kind: str = ""
    text: str = ""
    noted: int = 0
    members: int = 0

    def __bool__(self) -> bool:
        return bool(self.text)

    def mark(self) -> str:
        """The short mark after a group row's figure, one sign so the figure and it fit whole in a narrow list:
        " !" where every member or some predict one class, or never predict some classes (the row's tooltip holds
        the sentence, :attr:`text`); "" for none."""
        return " !" if self.kind else ""


NO_GROUP_NOTE = GroupClassNote()


def _plural(what: str) -> str:
    """A member's words for several members: "predicts only '3'" -> "predict only '3'"."""
    return what.replace("predicts", "predict", 1)


def member_name(group_kind: str, params: dict) -> str:
    """How a person names one member of a group: "fold 1", "seed 43" (the member's own parameter of its group
    kind's noun); "" where it has none."""
    word = MEMBER_NOUNS.get(group_kind, "")
    value = (params or {}).get(word) if word else None
    return f"{word} {value}" if value not in (None, "") else ""


def group_class_note(notes: list, group_kind: str = "", *, spread: float | None = None,
                     learning_rate: float | None = None, names: list | None = None, **kw) -> GroupClassNote:
    """The group's sentence over ``notes``: one core.metrics.baselines.ClassNote (or none: a false one) per member
    that has ended with a dev figure. "both seeds predict only '3' for every dev row (the models learned nothing,
    so the ± 0.0 is no stability): try …" when every such member is stuck on one class (``spread``: the sd of the
    headline, on its display scale), "1 of 3 seeds predicts only '3' for every dev row (it learned nothing, and
    the mean ± sd mixes it with the others): try …" when some are; members that never predict some classes are
    counted alike. The advice is core.metrics.baselines.advice_note's (``learning_rate``: the members' rate where
    they share one; ``kw``: its steps, budget_seconds). ``names``: each member's name (:func:`member_name`, in
    ``notes``' order), which says a lone member by name ("fold 1 scores 34.11% accuracy, the majority class 33.70%:
    no better than always answering 'joy' …"). :data:`NO_GROUP_NOTE` when no member has a note."""
    n = len(notes)
    noted = [x for x in notes if x]
    if not noted:
        return NO_GROUP_NOTE
    word = MEMBER_NOUNS.get(group_kind, "run")
    counts: dict[str, int] = {}
    first: dict[str, int] = {}
    for i, x in enumerate(notes):
        if not x:
            continue
        what = x.what or str(x)
        counts[what] = counts.get(what, 0) + 1
        first.setdefault(what, i)

    def subject(k: int, what: str) -> str:
        if k == n:
            return f"the one {word}" if n == 1 else f"both {word}s" if n == 2 else f"all {n} {word}s"
        named = names[first[what]] if k == 1 and names and first[what] < len(names) else ""
        return named or f"{k} of {n} {word}s"

    parts = [f"{subject(k, what)} {_plural(what) if k != 1 else what}" for what, k in counts.items()]
    stuck = sum(x.kind in _STUCK for x in noted)
    if stuck == n:
        kind = LEARNED_NOTHING
        clause = "the model learned nothing" if n == 1 else "the models learned nothing"
        if n >= 2 and spread is not None and abs(spread) < 0.05:
            clause += ", so the ± 0.0 is no stability"
        elif n >= 2:
            clause += ", so their mean ± sd is no result"
    elif stuck:
        kind = SOME_LEARNED_NOTHING
        one = stuck == 1
        clause = (f"{'it' if one else 'they'} learned nothing, and the mean ± sd mixes {'it' if one else 'them'} "
                  "with the others")
    else:
        kind, clause = CLASSES_MISSED, ""
    core = "; ".join(parts) + (f" ({clause})" if clause else "")
    return GroupClassNote(kind, advice_note(core, learning_rate, **kw), stuck if stuck else len(noted), n)


def shared_learning_rate(group) -> float | None:
    """The learning rate every member of ``group`` (core.studies.groups.Group) trains with, or None where a grid
    varies it or the base names none: the advice then names no rate of its own."""
    if "learning_rate" in (group.varied or []):
        return None
    try:
        rate = float(group.base.get("learning_rate"))
    except (TypeError, ValueError):
        return None
    return rate if rate > 0 else None


def members_class_note(group, members: list, spread: float | None = None) -> GroupClassNote:
    """:func:`group_class_note` of ``members`` ([core.studies.group_stats.MemberData]) of ``group``: the members that
    have ended with a best dev figure, each by its ``class_note``."""
    import math

    ended = [m for m in members if not m.ongoing and not math.isnan(m.best)]
    return group_class_note([m.class_note for m in ended], group.kind, spread=spread,
                            learning_rate=shared_learning_rate(group),
                            names=[member_name(group.kind, m.params) for m in ended])
