"""Runs on disk (Qt-free, torch-free), by role, bottom up:

- :mod:`.status`: a run's status names and the one state machine;
- :mod:`.layout`: the folder's file names and every path inside a run folder;
- :mod:`.workers`: the worker's pid file, "stop early" (STOP), SIGTERM to a worker started elsewhere;
- :mod:`.appending`: events appended outside the worker (through EventWriter);
- :mod:`.scalars`, :mod:`.tensorboard`: a run's scalars, and TensorBoard event files both ways;
- :mod:`.readers`: other tools' run folders as a table of readers (HF Trainer, TensorBoard), one module each;
- :mod:`.reading`: one run or every run of a folder read (RunRecord, RunSummary, load_run, read_runs, run_kind);
- :mod:`.naming`: run ids; :mod:`.export`: many runs' scalars in one CSV;
- :mod:`.store`: RunStore, the observable model of the listed runs.
"""
