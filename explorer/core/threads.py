"""How many threads torch uses in a process of the app, from the cores, the machine's load and the process' role
(pure: no torch, no Qt; the worker processes apply it: explorer.worker.threads).

torch's default is one thread per core. On a machine whose cores other processes keep busy that is the wrong
count: every operator splits its work over all threads and waits for the last one, and a thread with no free
core arrives a scheduler slice late. Measured on a 2-core machine at load 8-9: a probe took 1,590 ms on 2
threads and 71 ms on 1. So each role gets the cores the load leaves free:

- ``INSPECTOR`` (the inspector child, serving the GUI: one interactive answer at a time, latency counts):
  the whole cores left free, ``floor(cores - load)``, at least 1;
- ``TRAINING`` (a fine-tune worker: throughput over hours, each thread a core of its own):
  ``round(cores - load)``, at least 1.

Both at most ``cores``. ``EXPLORER_TORCH_THREADS`` (a whole number >= 1) overrides the choice, as does an
``OMP_NUM_THREADS`` the user set. The load is the 1-minute load average (os.getloadavg) when the process starts.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Mapping

from explorer.core.errors import UserError

INSPECTOR = "inspector"
TRAINING = "training"
ROLES = (INSPECTOR, TRAINING)
THREADS_ENV = "EXPLORER_TORCH_THREADS"
OMP_ENV = "OMP_NUM_THREADS"


@dataclass(frozen=True, kw_only=True)
class ThreadChoice:
    """``threads`` for a process of ``role`` on ``cores`` cores at ``load`` (1-minute load average, None when
    unknown); ``source``: "policy", or the environment variable that set it."""

    threads: int
    role: str
    cores: int
    load: float | None
    source: str = "policy"

    def summary(self) -> str:
        """The count as the status bar says it, with why it is fewer than the cores: '2 threads', '1 of 2 threads:
        the machine is busy, load 1.6', '1 of 2 threads: EXPLORER_TORCH_THREADS'. A bare '1 thread' on a 2-core
        machine read as a fault of the app."""
        if self.threads >= self.cores:
            return f"{self.threads} thread{'s' if self.threads != 1 else ''}"
        count = f"{self.threads} of {self.cores} threads"
        if self.source != "policy":
            return f"{count}: {self.source}"
        return f"{count}: the machine is busy, load {self.load or 0.0:.1f}"

    def describe(self) -> str:
        """'1 thread (load 8.1 on 2 cores)' / '4 threads (EXPLORER_TORCH_THREADS)'."""
        count = f"{self.threads} thread{'s' if self.threads != 1 else ''}"
        if self.source != "policy":
            return f"{count} ({self.source})"
        if self.load is None:
            return f"{count} ({self.cores} cores)"
        return f"{count} (load {self.load:.1f} on {self.cores} cores)"


def _override(env: Mapping[str, str]) -> tuple[int, str] | None:
    for name in (THREADS_ENV, OMP_ENV):
        text = (env.get(name) or "").strip()
        if text:
            try:
                value = int(text)
            except ValueError:
                raise UserError(f"{name}={text!r}: the number of torch threads must be a whole number >= 1") from None
            if value < 1:
                raise UserError(f"{name}={text!r}: the number of torch threads must be a whole number >= 1")
            return value, name
    return None


def choose_threads(role: str, cores: int, load: float | None, env: Mapping[str, str] | None = None) -> ThreadChoice:
    """The torch thread count for a process of ``role`` (INSPECTOR or TRAINING) on ``cores`` cores (>= 1) at
    ``load`` (the 1-minute load average; None: unknown, taken as an idle machine); ``env``: the environment whose
    EXPLORER_TORCH_THREADS / OMP_NUM_THREADS override the policy (None: no override).

    Raises:
        ValueError: an unknown role.
        UserError: an override that is not a whole number >= 1 (the message names the variable).
    """
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}: one of {', '.join(ROLES)}")
    cores = max(1, int(cores))
    forced = _override(env or {})
    if forced is not None:
        return ThreadChoice(threads=forced[0], role=role, cores=cores, load=load, source=forced[1])
    free = cores - max(0.0, load or 0.0)
    wanted = math.floor(free) if role == INSPECTOR else math.floor(free + 0.5)
    return ThreadChoice(threads=min(cores, max(1, wanted)), role=role, cores=cores, load=load)


def machine_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS says, else os.cpu_count())."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def machine_load() -> float | None:
    """The 1-minute load average, None where the OS has none (Windows)."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def choose_here(role: str, env: Mapping[str, str] | None = None) -> ThreadChoice:
    """:func:`choose_threads` for this machine now (its cores and load; ``env`` None: os.environ)."""
    return choose_threads(role, machine_cores(), machine_load(), os.environ if env is None else env)
