"""k-fold cross-validation as a run group: the fold files, the members' configs, the out-of-fold file.

``bert-explorer group --cv K`` (explorer/commands/group.py) plans a group of kind "cv" here: the training
file is read once, every labelled example gets a fold (core/studies/cv.py: stratified by label for a classification
table; grouped by article title for SQuAD, so no passage is in two folds; grouped by ``--cv-group-column``
when given), and the group folder ``<runs>/.groups/<name>/`` gets, written once and reused by every later
call (a re-run member, a resumed group, the summary)::

    folds.json                  k, seed, grouping, the source file's size and mtime, each example's fold
    folds/fold-1-train.csv      the rows of every other fold (SQuAD: fold-1-train.json, whole articles)
    folds/fold-1-dev.csv        the rows of fold 1, in input order
    folds/fold-1-predictions.csv  predict's output for fold 1's dev rows with that member's checkpoints/last
    oof_predictions.csv         every example once, in input order, predict's columns + ``fold`` (1-based)
    oof_metrics.json            the pooled out-of-fold metrics (the metric table's names, display scale)

Member i is an ordinary run (``<name>-0i``, trained by ``bert-explorer train --config``) on fold i's train
file with fold i's dev file as its dev set. Its out-of-fold predictions are those of its final model, the one
``checkpoints/last`` holds (not ``best``: choosing the checkpoint on the held-out fold would score that fold with
a model picked on it), without the run's temperature (calibration.json is fitted on the same dev fold). A table
fold takes them from the run's final evaluation, which scored every held-out row with that model and kept each
row's logits and line in ``<run>/dev_outputs.json`` (:func:`fold_from_run`: no second pass over the rows); a
SQuAD fold, or a run from before the lines were kept, is predicted again with ``checkpoints/last``. The spread across folds
is the group's usual final-metric mean ± sd and t interval (core/studies/group_stats.py); the pooled figures are
computed once over all out-of-fold predictions (training/glue_metrics.classification_metrics, SQuAD's
official evaluation in core/metrics/squad.squad_evaluate). Qt-free; torch only when a fold is predicted.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from explorer.core.predict.watch import watched
from explorer.core.studies.cv import CrossValidationError, Fold, class_counts, cv_folds, out_of_fold, rare_class_note
from explorer.core.specs.tasks import find_task_facts
from explorer.core.studies.groups import Group, GroupMember, _base_dict, _member_id, check_group_name, group_dir
from explorer.core.data.table import CsvRows

FOLDS_FILE = "folds.json"
FOLDS_FOLDER = "folds"
OOF_FILE = "oof_predictions.csv"
OOF_METRICS_FILE = "oof_metrics.json"
CV_TASKS = ("single", "pair", "squad_v1", "squad_v2")


@dataclass
class CvData:
    """The labelled examples of a cross-validation source, as the folds need them.

    kind: "table" (single/pair classification) or "squad". n: examples (table rows kept by the loader;
    SQuAD questions). labels: (n,) class ids (table) or None. class_names: the classes in id order.
    groups: (n,) group keys (article title, the group column) or None (stratified). gold: SQuAD question id
    -> gold answer texts. ids: each example's id (row id / question id), in input order."""

    kind: str
    source: str
    n: int
    labels: list | None
    class_names: list[str]
    groups: list[str] | None
    ids: list[str]
    gold: dict = field(default_factory=dict)
    _rows: list = field(default_factory=list, repr=False)        # table: (values) per example
    _header: list[str] | None = field(default=None, repr=False)  # table: the header (None: no header)
    _squad: dict = field(default_factory=dict, repr=False)       # squad: the raw JSON
    _article_of: list[int] = field(default_factory=list, repr=False)   # squad: article index of each question
    capped_from: int = 0   # table: the rows read before a Train cap kept ``n`` of them (0: no cap applied)


def _fingerprint(path: str) -> dict:
    st = os.stat(path)
    return {"source": str(path), "size": st.st_size, "mtime": int(st.st_mtime)}


def load_cv_data(config, group_column: str = "") -> CvData:
    """Read ``config.train`` (a local file) for cross-validation. Raises CrossValidationError (a UserError)
    naming the flag: a hub dataset, a task folds are not made for (regression, multi-label, SWAG, NER), an
    unknown group column; and the loaders' ClassificationDataError / SquadDataError for unusable data."""
    task = config.task
    if task not in CV_TASKS:
        raise CrossValidationError(f"--cv: folds are made for --task {', '.join(CV_TASKS)} (got {task})")
    if not config.train or not Path(config.train).expanduser().is_file():
        raise CrossValidationError(f"--cv needs --train to be a local file (got {config.train!r})")
    if config.dev or config.dev_fraction:
        raise CrossValidationError("--cv makes each fold's dev set from --train; leave out --dev / --dev-fraction")
    if config.dev_cap:
        raise CrossValidationError("--cv scores every held-out example; leave out --dev-cap")
    path = str(Path(config.train).expanduser())
    facts = find_task_facts(task)
    if facts is not None and facts.data_kind == "squad":
        return _squad_data(path, group_column)
    return _table_data(config, path, group_column)


def _table_data(config, path: str, group_column: str) -> CvData:
    from explorer.core.data.classification import load_classification
    from explorer.core.data.table import read_table, resolve_column

    facts = find_task_facts(config.task)
    data = load_classification(path, pair=bool(facts and facts.pair), text_columns=config.text_columns or None,
                               label_column=config.label_column, id_column=config.id_column,
                               no_header=config.no_header, encoding=config.encoding,
                               label_names=config.label_names or None, skip_invalid=config.skip_invalid)
    read = len(data)
    if cap_applies(config) and config.train_cap < read:   # the rows a run with this Train cap trains on
        from explorer.core.data.sample import capped_rows_of

        data = data.subset(capped_rows_of(data, config.train_cap, config.dev_split_seed()))
    table = read_table(path, no_header=config.no_header, encoding=config.encoding, skip_invalid=config.skip_invalid)
    by_line = dict(table.rows)
    rows = [by_line[line] for line in data.lines]
    groups = None
    if group_column:
        col = resolve_column(table, group_column, "group column", "--cv-group-column")
        groups = [str(r[col]) if col < len(r) and r[col] is not None else "" for r in rows]
    return CvData("table", path, len(data), list(data.labels), data.class_names(), groups, list(data.row_ids),
                  _rows=rows, _header=list(table.columns) if table.has_header else None,
                  capped_from=read if len(data) < read else 0)


def cap_applies(config) -> bool:
    """Whether ``config``'s Train cap picks the rows the folds split: a table's (the stratified subset a run with
    that cap trains on, core.data.sample.capped_rows_of); a SQuAD file's folds split all its questions (whole
    articles go to a fold)."""
    facts = find_task_facts(config.task)
    return bool(getattr(config, "train_cap", 0)) and not (facts is not None and facts.data_kind == "squad")


def cv_cap_note(config) -> str:
    """The sentence the Cross-validate dialog says of ``config``'s Train cap: which rows the folds split; "" without
    a cap."""
    cap = int(getattr(config, "train_cap", 0) or 0)
    if not cap:
        return ""
    if not cap_applies(config):
        return (f"Train cap {cap:,} does not apply: the folds split all the training file's questions (each "
                "article in one fold)")
    return (f"Train cap {cap:,}: the folds split the same stratified {cap:,} training rows that a run with this cap "
            f"trains on (seed {config.dev_split_seed()}), and every one of them is predicted once")


def _squad_data(path: str, group_column: str) -> CvData:
    if group_column and group_column != "title":
        raise CrossValidationError("--cv-group-column: SQuAD folds are grouped by article title (give title or nothing)")
    raw = json.loads(Path(path).read_text(encoding="utf-8-sig"))
    articles = raw.get("data") if isinstance(raw, dict) else None
    if not isinstance(articles, list) or not articles:
        raise CrossValidationError(f"{path}: not a SQuAD file (no 'data' list of articles)")
    ids, groups, gold, article_of = [], [], {}, []
    for a_i, article in enumerate(articles):
        title = str(article.get("title", f"article {a_i + 1}"))
        for para in article.get("paragraphs", []):
            for qa in para.get("qas", []):
                qid = str(qa.get("id"))
                ids.append(qid)
                groups.append(title)
                article_of.append(a_i)
                gold[qid] = [] if qa.get("is_impossible") else [a.get("text", "") for a in qa.get("answers", [])]
    return CvData("squad", path, len(ids), None, [], groups, ids, gold=gold, _squad=raw, _article_of=article_of)


# -- the fold files ---------------------------------------------------------------------------
def fold_files(group_folder: Path, index: int, kind: str) -> tuple[Path, Path]:
    """(train file, dev file) of fold ``index`` (0-based) in the group folder."""
    ext = "json" if kind == "squad" else "csv"
    folder = Path(group_folder) / FOLDS_FOLDER
    return folder / f"fold-{index + 1}-train.{ext}", folder / f"fold-{index + 1}-dev.{ext}"


def fold_predictions_path(group_folder: Path, index: int) -> Path:
    """Fold ``index``'s (0-based) predictions in predict's format."""
    return Path(group_folder) / FOLDS_FOLDER / f"fold-{index + 1}-predictions.csv"


def _write_part(data: CvData, indices: np.ndarray, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")   # this process's own name: another may write it too
    if data.kind == "squad":
        keep = sorted({data._article_of[i] for i in indices.tolist()})
        out = {k: v for k, v in data._squad.items() if k != "data"}
        out["data"] = [data._squad["data"][a] for a in keep]
        tmp.write_text(json.dumps(out), encoding="utf-8")
    else:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            w = CsvRows(fh)   # a CR inside a text stays inside its row
            if data._header is not None:
                w.writerow(data._header)
            for i in indices.tolist():
                w.writerow(["" if v is None else v for v in data._rows[i]])
    os.replace(tmp, path)


def make_folds(data: CvData, k: int, seed: int) -> list[Fold]:
    """core.studies.cv.cv_folds over ``data``: grouped when it has groups, else stratified by label (its messages
    name the classes)."""
    return cv_folds(data.labels if data.labels is not None else [0] * data.n, k=k, seed=seed, groups=data.groups,
                    class_names=data.class_names)


def stratified_counts(data: CvData) -> dict[str, int]:
    """Examples per class name of a table whose folds are stratified by label; {} for grouped folds and SQuAD
    (no class shares are kept there, so no class note applies)."""
    if data.kind != "table" or data.groups is not None or data.labels is None:
        return {}
    return class_counts(data.labels, data.class_names)


def rare_classes(counts: dict[str, int], k: int) -> dict[str, int]:
    """The classes of ``counts`` with fewer examples than ``k`` folds (name -> examples)."""
    return {name: c for name, c in counts.items() if 0 < c < k}


def group_rare_note(group: Group) -> str:
    """The sentence on a cv group's classes with fewer rows than folds (core.studies.cv.rare_class_note, kept in
    group.json's ``cv.rare_classes`` when the folds were made), "" when it has none."""
    cv = group.cv or {}
    return rare_class_note(dict(cv.get("rare_classes") or {}), int(cv.get("k") or 0))


def fold_start_model(model: str) -> tuple[str, str]:
    """The model every fold of a cross-validation starts from, and why it is not ``model`` ("" when it is).

    A checkpoint of a run (``<run>/checkpoints/best``, as "Fine-tune on reviewed rows" puts in the Launch tab)
    has been trained on rows of the table being cross-validated, so no fold's held-out rows would be new to it
    and the out-of-fold figure would be optimistic (a stance checkpoint's folds scored 70% F_avg at step 0,
    before any training). The folds start from the model the run (or the runs before it) started from: the
    figure then measures the recipe on this table. Source: the cross-validation definition (each fold scored by
    a model that never saw it), Hastie et al., The Elements of Statistical Learning, 7.10."""
    from explorer.core.runs.layout import config_file, run_dir_of

    start, runs = str(model or ""), []
    while (run := run_dir_of(start)) is not None and len(runs) < 20:
        try:
            first = json.loads(config_file(run).read_text(encoding="utf-8")).get("model")
        except (OSError, ValueError, AttributeError):
            break
        if not first or str(first) == start:
            break
        runs.append(run.name)
        start = str(first)
    if not runs:
        return model, ""
    return start, (f"each fold starts from {start} (the model {runs[-1]} started from), not from {runs[0]}'s "
                   "checkpoint: it has been trained on rows of this table, so no fold's held-out rows would be new "
                   "to it")


def fold_checkpoints(base):
    """``base`` with checkpoints saved, and why it changed ("" when Save checkpoints was already on).

    A fold's held-out rows are predicted with that fold's final model, ``checkpoints/last``
    (:func:`predict_fold`), so a fold run without checkpoints leaves the pooled out-of-fold figure
    missing for good. Cross-validation therefore saves them whatever the base settings say, and says so."""
    if getattr(base, "save_checkpoints", True):
        return base, ""
    return (dataclasses.replace(base, save_checkpoints=True),
            "each fold saves its checkpoints although Save checkpoints is off: its final model "
            "(checkpoints/last) predicts its held-out rows for the pooled out-of-fold figure")


def start_cv_group(base, runs_dir: str | Path, name: str, k: int, group_column: str = "") -> tuple[Group, list, str]:
    """Plan a new cross-validation group and write it: group.json, folds.json, every fold's train / dev file
    and each member's config (``.groups/<name>/configs/<run_id>.json``, as :func:`explorer.core.studies.groups.
    write_member_configs`). The one place both ``bert-explorer group --cv K`` and the GUI's
    "Cross-validate…" make a cv group. Returns (group, the K member TrainConfigs with ``output_dir`` the runs
    folder, a one-line note "N examples, fold sizes a, b, ..."). Raises CrossValidationError, GroupError and
    the loaders' data errors; nothing is written when planning fails. A run's checkpoint as ``base.model`` is
    replaced by the model its run started from (:func:`fold_start_model`), said in the note; a table's Train cap
    keeps the rows the folds split (:func:`cap_applies`), also said, and so are the classes with fewer rows than
    folds (:func:`group_rare_note`)."""
    from explorer.core.studies.groups import write_group, write_member_configs

    start, why = fold_start_model(base.model)
    base = dataclasses.replace(base, model=start)
    base, kept = fold_checkpoints(base)
    why = "; ".join(w for w in (why, kept) if w)
    group, configs, data, folds = plan_cv(base, runs_dir, name, k, group_column)
    why = "; ".join(w for w in (group_rare_note(group), why) if w)
    configs = [dataclasses.replace(c, output_dir=str(runs_dir)) for c in configs]
    write_group(runs_dir, group)
    write_folds(group_dir(runs_dir, group.name), data, folds, k, base.seed, group_column)
    write_member_configs(runs_dir, group, configs)
    sizes = ", ".join(str(len(f.dev)) for f in folds)
    capped = f" (Train cap {base.train_cap:,} of {data.capped_from:,} rows)" if data.capped_from else ""
    return group, configs, f"{data.n} examples{capped}, fold sizes {sizes}" + (f"; {why}" if why else "")


def write_folds(group_folder: Path, data: CvData, folds: list[Fold], k: int, seed: int, group_column: str) -> Path:
    """Write folds.json and every fold's train / dev file (atomically, each once). Returns folds.json."""
    group_folder = Path(group_folder)
    for f in folds:
        train, dev = fold_files(group_folder, f.index, data.kind)
        _write_part(data, f.train, train)
        _write_part(data, f.dev, dev)
    assignment = np.zeros(data.n, dtype=int)
    for f in folds:
        assignment[f.dev] = f.index + 1
    doc = {**_fingerprint(data.source), "k": k, "seed": seed, "kind": data.kind,
           "grouping": ("article title" if data.kind == "squad" else group_column) or "stratified by label",
           "n": data.n, "ids": data.ids, "fold": assignment.tolist(),
           "labels": data.labels, "class_names": data.class_names, "gold": data.gold}
    path = group_folder / FOLDS_FILE
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc), encoding="utf-8")
    os.replace(tmp, path)
    return path


@dataclass
class FoldPlan:
    """What folds.json holds, read back: k, seed, kind, n, each example's fold (1-based, (n,)), labels /
    class names (table), gold answers (SQuAD), and the source fingerprint."""

    k: int
    seed: int
    kind: str
    n: int
    fold: list[int]
    ids: list[str]
    labels: list | None
    class_names: list[str]
    gold: dict
    source: str
    grouping: str
    size: int = 0
    mtime: int = 0

    def folds(self) -> list[Fold]:
        """The Fold objects (train / dev indices) of the assignment."""
        a = np.asarray(self.fold)
        return [Fold(i, np.flatnonzero(a != i + 1), np.flatnonzero(a == i + 1)) for i in range(self.k)]


def read_folds(group_folder: Path) -> FoldPlan | None:
    """folds.json of a cv group, or None when there is none. Raises CrossValidationError when unreadable."""
    path = Path(group_folder) / FOLDS_FILE
    if not path.is_file():
        return None
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
        return FoldPlan(int(d["k"]), int(d["seed"]), d["kind"], int(d["n"]), [int(x) for x in d["fold"]],
                        [str(x) for x in d["ids"]], d.get("labels"), list(d.get("class_names") or []),
                        d.get("gold") or {}, d["source"], d.get("grouping", ""), int(d.get("size", 0)),
                        int(d.get("mtime", 0)))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CrossValidationError(f"{path}: unreadable fold file ({exc})") from None


def plan_cv(base, runs_dir: str | Path, name: str, k: int, group_column: str = "") -> tuple[Group, list, CvData, list[Fold]]:
    """(Group of kind "cv", one TrainConfig per fold with run id ``<name>-0i``, the data, the folds).

    The configs point at the fold files of :func:`fold_files` under the group folder (written by
    :func:`write_folds`); the data settings stay the run's (text / label / id columns, header), the encoding
    becomes UTF-8 (the fold files are written in it), and named classes are pinned (``label_names``) so every
    fold's head has the same label ids and classes (``num_labels`` too: a grouped fold may miss a class).
    Raises CrossValidationError (and the loaders' data errors)."""
    name = check_group_name(name)
    data = load_cv_data(base, group_column)
    folds = make_folds(data, k, base.seed)
    members = [GroupMember(_member_id(name, i), base.seed, {"fold": i + 1}) for i in range(k)]
    group = Group(name=name, kind="cv", members=members, varied=["fold"], seeds=[base.seed],
                  base=_base_dict(base, []), created=time.time(),
                  cv={"k": k, "group_column": group_column, "data": data.kind, "source": base.train,
                      "train_cap": base.train_cap if data.capped_from else 0,
                      "rare_classes": rare_classes(stratified_counts(data), k)})
    folder = group_dir(runs_dir, name)
    configs = []
    for i in range(k):
        train, dev = fold_files(folder, i, data.kind)
        extra = {"encoding": ""} if data.kind == "table" else {}
        if data.kind == "table" and not base.label_names and not all(c.isdigit() for c in data.class_names):
            extra["label_names"] = list(data.class_names)
        if data.kind == "table" and not base.num_labels and len(data.class_names) >= 2:   # a grouped fold may miss a class
            extra["num_labels"] = len(data.class_names)
        if data.capped_from:   # the fold files hold the capped rows: a fold trains on all of its train file
            extra["train_cap"] = 0
        configs.append(dataclasses.replace(base, run_id=_member_id(name, i), train=str(train), dev=str(dev),
                                           dev_fraction=None, **extra))
    return group, configs, data, folds


def check_source_unchanged(plan: FoldPlan) -> str | None:
    """A note when the source file changed since the folds were made (size or mtime), else None."""
    try:
        now = _fingerprint(plan.source)
    except OSError:
        return f"{plan.source}: no longer there; the folds of folds.json are used as written"
    if (now["size"], now["mtime"]) != (plan.size, plan.mtime):
        return (f"{plan.source} changed since the folds were made; the fold files of the group folder (made "
                "from the earlier file) are used")
    return None


# -- out-of-fold predictions ------------------------------------------------------------------
@dataclass
class OofResult:
    """The pooled out-of-fold figures of a cv group.

    path: oof_predictions.csv. n: examples (each predicted once). metrics: name -> value on the display
    scale of core.specs.metric_display (shares in percent). folds_done / k: folds whose predictions are in.
    notes: what was missing or reused."""

    path: Path | None
    n: int
    k: int
    folds_done: int
    metrics: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    fold_classes: list = field(default_factory=list)   # the classes each fold's held-out rows hold, fold by fold
    classes: int = 0                                    # the classes of all rows, which the pooled macro F1 counts
    one_class: str = ""   # the class every out-of-fold prediction is (core.metrics.baselines.predicted_for_every_row)
    at_majority: str = ""   # the pooled accuracy against the majority class's, when no better (baselines.at_majority_what)

    def one_class_note(self, settings: dict | None = None) -> str:
        """"every fold predicts only 'AGAINST' for every held-out row (the model learned nothing): try …" when every
        out-of-fold prediction is one class, "the pooled out-of-fold predictions reach 34.11% accuracy, the majority
        class 33.70%: no better than always answering 'joy' …" when they predict several classes yet are no better
        than the majority class on the same rows (core.metrics.baselines.at_majority_what), with what to try by the
        single run's rule (core.metrics.baselines.advice_note, by the learning rate of ``settings``: the group's
        base settings); "" otherwise."""
        if not self.one_class and not self.at_majority:
            return ""
        from explorer.core.metrics.baselines import advice_note

        try:
            rate = float((settings or {}).get("learning_rate") or 0) or None
        except (TypeError, ValueError):
            rate = None
        if not self.one_class:   # several classes predicted, yet right no more often than the majority class
            figures = self.at_majority.removeprefix("scores ")
            return advice_note(f"the pooled out-of-fold predictions reach {figures} (the models learned nothing)", rate)
        return advice_note(f"every fold predicts only '{self.one_class}' for every held-out row (the model learned "
                           "nothing)", rate)

    def class_note(self, metric: str | None = None) -> str:
        """Why a fold's macro F1 and the pooled one are not alike, when their class sets differ: "per fold: macro
        over the 2 classes each fold's dev part holds; pooled: over all 4 classes" (each fold's run averages its
        F1 over the classes in its held-out rows, the pooled figure over every class of the table). "" when every
        fold holds every class, the counts are unknown, or ``metric`` (the figure shown) is not macro F1."""
        if metric not in (None, "macro_f1") or not self.fold_classes or not self.classes:
            return ""
        low, high = min(self.fold_classes), max(self.fold_classes)
        if low == high == self.classes:
            return ""
        held = f"{low}" if low == high else f"{low} to {high}"
        return (f"per fold: macro over the {held} classes each fold's dev part holds; pooled: over all "
                f"{self.classes} classes")

    def text(self, task: str | None = None, first: str | None = None) -> str:
        """"pooled out-of-fold (n 3668, 5 of 5 folds): accuracy 71.30, F1 80.95, ..." or why there are none.
        ``first``: the metric the group is ranked by (its members' metric_for_best), named first when pooled."""
        from explorer.core.specs.metric_display import metric_label

        if not self.metrics:
            return f"pooled out-of-fold: not yet ({self.folds_done} of {self.k} folds predicted)"
        order = sorted(self.metrics, key=lambda k: k != first)   # stable: the rest keep their order
        figures = ", ".join(f"{metric_label(k, task)} {self.metrics[k]:.2f}" for k in order)
        note = self.class_note() if "macro_f1" in self.metrics else ""
        return (f"pooled out-of-fold (n {self.n}, each example predicted once, {self.folds_done} of {self.k} folds): "
                f"{figures}" + (f" ({note})" if note else ""))

    def to_dict(self) -> dict:
        return {"path": str(self.path) if self.path else None, "n": self.n, "k": self.k,
                "folds_done": self.folds_done, "metrics": self.metrics, "notes": self.notes,
                "fold_classes": self.fold_classes, "classes": self.classes, "one_class": self.one_class,
                "at_majority": self.at_majority}


def fold_class_counts(plan: FoldPlan) -> tuple[list[int], int]:
    """(the classes in each fold's held-out rows, the classes in all rows) of a table's fold plan: what each fold's
    macro F1 and the pooled one average over; ([], 0) for a plan without class labels (SQuAD)."""
    if plan.kind == "squad" or not plan.labels:
        return [], 0
    labels = np.asarray([str(x) for x in plan.labels])
    return [len(set(labels[f.dev].tolist())) for f in plan.folds()], len(set(labels.tolist()))


def predict_fold(group_folder: Path, plan: FoldPlan, index: int, run_dir: Path, *, batch_size: int = 32,
                 predict=None) -> Path | None:
    """Fold ``index``'s dev rows predicted with ``run_dir``'s checkpoints/last, written once to
    :func:`fold_predictions_path` (reused while newer than the checkpoint). None when the member has no
    complete last checkpoint yet. ``predict``: the engine's predict_file (tests may pass their own)."""
    from explorer.core.training.checkpoints import checkpoint_dir

    ckpt = checkpoint_dir(run_dir, "last")
    if ckpt is None:
        return None
    out = fold_predictions_path(group_folder, index)
    if out.is_file() and out.stat().st_mtime >= Path(ckpt).stat().st_mtime:
        return out
    if predict is None:
        from explorer.core.predict.engine import predict_file as predict
    _, dev = fold_files(group_folder, index, plan.kind)
    tmp = out.with_name(f"{out.stem}.{os.getpid()}.tmp{out.suffix}")   # the app and a group command may predict at once
    predict(str(ckpt), str(dev), str(tmp), batch_size=batch_size, calibration=False)
    os.replace(tmp, out)
    return out


def fold_from_run(group_folder: Path, plan: FoldPlan, index: int, run_dir: Path) -> Path | None:
    """Fold ``index``'s (0-based) predictions file, in predict's format, made from the rows its member run scored at
    its final evaluation (``<run>/dev_outputs.json``: every held-out row's logits and its line in the fold's dev
    file) instead of predicting them again: the final evaluation ran the model ``checkpoints/last`` holds (the run
    saves it right after), on the same rows, so the file is the one :func:`predict_fold` writes. Reused while newer
    than dev_outputs.json. None when the run's rows cannot stand in: a SQuAD fold (no per-row logits kept), a run
    not finished (its last evaluation may be of a dev sample or an earlier step), a dev_outputs.json written
    before the rows' lines were kept, or rows that are not exactly the fold's held-out rows with their labels."""
    from explorer.core.runs.dev_outputs import read_dev_outputs
    from explorer.core.runs.layout import config_file, dev_outputs_file
    from explorer.core.runs.reading import read_summary
    from explorer.core.runs.status import FINISHED, STOPPED

    if plan.kind != "table" or not plan.labels:
        return None
    stored, out = dev_outputs_file(run_dir), fold_predictions_path(group_folder, index)
    summary = read_summary(run_dir) if stored.is_file() else None
    if summary is None or summary.status not in (FINISHED, STOPPED):
        return None
    if out.is_file() and out.stat().st_mtime >= stored.stat().st_mtime:
        return out
    outputs = read_dev_outputs(run_dir)
    dev_rows = plan.folds()[index].dev
    if (outputs is None or outputs.kind != "classes" or len(outputs.lines) != len(dev_rows)
            or len(outputs.gold) != len(dev_rows)):
        return None
    try:
        config = json.loads(config_file(run_dir).read_text(encoding="utf-8"))
        names = outputs.label_names
        gold = [names[int(g)] for _, g in sorted(zip(outputs.lines, outputs.gold))]
    except (OSError, ValueError, AttributeError, IndexError, TypeError):
        return None
    _, dev = fold_files(group_folder, index, plan.kind)
    if not isinstance(config, dict) or Path(str(config.get("dev") or "")).resolve() != dev.resolve():
        return None
    if gold != [plan.class_names[int(plan.labels[i])] for i in dev_rows.tolist()]:
        return None
    from explorer.core.predict.from_logits import write_from_logits

    written = write_from_logits(dev, out, lines=outputs.lines, logits=outputs.logits, label_names=names,
                                task=str(config.get("task") or "single"), run_config=config)
    return out if written else None


def _read_csv(path: Path) -> tuple[list[str], list[dict]]:
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def pooled_metrics(plan: FoldPlan, rows: list[dict], f1_classes=()) -> dict:
    """The pooled metrics over out-of-fold ``rows`` (input order, one per example), display scale.

    Table: classification_metrics of the gold class ids against log p_<class> (the p columns in the model's
    id order; argmax = predicted_label), with f_avg over ``f1_classes`` (the folds' config: the same rule as
    each run's F_avg) when they are given. SQuAD: the official evaluation of the ``answer`` column."""
    return _display(*_pooled_raw(plan, rows, f1_classes))


def _display(raw: dict, task: str) -> dict:
    """:func:`_pooled_raw`'s figures on the display scale (its tables, e.g. ``per_class``, left out)."""
    from explorer.core.specs.metric_display import display_scale

    out = {}
    for k, v in raw.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and k not in ("total",):
            out[k] = float(v) * display_scale(k, task)
    return out


def _pooled_raw(plan: FoldPlan, rows: list[dict], f1_classes=()) -> tuple[dict, str]:
    """(the evaluation of the out-of-fold ``rows`` as the metrics module returns it, its task name)."""
    if plan.kind == "squad":
        from explorer.core.metrics.squad import squad_evaluate

        preds = {plan.ids[i]: (r.get("answer") or "") for i, r in enumerate(rows)}
        task = "squad_v2" if any(not v for v in plan.gold.values()) else "squad_v1"
        raw = squad_evaluate(plan.gold, preds)
    else:
        from explorer.core.metrics.glue import classification_metrics

        task = "pair"
        p_cols = [c for c in rows[0] if c.startswith("p_")] if rows else []
        probs = np.asarray([[float(r[c]) if r[c] not in ("", None) else math.nan for c in p_cols] for r in rows])
        ok = np.isfinite(probs).all(axis=1)
        labels = np.asarray(plan.labels)[ok]
        names = [c[2:] for c in p_cols]
        raw = classification_metrics(labels, np.log(np.clip(probs[ok], 1e-12, 1.0)), label_names=names,
                                     f1_classes=[c for c in f1_classes or () if c in names] or None)
    return raw, task


def one_class_of(plan: FoldPlan, rows: list[dict]) -> str:
    """The class every out-of-fold prediction in ``rows`` is, by the single run's rule (core.metrics.baselines.
    predicted_for_every_row, on the pooled per-class table); "" when they are not one class, or for SQuAD."""
    if plan.kind == "squad" or not rows:
        return ""
    from explorer.core.metrics.baselines import predicted_for_every_row

    return predicted_for_every_row(_pooled_raw(plan, rows)[0]) or ""


def collect_oof(runs_dir: str | Path, group: Group, *, predict=None, batch_size: int = 32, progress=None,
                cancelled=None) -> OofResult:
    """Every finished member's held-out fold in predict's format (cached): from the rows its run's final evaluation
    scored (:func:`fold_from_run`, no forward pass), else predicted with its checkpoints/last (:func:`predict_fold`:
    a SQuAD fold, a run from before the rows' lines were kept); then, when all k are in, write
    oof_predictions.csv (input order, predict's columns + ``fold``) and oof_metrics.json. Returns what is in.

    ``progress(rows done, rows)``: over the k folds' held-out rows (a fold read from the cache counts whole);
    ``cancelled()``: polled between batches, True raises Cancelled (the folds predicted before stay cached)."""
    from explorer.core.predict.writing import write_table

    folder = group_dir(runs_dir, group.name)
    plan = read_folds(folder)
    if plan is None:
        raise CrossValidationError(f"group {group.name!r}: no {FOLDS_FILE} in {folder}")
    notes = [n for n in [check_source_unchanged(plan)] if n]
    folds = plan.folds()
    per_fold, columns, before = [], None, 0
    for f, member in zip(folds, group.members):
        run_dir = Path(runs_dir) / member.run_id
        path = fold_from_run(folder, plan, f.index, run_dir) or predict_fold(
            folder, plan, f.index, run_dir, batch_size=batch_size,
            predict=watched(predict, progress, cancelled, before=before, size=len(f.dev), total=plan.n))
        before += len(f.dev)
        if progress is not None:
            progress(before, plan.n)
        if path is None:
            notes.append(_unpredicted_note(Path(runs_dir) / member.run_id, f.index))
            per_fold.append(None)
            continue
        cols, rows = _read_csv(path)
        columns = columns or cols
        per_fold.append(rows)
    done = sum(r is not None for r in per_fold)
    result = OofResult(None, plan.n, plan.k, done, notes=notes)
    result.fold_classes, result.classes = fold_class_counts(plan)
    if done < plan.k:
        return result
    oof = out_of_fold(folds, per_fold, plan.n)
    out = folder / OOF_FILE
    write_table(out, list(columns) + ["fold"], oof)
    result.path = out
    raw, task = _pooled_raw(plan, oof, f1_classes=group.base.get("f1_classes") or ())
    result.metrics = _display(raw, task)
    if plan.kind != "squad":
        from explorer.core.metrics.baselines import at_majority_what, predicted_for_every_row

        result.one_class = predicted_for_every_row(raw) or ""
        result.at_majority = "" if result.one_class else at_majority_what(raw)
    (folder / OOF_METRICS_FILE).write_text(json.dumps(result.to_dict(), indent=2), encoding="utf-8")
    return result


def _unpredicted_note(run_dir: Path, index: int) -> str:
    """Why fold ``index`` (0-based) has no out-of-fold predictions yet: its run has not saved checkpoints/last
    yet, or it ran with checkpoints off (then it never will: re-run that fold)."""
    from explorer.core.runs.layout import config_file

    try:
        saves = json.loads(config_file(run_dir).read_text(encoding="utf-8")).get("save_checkpoints", True)
    except (OSError, ValueError, AttributeError):
        saves = True
    if saves is False:
        return (f"{run_dir.name} ran with Save checkpoints off, so fold {index + 1}'s held-out rows cannot be "
                "predicted: re-run that fold with checkpoints on")
    return f"{run_dir.name}: no complete checkpoints/last yet; fold {index + 1} not predicted"


def read_oof(runs_dir: str | Path, name: str) -> OofResult | None:
    """oof_metrics.json of a cv group (written by :func:`collect_oof`), or None when it is not there yet."""
    path = group_dir(runs_dir, name) / OOF_METRICS_FILE
    if not path.is_file():
        return None
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
        result = OofResult(Path(d["path"]) if d.get("path") else None, int(d["n"]), int(d["k"]),
                           int(d["folds_done"]), dict(d.get("metrics") or {}), list(d.get("notes") or []),
                           [int(c) for c in d.get("fold_classes") or []], int(d.get("classes") or 0),
                           str(d.get("one_class") or ""), str(d.get("at_majority") or ""))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if "one_class" not in d and result.path is not None and result.path.is_file():
        result.one_class = _one_class_of_file(path.parent, result.path)   # written before it was kept
    if not result.classes:   # written before the class counts were kept: counted from the fold plan
        try:
            plan = read_folds(path.parent)
        except CrossValidationError:
            plan = None
        if plan is not None:
            result.fold_classes, result.classes = fold_class_counts(plan)
    return result


def _one_class_of_file(folder: Path, oof_path: Path) -> str:
    """:func:`one_class_of` the group's oof_predictions.csv ("" when it or the fold plan cannot be read)."""
    try:
        plan = read_folds(folder)
        rows = _read_csv(oof_path)[1] if plan is not None else []
    except (CrossValidationError, OSError, ValueError):
        return ""
    if plan is None or len(rows) != plan.n:
        return ""
    try:
        return one_class_of(plan, rows)
    except (ValueError, KeyError, TypeError):
        return ""
