"""Run ids and the short names they are made of (Qt-free, torch-free): one rule for the worker (``train``
without --run-name) and the GUI's run queue.

``new_run_id``: ``YYYYmmdd-HHMMSS-<model>-<task>[-<data>]<suffix>``, suffixed -2, -3... while taken; the model
part is :func:`model_short_name` (a run's checkpoint: ``<its run's model>-ft``), the data part
:func:`data_short_name`.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from explorer.core.runs.layout import CHECKPOINTS, run_dir_of
from explorer.core.runs.reading import run_config_of


def model_short_name(model: str) -> str:
    """The model part of a run id: the last path or hub part ('bundled:minilm' -> 'minilm',
    'google-bert/bert-base-uncased' -> 'bert-base-uncased'); a run's checkpoint folder
    '<runs>/<run_id>/checkpoints/best' (or last, last.old) -> '<that run's model>-ft' (not 'best'), the
    run folder's name standing in for a model it does not record."""
    path = Path((model or "").rstrip("/"))
    if path.parent.name == CHECKPOINTS and path.name.split(".")[0] in ("best", "last"):
        run_dir = run_dir_of(path)
        parent_model = run_config_of(path).get("model") or ""
        return f"{model_short_name(str(parent_model)) if parent_model else run_dir.name}-ft"
    return (model or "model").rstrip("/").split("/")[-1].split(":")[-1] or "model"


# words of a data file's name that say nothing of the data (train.tsv, dev.csv, train-subset.json, dev-part1.json)
GENERIC_DATA_WORDS = frozenset({"train", "training", "dev", "test", "testing", "valid", "validation", "val", "eval",
                                "data", "dataset", "all", "full", "subset", "sample", "small", "part", "split",
                                "set"})


def _generic_data_name(name: str) -> bool:
    """Whether every word of ``name`` ('train', 'train-subset', 'dev_part1') is one of GENERIC_DATA_WORDS (digits
    left out)."""
    words = [w for w in re.split(r"[^a-z]+", name.lower()) if w]
    return all(w in GENERIC_DATA_WORDS for w in words)


# a folder tempfile.mkdtemp made ("tmpab12cd_x"): its name says nothing of the data, so a run is not named after it
_TEMP_FOLDER = re.compile(r"tmp[a-z0-9_]{6,10}")


def _temp_folder_name(name: str) -> bool:
    """Whether ``name`` looks like a folder tempfile.mkdtemp made ("tmp" and 6-10 random lower-case characters)."""
    return bool(_TEMP_FOLDER.fullmatch(name))


def data_short_name(data: str) -> str:
    """The data part of a run id and of a run's automatic name: a file's stem ('…/mrpc_train.tsv' ->
    'mrpc_train'), or its folder's name when the stem says nothing of the data ('…/glue_sst2/train.tsv' ->
    'glue_sst2', '…/stance_semeval2016/train.txt' -> 'stance_semeval2016': two runs on files called train.*
    differ; a temporary folder's random name, '/tmp/tmpab12cd/train.csv', is not used: 'train'), a hub id's last
    part and config ('nyu-mll/glue::sst2' -> 'glue-sst2'); "" when no data."""
    data = (data or "").strip().rstrip("/")
    if not data:
        return ""
    name, _, config = data.partition("::")
    path = Path(name)
    stem = path.stem if path.suffix.lower() in (".json", ".jsonl", ".tsv", ".csv", ".txt", ".conll", ".gz", ".parquet") \
        else path.name
    stem = stem[:-len(".jsonl")] if stem.endswith((".jsonl", ".json", ".tsv", ".csv")) else stem   # x.jsonl.gz
    if not config and _generic_data_name(stem):
        folder = next((p.name for p in path.parents if p.name and not _generic_data_name(p.name)), "")
        stem = folder if folder and not _temp_folder_name(folder) else stem
    return f"{stem}-{config}" if config else stem


def free_run_id(name: str, runs_dir: str | Path | None = None, *,
                taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``name`` when no run has it, else the first free ``name-2``, ``name-3``...: free means not in ``taken``
    (ids handed out but not yet on disk, e.g. queued runs) and no folder ``runs_dir/name``."""
    run_id, n = name, 1
    while run_id in taken or (runs_dir is not None and (Path(runs_dir) / run_id).exists()):
        n += 1
        run_id = f"{name}-{n}"
    return run_id


def new_run_id(model: str, task: str, runs_dir: str | Path | None = None, now: float | None = None, *,
               suffix: str = "", taken: set[str] | frozenset[str] = frozenset(), data: str = "") -> str:
    """The one run id rule: ``YYYYmmdd-HHMMSS-<model>-<task>[-<data>]<suffix>`` (local time; ``data``, the
    train data, as :func:`data_short_name` shortens it, so two runs of a task on different files differ;
    filesystem-safe: other characters become '-'); suffixed -2, -3... while the id is taken
    (:func:`free_run_id`). Used by the worker (``train`` without --run-name) and the GUI's run queue."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now if now is not None else time.time()))
    part = data_short_name(data)
    text = f"{stamp}-{model_short_name(model)}-{task or 'task'}{'-' + part if part else ''}{suffix}"
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")
    return free_run_id(base, runs_dir, taken=taken)


def is_generated_run_id(run_id: str) -> bool:
    """Does ``run_id`` follow :func:`new_run_id`'s pattern (a date-time stamp first)? False for a name the
    user typed in the launcher's Run name (the Runs list shows that name as it is)."""
    return re.match(r"^\d{8}-\d{6}-", run_id or "") is not None
