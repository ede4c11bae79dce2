"""Test helpers shared across test files: tiny models and data written to disk, no network.

- ``tiny_tokenizer()``, ``tiny_bert_qa(...)``, ``tiny_loaded_model(task)``: a tiny random BERT (2 layers,
  4 heads, hidden 32) and a fast WordPiece tokenizer with a small in-memory vocab; no files, no network.
- ``save_tiny_model(folder, task)``: a tiny random BERT (2 layers, 4 heads, hidden 32) + its fast
  tokenizer saved with ``save_pretrained``, usable as ``--model <folder>`` / ``load_model(folder)``.
- ``tiny_head_model(head)``, ``save_tiny_head_model(folder, head)``: the same for one head of
  explorer.core.specs.heads (its problem_type, output count and class or tag names as training records them);
  the ``every_head`` fixture (conftest.py) runs one test body on every head of the spec, and
  ``every_head_checkpoint`` gives each head's saved tiny checkpoint.
- ``write_tiny_squad(path, v2=True)``: a small official-format SQuAD JSON (v2.0 adds unanswerable
  questions) whose words the tiny tokenizer covers.
- ``write_tiny_classification(path, pair=False)``: a small GLUE-style TSV/CSV/JSONL file.
- ``write_tiny_conll(path)``: a small 2-column IOB2 CoNLL file (``--task ner``); ``tiny_loaded_model(
  "token_classification", num_labels=K)`` is the matching tiny token-classification BERT.
- ``run_worker(argv)``: ``bert-explorer train`` in a real child process, returning (rc, stdout, stderr).
- ``run_cli(argv)``: ``bert-explorer <argv>`` in this process (``explorer.cli.main``), as a CompletedProcess:
  for the tests of a command beyond its one entry-point test in a child process (no interpreter and
  torch start-up per call).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def tiny_bert_qa(vocab_size: int = 120, seed: int = 0, task: str = "qa", num_labels: int = 2, layers: int = 2,
                 heads: int = 4):
    """A tiny random BERT (``layers`` layers, 2 unless told, ``heads`` heads, 4 unless told, 8 dimensions per head:
    hidden 32 with 4 heads); no files, no network.

    Returns (model, config). Pair it with :func:`tiny_tokenizer`; :func:`tiny_loaded_model` does both.
    """
    import torch
    import transformers
    from transformers import BertConfig

    from explorer.core.specs.heads import for_model_head

    torch.manual_seed(seed)
    config = BertConfig(vocab_size=vocab_size, hidden_size=8 * heads, num_hidden_layers=layers, num_attention_heads=heads,
                        intermediate_size=64, max_position_embeddings=512, num_labels=num_labels)
    config._attn_implementation = "sdpa"
    auto = getattr(transformers, for_model_head(task).auto_class)     # task: a model head of the head spec
    return auto.from_config(config, attn_implementation="sdpa").eval(), config


TINY_WORDS = ("the a an of in on to and is was were what who where when why how which did does "
              "born city river bert model answer question passage year first name ada london paris").split()


def tiny_tokenizer():
    """A fast WordPiece tokenizer with a small in-memory vocab: special tokens, some words, and
    every ASCII letter/digit/punctuation as a start piece and a ``##`` piece, so any ASCII text
    tokenizes without [UNK]. Offsets work like any fast BERT tokenizer. No files, no network."""
    import string

    from transformers import BertTokenizerFast

    chars = string.ascii_lowercase + string.digits + string.punctuation
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list(TINY_WORDS)
    vocab += list(chars) + ["##" + c for c in string.ascii_lowercase + string.digits]
    vocab = list(dict.fromkeys(vocab))
    return BertTokenizerFast(vocab={t: i for i, t in enumerate(vocab)}, do_lower_case=True)


def tiny_loaded_model(task: str = "qa", seed: int = 0, num_labels: int = 2, layers: int = 2, heads: int = 4):
    """tiny_tokenizer() + a tiny random BERT of ``layers`` layers and ``heads`` heads sized to its vocab, wrapped as a
    LoadedModel."""
    from explorer.core.models.loading import LoadedModel

    tok = tiny_tokenizer()
    model, _ = tiny_bert_qa(vocab_size=len(tok), seed=seed, task=task, num_labels=num_labels, layers=layers,
                            heads=heads)
    return LoadedModel(model=model, tokenizer=tok, source="tiny:random", path="", task=task,
                       head_initialised=True, missing_keys=[])



def tiny_tagger(seed: int = 2):
    """A tiny random token-classification LoadedModel whose id2label holds the tags of write_tiny_conll's file."""
    loaded = tiny_loaded_model("token_classification", num_labels=5, seed=seed)
    loaded.model.config.id2label = dict(enumerate(["O", "B-LOC", "B-MISC", "I-MISC", "B-PER"]))
    return loaded


def tag_pages(qtbot):
    """The Tag and Tag: dev set pages (explorer.ui.inspectors.tag_view.tag_tabs), owned by qtbot: (view, dev)."""
    from explorer.ui.inspectors.tag_view import tag_tabs

    (_, view), (_, dev) = tag_tabs()
    qtbot.addWidget(view)
    qtbot.addWidget(dev)
    return view, dev

def save_tiny_model(folder: str | Path, task: str = "qa", num_labels: int = 2, seed: int = 0) -> Path:
    """Save tiny_loaded_model(task) + tokenizer into ``folder``; returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    loaded = tiny_loaded_model(task, seed=seed, num_labels=num_labels)
    loaded.model.save_pretrained(folder)
    loaded.tokenizer.save_pretrained(folder)
    return folder


TINY_CLASSES = {0: "negative", 1: "neutral", 2: "positive"}
TINY_TAGS = {0: "O", 1: "B-PER", 2: "I-PER", 3: "B-LOC", 4: "I-LOC"}


def head_label_names(head) -> dict[int, str]:
    """The class names (id2label) a tiny model of ``head`` (explorer.core.specs.heads.HeadSpec) gets: IOB2 tags for
    a head that tags words, three classes for other heads whose outputs id2label names, none otherwise."""
    from explorer.core.specs.heads import Inputs

    if not head.named_outputs:
        return {}
    return dict(TINY_TAGS if head.inputs is Inputs.WORDS else TINY_CLASSES)


def tiny_head_model(head, seed: int = 0, names: list[str] | None = None):
    """A LoadedModel of a tiny random BERT with ``head`` (a HeadSpec): its model head, its fixed output count
    (regression: 1) or one per class name, its problem_type and class names in the config as training writes
    them. ``names``: other class names, in id order (a head whose outputs id2label names)."""
    names = dict(enumerate(names)) if names is not None else head_label_names(head)
    loaded = tiny_loaded_model(head.model_head, seed=seed, num_labels=head.num_labels or len(names) or 2)
    config = loaded.model.config
    if head.problem_type:
        config.problem_type = head.problem_type
    if names:
        config.id2label = dict(names)
        config.label2id = {name: i for i, name in names.items()}
    return loaded


def save_tiny_head_model(folder: str | Path, head, seed: int = 0, names: list[str] | None = None) -> Path:
    """Save tiny_head_model(head, names=names) + tokenizer into ``folder`` (``save_pretrained``: config.json
    records the architecture, problem_type and id2label); returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    loaded = tiny_head_model(head, seed=seed, names=names)
    loaded.model.save_pretrained(folder)
    loaded.tokenizer.save_pretrained(folder)
    return folder


# (context, [(question, answer text or None for unanswerable)])
_SQUAD_ARTICLES = [
    ("Ada", [
        ("Ada was born in London in 1815. She wrote the first program for the engine of Babbage.",
         [("Where was Ada born?", "London"), ("When was Ada born?", "1815"),
          ("Who wrote the first program?", "Ada"), ("Where was Babbage born?", None)]),
        ("The river of the city is the Thames. Paris has the river Seine.",
         [("What is the river of Paris?", "Seine"), ("What is the river of the city?", "Thames"),
          ("What is the river of Rome?", None)]),
    ]),
    ("Bert", [
        ("BERT is a model that reads text in both directions. It was first released in 2018 by Google.",
         [("When was BERT first released?", "2018"), ("Who released BERT?", "Google"),
          ("How does BERT read text?", "in both directions"), ("Who named BERT?", None)]),
        ("The answer to the question is in the passage. The passage has 42 words or fewer.",
         [("Where is the answer?", "in the passage"), ("How many words does the passage have?", "42"),
          ("What is the name of the question?", None)]),
    ]),
]


def tiny_squad_dict(v2: bool = True, repeat: int = 1) -> dict:
    """The tiny SQuAD data as an official-format dict (``repeat`` copies each question with a new id)."""
    data = []
    qn = 0
    for title, paragraphs in _SQUAD_ARTICLES:
        paras = []
        for context, qas in paragraphs:
            items = []
            for r in range(repeat):
                for question, answer in qas:
                    if answer is None and not v2:
                        continue
                    qn += 1
                    qid = f"q{qn:04d}"
                    if answer is None:
                        item = {"id": qid, "question": question, "answers": [], "is_impossible": True,
                                "plausible_answers": []}
                    else:
                        start = context.index(answer)
                        item = {"id": qid, "question": question,
                                "answers": [{"text": answer, "answer_start": start}]}
                        if v2:
                            item["is_impossible"] = False
                    items.append(item)
            paras.append({"context": context, "qas": items})
        data.append({"title": title, "paragraphs": paras})
    return {"version": "v2.0" if v2 else "1.1", "data": data}


def write_tiny_squad(path: str | Path, v2: bool = True, repeat: int = 1) -> Path:
    """Write a small official-format SQuAD file (v1.1: 10 questions per repeat; v2.0: 14, 4 unanswerable)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(tiny_squad_dict(v2=v2, repeat=repeat)), encoding="utf-8")
    return path


_SINGLE = [("a good and fine model", 1), ("the worst year", 0), ("what a fine city", 1),
           ("bad river and bad city", 0), ("good answer", 1), ("a bad bad question", 0),
           ("the first good passage", 1), ("worst name of the year", 0)]
_PAIR = [("ada was born in london", "ada was born in the city of london", 1),
         ("the river is in paris", "paris has no river", 0),
         ("bert is a model", "bert is a model of text", 1),
         ("the year was 1815", "the city was london", 0),
         ("what is the answer", "which is the answer", 1),
         ("the first name", "the river of the city", 0)]


TINY_CONLL = [("ada was born in london", "B-PER O O O B-LOC"), ("the river of paris", "O O O B-LOC"),
              ("bert model of the city", "B-MISC I-MISC O O O"), ("who wrote the first answer", "O O O O O")]


def write_tiny_conll(path: str | Path, repeat: int = 1) -> Path:
    """A small 2-column CoNLL file (word tag, IOB2, blank line between sentences) the tiny tokenizer covers."""
    lines = []
    for _ in range(repeat):
        for words, tags in TINY_CONLL:
            lines += [f"{w} {t}" for w, t in zip(words.split(), tags.split())] + [""]
    Path(path).write_text("\n".join(lines), encoding="utf-8")
    return Path(path)


def write_head_data(path: str | Path, head, names: list[str], repeat: int = 2) -> Path:
    """A small training file for a head whose outputs id2label names (a HeadSpec with ``named_outputs``),
    using every label of ``names``: CoNLL words and IOB2 tags (a head that tags words; ``I-X`` only after
    ``B-X`` or ``I-X``), a ``text`` / ``labels`` table with ``;``-separated label sets (sigmoid scores), else
    a ``sentence`` / ``label`` table with one class a row. The tiny tokenizer covers every word."""
    from explorer.core.specs.heads import Inputs, Scores

    path = Path(path)
    words = ["ada", "london", "paris", "river", "city", "model", "year", "answer"]
    if head.inputs is Inputs.WORDS:
        lines = []
        for r in range(repeat):
            for k, name in enumerate(names):
                tags = [name] if not name.startswith("I-") else ["B-" + name[2:], name]
                lines += [f"{words[(k + j) % len(words)]} {t}" for j, t in enumerate(["O"] + tags)] + [""]
        path.write_text("\n".join(lines), encoding="utf-8")
    elif head.scores is Scores.SIGMOID:
        rows = [f"the {words[k % len(words)]} {r}\t{name};{names[(k + 1) % len(names)]}"
                for r in range(repeat) for k, name in enumerate(names)]
        path.write_text("text\tlabels\n" + "\n".join(rows) + "\n", encoding="utf-8")
    else:
        rows = [f"the {words[k % len(words)]} {r}\t{name}" for r in range(repeat) for k, name in enumerate(names)]
        path.write_text("sentence\tlabel\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def write_tiny_classification(path: str | Path, pair: bool = False, repeat: int = 1,
                              columns: tuple[str, ...] | None = None) -> Path:
    """Write a GLUE-style file. Format from the suffix: .tsv (tab), .csv, .jsonl.

    Single: columns ``sentence,label`` (SST-2). Pair: ``Quality, #1 String, #2 String`` (MRPC).
    ``columns`` renames them (in that order: text(s) then label for single; label, a, b for pair).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if pair:
        names = list(columns or ("Quality", "#1 String", "#2 String"))
        rows = [{names[0]: y, names[1]: a, names[2]: b} for a, b, y in _PAIR * repeat]
    else:
        names = list(columns or ("sentence", "label"))
        rows = [{names[0]: s, names[1]: y} for s, y in _SINGLE * repeat]
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        sep = "\t" if path.suffix == ".tsv" else ","
        lines = [sep.join(names)] + [sep.join(str(r[n]) for n in names) for r in rows]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_label_sorted_table(path: str | Path, first: int = 40, second: int = 10, names=("a", "b")) -> Path:
    """A ``sentence, label`` TSV sorted by label: ``first`` rows of class names[0], then ``second`` of names[1]
    (a file whose first rows hold one class only)."""
    path = Path(path)
    path.write_text("sentence\tlabel\n" + "".join(f"text number {i}\t{names[0]}\n" for i in range(first))
                    + "".join(f"text number {first + i}\t{names[1]}\n" for i in range(second)), encoding="utf-8")
    return path


def worker_env(**extra: str) -> dict:
    env = dict(os.environ)
    env.update({"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "PYTHONUNBUFFERED": "1",
                "OMP_NUM_THREADS": "1"})
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def worker_command(argv: list[str]) -> list[str]:
    """The command line that runs ``bert-explorer train <argv>`` with this interpreter."""
    return [sys.executable, "-m", "explorer", "train", *[str(a) for a in argv]]


def run_worker(argv: list[str], timeout: float = 120.0) -> tuple[int, str, str]:
    """Run the worker to completion in a child process; returns (exit code, stdout, stderr)."""
    proc = subprocess.run(worker_command(argv), capture_output=True, text=True, timeout=timeout,
                          env=worker_env(), cwd=REPO_ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def run_cli(argv: list) -> subprocess.CompletedProcess:
    """``bert-explorer <argv>`` run in this process through ``explorer.cli.main``, stdout and stderr captured.

    Returns a CompletedProcess (args, returncode, stdout, stderr) like ``subprocess.run(..., text=True)``;
    argparse's SystemExit (a bad flag, --help) becomes the return code. Exceptions other than the ones the
    command turns into exit codes propagate (a traceback in a child process would fail the same test).
    """
    import contextlib
    import io

    from explorer.cli import main

    argv = [str(a) for a in argv]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return subprocess.CompletedProcess(argv, int(rc or 0), out.getvalue(), err.getvalue())


def shown_curves_panel(qtbot, width: int = 1000, height: int = 700):
    """A CurvesPanel of ``width`` x ``height``, shown (and exposed) offscreen, closed with the test."""
    from explorer.ui.curves.panel import CurvesPanel

    w = CurvesPanel()
    w.resize(width, height)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def curves_painted_one_by_one(qtbot, width: int = 1000, height: int = 800):
    """A shown CurvesPanel (shown_curves_panel) whose curves each paint themselves, as pyqtgraph's curve items do:
    no plot's CurveLayer takes a curve (the way a curve the layer cannot draw is painted). The reference the
    layer's one paint per plot must equal, pixel for pixel."""
    w = shown_curves_panel(qtbot, width, height)
    wire = w.plot_grid._wire

    def layerless(plot):   # a plot built later (a metric shown on demand) too
        plot.layer.add = lambda _curve: False
        wire(plot)
    w.plot_grid._wire = layerless
    for plot in w.panels.values():
        plot.layer.add = lambda _curve: False
    return w


def count_plot_paints(monkeypatch) -> dict[int, int]:
    """Counts pyqtgraph view paints by ``id(view)`` from now on (call before the views are made: PySide looks
    up a Python override of a virtual once per class)."""
    import pyqtgraph as pg

    count: dict[int, int] = {}
    orig = pg.GraphicsView.paintEvent

    def counted(view, ev):
        count[id(view)] = count.get(id(view), 0) + 1
        return orig(view, ev)

    monkeypatch.setattr(pg.GraphicsView, "paintEvent", counted)
    return count


def widget_pixels(widget):
    """The widget grabbed as ARGB32 bytes, shape (height, bytes per line): for pixel-exact comparisons."""
    import numpy as np
    from PySide6.QtGui import QImage

    im = widget.grab().toImage().convertToFormat(QImage.Format.Format_ARGB32)
    return np.frombuffer(im.constBits(), dtype=np.uint8).reshape(im.height(), im.bytesPerLine()).copy()


def probe_in_small_windows(qtbot, hub, question: str, passage: str, timeout: int = 20_000):
    """Probe ``question`` / ``passage`` through an InspectorHub with 48-token windows (overlap 16) and an
    attention budget that keeps only the shown window's raw weights; returns the ProbeResult."""
    hub.attention_budget = 2 * 4 * 48 * 48 * 2
    hub.panel.max_seq_length.setValue(48)
    hub.panel.doc_stride.setValue(16)
    hub.panel.debounce.stop()
    with qtbot.waitSignal(hub.result_changed, timeout=timeout) as blocker:
        hub.open_example(question, passage)
    return blocker.args[0]


def write_file(path: str | Path, text: str) -> Path:
    """``text`` written to ``path`` (UTF-8), its folder made first; the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# STS-B as released: tab-separated, no header, genre file years id score sentence1 sentence2 (7 or 9 fields)
STSB_ROWS = (
    "main-captions\tMSRvid\t2012test\t0001\t5.000\tA plane is taking off.\tAn air plane is taking off.\n"
    "main-captions\tMSRvid\t2012test\t0004\t3.800\tA man is playing a large flute.\tA man is playing a flute.\n"
    "main-captions\tMSRvid\t2012test\t0005\t3.800\tA man is spreading cheese on a pizza.\tA man spreads cheese.\n"
    "main-forums\tdeft\t2014\t0006\t0.500\tThree men are playing chess.\tTwo men are playing chess.\tx\ty\n"
    "main-captions\tMSRvid\t2012test\t0009\t4.250\tA man is playing the cello.\tA man seated plays the cello.\n")
# the rows of STSB_ROWS with 7 fields, the ones a reader of columns 6 and 7 takes whole
STSB_SEVEN_FIELD_ROWS = "".join(line + "\n" for line in STSB_ROWS.splitlines() if line.count("\t") == 6)
# a SemEval-2016-like stance file: a header row, 30 tweets, three classes
STANCE_ROWS = ("ID\tTarget\tTweet\tStance\n" + "".join(
    f"{i}\tAtheism\t{text} {i}\t{label}\n" for i, (text, label) in enumerate(
        [("god is not real", "AGAINST"), ("pray every day", "FAVOR"), ("the weather is nice", "NONE")] * 10)))


def shown_main_window(qtbot, tmp_path, *, inspector_opened: bool = False):
    """The main window shown and exposed in the app's style, with no worker started (``max_parallel`` 0), its runs in
    ``tmp_path / "runs"`` and its settings in ``tmp_path / "s.ini"``; ``inspector_opened``: no first-visit load of
    the bundled encoder. Set EXPLORER_CACHE_DIR first where the window's caches must stay in tmp_path."""
    from PySide6.QtWidgets import QApplication

    from explorer.ui.shell.main_window import MainWindow
    from explorer.ui.shell.settings import AppSettings
    from explorer.ui.shell.style import apply_style

    apply_style(QApplication.instance())
    w = MainWindow(tmp_path / "runs", AppSettings(tmp_path / "s.ini"), probe_device=False)
    w.manager.max_parallel = 0
    w._inspector_opened = inspector_opened or w._inspector_opened
    qtbot.addWidget(w, before_close_func=lambda w: w.manager.cancel_all())
    w.show()
    qtbot.waitExposed(w)
    return w


def shown_launcher(qtbot, tmp_path, width: int = 820):
    """A shown LauncherPanel as wide as in a 1280x800 window beside the Runs dock (``width`` px), 700 px high."""
    from explorer.ui.launch.launcher import LauncherPanel

    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.resize(width, 700)
    w.show()
    qtbot.waitExposed(w)
    return w


def answer_train_preview(launcher, source: str, task: str) -> None:
    """The launcher's train preview answered for ``source`` (the data check, run here rather than in its child)."""
    from explorer.ui.launch.data_preview import preview_data

    launcher.train_preview._token += 1
    launcher.train_preview._done(launcher.train_preview._token, preview_data(source, task))
