"""The launcher fields that name classes of the training data (F1 classes, Class weights, and a Best checkpoint by
that averages the F1 classes), checked against the classes the data check counted, without Qt.

Every way a training file reaches the form (Browse, a typed path, "Fine-tune on reviewed rows", a loaded config,
a preset) ends in the same data check, so the check is made on its result, not on how the file was chosen. When the
data changed since those fields were set, names the new data does not have are cleared, with a word in the banner
(a stance form's FAVOR, AGAINST switched to a spam file); when they were set for this data, they stay, the field
turns red and Launch is refused, naming the missing classes (the run would fail on them after loading the model).
"""

from __future__ import annotations

import html

from explorer.core.errors import ConfigError
from explorer.core.specs.train_config import parse_class_weights

__all__ = ["CLASS_FIELDS", "ClassFields", "named_classes"]

CLASS_FIELDS = ("f1_classes", "class_weights")
# a Best checkpoint by that exists only through the F1 classes: it goes with them
METRICS_OF_CLASSES = ("f_avg",)


def named_classes(name: str, value) -> list[str]:
    """The class names field ``name`` holds: F1 classes' list, Class weights' names ("a=1,b=2"; "balanced" and a
    value that does not parse name none)."""
    if name == "f1_classes":
        return [str(c) for c in (value or [])]
    try:
        spec = parse_class_weights(str(value or ""))
    except ConfigError:
        return []
    return list(spec) if isinstance(spec, dict) else []


class ClassFields:
    """The class-naming fields of a launcher form against its training data's classes. ``classes``: (training
    file, its class names as the data check counted them) or None while unknown; ``set_for``: the training file
    the fields were set or last checked for (a loaded config's own file)."""

    def __init__(self):
        self.classes: tuple[str, list[str]] | None = None
        self.set_for: str | None = None

    def loaded(self, train: str) -> None:
        """A config was loaded: its class fields were set for its training file ``train``."""
        self.set_for, self.classes = train, None

    def missing(self, values: dict) -> dict[str, list[str]]:
        """Field -> the names it holds that the training data does not have, for the form's ``values``; {} while
        the classes of the form's training file are unknown (no data check yet, regression data)."""
        if self.classes is None or self.classes[0] != values.get("train") or not self.classes[1]:
            return {}
        have = set(self.classes[1])
        out = {}
        for name in CLASS_FIELDS:
            unknown = [c for c in named_classes(name, values.get(name)) if c not in have]
            if unknown:
                out[name] = unknown
        return out

    def counted(self, form, train: str, class_names: list[str]) -> str:
        """The data check counted ``class_names`` in training file ``train`` (the form's: a LaunchForm). Names set
        for other data that this data lacks are cleared (with a Best checkpoint by that needs them); returns the
        banner's sentence ("" when nothing was cleared)."""
        self.classes = (train, [str(c) for c in class_names])
        if not class_names:   # not counted (the data check failed, a regression file): nothing known to check
            return ""
        changed = self.set_for != train
        self.set_for = train
        gone = self.missing(form.values) if changed else {}
        if not gone:
            return ""
        said = []
        for name in gone:
            form.set(name, [] if name == "f1_classes" else "")
            form.edited.discard(name)
            said.append(f"{'F1 classes' if name == 'f1_classes' else 'Class weights'} ({', '.join(gone[name])})")
        if "f1_classes" in gone and form.values.get("metric_for_best") in METRICS_OF_CLASSES:
            said.append(f"Best checkpoint by {form.values['metric_for_best']}")
            form.set("metric_for_best", "")
            form.edited.discard("metric_for_best")
        return html.escape(f"{'; '.join(said)} named classes of the previous data, not of this file's "
                           f"({', '.join(self.classes[1])}): cleared")

    def refusals(self, values: dict) -> dict[str, str]:
        """Field -> why it blocks Launch ("F1 classes name FAVOR, AGAINST, not classes of the training data (its
        classes: ham, spam)") for the names set for this data that it does not have."""
        have = ", ".join(self.classes[1]) if self.classes else ""
        return {name: (f"{'F1 classes' if name == 'f1_classes' else 'Class weights'} name{'s' if len(unknown) == 1 else ''} "
                       f"{', '.join(unknown)}, not {'a class' if len(unknown) == 1 else 'classes'} of the training "
                       f"data (its classes: {have})")
                for name, unknown in self.missing(values).items()}
