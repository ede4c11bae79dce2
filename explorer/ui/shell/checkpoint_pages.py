"""Opening a checkpoint in the main window's inspector pages: the registry page that accepts its model head, with
the config of the run it belongs to; a checkpoint of a run on a remote host through RemoteCheckpointOpener (on the
host over SSH, or a local copy); two runs' checkpoints on one example in the Attention page's comparison. The checkpoint opened last is offered to the
other pages that can use it (explorer.ui.inspectors.components.offered_checkpoint: filled in where a page has no
model of its own, loaded when that page is first shown), also to a page built later.
"""

from __future__ import annotations

from explorer.ui.inspectors.components.offered_checkpoint import OfferedCheckpoint
from explorer.ui.inspectors.registry import page, page_for_checkpoint, pages, providers

__all__ = ["CheckpointPages"]


class CheckpointPages:
    """Checkpoints into pages for ``window`` (a MainWindow: its ``remote``, ``remote_inspect``, ``store``,
    ``page_sets``, ``hub``, ``show_page`` and ``show_message``)."""

    def __init__(self, window):
        from explorer.ui.shell.checkpoint_watch import CheckpointWatch

        self.window = window
        self.latest: OfferedCheckpoint | None = None   # the checkpoint opened last
        self.watch = CheckpointWatch(window, self.open)   # saved again since: a button opens the new weights

    def open(self, path: str, page_title: str | None = None) -> None:
        """Open a checkpoint folder in the registry page that accepts its model head (read once:
        core.models.checkpoint_windows.checkpoint_task_name), with the config of the run it belongs to; in
        ``page_title`` where that page takes the head (the page the person went to). A checkpoint of a run on a
        remote host is fetched into the run's local folder first (progress in the status bar)."""
        from explorer.core.models.checkpoint_windows import checkpoint_task_name

        w = self.window
        run = w.remote.run_for_path(path)
        if run is not None:   # on the host over SSH, or a fetched copy: as chosen for the host (remote_inspect)
            w.remote_inspect.open(run, str(path))
            return
        w.remote_inspect.inspect_here()
        head, task = checkpoint_task_name(path)
        self.open_in_page(path, head, task, w.store.config_of(path), page_title)

    def open_in_page(self, path: str, head: str | None, task: str | None, run_config: dict,
                     page_title: str | None = None) -> None:
        """Open ``path`` in the registry page for model head ``head`` (explorer.ui.inspectors.registry), or in
        ``page_title`` where that page takes the head, as ``task`` with ``run_config``; the status bar says where (or
        that no page of this build opens it)."""
        w = self.window
        spec = page_for_checkpoint(head)
        if page_title is not None and page(page_title).is_compatible(head):
            spec = page(page_title)
        page_set = w.page_sets.get(spec.provider) if spec is not None else None
        if page_set is None:
            w.show_message(f"No page of this build opens {path}")
            return
        page_set.open_checkpoint(spec.title, path, task, run_config)
        self.watch.opened(str(path))
        self.latest = OfferedCheckpoint(path=str(path), head=head, task=task, run_config=dict(run_config or {}))
        for provider in providers():
            built = w.page_sets.built(provider)
            if built is not None:
                self.offer(provider, built, opened=spec.title)
        w.show_page(spec.title)
        w.show_message(f"Opening {path} in {spec.plain_title} …")

    def offer(self, provider: str, page_set, opened: str | None = None) -> None:
        """Offer the checkpoint opened last to ``provider``'s pages that take it (registry
        ``InspectorPage.takes_offer``), but the page it opened in (``opened``); each page decides whether it has a
        model of its own (``page_set.offer_checkpoint``). Also called when a page set is built."""
        take = getattr(page_set, "offer_checkpoint", None)
        if self.latest is None or take is None:
            return
        for spec in pages():
            if spec.provider == provider and spec.title != opened and spec.takes_offer(self.latest.head):
                take(spec.title, self.latest)

    def open_on_host(self, path: str, task: str | None, run_config: dict) -> None:
        """A checkpoint path on a remote host, opened by its run's task (the folder is not here to read)."""
        from explorer.core.specs.tasks import find_task_facts

        facts = find_task_facts(task or "")
        if facts is None:
            self.open_in_page(path, None, None, run_config)
        else:
            self.open_in_page(path, facts.head.model_head, facts.name, run_config)

    def compare(self, path_a: str, path_b: str) -> None:
        """Two runs' checkpoints on one example: A opens in the Attention page (as "Open best checkpoint"), and the
        two-checkpoint view opens on the example shown there with B filled in."""
        w = self.window
        self.open(path_a)
        if w.hub is None:
            return
        w.hub.open_compare(source_b=path_b)
        w.show_message(f"Comparing {path_a} (A) with {path_b} (B): press Compare")
