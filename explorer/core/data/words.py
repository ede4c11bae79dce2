"""How raw text is split into the words a tagger tags (torch-free, Qt-free; in data/ because training finds the
rule in its data and the tagging, explain and predict packages above it read it back).

A token-tagging model predicts one tag per word, and its words are what its training file's words were. Raw text
(``predict`` on a text file, the Tag page, ``explain``) must be split the same way, or entities start or end
inside a training-style word: a CoNLL-2003 model split at every punctuation mark tags "AL" + "-" + "AIN" where its
training data has the one word ``AL-AIN`` (also ``Jean-Luc``, ``1996-12-06``, ``U.S.``).

The rules (:data:`WORD_RULES`), by name:

- ``conll``: CoNLL-2003's tokenisation: words keep inner hyphens, periods, slashes, ampersands and apostrophes
  (``AL-AIN``, ``1996-12-06``, ``1/2``, ``O'Neill``), numbers keep thousands commas (``1,000``), dotted
  abbreviations and initials keep their period (``U.S.``, ``M.``, ``Mr.``, ``Inc.``); ``'s`` and ``n't`` are
  words of their own; any other punctuation is a word, a run of one mark (``--``, ``...``) one word. It gives
  back the words of 99.5 % of CoNLL-2003's training sentences joined with spaces (the rest are phone numbers
  and the like).
- ``punctuation``: runs of letters and digits; every other non-space character is a word of its own.
- ``whitespace``: the text's whitespace-separated pieces, punctuation attached (data tokenised by spaces only).

:func:`rule_for_sentences` picks the rule a training file's words were formed by, and training records it in the
checkpoint's config.json (``word_splitting``, :data:`CONFIG_KEY`) and the run's ``started`` event; :func:`rule_of`
reads it back from a model (a checkpoint without one: ``punctuation``, the rule before there was a record, and
:func:`rule_note` says that no rule was recorded).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CONFIG_KEY = "word_splitting"   # the checkpoint config.json attribute naming the rule
DEFAULT_RULE = "punctuation"

_ABBREVIATIONS = ("vs|Inc|Corp|Co|Ltd|St|Mr|Mrs|Ms|Dr|Jr|Sr|Gen|Sen|Rep|Gov|No|Jan|Feb|Aug|Sept|Sep|Oct|Nov|Dec|"
                  "Mt|Ft|Lt|Col|Capt|Sgt|Prof|Bros|Pty|Plc|etc|Calif|Fla|Mass|Ariz")
_CONLL = re.compile(
    r"(?:[A-Za-z]\.){2,}(?:-\w+)*"                       # U.S. U.N. (U.S.-led)
    r"|\b[A-Z]\.(?=\s|$)"                                # an initial: M.
    r"|\b(?:" + _ABBREVIATIONS + r")\.(?=\s|$)"          # Mr. Inc. vs.
    r"|\b\d{1,2}\.(?=\s|$)"                              # a list number: 2.
    r"|[+-]?\d+(?:,\d{3})+(?:\.\d+)?(?:-\d+(?:,\d{3})*)?"  # 1,000 and 12,700-12,800
    r"|\+\d+(?:[-.]\d+)*"                                # +44 +0.05
    r"|n't(?=\s|$)"
    r"|[A-Z]{1,2}\$"                                     # C$ US$
    r"|\w+(?:[-.&/:]\w+|'(?![sS]\b)\w+)*-?"              # AL-AIN 1996-12-06 1/2 O'Neill 2:29.34 (not AL-AIN's 's)
    r"|'\w+"                                             # 's 're
    r"|\.\d+"                                            # .500
    r"|([^\w\s])\1*")                                    # ( , -- ...
_PUNCTUATION = re.compile(r"\w+|[^\w\s]")
_WHITESPACE = re.compile(r"\S+")


@dataclass(frozen=True, kw_only=True)
class WordRule:
    """A way of splitting raw text into words: its ``name``, a ``pattern`` whose matches are the words, and what
    it keeps in a sentence for notes ("keeps hyphens and inner periods: AL-AIN, 1996-12-06")."""

    name: str
    pattern: re.Pattern
    words: str

    def split(self, text: str) -> tuple[list[str], list[tuple[int, int]]]:
        """(words, their character (start, end) in ``text``)."""
        words, offsets = [], []
        for m in self.pattern.finditer(text):
            words.append(m.group(0))
            offsets.append((m.start(), m.end()))
        return words, offsets


WORD_RULES: dict[str, WordRule] = {rule.name: rule for rule in (
    WordRule(name="conll", pattern=_CONLL,
             words="CoNLL-2003 words: hyphens, inner periods and abbreviations kept (AL-AIN, 1996-12-06, U.S.)"),
    WordRule(name="punctuation", pattern=_PUNCTUATION,
             words="runs of letters and digits, every punctuation mark a word of its own"),
    WordRule(name="whitespace", pattern=_WHITESPACE, words="whitespace-separated pieces, punctuation attached"),
)}


def get_rule(name: str | None) -> WordRule:
    """The rule called ``name`` (None or "": :data:`DEFAULT_RULE`).

    Raises:
        ValueError: an unknown name, listing the rules.
    """
    try:
        return WORD_RULES[name or DEFAULT_RULE]
    except KeyError:
        raise ValueError(f"unknown word splitting rule {name!r}; rules: {', '.join(WORD_RULES)}") from None


def split_words(text: str, rule: str | None = None) -> tuple[list[str], list[tuple[int, int]]]:
    """Raw text to words and their character offsets by ``rule`` (a name of :data:`WORD_RULES`; default
    :data:`DEFAULT_RULE`)."""
    return get_rule(rule).split(text)


def recorded_rule(model_or_config) -> str:
    """The rule a tagger's config records (``word_splitting``: its training words were formed by it); "" when
    it records none (trained before the rule was recorded, or by another tool)."""
    config = getattr(model_or_config, "config", model_or_config)
    name = getattr(config, CONFIG_KEY, None) if not isinstance(config, dict) else config.get(CONFIG_KEY)
    return name if name in WORD_RULES else ""


def rule_of(model_or_config) -> str:
    """The rule a tagger's training words were formed by, from its config (``word_splitting``); a checkpoint
    trained before it was recorded: :data:`DEFAULT_RULE`."""
    return recorded_rule(model_or_config) or DEFAULT_RULE


def rule_note(rule: str, recorded: bool) -> str:
    """How raw text was split into a tagger's words, in one sentence for predict's notes and the Tag page:
    "words split by the conll rule (…), as the model's training words were formed" when the model records the
    rule (``recorded``); for a model that records none, which rule was used and that it is not known to be the
    training words' one, so a split hyphenated word is not taken for the model's own error."""
    words = f"words split by the {rule} rule ({get_rule(rule).words})"
    if recorded:
        return f"{words}, as the model's training words were formed"
    return (f"{words}: the model records no rule for its training words (trained before it was recorded, or by "
            "another tool), so its words may be formed otherwise (CoNLL keeps AL-AIN whole); a model fine-tuned "
            "here records it")


@dataclass(frozen=True, kw_only=True)
class RuleChoice:
    """The rule found for a training file: ``rule``, the share of its sentences whose words it gives back from
    the sentence joined with spaces (``sentences``), and of its words it keeps whole (``words``)."""

    rule: str
    sentences: float
    words: float

    def note(self) -> str:
        """The sentence a run's log shows."""
        return (f"raw text (predict, the Tag page, explain) is split into words as the training words were formed: "
                f"the {self.rule} rule ({WORD_RULES[self.rule].words}); it gives back the words of "
                f"{100 * self.sentences:.1f} % of the training sentences")


def rule_for_sentences(sentences: list[list[str]], *, sample: int = 5000) -> RuleChoice:
    """The rule the words of ``sentences`` (a training file's) were formed by.

    Each of ``conll`` and ``punctuation`` splits every sentence joined with spaces; the one that gives back the
    words of more sentences wins (a tie: ``punctuation``, which never joins what the data kept apart). When
    neither keeps 98 % of the words whole, the words hold attached punctuation ("Paris,"): ``whitespace``.
    The first ``sample`` sentences are looked at.
    """
    picked = [s for s in sentences[:sample] if s]
    if not picked:
        return RuleChoice(rule=DEFAULT_RULE, sentences=1.0, words=1.0)
    scores = {}
    for name in ("punctuation", "conll"):
        rule = WORD_RULES[name]
        same = sum(rule.split(" ".join(s))[0] == s for s in picked)
        whole = sum(len(rule.pattern.findall(w)) == 1 and rule.pattern.fullmatch(w) is not None
                    for s in picked for w in s)
        scores[name] = (same / len(picked), whole / sum(len(s) for s in picked))
    best = max(scores, key=lambda n: (scores[n][0], n == "punctuation"))
    if max(w for _, w in scores.values()) < 0.98:
        return RuleChoice(rule="whitespace", sentences=1.0, words=1.0)
    return RuleChoice(rule=best, sentences=scores[best][0], words=scores[best][1])
