"""Characters no installed font can draw, and the note that names them.

Qt draws a character its font lacks with another installed font that has it (font fallback), the same way in a
table cell, a tooltip and a rich-text pane; a character that no installed font holds (an emoji on a computer
without an emoji font) is drawn as an empty box everywhere. :func:`undrawable` finds those characters, so a page
can name them instead of leaving a box that looks like a broken file.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics, QRawFont

PLAIN_BELOW = 0x0250   # Latin, its accents and IPA: every text font has them; never looked up


@lru_cache(maxsize=4096)
def drawable(code: int, family: str) -> bool:
    """Does ``family`` (the widget's font) or any other installed font hold a glyph for code point ``code``?
    Cached: the answer holds for the session (fonts installed meanwhile are not seen)."""
    if code < PLAIN_BELOW or QFontMetrics(QFont(family)).inFontUcs4(code):
        return True
    return any(QRawFont.fromFont(QFont(f)).supportsCharacter(code) for f in QFontDatabase.families())


def undrawable(text: str, font: QFont) -> list[str]:
    """The distinct characters of ``text`` (in order of first appearance) that no installed font draws with
    ``font`` as the first choice; spaces, controls and joiners (zero width joiner, variation selectors: parts
    of an emoji sequence, never drawn alone) are left out."""
    family, seen, out = font.family(), set(), []
    for ch in text:
        if ch in seen:
            continue
        seen.add(ch)
        if unicodedata.category(ch) in ("Zs", "Cc", "Cf", "Mn", "Zl", "Zp") or "VARIATION SELECTOR" in \
                unicodedata.name(ch, ""):
            continue
        if not drawable(ord(ch), family):
            out.append(ch)
    return out


def undrawable_note(chars: list[str], limit: int = 6) -> str:
    """'no font on this computer draws 🎉 (U+1F389 PARTY POPPER), 🎬 (U+1F3AC CLAPPER BOARD): they show as
    boxes; the file keeps them (an emoji font, e.g. Noto Color Emoji, draws emoji)', or '' for none. At most
    ``limit`` characters are named."""
    if not chars:
        return ""
    named = ", ".join(f"{c} (U+{ord(c):04X} {unicodedata.name(c, 'unnamed')})" for c in chars[:limit])
    more = f" and {len(chars) - limit} more" if len(chars) > limit else ""
    return (f"no font on this computer draws {named}{more}: they show as boxes; the file keeps them (an emoji "
            "font, e.g. Noto Color Emoji, draws emoji)")
