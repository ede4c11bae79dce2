"""Two classifiers on the same dev rows: is the difference real?

The figures are core.stats': the paired bootstrap of the accuracy and of the macro F1 difference (B - A)
and McNemar's exact test on the rows only one of them got right; :meth:`ClassifierComparison.lines` says
them in words (core.stats.difference_in_words). The inspector op ``compare_classifiers``
(explorer/worker/inspect_ops.py) scores both checkpoints (core.classify_dev) and calls
:func:`compare_classifiers`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core.stats import BootstrapResult, McNemarResult, difference_in_words, fmt_p


@dataclass
class ClassifierComparison:
    """A against B on the same ``n`` dev rows.

    Attributes:
        name_a, name_b: what the two are called (run names).
        source: the dev file (or training file with the run's held-out rows) the rows come from.
        n: rows scored by both.
        accuracy, macro_f1: core.stats BootstrapResult of B - A (fractions; value_a / value_b the two figures).
        mcnemar: core.stats McNemarResult (only A right, only B right, exact two-sided p).
    """

    name_a: str
    name_b: str
    source: str
    n: int
    accuracy: BootstrapResult
    macro_f1: BootstrapResult
    mcnemar: McNemarResult

    def lines(self) -> list[str]:
        """The comparison in words, one line each: macro F1 (difference, 95% interval), accuracy (difference,
        95% interval, McNemar p: McNemar's exact test is a test of accuracy, on the rows only one model got
        right), the discordant counts, which figure answers "which is better" and why, and the two figures."""
        a, b, m = self.name_a, self.name_b, self.mcnemar
        return [
            f"macro F1: {difference_in_words(self.macro_f1, label='macro F1', name_a=a, name_b=b)}",
            f"accuracy: {difference_in_words(self.accuracy, label='accuracy', name_a=a, name_b=b)}; "
            f"McNemar {fmt_p(m.p)}",
            f"McNemar's exact test: {m.only_a} rows only {a} got right, {m.only_b} only {b}; {fmt_p(m.p)}",
            "judge by macro F1 (every class counts the same); accuracy and McNemar's test count every row the "
            "same, so a model better on the smaller classes can lead on macro F1 and tie on accuracy",
            f"{a}: accuracy {100 * self.accuracy.value_a:.1f}%, macro F1 {100 * self.macro_f1.value_a:.1f}; "
            f"{b}: accuracy {100 * self.accuracy.value_b:.1f}%, macro F1 {100 * self.macro_f1.value_b:.1f} "
            f"(n {self.n} dev rows of {self.source}; paired bootstrap, {self.accuracy.resamples} resamples)",
        ]


def compare_classifiers(labels, logits_a, logits_b, *, name_a: str = "A", name_b: str = "B", source: str = "",
                        resamples: int = 10_000, seed: int = 0) -> ClassifierComparison:
    """Compare two classifiers' (n, K) logits on the same (n,) gold class ids: argmax predictions, then
    core.stats.paired_bootstrap_mean of "right" (accuracy), paired_bootstrap_macro_f1 over the K classes and
    mcnemar_exact. Raises ValueError when the shapes differ (not the same rows or classes) or n is 0."""
    from explorer.core.stats import mcnemar_exact, paired_bootstrap_macro_f1, paired_bootstrap_mean

    gold = np.asarray(labels, dtype=np.int64).ravel()
    za, zb = np.asarray(logits_a, dtype=float), np.asarray(logits_b, dtype=float)
    if za.shape != zb.shape or za.ndim != 2 or za.shape[0] != gold.size:
        raise ValueError(f"the two models scored different rows or classes ({za.shape} and {zb.shape} logits "
                         f"for {gold.size} rows)")
    if gold.size == 0:
        raise ValueError("no dev rows to compare on")
    pa, pb = za.argmax(axis=1), zb.argmax(axis=1)
    right_a, right_b = pa == gold, pb == gold
    acc = paired_bootstrap_mean(right_a, right_b, metric="accuracy", resamples=resamples, seed=seed)
    f1 = paired_bootstrap_macro_f1(gold, pa, pb, labels=list(range(za.shape[1])), resamples=resamples, seed=seed)
    return ClassifierComparison(name_a, name_b, source, int(gold.size), acc, f1, mcnemar_exact(right_a, right_b))
