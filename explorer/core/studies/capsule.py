"""A replication capsule: one folder a paper's appendix can cite, and the command that reproduces its figures.

``bert-explorer capsule RUN`` writes ``<RUN>/capsule`` (or ``--out``)::

    capsule.json      everything below as data (the command's --json prints it)
    config.json       the run's training config, paths made absolute, as `train --config` reads it
    command.txt       the exact command lines: the training command, the reproduction check
    data.json         SHA-256 and size of every input file: training and dev data, the starting model's files
    versions.json     Python, torch, transformers, datasets, accelerate, numpy, scikit-learn, this package (+ git
                      commit), the platform and the device the run trained on
    metrics.md        the final and best dev figures as printed (the reproduction is compared on these digits),
                      with 95% Wilson intervals for shares of examples (accuracy, exact match), 95% bootstrap
                      intervals of the final headline figures over the run's dev rows (accuracy, macro F1,
                      MCC, F_avg; Pearson and Spearman: core/studies/capsule_intervals.py), the calibration,
                      the baseline(s)
    methods.md        a methods paragraph stating all of it
    events.jsonl      the run's event log as it was

``bert-explorer capsule --check FOLDER`` trains the capsule's config again into ``FOLDER/reproduced`` (same
seed, same data: their hashes are checked first) and compares the final figures digit by digit as metrics.md
prints them. On the same machine and software the figures match: training seeds Python, numpy and torch from
the config's seed. Qt-free; torch only in the training child.
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.errors import UserError
from explorer.core.specs.metrics import UNDEFINED

CAPSULE_FOLDER = "capsule"
CAPSULE_FILE = "capsule.json"
DIGITS = 4                     # the printed figures: 4 decimals on the metric's display scale
PATH_FIELDS = ("model", "train", "dev")
SHARE_METRICS = ("accuracy", "exact_match", "exact")   # means of 0/1 per example: a binomial interval applies
PACKAGES = ("torch", "transformers", "datasets", "accelerate", "numpy", "scikit-learn", "scipy", "tokenizers",
            "bert-explorer")


class CapsuleError(UserError):
    """A run a capsule cannot be written for (no config, no evaluation) or a capsule that cannot be checked."""


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def hash_inputs(config: dict) -> dict:
    """{field: [{"path", "bytes", "sha256"}]} of the config's local inputs (a folder: each of its files, sorted;
    a bundled model: its installed files); a hub id or a missing path: {"source": value, "note": "not a local
    file: not hashed"}."""
    out = {}
    for name in PATH_FIELDS:
        value = str(config.get(name) or "")
        if not value:
            continue
        p = Path(_local_model(value) if name == "model" else value)
        files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p] if p.is_file() else []
        if not files:
            out[name] = {"source": value, "note": "not a local file: not hashed"}
            continue
        out[name] = [{"path": str(f), "bytes": f.stat().st_size, "sha256": sha256_of(f)} for f in files]
    return out


def _local_model(source: str) -> str:
    """A bundled model's folder (bundled:minilm: the installed package's files), else the source as given."""
    from explorer.core.models.sources import BUNDLED_PREFIX, ModelSourceError, resolve_source

    if not source.startswith(BUNDLED_PREFIX):
        return source
    try:
        return resolve_source(source)
    except ModelSourceError:
        return source


def versions(device: str = "") -> dict:
    """The versions of Python and the packages a run's figures depend on (importlib.metadata; "not installed"),
    the platform, and the device the run trained on."""
    from importlib import metadata

    out = {"python": platform.python_version(), "platform": platform.platform(), "device": device}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def absolute_config(config: dict, base: Path) -> dict:
    """The config with its input paths absolute (relative ones resolved against ``base``, the folder the run
    was started from, when they exist there) and no run id or output folder (the check gives its own)."""
    out = {k: v for k, v in config.items() if k not in ("run_id", "output_dir", "resume")}
    for name in PATH_FIELDS:
        value = str(config.get(name) or "")
        if value and not Path(value).is_absolute() and (base / value).exists():
            out[name] = str((base / value).resolve())
    return out


def printed(value: float, name: str, task: str) -> str:
    """A figure as the capsule prints it: the metric's display scale (percent for shares), DIGITS decimals;
    "undefined" for a figure with no value (null or NaN: a correlation of constant predictions)."""
    from explorer.core.specs.metric_display import display_scale

    if value is None or not math.isfinite(value):
        return "undefined"
    return f"{value * display_scale(name, task):.{DIGITS}f}"


def wilson_interval(share: float, n: int, level: float = 0.95) -> tuple[float, float] | None:
    """The Wilson score interval of a share of n examples (scipy.stats.binomtest); None when n is 0."""
    from scipy.stats import binomtest

    if n <= 0:
        return None
    ci = binomtest(int(round(share * n)), n).proportion_ci(confidence_level=level, method="wilson")
    return float(ci.low), float(ci.high)


@dataclass(kw_only=True)
class Figures:
    """An evaluation's figures: step, the metrics (stored scale), n (dev examples; 0 unknown), the printed
    figures and the Wilson intervals of the share metrics (printed too). A metric the evaluation gave as undefined
    (a correlation of constant predictions) is printed "undefined (the predictions are constant (…))", never
    left out nor written as a number."""

    step: int
    metrics: dict
    n: int
    task: str
    shown: dict = field(default_factory=dict)
    intervals: dict = field(default_factory=dict)

    @classmethod
    def of(cls, event: dict, task: str) -> "Figures":
        """The figures of one ``eval`` event of a run of ``task``."""
        from explorer.core.specs.tasks import is_qa_task

        metrics = {k: float(v) for k, v in (event.get("metrics") or {}).items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and k != "total"}
        n = int((event.get("metrics") or {}).get("total") or 0)
        f = cls(step=int(event.get("step", 0)), metrics=metrics, n=n, task=task)
        undefined = (event.get("metrics") or {}).get(UNDEFINED)   # {metric: why it has no value}
        undefined = undefined if isinstance(undefined, dict) else {}
        f.shown = {k: printed(metrics[k], k, task) if k in metrics else f"undefined ({undefined[k]})"
                   for k in event.get("metrics") or {} if k in metrics or k in undefined}
        stored_percent = is_qa_task(task)     # SQuAD stores percent; classification stores fractions
        for k in SHARE_METRICS:
            if k in metrics and n:
                ci = wilson_interval(metrics[k] / 100 if stored_percent else metrics[k], n)
                if ci is not None:
                    back = 100 if stored_percent else 1
                    f.intervals[k] = [printed(ci[0] * back, k, task), printed(ci[1] * back, k, task)]
        return f

    def to_dict(self) -> dict:
        return {"step": self.step, "n": self.n, "metrics": self.metrics, "printed": self.shown,
                "intervals_95": self.intervals}


def _evaluations(events: list[dict]) -> list[dict]:
    """The run's evaluations, those a resume orphaned left out (explorer.core.runs.restarts)."""
    from explorer.core.runs.restarts import drop_orphaned

    from explorer.core.protocol.events import run_evaluations

    return [e for e in run_evaluations(drop_orphaned(events)[0]) if isinstance(e.get("metrics"), dict)]


def build_capsule(run_dir: str | Path, *, started_from: Path | None = None, commit: str | None = None) -> dict:
    """Everything a capsule states about the run folder ``run_dir`` (see the module docstring), as data.

    started_from: the folder relative input paths are resolved against (default: the current folder).
    commit: this package's git commit, when known. Raises CapsuleError: no config.json, no evaluation."""
    from explorer.core.metrics.calibration import CALIBRATION_FILE
    from explorer.core.protocol.events import read_events
    from explorer.core.runs.layout import config_file, events_file
    from explorer.core.specs.best import best_of_events
    from explorer.core.specs.tasks import find_task_facts
    from explorer.core.studies.capsule_marks import capsule_marks

    run_dir = Path(run_dir)
    if not config_file(run_dir).is_file():
        raise CapsuleError(f"{run_dir}: not a run folder (no config.json)")
    config = json.loads(config_file(run_dir).read_text(encoding="utf-8"))
    events = read_events(events_file(run_dir)) if events_file(run_dir).is_file() else []
    evals = _evaluations(events)
    if not evals:
        raise CapsuleError(f"{run_dir}: the run has no dev evaluation yet; a capsule states figures")
    task = str(config.get("task", ""))
    facts = find_task_facts(task)
    started = next((e for e in reversed(events) if e.get("event") == "started"), {})
    metric = (config.get("metric_for_best") or (facts.best_metric if facts is not None else "")) or ""
    best_step = best_of_events(evals, metric) if metric else None   # never an orphaned evaluation
    best = next((e for e in evals if best_step and e.get("step") == best_step[0]), None)
    calibration = None
    if (run_dir / CALIBRATION_FILE).is_file():
        calibration = json.loads((run_dir / CALIBRATION_FILE).read_text(encoding="utf-8"))
    baselines = [started["dev_baseline"]] if isinstance(started.get("dev_baseline"), dict) else []
    baselines += [json.loads(p.read_text(encoding="utf-8")) for p in sorted(run_dir.glob("baseline*.json"))]
    cfg = absolute_config(config, started_from or Path.cwd())
    return {"run": str(run_dir.resolve()), "run_id": run_dir.name, "task": task, "seed": config.get("seed"),
            "config": cfg, "data": hash_inputs(cfg),
            "versions": {**versions(str(started.get("device") or "")), "bert-explorer commit": commit or ""},
            "final": final_figures(run_dir, evals[-1], task, config.get("f1_classes") or ()),
            "best": Figures.of(best, task).to_dict() if best else None, "best_metric": metric,
            "marks": capsule_marks(events=events, final=evals[-1].get("metrics") or {}, metric=metric,
                                   calibration=calibration),
            "calibration": calibration, "baselines": baselines,
            "steps": started.get("steps_total"), "train_examples": started.get("num_train_examples")}


def final_figures(run_dir: Path, event: dict, task: str, f1_classes=()) -> dict:
    """Figures.to_dict() of the final evaluation ``event``, with "bootstrap_95": {metric: {value, low, high, se,
    n, level, resamples, seed, "printed": [low, high]}} of its headline figures over the run's dev rows, and
    "bootstrap_note": why a headline figure has none ("" when each has one)."""
    from explorer.core.studies.capsule_intervals import headline_intervals

    fig = Figures.of(event, task)
    found, note = headline_intervals(run_dir, fig.metrics, fig.n, f1_classes=f1_classes)
    out = fig.to_dict()
    out["bootstrap_95"] = {k: {**iv.to_dict(), "printed": [printed(iv.low, k, task), printed(iv.high, k, task)]}
                           for k, iv in found.items()}
    out["bootstrap_note"] = note
    return out


def command_lines(folder: Path) -> list[str]:
    """The capsule's command lines: the training it reproduces, the check that runs it and compares."""
    return [f"bert-explorer train --config {folder / 'config.json'} --output-dir {folder / 'reproduced'} "
            f"--run-name reproduced",
            f"bert-explorer capsule --check {folder}"]


def write_capsule(doc: dict, folder: str | Path) -> Path:
    """Write the capsule folder for :func:`build_capsule`'s ``doc``; returns the folder."""
    from explorer.core.runs.layout import events_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    doc = {**doc, "commands": command_lines(folder.resolve())}
    (folder / "config.json").write_text(json.dumps(doc["config"], indent=1), encoding="utf-8")
    (folder / "command.txt").write_text("\n".join(doc["commands"]) + "\n", encoding="utf-8")
    (folder / "data.json").write_text(json.dumps(doc["data"], indent=1), encoding="utf-8")
    (folder / "versions.json").write_text(json.dumps(doc["versions"], indent=1), encoding="utf-8")
    (folder / "metrics.md").write_text("\n".join(metrics_lines(doc)) + "\n", encoding="utf-8")
    (folder / "methods.md").write_text(methods_paragraph(doc) + "\n", encoding="utf-8")
    source_events = events_file(doc["run"])
    if source_events.is_file():
        events_file(folder).write_bytes(source_events.read_bytes())
    (folder / CAPSULE_FILE).write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return folder


def metrics_lines(doc: dict) -> list[str]:
    """metrics.md: the final and best figures as printed, intervals, calibration, baselines."""
    from explorer.core.specs.metric_display import metric_label
    from explorer.core.studies.capsule_intervals import interval_words
    from explorer.core.studies.capsule_marks import mark_lines

    task = doc["task"]
    out = [f"# Figures of run {doc['run_id']}", ""]
    for title, fig in (("final", doc["final"]), ("best", doc["best"])):
        if not fig:
            continue
        out.append(f"## {title} evaluation (step {fig['step']}, {fig['n'] or 'unknown'} dev examples)")
        out += [f"- {metric_label(k, task)}: {v}{interval_words(fig, k)}" for k, v in fig["printed"].items()]
        boot = next(iter((fig.get("bootstrap_95") or {}).values()), None)
        if boot:
            out.append(f"- bootstrap: paired percentile, {boot['resamples']} resamples of the {boot['n']} dev rows "
                       f"(seed {boot['seed']}, scipy.stats.bootstrap)")
        if fig.get("bootstrap_note"):
            out.append(f"- {fig['bootstrap_note']}")
        out += mark_lines((doc.get("marks") or {}).get(title, [])) + [""]
    out.append("## calibration")
    cal = doc.get("calibration")
    out.append(f"- temperature {cal.get('temperature'):.4f} fitted on {cal.get('n')} dev examples (calibration.json)"
               if cal else "- no temperature was fitted for this run")
    out += mark_lines((doc.get("marks") or {}).get("calibration", []))
    out += ["", "## baselines"]
    out += [f"- {b.get('name')}: " + ", ".join(f"{metric_label(k, task)} {printed(v, k, task)}"
                                            for k, v in (b.get("metrics") or {}).items())
            + (f" ({b.get('detail')})" if b.get("detail") else "") for b in doc.get("baselines") or []] or ["- none recorded"]
    return out


def methods_paragraph(doc: dict) -> str:
    """A methods paragraph stating the model, data (with hashes), recipe, seed, software, figures."""
    from explorer.core.specs.metric_display import metric_label
    from explorer.core.studies.capsule_marks import methods_sentence

    c, v, task = doc["config"], doc["versions"], doc["task"]

    def first_hash(name):
        d = doc["data"].get(name)
        return d[0]["sha256"][:12] if isinstance(d, list) and d else "not hashed"

    final = doc["final"]
    wilson, boot = final.get("intervals_95") or {}, final.get("bootstrap_95") or {}

    def ci(k):
        lo_hi = wilson.get(k) or (boot[k]["printed"] if k in boot else None)
        return f" (95% CI {lo_hi[0]} to {lo_hi[1]})" if lo_hi else ""

    figures = "; ".join(f"{metric_label(k, task)} {s}{ci(k)}" for k, s in final["printed"].items()
                        if not k.endswith("loss"))
    lr = c.get("learning_rate")
    parts = [
        f"We fine-tuned {c.get('model')} for the {task} task on {Path(str(c.get('train'))).name} "
        f"(SHA-256 {first_hash('train')}) and evaluated on "
        + (f"{Path(str(c.get('dev'))).name} (SHA-256 {first_hash('dev')})" if c.get("dev")
           else f"a held-out {c.get('dev_fraction')} of the training rows"),
        f"with batch size {c.get('batch_size')}, learning rate {lr if lr is not None else 'the task default'}, "
        f"{c.get('max_steps') or c.get('epochs')} {'steps' if c.get('max_steps') else 'epochs'}, maximum sequence "
        f"length {c.get('max_seq_length')}, warm-up ratio {c.get('warmup_ratio')}, weight decay "
        f"{c.get('weight_decay')} and seed {doc.get('seed')}",
        f"using Python {v.get('python')}, torch {v.get('torch')}, transformers {v.get('transformers')} and "
        f"bert-explorer {v.get('bert-explorer')}" + (f" (commit {v['bert-explorer commit']})"
                                                    if v.get("bert-explorer commit") else "")
        + (f" on {v['device']}" if v.get("device") else ""),
    ]
    text = ", ".join(parts) + "."
    text += f" After {final['step']} steps, on {final['n'] or 'the'} dev examples: {figures}."
    if doc.get("calibration"):
        text += f" A temperature of {doc['calibration'].get('temperature'):.3f} was fitted on the dev set."
    if doc.get("baselines"):
        b = doc["baselines"][0]
        text += (f" The {b.get('name')} baseline scores "
                 + ", ".join(f"{metric_label(k, task)} {printed(val, k, task)}"
                             for k, val in (b.get("metrics") or {}).items()) + ".")
    text += methods_sentence(doc.get("marks") or {})
    text += " Intervals for shares of examples are 95% Wilson score intervals"
    others = [k for k in boot if k not in wilson]
    if others:
        b = boot[others[0]]
        text += (f"; those of {', '.join(metric_label(k, task) for k in others)} are 95% paired percentile "
                 f"bootstrap intervals over the {b['n']} dev rows ({b['resamples']} resamples)")
    text += (". Running `" + doc["commands"][-1]
             + "` retrains with the same configuration and seed and compares the figures.")
    return text


@dataclass(kw_only=True)
class CheckResult:
    """The reproduction compared with the capsule: per metric (printed before, printed now); ``same`` when
    every printed figure matches; ``changed_inputs``: inputs whose hash differs from the capsule's."""

    rows: list[tuple[str, str, str]]
    same: bool
    changed_inputs: list[str]
    run: str

    def to_dict(self) -> dict:
        return {"same": self.same, "run": self.run, "changed_inputs": self.changed_inputs,
                "metrics": [{"metric": m, "capsule": a, "reproduced": b} for m, a, b in self.rows]}


def changed_inputs(doc: dict) -> list[str]:
    """The capsule's input files whose bytes changed or that are gone (named with what differs)."""
    out = []
    for name, files in doc["data"].items():
        if not isinstance(files, list):
            continue
        for f in files:
            p = Path(f["path"])
            if not p.is_file():
                out.append(f"{name}: {p} is gone")
            elif sha256_of(p) != f["sha256"]:
                out.append(f"{name}: {p} changed (SHA-256 differs)")
    return out


def compare_reproduction(doc: dict, reproduced_run: str | Path) -> CheckResult:
    """The capsule's final printed figures against the last evaluation of ``reproduced_run``."""
    from explorer.core.protocol.events import read_events
    from explorer.core.runs.layout import events_file

    evals = _evaluations(read_events(events_file(reproduced_run))) if events_file(reproduced_run).is_file() else []
    if not evals:
        raise CapsuleError(f"{reproduced_run}: the reproduction has no evaluation (see its events.jsonl)")
    now = Figures.of(evals[-1], doc["task"]).shown
    before = doc["final"]["printed"]
    rows = [(k, before[k], now.get(k, "missing")) for k in before]
    return CheckResult(rows=rows, same=all(a == b for _, a, b in rows), changed_inputs=[], run=str(reproduced_run))


def read_capsule(folder: str | Path) -> dict:
    """capsule.json of a capsule folder. Raises CapsuleError when there is none or it is unreadable."""
    path = Path(folder) / CAPSULE_FILE
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CapsuleError(f"{path}: not a capsule ({exc})") from None
