"""The launcher's data preview: counts, loader problems and the first records of a data source.

The source is read by ``python -m explorer.ui.launch.data_preview`` in a child process, waited for on a
QThreadPool thread (so no parsing and no ``datasets`` import ever runs on the GUI thread or holds
its GIL); stale answers (the user typed on) are dropped. The answer for a local file is kept in this
process, keyed by the preview's arguments and the file's content (a hash): the same file previewed again
(another task and back, a second window, the bundled samples every launcher opens with) is not read again.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QLabel, QPushButton, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget, QHBoxLayout)

from explorer.paths import REPO_ROOT
from explorer.ui.shell.class_names import header_title
from explorer.ui.shell.columns import fit_columns, rows_tall
from explorer.ui.shell.scrolling import scrolling
from explorer.ui.shell.tasks import run_in_thread
from explorer.ui.shell.threads import child_wait_pool

PREVIEW_TIMEOUT_S = 180
LOCAL_SUFFIXES = (".json", ".jsonl", ".tsv", ".csv", ".txt", ".xlsx")


def is_local_source(source: str) -> bool:
    """A file path (existing, or written like one) rather than a hub dataset id."""
    s = source.strip()
    return bool(s) and (Path(s).expanduser().exists() or s.startswith(("/", ".", "~"))
                        or Path(s).suffix.lower() in LOCAL_SUFFIXES)


MEMO_SIZE = 32   # previews kept (each a few KB: counts, notes and the first records)
_memo: OrderedDict[tuple, dict] = OrderedDict()
_memo_lock = threading.Lock()


def file_digest(source: str) -> str | None:
    """BLAKE2b (128-bit, hex) of the bytes of the regular file ``source``; None for anything else (a folder,
    a hub id, a file that cannot be read). Reads the file once, in 1 MiB blocks."""
    path = Path(source).expanduser()
    h = hashlib.blake2b(digest_size=16)
    try:
        if not path.is_file():
            return None
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def run_preview_process(source: str, task: str, split: str, text_columns: list[str], label_column: str,
                        n: int = 8, options: dict | None = None, on_partial=None) -> dict:
    """Run the preview child process and return its JSON (blocking: call from a worker thread).
    ``on_partial(answer)`` gets each earlier JSON line the child prints (a big table's first rows, before its
    rows are counted; called on this thread).

    A regular file's answer is remembered (the last MEMO_SIZE, keyed by these arguments and the file's
    :func:`file_digest`) and given again, as a copy, while the file's bytes are the same; an answer is kept
    only when the file was the same before and after the child read it, and never for a failed or timed-out
    child."""
    argv = [sys.executable, "-m", "explorer.ui.launch.data_preview", source, "--task", task, "--split", split,
            "--n", str(n), "--text-columns", ",".join(text_columns), "--label-column", label_column,
            "--options", json.dumps(options or {}, sort_keys=True)]
    digest = file_digest(source)
    key = (tuple(argv), digest)
    if digest is not None:
        with _memo_lock:
            if key in _memo:
                _memo.move_to_end(key)
                return copy.deepcopy(_memo[key])
    result = _preview_child(argv, source, on_partial)
    if digest is not None and result.pop("_complete", False) and file_digest(source) == digest:
        with _memo_lock:
            _memo[key] = copy.deepcopy(result)
            while len(_memo) > MEMO_SIZE:
                _memo.popitem(last=False)
    result.pop("_complete", None)
    return result


def _preview_child(argv: list[str], source: str, on_partial=None) -> dict:
    """The child's answer (its last JSON line without ``partial``) with ``_complete`` set, or an error answer
    (timeout, no answer) without it; the lines marked ``partial`` go to ``on_partial`` as they come."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH"))
                                                      if p))
    answer: dict | None = None
    err = tempfile.TemporaryFile()   # a file, not a pipe: a child writing much to stderr never blocks
    with err, subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, text=True, env=env,
                               cwd=str(REPO_ROOT)) as proc:
        timer = threading.Timer(PREVIEW_TIMEOUT_S, proc.kill)
        timer.start()
        try:
            for line in proc.stdout:
                if not line.startswith("{"):
                    continue
                got = json.loads(line)
                if got.get("partial"):
                    if on_partial is not None:
                        on_partial(got)
                else:
                    answer = got
            proc.wait()
            err.seek(0)
            stderr = err.read().decode("utf-8", errors="replace")
        finally:
            killed = not timer.is_alive() and answer is None
            timer.cancel()
    if killed:
        return {"ok": False, "error": f"reading {source} took more than {PREVIEW_TIMEOUT_S} s", "records": []}
    if answer is None:
        tail = (stderr.strip().splitlines() or ["no output"])[-1]
        return {"ok": False, "error": f"the preview process failed: {tail}", "records": []}
    return dict(answer, _complete=True)


NOTES_MAX_SHARE = 0.45   # of the preview panel's height, for the summary and the problems before they scroll
NOTES_MIN_PX = 90        # the notes box never shrinks below this (about four lines)
TABLE_ROWS_SHOWN = 5     # data rows the table keeps whole under notes that take more than NOTES_MAX_SHARE
CLASS_ROWS_SHOWN = 8     # class-count rows always in view under the summary; more scroll in the notes box

class DataPreview(QWidget):
    """Preview of one source (train or dev). Call :meth:`request`; results arrive asynchronously."""

    finished = Signal(dict)
    _partial = Signal(int, dict)   # (request token, a big table's first rows): from the reading thread
    rejected_changed = Signal(bool)   # True while the data shown is rejected (the launcher disables Launch)

    def __init__(self, split: str, parent=None):
        super().__init__(parent)
        self.split = split
        self._token = 0
        self.result: dict | None = None
        self.rejected = False
        self._args: tuple | None = None
        self._lead = ""   # the summary and its first class-count rows (rich text): kept in view
        self._empty_note = ""   # what "no data given" means here (the launcher's: a held-out dev split or none)
        self._partial.connect(self._head)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cap_line = QLabel()   # which part of the data a Train cap keeps (set_cap_line), under the summary
        self.cap_line.setWordWrap(True)
        self.cap_line.hide()
        self.problems = QLabel()
        self.problems.setObjectName("errorLabel")
        self.problems.setWordWrap(True)
        self.problems.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.problems.hide()
        self.fetch_btn = QPushButton("Preview hub dataset")
        self.fetch_btn.setToolTip("Fetch the dataset from the Hugging Face hub (needs internet or the HF cache).")
        self.fetch_btn.hide()
        self.fetch_btn.clicked.connect(lambda: self._start(force=True))
        self.table = QTableWidget(0, 0)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        row = QHBoxLayout()
        row.addWidget(self.fetch_btn)
        row.addStretch(1)
        # the summary and the problems scroll inside a box at most NOTES_MAX_SHARE of the panel high: a long
        # message is never cut off, and never makes the panel (and so the window) taller than the screen
        notes = QWidget()
        notes_lay = QVBoxLayout(notes)
        notes_lay.setContentsMargins(0, 0, 0, 0)
        notes_lay.addWidget(self.summary)
        notes_lay.addWidget(self.cap_line)
        notes_lay.addWidget(self.problems)
        self.notes = scrolling(notes, horizontal=False)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        # the notes take the height they need up to their maximum (_fit_summary) before the table takes the rest:
        # at their size hint, the table's stretch kept them at their minimum with the last note scrolled away
        lay.addWidget(self.notes, 1000)
        lay.addLayout(row)
        lay.addWidget(self.table, 1)
        self.show_text("")

    def show_text(self, text: str) -> None:
        if not text.startswith(self._lead or "\0"):
            self._lead = ""
        self.summary.setText(text)
        self._fit_summary()

    def set_cap_line(self, text: str) -> None:
        """Show (or with "" hide) what part of the data the run trains on under the summary ("600 of 4,719
        questions (44 unanswerable) used: Train cap"), while the data shown can be used."""
        text = text if self.result is not None and self.result.get("ok") else ""
        if text == self.cap_line.text() and self.cap_line.isHidden() == (not text):
            return
        self.cap_line.setText(text)
        self.cap_line.setVisible(bool(text))
        self._fit_summary()

    def lead_height(self, width: int) -> int:
        """Pixels of the summary line and the first CLASS_ROWS_SHOWN class-count rows at ``width``: the part of
        the notes that stays in view (four lines cut a 5-class table's bars at 1280x800); 0 without class counts."""
        if not self._lead:
            return 0
        from PySide6.QtGui import QTextDocument

        doc = QTextDocument()
        doc.setDefaultFont(self.summary.font())
        doc.setDocumentMargin(0)
        doc.setHtml(self._lead)
        doc.setTextWidth(width)
        return int(doc.size().height()) + self.summary.fontMetrics().lineSpacing() // 2

    def _notes_width(self) -> int:
        return max(self.contentsRect().width() - 8 - self.notes.verticalScrollBar().sizeHint().width(), 120)

    def notes_height(self) -> int:
        """Pixels the wrapped summary and problems need at the panel's width now."""
        width = self._notes_width()
        need = self.summary.heightForWidth(width) + self.summary.fontMetrics().lineSpacing() // 2
        if not self.cap_line.isHidden():
            need += self.cap_line.heightForWidth(width) + 6
        if not self.problems.isHidden():
            need += self.problems.heightForWidth(width) + 6
        return need

    def table_room(self) -> int:
        """Pixels the table keeps under the notes: its header, TABLE_ROWS_SHOWN rows whole and a sideways scroll
        bar, with the margins and spacing around it."""
        bar = self.table.horizontalScrollBar().sizeHint().height()
        margins = self.layout().contentsMargins()
        return (rows_tall(self.table, TABLE_ROWS_SHOWN) + bar + margins.top() + margins.bottom()
                + 2 * self.layout().spacing())

    def _fit_summary(self) -> None:
        """The notes box as tall as its text needs, up to what the table's TABLE_ROWS_SHOWN rows leave of the panel
        (at least NOTES_MAX_SHARE of it; then it scrolls); the panel's minimum height never follows the text (it
        grew a window to 3,315 px on STS-B's notes)."""
        need = self.notes_height()
        least = max(NOTES_MIN_PX, self.lead_height(self._notes_width()))   # the class rows in view
        panel = max(self.height(), 2 * NOTES_MIN_PX)
        cap = max(least, int(NOTES_MAX_SHARE * panel), panel - self.table_room())
        self.notes.setMinimumHeight(min(need, least))
        self.notes.setMaximumHeight(min(need, cap) + 2)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self._fit_summary()

    def request(self, source: str, task: str, text_columns: list[str] | None = None, label_column: str = "",
                options: dict | None = None) -> None:
        """Preview ``source`` for ``task``: local files at once, hub ids on the button (network). ``options``:
        the other table settings (id_column, no_header, encoding, label_names, skip_invalid, dev_fraction)."""
        self._args = (source.strip(), task, list(text_columns or []), label_column, dict(options or {}))
        self._token += 1
        self.result = None
        self.problems.hide()
        self.table.setRowCount(0)
        self.table.setColumnCount(0)   # no headers left over from the previous source
        self.table.show()
        self._set_rejected(False)
        if not source.strip():
            self.fetch_btn.hide()
            self._show_empty()
            return
        if is_local_source(source):
            self.fetch_btn.hide()
            self._start()
        else:
            self.fetch_btn.show()
            self.show_text(f"Hub dataset <b>{_esc(source)}</b>: the worker downloads it when the run starts "
                           "(needs internet or the Hugging Face cache).")

    def set_empty_note(self, text: str) -> None:
        """What an empty source means for the run (plain text), shown while no source is given: the launcher's Dev
        data says whether the run holds training rows out as dev (core.specs.tasks.no_dev_file_note), not only
        "No data given" (which would read as "the run will not be evaluated" beside a Dev fraction of 0.10)."""
        self._empty_note = str(text or "")
        if self._args is not None and not self._args[0]:
            self._show_empty()

    def _show_empty(self) -> None:
        text = _esc(self._empty_note) if self._empty_note else "No data given."
        self.show_text(f"<span style='color:#666'>{text}</span>")

    def _start(self, force: bool = False) -> None:
        if self._args is None:
            return
        source, task, cols, label, options = self._args
        token = self._token
        self.show_text(f"Reading <b>{_esc(source)}</b>…")

        def head(partial: dict) -> None:   # on the reading thread: queued to the GUI thread
            try:
                self._partial.emit(token, partial)
            except RuntimeError:   # the panel was closed meanwhile
                pass

        run_in_thread(run_preview_process, source, task, self.split, cols, label, 8, options, head, owner=self,
                      pool=child_wait_pool(),   # it waits on a child: not on the global pool's threads
                      on_done=lambda res: self._done(token, res),
                      on_error=lambda msg, _tb: self._done(token, {"ok": False, "error": msg, "records": []}))

    def _head(self, token: int, res: dict) -> None:
        """A big table's first rows while its rows are still being counted (the answer follows in _done)."""
        if token != self._token or self.result is not None:
            return
        self.show_text(f"<span style='color:#666'>{_esc(res.get('summary', ''))}</span>")
        self._fill_table(res.get("records") or [])

    def drop_pending(self) -> None:
        """The source or its settings changed: an answer to the request under way is about what the form no longer
        holds and is dropped when it comes (the next request follows the typing pause)."""
        self._token += 1

    def _done(self, token: int, res: dict) -> None:
        if token != self._token:
            return  # stale: the field changed while this was being read
        self.result = res
        self._set_rejected(not res.get("ok"))
        self.summary.setToolTip("")   # the whole class names of the last file's bars go with its bars
        if not res.get("ok"):
            # the file's first rows stay in view under the reason: without them nothing tells which column holds
            # what (a headerless STS-B file refused for its header setting)
            self.show_text("<b style='color:#b02a37'>Cannot use this data:</b> " + _esc(res.get("error", ""))
                           + ("<br><span style='color:#666'>The file's first rows:</span>" if res.get("records")
                              else ""))
            self._fill_table(res.get("records") or [])
            self.table.setVisible(bool(res.get("records")))
            self.finished.emit(res)
            return
        text = "✓ " + _esc(res.get("summary", ""))
        counts = res.get("class_counts") or {}
        titles = {k: header_title(str(k), self.summary.fontMetrics()) for k in counts}   # as every table's titles
        cut = [str(k) for k, title in titles.items() if title != str(k)]
        if cut:   # the bars cut a long name in its middle: the whole one is readable here
            self.summary.setToolTip("Class names in full:\n" + "\n".join(cut))
        if counts:   # the class distribution, as bars of text, right under the summary (in view: _fit_summary)
            top = max(counts.values()) or 1
            bars = [f"<tt>{_esc(titles[k])}</tt> {'█' * max(1, round(20 * v / top))} {v:,}" for k, v in counts.items()]
            self._lead = text + "<br>" + "<br>".join(bars[:CLASS_ROWS_SHOWN])
            text += "<br>" + "<br>".join(bars)
        notes = [f"<br><span style='color:#666'>{_esc(note)}</span>" for note in res.get("notes") or []]
        if counts and notes and len(counts) <= CLASS_ROWS_SHOWN:   # every bar in view: the first note under them too
            self._lead = text + notes[0]   # (the labels are numbers: name them), not cut by the box at 1280x800
        text += "".join(notes)   # encoding read, CRLF, stripped labels, duplicates
        if res.get("answer_check"):  # "3 answers repaired, 1 dropped": what the run will do to the answers
            color = "#b35c00" if res.get("answers_changed") else "#666"
            text += f"<br><span style='color:{color}'>{_esc(res['answer_check'])}</span>"
        self.show_text(text)
        problems = res.get("problems") or []
        if problems:
            more = res.get("n_problems", len(problems)) - len(problems)
            text = "<br>".join(_esc(p) for p in problems[:8])
            if len(problems) > 8 or more > 0:
                text += f"<br>… {max(0, len(problems) - 8) + max(0, more)} more"
            self.problems.setText(f"<b>{res.get('n_problems', len(problems))} problem(s):</b><br>{text}")
            self.problems.show()
            self._fit_summary()
        self._fill_table(res.get("records") or [])
        self.finished.emit(res)

    def _fill_table(self, records: list[dict]) -> None:
        """The records as rows, their keys as the column titles (short cells whole, text elided, tooltips whole)."""
        cols = list(records[0].keys()) if records else []
        self.table.setColumnCount(len(cols))
        self.table.setHorizontalHeaderLabels(cols)
        self.table.setRowCount(len(records))
        for r, rec in enumerate(records):
            for c, key in enumerate(cols):
                item = QTableWidgetItem(str(rec.get(key, "")))
                item.setToolTip(str(rec.get(key, "")))
                self.table.setItem(r, c, item)
        fit_columns(self.table)   # short cells whole, text columns elided but readable


    def _set_rejected(self, on: bool) -> None:
        if on != self.rejected:
            self.rejected = on
            self.rejected_changed.emit(on)


def _esc(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
