"""Apply the torch thread policy (explorer.core.threads) at the start of a worker process."""

from __future__ import annotations

import os
import sys

from explorer.core.threads import OMP_ENV, ThreadChoice, choose_here


def apply_thread_policy(role: str) -> ThreadChoice:
    """Set this process' torch thread count for ``role`` (explorer.core.threads.INSPECTOR / TRAINING) from the
    cores and load now, or the override in the environment: torch.set_num_threads when torch is imported, and
    OMP_NUM_THREADS, with which a torch imported later (and a child process) starts. Returns the choice.

    Raises:
        UserError: an override that is not a whole number >= 1."""
    choice = choose_here(role)
    os.environ[OMP_ENV] = str(choice.threads)
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(choice.threads)
    return choice
