"""Decodings scored against gold answers: the official metrics at a τ, per-question scores, the τ sweep and the
honest (split-half) τ.

The official SQuAD v1.1 / v2.0 logic (normalisation, exact match, F1, the best-threshold search) is
explorer.core.metrics.squad; this module applies it to explorer.core.qa.decoding's ExampleDecodings. τ is in
score_diff units (answer iff score_diff > τ, score_diff = -null_odds); scores are percentages (0..100) like
the official scripts, the per-question arrays of QuestionScores 0..1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core.metrics.squad import check_ids, question_scores, squad_evaluate
from explorer.core.qa.decoding import null_odds as _null_odds
from explorer.core.qa.decoding import predictions_at

TAU_GRID_LIMIT = 6.0   # the τ grid runs from -6 to +6 (score_diff units): the τ study, the τ slider
TAU_GRID_STEP = 0.25
DEFAULT_TAUS = np.arange(-TAU_GRID_LIMIT, TAU_GRID_LIMIT + 1e-4, TAU_GRID_STEP)


def tau_axis_limit(*values: float) -> float:
    """The half-width L of a τ axis (a slider from -L to +L, score_diff units): the τ grid's TAU_GRID_LIMIT, so
    that the slider and the τ study agree, widened to the next whole number (plus one) only when one of the
    finite ``values`` (this question's score_diff, the τ in use) lies outside it, so that it can be reached."""
    out = [abs(float(v)) for v in values if v is not None and np.isfinite(v)]
    far = max(out, default=0.0)
    return TAU_GRID_LIMIT if far <= TAU_GRID_LIMIT else float(np.ceil(far) + 1.0)


TAU_GRID_MAX_POINTS = 801   # a grid over a wide score_diff range keeps the sweep's (n_taus, n) masks small


def tau_grid(score_diff) -> np.ndarray:
    """The τ grid for a set of questions (score_diff units, ascending): DEFAULT_TAUS (-6 ... +6, step 0.25)
    when every finite score_diff lies within it, else symmetric and widened to the next whole number past the
    farthest one (as :func:`tau_axis_limit`), so the best τ and the honest τ are never cut off at the grid's
    edge; the step grows beyond 0.25 only where the grid would exceed TAU_GRID_MAX_POINTS points.

    A model whose s_null sits far from its span scores (best_f1_thresh of -9.3 after a short SQuAD 2.0
    fine-tune) otherwise gets its "honest" figure from τ values that cannot abstain where it should.
    """
    diffs = np.asarray(score_diff, dtype=np.float64)
    diffs = diffs[np.isfinite(diffs)]
    limit = tau_axis_limit(*(float(np.abs(diffs).max()),) if diffs.size else ())
    if limit == TAU_GRID_LIMIT:
        return DEFAULT_TAUS
    step = max(TAU_GRID_STEP, 2.0 * limit / (TAU_GRID_MAX_POINTS - 1))
    n_half = int(np.ceil(limit / step))
    return np.arange(-n_half, n_half + 1, dtype=np.float64) * step


def grid_text(taus) -> str:
    """The τ grid ``taus`` (ascending, score_diff units) in words: "−6 to +6, step 0.25" (the default grid), or the
    widened one's own ends and step ("−10 to +10, step 0.25"), so no table names a range its best τ lies outside."""
    taus = np.asarray(taus, dtype=np.float64)
    if taus.size == 0:
        return "no τ"
    step = float(np.min(np.diff(taus))) if taus.size > 1 else 0.0

    def end(value: float) -> str:
        text = f"{value:+g}"
        return text.replace("-", "−")

    return f"{end(float(taus[0]))} to {end(float(taus[-1]))}" + (f", step {step:g}" if step else "")


@dataclass
class QuestionScores:
    """Per-question arrays (n,) for fast tau sweeps: the score of answering (best span) and of abstaining.

    ids; score_diff (logit units); has_ans (bool); exact_span, f1_span (0..1, best span vs gold);
    exact_null, f1_null (0..1, empty answer vs gold: 1 iff no gold answer).
    """

    ids: list[str]
    score_diff: np.ndarray
    has_ans: np.ndarray
    exact_span: np.ndarray
    f1_span: np.ndarray
    exact_null: np.ndarray
    f1_null: np.ndarray

    def subset(self, idx: np.ndarray) -> "QuestionScores":
        return QuestionScores([self.ids[i] for i in idx], self.score_diff[idx], self.has_ans[idx],
                              self.exact_span[idx], self.f1_span[idx], self.exact_null[idx], self.f1_null[idx])

    def __len__(self) -> int:
        return len(self.ids)


def question_scores_from(decodings: dict, gold: dict[str, list[str]]) -> QuestionScores:
    """Score each decoding's best span and the empty answer against gold, once (official per-question EM/F1).

    has_ans is the raw gold list being non-empty (official make_qid_to_has_ans); abstaining scores
    ``not has_ans`` (official apply_no_ans_threshold), answering scores the best span's raw EM/F1.

    Args:
        decodings: id -> ExampleDecoding (explorer.core.qa.decoding).
        gold: id -> raw gold texts ([] = no answer).

    Raises:
        ValueError: a gold id without a decoding.
    """
    missing = [q for q in gold if q not in decodings]
    if missing:
        raise ValueError(f"{len(missing)} gold questions have no decoding (first: {', '.join(missing[:5])})")
    ids = list(gold)
    n = len(ids)
    sd, ha = np.empty(n), np.empty(n, dtype=bool)
    es, fs, en, fn = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    for k, q in enumerate(ids):
        d = decodings[q]
        sd[k] = d.score_diff
        ha[k] = bool(gold[q])
        es[k], fs[k] = question_scores(gold[q], d.best_text)
        en[k] = fn[k] = float(not ha[k])
    return QuestionScores(ids, sd, ha, es, fs, en, fn)


@dataclass
class TauSweep:
    """Metrics against tau (answer iff score_diff > tau). Arrays (n_taus,), percent."""

    taus: np.ndarray
    exact_match: np.ndarray
    f1: np.ndarray
    HasAns_f1: np.ndarray
    NoAns_f1: np.ndarray
    answer_rate: np.ndarray
    best_tau: float
    best_f1: float

    def at(self, tau: float) -> dict:
        """Row of the grid point nearest to tau."""
        k = int(np.argmin(np.abs(self.taus - tau)))
        return {"tau": float(self.taus[k]), "exact_match": float(self.exact_match[k]), "f1": float(self.f1[k]),
                "HasAns_f1": float(self.HasAns_f1[k]), "NoAns_f1": float(self.NoAns_f1[k]),
                "answer_rate": float(self.answer_rate[k])}


def _as_scores(decodings_or_scores, gold) -> QuestionScores:
    if isinstance(decodings_or_scores, QuestionScores):
        return decodings_or_scores
    if gold is None:
        raise ValueError("gold answers are needed to score decodings")
    return question_scores_from(decodings_or_scores, gold)


def _mean_where(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Mean over the selected columns of (n_taus, n) values, percent; NaN when no column is selected."""
    if not rows.any():
        return np.full(values.shape[0], np.nan)
    return 100.0 * values[:, rows].mean(axis=1)


def tau_sweep(decodings_or_scores, gold: dict | None = None, taus=DEFAULT_TAUS) -> TauSweep:
    """F1, EM, HasAns_f1, NoAns_f1 and answer rate for every tau of a grid (vectorised).

    Each tau is a masked mean: answered = score_diff > tau (n_taus, n); per question the score is
    the best span's EM/F1 where answered, else the empty answer's. Milliseconds for 12k questions
    (scripts/bench_eval.py prints the figure). Identical to evaluate-v2.0.py with
    ``--na-prob-thresh = -tau`` up to ties at score_diff == tau.

    Args:
        decodings_or_scores: dict id -> ExampleDecoding (with gold) or QuestionScores.
        gold: id -> gold texts, needed with decodings.
        taus: grid (default: the τ grid -6 ... +6, step 0.25; :func:`tau_grid` widens it to the questions'
            score_diff).

    Returns:
        TauSweep (best_tau = the grid point with the highest F1, first on ties).
    """
    qs = _as_scores(decodings_or_scores, gold)
    taus = np.asarray(taus, dtype=np.float64)
    answered = qs.score_diff[None, :] > taus[:, None]
    em = np.where(answered, qs.exact_span[None, :], qs.exact_null[None, :])
    f1 = np.where(answered, qs.f1_span[None, :], qs.f1_null[None, :])
    f1_all = 100.0 * f1.mean(axis=1)
    k = int(np.argmax(f1_all))
    return TauSweep(taus=taus, exact_match=100.0 * em.mean(axis=1), f1=f1_all,
                    HasAns_f1=_mean_where(f1, qs.has_ans), NoAns_f1=_mean_where(f1, ~qs.has_ans),
                    answer_rate=100.0 * answered.mean(axis=1), best_tau=float(taus[k]), best_f1=float(f1_all[k]))


def honest_tau(decodings_or_scores, gold: dict | None = None, taus=DEFAULT_TAUS, seed: int = 0) -> dict:
    """Tau chosen on one random half of the questions, F1 measured on the other half, and vice versa.

    Choosing tau on the dev set and reporting the same dev set flatters the score (docs/formulas.md, "Choosing τ");
    this gives the unflattered figure.

    Returns:
        dict: tau_A, f1_B_at_tau_A, tau_B, f1_A_at_tau_B, honest_f1 (size-weighted mean of the two
        held-out F1s), dev_best_tau and dev_best_f1 (tau chosen and scored on everything), n_A, n_B.
    """
    qs = _as_scores(decodings_or_scores, gold)
    n = len(qs)
    if n < 2:
        raise ValueError("honest_tau needs at least 2 questions")
    perm = np.random.default_rng(seed).permutation(n)
    a, b = qs.subset(perm[: n // 2]), qs.subset(perm[n // 2:])
    sweep_a, sweep_b, full = tau_sweep(a, taus=taus), tau_sweep(b, taus=taus), tau_sweep(qs, taus=taus)
    f1_b = float(tau_sweep(b, taus=[sweep_a.best_tau]).f1[0])
    f1_a = float(tau_sweep(a, taus=[sweep_b.best_tau]).f1[0])
    return {"tau_A": sweep_a.best_tau, "f1_B_at_tau_A": f1_b, "tau_B": sweep_b.best_tau, "f1_A_at_tau_B": f1_a,
            "honest_f1": (f1_b * len(b) + f1_a * len(a)) / n, "dev_best_tau": full.best_tau,
            "dev_best_f1": full.best_f1, "n_A": len(a), "n_B": len(b)}


def evaluate_decodings(decodings: dict, gold: dict[str, list[str]], tau: float = 0.0, *,
                       version: str | None = None) -> dict:
    """Official metrics of decodings at tau, for training evaluation and the dev view.

    v1.1: exact_match, f1 of the best span (tau ignored). v2.0: evaluate-v2.0.py run on the best spans with
    ``--na-prob-file`` = null_odds (-score_diff) and ``--na-prob-thresh`` just below -tau, so it answers
    exactly where ``score_diff > tau`` (the official rule answers where null_odds <= thresh): exact_match,
    f1, HasAns_*, NoAns_* of that decision (identical to :func:`tau_sweep` at tau), and the best-threshold
    search over the same files (best_exact, best_exact_thresh, best_f1, best_f1_thresh, best_tau), which
    does not depend on tau. ``tau`` is echoed in the result. Version None: v2.0 when any gold list is
    empty. (``bert-explorer eval`` reports what ``score`` gives on its written files instead: there the
    abstentions are "" texts, which the official script scores differently only for a gold such as
    "The" that normalises to "".)

    Raises:
        ValueError: a gold question without a decoding.
    """
    if version is None:
        version = "v2.0" if any(len(v) == 0 for v in gold.values()) else "v1.1"
    if version == "v1.1":
        return squad_evaluate(gold, predictions_at(decodings, None), version="v1.1")
    check_ids(gold, decodings, None, False)
    thresh = float(np.nextafter(-float(tau), -np.inf))   # null_odds <= thresh  <=>  score_diff > tau
    out = squad_evaluate(gold, predictions_at(decodings, None), _null_odds(decodings), thresh, version="v2.0")
    out["tau"] = float(tau)
    return out
