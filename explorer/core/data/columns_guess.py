"""Guess a table's text, label and id columns, and say which columns could be a label.

By the usual names when the table has a header (:func:`guess_columns`: text / sentence / tweet ..., label /
stance / class ..., id; :func:`text_columns_for`: a new file's texts for a model trained on named columns), else
by the values of its first rows (:func:`guess_columns_from_values`: the longest texts, a short-valued column of
a few distinct values for classes, numbers for a score). A header that names no usual label is searched by the
values too (:func:`label_by_values`), a usual label name holding averages yields to a label-named column of
classes (:func:`label_over_named`), and a refused label column is explained by the columns that could be the
label instead (:func:`class_columns`). Never a column of ids, dates or times (:func:`is_dated`,
:func:`name_tokens`). The readers in core/data/table.py and core/data/classification.py decide by these rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


# Usual column names, most specific first (lower-case; matched case-insensitively).
TEXT_NAMES = ("text", "sentence", "tweet", "review", "content", "question", "sentence1", "#1 string",
              "text_a", "premise", "question1", "sentence_a", "comment", "body", "document")
PAIR_NAMES = (("sentence1", "sentence2"), ("#1 string", "#2 string"), ("question1", "question2"),
              ("question", "sentence"), ("premise", "hypothesis"), ("text_a", "text_b"),
              ("sentence_a", "sentence_b"), ("text1", "text2"))
LABEL_NAMES = ("label", "labels", "stance", "class", "category", "sentiment", "quality", "gold_label",
               "score", "target_label", "y")
ID_NAMES = ("id", "idx", "guid", "row_id", "tweet_id", "uid")


@dataclass(frozen=True)
class ColumnGuess:
    """Columns guessed from the usual names, or from the values of a table without a header (None where
    nothing fits). ``basis``: "" for a guess by names; for one by values, the plain sentence saying why
    ("column 6 and 7 hold the longest texts; column 5 holds decimal numbers, 0 to 5"). ``id_note``: why a column
    named like an id is not guessed (its values repeat: core.data.row_ids.id_column_note), else ""."""

    text_columns: tuple[str, ...]
    label_column: str | None
    id_column: str | None
    basis: str = ""
    id_note: str = ""


def guess_columns(columns: list[str], pair: bool = False) -> ColumnGuess:
    """Guess text column(s), label and id column from the usual names (case-insensitive): text / sentence /
    tweet / sentence1+sentence2 / question ..., label / stance / class / score ..., id."""
    lower = {c.lower().strip(): c for c in reversed(columns)}
    texts: tuple[str, ...] = ()
    if pair:
        for a, b in PAIR_NAMES:
            if a in lower and b in lower:
                texts = (lower[a], lower[b])
                break
    else:
        texts = next(((lower[n],) for n in TEXT_NAMES if n in lower), ())
    label = next((lower[n] for n in LABEL_NAMES if n in lower), None)
    ident = next((lower[n] for n in ID_NAMES if n in lower), None)
    return ColumnGuess(texts, label, ident)


def text_columns_for(columns: list[str], trained=(), pair: bool = False) -> tuple[str, ...]:
    """The text column(s) of a new file (``columns``: its header) for a model trained on the columns ``trained``
    (the run's text_columns): those names, exactly or else ignoring case and outer spaces ("Sentence" for
    "sentence"); else the usual names (:func:`guess_columns`, pairs first for a ``pair`` model, then the other
    kind: a pair model's file with one text column reads that column; the launcher preview's rule). () when nothing
    matches. Predict on a file (its dialog's ticks and the CLI) decides by it."""
    trained = [str(t) for t in (trained or ())]
    if trained:
        if all(t in columns for t in trained):
            return tuple(trained)
        lower = {c.lower().strip(): c for c in reversed(columns)}
        folded = [lower.get(t.lower().strip()) for t in trained]
        if all(folded):
            return tuple(folded)
    for kind in (pair, not pair):
        texts = guess_columns(columns, kind).text_columns
        if texts:
            return tuple(texts)
    return ()


GUESS_ROWS = 50         # rows of a table without a header whose values guess its columns
TEXT_MIN_WORDS = 3      # a column whose values average this many words (and are not numbers) holds texts
LABEL_MAX_DISTINCT = 20  # a class column has at most this many distinct values among the GUESS_ROWS
PHRASE_CLASSES, PHRASE_WORDS = 10, 8   # classes named by phrases ("No emotion toward brand or product"): so few
LABEL_FILLED = 0.9       # a class column has a value in this share of the rows read (a column mostly blank: not it)
DISTINCT_SHARE = 0.9    # a column whose values are this share distinct (of 5 or more) names rows: never a label
DATED_SHARE = 0.8       # a column whose values are this share dates or times is never a label
# Words in a column's name that say it holds classes (matched inside the name: "gold_class", "Sentiment_2"),
# preferred over a column found by its values alone; names that say it holds dates or times never are labels.
LABEL_WORDS = ("label", "class", "category", "sentiment", "stance", "target", "polarity", "emotion")
# Whole words of a column's name ("overall_rating", "Star Rating", "y") that say it holds classes too, and
# whole words that say it names rows or their dates ("Review_Year", "row_index"): never a label.
LABEL_TOKENS = frozenset(LABEL_WORDS) | {"labels", "classes", "rating", "ratings", "stars", "star", "score", "grade",
                                         "y", "emotions", "sentiments", "gold"}
ROW_TOKENS = frozenset({"date", "time", "timestamp", "datetime", "created", "day", "year", "month", "week", "hour",
                        "id", "ids", "idx", "index", "guid", "uid", "uuid"})
DATE_NAMES = ("date", "time", "timestamp", "datetime", "created", "created_at", "day", "year", "month")
# A column this share of whose values are not classes (decimals like 3.5 or 4.25 among numbers: averages) is not
# taken for the label when another label-named column holds classes, and a label column refused for this share of
# its rows or more is said to be perhaps not the label at all (core.data.classification), not to skip those rows.
NOT_CLASSES_SHARE = 0.1


def name_tokens(name: str) -> set[str]:
    """The lower-case words of a column name, split at spaces, ``_``, ``-``, ``.`` and a lower-to-upper case
    change ("Review_Year" -> review, year; "overallRating" -> overall, rating)."""
    split = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", str(name))
    return {t for t in re.split(r"[\s_\-.:/]+", split.lower()) if t}


_DATE_VALUE = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?"   # 2019-03-04
    r"|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}( \d{1,2}:\d{2}(:\d{2})?)?"                              # 04/03/2019
    r"|\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?( ?[ap]m)?", re.IGNORECASE)                                # 22:19:45
_MONTHS_AND_DAYS = re.compile(r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)"
                              r"[a-z]*\.?", re.IGNORECASE)
_TIME_ZONE = re.compile(r"[A-Z]{2,5}|[+-]\d{4}|[AaPp]\.?[Mm]\.?")


def is_dated(value: str) -> bool:
    """Whether ``value`` is a date or a time: "2019-03-04", "04/03/2019 10:00", "22:19", or words of one
    ("Mon Apr 06 22:19:45 PDT 2009", "Apr 6, 2009": month or weekday names, numbers, a time, a time zone,
    with a month name or a time among them)."""
    value = value.strip()
    if _DATE_VALUE.fullmatch(value):
        return True
    tokens = [t for t in re.split(r"[\s,]+", value) if t]
    if not 2 <= len(tokens) <= 8:
        return False
    named = [t for t in tokens if _MONTHS_AND_DAYS.fullmatch(t)]
    times = [t for t in tokens if _DATE_VALUE.fullmatch(t)]
    rest = [t for t in tokens if t not in named and t not in times and not t.isdigit() and not _TIME_ZONE.fullmatch(t)]
    return bool(named or times) and any(t.isdigit() for t in tokens) and not rest


@dataclass
class _ColumnStats:
    """What the first rows of one column hold (see :func:`guess_columns_from_values`)."""

    name: str
    values: list[str]
    read: int = 0   # the rows read, blank cells included (0: unknown)

    @property
    def filled(self) -> bool:
        """Whether the column has a value in LABEL_FILLED of the rows read (always, when they are unknown)."""
        return not self.read or len(self.values) >= LABEL_FILLED * self.read

    @property
    def numbers(self) -> list[float] | None:
        """The values as numbers, or None when one is not a number (or there are none)."""
        out = []
        for v in self.values:
            try:
                out.append(float(v))
            except ValueError:
                return None
        return out or None

    @property
    def words(self) -> float:
        return sum(len(v.split()) for v in self.values) / max(1, len(self.values))

    @property
    def length(self) -> float:
        return sum(len(v) for v in self.values) / max(1, len(self.values))

    @property
    def names_rows(self) -> bool:
        """Whether the column cannot hold classes: its name says ids, dates or times, its values are nearly all
        distinct (an id, a timestamp), or they are dates or times (however few of them there are)."""
        name = str(self.name).lower().strip()
        if name in ID_NAMES or name.endswith("_id") or name in DATE_NAMES or name.endswith(("_date", "_time")):
            return True
        if name_tokens(self.name) & ROW_TOKENS:   # "Review_Year", "row index": a word of the name says so
            return True
        n = len(self.values)
        if n >= 5 and len(set(self.values)) >= DISTINCT_SHARE * n:
            return True
        return sum(is_dated(v) for v in self.values) >= DATED_SHARE * max(1, n)

    @property
    def named_like_label(self) -> bool:
        """Whether the column's name says it holds classes (one of LABEL_WORDS inside it, one of LABEL_TOKENS
        as a whole word of it: "overall_rating", "stars", "y", or one of LABEL_NAMES)."""
        name = str(self.name).lower()
        return (any(word in name for word in LABEL_WORDS) or bool(name_tokens(self.name) & LABEL_TOKENS)
                or self.named_label)

    @property
    def named_label(self) -> bool:
        """Whether the column's whole name is a label word ("stars", "Label", "rating", "Sentiment"), not a name
        that holds one among other words ("business_stars", "reviewer_average_stars")."""
        name = str(self.name).lower().strip()
        return name in LABEL_NAMES or name in LABEL_TOKENS

    @property
    def fractions(self) -> bool:
        """Whether the column holds numbers of which NOT_CLASSES_SHARE or more are not whole (3.5, 4.25: a
        business's or a reviewer's average rating), so its values are no classes; "5.0" is a whole number."""
        nums = self.numbers
        return nums is not None and sum(not x.is_integer() for x in nums) >= NOT_CLASSES_SHARE * len(nums)

    @property
    def holds_classes(self) -> bool:
        """Whether the values can be classes: 2 to LABEL_MAX_DISTINCT distinct short values (or a few phrases),
        not ids, dates or times."""
        distinct = len(set(self.values))
        return (2 <= distinct <= LABEL_MAX_DISTINCT and not self.names_rows
                and (self.words <= 3 or (distinct <= PHRASE_CLASSES and self.words <= PHRASE_WORDS)))

    def rank(self) -> tuple:
        """The order in which class columns are taken for the label, the smallest first: named like a label, filled
        in nearly every row, classes (words or whole numbers) before decimals, the whole name a label word
        ("stars" before "business_stars"), then the fewest distinct values."""
        return (not self.named_like_label, not self.filled, self.fractions, not self.named_label,
                len(set(self.values)))


def guess_columns_from_values(columns: list[str], rows: list[list], *, texts: tuple[int, int] = (1, 1),
                              score: bool = False) -> ColumnGuess:
    """Guess the text and label columns of a table without a header from its first rows' values.

    Texts: the columns whose values are not numbers and average at least TEXT_MIN_WORDS words, the longest
    first; ``texts`` = (fewest, most) text columns the task reads (single (1, 1), pair (2, 2), regression and
    multi-label (1, 2)), kept in file order. Label: with ``score`` (regression) a column of numbers written
    with a decimal point (STS-B's "3.800"), else one of numbers that repeat (not an id); otherwise (classes)
    the short-valued column with 2 to LABEL_MAX_DISTINCT distinct values, one named like a label (LABEL_WORDS)
    first, then the fewest distinct values; never a column of ids, dates or times, or of values nearly all
    distinct (``_ColumnStats.names_rows``). No id guess (an id column is optional). Returns empty fields where
    nothing fits, with ``basis`` saying what was seen.
    """
    stats = _stats_of(columns, rows, ())
    texty = sorted((s for s in stats if s.numbers is None and s.words >= TEXT_MIN_WORDS),
                   key=lambda s: -s.length)
    fewest, most = texts
    chosen = texty[:most] if len(texty) >= fewest else []
    chosen.sort(key=lambda s: columns.index(s.name))
    label, why = _label_by_values([s for s in stats if s not in chosen], score)
    said = []
    if chosen:
        names = " and ".join(s.name for s in chosen)
        said.append(f"column{'s' if len(chosen) > 1 else ''} {names} hold{'' if len(chosen) > 1 else 's'} the "
                    f"longest texts")
    if why:
        said.append(why)
    return ColumnGuess(tuple(s.name for s in chosen), label, None, "; ".join(said))


def _label_by_values(rest: list[_ColumnStats], score: bool) -> tuple[str | None, str]:
    """(label column, why) among the columns ``rest`` (not the texts), by :func:`guess_columns_from_values`'s rule;
    (None, "") when none fits."""
    if score:
        numeric = [s for s in rest if s.numbers is not None]
        dotted = [s for s in numeric if any("." in v for v in s.values)]
        repeat = [s for s in numeric if len(set(s.values)) < len(s.values)]
        pick = (dotted or repeat or [None])[0]
        if pick is None:
            return None, ""
        nums = pick.numbers
        return pick.name, (f"column {pick.name} holds {'decimal ' if pick in dotted else ''}numbers, "
                           f"{min(nums):g} to {max(nums):g}")
    classes = [s for s in rest if s.holds_classes]
    if not classes:
        return None, ""
    pick = min(classes, key=_ColumnStats.rank)
    why = f"column {pick.name} holds a few values ({_few(pick.values)})"
    averages = [s for s in classes if s.named_like_label and s.fractions and not pick.fractions]
    if averages:
        why += "; " + "; ".join(f"column {s.name} holds decimals ({_few(s.values)}): averages, not classes"
                                for s in averages)
    return pick.name, why


def _few(values: list[str]) -> str:
    """The first four distinct values, sorted ("1, 2, 3, 4, …")."""
    shown = sorted(set(values))
    return ", ".join(shown[:4]) + (", …" if len(shown) > 4 else "")


def _stats_of(columns: list[str], rows: list[list], texts: tuple[str, ...]) -> list[_ColumnStats]:
    """What the first GUESS_ROWS ``rows`` hold in each column other than ``texts`` (the columns with a value)."""
    stats = [_ColumnStats(c, [str(r[i]).strip() for r in rows[:GUESS_ROWS] if i < len(r) and str(r[i]).strip()],
                          len(rows[:GUESS_ROWS])) for i, c in enumerate(columns) if c not in texts]
    return [s for s in stats if s.values]


def label_by_values(columns: list[str], rows: list[list], texts: tuple[str, ...], *,
                    score: bool = False) -> tuple[str | None, str]:
    """The label column of a table whose header names none of the usual label names (LABEL_NAMES): (its name, why)
    from the first GUESS_ROWS rows' values, among the columns other than ``texts`` (a file's "Emotion" column of
    six feelings beside its "Text"); (None, "") when no column fits. The rule of :func:`guess_columns_from_values`:
    classes are the short-valued column named like a label, else the one with the fewest distinct values (2 to
    LABEL_MAX_DISTINCT), never ids, dates or times; a ``score`` (regression) a column of numbers."""
    return _label_by_values(_stats_of(columns, rows, texts), score)


def class_columns(table, skip: tuple[int, ...] = ()) -> list[tuple[str, str]]:
    """The columns of ``table`` (a core.data.table.Table: this module never imports the readers, which import it)
    that could be a classification label (not those at the positions ``skip``: the
    texts, the label refused, the ids), at most three in the label guess's order (:meth:`_ColumnStats.rank`):
    (the column as ``--label-column`` takes it: its name, or its 1-based position without a header; what it holds
    in all the rows: "column 'stars' holds whole numbers 1 to 5 in every row", "column 'verdict' holds 3 values
    (bad, good, mixed) in 190 of 200 rows"). A column can be the label when its values over all the rows are
    classes (:attr:`_ColumnStats.holds_classes`), filled in LABEL_FILLED of the rows and not decimals (averages)."""
    found: list[tuple[tuple, str, str]] = []
    n = len(table.rows)
    for i, name in enumerate(table.columns):
        if i in skip:
            continue
        values = [str(v[i]).strip() for _, v in table.rows if i < len(v) and v[i] is not None and str(v[i]).strip()]
        if not 2 <= len(set(values)) <= LABEL_MAX_DISTINCT:   # cheap first: most columns are texts or ids
            continue
        stats = _ColumnStats(name, values, n)
        if not stats.holds_classes or stats.fractions or not stats.filled:
            continue
        where = "in every row" if len(values) == n else f"in {len(values):,} of {n:,} rows"
        nums = stats.numbers
        what = (f"whole numbers {min(nums):g} to {max(nums):g}" if nums is not None
                else f"{len(set(values))} values ({_few(values)})")
        spec = name if table.has_header else str(i + 1)
        found.append((stats.rank(), spec, f"column {table.column_label(i)} holds {what} {where}"))
    return [(spec, said) for _, spec, said in sorted(found, key=lambda f: f[0])[:3]]


def label_over_named(columns: list[str], rows: list[list], texts: tuple[str, ...], named: str
                     ) -> tuple[str | None, str]:
    """The class column to take for the label instead of ``named``, the column a usual label name found
    (:func:`guess_columns`): (its name, why) when ``named`` holds decimals (averages like 3.5, 4.25: no classes)
    and another column named like a label holds classes, picked by :func:`label_by_values`'s rule among the
    columns named like a label; else (None, "") and ``named`` stays. One rule for which label-named column wins,
    whether its name is a usual one or found by its words."""
    stats = _stats_of(columns, rows, texts)
    own = next((s for s in stats if s.name == named), None)
    if own is None or not own.fractions:
        return None, ""
    pick, why = _label_by_values([s for s in stats if s.named_like_label], False)
    if pick is None or pick == named:
        return None, ""
    if own.name not in why:
        why += f"; column {named} holds decimals ({_few(own.values)}): averages, not classes"
    return pick, why
