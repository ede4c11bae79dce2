"""What a checkpoint predicts and how, read from its JSON files only (no torch, no weights): its head, class
names (config.json ``id2label``), thresholds, saved τ and its run's settings (Qt-free, torch-free).

The head is :func:`explorer.core.specs.heads.recognise` of the checkpoint's ``config.json`` (its run's task
deciding between the heads of one architecture when config.json records no problem_type); its
``prediction.kind`` names what predict writes: "qa" (SQuAD v1.1 if the run's task is squad_v1: always answers;
else the SQuAD 2.0 rule answer iff score_diff > τ), "classification" (softmax over ``id2label``), "regression"
(one score), "multilabel" (a sigmoid per label; a label is predicted iff its probability >= its threshold),
"swag" (multiple choice), "ner" (a tag per word, ``id2label`` the IOB2 tag set; entities with character offsets).

Saved decisions: τ from ``checkpoint.json`` key ``tau`` in the checkpoint folder, else ``<run>/tau.json``
``{"tau": x}``; multi-label thresholds from ``thresholds.json`` (``{label: t}``) in the checkpoint folder, else
``config.json`` key ``label_thresholds`` (what multi-label training writes; ``thresholds`` also read), else 0.5 each.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.errors import ModelSourceError
from explorer.core.specs.heads import HeadSpec, Scores, recognise
from explorer.core.specs.tasks import find_task_facts


@dataclass
class CheckpointFacts:
    """Attributes: spec (its head, explorer.core.specs.heads), label_names (K names in id order; [] for heads
    whose outputs id2label does not name: QA, SWAG, regression), thresholds (multi-label, one per name), tau (saved
    τ or None), abstains (QA: SQuAD 2.0 rule), run_config (the run's TrainConfig dict or {}), max_seq_length (the
    run's, or None), notes (where each fact came from)."""

    source: str
    spec: HeadSpec
    label_names: list[str] = field(default_factory=list)
    thresholds: list[float] = field(default_factory=list)
    tau: float | None = None
    abstains: bool = True
    run_config: dict = field(default_factory=dict)
    max_seq_length: int | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """What predict writes (``spec.prediction.kind``): "classification", "regression", "multilabel", "swag",
        "qa" or "ner"."""
        return self.spec.prediction.kind

    @property
    def head(self) -> str:
        """The model head to load it with (``load_model(source, task=head)``)."""
        return self.spec.model_head


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _model_config(source: str) -> tuple[dict, Path | None]:
    from explorer.core.models.sources import resolve_source

    path = Path(resolve_source(source))
    cfg = _read_json(path / "config.json") if path.is_dir() else None
    if not isinstance(cfg, dict):
        try:   # a hub id in the local cache
            from transformers import AutoConfig

            cfg = AutoConfig.from_pretrained(str(path)).to_dict()
        except Exception as exc:  # noqa: BLE001 - any failure means: not a model we can read
            raise ModelSourceError(f"{source!r}: no readable model config.json ({exc})") from None
        return cfg, None
    return cfg, path


def label_names_of(cfg: dict, k: int) -> list[str]:
    """K class names in id order from a config dict's ``id2label`` (keys may be str or int)."""
    id2label = cfg.get("id2label") or {}
    return [str(id2label.get(str(i), id2label.get(i, f"LABEL_{i}"))) for i in range(k)]


def checkpoint_facts(source: str) -> CheckpointFacts:
    """Read what ``source`` (a checkpoint folder, run folder's checkpoint, hub id) predicts.

    Raises:
        ModelSourceError: no readable config.json, or a checkpoint without a task head (a bare encoder,
            a masked-LM): predicting needs a fine-tuned head.
    """
    from explorer.core.models.checkpoint_windows import run_config_for_checkpoint

    cfg, folder = _model_config(source)
    notes = []
    run_path = run_config_for_checkpoint(folder) if folder is not None else None
    run_cfg = _read_json(run_path) if run_path else None
    run_cfg = run_cfg if isinstance(run_cfg, dict) else {}
    run_task = find_task_facts(str(run_cfg.get("task") or ""))    # the run's task, when the checkpoint has a run
    spec = recognise(cfg, run_head=run_task.head if run_task is not None else None)
    if spec is None:
        arch = ", ".join(cfg.get("architectures") or []) or "no architecture recorded"
        raise ModelSourceError(f"{source!r} has no fine-tuned task head ({arch}); predict needs a checkpoint "
                               "trained for a task (a run's checkpoints/best or checkpoints/last)")
    facts = CheckpointFacts(source, spec, run_config=run_cfg, notes=notes)
    if spec.named_outputs:
        k = int(cfg.get("num_labels") or len(cfg.get("id2label") or {}) or 2)
        facts.label_names = label_names_of(cfg, k)
    if spec.scores is Scores.SIGMOID:
        facts.thresholds = _thresholds(cfg, folder, facts.label_names, notes)
    if spec.prediction.answers_with_tau:
        facts.abstains = run_task is None or run_task.has_no_answer   # SQuAD v1.1 always answers
        facts.tau = _saved_tau(folder, run_path, notes)
    msl = run_cfg.get("max_seq_length")
    if isinstance(msl, int) and not isinstance(msl, bool) and msl > 0:
        facts.max_seq_length = msl
        notes.append(f"max_seq_length {msl} from {run_path}")
    return facts


def _saved_tau(folder: Path | None, run_path: Path | None, notes: list) -> float | None:
    candidates = []
    if folder is not None:
        candidates.append(folder / "checkpoint.json")
    if run_path is not None:
        candidates.append(run_path.parent / "tau.json")
    for c in candidates:
        data = _read_json(c)
        if isinstance(data, dict) and isinstance(data.get("tau"), (int, float)) and not isinstance(data["tau"], bool):
            notes.append(f"τ {float(data['tau']):+.3f} saved in {c}")
            return float(data["tau"])
    return None


def _thresholds(cfg: dict, folder: Path | None, names: list[str], notes: list) -> list[float]:
    found = _read_json(folder / "thresholds.json") if folder is not None else None
    where = "thresholds.json"
    if not isinstance(found, dict):
        found, where = cfg.get("label_thresholds") or cfg.get("thresholds"), "config.json"
    if isinstance(found, dict):
        out = [float(found.get(n, 0.5)) for n in names]
        notes.append(f"thresholds from the checkpoint's {where}")
        return out
    if isinstance(found, list) and len(found) == len(names):
        notes.append(f"thresholds from the checkpoint's {where}")
        return [float(t) for t in found]
    notes.append("no tuned thresholds saved with the checkpoint: 0.5 for every label")
    return [0.5] * len(names)
