"""Two classifiers on the same dev rows: is the difference real?

The figures are core.metrics.significance': the paired bootstrap of the accuracy and of the macro F1 difference (B - A),
of the metric both runs pick their best checkpoint by when it is another (F_avg, weighted F1, binary F1,
Matthews: its label and scale from core.specs.metrics), and McNemar's exact test on the rows only one of them
got right; :meth:`ClassifierComparison.lines` says
them in words (core.metrics.significance.difference_in_words). The inspector op ``compare_classifiers``
(explorer/worker/inspector_ops.py) scores both checkpoints (core.classify.dev_report) and calls
:func:`compare_classifiers`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.core.specs.metrics import metric_spec
from explorer.core.metrics.significance import (BootstrapResult, McNemarResult, difference_in_words, fmt_p,
                                                verdict_direction)


# the figures a comparison can bootstrap from the two confusion matrices, by their metric_specs name
def _f1s(conf, _chosen):
    from explorer.core.metrics.significance import f1_per_class_of_confusions

    return f1_per_class_of_confusions(conf)


def _accuracy(conf, _chosen):
    total = conf.sum(axis=(1, 2))
    return np.divide(np.trace(conf, axis1=1, axis2=2), total, out=np.zeros(len(conf)), where=total > 0)


def _weighted_f1(conf, chosen):
    support = conf.sum(axis=2)
    total = support.sum(axis=1)
    return np.divide((_f1s(conf, chosen) * support).sum(axis=1), total, out=np.zeros(len(conf)), where=total > 0)


def _matthews(conf, _chosen):
    """Multi-class Matthews correlation (Gorodkin 2004) of each matrix; 0 where a denominator is 0
    (core.metrics.glue.matthews_corrcoef, vectorised)."""
    t, p = conf.sum(axis=2), conf.sum(axis=1)
    c, s = np.trace(conf, axis1=1, axis2=2), conf.sum(axis=(1, 2))
    cov = c * s - (t * p).sum(axis=1)
    denom = np.sqrt((s * s - (p * p).sum(axis=1)) * (s * s - (t * t).sum(axis=1)))
    return np.divide(cov, denom, out=np.zeros(len(conf)), where=denom > 0)


def _macro_f1(conf: np.ndarray, chosen) -> np.ndarray:
    """Macro F1 of (r, K, K) confusions over the classes each one holds in its gold labels or predictions, as
    core.metrics.glue.per_class_metrics (scikit-learn's rule) averages them: a class with no row is no F1 of 0."""
    f = _f1s(conf, chosen)
    present = (conf.sum(axis=2) + conf.sum(axis=1)) > 0
    counted = present.sum(axis=1)
    return np.where(counted > 0, (f * present).sum(axis=1) / np.maximum(counted, 1), 0.0)


CONFUSION_SCORES = {   # name -> (r, K, K) confusions, the chosen class ids -> (r,) values
    "accuracy": _accuracy,
    "macro_f1": lambda conf, chosen: _macro_f1(conf, chosen),
    "weighted_f1": _weighted_f1,
    "f1": lambda conf, chosen: _f1s(conf, chosen)[:, 1],                    # binary: F1 of class 1
    "f_avg": lambda conf, chosen: _f1s(conf, chosen)[:, list(chosen)].mean(axis=1),   # SemEval-2016's F_avg
    "matthews_corrcoef": _matthews,
}


def comparable_metric(name: str, num_classes: int, chosen: tuple = ()) -> bool:
    """Whether :func:`compare_classifiers` can bootstrap the metric ``name`` for a K = ``num_classes`` head:
    one of CONFUSION_SCORES, binary F1 only for K = 2, f_avg only with chosen classes (loss is not: it needs
    the probabilities, and the runs' Best dev says it)."""
    if name == "f1":
        return num_classes == 2
    if name == "f_avg":
        return bool(chosen)
    return name in CONFUSION_SCORES


@dataclass
class ClassifierComparison:
    """A against B on the same ``n`` dev rows.

    Attributes:
        name_a, name_b: what the two are called (run names).
        source: the dev file (or training file with the run's held-out rows) the rows come from.
        n: rows scored by both.
        accuracy, macro_f1: core.metrics.significance BootstrapResult of B - A (fractions; value_a / value_b the two figures).
        mcnemar: core.metrics.significance McNemarResult (only A right, only B right, exact two-sided p).
        picked_by: the metric each run picks its best checkpoint by (its config's metric_for_best, else the
            task's: core.specs.tasks.best_metric_name); "" where unknown (not a run of ours).
        judged: the bootstrap of that metric when both runs pick by the same one and it is neither accuracy
            nor macro F1 (those are above), e.g. F_avg; None otherwise.
        f1_classes: the classes F_avg averages (the names), when it is the judged metric.
        seeds: (A's seed, B's seed) when the two runs' settings differ in the seed alone (two restarts of one
            setting: the paired bootstrap over dev rows measures seed-to-seed variation, not a better setting);
            () otherwise.
        label_names: the class names (id order), to say which classes macro F1 counts and F_avg leaves out.
    """

    name_a: str
    name_b: str
    source: str
    n: int
    accuracy: BootstrapResult
    macro_f1: BootstrapResult
    mcnemar: McNemarResult
    picked_by: tuple = ("", "")
    judged: BootstrapResult | None = None
    f1_classes: tuple = ()
    seeds: tuple = ()
    label_names: tuple = ()

    def swapped(self) -> ClassifierComparison:
        """B against A on the same rows, without scoring again: every B - A interval mirrored (its ends negated
        and swapped, the figures of the two exchanged), McNemar's counts exchanged (its p is symmetric). The
        paired bootstrap draws the same resamples either way, so this equals :func:`compare_classifiers` with
        the logits the other way round."""
        from dataclasses import replace

        return replace(self, name_a=self.name_b, name_b=self.name_a, accuracy=mirrored(self.accuracy),
                       macro_f1=mirrored(self.macro_f1), judged=None if self.judged is None else mirrored(self.judged),
                       mcnemar=McNemarResult(self.mcnemar.only_b, self.mcnemar.only_a, self.mcnemar.p),
                       picked_by=tuple(reversed(self.picked_by)), seeds=tuple(reversed(self.seeds)))

    @property
    def judged_by(self) -> str:
        """The metric the verdict goes by: the runs' own when both pick by the same one and it is compared
        here (accuracy, macro F1 or :attr:`judged`'s), else macro F1."""
        a, b = self.picked_by
        if a and a == b and (a in ("accuracy", "macro_f1") or self.judged is not None):
            return a
        return "macro_f1"

    def _label(self, name: str) -> str:
        label = metric_spec(name).label
        return f"{label} ({', '.join(self.f1_classes)})" if name == "f_avg" and self.f1_classes else label

    def _words(self, boot: BootstrapResult, name: str) -> str:
        spec = metric_spec(name)
        share = spec.is_percent
        return difference_in_words(boot, label=spec.short or spec.label if not share else spec.label,
                                   scale=spec.scale if share else 1.0, unit="points" if share else "",
                                   digits=1 if share else 2, name_a=self.name_a, name_b=self.name_b)

    def _why(self) -> str:
        """The line that says which figure answers "which is better" and why."""
        judged, (pa, pb) = self.judged_by, self.picked_by
        rows = ("accuracy and McNemar's test count every row the same, so a model better on the smaller classes "
                "can lead on macro F1 and tie on accuracy")
        if judged == "macro_f1" and pa == pb == "macro_f1":
            return f"judge by macro F1, the metric both runs pick their best checkpoint by (every class counts the " \
                   f"same); {rows}"
        if judged == "accuracy":
            return ("judge by accuracy, the metric both runs pick their best checkpoint by (McNemar's test asks "
                    "whether its difference is real); macro F1 counts every class the same, so a model better on "
                    "the smaller classes can lead on macro F1 and tie on accuracy")
        if judged != "macro_f1":
            return (f"judge by {self._label(judged)}, the metric both runs pick their best checkpoint by; macro F1 "
                    f"counts every class the same, accuracy and McNemar's test every row the same")
        why = f"judge by macro F1 (every class counts the same); {rows}"
        if pa and pb and pa != pb:
            why += (f" (the runs pick their best checkpoint by different metrics: {self.name_a} by "
                    f"{self._label(pa)}, {self.name_b} by {self._label(pb)})")
        elif pa and pa == pb:
            why += f" (both runs pick their best checkpoint by {self._label(pa)}, which is not compared here)"
        return why

    def _boot(self, name: str) -> BootstrapResult:
        return {"accuracy": self.accuracy, "macro_f1": self.macro_f1}.get(name) or self.judged

    def _direction(self, name: str) -> int:
        """The verdict on ``name`` (+1 B better, -1 A better, 0 none), read at the scale its words are written at."""
        spec = metric_spec(name)
        scale, digits = (spec.scale, 1) if spec.is_percent else (1.0, 2)
        return verdict_direction(self._boot(name), scale, digits)

    def _why_they_differ(self, order: list[str]) -> str:
        """One sentence when a secondary metric's verdict is not the headline's (``order[0]``): what each of them
        counts that the headline does not; "" when all agree."""
        head = order[0]
        differ = [name for name in order[1:] if self._direction(name) != self._direction(head)]
        if not differ:
            return ""
        reasons = []
        for name in differ:
            if name == "accuracy":
                reasons.append("accuracy counts every row the same, so the largest classes weigh most")
            elif head == "f_avg":
                left_out = [c for c in self.label_names if c not in self.f1_classes]
                reasons.append(f"macro F1 averages the F1 of all {len(self.label_names)} classes, including "
                               f"{', '.join(left_out)}, which F_avg leaves out" if left_out else
                               "macro F1 averages the F1 of every class, F_avg only of its chosen classes")
            elif head == "accuracy":
                reasons.append("macro F1 counts every class the same, so the smaller classes weigh as much as "
                               "the largest")
            else:
                reasons.append(f"macro F1 counts every class the same, {self._label(head)} weighs them otherwise")
        names = " and ".join(self._label(name) for name in differ)
        return (f"Why {names} {'say' if len(differ) > 1 else 'says'} otherwise: {'; '.join(reasons)}; the verdict "
                f"is {self._label(head)}'s, the metric the comparison judges by.")

    def lines(self, marks=()) -> list[str]:
        """The comparison in words, one line each: the verdict by the judged metric first (the runs' own, e.g.
        F_avg, when both pick by it: difference, 95% interval), then macro F1 and accuracy marked secondary
        (difference, 95% interval, McNemar p: McNemar's exact test is a test of accuracy, on the rows only one
        model got right) and, when a secondary verdict is not the headline's, one sentence on why they can differ
        (what each counts: core.metrics.significance.verdict_direction decides), then ``marks`` (lines
        that say which of those figures read optimistic: core.metrics.optimism.chosen_checkpoint_notes), the discordant counts, which
        figure answers "which is better" and why, and the figures of both."""
        a, b, m = self.name_a, self.name_b, self.mcnemar
        judged = self.judged_by
        words = {"macro_f1": difference_in_words(self.macro_f1, label="macro F1", name_a=a, name_b=b),
                 "accuracy": (f"{difference_in_words(self.accuracy, label='accuracy', name_a=a, name_b=b, mcnemar=m)}"
                              f"; McNemar {fmt_p(m.p)}")}
        if judged not in words:
            words[judged] = self._words(self.judged, judged)
        order = [judged] + [name for name in ("macro_f1", "accuracy") if name != judged]
        # two restarts of one setting: the verdict is about these two trained models, never about a setting (a
        # bold "is better" under "seed-to-seed variation" read as a contradiction)
        which = " (these two trained models, not a setting)" if self.seeds else ""
        head = [f"Verdict by {self._label(judged)}{which}: {words[judged]}"]
        head += [f"{self._label(name)} (secondary): {words[name]}" for name in order[1:]]
        differ = self._why_they_differ(order)
        if differ:
            head.append(differ)

        def figures(pick) -> str:
            out = f"accuracy {100 * pick(self.accuracy):.1f}%, macro F1 {100 * pick(self.macro_f1):.1f}"
            if self.judged is not None:
                spec = metric_spec(self.judged.metric)
                value = pick(self.judged)
                out += f", {spec.label} " + (f"{100 * value:.1f}" if spec.is_percent else f"{value:.2f}")
            return out

        if self.seeds:
            head.insert(0, seed_only_note(*self.seeds))
        return head + list(marks) + [
            f"McNemar's exact test: {m.only_a} rows only {a} got right, {m.only_b} only {b}; {fmt_p(m.p)}",
            self._why(),
            f"{a}: {figures(lambda r: r.value_a)}; {b}: {figures(lambda r: r.value_b)} "
            f"(n {self.n} dev rows of {self.source}; paired bootstrap, {self.accuracy.resamples} resamples)",
        ]


def mirrored(boot: BootstrapResult) -> BootstrapResult:
    """A - B from a bootstrap of B - A on the same resamples: the difference and the interval's ends negated
    (low and high exchanged), the two figures exchanged."""
    from dataclasses import replace

    return replace(boot, value_a=boot.value_b, value_b=boot.value_a, difference=0.0 - boot.difference,
                   low=0.0 - boot.high, high=0.0 - boot.low)   # 0.0 - x: a difference of 0 stays +0.0, not -0.0


def seed_only_note(seed_a, seed_b) -> str:
    """The verdict of two runs whose settings differ in the seed alone: their difference is no setting's."""
    return (f"These runs differ only in the seed ({seed_a} and {seed_b}): the difference is seed-to-seed variation, "
            "not a better setting; run restarts of each setting (Groups) to compare settings. The verdict below "
            "says whether these two trained models differ on these rows, however large the difference.")


def training_amount(checkpoint: str) -> tuple[int, float | None] | None:
    """(optimizer steps, epochs) the run of ``checkpoint`` trained: its last ``step`` event's step and epoch
    (epochs None when not logged); None outside a run folder or before its first step."""
    from pathlib import Path

    from explorer.core.runs.layout import run_dir_of
    from explorer.core.runs.reading import read_run_events

    run_dir = run_dir_of(checkpoint)
    if run_dir is None:
        return None
    events, _ = read_run_events(Path(run_dir), steps="last")
    last = next((e for e in reversed(events) if e.get("event") == "step" and e.get("step")), None)
    if last is None:
        return None
    epoch = last.get("epoch")
    return int(last["step"]), float(epoch) if isinstance(epoch, int | float) else None


UNEQUAL_STEPS = 1.1   # runs whose step counts differ by more than this factor trained unequal amounts


def unequal_training_note(name_a: str, amount_a, name_b: str, amount_b, budgets=(0.0, 0.0)) -> str:
    """A note when two runs trained unequal amounts (their step counts, :func:`training_amount`, differ by more
    than UNEQUAL_STEPS): the comparison then mixes their settings with how long each trained; under equal time
    budgets (``budgets``, minutes) the machine's load decided that. "" when the amounts are alike or unknown."""
    if not amount_a or not amount_b or max(amount_a[0], amount_b[0]) <= UNEQUAL_STEPS * min(amount_a[0], amount_b[0]):
        return ""

    def said(name, amount):
        steps, epoch = amount
        return f"{name} trained {steps:,} steps" + (f" ({epoch:.2f} epochs)" if epoch is not None else "")

    text = f"Note: {said(name_a, amount_a)}, {said(name_b, amount_b)}"
    if budgets[0] and budgets[0] == budgets[1]:
        text += (f", each in a {budgets[0]:g}-minute time budget: how far a run gets in its time depends on the "
                 "machine's load")
    return text + ("; the difference mixes their settings with the amount of training (give both the same "
                   "Max steps or epochs to compare settings).")


def started_from_note(name_a: str, source_a: str, name_b: str, source_b: str, amounts=(None, None)) -> str:
    """A note when one run started from the other's checkpoint (its config's base ``model`` is a checkpoint of the
    other's run folder, as "Fine-tune on reviewed rows" launches one): the later run had the earlier one's training
    plus its own (``amounts``: :func:`training_amount` of A and B), so the two are no independent recipes. ""
    when neither did."""
    pairs = ((name_b, source_b, amounts[1], name_a, source_a), (name_a, source_a, amounts[0], name_b, source_b))
    for later, later_source, amount, earlier, earlier_source in pairs:
        if _started_from(later_source, earlier_source):
            steps, epoch = amount if amount else (None, None)
            more = (f"{epoch:.2f} epochs" if epoch is not None else f"{steps:,} steps" if steps else "its own training")
            return (f"Note: {later} started from {earlier}'s checkpoint: {later} had {earlier}'s training plus "
                    f"{more}; the difference is what that further training did, not two independent recipes.")
    return ""


def _started_from(source: str, other: str) -> bool:
    """Whether the run of checkpoint ``source`` was launched from a checkpoint of ``other``'s run folder."""
    from pathlib import Path

    from explorer.core.models.checkpoint_windows import checkpoint_run_config
    from explorer.core.runs.layout import run_dir_of

    base = str(checkpoint_run_config(source).get("model") or "")
    base_run, other_run, own_run = (run_dir_of(p) if p else None for p in (base, other, source))
    if base_run is None or other_run is None:
        return False
    same = Path(base_run).expanduser().resolve() == Path(other_run).expanduser().resolve()
    return same and (own_run is None or Path(own_run).resolve() != Path(other_run).resolve())


def compare_classifiers(labels, logits_a, logits_b, *, name_a: str = "A", name_b: str = "B", source: str = "",
                        resamples: int = 10_000, seed: int = 0, picked_by: tuple = ("", ""),
                        label_names=(), f1_classes=(), seeds: tuple = ()) -> ClassifierComparison:
    """Compare two classifiers' (n, K) logits on the same (n,) gold class ids: argmax predictions, then
    core.metrics.significance.paired_bootstrap_mean of "right" (accuracy), paired_bootstrap_macro_f1 over the classes in the gold or either prediction and
    mcnemar_exact; and, when both runs pick their best checkpoint by the same metric (``picked_by``: the two
    metric_for_best names) that is neither, core.metrics.significance.paired_bootstrap_confusion of it (CONFUSION_SCORES:
    F_avg over ``f1_classes``, names of ``label_names``; weighted F1; binary F1; Matthews), with the same seed.
    ``seeds``: the two runs' seeds when their settings differ in nothing else (the verdict then says so first).
    Raises ValueError when the shapes differ (not the same rows or classes) or n is 0."""
    from explorer.core.metrics.significance import (mcnemar_exact, paired_bootstrap_confusion, paired_bootstrap_macro_f1,
                                     paired_bootstrap_mean)

    gold = np.asarray(labels, dtype=np.int64).ravel()
    za, zb = np.asarray(logits_a, dtype=float), np.asarray(logits_b, dtype=float)
    if za.shape != zb.shape or za.ndim != 2 or za.shape[0] != gold.size:
        raise ValueError(f"the two models scored different rows or classes ({za.shape} and {zb.shape} logits "
                         f"for {gold.size} rows)")
    if gold.size == 0:
        raise ValueError("no dev rows to compare on")
    k = za.shape[1]
    pa, pb = za.argmax(axis=1), zb.argmax(axis=1)
    right_a, right_b = pa == gold, pb == gold
    acc = paired_bootstrap_mean(right_a, right_b, metric="accuracy", resamples=resamples, seed=seed)
    present = sorted(set(gold.tolist()) | set(pa.tolist()) | set(pb.tolist()))   # the run's macro F1 rule
    f1 = paired_bootstrap_macro_f1(gold, pa, pb, labels=present, resamples=resamples, seed=seed)
    names = [str(n) for n in label_names]
    classes = tuple(c for c in f1_classes if c in names)
    chosen = tuple(names.index(c) for c in classes)
    metric = picked_by[0] if len(picked_by) == 2 and picked_by[0] == picked_by[1] else ""
    judged = None
    if metric not in ("", "accuracy", "macro_f1") and comparable_metric(metric, k, chosen):
        score = CONFUSION_SCORES[metric]
        judged = paired_bootstrap_confusion(lambda conf: score(conf, chosen), gold, pa, pb, labels=list(range(k)),
                                            metric=metric, resamples=resamples, seed=seed)
    return ClassifierComparison(name_a, name_b, source, int(gold.size), acc, f1, mcnemar_exact(right_a, right_b),
                                tuple(picked_by), judged, classes if metric == "f_avg" else (), tuple(seeds),
                                tuple(names))


def trained_on_note(named) -> str:
    """The warning of a comparison where a model trained on some of the dev rows it is judged on, naming each
    that did. ``named``: (name, overlap) for model A and model B, overlap a core.metrics.optimism.DevOverlap of
    that model's training rows against the dev rows (None: not known). The paired tests assume neither model saw
    the rows, so a model's advantage on rows it trained on is optimistic. '' when neither trained on any."""
    seen = [(name, o) for name, o in named if o is not None and o.shared]
    if not seen:
        return ""
    n_dev = seen[0][1].n_dev
    if len(seen) == 1:
        name, o = seen[0]
        return (f"Warning: {name} trained on {o.shared:,} of these {n_dev:,} dev rows (the same texts), so its "
                "figures on them are optimistic and the comparison favours it; compare the two on rows neither "
                "trained on (a dev file kept apart from both training files).")
    which = " and ".join(f"{name} on {o.shared:,}" for name, o in seen)
    return (f"Warning: both trained on some of these {n_dev:,} dev rows (the same texts): {which}, so the figures "
            "of both on them are optimistic and the comparison favours the one that saw more of them; compare the "
            "two on rows neither trained on (a dev file kept apart from both training files).")


def swapped_note(name_a: str, name_b: str, overlap) -> str:
    """The note of a comparison whose first model trained on some of the second run's own dev rows (``overlap``:
    core.metrics.optimism.DevOverlap of A's training rows against B's dev rows; None: not known or the same rows
    as A's): swapped, judged on B's dev rows, the comparison would favour A. '' when A trained on none."""
    if overlap is None or not overlap.shared:
        return ""
    return (f"Note: {name_a} trained on {overlap.shared:,} of the {overlap.n_dev:,} dev rows of {name_b}'s run (the "
            f"same texts): swapped, judged on those rows, the comparison would favour {name_a}.")

