"""The Help menu's pages: keyboard shortcuts, getting started, zooming plots (texts + one dialog).

SHORTCUTS is the one list of the app's keys (the inspector pages' keys from their entries in
explorer/ui/inspectors/registry.py): the main window binds them (tests check each is bound) and the
Help → Keyboard shortcuts page and the README table show it.
"""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout

from explorer.ui.inspectors.registry import shortcut_rows
from explorer.ui.shell.screen_fit import keep_on_screen

# (key, where it works, what it does); the pages' own keys come from their registry rows
SHORTCUTS = (
    ("Ctrl+Return", "Launch tab", "launch the form's run"),
    *shortcut_rows(),
    ("Ctrl+N", "anywhere", "new run (the launcher; Time budget and Run on back to their defaults)"),
    ("Ctrl+O", "anywhere", "open a run folder from disk"),
    ("Ctrl+S", "anywhere", "save the form as a run config (.json)"),
    ("Ctrl+.", "anywhere", "stop early (selected runs)"),
    ("Ctrl+Shift+H", "anywhere", "hosts: the remote machines to run on (Run → Hosts…)"),
    ("F2", "Runs list", "rename the selected run"),
    ("Delete", "Runs list", "delete the selected run (asks first)"),
    ("F5", "anywhere", "re-read the runs folder"),
    ("Ctrl+1 … Ctrl+5", "anywhere", "Launch, Curves, Attention, Spans & τ, τ on dev set (a QA page shown first "
     "opens the selected SQuAD run's best checkpoint; a run without one yet opens nothing and the status bar says "
     "so; no run selected: the bundled encoder, named there)"),
    ("F1", "anywhere", "help on the panel you are on"),
    ("Ctrl+wheel", "plots", "zoom the plot under the mouse; the other plots follow on the shared step axis (the wheel alone scrolls the page)"),
    ("Ctrl+Q", "anywhere", "quit (asks first when a run is active)"),
)

GETTING_STARTED = """
<h3>Getting started</h3>
<ol>
<li><b>Launch</b> (Ctrl+1): the form is filled with a ready-to-launch run: the bundled encoder
(<code>bundled:minilm</code>) on the bundled SQuAD sample (its answerable questions, SQuAD v1.1 format), the offline default preset. Press <b>Launch</b>
(or Ctrl+Return in this tab). The run trains in its own process; the window stays responsive.</li>
<li><b>Curves</b> (Ctrl+2): watch the training loss, learning rate, gradient norm, samples/s and the dev
metrics grow. Select several runs in the <b>Runs</b> list (Ctrl/Shift-click) to compare them.</li>
<li>When it has finished, select the run and press <b>Open best checkpoint in inspectors</b>: a dev
question and its passage are filled in and probed.</li>
<li><b>Attention</b> (Ctrl+3) and <b>Spans &amp; τ</b> (Ctrl+4): type a question and a passage; Ctrl+Return
probes at once. Shown first with a SQuAD run selected, they open its best checkpoint (nothing, said in the status
bar, while it has none yet).</li>
<li><b>τ on dev set</b> (Ctrl+5): sweep the no-answer threshold τ over a dev file. τ needs a model trained
with unanswerable questions: launch the <b>Offline SQuAD 2.0</b> preset and open its best checkpoint.</li>
</ol>
<h3>Your own data: a text classifier</h3>
<ol>
<li><b>Launch</b>: choose a <b>Task</b> (Single sentence, Sentence pair, Regression, Multi-label), then your
CSV / TSV / JSONL file as <b>Train data</b> (and <b>Dev data</b>, or a <b>Dev fraction</b> held out). The data
preview on the right guesses the <b>Text columns</b> and the <b>Label column</b> and counts the labels; pick
others there if it guessed wrong, then press <b>Launch</b>.</li>
<li><b>Curves</b>: the dev accuracy / macro F1 is measured 4 times per epoch; stop early when it levels off.</li>
<li><b>Open best checkpoint in inspectors</b>, then <b>Classify</b>: type a text and see each label's
probability; <b>Classify: dev set</b>: <b>Score dev set</b> for the per-class table and the confusion matrix
(click a row to read that example).</li>
<li><b>Predict on a file…</b> (right-click the run in the Runs list): label a file of new texts; the
<b>Predictions</b> page lists them, lets you correct a label, and <b>Save labelled file…</b> exports them.</li>
</ol>
<h3>What each panel answers</h3>
<ul>
<li><b>Launch</b>: what will this run do, on which data, and is the data well formed?</li>
<li><b>Runs</b>: which runs exist, which are live, which did best, how much disk each takes?</li>
<li><b>Curves</b>: is it learning? Too high a learning rate, a plateau, overfitting?</li>
<li><b>Attention</b>: how much does the question look at the passage (and vice versa), layer by layer?</li>
<li><b>Spans &amp; τ</b>: why did the model give this answer, or abstain? Start/end scores, span table,
no-answer score and the τ decision.</li>
<li><b>τ on dev set</b>: which τ to use, and how honest is that choice?</li>
</ul>
<p>Hover any field or term for its meaning; F1 explains the panel you are on.</p>
"""

PLOTS_HELP = """
<h3>Zooming and moving plots</h3>
<ul>
<li>The mouse <b>wheel</b> scrolls the page, as anywhere else.</li>
<li><b>Ctrl+wheel</b> zooms the plot under the mouse (linked plots follow on the step axis).</li>
<li>Drag with the left button to pan a zoomed plot; drag with the right button to zoom one axis.</li>
<li>The <b>reset view</b> button on each plot goes back to showing all the data.</li>
<li>Right-click a plot for export (PNG, CSV) and its other options.</li>
</ul>
"""


def shortcuts_html() -> str:
    """SHORTCUTS as an HTML table for the Help page."""
    rows = "".join(f"<tr><td><b>{k}</b></td><td>{w}</td><td>{d}</td></tr>" for k, w, d in SHORTCUTS)
    return ("<h3>Keyboard shortcuts</h3><table cellspacing='0' cellpadding='4'>"
            f"<tr><th align='left'>key</th><th align='left'>where</th><th align='left'>what</th></tr>{rows}</table>")


class HelpDialog(QDialog):
    """A non-modal page of help (rich text, links open in the browser)."""

    def __init__(self, title: str, html: str, parent=None):
        super().__init__(parent)
        keep_on_screen(self)   # shown or resized, its frame stays inside the screen
        self.setWindowTitle(title)
        self.resize(640, 520)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(True)
        self.browser.setHtml(html)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay = QVBoxLayout(self)
        lay.addWidget(self.browser)
        lay.addWidget(buttons)
