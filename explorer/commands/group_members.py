"""`bert-explorer group`'s members on the terminal: each member runs as a ``bert-explorer train`` child process,
whose stdout carries the worker's JSON-lines events (explorer.core.protocol.events; the run's events.jsonl keeps
every one of them). The group reads them and writes a few lines a person reads instead: how the member starts,
its progress at every tenth of its steps, each evaluation's dev figures (every metric the run reports: F_avg
beside accuracy and macro F1), and how it ended. Other output of the child (its warnings, an error) passes through.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Callable

PROGRESS_PARTS = 10   # a progress line at every tenth of a member's steps


class MemberLines:
    """Turns one member's output lines into human lines, handed to ``write``. ``info``: whether the worker's info
    notes are said (the first member's: every member reads the same data, so they would repeat); warnings are
    always said."""

    def __init__(self, run_id: str, write: Callable[[str], None], *, info: bool = True):
        self.run_id, self.write, self.info = run_id, write, info
        self.task = ""
        self.steps_total = 0
        self.part = -1            # the last tenth of the steps said
        self.passed: list[str] = []   # lines that were not events, as they came

    def feed(self, line: str) -> None:
        text = line.rstrip("\r\n")
        try:
            event = json.loads(text) if text.startswith("{") else None
        except ValueError:
            event = None
        if not isinstance(event, dict) or "event" not in event:
            if text.strip():
                self.passed.append(text)
                self.write(text)
            return
        handler = getattr(self, f"_on_{event['event']}", None)
        if handler is not None:
            handler(event)

    def _say(self, text: str) -> None:
        self.write(f"{self.run_id}: {text}")

    def _on_log(self, event: dict) -> None:
        level = event.get("level", "info")
        if level != "info":
            self._say(f"{level}: {event.get('message', '')}")
        elif self.info:
            self._say(str(event.get("message", "")))

    def _on_started(self, event: dict) -> None:
        self.task = str((event.get("config") or {}).get("task") or "")
        self.steps_total = int(event.get("steps_total") or 0)
        resumed = event.get("resumed_from_step")
        where = f"resumed at step {resumed} of {self.steps_total}" if resumed else f"training {self.steps_total} steps"
        examples = event.get("num_train_examples")
        on = f" on {examples} examples" if examples else ""
        device = f" ({event['device']})" if event.get("device") else ""
        self._say(f"{where}{on}{device}")
        if resumed:
            self.part = self._part(int(resumed))

    def _part(self, step: int) -> int:
        return min(PROGRESS_PARTS, step * PROGRESS_PARTS // self.steps_total) if self.steps_total else -1

    def _on_step(self, event: dict) -> None:
        if event.get("steps_total"):
            self.steps_total = int(event["steps_total"])   # a time budget re-plans the steps
        step = event.get("step")
        if not isinstance(step, int) or not self.steps_total:
            return
        part = self._part(step)
        if part <= self.part:
            return
        self.part = part
        loss = event.get("loss")
        loss_text = f", loss {loss:.4f}" if isinstance(loss, (int, float)) and math.isfinite(loss) else ""
        self._say(f"step {step}/{self.steps_total} ({100 * step // self.steps_total}%){loss_text}")

    def _on_eval(self, event: dict) -> None:
        figures = dev_figures(event.get("metrics") or {}, self.task)
        if figures:
            self._say(f"dev at step {event.get('step')}: {figures}")

    def _on_finished(self, event: dict) -> None:
        seconds = event.get("seconds")
        took = f" in {seconds:.0f} s" if isinstance(seconds, (int, float)) else ""
        early = ", stopped early" if event.get("stopped_early") else ""
        steps = f" after {event['steps']} steps" if event.get("steps") else ""
        self._say(f"finished{took}{steps}{early}")

    def _on_failed(self, event: dict) -> None:
        error = str(event.get("error") or "")
        said = bool(error) and any(error in line for line in self.passed)   # the worker's "error: ..." came through
        self._say("failed" + ("" if said or not error else f": {error}"))

    def _on_cancelled(self, event: dict) -> None:
        step = event.get("step")
        self._say("stopped" + (f" at step {step}" if step is not None else ""))


def dev_figures(metrics: dict, task: str) -> str:
    """"accuracy (%) 47.06, macro F1 (%) 21.33, F_avg (%) 32.00, loss 1.0967": every number of an evaluation a
    group summarises (core/specs/metrics ``is_plotted``: no sizes or timings), on the display scale."""
    from explorer.core.specs.metric_display import metric_label, to_display
    from explorer.core.specs.metrics import metric_spec

    parts = []
    for name, value in metrics.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not metric_spec(name).is_plotted:
            continue
        if not math.isfinite(value):
            parts.append(f"{metric_label(name, task)} undefined")
            continue
        shown = to_display(name, value, task)
        parts.append(f"{metric_label(name, task)} {shown:.2f}" if metric_spec(name).is_percent
                     else f"{metric_label(name, task)} {shown:.4f}")
    return ", ".join(parts)


def run_member(cmd: list[str], lines: MemberLines) -> int:
    """Run one member's train command, its output read through ``lines``; its exit code. A Ctrl-C reaches the
    member too (it stops early and saves): its last lines are still read, then KeyboardInterrupt is raised; a
    second Ctrl-C ends it at once."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, encoding="utf-8",
                            errors="replace", bufsize=1)
    interrupted = False
    try:
        while True:
            try:
                for line in proc.stdout:
                    lines.feed(line)
                break
            except KeyboardInterrupt:
                if interrupted:
                    proc.kill()
                    raise
                interrupted = True
    finally:
        proc.stdout.close()
        rc = proc.wait()
    if interrupted:
        raise KeyboardInterrupt
    return rc


def say(text: str) -> None:
    """A group line on stderr, at once (the summary goes to stdout)."""
    print(text, file=sys.stderr, flush=True)
