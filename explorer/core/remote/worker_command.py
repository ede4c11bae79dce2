"""The worker's command line on a remote host, one rule for a direct launch (explorer.core.remote.hostside
``launch``) and a SLURM job script (explorer.core.remote.slurm.sbatch_script)."""

from __future__ import annotations


def worker_argv(python: str, config_path: str, gpus: int = 1) -> list[str]:
    """The worker's command line on the host: ``python -m explorer train --config CONFIG``, or with
    ``gpus`` > 1 ``python -m accelerate.commands.launch --multi_gpu --num_processes N -m explorer train
    --config CONFIG`` (``accelerate launch`` of the host's environment)."""
    if gpus > 1:
        return [python, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", str(int(gpus)),
                "-m", "explorer", "train", "--config", config_path]
    return [python, "-m", "explorer", "train", "--config", config_path]
