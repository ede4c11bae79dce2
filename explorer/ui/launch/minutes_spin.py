"""A spin box of minutes that also takes minutes:seconds, for fields named ``*_minutes`` (Time budget).

Typed "0.75" stays 0.75 and "0:45" is 0.75 too: a one-decimal box kept 0.7 of a typed 0.75 without a word
(42 s instead of 45). Values show with up to four decimals, trailing zeros dropped ("2.5", "0.75", "0.3333"
for 0:20), so a typed value is never rounded where it matters.
"""

from __future__ import annotations

import re

from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QDoubleSpinBox

MINUTES_DECIMALS = 4
_MIN_SEC = re.compile(r"(\d*):(\d{0,2})")


def minutes_from_text(text: str) -> float | None:
    """"1:30" -> 1.5, "0:45" -> 0.75; None when ``text`` is not minutes:seconds (seconds 0..59)."""
    m = _MIN_SEC.fullmatch(text.strip())
    if m is None or not m.group(2) or int(m.group(2)) >= 60:
        return None
    return int(m.group(1) or 0) + int(m.group(2)) / 60


class MinutesSpinBox(QDoubleSpinBox):
    """Minutes as a number or as minutes:seconds (see the module docstring)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setDecimals(MINUTES_DECIMALS)

    def validate(self, text: str, pos: int):  # noqa: D102 - Qt API
        if ":" in text and not (self.specialValueText() and text == self.specialValueText()):
            if _MIN_SEC.fullmatch(text.strip()) is None:
                return QValidator.State.Invalid, text, pos
            ok = minutes_from_text(text) is not None
            return (QValidator.State.Acceptable if ok else QValidator.State.Intermediate), text, pos
        return super().validate(text, pos)

    def valueFromText(self, text: str) -> float:  # noqa: N802 - Qt API
        minutes = minutes_from_text(text) if ":" in text else None
        return minutes if minutes is not None else super().valueFromText(text)

    def textFromValue(self, value: float) -> str:  # noqa: N802 - Qt API
        return f"{value:.{MINUTES_DECIMALS}f}".rstrip("0").rstrip(".")
