"""One run beside its baselines, on the rows it was scored on (Qt-free; torch to score the checkpoint).

:func:`run_baseline` reads a run folder's config, loads its training rows and its dev rows exactly as its
training did (the training Task's reader; the held-out ``dev_split.csv`` when it had no dev file, so the
baseline never sees a dev row), fits the bag-of-words baseline on the training rows (core.studies.baseline),
scores the run's checkpoint on the dev rows (core.training.dev_scoring, raw logits: no temperature) and says
whether the fine-tune beats the baseline (the paired test of core.studies.baseline.versus_model). For a
sentence-pair regression it adds the base encoder's own answer: the cosine of the mean-pooled last-layer
vectors of the two sentences (core.embeddings.pair_cosine), scored by Pearson's r against the gold scores. The
marks of core.metrics.optimism say which figures are optimistic (the best checkpoint chosen on these rows,
dev rows repeated in training, thin classes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from explorer.core.errors import UserError
from explorer.core.specs.heads import Scores


PROGRESS_PREFIX = "progress "   # `bert-explorer baseline --progress`: 'progress {"stage", "done", "total"}' on stderr


@dataclass(kw_only=True)
class RunBaselineReport:
    """``run_id``, ``checkpoint`` (last | best), ``n_train`` / ``n_dev`` rows, ``verdict``
    (core.studies.baseline.BaselineVerdict), ``encoder_cosine`` (None, or {"pearson": FigureInterval dict,
    "model": FigureInterval dict, "difference": paired bootstrap dict} for a sentence-pair regression),
    ``marks`` (core.metrics.optimism)."""

    run_id: str
    checkpoint: str
    n_train: int
    n_dev: int
    verdict: object
    encoder_cosine: dict | None = None
    marks: list = field(default_factory=list)

    def lines(self) -> list[str]:
        from explorer.core.metrics.optimism import mark_lines

        out = [f"{self.run_id} (checkpoints/{self.checkpoint}) against a TF-IDF + linear baseline fitted on its "
               f"{self.n_train} training rows, both scored on its {self.n_dev} dev rows:"]
        out += [f"  {line}" for line in self.verdict.lines]
        if self.encoder_cosine:
            c, d = self.encoder_cosine["cosine"], self.encoder_cosine["difference"]
            cosine = (f"undefined ({c['undefined']})" if c.get("undefined")
                      else f"{c['value']:.3f} ({c['low']:.3f} to {c['high']:.3f})")
            versus = (f"undefined ({d['undefined']})" if d.get("undefined")
                      else f"{d['difference']:+.3f} ({d['low']:+.3f} to {d['high']:+.3f})")
            out.append(f"  the base encoder without fine-tuning (cosine of mean-pooled vectors): Pearson r {cosine}; "
                       f"fine-tuned - encoder {versus}")
        return out + mark_lines(self.marks)

    def to_dict(self) -> dict:
        return {"run_id": self.run_id, "checkpoint": self.checkpoint, "n_train": self.n_train, "n_dev": self.n_dev,
                "lines": self.verdict.lines, "figures": self.verdict.figures, "difference": self.verdict.difference,
                "encoder_cosine": self.encoder_cosine, "marks": [m.to_dict() for m in self.marks]}

    def saved(self) -> dict:
        """What :func:`write_run_baseline` keeps: :meth:`to_dict` plus the capsule's baseline keys (``name``,
        ``metrics``: the baseline's figures, ``detail``: the paired test of the judged metric in words)."""
        from explorer.core.specs.metrics import metric_spec

        d = self.verdict.difference
        detail = ""
        if d:   # a share's difference in points, as the figures beside it are printed
            spec = metric_spec(str(d["metric"]))
            k, unit, n = (spec.scale, " points", 2) if spec.is_percent else (1.0, "", 3)
            detail = (f"fine-tuned - baseline {d['metric']} {k * d['difference']:+.{n}f}{unit} ({k * d['low']:+.{n}f} "
                      f"to {k * d['high']:+.{n}f}, {round(100 * d['level'])}% paired bootstrap"
                      + (f"; McNemar p {d['mcnemar_p']:.3g}" if "mcnemar_p" in d else "") + ")")
        return {**self.to_dict(), "name": "bag-of-words (TF-IDF + linear)",
                "metrics": dict(self.verdict.figures.get("baseline", {})), "detail": detail}


def write_run_baseline(report: RunBaselineReport, run_dir: str | Path) -> Path:
    """Write ``report`` into the run folder (core.runs.layout.bag_of_words_file, atomically); returns the file."""
    import json
    import os

    from explorer.core.runs.layout import bag_of_words_file

    path = bag_of_words_file(run_dir)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report.saved(), indent=1), encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_run_baseline(run_dir: str | Path) -> dict | None:
    """The run's saved comparison with its bag-of-words baseline (:meth:`RunBaselineReport.saved`), or None (none
    computed, or a file that cannot be read)."""
    import json

    from explorer.core.runs.layout import bag_of_words_file

    path = bag_of_words_file(run_dir)
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def baseline_problem(task: str) -> str:
    """Why a run of ``task`` has no bag-of-words comparison (a sentence), or "" when it can have one: single-label
    and multi-label classification and regression runs of a table."""
    from explorer.core.specs.tasks import find_task_facts

    facts = find_task_facts(task)
    head = facts.head if facts is not None else None
    if head is None or not head.bag_of_words or facts.data_kind != "table" or head.scores not in (
            Scores.SOFTMAX, Scores.SCORE, Scores.SIGMOID):
        return (f"`baseline` compares single-label and multi-label classification and regression runs of a table, "
                f"not task {task}")
    return ""


def run_rows(run_dir: Path, config):
    """(training rows, dev rows) of a run as its training read them (ClassificationData each, dev labelled
    with the training classes). Raises UserError when the run has no dev rows."""
    from explorer.core.training.tasks import get_task

    task = get_task(config.task)
    train = task.load(config, "train")
    train, held_out, _ = task.split_dev(train, config, run_dir)
    dev = held_out if held_out is not None else (task.load(config, "dev") if config.dev else None)
    if dev is None:
        raise UserError(f"{run_dir}: the run has no dev rows (no dev file, dev fraction 0); nothing to compare on")
    dev = task.check_data(train, dev, config) or dev
    return train, dev


def run_baseline(run_dir: str | Path, *, checkpoint: str = "last", resamples: int = 10_000,
                 batch_size: int = 32, progress=None) -> RunBaselineReport:
    """The run against its baselines (see the module docstring). ``progress(stage, done, total)`` (optional) is
    told each stage in words ("fitting TF-IDF + linear on 800 training rows") with its dev rows scored so far
    (total 0: a stage not counted in rows). Raises UserError: not a run folder, a task without a baseline, no
    such checkpoint, no dev rows; and the loaders' data errors."""
    say = progress or (lambda _stage, _done, _total: None)
    from explorer.core.metrics.optimism import dev_overlap, figure_marks
    from explorer.core.runs.reading import read_config
    from explorer.core.specs.tasks import best_metric_name, find_task_facts
    from explorer.core.specs.train_config import TrainConfig
    from explorer.core.studies.baseline import baseline_outputs, versus_model
    from explorer.core.training.checkpoints import checkpoint_dir

    run_dir = Path(run_dir).expanduser()
    raw, _ = read_config(run_dir)
    facts = find_task_facts(str(raw.get("task", "")))
    if not raw or facts is None:
        raise UserError(f"{run_dir}: not a run folder of this app (no readable config.json with a task)")
    head = facts.head
    problem = baseline_problem(facts.name)
    if problem:
        raise UserError(f"{run_dir}: {problem}")
    ckpt = checkpoint_dir(run_dir, checkpoint)
    if ckpt is None:
        raise UserError(f"{run_dir}: no complete checkpoints/{checkpoint}")
    config = TrainConfig.from_dict(raw, str(run_dir / "config.json"))
    say("reading the run's training and dev rows", 0, 0)
    train, dev = run_rows(run_dir, config)
    names = [] if train.regression else train.class_names()
    say(f"fitting TF-IDF + linear on {len(train):,} training rows", 0, 0)
    base = baseline_outputs(train, dev, head, num_classes=len(names) or None, seed=config.seed)
    say(f"scoring checkpoints/{checkpoint} on the dev rows", 0, len(dev))
    gold, model = _checkpoint_outputs(ckpt, config, dev, head, batch_size,
                                      lambda done, total: say(f"scoring checkpoints/{checkpoint} on the dev rows", done, total))
    say(f"the paired test ({resamples:,} bootstrap resamples)", 0, 0)
    metric = best_metric_name(raw)
    verdict = versus_model(gold, base, model, head, class_names=names, f1_classes=config.f1_classes, metric=metric,
                           resamples=resamples, seed=0, source=str(dev.source))
    cosine = None
    if head.scores is Scores.SCORE and dev.texts_b is not None:
        cosine = _encoder_cosine(config, dev, gold, model, resamples)
    texts = (lambda d: list(zip(d.texts_a, d.texts_b)) if d.texts_b is not None else list(d.texts_a))  # noqa: E731
    chosen = (f"the checkpoint (checkpoints/best, picked by {metric})",) if checkpoint == "best" else ()
    support = None if train.regression else {n: int(_examples_of(gold, k)) for k, n in enumerate(names)}
    marks = figure_marks(chosen_on_rows=chosen, class_support=support, overlap=dev_overlap(texts(train), texts(dev)))
    return RunBaselineReport(run_id=run_dir.name, checkpoint=checkpoint, n_train=len(train), n_dev=len(dev),
                             verdict=verdict, encoder_cosine=cosine, marks=marks)


def _checkpoint_outputs(ckpt: Path, config, dev, head, batch_size: int, rows_done=None) -> tuple[np.ndarray, np.ndarray]:
    """(gold, the checkpoint's outputs) on the dev rows: class ids and (n, K) logits, or scores and (n,).
    ``rows_done(n, total)`` (optional) after each batch: the feature rows scored so far, of all."""
    from explorer.core.models.eval_mode import inference
    from explorer.core.models.loading import load_model
    from explorer.core.training.tasks import get_task

    loaded = load_model(str(ckpt), task=head.model_head)
    task = get_task(config.task)
    feats = task.featurize(dev, loaded.tokenizer, config, train=False)
    device = next(loaded.model.parameters()).device
    chunks = []
    with inference(loaded.model):
        for i in range(0, len(feats), batch_size):
            batch = feats.collate(list(range(i, min(i + batch_size, len(feats)))))
            out = loaded.model(**{k: v.to(device) for k, v in task.model_inputs(batch).items()})
            chunks.append(out.logits.float().cpu().numpy())
            if rows_done is not None:
                rows_done(min(i + batch_size, len(feats)), len(feats))
    logits = np.concatenate(chunks)
    if head.scores is Scores.SCORE:
        return np.asarray(dev.labels, dtype=float), np.asarray(logits, dtype=float)[:, 0]
    if head.scores is Scores.SIGMOID:
        from explorer.core.data.scores_and_label_sets import multi_hot

        return multi_hot(dev.labels, logits.shape[1]).astype(np.int64), np.asarray(logits, dtype=float)
    return np.asarray(dev.labels, dtype=np.int64), np.asarray(logits, dtype=float)


def _examples_of(gold: np.ndarray, k: int) -> int:
    """Dev rows of class k: (n,) class ids equal to k, or (n, K) label sets holding label k."""
    g = np.asarray(gold)
    return int(g[:, k].sum()) if g.ndim == 2 else int((g == k).sum())


def _encoder_cosine(config, dev, gold, model, resamples: int) -> dict:
    from explorer.core.embeddings.pair_cosine import pair_cosine
    from explorer.core.metrics.intervals import correlation_interval
    from explorer.core.metrics.significance import paired_bootstrap

    from explorer.core.metrics.regression import undefined_reason

    cos = pair_cosine(config.model, dev.texts_a, dev.texts_b, max_seq_length=config.max_seq_length)
    why = undefined_reason(np.asarray(model, dtype=float), np.asarray(gold, dtype=float))
    if why:   # the fine-tune's r has no value (constant predictions): no difference to bootstrap
        return {"cosine": correlation_interval(gold, cos).to_dict(),
                "difference": {"difference": None, "low": None, "high": None, "level": 0.95, "undefined": why}}
    data_a = np.stack([gold, cos], axis=1)
    data_b = np.stack([gold, model], axis=1)

    def pearson(idx, d):
        return float(np.corrcoef(d[idx, 0], d[idx, 1])[0, 1])

    boot = paired_bootstrap(pearson, data_a, data_b, metric="pearson", resamples=min(resamples, 2_000))
    return {"cosine": correlation_interval(gold, cos).to_dict(),
            "difference": {"difference": boot.difference, "low": boot.low, "high": boot.high, "level": boot.level}}
