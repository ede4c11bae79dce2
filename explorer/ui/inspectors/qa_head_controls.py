"""The QA inspector's head controls: heads switched off on the question in view (under the τ decision of Spans & τ)
and the head importance map (a tab of the Attention page's lower panes), fed by the InspectorHub's probe."""

from __future__ import annotations

from explorer.ui.shell.scrolling import wheel_scrolls_page

from .head_importance_panel import HeadImportancePanel
from .head_mask_bar import HeadMaskBar


class QAHeadControls:
    """Builds and feeds ``mask_bar`` (HeadMaskBar) and ``importance`` (HeadImportancePanel) of ``hub`` (an
    InspectorHub: its client and slot, shown probe ``result``, Spans view's τ and probe panel's window settings)."""

    def __init__(self, hub):
        from explorer.core.specs.tasks import qa_task_names

        self.hub = hub
        self.mask_bar = HeadMaskBar(hub.client, hub.slot, self.mask_inputs, dev=self.dev_set)
        hub.spans_view.body_layout.insertWidget(1, self.mask_bar)
        self.importance = HeadImportancePanel(hub.client, hub.slot, self.window_settings)
        hub.attention_view.bottom.addTab(self.importance, "Head importance")
        # its map and curve are plots of the scrolling page added after the page's own: the wheel over them
        # scrolls the page too (a person scrolling down to the map zoomed it out to a dot)
        wheel_scrolls_page(hub.attention_view)
        self.importance.set_tasks(qa_task_names(), qa_task_names()[-1])   # SQuAD 2.0 reads both kinds of file
        hub.result_changed.connect(lambda _r: self.mask_bar.clear())   # a comparison is of the input it ran on

    def model_in(self, loaded) -> None:
        """Heads off checks typed heads against the model's size; a run checkpoint's dev file (the one τ on dev set
        pre-fills: core.models.checkpoint_windows.run_dev_file) fills Head importance's Dev file, read as the run's
        task."""
        from explorer.core.models.checkpoint_windows import run_dev_file, run_task_of
        from explorer.core.specs.tasks import qa_task_names

        self.mask_bar.model_in(loaded)
        path = getattr(loaded, "path", "") or getattr(loaded, "source", "") or ""
        task = run_task_of(path) if path else None
        if task:
            self.importance.set_tasks(qa_task_names(), task)
        self.importance.prefill_dev(run_dev_file(path) if path else None)

    def mask_inputs(self) -> dict | None:
        """The shown probe's question, passage, window settings and the τ in view, as mask_heads fields."""
        r = self.hub.result
        if r is None:
            return None
        return {"text": r.question, "text_pair": r.passage, "tau": self.hub.spans_view.tau,
                **self.window_settings(r)}

    def dev_set(self) -> dict | None:
        """The Head importance tab's dev file, example count and task, as mask_heads fields; None without a file."""
        from .components.head_masking import dev_fields

        p = self.importance
        return dev_fields(p.dev.text(), p.cap.value(), p.task.currentText())

    def window_settings(self, result=None) -> dict:
        """max_seq_length, doc_stride, max_query_length of the shown probe (else of the probe panel)."""
        settings = getattr(result or self.hub.result, "settings", None) or self.hub.panel.inputs()
        return {k: int(settings[k]) for k in ("max_seq_length", "doc_stride", "max_query_length") if k in settings}
