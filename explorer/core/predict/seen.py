"""Which predicted rows the run was trained on: a prediction of a training row is no fair test of the model.

The run's training texts are read once as the run read them (its config: train file, text columns, no_header,
encoding; rows without a text skipped; the rows it held out as dev, its ``dev_split.csv``, and those its
``train_cap`` left out: :func:`trained_rows`) and kept as 16-byte hashes (for the same file and settings, the last
few runs' in memory: read once); each predicted row's texts are hashed and looked up. When the training file is
gone or cannot be read as a table, nothing is said (the check is a courtesy, never a refusal).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from explorer.core.errors import UserError


@dataclass(frozen=True)
class TrainingRows:
    """``rows`` of ``total`` predicted rows have texts the run was trained on."""

    rows: int
    total: int

    def sentence(self) -> str:
        return (f"{self.rows:,} of these {self.total:,} rows were in the run's training data: their predictions are "
                "not a fair test of the model.")


def text_key(texts: Sequence[str]) -> bytes:
    """A row's texts (one, or a pair) as a 16-byte hash; the same texts give the same key."""
    # stripped: a reader keeps a CR or a space at a cell's end that another drops
    return hashlib.blake2b("\x1f".join(str(t).strip() for t in texts).encode("utf-8"), digest_size=16).digest()


_READ_AS = ("task", "train", "text_columns", "label_column", "id_column", "no_header", "encoding", "label_names",
            "train_cap", "seed", "split_seed", "dev")   # the run config's keys that decide which texts it trained on
_KEPT = 4   # training files whose keys are kept (several Predictions pages of one run read its file once)
_kept: dict[tuple, frozenset[bytes] | None] = {}


def training_keys(run_config: dict, run_dir: str | Path | None = None) -> frozenset[bytes] | None:
    """The keys (:func:`text_key`) of the texts a run trained on; None when its training file is not a readable
    local table (gone, a hub dataset, SQuAD JSON, CoNLL, SWAG) or its rows cannot be read as the run read them.
    Kept for the same file (path, size, modification time), dev split and reading settings: read once."""
    import json

    from explorer.core.specs.tasks import find_task_facts

    train = str(run_config.get("train") or "")
    facts = find_task_facts(str(run_config.get("task") or ""))
    if not train or not Path(train).is_file() or facts is None or facts.data_kind != "table":
        return None
    key = (json.dumps({k: run_config.get(k) for k in _READ_AS}, sort_keys=True, default=str), _stamp(Path(train)),
           _stamp(_split_file(run_dir)) if run_dir is not None else None)
    if key not in _kept:
        while len(_kept) >= _KEPT:
            _kept.pop(next(iter(_kept)))
        _kept[key] = _read_keys(train, facts, run_config, run_dir)
    return _kept[key]


def _stamp(path: Path) -> tuple | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return str(path.resolve()), st.st_size, st.st_mtime_ns


def _split_file(run_dir) -> Path:
    from explorer.core.runs.layout import dev_split_file

    return dev_split_file(run_dir)


def _read_keys(train: str, facts, run_config: dict, run_dir) -> frozenset[bytes] | None:
    """:func:`training_keys` read from the file."""
    from explorer.core.data.classification import load_classification

    pair = bool(facts.pair)
    try:
        data = load_classification(train, pair=pair, text_columns=run_config.get("text_columns") or None,
                                   label_column=run_config.get("label_column") or "",
                                   regression=bool(facts.is_regression),
                                   id_column=run_config.get("id_column") or "",
                                   no_header=bool(run_config.get("no_header")),
                                   encoding=str(run_config.get("encoding") or ""),
                                   label_names=run_config.get("label_names") or None, skip_invalid=True)
    except (UserError, OSError, ValueError):
        return None
    trained = set(trained_rows(data, run_config, by_class=not facts.is_multilabel)) - _held_out(data, run_config, run_dir)
    texts_b = data.texts_b if pair and data.texts_b is not None else None
    return frozenset(text_key((a, texts_b[k]) if texts_b is not None else (a,))
                     for k, a in enumerate(data.texts_a) if k in trained)


def trained_rows(data, run_config: dict, *, by_class: bool = True) -> list[int]:
    """The indices of ``data`` (the run's training file read whole, as the run read it) its Train cap kept, dev
    rows not yet held out: every row without a cap (core.data.sample.capped_rows_of, seeded as the run was;
    ``by_class`` False: a multi-label run's rows, whose cap is not stratified by the label column read as one
    class)."""
    from explorer.core.data.sample import capped_rows_of
    from explorer.core.specs.train_config import dev_split_seed_of

    return capped_rows_of(data, int(run_config.get("train_cap") or 0), dev_split_seed_of(run_config),
                          by_class=by_class)


def _held_out(data, run_config: dict, run_dir) -> set[int]:
    """The rows the run held out of its training file as dev (its ``dev_split.csv``): not trained on."""
    if run_dir is None or run_config.get("dev"):
        return set()
    from explorer.core.data.split import load_dev_split

    split = _split_file(run_dir)
    if not split.is_file():
        return set()
    try:
        return set(load_dev_split(split, data))
    except (UserError, OSError, ValueError):
        return set()


def training_rows(row_keys: Iterable[bytes], keys: frozenset[bytes] | None) -> TrainingRows | None:
    """How many of the predicted rows (``row_keys``: each row's :func:`text_key`) are among the training ``keys``;
    None when none are (or there are no keys: the training file was not read)."""
    if not keys:
        return None
    total = seen = 0
    for key in row_keys:
        total += 1
        seen += key in keys
    return TrainingRows(seen, total) if seen else None


def keyed_rows(rows: Iterator, text_columns: list[str], into: list[bytes]) -> Iterator:
    """``rows`` (predict's reading.Row) passed on unchanged, the :func:`text_key` of each row with its texts added to
    ``into`` as it goes by (a row without a text, e.g. an empty line, is not a predicted row)."""
    from explorer.core.predict.reading import text_of

    for row in rows:
        if not row.error:
            texts = [text_of(row.values.get(c)) for c in text_columns]
            if all(t.strip() for t in texts):
                into.append(text_key(texts))
        yield row
