"""Run groups: N restarts of one configuration, or a hyperparameter grid, as plain files.

A group is ``<runs folder>/.groups/<name>/group.json`` (a dot-folder, so ``runs.list_runs`` never
mistakes it for a run) naming its member runs, which live beside every other run in the runs folder::

    {"name": "mrpc-restarts", "kind": "restarts" | "grid", "created": <unix time>,
     "varied": ["seed"] | ["batch_size", "learning_rate", "epochs"],
     "seeds": [1, 2, 3],
     "members": [{"run_id": "...", "seed": 1, "params": {"seed": 1}}, ...],
     "base": {...TrainConfig of the group without the varied settings...},
     "cv": {"k": 5, "group_column": "", "data": "table" | "squad", "source": "train.tsv",
     "rare_classes": {"sad|angry": 2}}}   # kind "cv" only; rare_classes: classes with fewer rows than folds

A "cv" group (k-fold cross-validation, ``varied ["fold"]``) keeps its fold files, fold assignment and
out-of-fold predictions beside group.json (explorer/core/studies/cv_runs.py); a "curve" group (a learning
curve, ``varied ["fraction"]``) its nested training subsets, shared dev rows and figures
(explorer/core/studies/learning_curve.py).

The file is written once, before any member starts, so a group whose members were never started,
were killed or crashed stays readable: :func:`read_group` returns every member with the status of
its folder ("missing" when the folder does not exist). Torch-free.

Source: BERT paper (Devlin et al. 2019) section 4.1 and appendix A.3: "for small data sets, several
random restarts, selecting the best model on dev"; the fine-tuning grid batch x lr x epochs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from explorer.core.specs.train_config import PAPER_GRID, TrainConfig, paper_grid

GROUPS_FOLDER = ".groups"
GROUP_FILE = "group.json"
KINDS = ("restarts", "grid", "cv", "curve")
MISSING = "missing"


class GroupError(ValueError):
    """A group file that cannot be used, or a group that cannot be planned (the message names which)."""


@dataclass
class GroupMember:
    """One run of a group: its run_id, its seed and the values of the varied settings."""

    run_id: str
    seed: int
    params: dict = field(default_factory=dict)


@dataclass
class Group:
    """A named group of runs (see the module docstring for the file format)."""

    name: str
    kind: str
    members: list[GroupMember]
    varied: list[str]
    seeds: list[int]
    base: dict = field(default_factory=dict)
    created: float = 0.0
    cv: dict = field(default_factory=dict)   # kind "cv": k, group_column, data ("table" / "squad"), source,
    #                                          rare_classes (name -> rows, the classes with fewer rows than folds)

    def to_dict(self) -> dict:
        out = {"name": self.name, "kind": self.kind, "created": self.created, "varied": list(self.varied),
               "seeds": list(self.seeds), "members": [dataclasses.asdict(m) for m in self.members],
               "base": self.base}
        if self.cv:
            out["cv"] = dict(self.cv)
        return out

    @property
    def run_ids(self) -> list[str]:
        return [m.run_id for m in self.members]


@dataclass
class MemberState:
    """A group member as found on disk: status is a run_status name, or "missing" (no folder)."""

    member: GroupMember
    path: Path
    status: str
    summary: object | None = None   # runs.RunSummary when the folder exists
    class_note: object = ""          # core.metrics.baselines.ClassNote: one class, as the Runs list marks it


# -- names and files --------------------------------------------------------------------------
def default_group_name(runs_dir: str | Path, train: str, kind: str, run_name: str = "") -> str:
    """The name a group gets when none is typed: the form's run name when one is set ("stance_lr5e-5-cv"), else
    the training file's stem, and the group's kind ("reviews-cv", "reviews-restarts"), characters a folder name
    cannot hold as "_", and "-2", "-3" … after a name taken."""
    source = (run_name or "").strip() or Path(train or "group").stem
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", source).lstrip("._-") or "group"
    name = f"{stem}-{kind}"
    n = 1
    while (group_dir(runs_dir, name if n == 1 else f"{name}-{n}") / GROUP_FILE).exists():
        n += 1
    return name if n == 1 else f"{name}-{n}"


def check_group_name(name: str) -> str:
    """The name, stripped; raises GroupError when it cannot be a folder name."""
    name = (name or "").strip()
    if not name or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
        raise GroupError(f"group name {name!r} must be a plain folder name (letters, digits, . _ -)")
    return name


def group_dir(runs_dir: str | Path, name: str) -> Path:
    return Path(runs_dir) / GROUPS_FOLDER / check_group_name(name)


def write_group(runs_dir: str | Path, group: Group) -> Path:
    """Write ``group.json`` atomically (temp file + rename); returns its path.

    Raises GroupError when a group of that name already exists (groups are never overwritten)."""
    folder = group_dir(runs_dir, group.name)
    path = folder / GROUP_FILE
    if path.exists():
        raise GroupError(f"group {group.name!r} already exists ({path}); choose another --group name")
    folder.mkdir(parents=True, exist_ok=True)
    tmp = folder / f".{GROUP_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(group.to_dict(), indent=2), encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_member_configs(runs_dir: str | Path, group: Group, configs: list) -> list[Path]:
    """Each member's TrainConfig as ``.groups/<name>/configs/<run_id>.json`` (what ``bert-explorer train
    --config`` reads, and what a cv group's resume reads back); returns the paths in member order."""
    folder = group_dir(runs_dir, group.name) / "configs"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for c in configs:
        path = folder / f"{c.run_id}.json"
        path.write_text(json.dumps(c.to_dict(), indent=2), encoding="utf-8")
        paths.append(path)
    return paths


@dataclass
class NeverStarted:
    """A group's members that have a written config (``.groups/<name>/configs/<run_id>.json``) but no run
    folder: queued when the app closed (or dropped from the queue), never started. ``configs``: the config
    paths in member order, what queueing them again reads."""

    group: str
    configs: list[Path]

    def sentence(self) -> str:
        """"2 run(s) of cv-x were queued and never started: Queue them again" without the action."""
        return f"{len(self.configs)} run(s) of {self.group} were queued and never started"


def cancelled_while_queued(run_dir: str | Path) -> bool:
    """Whether ``run_dir`` is only the record of a run cancelled before it started (the GUI's
    ``record_cancelled_queued``: config.json and one ``cancelled`` event with ``queued: true``, no other file):
    a run that never started, whose folder holds nothing a new start of the same run would lose."""
    from explorer.core.runs.layout import config_file, events_file

    run_dir = Path(run_dir)
    try:
        names = {p.name for p in run_dir.iterdir()}
        if not names <= {config_file(run_dir).name, events_file(run_dir).name}:   # a run that started: not read
            return False
        lines = [json.loads(line) for line in events_file(run_dir).read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    except (OSError, ValueError):
        return False
    return bool(lines) and all(isinstance(e, dict) and e.get("event") == "cancelled" and e.get("queued")
                               for e in lines)


def never_started_members(runs_dir: str | Path, busy: set[str] | frozenset = frozenset()) -> list[NeverStarted]:
    """Every group whose members have a config but no run folder, or only the record of a run cancelled while
    queued (:func:`cancelled_while_queued`: quitting cancels the queue), in group order, leaving out the run ids
    in ``busy`` (the runs this window holds queued or running), and every group a ``bert-explorer group`` command
    is driving now (:func:`driven_elsewhere`: it starts its members itself, one after the other). Their configs
    stay, so the next start can offer them again. Unreadable group files are skipped (list_groups notes them)."""
    runs_dir = Path(runs_dir)
    found = []
    for group in list_groups(runs_dir)[0]:
        if driven_elsewhere(runs_dir, group.name):
            continue
        folder = group_dir(runs_dir, group.name) / "configs"
        paths = [folder / f"{m.run_id}.json" for m in group.members
                 if m.run_id not in busy and (not (runs_dir / m.run_id).exists()
                                              or cancelled_while_queued(runs_dir / m.run_id))]
        paths = [p for p in paths if p.is_file()]
        if paths:
            found.append(NeverStarted(group=group.name, configs=paths))
    return found


def driven_elsewhere(runs_dir: str | Path, name: str) -> bool:
    """Whether a ``bert-explorer group`` command is driving group ``name`` now: its process recorded itself in the
    group folder (core.runs.workers.write_pid_file there, removed when it ends) and is alive. Its members not yet
    started are its own queue, not runs left behind."""
    from explorer.core.runs.workers import worker_alive

    return worker_alive(group_dir(runs_dir, name))


@contextmanager
def driving(runs_dir: str | Path, name: str):
    """While the ``with`` block runs, this process is group ``name``'s driver: recorded in the group folder
    (core.runs.workers.write_pid_file there) so that :func:`driven_elsewhere` is true, removed when it ends."""
    from explorer.core.runs.workers import remove_pid_file, write_pid_file

    folder = group_dir(runs_dir, name)
    folder.mkdir(parents=True, exist_ok=True)
    write_pid_file(folder)
    try:
        yield folder
    finally:
        remove_pid_file(folder)


def queued_at_quit(run_dir: str | Path) -> bool:
    """Whether ``run_dir`` is the record of a run that waited in the queue when the app quit
    (:func:`cancelled_while_queued`, its ``cancelled`` event marked ``at_quit``), not one the user cancelled."""
    from explorer.core.runs.layout import events_file

    if not cancelled_while_queued(run_dir):
        return False
    try:
        lines = [json.loads(line) for line in events_file(Path(run_dir)).read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    except (OSError, ValueError):
        return False
    return any(isinstance(e, dict) and e.get("at_quit") for e in lines)


def never_started_runs(runs_dir: str | Path, busy: set[str] | frozenset = frozenset()) -> list[Path]:
    """The run folders directly in ``runs_dir`` of runs queued on their own (no group's members) that waited in the
    queue when the app quit (:func:`queued_at_quit`), in run id order (the order they were queued in), leaving out
    the run ids in ``busy``. Their config.json is what queueing them again reads; a group's members are offered
    with their group (:func:`never_started_members`)."""
    runs_dir = Path(runs_dir)
    members = {m.run_id for group in list_groups(runs_dir)[0] for m in group.members}
    try:
        folders = sorted(p for p in runs_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return []
    return [p for p in folders if p.name not in members and p.name not in busy and queued_at_quit(p)]


def _member(item, index: int, path: Path) -> GroupMember:
    if not isinstance(item, dict) or not isinstance(item.get("run_id"), str) or not item["run_id"]:
        raise GroupError(f"{path}: members[{index}] has no run_id")
    seed = item.get("seed", 0)
    params = item.get("params") if isinstance(item.get("params"), dict) else {}
    return GroupMember(run_id=item["run_id"], seed=int(seed) if isinstance(seed, (int, float)) else 0,
                       params=params)


def load_group_file(path: str | Path) -> Group:
    """Parse one group.json. Raises GroupError naming the file and what was wrong."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise GroupError(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GroupError(f"{path}: unreadable ({exc})") from None
    except json.JSONDecodeError as exc:
        raise GroupError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise GroupError(f"{path}: holds a {type(data).__name__}, not an object")
    kind = data.get("kind")
    if kind not in KINDS:
        raise GroupError(f"{path}: kind {kind!r} is not one of {', '.join(KINDS)}")
    members = data.get("members")
    if not isinstance(members, list) or not members:
        raise GroupError(f"{path}: no members")
    return Group(name=str(data.get("name") or path.parent.name), kind=kind,
                 members=[_member(m, i, path) for i, m in enumerate(members)],
                 varied=[str(v) for v in data.get("varied") or []],
                 seeds=[int(s) for s in data.get("seeds") or [] if isinstance(s, (int, float))],
                 base=data.get("base") if isinstance(data.get("base"), dict) else {},
                 created=float(data.get("created") or 0.0),
                 cv=data.get("cv") if isinstance(data.get("cv"), dict) else {})


def list_groups(runs_dir: str | Path) -> tuple[list[Group], list[str]]:
    """(groups, notes) under ``runs_dir``: every readable group.json, oldest first; each unreadable one
    is a note (file and reason) and is left out."""
    root = Path(runs_dir) / GROUPS_FOLDER
    groups, notes = [], []
    if not root.is_dir():
        return [], []
    for folder in sorted(root.iterdir()):
        if not (folder / GROUP_FILE).is_file():
            continue
        try:
            groups.append(load_group_file(folder / GROUP_FILE))
        except GroupError as exc:
            notes.append(str(exc))
    groups.sort(key=lambda g: (g.created, g.name))
    return groups, notes


def read_group(runs_dir: str | Path, name: str) -> tuple[Group, list[MemberState]]:
    """A group and the state of each member on disk. Never fails for a member: a folder that does not
    exist is "missing", a killed worker leaves "crashed", a garbled run is read as runs.list_runs reads it.

    Raises GroupError when the group file itself is missing or unusable."""
    runs_dir = Path(runs_dir)
    group = load_group_file(group_dir(runs_dir, name) / GROUP_FILE)
    states = []
    for m in group.members:
        path = runs_dir / m.run_id
        record = member_record(path)
        summary = record.summary if record is not None else None
        states.append(MemberState(member=m, path=path, status=summary.status if summary else MISSING,
                                  summary=summary, class_note=member_class_note(record)))
    return group, states


def member_record(path: Path):
    """runs.RunRecord of a member folder (notes included), its step events only the last (read as the run store
    lists runs: its summary is explorer.core.runs.reading.read_summary's), or None when it is not a run folder."""
    from explorer.core.runs.reading import is_run_dir, load_run

    return load_run(path, steps="last") if is_run_dir(path) else None


def member_class_note(record):
    """The ClassNote of a member read by :func:`member_record` (core.studies.group_classes.run_class_note); ""
    without a record."""
    from explorer.core.studies.group_classes import run_class_note

    return run_class_note(record) if record is not None and record.summary is not None else ""


# -- planning ----------------------------------------------------------------------------------
SEED_RANGE = 10_000   # generated seeds are below this


def generate_seeds(n: int, seed: int = 0) -> list[int]:
    """``n`` distinct seeds in [1, SEED_RANGE), reproducible from ``seed``: four digits at most, so a member's
    name ("seed 4821 · mrpc-01") and the Groups page read them at a glance (any seed starts the generators as well
    as a ten-digit one)."""
    if n < 1:
        raise GroupError(f"restarts must be at least 1 (got {n})")
    rng = random.Random(seed)
    out: list[int] = []
    while len(out) < n:
        s = rng.randrange(1, SEED_RANGE)
        if s not in out:
            out.append(s)
    return out


def _member_id(name: str, index: int) -> str:
    return f"{name}-{index + 1:02d}"


def _base_dict(base: TrainConfig, varied: list[str]) -> dict:
    data = base.to_dict()
    for key in varied + ["run_id"]:
        data.pop(key, None)
    return data


def plan_restarts(base: TrainConfig, name: str, seeds: list[int]) -> tuple[Group, list[TrainConfig]]:
    """A restarts group: one config per seed, run ids ``<name>-01`` ...; everything else as ``base``.

    Raises GroupError for a bad name, no seeds or repeated seeds."""
    name = check_group_name(name)
    if not seeds:
        raise GroupError("a restarts group needs at least one seed")
    if len(set(seeds)) != len(seeds):
        raise GroupError(f"seeds repeat: {seeds} (restarts with the same seed are the same run)")
    # every restart holds out (and samples) the same dev rows: the seed varies the training, not what it is scored on
    configs = [dataclasses.replace(base, seed=int(s), split_seed=base.dev_split_seed(), run_id=_member_id(name, i))
               for i, s in enumerate(seeds)]
    members = [GroupMember(c.run_id, c.seed, {"seed": c.seed}) for c in configs]
    return Group(name=name, kind="restarts", members=members, varied=["seed"], seeds=[int(s) for s in seeds],
                 base=_base_dict(base, ["seed"]), created=time.time()), configs


def plan_grid(base: TrainConfig, name: str, seeds: list[int] | None = None,
              grid: dict[str, list] | None = None) -> tuple[Group, list[TrainConfig]]:
    """A grid group: every combination of ``grid`` (default the paper's batch_size x learning_rate x
    epochs) times every seed (default: ``base.seed`` only). Run ids ``<name>-01`` ... in a stable order."""
    name = check_group_name(name)
    seeds = [int(s) for s in (seeds or [base.seed])]
    if grid is None:
        points = paper_grid(base)
        varied = list(PAPER_GRID)
    else:
        varied = list(grid)
        unknown = [k for k in varied if k not in TrainConfig.__dataclass_fields__]
        if unknown:
            raise GroupError(f"grid setting(s) {', '.join(unknown)} are not training settings")
        points = [base]
        for key in varied:
            points = [dataclasses.replace(p, **{key: v}) for p in points for v in grid[key]]
    configs = []
    for point in points:
        for s in seeds:
            configs.append(dataclasses.replace(point, seed=s, split_seed=base.dev_split_seed(),
                                               run_id=_member_id(name, len(configs))))
    keys = varied + (["seed"] if len(seeds) > 1 else [])
    members = [GroupMember(c.run_id, c.seed, {k: getattr(c, k) for k in keys}) for c in configs]
    return Group(name=name, kind="grid", members=members, varied=keys, seeds=seeds,
                 base=_base_dict(base, keys), created=time.time()), configs


def load_group_data(runs_dir: str | Path, name: str):
    """(Group, [group_stats.MemberData] in member order, notes) for the group views and reports.

    A member whose folder is missing is a row with status "missing" and no points; a member killed
    mid-run keeps the points it logged. Notes name what reading a member skipped or fell back on, and a member
    whose selection metric was undefined at every evaluation (a collapsed regression head), with the reason.
    Raises GroupError when the group file is missing or unusable."""
    from explorer.core.studies.group_stats import MemberData, member_data
    from explorer.core.runs.reading import load_run

    group, states = read_group(runs_dir, name)
    rows, notes = [], []
    for st in states:
        if st.summary is None:
            rows.append(MemberData(run_id=st.member.run_id, status=MISSING, params=dict(st.member.params)))
            notes.append(f"{st.member.run_id}: no run folder at {st.path} (never started or deleted)")
            continue
        record = load_run(st.path)
        rows.append(member_data(record, st.member.params))
        notes.extend(f"{st.member.run_id}: {n}" for n in record.notes)
        if record.summary is not None and record.summary.metric_undefined:   # no best: left out of the stats
            notes.append(f"{st.member.run_id}: {record.summary.metric_name} undefined at every evaluation after step 0: "
                         f"{record.summary.metric_undefined}; left out of the best and final figures")
    return group, rows, notes


# -- renaming and deleting ---------------------------------------------------------------------
def _rewrite_name(path: Path, name: str) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["name"] = name
    tmp = path.parent / f".{GROUP_FILE}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.replace(tmp, path)


def rename_group(runs_dir: str | Path, old: str, new: str) -> Path:
    """Rename a group: its folder ``.groups/<old>`` becomes ``.groups/<new>`` and group.json says the new
    name. The member runs keep their folders and run ids (group.json lists them by run_id).

    Returns the new group.json path. Raises GroupError for a bad or taken name or a missing group."""
    new = check_group_name(new)
    src, dst = group_dir(runs_dir, old), group_dir(runs_dir, new)
    if not (src / GROUP_FILE).is_file():
        raise GroupError(f"group {old!r} has no {GROUP_FILE} in {src}")
    if dst.exists() and dst != src:
        raise GroupError(f"group {new!r} already exists ({dst}); choose another name")
    load_group_file(src / GROUP_FILE)          # refuse to rename a file that cannot be read back
    if dst != src:
        os.replace(src, dst)
    _rewrite_name(dst / GROUP_FILE, new)
    return dst / GROUP_FILE


def trash_group_folder(runs_dir: str | Path, name: str, trash: str = ".trash") -> Path:
    """Move ``.groups/<name>`` (group.json, member configs) to ``<runs_dir>/<trash>/groups/<name>`` (a time
    suffix when taken); the member runs are the caller's (the Runs dock trashes them one by one).

    Returns the new folder. Raises GroupError when the group folder does not exist."""
    import shutil

    src = group_dir(runs_dir, name)
    if not src.is_dir():
        raise GroupError(f"group {name!r}: no folder {src}")
    target_root = Path(runs_dir) / trash / "groups"
    target_root.mkdir(parents=True, exist_ok=True)
    target = target_root / src.name
    if target.exists():
        target = target_root / f"{src.name}-{time.strftime('%Y%m%d-%H%M%S')}"
    shutil.move(str(src), str(target))
    return target
