"""What a queue of runs will take at a training speed (Qt- and torch-free): its training samples over that speed
(evaluation comes on top), and the built-in rough speeds for a 2-core CPU (2.3-8.6 samples/s measured for the
bundled 6-layer encoder on QA windows, about ten times that on a table's rows; BERT-base about five times slower). The speed measured by past runs of a model is
explorer.core.models.speed.measured_speed.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SPS = {"bundled:minilm": 3.0}
DEFAULT_SPS_OTHER = 0.6
# A row of a table or a tagged sentence (one short input, padded to its batch's longest) trains about ten times as
# fast as a full-length QA window, the case DEFAULT_SPS was measured on: the bundled encoder at max_seq_length 128
# trained SST-2 at 75.7 rows/s on a quiet 2-core Xeon (benchmarks/results/budget_run.json) and at about 30 rows/s
# at load 3 on a 2-core EPYC; CoNLL-2003 at 32 sentences/s at load 3-6 (ner_time_to_f1.json). The factor takes
# the busy end, so a first run's estimate errs towards fewer steps.
SHORT_INPUT_SPEEDUP = 10.0


@dataclass(frozen=True, kw_only=True)
class Speed:
    """samples_per_second and how many past runs measured it (0: the rough default)."""

    samples_per_second: float
    n_runs: int

    def describe(self) -> str:
        if self.n_runs:
            return (f"{self.samples_per_second:.1f} samples/s, the median of {self.n_runs} past run(s) of this "
                    "model here")
        return f"{self.samples_per_second:.1f} samples/s, a rough default (no past run of this model here)"


def format_duration(seconds: float) -> str:
    """"45 s", "12 min", "3 h 20 min"."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = seconds / 60
    if minutes < 90:
        return f"{minutes:.0f} min"
    return f"{int(minutes // 60)} h {int(minutes % 60)} min"


@dataclass(frozen=True, kw_only=True)
class QueueTime:
    """Seconds a queue of runs takes one after another: ``seconds`` with each run cut at its time budget,
    ``unbudgeted`` without the budget, ``n_capped`` of ``n_runs`` the budget ends first."""

    seconds: float
    unbudgeted: float
    n_capped: int
    n_runs: int


def queue_time(samples: list[int], samples_per_second: float, budget_seconds: float = 0.0) -> QueueTime:
    """Each run takes ``samples / samples_per_second`` seconds, or ``budget_seconds`` when that is shorter
    (a run with a time budget stops there: without it, 3 folds of a 45-second budget read as 4:42)."""
    each = [n / samples_per_second for n in samples]
    capped = [min(t, budget_seconds) if budget_seconds > 0 else t for t in each]
    return QueueTime(seconds=sum(capped), unbudgeted=sum(each), n_runs=len(each),
                     n_capped=sum(1 for t, c in zip(each, capped) if c < t))


def budget_clause(t: QueueTime, budget_seconds: float, fmt=None) -> str:
    """"; 3 of 3 runs stop at their 45 s time budget (without it 12 min)" when the budget shortens any, else ''."""
    fmt = fmt or format_duration
    if not t.n_capped:
        return ""
    return (f"; {t.n_capped} of {t.n_runs} runs stop at their {fmt(budget_seconds)} time budget "
            f"(without it {fmt(t.unbudgeted)})")


def on_top_words(t: QueueTime, on_top: str, budget_seconds: float, after: str = "", fmt=None) -> str:
    """What the estimate leaves out, for the queue ``t``: ``on_top`` without a
    time budget; with one, the evaluations count within each run's budget: when it stops every run, nothing of the
    runs comes on top ("the budget includes their evaluations; the out-of-fold predictions come on top"), else
    the evaluations come on top up to the budget."""
    if budget_seconds <= 0:
        return on_top
    budget = (fmt or format_duration)(budget_seconds)
    if t.n_capped == t.n_runs:
        return "the budget includes their evaluations" + (f"; {after} come on top" if after else "")
    return f"{on_top}, each run ending at its {budget} time budget at the latest"


def estimate_text(samples: list[int], speed: Speed, on_top: str = "evaluation comes on top",
                  budget_seconds: float = 0.0, after: str = "") -> str:
    """"Estimated time: 12 min in all (N training samples at S samples/s, ...; evaluation comes on top).\"";
    each run at most ``budget_seconds`` (its time budget; 0: none), as :func:`budget_clause` says, and what comes
    on top as :func:`on_top_words` says (``after``: what follows the runs)."""
    t = queue_time(samples, speed.samples_per_second, budget_seconds)
    return (f"Estimated time: {format_duration(t.seconds)} in all ({sum(samples):,} training samples at "
            f"{speed.describe()}{budget_clause(t, budget_seconds)}; {on_top_words(t, on_top, budget_seconds, after)}).")
