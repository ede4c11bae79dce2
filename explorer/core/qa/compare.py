"""Two checkpoints on one SQuAD dev set, question by question (torch-free; the forward passes are the caller's).

:func:`compare_decodings` takes the decodings of checkpoint A and B (core.qa.decoding.decode_predictions) and
the gold answers, scores each question with the official per-question EM/F1 (core.metrics.squad.question_scores:
SQuAD v1.1 = best span, v2.0 = the tau decision ``score_diff > tau``, abstaining = ""), and counts:

- right/wrong by exact match: both right, only A, only B, both wrong (they add up to the questions);
- SQuAD 2.0 also answered/abstained: both answered, only A answered, only B answered, both abstained.

A disagreement is a question where the two answers differ after the official normalisation
(core.metrics.squad.normalize_answer); disagreements are sorted by |F1(B) - F1(A)|, largest first.

:meth:`Comparison.significance` says whether B differs from A by more than chance (core/metrics/significance.py):
McNemar's exact test on the exact-match discordant pairs (only A right / only B right) and paired
bootstrap intervals (10,000 resamples, seeded, the same questions drawn for both) for the difference in
exact match and F1, with the result in words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from explorer.core.metrics.squad import normalize_answer, question_scores
from explorer.core.qa.decoding import NULL_ODDS_CLIP


@dataclass
class QuestionComparison:
    """One question: answers and official EM (0/1) / F1 (0..1) of A and B; f1_diff = f1_b - f1_a."""

    id: str
    question: str
    gold: list[str]
    answer_a: str
    answer_b: str
    exact_a: float
    f1_a: float
    exact_b: float
    f1_b: float
    score_diff_a: float = float("nan")
    score_diff_b: float = float("nan")
    context: str = ""

    @property
    def f1_diff(self) -> float:
        return self.f1_b - self.f1_a

    @property
    def disagree(self) -> bool:
        return normalize_answer(self.answer_a) != normalize_answer(self.answer_b)


@dataclass
class Comparison:
    """Result of :func:`compare_decodings`. ``counts`` keys: both_right, only_a, only_b, both_wrong, and
    for v2.0 both_answered, only_a_answered, only_b_answered, both_abstained. ``metrics_a``/``metrics_b``:
    exact_match and f1 in percent over the questions (the official totals at the given tau). ``settings``: the
    window and decoding settings both checkpoints ran with (max_seq_length, doc_stride, max_query_length,
    n_best_size, max_answer_length), so a question can be probed again the same way."""

    version: str
    label_a: str
    label_b: str
    tau_a: float
    tau_b: float
    questions: list[QuestionComparison]
    counts: dict[str, int] = field(default_factory=dict)
    metrics_a: dict[str, float] = field(default_factory=dict)
    metrics_b: dict[str, float] = field(default_factory=dict)
    settings: dict = field(default_factory=dict)   # max_seq_length, doc_stride, ... the decodings used

    def disagreements(self) -> list[QuestionComparison]:
        """The questions whose answers differ, sorted by |f1_b - f1_a| (largest first), then by id order."""
        rows = [q for q in self.questions if q.disagree]
        return sorted(rows, key=lambda q: -abs(q.f1_diff))

    def significance(self, resamples: int = 10_000, seed: int = 0) -> Significance:
        """McNemar on exact match and paired bootstrap intervals of EM and F1 (B - A, 0..1 shares);
        computed once per (resamples, seed) and kept."""
        key = (resamples, seed)
        cache = self.__dict__.setdefault("_significance", {})
        if key not in cache:
            cache[key] = significance(self.questions, resamples=resamples, seed=seed)
        return cache[key]

    def count_lines(self) -> list[str]:
        """The counts as text lines, e.g. "both right 120 | only A 14 | only B 30 | both wrong 136 (of 300)"."""
        c, n = self.counts, len(self.questions)
        lines = [f"exact match: both right {c['both_right']} | only A {c['only_a']} | only B {c['only_b']} | "
                 f"both wrong {c['both_wrong']} (of {n})"]
        if self.version == "v2.0":
            lines.append(f"decision: both answered {c['both_answered']} | only A answered {c['only_a_answered']} | "
                         f"only B answered {c['only_b_answered']} | both abstained {c['both_abstained']} (of {n})")
        return lines


@dataclass
class Significance:
    """Is B better than A on these questions? ``mcnemar`` (exact match, core.metrics.significance.McNemarResult),
    ``exact_match`` and ``f1``: core.metrics.significance.BootstrapResult of B - A (0..1 shares; shown in points)."""

    mcnemar: object
    exact_match: object
    f1: object

    def lines(self) -> list[str]:
        """The result in words, e.g. "F1: B is better by 2.3 F1 points, 95% interval 0.8 to 3.9; p = 0.004 for
        exact match" and a line each for EM and for McNemar's counts."""
        from explorer.core.metrics.significance import difference_in_words, fmt_p

        m = self.mcnemar
        return [f"F1: {difference_in_words(self.f1, label='F1', p=m.p, p_for='exact match')}",
                f"exact match: {difference_in_words(self.exact_match, label='EM')}",
                (f"McNemar's exact test (exact match): only A right {m.only_a}, only B right {m.only_b}, "
                 f"{fmt_p(m.p)}; paired bootstrap of {self.f1.resamples:,} resamples (seed {self.f1.seed})")]

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return {"mcnemar_exact_match": asdict(self.mcnemar), "bootstrap_exact_match": asdict(self.exact_match),
                "bootstrap_f1": asdict(self.f1)}


def significance(rows: list[QuestionComparison], resamples: int = 10_000, seed: int = 0) -> Significance:
    """McNemar's exact test on exact match and paired bootstrap intervals of EM and F1 (core/metrics/significance.py).

    Raises ValueError with no questions."""
    from explorer.core.metrics.significance import mcnemar_exact, paired_bootstrap_mean

    ea = np.array([r.exact_a for r in rows], dtype=float)
    eb = np.array([r.exact_b for r in rows], dtype=float)
    fa = np.array([r.f1_a for r in rows], dtype=float)
    fb = np.array([r.f1_b for r in rows], dtype=float)
    return Significance(mcnemar=mcnemar_exact(ea == 1.0, eb == 1.0),
                        exact_match=paired_bootstrap_mean(ea, eb, metric="exact_match", resamples=resamples, seed=seed),
                        f1=paired_bootstrap_mean(fa, fb, metric="f1", resamples=resamples, seed=seed))


def _answer(decoding, version: str, tau: float) -> str:
    return decoding.answer(tau) if version == "v2.0" else decoding.best_text


def compare_decodings(decodings_a: dict, decodings_b: dict, gold: dict[str, list[str]], *,
                      questions: dict[str, str] | None = None, contexts: dict[str, str] | None = None, version: str = "v2.0", tau_a: float = 0.0,
                      tau_b: float = 0.0, label_a: str = "A", label_b: str = "B") -> Comparison:
    """Score A and B on every gold question and count where they agree.

    Args:
        decodings_a, decodings_b: id -> ExampleDecoding for each checkpoint.
        gold: id -> raw gold texts ([] = unanswerable), e.g. core.data.squad.gold_answers.
        questions, contexts: id -> question text / passage (for display and for opening in Spans & tau), optional.
        version: "v1.1" (best span always) or "v2.0" (answer iff score_diff > tau).

    Raises:
        ValueError: a gold id missing from either side (names how many and the first ids), or a bad version.
    """
    if version not in ("v1.1", "v2.0"):
        raise ValueError(f"version {version!r} is not v1.1 or v2.0")
    for label, dec in ((label_a, decodings_a), (label_b, decodings_b)):
        missing = [q for q in gold if q not in dec]
        if missing:
            raise ValueError(f"{label}: {len(missing)} of {len(gold)} questions have no decoding "
                             f"(first: {', '.join(missing[:3])})")
    rows = []
    for qid, golds in gold.items():
        da, db = decodings_a[qid], decodings_b[qid]
        aa, ab = _answer(da, version, tau_a), _answer(db, version, tau_b)
        ea, fa = question_scores(golds, aa, version)
        eb, fb = question_scores(golds, ab, version)
        rows.append(QuestionComparison(qid, (questions or {}).get(qid, ""), list(golds), aa, ab, ea, fa, eb, fb,
                                       float(da.score_diff), float(db.score_diff), (contexts or {}).get(qid, "")))
    return Comparison(version=version, label_a=label_a, label_b=label_b, tau_a=tau_a, tau_b=tau_b,
                      questions=rows, counts=count_agreement(rows, version),
                      metrics_a=_totals([r.exact_a for r in rows], [r.f1_a for r in rows]),
                      metrics_b=_totals([r.exact_b for r in rows], [r.f1_b for r in rows]))


def _totals(exact: list[float], f1: list[float]) -> dict[str, float]:
    n = max(len(exact), 1)
    return {"exact_match": 100.0 * float(np.sum(exact)) / n, "f1": 100.0 * float(np.sum(f1)) / n,
            "total": len(exact)}


def count_agreement(rows: list[QuestionComparison], version: str) -> dict[str, int]:
    """Right/wrong (exact match) 2x2 counts and, for v2.0, answered/abstained 2x2 counts."""
    ra = np.array([r.exact_a == 1.0 for r in rows], dtype=bool)
    rb = np.array([r.exact_b == 1.0 for r in rows], dtype=bool)
    counts = {"both_right": int(np.sum(ra & rb)), "only_a": int(np.sum(ra & ~rb)),
              "only_b": int(np.sum(~ra & rb)), "both_wrong": int(np.sum(~ra & ~rb))}
    if version == "v2.0":
        aa = np.array([bool(r.answer_a) for r in rows], dtype=bool)
        ab = np.array([bool(r.answer_b) for r in rows], dtype=bool)
        counts.update(both_answered=int(np.sum(aa & ab)), only_a_answered=int(np.sum(aa & ~ab)),
                      only_b_answered=int(np.sum(~aa & ab)), both_abstained=int(np.sum(~aa & ~ab)))
    return counts


_SCORE_DIFFS = ("score_diff_a", "score_diff_b")


def _finite_score_diff(value: float) -> float | None:
    """A score_diff as strict JSON holds it: -inf (no valid span) clipped to -NULL_ODDS_CLIP as in null_odds.json,
    NaN (not given) as null."""
    if math.isnan(value):
        return None
    return float(np.clip(value, -NULL_ODDS_CLIP, NULL_ODDS_CLIP))


def comparison_to_dict(c: Comparison) -> dict:
    """JSON-ready dict of a Comparison (``comparison.json`` of a report folder; read by the Compare view): strict
    JSON, every number finite (a score_diff of a question without a valid span clipped, one not given null)."""
    rows = [{k: (_finite_score_diff(getattr(q, k)) if k in _SCORE_DIFFS else getattr(q, k))
             for k in QuestionComparison.__dataclass_fields__} for q in c.questions]
    return {"version": c.version, "label_a": c.label_a, "label_b": c.label_b, "tau_a": c.tau_a, "tau_b": c.tau_b,
            "counts": c.counts, "metrics_a": c.metrics_a, "metrics_b": c.metrics_b, "settings": c.settings,
            "questions": rows}


def comparison_from_dict(data: dict, source: str = "comparison") -> Comparison:
    """The inverse of :func:`comparison_to_dict`. Raises ValueError naming ``source`` and the bad field."""
    try:
        rows = [QuestionComparison(**{k: (math.nan if k in _SCORE_DIFFS and q[k] is None else q[k])
                                      for k in QuestionComparison.__dataclass_fields__ if k in q})
                for q in data["questions"]]
        return Comparison(version=data["version"], label_a=data["label_a"], label_b=data["label_b"],
                          tau_a=float(data["tau_a"]), tau_b=float(data["tau_b"]), questions=rows,
                          counts=dict(data["counts"]), metrics_a=dict(data["metrics_a"]),
                          metrics_b=dict(data["metrics_b"]), settings=dict(data.get("settings") or {}))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{source}: not a comparison ({type(exc).__name__}: {exc})") from None
