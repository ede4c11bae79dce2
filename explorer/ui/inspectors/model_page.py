"""The base of the pages that show what one model does (Classify, Tag, Explain), as napari's QtLayerControls is
the base of its layer panels: what every such page has is written here once, each page adds what differs.

Every model page has a model box (the source field and Load model), loads its model in its own slot of the
inspector child (a newer load supersedes an older one; a restarted child reloads it: client.remember_load),
knows its model as a ModelInfo (``loaded``), and has a status line whose text also goes to the status bar
(``message``). A page with a :class:`~explorer.ui.inspectors.common.StaleCover` (``stale_cover``) greys its
results while another model loads; when that load fails the previous model is still the one, so its name goes
back in the model box and its results lose their grey.

A page without a model of its own takes the checkpoint opened last (:meth:`offer_checkpoint`: its model box and
task filled, nothing loaded) and loads it when first shown (:meth:`load_offered`); the rule is
explorer.ui.inspectors.components.offered_checkpoint.

A page supplies :meth:`load_task` (the head the child loads the model as) and may refine :meth:`adopt_model`
(before the model is announced), :meth:`describe_model`, :meth:`model_in` (after), :meth:`mark_stale` and
:meth:`take_task` (an offered checkpoint's task).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QTabWidget, QWidget

from explorer.core.models.info import model_name

from .client import shared_client
from .common import StatusLabel, model_in_child, still_loaded_note
from .components.offered_checkpoint import CheckpointOffer, offered_note
from .latest import LatestOnly

NO_MODEL = "no model loaded: press Load model first"


def bring_to_front(page: QWidget) -> None:
    """Show ``page`` in the tab widget that holds it (nothing when it is in none)."""
    tabs = page.parentWidget()
    while tabs is not None and not isinstance(tabs, QTabWidget):
        tabs = tabs.parentWidget()
    if tabs is not None:
        tabs.setCurrentWidget(page)


class ModelPage(QWidget):
    """A page of one model in the inspector child's ``slot``; ``intro`` is the status line before anything happens.

    Signals: message(str), a status line; model_changed(object), a model (ModelInfo) is in use now;
    load_started(str), a load of that source was asked of the child; load_ended(), it is in or failed.
    Attributes: ``source`` (QLineEdit) and ``load_button`` (Load model), for the page's layout (:meth:`model_row`);
    ``status`` (StatusLabel); ``loaded`` (ModelInfo or None); ``result`` (what the page shows, None before).
    """

    message = Signal(str)
    model_changed = Signal(object)
    load_started = Signal(str)
    load_ended = Signal()

    def __init__(self, parent=None, *, client=None, slot: str, intro: str):
        super().__init__(parent)
        self.client = client or shared_client()
        self.slot = slot
        self.loaded = None        # ModelInfo of the model in the child
        self.result = None
        self.stale_cover = None   # a page's StaleCover over its results, when it has one
        self._loader = LatestOnly.in_child(self.client, f"{slot}.load", self)
        self._loader.finished.connect(lambda _id, info: self.set_loaded(info))
        self._loader.failed.connect(lambda _id, msg, _tb: self._load_failed(msg))
        self.source = QLineEdit()
        self.load_button = QPushButton("Load model")
        self.load_button.clicked.connect(self.load_model)
        self.status = StatusLabel(intro)
        self.offer = CheckpointOffer()

    def model_row(self, *leading: QWidget, stretch_source: bool = False) -> QHBoxLayout:
        """The model box's row: ``leading`` widgets (a head or task picker), "Model", the source, Load model."""
        row = QHBoxLayout()
        for w in (*leading, QLabel("Model"), self.source, self.load_button):
            row.addWidget(w)
        if stretch_source:
            row.setStretchFactor(self.source, 1)
        return row

    @property
    def loading(self) -> bool:
        """Is a load of this page's model outstanding?"""
        return self._loader._outstanding

    # -- what a page supplies --------------------------------------------------------------------------------------
    def load_task(self) -> str:
        """The head the child loads the model as (explorer.core.models.loading.load_model's ``task``)."""
        raise NotImplementedError

    def adopt_model(self, loaded) -> None:
        """The page takes ``loaded`` in (its class names, its task), before the model is announced."""

    def describe_model(self, loaded) -> str:
        """The status line once ``loaded`` is in."""
        return loaded.describe() if hasattr(loaded, "describe") else "model loaded"

    def model_in(self, loaded) -> None:
        """After the model is announced: e.g. run the shown input through it."""

    def mark_stale(self, was: str, now: str) -> None:
        """Grey the results of model ``was`` while ``now`` loads."""
        self.stale_cover.mark(was, now)

    def take_task(self, task: str) -> None:
        """Show ``task`` (explorer.core.specs.tasks) in the page's task picker, for an offered checkpoint."""

    # -- the checkpoint opened last --------------------------------------------------------------------------------
    def offer_checkpoint(self, offered) -> bool:
        """Take ``offered`` (an OfferedCheckpoint) when this page has no model of its own: its path in the model
        box, its task in the picker, nothing loaded (:meth:`load_offered` loads it). Whether it was taken."""
        if not self.offer.takes(self.source.text(), self.loaded is not None or self.loading):
            return False
        if offered.task:
            self.take_task(offered.task)
        self.source.setText(offered.path)
        self.offer.fill(offered.path)
        self.status.setText(offered_note(offered.path))   # the page's line only: the status bar says what opened
        return True

    def load_offered(self) -> None:
        """The page is shown: load the offered checkpoint still in the model box (once)."""
        if self.offer.due(self.source.text()):
            self.load_model()

    # -- the model -------------------------------------------------------------------------------------------------
    def load_model(self) -> None:
        """Load the source field's model in this page's slot of the child (results on screen greyed meanwhile)."""
        source = self.source.text().strip()
        if self.stale_cover is not None and self.result is not None:
            was = getattr(self.loaded, "source", "") or model_name(self.loaded)
            if was != source:
                self.mark_stale(was, source)
        self._status(f"loading {source} ...")
        data = {"slot": self.slot, "source": source, "task": self.load_task()}
        self._loader.submit("load", data)
        self.client.remember_load(self.slot, data)
        self.load_started.emit(source)

    def set_loaded(self, loaded) -> None:
        """Use a loaded model: this slot's ModelInfo, or a LoadedModel handed to the child (tests)."""
        self.loaded = loaded = model_in_child(self.client, self.slot, loaded)
        self.adopt_model(loaded)
        self._status(self.describe_model(loaded))
        self.model_changed.emit(loaded)
        self.load_ended.emit()
        self.model_in(loaded)

    def _load_failed(self, message: str) -> None:
        """A load failed: the model still in the child stays the page's model, so the model box goes back to its
        name and the results on screen lose their grey (they are its results); the status line says what failed and
        which model is still in use (the box kept the failed path above another model's numbers)."""
        if self.loaded is not None:
            still = getattr(self.loaded, "source", "") or model_name(self.loaded)
            self.source.setText(still)
            message = still_loaded_note(message, still)
        self._status(message)
        if self.stale_cover is not None:
            self.stale_cover.clear()
        self.load_ended.emit()

    def has_model(self) -> bool:
        """Is a model in? Without one the status line says to load one."""
        if self.loaded is None:
            self._status(NO_MODEL)
            return False
        return True

    def _status(self, text: str) -> None:
        self.status.setText(text)
        self.message.emit(text)
