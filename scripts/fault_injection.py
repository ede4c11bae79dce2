"""Fault injection: kill the training worker at random moments and fill the disk during a save, then
check that nothing it had written is lost.

    python scripts/fault_injection.py [--kills 20] [--enospc 1] [--seed 0 | --seeds 0-4] [--max-steps 200]
                                      [--workdir DIR] [--keep]

Setup: a tiny random BERT QA model (2 layers, 4 heads, hidden 32) saved in a temp folder, and the
bundled SQuAD v2.0 sample (resources/samples) as train and dev data. A reference run
(``python -m explorer train ...``, same seed, no fault) gives the loss of every step.

Injections (seeded):
- kill: SIGKILL at a random moment of the run: 0-0.3 s after a random optimizer step (seen in
  events.jsonl), so kills land while it trains, before the first checkpoint and between later ones,
  whatever the machine's load;
- kill during a save: the checkpoint writer is slowed (EXPLORER_FAULT_INJECT=save_delay=...) and the
  script polls the checkpoints folder in a tight loop, killing while a temp folder is being written,
  between the two renames of the swap, or while ``best`` is being copied;
- disk full: EXPLORER_FAULT_INJECT=enospc_save=N makes the N-th save of the worker fail with ENOSPC
  halfway through ``training_state.pt`` (injected: mounting a small tmpfs needs root, which these
  machines do not give). Only the checkpoint write fails; events still reach the disk.

After each injection: every complete line of ``events.jsonl`` parses (a torn last line is counted, not
failed); ``checkpoints/last`` and ``checkpoints/best`` either load (model + training state) or are
absent, never half-written; the run reads as ``crashed`` (``failed`` for disk full) with all its logged
step points, both in explorer.core.runs.reading and in the GUI's run store; and ``--resume`` finishes with the
loss of every step after the resume point equal to the reference run's (max |diff| printed; the runs
are bitwise deterministic on CPU with one thread). The expectation follows what the kill left: when no
complete ``checkpoints/last`` exists (killed before the first save finished, e.g. while writing the first
one), the pass is ``--resume`` refusing with the "no checkpoint to resume from" message (exit 2, a user
error by the commands' convention, no traceback); a checkpoint that events.jsonl reported as written but
that is not there is a failure.

``--seeds 0-4`` (or ``0,3,7``) repeats the injections for each seed (one reference run for all) and prints
each seed's count and the total, so a figure is not one seed's luck.

Prints one line per injection and the counts, e.g. "20/20 runs: events parse, checkpoints whole, resume
identical". Exit code 0 when every injection passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")

from explorer.core.protocol.events import parse_event  # noqa: E402
from explorer.core.runs.layout import checkpoint_path, config_file, events_file  # noqa: E402
from explorer.paths import SAMPLES  # noqa: E402

SAVE_DELAY = 0.25      # seconds per save phase while aiming a kill at a save
LOSS_TOLERANCE = 1e-6  # relative; the runs are expected to match bitwise
REFUSED = 2            # the exit code of a refused --resume (a user error: explorer.cli's convention)


@dataclass
class Injection:
    """One fault and what the checks found."""

    name: str
    problems: list[str] = field(default_factory=list)
    detail: str = ""
    resumed: bool = False
    refused: bool = False
    max_diff: float = 0.0
    seed: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems


# ----------------------------------------------------------------------------------------- setup
def build_inputs(workdir: Path) -> dict:
    """Tiny model folder + the bundled SQuAD v2.0 sample files."""
    from helpers import tiny_loaded_model  # the tiny random test model (tests/helpers.py)

    model_dir = workdir / "tiny-model"
    if not (model_dir / "config.json").exists():
        loaded = tiny_loaded_model("qa", seed=0)
        loaded.model.save_pretrained(model_dir)
        loaded.tokenizer.save_pretrained(model_dir)
    return {"model": str(model_dir), "train": str(SAMPLES / "squad_v2_sample_train.json"),
            "dev": str(SAMPLES / "squad_v2_sample_dev.json")}


def train_args(inputs: dict, out: Path, run_id: str, max_steps: int) -> list[str]:
    """The worker flags of every run: frequent saves so kills land between and inside them."""
    return ["--model", inputs["model"], "--task", "squad_v2", "--train", inputs["train"], "--dev", inputs["dev"],
            "--dev-cap", "8", "--max-seq-length", "64", "--doc-stride", "16", "--max-query-length", "16",
            "--batch-size", "4", "--learning-rate", "1e-3", "--max-steps", str(max_steps), "--save-every", "5",
            "--eval-every", "20", "--seed", "1", "--mixed-precision", "no", "--output-dir", str(out),
            "--run-name", run_id]


def worker_env(fault: str = "") -> dict:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false", PYTHONUNBUFFERED="1",
               OMP_NUM_THREADS="1", PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("EXPLORER_FAULT_INJECT", None)
    if fault:
        env["EXPLORER_FAULT_INJECT"] = fault
    return env


def start_worker(argv: list[str], fault: str = "") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "explorer", "train", *argv], cwd=REPO, env=worker_env(fault),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def step_losses(events: list[dict]) -> dict[int, float]:
    return {int(e["step"]): e["loss"] for e in events if e.get("event") == "step"}


def reference_run(inputs: dict, out: Path, max_steps: int) -> tuple[dict[int, float], float, float]:
    """(loss per step, seconds to the first step event, wall seconds) of the uninterrupted run."""
    from explorer.core.protocol.events import read_events

    t0 = time.time()
    proc = start_worker(train_args(inputs, out, "reference", max_steps))
    _, err = proc.communicate(timeout=900)
    seconds = time.time() - t0
    if proc.returncode != 0:
        raise SystemExit(f"the reference run failed (exit {proc.returncode}): {err[-2000:]}")
    events = read_events(events_file(out / "reference"))
    first = next(e["time"] for e in events if e["event"] == "step") - t0
    return step_losses(events), first, seconds


# ----------------------------------------------------------------------------------------- faults
def kill_after_step(proc: subprocess.Popen, events_file: Path, step: int, delay: float) -> bool:
    """SIGKILL ``delay`` seconds after the worker logged optimizer step ``step`` (a moment tied to the
    run's progress, not to the clock, so a busy machine does not shift it); False when the worker ended
    first."""
    marker = '"event":"step","run_id":'
    while proc.poll() is None:
        try:
            text = events_file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        if any(marker in line and f'"step":{step},' in line for line in text.splitlines()):
            time.sleep(delay)
            if proc.poll() is not None:
                return False
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.003)
    return False


def kill_in_save(proc: subprocess.Popen, run_dir: Path, phase: str, nth: int, rng: random.Random) -> bool:
    """Poll the checkpoints folder every ~2 ms and SIGKILL inside a save: while the ``nth`` temp folder of
    ``last`` is being written ("writing"), between the renames of the swap ("swap"), or while ``best`` is
    copied ("best"). False when the worker ended first."""
    ckpt = checkpoint_path(run_dir).parent   # <run>/checkpoints
    seen, inside = 0, False
    while proc.poll() is None:
        tmp_last = any(ckpt.glob(".tmp-last-*")) if ckpt.is_dir() else False
        if phase == "writing":
            if tmp_last and not inside:
                seen += 1
            inside = tmp_last
            hit = tmp_last and seen >= nth
        elif phase == "swap":
            hit = (ckpt / "last.old").is_dir() and not (ckpt / "last").exists()
        else:
            hit = ckpt.is_dir() and any(ckpt.glob(".tmp-best-*"))
        if hit:
            time.sleep(rng.uniform(0, SAVE_DELAY * 0.8))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return True
        time.sleep(0.002)
    return False


# ----------------------------------------------------------------------------------------- checks
def check_events(run_dir: Path, injection: Injection) -> int:
    """Every complete line parses; returns the number of step events. A torn last line is noted."""
    path = events_file(run_dir)
    if not path.exists():
        injection.detail += " no events.jsonl yet;"
        return 0
    raw = path.read_bytes().decode("utf-8", errors="replace")
    lines = raw.split("\n")
    tail = lines.pop()  # "" when the file ends with a newline
    steps = 0
    for n, line in enumerate(lines, 1):
        try:
            steps += parse_event(line).get("event") == "step"
        except ValueError as exc:
            injection.problems.append(f"events.jsonl line {n} does not parse: {exc}")
    if tail.strip():
        injection.detail += " torn last line;"
    return steps


def check_checkpoints(run_dir: Path, injection: Injection) -> None:
    """checkpoints/last and best load (model, and the training state of last) or are absent."""
    from explorer.core.models.loading import load_model
    from explorer.core.runs.layout import INFO_FILE
    from explorer.core.training.checkpoints import checkpoint_dir, load_training_state

    for kind in ("last", "best"):
        folder = checkpoint_path(run_dir, kind)
        if folder.exists() and not (folder / INFO_FILE).is_file():
            injection.problems.append(f"checkpoints/{kind} is half-written (no {INFO_FILE})")
        found = checkpoint_dir(run_dir, kind)
        if found is None:
            injection.detail += f" {kind}: absent;"
            continue
        try:
            load_model(str(found), "qa")
            if kind == "last":
                load_training_state(run_dir)
            injection.detail += f" {kind}: loads{' (.old)' if found.name.endswith('.old') else ''};"
        except Exception as exc:  # noqa: BLE001 - any failure to load is the finding
            injection.problems.append(f"checkpoints/{kind} does not load: {type(exc).__name__}: {exc}"[:300])


def check_reads_as(run_dir: Path, status: str, steps: int, injection: Injection) -> None:
    """core.runs.reading and the GUI's run store both read the run as ``status`` with all its step points."""
    from explorer.core.runs.reading import load_run
    from explorer.ui.runs.store import load_run_state

    rec = load_run(run_dir)
    if rec.status != status:
        injection.problems.append(f"core.runs.reading reads the run as {rec.status}, not {status}")
    if len(rec.steps()) != steps:
        injection.problems.append(f"core.runs.reading shows {len(rec.steps())} step points of {steps} logged")
    state = load_run_state(run_dir)
    if state.status != status:
        injection.problems.append(f"the GUI reads the run as {state.status}, not {status}")
    loss = state.series.get("loss")
    shown = len(loss) if loss is not None else 0
    if shown != steps:
        injection.problems.append(f"the GUI shows {shown} loss points of {steps} logged")


def check_resume(run_dir: Path, reference: dict[int, float], max_steps: int, injection: Injection) -> None:
    """--resume finishes with the reference losses after the resume point (or refuses: no checkpoint)."""
    from explorer.core.protocol.events import read_events
    from explorer.core.training.checkpoints import checkpoint_dir

    had_checkpoint = checkpoint_dir(run_dir, "last") is not None
    if not had_checkpoint:
        reported = [e for e in read_events(run_dir / "events.jsonl") if e.get("event") == "checkpoint"
                    and e.get("kind") == "last"] if (run_dir / "events.jsonl").exists() else []
        if reported:
            injection.problems.append(f"checkpoints/last of step {reported[-1].get('step')} was reported written "
                                  "but is not there")
    proc = subprocess.run([sys.executable, "-m", "explorer", "train", "--resume", str(run_dir)], cwd=REPO,
                          env=worker_env(), capture_output=True, text=True, timeout=900)
    if not had_checkpoint:   # nothing complete to resume from: the right answer is a clear refusal
        if proc.returncode != REFUSED or "no checkpoint to resume from" not in proc.stderr \
                or "Traceback" in proc.stderr:
            injection.problems.append(f"resume without a checkpoint: exit {proc.returncode}, {proc.stderr[-300:]!r}")
        writing = any((run_dir / "checkpoints").glob(".tmp-last-*")) if (run_dir / "checkpoints").is_dir() else False
        injection.detail += (" resume refused (killed while writing the first checkpoint);" if writing
                         else " resume refused (no checkpoint yet);")
        injection.refused = True
        return
    if proc.returncode != 0:
        injection.problems.append(f"--resume exited {proc.returncode}: {proc.stderr[-500:]!r}")
        return
    events = read_events(events_file(run_dir))
    start = [i for i, e in enumerate(events) if e["event"] == "started"][-1]
    resumed = step_losses(events[start:])
    if not resumed or max(resumed) != max_steps:
        injection.problems.append(f"resumed run ended at step {max(resumed, default=None)}, not {max_steps}")
    diffs = [abs(loss - reference[s]) / max(abs(reference[s]), 1e-12) for s, loss in resumed.items()]
    injection.max_diff = max(diffs, default=0.0)
    injection.resumed = True
    if injection.max_diff > LOSS_TOLERANCE:
        injection.problems.append("resumed losses differ from the reference "
                                  f"(max relative diff {injection.max_diff:.2e})")
    injection.detail += f" resumed from step {events[start].get('resumed_from_step')}, {len(resumed)} steps;"


# ----------------------------------------------------------------------------------------- injections
def run_kill_injection(i: int, inputs: dict, out: Path, ref: dict, args, rng: random.Random, seed: int = 0,
                       tag: str = "") -> Injection:
    run_id = f"kill-{i:02d}{tag}"
    argv = train_args(inputs, out, run_id, args.max_steps)
    if i % 4 == 3:   # every fourth kill is aimed at a checkpoint save
        phase = ("writing", "swap", "best")[(i // 4) % 3]
        nth = rng.randint(1, 4)
        injection = Injection(f"{run_id} in save ({phase})", seed=seed)
        proc = start_worker(argv, fault=f"save_delay={SAVE_DELAY}")
        killed = kill_in_save(proc, out / run_id, phase, nth, rng)
    else:
        step, delay = rng.randint(1, args.max_steps - 2), rng.uniform(0, 0.3)
        injection = Injection(f"{run_id} {delay:.2f} s after step {step:3d}", seed=seed)
        proc = start_worker(argv)
        killed = kill_after_step(proc, events_file(out / run_id), step, delay)
    if not killed:
        injection.problems.append(f"the worker ended (exit {proc.returncode}) before the kill")
        return injection
    steps = check_events(out / run_id, injection)
    check_checkpoints(out / run_id, injection)
    if config_file(out / run_id).exists():
        check_reads_as(out / run_id, "crashed", steps, injection)
        check_resume(out / run_id, ref, args.max_steps, injection)
    else:
        injection.detail += " killed before the run folder existed;"
    return injection


def run_enospc_injection(i: int, inputs: dict, out: Path, ref: dict, args, seed: int = 0,
                         tag: str = "") -> Injection:
    run_id = f"diskfull-{i:02d}{tag}"
    nth = 2 + i
    injection = Injection(f"{run_id} at save {nth}", seed=seed)
    proc = start_worker(train_args(inputs, out, run_id, args.max_steps), fault=f"enospc_save={nth}")
    _, err = proc.communicate(timeout=900)
    if proc.returncode != 1 or "disk full while writing" not in err or "Traceback" in err:
        injection.problems.append(f"disk full: exit {proc.returncode}, stderr {err[-300:]!r}")
    if any(checkpoint_path(out / run_id).parent.glob(".tmp-*")):
        injection.problems.append("the half-written temp folder was left behind")
    steps = check_events(out / run_id, injection)
    check_checkpoints(out / run_id, injection)
    check_reads_as(out / run_id, "failed", steps, injection)
    check_resume(out / run_id, ref, args.max_steps, injection)
    return injection


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kills", type=int, default=20, help="SIGKILL injections (every fourth aimed at a save)")
    p.add_argument("--enospc", type=int, default=1, help="disk-full injections")
    p.add_argument("--seed", type=int, default=0, help="seed of the kill moments")
    p.add_argument("--seeds", default="", metavar="A-B|A,B,...",
                   help="run the injections once per seed (e.g. 0-4); overrides --seed")
    p.add_argument("--max-steps", type=int, default=200, help="optimizer steps of each run")
    p.add_argument("--workdir", default="", help="folder for the runs and the tiny model (default: a temp "
                   "folder, removed at the end); its runs/ and tiny-model/ are removed unless --keep")
    p.add_argument("--keep", action="store_true", help="keep the run folders and the tiny model")
    args = p.parse_args(argv)
    try:
        seeds = parse_seeds(args.seeds) if args.seeds else [args.seed]
    except ValueError as exc:
        p.error(f"--seeds {args.seeds!r}: {exc}")
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="fault-injection-"))
    workdir.mkdir(parents=True, exist_ok=True)
    out = workdir / "runs"
    try:
        inputs = build_inputs(workdir)
        ref, first, seconds = reference_run(inputs, out, args.max_steps)
        print(f"reference: {len(ref)} steps in {seconds:.1f} s, first step at {first:.1f} s (workdir {workdir})",
              flush=True)
        injections = []
        for seed in seeds:
            rng = random.Random(seed)
            tag = f"-s{seed}" if len(seeds) > 1 else ""
            for i in range(args.kills):
                injections.append(run_kill_injection(i, inputs, out, ref, args, rng, seed, tag))
                report(injections[-1])
            for i in range(args.enospc):
                injections.append(run_enospc_injection(i, inputs, out, ref, args, seed, tag))
                report(injections[-1])
    finally:
        if not args.keep:   # only what this script made: a given --workdir itself stays
            for made in ((workdir,) if not args.workdir else (out, workdir / "tiny-model")):
                shutil.rmtree(made, ignore_errors=True)
    return summary(injections, args, seeds)


def parse_seeds(text: str) -> list[int]:
    """'0-4' -> [0, 1, 2, 3, 4]; '0,3,7' -> [0, 3, 7]; '2' -> [2]. Raises ValueError."""
    seeds: list[int] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if dash:
            lo, hi = int(first), int(last)
            if hi < lo:
                raise ValueError(f"{part.strip()}: the range runs backwards")
            seeds.extend(range(lo, hi + 1))
        else:
            seeds.append(int(first))
    return seeds


def report(t: Injection) -> None:
    mark = "ok  " if t.ok else "FAIL"
    diff = f" max loss diff {t.max_diff:.1e}" if t.resumed else ""
    print(f"{mark} {t.name}:{t.detail}{diff}", flush=True)
    for problem in t.problems:
        print(f"     - {problem}", flush=True)


def summary(injections: list[Injection], args, seeds: list[int] | None = None) -> int:
    seeds = seeds or [args.seed]
    kills = [t for t in injections if t.name.startswith("kill")]
    full = [t for t in injections if t.name.startswith("diskfull")]
    good = sum(t.ok for t in kills)
    resumed = sum(t.resumed for t in kills)
    refused = sum(t.refused for t in kills)
    if len(seeds) > 1:
        for seed in seeds:
            mine = [t for t in injections if t.seed == seed]
            print(f"seed {seed}: {sum(t.ok for t in mine)}/{len(mine)} injections passed")
    print(f"{good}/{len(kills)} runs: events parse, checkpoints whole, reads as crashed with its points, "
          f"resume identical ({resumed} resumed, {refused} refused rightly: no complete checkpoint yet)")
    if full:
        print(f"{sum(t.ok for t in full)}/{len(full)} disk-full runs: clear message, previous checkpoint kept, "
              "resume identical")
    print(json.dumps({"kills": len(kills), "kills_ok": good, "resumed": resumed, "disk_full": len(full),
                      "disk_full_ok": sum(t.ok for t in full), "refused": refused, "seeds": seeds,
                      "seed": seeds[0], "max_steps": args.max_steps}))
    return 0 if all(t.ok for t in injections) else 1


if __name__ == "__main__":
    sys.exit(main())
