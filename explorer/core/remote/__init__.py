"""Runs on a remote machine over SSH (Qt-free).

- :mod:`.hosts`: :class:`~.hosts.Host` (an ``~/.ssh/config`` alias or user@host, port, key, the Python and
  the runs folder on the host; never a password) and the remembered remote runs.
- :mod:`.ssh`: every command goes through the system OpenSSH client (``ssh -o BatchMode=yes``, ``scp``),
  so the user's config, agent, jump hosts and known hosts apply; failures become one sentence (a host
  without bert-explorer: the install command).
- :mod:`.check`: "Check host" (Python, bert-explorer and its version, GPUs, free disk).
- :mod:`.launch`: copy the config and its data by content hash, start the worker detached on the host.
- :mod:`.follow`: stream the remote ``events.jsonl`` into a local mirror folder, reattaching from the last
  byte seen after a dropped connection or a restart.
- :mod:`.slurm`: a host that is a SLURM login node: the sbatch script (one job, or one job array for a run
  group), submission, the job's state (squeue / scontrol / sacct), scancel, :class:`~.slurm.SlurmFollower`.
- :mod:`.hostside`: the small commands run on the host (``python -m explorer.core.remote.hostside``);
  :mod:`.worker_command`: the worker's command line there (a direct launch and a SLURM job share it).
"""
