"""How many labels are enough: a learning curve as a run group (kind "curve"; Qt- and torch-free).

``bert-explorer group --curve`` plans it here. The training table is read once; the dev rows are fixed for
every member (the ``--dev`` file, else one seeded stratified hold-out of ``--dev-fraction`` of the training
rows, written once as ``curve/dev.csv``); the remaining rows (the pool) get nested stratified subsets of
12.5, 25, 50 and 100% (:func:`nested_subsets`: each class's rows in one seeded order, a subset is the first
round(n_c x fraction) of each class, so every smaller subset lies inside every larger one and keeps the class
shares). The group folder holds::

    curve.json                  fractions, training rows per size, the dev file, class names, the source
    curve/dev.csv               the held-out dev rows (absent when --dev names a file)
    curve/train-012.5.csv ...   the training rows of each size
    curve/size-1-predictions.csv ...  each member's dev predictions (checkpoints/last), cached
    curve_result.json           the figures per size, the fitted curve and the baseline (core/studies/curve_results.py)

Member i is an ordinary run (``<name>-0i``) on its subset with the shared dev rows. Each size's figure with its
interval, the curve fitted through them, the next doubling, and the bag-of-words baseline at every size are
core/studies/curve_results.py's. The time estimate: :func:`curve_samples` (training samples per member) over
the measured speed (core/runs/throughput.py).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.core.errors import UserError
from explorer.core.studies.groups import Group, GroupMember, _base_dict, _member_id, check_group_name, group_dir
from explorer.core.data.table import CsvRows

FRACTIONS = (0.125, 0.25, 0.5, 1.0)
CURVE_FILE = "curve.json"
CURVE_FOLDER = "curve"


class LearningCurveError(UserError):
    """A learning curve that cannot be planned (the message names the flag or the data)."""


def nested_subsets(labels, fractions=FRACTIONS, seed: int = 0) -> list[np.ndarray]:
    """Nested stratified subsets of n rows: one sorted index array per fraction (ascending fractions).

    ``labels``: (n,) class ids (zeros for rows without classes, regression scores: one seeded order of all
    rows). Each class (or all rows) is put in one seeded order (numpy default_rng); the subset at fraction f
    is the first max(1, round(n_c x f)) rows of each class (all of them at f = 1), so a smaller subset lies
    inside every larger one and each class keeps its share. Raises LearningCurveError for fractions outside
    (0, 1] or not ascending."""
    fr = [float(f) for f in fractions]
    if not fr or any(not 0 < f <= 1 for f in fr) or fr != sorted(fr) or len(set(fr)) != len(fr):
        raise LearningCurveError(f"--curve fractions must be ascending and in (0, 1] (got {fractions})")
    rng = np.random.default_rng(seed)
    y = np.asarray(labels)
    orders = [rng.permutation(np.flatnonzero(y == c)) for c in np.unique(y)]
    out = []
    for f in fr:
        take = [o[:len(o) if f >= 1 else max(1, round(len(o) * f))] for o in orders]
        out.append(np.sort(np.concatenate(take)) if take else np.zeros(0, dtype=int))
    return out


@dataclass(frozen=True, kw_only=True)
class CurveData:
    """The training table as the curve needs it: ``rows`` (each example's raw cells, input order), ``header``
    (None: no header), ``labels`` (class ids, or None for scores), ``class_names``, ``texts`` (each example's
    text, or (text, text) for a pair: to find dev rows that repeat training rows)."""

    source: str
    rows: list
    header: list | None
    labels: list | None
    class_names: list
    texts: list


def load_curve_data(config) -> CurveData:
    """Read ``config.train`` (a local table) through the task's reader. Raises LearningCurveError (a hub
    dataset, a task whose data is not a table of one label per row) and the loader's ClassificationDataError."""
    from explorer.core.data.classification import load_classification
    from explorer.core.data.table import read_table
    from explorer.core.specs.tasks import find_task_facts

    facts = find_task_facts(config.task)
    if facts is None or facts.data_kind != "table" or facts.is_multilabel:
        raise LearningCurveError(f"--curve is made for classification and regression tables (got --task "
                                 f"{config.task})")
    if not config.train or not Path(config.train).expanduser().is_file():
        raise LearningCurveError(f"--curve needs --train to be a local file (got {config.train!r})")
    if config.train_cap:
        raise LearningCurveError("--curve chooses the training rows of each size; leave out --train-cap")
    path = str(Path(config.train).expanduser())
    data = load_classification(path, pair=facts.pair, text_columns=config.text_columns or None,
                               label_column=config.label_column, id_column=config.id_column,
                               no_header=config.no_header, encoding=config.encoding, regression=facts.is_regression,
                               label_names=config.label_names or None, skip_invalid=config.skip_invalid)
    table = read_table(path, no_header=config.no_header, encoding=config.encoding, skip_invalid=config.skip_invalid)
    by_line = dict(table.rows)
    texts = list(zip(data.texts_a, data.texts_b)) if data.texts_b is not None else list(data.texts_a)
    return CurveData(source=path, rows=[by_line[line] for line in data.lines],
                     header=list(table.columns) if table.has_header else None,
                     labels=None if data.regression else list(data.labels),
                     class_names=[] if data.regression else data.class_names(), texts=texts)


def _write_rows(data: CurveData, indices, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        w = CsvRows(fh)   # a CR inside a text stays inside its row
        if data.header is not None:
            w.writerow(data.header)
        for i in indices:
            w.writerow(["" if v is None else v for v in data.rows[int(i)]])
    os.replace(tmp, path)


def subset_file(group_folder: Path, fraction: float) -> Path:
    """The training rows of one size: ``curve/train-012.5.csv`` for 12.5%."""
    return Path(group_folder) / CURVE_FOLDER / f"train-{100 * fraction:05.1f}.csv"


def dev_file(group_folder: Path) -> Path:
    """The held-out dev rows the members share when no --dev file was given."""
    return Path(group_folder) / CURVE_FOLDER / "dev.csv"


def predictions_file(group_folder: Path, index: int) -> Path:
    """Member ``index``'s (0-based) dev predictions in predict's format."""
    return Path(group_folder) / CURVE_FOLDER / f"size-{index + 1}-predictions.csv"


def _split(data: CurveData, config) -> tuple[np.ndarray, np.ndarray | None, list[str]]:
    """(pool row indices, held-out dev indices or None when --dev names a file, notes)."""
    from explorer.core.data.split import random_split, stratified_split

    n = len(data.rows)
    if config.dev:
        return np.arange(n), None, []
    fraction = config.resolved_dev_fraction()
    if fraction <= 0:
        raise LearningCurveError("--curve scores every size on the same dev rows: give --dev FILE or a "
                                 "--dev-fraction above 0")
    if data.labels is None:
        dev, notes = random_split(n, fraction, config.dev_split_seed())
    else:
        dev, notes = stratified_split(data.labels, fraction, config.dev_split_seed(), data.class_names)
    pool = np.setdiff1d(np.arange(n), np.asarray(dev, dtype=int))
    return pool, np.asarray(dev, dtype=int), [m for _, m in notes]


def plan_learning_curve(base, runs_dir: str | Path, name: str, fractions=FRACTIONS
                        ) -> tuple[Group, list, CurveData, dict]:
    """(Group of kind "curve", one TrainConfig per size with run id ``<name>-0i``, the data, the curve record
    written to curve.json). Writes nothing. Raises LearningCurveError and the loader's data errors."""
    name = check_group_name(name)
    data = load_curve_data(base)
    pool, dev, notes = _split(data, base)
    pool_labels = np.asarray(data.labels)[pool] if data.labels is not None else np.zeros(len(pool), dtype=int)
    subsets = [pool[s] for s in nested_subsets(pool_labels, fractions, base.seed)]
    folder = group_dir(runs_dir, name)
    dev_path = str(dev_file(folder)) if dev is not None else str(Path(base.dev).expanduser())
    extra: dict = {}
    if data.class_names and not base.label_names and not all(c.isdigit() for c in data.class_names):
        extra["label_names"] = list(data.class_names)
    if data.class_names and not base.num_labels and len(data.class_names) >= 2:   # a small subset may miss a class
        extra["num_labels"] = len(data.class_names)
    configs, members = [], []
    for i, (f, rows) in enumerate(zip(fractions, subsets)):
        run_id = _member_id(name, i)
        configs.append(dataclasses.replace(base, run_id=run_id, train=str(subset_file(folder, f)), dev=dev_path,
                                           dev_fraction=None, encoding="", **extra))
        members.append(GroupMember(run_id, base.seed, {"fraction": f, "train_rows": int(len(rows))}))
    record = {"fractions": [float(f) for f in fractions], "sizes": [int(len(s)) for s in subsets],
              "source": data.source, "dev": dev_path, "dev_held_out": dev is not None,
              "dev_rows": int(len(dev)) if dev is not None else None, "class_names": data.class_names,
              "seed": base.seed, "notes": notes,
              "subsets": [s.tolist() for s in subsets], "dev_indices": None if dev is None else dev.tolist()}
    group = Group(name=name, kind="curve", members=members, varied=["fraction"], seeds=[base.seed],
                  base=_base_dict(base, []), created=time.time())
    return group, configs, data, record


def start_learning_curve(base, runs_dir: str | Path, name: str, fractions=FRACTIONS) -> tuple[Group, list, str]:
    """Plan a learning curve and write it: group.json, curve.json, the dev and subset files, each member's
    config. Returns (group, member TrainConfigs with ``output_dir`` the runs folder, a one-line note "sizes
    ...; dev ..."). Nothing is written when planning fails."""
    from explorer.core.studies.groups import write_group, write_member_configs

    group, configs, data, record = plan_learning_curve(base, runs_dir, name, fractions)
    configs = [dataclasses.replace(c, output_dir=str(runs_dir)) for c in configs]
    write_group(runs_dir, group)
    folder = group_dir(runs_dir, group.name)
    if record["dev_indices"] is not None:
        _write_rows(data, record["dev_indices"], dev_file(folder))
    for f, rows in zip(record["fractions"], record["subsets"]):
        _write_rows(data, rows, subset_file(folder, f))
    (folder / CURVE_FILE).write_text(json.dumps(record), encoding="utf-8")
    write_member_configs(runs_dir, group, configs)
    dev = (f"{record['dev_rows']} rows held out of {data.source}" if record["dev_held_out"]
           else f"the dev file {record['dev']}")
    note = (f"training rows per size {', '.join(str(s) for s in record['sizes'])} "
            f"({', '.join(f'{100 * f:g}%' for f in record['fractions'])}); dev: {dev}")
    return group, configs, "; ".join([note] + record["notes"])


def read_curve(group_folder: Path) -> dict | None:
    """curve.json of a curve group, or None. Raises LearningCurveError when unreadable."""
    path = Path(group_folder) / CURVE_FILE
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LearningCurveError(f"{path}: unreadable ({exc})") from None


def curve_samples(config, sizes) -> list[int]:
    """Training samples of each member: its rows x epochs (max_steps x batch x accumulation when set)."""
    if config.max_steps:
        return [int(config.max_steps * config.batch_size * max(1, config.gradient_accumulation_steps))] * len(sizes)
    return [int(round(n * config.epochs)) for n in sizes]
