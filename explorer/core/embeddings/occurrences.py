"""A word or phrase found in the texts to embed, as whole words (Qt-free, torch-free): :func:`find_occurrences`
(case option, capped evenly over the corpus, with the total) and :func:`highlighted` (a text around one
occurrence).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from explorer.core.errors import EmbeddingError


@dataclass
class Occurrence:
    """One occurrence of the word: text ``text`` (index into the corpus), characters ``start:end``."""

    text: int
    start: int
    end: int


@dataclass
class Occurrences:
    """The occurrences kept (at most the cap, spread evenly over the corpus) and how many there were."""

    word: str
    case_sensitive: bool
    items: list[Occurrence]
    total: int

    @property
    def capped(self) -> bool:
        """True when some occurrences were left out by the cap."""
        return len(self.items) < self.total


def word_pattern(word: str, case_sensitive: bool = False) -> re.Pattern:
    """The regular expression of ``word`` (a word or a phrase) as a whole word: no letter, digit or
    underscore right before or after it; the spaces of a phrase match any run of white space."""
    parts = [re.escape(p) for p in word.split()]
    if not parts:
        raise EmbeddingError("enter a word to find")
    return re.compile(r"(?<!\w)" + r"\s+".join(parts) + r"(?!\w)", 0 if case_sensitive else re.IGNORECASE)


def find_occurrences(texts: list[str], word: str, *, case_sensitive: bool = False, cap: int = 0,
                     where: str = "the corpus") -> Occurrences:
    """Every whole-word occurrence of ``word`` in ``texts``; with ``cap`` > 0 at most ``cap`` of them, spread
    evenly over all occurrences in corpus order (so a cap does not keep only the first articles).

    Raises:
        EmbeddingError: empty word, or the word never occurs (the message names ``where`` and the options).
    """
    pattern = word_pattern(word, case_sensitive)
    found = [Occurrence(i, m.start(), m.end()) for i, text in enumerate(texts) for m in pattern.finditer(text)]
    if not found:
        case = "case-sensitive" if case_sensitive else "ignoring case"
        raise EmbeddingError(f"{word.strip()!r} does not occur in {where} ({len(texts):,} texts; whole words, "
                             f"{case})")
    total = len(found)
    if cap and total > cap:
        keep = np.unique(np.linspace(0, total - 1, cap).round().astype(int))
        found = [found[k] for k in keep]
    return Occurrences(word.strip(), case_sensitive, found, total)


def highlighted(text: str, start: int, end: int, width: int = 0) -> tuple[str, str, str]:
    """(before, word, after) of a text around characters ``start:end``; ``width`` > 0 keeps at most that many
    characters on each side (with "…" where cut)."""
    before, word, after = text[:start], text[start:end], text[end:]
    if width and len(before) > width:
        before = "…" + before[-width:]
    if width and len(after) > width:
        after = after[:width] + "…"
    return before, word, after
