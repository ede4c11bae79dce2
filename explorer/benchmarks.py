"""Benchmark results as data: one JSON file per benchmark under ``benchmarks/results/``, and the guide's page.

A benchmark script calls :func:`write_result` (when run with ``--results``, see :func:`add_results_argument`)
with its figures; the entry records what is needed to judge them later: the ratios (two ways timed in the
same run, which a busy machine disturbs least) before the absolute figures, the command line, the machine
(CPU model, cores, GPU or none, AMX tiles or not), the load average at the start and at the end, the git
commit and the date. :func:`benchmarks_markdown` turns every results file into the guide's Benchmarks page
(docs/benchmarks.md): a table per benchmark, the latest result per machine and case.

Qt-free and torch-free: importing it costs nothing a benchmark would measure.

File format (``benchmarks/results/<benchmark>.json``)::

    {"benchmark": "bench_probe", "about": "...", "entries": [
        {"date": "2026-12-02T07:19:00Z", "case": "384-token window with attentions",
         "ratios": {"probe / bare forward, p95": 0.886}, "figures": {"probe p95 (ms)": 172.6},
         "command": "python scripts/bench_probe.py --runs 50",
         "machine": {"cpu": "...", "cores": 2, "gpu": null, "amx": true},
         "load": [1.55, 1.68], "commit": "172d2bc", "source": "measured"}]}

``source`` is "measured" for an entry a script wrote, or says where an entry copied from an earlier record
came from. ``load`` is [start, end] (either may be null when it was not recorded).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from explorer.paths import REPO_ROOT

RESULTS_DIR = REPO_ROOT / "benchmarks" / "results"


# ---- the machine, the load, the commit ------------------------------------------------------------------
def _cpuinfo() -> str:
    try:
        return Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def cpu_model() -> str:
    """The CPU's model name ("Intel(R) Xeon(R) Processor"), else what the platform module says."""
    for line in _cpuinfo().splitlines():
        if line.lower().startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine() or "unknown CPU"


def has_amx() -> bool | None:
    """True when the CPU has AMX tiles (bf16 matrix products in hardware), False when not, None when unknown."""
    info = _cpuinfo()
    if not info:
        return None
    return any(line.startswith("flags") and "amx_tile" in line.split() for line in info.splitlines())


def gpu_name() -> str | None:
    """The first GPU's name (nvidia-smi, else torch when a benchmark already imported it), else None."""
    if shutil.which("nvidia-smi"):
        try:
            out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=10, check=False).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            out = ""
        if out:
            return out.splitlines()[0].strip()
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_available():
                return str(torch.cuda.get_device_name(0))
        except Exception:  # noqa: BLE001 - a broken CUDA set-up is "no GPU" for this record
            return None
    return None


def machine() -> dict:
    """{"cpu", "cores", "gpu", "amx"} of this machine."""
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "gpu": gpu_name(), "amx": has_amx()}


def load_average() -> float | None:
    """The 1-minute load average, None where the system has none."""
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return None


def git_commit(root: Path = REPO_ROOT) -> str | None:
    """The checked-out commit (short hash, "+changes" when the tree differs from it), None outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=10, check=False)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=30, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("+changes" if dirty else "")


def command_line(argv: Iterable[str] | None = None, script: str | None = None) -> str:
    """``python scripts/NAME.py ARGS`` as it was run (``argv`` defaults to sys.argv[1:])."""
    script = script or sys.argv[0]
    path = Path(script)
    try:
        shown = path.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        shown = path.name
    args = list(sys.argv[1:] if argv is None else argv)
    return " ".join(["python", shown, *(shlex.quote(a) for a in args)])


# ---- writing ------------------------------------------------------------------------------------------
def add_results_argument(parser) -> None:
    """``--results [FOLDER]``: also write the figures to FOLDER/<benchmark>.json (default benchmarks/results)."""
    parser.add_argument("--results", nargs="?", const=str(RESULTS_DIR), default=None, metavar="FOLDER",
                        help="also record the figures in FOLDER/<benchmark>.json with the command, machine, load "
                             f"and commit (FOLDER defaults to {RESULTS_DIR.relative_to(REPO_ROOT)})")


def _clean(value):
    """Numbers rounded to 6 significant digits, everything else JSON as it is."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item"):    # a numpy scalar
        return _clean(value.item())
    return value


def make_entry(*, figures: Mapping | None = None, ratios: Mapping | None = None, case: str = "",
               command: str | None = None, load_start: float | None = None, load_end: float | None = None,
               date: str | None = None, commit: str | None = None, machine_info: Mapping | None = None,
               source: str = "measured", notes: str = "") -> dict:
    """One results entry (module docstring). For a result measured now (``source`` "measured") what is not
    given is read from this machine and process; an entry copied from an earlier record keeps only what it is
    given (an unknown load, commit or command stays empty)."""
    if not figures and not ratios:
        raise ValueError("a benchmark result needs at least one figure or ratio")
    now = source == "measured"
    if now:
        command = command if command is not None else command_line()
        machine_info = machine_info if machine_info is not None else machine()
        load_end = load_end if load_end is not None else load_average()
        commit = commit if commit is not None else git_commit()
    entry = {
        "date": date or _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "case": case,
        "ratios": _clean(dict(ratios or {})),
        "figures": _clean(dict(figures or {})),
        "command": command or "",
        "machine": dict(machine_info or {}),
        "load": [load_start, load_end],
        "commit": commit,
        "source": source,
    }
    if notes:
        entry["notes"] = notes
    return entry


def read_results(path: Path) -> dict:
    """A results file as a dict ({"benchmark", "about", "entries"}); a missing file is an empty one."""
    path = Path(path)
    if not path.is_file():
        return {"benchmark": path.stem, "about": "", "entries": []}
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise ValueError(f"{path}: not a benchmark results file (expected an object with an 'entries' list)")
    data.setdefault("benchmark", path.stem)
    data.setdefault("about", "")
    return data


def write_result(benchmark: str, *, folder: str | Path | None = None, about: str = "", **entry_fields) -> Path:
    """Append one entry (:func:`make_entry`'s fields) to ``folder/<benchmark>.json``; returns the file. ``about``
    (what the benchmark measures) is kept when the file has none yet.

    The file is rewritten whole through a temporary file, so a killed benchmark never leaves half a file."""
    folder = Path(folder) if folder else RESULTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{benchmark}.json"
    data = read_results(path)
    data["benchmark"] = benchmark
    if about and not data.get("about"):
        data["about"] = about
    data["entries"].append(make_entry(**entry_fields))
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def record(args, benchmark: str, **entry_fields) -> Path | None:
    """What a script calls at its end: write the entry when it was run with ``--results``; print where."""
    folder = getattr(args, "results", None)
    if not folder:
        return None
    if not entry_fields.get("about"):     # the script's own first docstring line says what it measures
        doc = (getattr(sys.modules.get("__main__"), "__doc__", None) or "").strip()
        entry_fields["about"] = doc.splitlines()[0] if doc else ""
    path = write_result(benchmark, folder=folder, **entry_fields)
    print(f"results: {path}", flush=True)
    return path


# ---- the guide's page ------------------------------------------------------------------------------------
def machine_label(info: Mapping) -> str:
    """"Intel(R) Xeon(R) Processor · 2 cores · AMX · no GPU"."""
    parts = [str(info.get("cpu") or "unknown CPU")]
    if info.get("cores"):
        parts.append(f"{info['cores']} cores")
    amx = info.get("amx")
    if amx is not None:
        parts.append("AMX" if amx else "no AMX")
    parts.append(str(info["gpu"]) if info.get("gpu") else "no GPU")
    return " · ".join(parts)


def latest_per_machine(entries: Iterable[Mapping]) -> list[Mapping]:
    """The newest entry for each (machine, case), ordered by case then machine (first seen order)."""
    latest: dict[tuple[str, str], Mapping] = {}
    for entry in entries:
        key = (str(entry.get("case", "")), machine_label(entry.get("machine", {})))
        if key not in latest or str(entry.get("date", "")) >= str(latest[key].get("date", "")):
            latest[key] = entry
    return list(latest.values())


def _number(value) -> str:
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1e5 else f"{value:,.0f}"
    return str(value)


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _load(entry: Mapping) -> str:
    load = entry.get("load") or [None, None]
    start, end = (list(load) + [None, None])[:2]
    if start is None and end is None:
        return ""
    if start is None or end is None or start == end:
        return _number(start if start is not None else end)
    return f"{_number(start)} → {_number(end)}"


def _recorded(entry: Mapping) -> str:
    parts = [str(entry.get("date", ""))[:10]]
    if entry.get("commit"):
        parts.append(f"commit {entry['commit']}")
    load = _load(entry)
    if load:
        parts.append(f"load {load}")
    if entry.get("source") not in (None, "", "measured"):
        parts.append("from notes †")
    return ", ".join(p for p in parts if p)


def benchmark_table(data: Mapping) -> list[str]:
    """The Markdown lines of one benchmark: a heading, what it measures, and one table whose columns are the
    machines and whose rows are, for each case, its ratios (in bold, first), its figures and when it was
    recorded (date, commit, load); then the commands and notes."""
    name = data["benchmark"]
    lines = [f"## {name}", ""]
    if data.get("about"):
        lines += [data["about"], ""]
    rows = latest_per_machine(data.get("entries", []))
    if not rows:
        return lines + ["No results recorded yet.", ""]
    machines = list(dict.fromkeys(machine_label(r.get("machine", {})) for r in rows))
    cases = list(dict.fromkeys(str(r.get("case", "")) for r in rows))
    cell = {(str(r.get("case", "")), machine_label(r.get("machine", {}))): r for r in rows}
    lines.append("| case | figure | " + " | ".join(_cell(m) for m in machines) + " |")
    lines.append("|" + "---|" * (len(machines) + 2))
    for case in cases:
        here = [cell.get((case, m)) for m in machines]
        ratio_names = list(dict.fromkeys(k for r in here if r for k in r.get("ratios", {})))
        figure_names = list(dict.fromkeys(k for r in here if r for k in r.get("figures", {})))
        first = True
        for kind, names in (("ratios", ratio_names), ("figures", figure_names)):
            for fig in names:
                label = f"**{_cell(fig)}**" if kind == "ratios" else _cell(fig)
                values = [_number(r.get(kind, {}).get(fig)) if r else "" for r in here]
                if kind == "ratios":
                    values = [f"**{v}**" if v else v for v in values]
                lines.append(f"| {_cell(case) if first else ''} | {label} | " + " | ".join(values) + " |")
                first = False
        lines.append(f"| {_cell(case) if first else ''} | recorded | "
                     + " | ".join(_cell(_recorded(r)) if r else "" for r in here) + " |")
    lines.append("")
    commands = list(dict.fromkeys((str(r.get("case", "")), str(r.get("command", ""))) for r in rows
                                  if r.get("command")))
    if commands:
        lines += ["Commands:", ""] + [f"- {_cell(c) + ': ' if c else ''}`{cmd}`" for c, cmd in commands] + [""]
    notes = list(dict.fromkeys(f"{r.get('case') or 'result'}: {r['notes']}" for r in rows if r.get("notes")))
    if notes:
        lines += ["Notes:", ""] + [f"- {_cell(n)}" for n in notes] + [""]
    return lines


BENCHMARKS_INTRO = """# Benchmarks

Generated from `benchmarks/results/*.json` by `explorer.benchmarks.benchmarks_markdown`; do not edit it by
hand. Run a benchmark script with `--results` to add an entry, then regenerate the page with
`python -m explorer.docs_gen`.

Each table has a column per machine and shows its latest result for each case. Ratios come first, in
bold: two ways timed in the same run (the app's way against a reference such as the bare model forward),
which a busy machine disturbs far less than the absolute figures below them. "recorded" gives the date, the
commit and the 1-minute load average at the start and the end of the run; on a machine that other work keeps
busy, read the absolute times as upper bounds. Results marked † were copied from the project's earlier
benchmark notes (their `source` field says from which commit). Every script prints its figures and never
asserts a speed.
"""


def benchmarks_markdown(folder: str | Path | None = None) -> str:
    """The guide's Benchmarks page from every results file in ``folder`` (default benchmarks/results)."""
    folder = Path(folder) if folder else RESULTS_DIR
    lines = [BENCHMARKS_INTRO]
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not files:
        lines.append("No results recorded yet.\n")
    for path in files:
        lines += benchmark_table(read_results(path))
    return "\n".join(lines).rstrip() + "\n"
