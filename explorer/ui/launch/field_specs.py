"""The launcher's fields as the form uses them, read from TrainConfig's Settings (no Qt).

Each TrainConfig field describes itself once (``explorer.core.specs.train_config.Setting``: help, label,
group, editor kind, bounds); :data:`FIELDS` are the fields with a launcher label, as :class:`FieldSpec`
views, in form order. :func:`applies` says whether a field is a setting of a task. The editors for these
fields are in explorer.ui.launch.form_fields; the form's rules in explorer.ui.launch.form_model.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.core.specs.tasks import find_task_facts, is_qa_task
from explorer.core.specs.train_config import GROUPS, TrainConfig, field_help, settings

__all__ = ["FIELDS", "FLOAT_MAX", "GROUPS", "INT_MAX", "FieldSpec", "applies", "field_spec", "field_tooltip",
           "restricted"]

INT_MAX, FLOAT_MAX = 2**31 - 1, 1e9   # the spin boxes' top when a setting has no upper bound


@dataclass(frozen=True)
class FieldSpec:
    """A launcher field: a TrainConfig field's Setting as the form uses it (names as in ``Setting``).

    ``lo`` / ``hi`` are the editor's range: the setting's bounds, an open bound moved in by one step of
    the last decimal; ``optional``: the field's default is None (0 in a spin box means "the task's
    default"); ``qa_only``: greyed out for the other tasks; ``data_kinds``: the data kinds (TaskFacts.data_kind)
    of the tasks that use it, greyed out for the others (empty: every non-QA task, or as ``qa_only`` says)."""

    name: str
    label: str
    group: str
    kind: str            # text | model | task | data | int | float | lr | choice | bool | folder | columns |
                         # colpick (a column of the data, editable drop-down) | colpicks (1-2 of them) | weights |
                         # metric (a dev metric of the task, or automatic)
    lo: float = 0
    hi: float = FLOAT_MAX
    step: float = 1
    decimals: int = 3
    special: str = ""
    qa_only: bool = False
    data_kinds: tuple[str, ...] = ()
    optional: bool = False
    tasks: tuple[str, ...] = ()   # enabled only for these tasks (empty = as qa_only / data_kinds say)
    none_value: float | None = None   # what a spin box shows for None (the value None stands for)


def field_spec(name: str) -> FieldSpec:
    """The FieldSpec of TrainConfig field ``name`` (KeyError for an unknown name)."""
    rule = settings()[name]
    tick = 10.0 ** -rule.decimals if rule.kind == "float" else 1
    lo = 0.0 if rule.lo is None else rule.lo + (tick if rule.lo_open else 0)
    top = INT_MAX if rule.kind == "int" else FLOAT_MAX
    hi = top if rule.hi is None else min(top, rule.hi - (tick if rule.hi_open else 0))
    return FieldSpec(name, rule.label or name, rule.group, rule.kind, lo, hi, rule.step, rule.decimals,
                     rule.special, data_kinds=tuple(rule.applies.split()),
                     optional=getattr(TrainConfig(), name) is None, tasks=tuple(rule.tasks),
                     none_value=rule.none_value)


def _form_order() -> list[str]:
    order = {name: i for i, name in enumerate(settings())}
    shown = [name for name, rule in settings().items() if rule.label]
    return sorted(shown, key=lambda n: (GROUPS.index(settings()[n].group), settings()[n].rank, order[n]))


FIELDS: tuple[FieldSpec, ...] = tuple(field_spec(name) for name in _form_order())


def field_tooltip(spec: FieldSpec) -> str:
    """"name: " + the glossary's explanation when it has the term, then the setting's help (its one
    description, explorer.core.specs.train_config.Setting) unless the explanation already says it."""
    text = field_help(spec.name, with_default=False)
    try:
        from explorer.glossary import tooltip

        gl = tooltip(spec.name)
        text = gl if text in gl else f"{gl}\n\n{text[0].upper()}{text[1:]}."
    except (ImportError, KeyError):
        text = f"{text[0].upper()}{text[1:]}." if text else ""
    return f"{spec.name}: {text}" if text else spec.name


def applies(spec: FieldSpec, task: str) -> bool:
    """Whether launcher field ``spec`` is a setting of ``task`` (its ``tasks``, else QA-only, else the data kinds
    whose tasks use it: TaskFacts.data_kind, so a table setting is off for SWAG and NER)."""
    if spec.tasks:
        return task in spec.tasks
    if spec.qa_only:
        return is_qa_task(task)
    if spec.data_kinds:
        facts = find_task_facts(task)
        return facts is not None and facts.data_kind in spec.data_kinds
    return True


def restricted(spec: FieldSpec) -> bool:
    """Whether some task does not use field ``spec`` (QA-only, some data kinds or some tasks)."""
    return bool(spec.qa_only or spec.data_kinds or spec.tasks)
