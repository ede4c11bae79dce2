"""Checkpoints of a run: ``checkpoints/last`` (to resume) and ``checkpoints/best`` (best dev metric).

Each checkpoint folder is a complete ``save_pretrained`` model (safetensors) + tokenizer, so it is a
model source anywhere a folder is accepted, plus:

- ``training_state.pt``: optimizer, scheduler, RNG states, step, epoch position, best metric, in ``last``
  only: ``--resume`` reads only ``last``, and the AdamW moments are twice the model's size, so ``best`` (a
  hard-linked/copied snapshot of a ``last``) leaves it out by default. Once ``last`` moves on, ``best``
  then costs one model's weights, not three (:func:`checkpoint_bytes`);
- ``checkpoint.json``: step, kind, metrics at that step (human-readable).

Atomic writes: everything is written into ``checkpoints/.tmp-<kind>-<pid>``, then the old folder is
renamed to ``<kind>.old`` and the new one renamed into place, then the old one is removed. A crash
at any point leaves either the previous checkpoint or the new one complete; the folder of a complete
checkpoint (explorer.core.runs.layout.checkpoint_dir, with the folder and file names) falls back to
``<kind>.old`` if the crash hit between the two renames, and the next save keeps that
``.old`` until the new folder is in place. Temp folders left by a killed process are removed by the
next save. The files and folders are fsynced before and after the swap, so a power cut leaves the
previous or the new checkpoint as well (SIGKILL alone loses nothing: the page cache outlives the process).

Fault injection (scripts/fault_injection.py; off unless the variable is set):
``EXPLORER_FAULT_INJECT="save_delay=0.5,enospc_save=3"`` sleeps 0.5 s at each phase of a save (files
written, between the two renames) so a kill can land inside one, and makes the 3rd save of the process
fail with ENOSPC (disk full) halfway through writing ``training_state.pt``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import time
from pathlib import Path
from typing import Iterator

from explorer.core.errors import CheckpointError, DiskFullError
from explorer.core.protocol.events import json_safe
from explorer.core.runs.layout import CHECKPOINTS, INFO_FILE, checkpoint_dir

STATE_FILE = "training_state.pt"
KINDS = ("last", "best")


FAULT_ENV = "EXPLORER_FAULT_INJECT"
_saves_done = 0   # saves started in this process (for enospc_save)


def _faults() -> dict[str, float]:
    """The EXPLORER_FAULT_INJECT settings ({} when unset); malformed parts are ignored."""
    out = {}
    for part in os.environ.get(FAULT_ENV, "").split(","):
        name, _, value = part.partition("=")
        with contextlib.suppress(ValueError):
            out[name.strip()] = float(value)
    return out


def _fault_point(phase: str, folder: Path) -> None:
    """Where a save can be slowed or failed on purpose (see the module docstring). No-op by default."""
    faults = _faults()
    if not faults:
        return
    if phase == "model-written" and _saves_done == int(faults.get("enospc_save", -1)):
        with open(folder / STATE_FILE, "wb") as fh:   # the disk fills halfway through the state file
            fh.write(b"\x80\x02PK" + b"\0" * 4096)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(folder / STATE_FILE))
    if faults.get("save_delay", 0) > 0:
        time.sleep(faults["save_delay"])


def rng_state() -> dict:
    """Python, numpy, torch (and CUDA) RNG states, for exact resumption."""
    import random

    import numpy as np
    import torch

    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    import random

    import numpy as np
    import torch

    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _sync_dir(folder: Path) -> None:
    """fsync a folder's entry list (where the OS allows opening a folder; a no-op elsewhere)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _sync_tree(folder: Path) -> None:
    """fsync every file of a freshly written checkpoint and the folder itself, so that after a power cut
    the renamed folder never holds files whose bytes were still only in the page cache."""
    for path in folder.iterdir():
        if path.is_file():
            with open(path, "rb") as fh:
                os.fsync(fh.fileno())
    _sync_dir(folder)


def _replace_dir(tmp: Path, final: Path) -> None:
    """Move the complete folder ``tmp`` to ``final``; at every instant one complete copy exists (``final``,
    or ``final.old`` while the two are swapped)."""
    old = final.with_name(final.name + ".old")
    if final.exists():   # final is complete (it only ever appears by rename): the stale .old can go
        if old.exists():
            shutil.rmtree(old)
        os.replace(final, old)
    # else: a crash between the renames left the only complete copy in .old: keep it until tmp is in place
    _fault_point("between-renames", final)
    os.replace(tmp, final)
    if old.exists():
        shutil.rmtree(old, ignore_errors=True)


def save_checkpoint(run_dir: str | Path, model, tokenizer, *, step: int, metrics: dict | None = None,
                    training_state: dict | None = None, kind: str = "last") -> Path:
    """Write a checkpoint atomically; returns its final folder.

    Args:
        run_dir: the run folder.
        model: an (unwrapped) transformers model; saved with ``save_pretrained(safe_serialization=True)``.
        tokenizer: saved alongside so the folder is a complete model source.
        step: optimizer steps done.
        metrics: dev metrics at this step (into checkpoint.json).
        training_state: dict for ``training_state.pt`` (optimizer/scheduler/rng/position), or None.
        kind: "last" or "best".

    Raises:
        OSError: disk full or unwritable folder (the previous checkpoint stays in place).
    """
    import torch

    if kind not in KINDS:
        raise ValueError(f"checkpoint kind must be one of {KINDS}, got {kind!r}")
    base = Path(run_dir) / CHECKPOINTS
    base.mkdir(parents=True, exist_ok=True)
    global _saves_done
    _saves_done += 1
    try:
        with _atomic_dir(base, kind) as tmp:
            tmp.mkdir()
            model.save_pretrained(tmp, safe_serialization=True)
            if tokenizer is not None:
                tokenizer.save_pretrained(tmp)
            _fault_point("model-written", tmp)
            if training_state is not None:
                torch.save(training_state, tmp / STATE_FILE)
            info = {"step": int(step), "kind": kind, "metrics": metrics or {}}
            (tmp / INFO_FILE).write_text(json.dumps(json_safe(info), indent=2, default=float, allow_nan=False),
                                         encoding="utf-8")
            _fault_point("written", tmp)
    except Exception as exc:
        needed = checkpoint_bytes(_parameter_count(model))["last" if training_state is not None else "model"]
        full = disk_full_error(exc, base, needed, f"checkpoints/{kind} at step {int(step)}")
        if full is None:
            raise
        raise full from exc
    return base / kind


def _parameter_count(model) -> int:
    """The model's parameters (transformers' ``num_parameters``, else the sum over ``parameters()``)."""
    count = getattr(model, "num_parameters", None)
    if callable(count):
        return int(count())
    return int(sum(p.numel() for p in model.parameters()))


def free_bytes(folder: str | Path) -> int | None:
    """Free bytes for an unprivileged writer on the disk that holds ``folder`` (its nearest existing parent
    when it does not exist yet); None when the disk cannot be asked."""
    path = Path(folder).expanduser().absolute()
    while not path.exists() and path.parent != path:
        path = path.parent
    try:
        return int(shutil.disk_usage(path).free)
    except OSError:
        return None


def megabytes(n: int) -> str:
    """``n`` bytes in words: "271 MB", "1,350 MB", "35 KB" (decimal units, as disk tools report them)."""
    return f"{n / 1e6:,.0f} MB" if n >= 1e6 else f"{n / 1e3:,.0f} KB"


def disk_shortfall(folder: str | Path, needed: int, what: str) -> str:
    """A sentence when the disk holding ``folder`` has less than ``needed`` bytes free for ``what`` ("this
    run's checkpoints"), naming both figures and the folder; "" when it has enough or cannot be asked."""
    free = free_bytes(folder)
    if free is None or free >= needed:
        return ""
    return (f"the disk that holds {folder} has {megabytes(free)} free, and {what} need about {megabytes(needed)}")


def disk_full_error(exc: BaseException, folder: Path, needed: int, what: str) -> DiskFullError | None:
    """A :class:`DiskFullError` for a failed write of ``what`` (about ``needed`` bytes) into ``folder``, when the
    failure is a full disk: an ENOSPC / EDQUOT OSError, or any failure while the disk has less than ``needed``
    free (torch's zip writer reports a full disk only as "RuntimeError: [enforce fail at
    inline_container.cc] . unexpected pos", safetensors as its own error type). None otherwise."""
    if isinstance(exc, DiskFullError):
        return exc
    is_full = isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)
    free = free_bytes(folder)
    if not is_full and (free is None or free >= needed):
        return None
    free_text = f"{megabytes(free)} free" if free is not None else "no free space"
    written = getattr(exc, "filename", None) or folder
    return DiskFullError(f"disk full while writing {written} ({what}): {free_text} on that disk, and the checkpoint "
                         f"needs about {megabytes(needed)}. The previous checkpoint is kept; free space on that disk, "
                         "choose another output folder (--output-dir), or turn off Save checkpoints "
                         "(--no-save-checkpoints)", str(written))


@contextlib.contextmanager
def _atomic_dir(base: Path, kind: str) -> Iterator[Path]:
    """Yield a fresh temp folder path (not created) in ``base``; on success it replaces ``base/kind``
    (the previous checkpoint stays until then), on any error it is removed and the error re-raised."""
    tmp = base / f".tmp-{kind}-{os.getpid()}"
    for stale in base.glob(f".tmp-{kind}-*"):   # this process's, or left by a killed one
        shutil.rmtree(stale, ignore_errors=True)
    try:
        yield tmp
        _sync_tree(tmp)
        _replace_dir(tmp, base / kind)
        _sync_dir(base)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def copy_checkpoint(run_dir: str | Path, src_kind: str = "last", dst_kind: str = "best",
                    metrics: dict | None = None, *, with_training_state: bool = False) -> Path:
    """Snapshot one checkpoint as another (hard links where the file system allows, else copies), atomically.

    ``with_training_state``: also link ``training_state.pt`` (default False: only ``last`` is resumed from, so
    the snapshot is a model folder: weights, tokenizer, checkpoint.json). Nothing is ever written through a
    link: checkpoint.json is replaced by a new file, and ``last`` is only ever replaced as a whole folder."""
    base = Path(run_dir) / CHECKPOINTS
    src = checkpoint_dir(run_dir, src_kind)
    if src is None:
        raise CheckpointError(f"{base / src_kind}: no complete checkpoint to copy")

    def link_or_copy(s, d):
        try:
            os.link(s, d)
        except OSError:
            shutil.copy2(s, d)

    with _atomic_dir(base, dst_kind) as tmp:
        shutil.copytree(src, tmp, copy_function=link_or_copy,
                        ignore=None if with_training_state else shutil.ignore_patterns(STATE_FILE))
        info = json.loads((tmp / INFO_FILE).read_text(encoding="utf-8"))
        info["kind"] = dst_kind
        if metrics is not None:
            info["metrics"] = metrics
        (tmp / INFO_FILE).unlink()  # a hard link: write a new file, never through the link
        (tmp / INFO_FILE).write_text(json.dumps(json_safe(info), indent=2, default=float, allow_nan=False), encoding="utf-8")
    return base / dst_kind


ADAMW_STATE_FACTOR = 2   # AdamW keeps exp_avg and exp_avg_sq: two tensors the size of each parameter


def checkpoint_bytes(num_parameters: int, *, bytes_per_parameter: int = 4) -> dict[str, int]:
    """Expected disk use of a run's checkpoints, in bytes, for a model of ``num_parameters`` (fp32 weights):
    ``model`` (one safetensors copy), ``last`` (model + AdamW state, ``ADAMW_STATE_FACTOR`` x the model),
    ``best`` (model only: no training state) and ``total`` (``last`` + ``best`` once they differ; tokenizer
    and JSON files, a few hundred KB, are left out)."""
    model = int(num_parameters) * int(bytes_per_parameter)
    last = model * (1 + ADAMW_STATE_FACTOR)
    return {"model": model, "last": last, "best": model, "total": last + model}


def load_training_state(run_dir: str | Path) -> tuple[Path, dict]:
    """(checkpoint folder, training_state dict) of the ``last`` checkpoint.

    Raises:
        CheckpointError: no complete ``last`` checkpoint, or its state file is unreadable.
    """
    import torch

    folder = checkpoint_dir(run_dir, "last")
    if folder is None:
        raise CheckpointError(f"{Path(run_dir)}: no checkpoint to resume from (checkpoints/last is missing; "
                              "a run saves one at each evaluation and at the end)")
    path = folder / STATE_FILE
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except FileNotFoundError:
        raise CheckpointError(f"{folder}: {STATE_FILE} is missing (not a resumable checkpoint)") from None
    except Exception as exc:  # noqa: BLE001 - torn or foreign file
        raise CheckpointError(f"{path}: cannot read the training state ({exc})") from None
    return folder, state


def read_checkpoint_info(folder: str | Path) -> dict:
    """checkpoint.json of a checkpoint folder ({} when missing or unreadable)."""
    try:
        return json.loads((Path(folder) / INFO_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
