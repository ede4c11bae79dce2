"""Readable run names (Qt-free): what tells a run apart from the runs around it.

Run ids are ``YYYYmmdd-HHMMSS-<model>-<task>[suffix]``; a list of them elides to the same text.
:func:`short_names` names each run by one rule: its model's short name, its task and
its training data ("minilm · pair · mrpc_train"), then the settings in which it differs from the other runs of its
group (same model, task and train data) - learning rate, batch size, epochs, seed, max_seq_length, a setting
left to the task's default named by that default (:func:`effective_setting`). A remote run's host, then the start time, follow
only where names would repeat. The Run name the user
typed in the launcher (the run id, kept in config.json and every event) is shown as it is, and a name given
later (:func:`set_display_name`, stored as ``run.json`` "name" in the run folder) wins over both. The full id
stays in the tooltip.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from explorer.core.runs.naming import data_short_name, is_generated_run_id, model_short_name
from explorer.core.specs.tasks import find_task_facts

RUN_INFO = "run.json"          # {"name": "..."}: the user's name for the run (Runs dock: Rename…)
# config field -> short label, in the order shown
DIFF_FIELDS = (("learning_rate", "lr"), ("batch_size", "bs"), ("epochs", "ep"), ("seed", "seed"),
               ("max_seq_length", "len"), ("max_steps", "steps"), ("task", ""))
GROUP_FIELDS = ("model", "task", "train")


def display_name(run_dir: str | Path | None) -> str:
    """The name stored in ``<run_dir>/run.json`` ("" when none or unreadable)."""
    if run_dir is None:
        return ""
    try:
        data = json.loads((Path(run_dir) / RUN_INFO).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return str(data.get("name", "")).strip() if isinstance(data, dict) else ""


def set_display_name(run_dir: str | Path, name: str) -> None:
    """Store (or, with "", clear) the run's display name in run.json, atomically. Raises OSError."""
    path = Path(run_dir) / RUN_INFO
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data = data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        data = {}
    data["name"] = name.strip()
    tmp = path.with_name(f".{RUN_INFO}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2), encoding="utf-8")
    os.replace(tmp, path)


def model_label(model: str) -> str:
    """A short model name: 'bundled:minilm' -> 'minilm'; a run's checkpoint folder
    '<runs>/<run_id>/checkpoints/best' -> '<that run's model>-ft' (the run id rule's model part,
    explorer.core.runs.naming.model_short_name)."""
    return model_short_name(model)


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


# config fields a run may leave unset (None: "the task's default") -> the task fact the run uses instead
TASK_DEFAULTED = {"learning_rate": "default_learning_rate", "max_seq_length": "default_max_seq_length"}


def effective_setting(cfg: dict, field: str):
    """The value of ``field`` the run uses: the config's, or for a field left unset (None) that the task
    defaults (TASK_DEFAULTED: learning_rate, max_seq_length) the task's default; "" when neither is known, so
    that a name or a tooltip never reads "None"."""
    value = cfg.get(field)
    if value in (None, "") and field in TASK_DEFAULTED:
        facts = find_task_facts(str(cfg.get("task") or ""))
        value = getattr(facts, TASK_DEFAULTED[field]) if facts else None
    return "" if value in (None, "") else value


def _start_time(run_id: str, date: bool = True) -> str:
    """'20261130-224518-…' -> '11-30 22:45', or with ``date`` False '22:45' ('' when the id does not start with a
    time stamp)."""
    parts = run_id.split("-")
    if len(parts) >= 2 and len(parts[0]) == 8 and parts[0].isdigit() and parts[1][:4].isdigit():
        day = f"{parts[0][4:6]}-{parts[0][6:8]} " if date else ""
        return f"{day}{parts[1][:2]}:{parts[1][2:4]}"
    return ""


def _start_times(run_ids: list[str]) -> dict[str, str]:
    """Each run's start time, as short as it can be: the hour and minute alone when the runs all started on one
    day ('10:26'), the date too when they did not ('12-05 10:26')."""
    days = {run_id.split("-")[0] for run_id in run_ids}
    return {run_id: _start_time(run_id, date=len(days) > 1) for run_id in run_ids}


def keep_shown_names(names: dict[str, str], shown: dict[str, str], stored: dict[str, str] | None = None
                     ) -> dict[str, str]:
    """``names`` (run_id -> the name :func:`short_names` gives now) with the names runs were shown by before
    (``shown``: run_id -> name, from an earlier session) kept, so that a run is not "minilm · squad_v1" one day and
    "squad_v1" the next because other runs came or went; a user's name (``stored``) still wins. A run named for
    the first time whose name another run already shows gets its run id after it."""
    stored = stored or {}
    kept = {rid: shown[rid] for rid in names if rid in shown and rid not in stored}
    taken = set(kept.values())
    out = {}
    for rid, name in names.items():
        if rid in kept:
            out[rid] = kept[rid]
        elif rid not in stored and name in taken:
            out[rid] = f"{name} · {rid}"
        else:
            out[rid] = name
    return out


def unique_names(names: dict[str, str], hosts: dict[str, str] | None = None, keep=()) -> dict[str, str]:
    """``names`` (run_id -> name) with every name told apart from the others: a run on another machine whose name
    another run shows gets its host after it ("… · 12-06 07:42 @ gpubox": a local run and a remote one started in
    the same minute), and a name still shown twice a number, "(2)", "(3)", in run id order (the first keeps it
    plain). ``hosts``: run_id -> the host a remote run trains on; the runs in ``keep`` (the user's own names)
    keep their names, which the others are told apart from."""
    hosts, keep = hosts or {}, set(keep)
    out = dict(names)
    counts: dict[str, int] = {}
    for name in out.values():
        counts[name] = counts.get(name, 0) + 1
    for run_id, name in out.items():
        if counts[name] > 1 and run_id not in keep and hosts.get(run_id):
            out[run_id] = f"{name} @ {hosts[run_id]}"
    taken = {name for run_id, name in out.items() if run_id in keep}
    for run_id in sorted(out, key=lambda r: (r not in keep, r)):
        if run_id in keep:
            continue
        name, n = out[run_id], 1
        while (f"{name} ({n})" if n > 1 else name) in taken:
            n += 1
        out[run_id] = f"{name} ({n})" if n > 1 else name
        taken.add(out[run_id])
    return out


def short_names(runs: dict[str, dict], stored: dict[str, str] | None = None,
                hosts: dict[str, str] | None = None) -> dict[str, str]:
    """run_id -> a short readable name, from each run's config dict (as in config.json).

    One rule names every run: its model's short name, its task and its training data (the file's stem, its folder
    where the stem says nothing of the data: explorer.core.runs.naming.data_short_name), "minilm · single · liar";
    within a group of runs of the same model, task and train data (GROUP_FIELDS) the DIFF_FIELDS whose values
    differ follow ("minilm · single · liar · lr3e-05"). A name never depends on which other runs are listed: a run
    named "single · stance_semeval2016" beside "minilm · ner · conll2003" because one list held one model only read
    as two rules. Where names would still repeat, a remote run's host follows ("… @ gpubox"), then, last, the start
    time, as short as it tells ('10:15'; '11-30 10:15' across days). A run id the user typed (not of the generated
    pattern, explorer.core.runs.naming.is_generated_run_id) is its name; ``stored`` names (run.json) are used as
    they are, first. No two runs get the same name (:func:`unique_names`, with ``hosts``: run_id -> the host of a
    remote run).
    """
    stored, hosts = stored or {}, hosts or {}
    groups: dict[tuple, list[str]] = {}
    for run_id, cfg in runs.items():
        groups.setdefault(tuple(str(cfg.get(f, "")) for f in GROUP_FIELDS), []).append(run_id)
    base = {}
    for members in groups.values():
        varying = [(f, lab) for f, lab in DIFF_FIELDS
                   if len({_fmt(effective_setting(runs[r], f)) for r in members}) > 1]
        for run_id in members:
            cfg = runs[run_id]
            settings = " ".join(f"{lab}{_fmt(effective_setting(cfg, f))}" for f, lab in varying
                                if effective_setting(cfg, f) != "")
            parts = [model_label(str(cfg.get("model", ""))) if cfg.get("model") else "", str(cfg.get("task", "")),
                     data_short_name(str(cfg.get("train", "") or "")), settings]
            base[run_id] = " · ".join(p for p in parts if p) or run_id
    # the launcher's Run name and the user's own name are shown instead: only the names shown are told apart
    given = {run_id: stored.get(run_id) or ("" if is_generated_run_id(run_id) else run_id) for run_id in runs}
    shown = [run_id for run_id in runs if not given[run_id]]
    counts: dict[str, int] = {}
    for run_id in shown:
        counts[base[run_id]] = counts.get(base[run_id], 0) + 1
    host = {run_id: hosts.get(run_id, "") if counts[base[run_id]] > 1 else "" for run_id in shown}
    alike: dict[tuple, list[str]] = {}
    for run_id in shown:
        alike.setdefault((base[run_id], host[run_id]), []).append(run_id)
    out = dict(given)
    for (name, where), members in alike.items():   # the time only where settings, data and host do not tell
        times = _start_times(members) if len(members) > 1 else {}
        for run_id in members:
            when = f" · {times[run_id]}" if times.get(run_id) else ""
            out[run_id] = f"{name}{when}" + (f" @ {where}" if where else "")
    return unique_names(out, hosts, keep=[r for r in out if stored.get(r)])
