"""`bert-explorer train` in a terminal: the run's events as a progress bar and a closing summary.

The JSON-lines events are the worker's contract (the GUI, `group`, remote runs and scripts read them from stdout);
a person at a terminal gets this instead, on stdout, while the events still go to ``events.jsonl`` (``--json``
keeps them on stdout there too). :class:`TrainProgress` is an EventWriter listener: given every event written,
it draws a tqdm bar of optimizer steps (step / total with the time left, the last loss, the last dev figure of the
metric that picks the best checkpoint), puts warnings and errors above the bar, and at the end says how the run
ended, its best dev figure and step, the run folder and the best checkpoint.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from explorer.core.specs.best import is_improvement


class TrainProgress:
    """The events of one run (``__call__``: an EventWriter listener) drawn on ``stream`` for a person."""

    def __init__(self, run_dir: str | Path, stream=None):
        self.run_dir = Path(run_dir)
        self.stream = stream if stream is not None else sys.stdout
        self.bar = None
        self.task, self.metric = "", ""
        self.loss: float | None = None
        self.dev = ""                                  # the last evaluation's figure, as shown in the bar
        self.evals: dict[int, dict] = {}               # step -> the metrics of its evaluation
        self.best_step: int | None = None              # the step checkpoints/best holds (its checkpoint events)
        self.best_path = ""

    def __call__(self, event: dict) -> None:
        handler = getattr(self, f"_on_{event.get('event')}", None)
        if handler is not None:
            handler(event)

    def _say(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def _on_started(self, event: dict) -> None:
        from tqdm import tqdm

        from explorer.core.specs.tasks import best_metric_name

        config = event.get("config") or {}
        self.task, self.metric = str(config.get("task") or ""), best_metric_name(config)
        total = int(event.get("steps_total") or 0) or None
        resumed = int(event.get("resumed_from_step") or 0)
        examples = event.get("num_train_examples")
        on = f" on {examples:,} examples" if isinstance(examples, int) else ""
        device = f" ({event['device']})" if event.get("device") else ""
        self._say(f"run folder {self.run_dir}: " + (f"resumed at step {resumed:,}" if resumed else "training")
                  + f"{on}{device}")
        self.bar = tqdm(total=total, initial=resumed, unit="step", desc="train", file=self.stream, mininterval=0.5,
                        dynamic_ncols=True)

    def _on_step(self, event: dict) -> None:
        step = event.get("step")
        if self.bar is None or not isinstance(step, int):
            return
        if event.get("steps_total") and int(event["steps_total"]) != self.bar.total:
            self.bar.total = int(event["steps_total"])   # a time budget re-plans the steps
        loss = event.get("loss")
        if isinstance(loss, (int, float)) and math.isfinite(loss):
            self.loss = float(loss)
        self.bar.set_postfix_str(self._postfix(), refresh=False)
        self.bar.update(step - self.bar.n)

    def _postfix(self) -> str:
        parts = [f"loss {self.loss:.4f}"] if self.loss is not None else []
        return ", ".join(parts + ([f"dev {self.dev}"] if self.dev else []))

    def _figure(self, metrics: dict) -> str:
        """``metrics``' figure of the metric that picks the best checkpoint ("macro F1 (%) 71.30"), else ""."""
        from explorer.core.specs.metric_display import metric_label, to_display
        from explorer.core.specs.metrics import metric_spec

        value = metrics.get(self.metric)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return ""
        if not math.isfinite(value):
            return f"{metric_label(self.metric, self.task)} undefined"
        shown = to_display(self.metric, value, self.task)
        return f"{metric_label(self.metric, self.task)} {shown:.2f}" if metric_spec(self.metric).is_percent else \
            f"{metric_label(self.metric, self.task)} {shown:.4f}"

    def _on_eval(self, event: dict) -> None:
        metrics, step = event.get("metrics") or {}, event.get("step")
        if isinstance(step, int):
            self.evals[step] = metrics
        self.dev = self._figure(metrics) or self.dev
        if self.bar is not None:
            self.bar.set_postfix_str(self._postfix())

    def _on_checkpoint(self, event: dict) -> None:
        if event.get("kind") == "best":
            self.best_step, self.best_path = event.get("step"), str(event.get("path") or "")

    def _on_log(self, event: dict) -> None:
        if event.get("level") in ("warning", "error"):
            self._say(f"{event['level']}: {event.get('message', '')}")

    def _close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def _on_finished(self, event: dict) -> None:
        self._close()
        seconds = event.get("seconds")
        took = f" in {seconds:.0f} s" if isinstance(seconds, (int, float)) else ""
        steps = f" after {event['steps']:,} steps" if isinstance(event.get("steps"), int) else ""
        early = ", stopped early" if event.get("stopped_early") else ""
        self._say(f"finished{steps}{took}{early}")
        best = self.best_figure()
        if best:
            self._say(f"best dev {best}")
        self._say(f"run folder: {self.run_dir}")
        path = str(event.get("best_checkpoint") or self.best_path or "")
        if path:
            self._say(f"best checkpoint: {path}")

    def best_figure(self) -> str:
        """"macro F1 (%) 71.30 at step 120": the evaluation checkpoints/best holds, else the best evaluation by the
        training loop's rule (core.specs.best); "" before any."""
        step = self.best_step if self.best_step in self.evals else None
        if step is None:
            best = None
            for at, metrics in sorted(self.evals.items()):
                value = metrics.get(self.metric)
                if at > 0 and is_improvement(value, best, self.metric):
                    best, step = value, at
        figure = self._figure(self.evals[step]) if step is not None else ""
        return f"{figure} at step {step:,}" if figure else ""

    def _on_failed(self, event: dict) -> None:
        self._close()   # the worker's "error: ..." on stderr says why
        self._say(f"failed; run folder: {self.run_dir}")

    def _on_cancelled(self, event: dict) -> None:
        self._close()
        step = event.get("step")
        self._say("cancelled" + (f" at step {step:,}" if isinstance(step, int) else "") + f"; run folder: "
                  f"{self.run_dir} (--resume {self.run_dir} continues it)")
