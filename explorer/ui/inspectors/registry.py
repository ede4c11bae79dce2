"""The inspector page registry: every page after Launch and Curves, declared once (Qt-free).

Each :class:`InspectorPage` says what the main window needs to know about a page: its tab title, its
help paragraph (F1 "About this panel" and the tab's tooltip), which checkpoints it opens (LIT's
``is_compatible``: by the model head recorded in the checkpoint, whose entry in ``core/specs/heads.py`` names
the pages that open it; a page may also name heads itself), its keyboard shortcuts, and the provider that
builds it. The main window builds its tabs in registry order
and routes an opened checkpoint through :func:`page_for_checkpoint`; it never picks a page by position.

A provider is ``"module:function"``; ``function(window)`` builds a *page set*: an object with
``pages`` (title -> QWidget, one per page of this provider) and, where its pages declare them,
``open_checkpoint(title, path, task, run_config)`` (open a checkpoint folder of task ``task``; the run's
config.json as a dict, {} when none), ``offer_checkpoint(title, offered)`` (the checkpoint opened last in another
page, for a page without a model of its own: explorer.ui.inspectors.components.offered_checkpoint; the pages that
take it: :meth:`InspectorPage.takes_offer`), ``first_visit(title)`` (the first time the page is shown) and the
methods its shortcuts name. Several pages can share a provider (the three QA pages share one
InspectorHub and its probe panel).

The main window builds a provider's page set when first needed (explorer.ui.shell.lazy_pages: the tab is
shown, or code reads one of its pages or the attributes it keeps on the window), not at start. What must work
before that is wired at start by the provider's hook in ``_WIRING`` (:func:`wiring`): ``function(window)``,
from a module that imports no page.

Adding a page: write the page (and its provider, or add it to an existing page set) and one
``InspectorPage`` row below, or :func:`register_page` at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.core.specs.heads import NO_HEAD_PAGES, for_model_head
from explorer.ui.groups.compare_words import SWAP_KEYS

HUB = "explorer.ui.inspectors.hub:page_set"
CLASSIFY = "explorer.ui.inspectors.classify_view:page_set"
GROUPS = "explorer.ui.groups.tabs:page_set"
TAG = "explorer.ui.inspectors.tag_view:page_set"
EXPLAIN = "explorer.ui.inspectors.explain_view:page_set"
EMBEDDINGS = "explorer.ui.inspectors.embeddings_view:page_set"
LAYER_PROBES = "explorer.ui.inspectors.layer_probes_view:page_set"
PROBE_KEYS = ("Ctrl+Return", "Ctrl+Enter")   # Enter = the keypad's
ATTENTION, SPANS, DEV_TAU = "Attention", "Spans && τ", "τ on dev set"   # the InspectorHub's pages
CLASSIFY_PAGE, CLASSIFY_DEV_PAGE = "Classify", "Classify: dev set"
GROUPS_PAGE, COMPARE_PAGE = "Groups", "Compare"
TAG_PAGE, TAG_DEV_PAGE = "Tag", "Tag: dev set"
_WIRING = {GROUPS: "explorer.ui.groups.hooks:wire"}   # provider -> its start-up hook (module docstring)


@dataclass(frozen=True)
class Shortcut:
    """A key bound while focus is inside the page. ``keys``: QKeySequence strings (the first is the one
    the Help page lists); ``what``: the Help page's words; ``method``: the page set's method it calls."""

    keys: tuple[str, ...]
    what: str
    method: str


@dataclass(frozen=True)
class InspectorPage:
    """One tab of the main window after Launch and Curves.

    Attributes:
        title: the tab text (Qt's "&&" shows one "&").
        help: what the page shows and how to read it (plain text, a paragraph or two).
        provider: "module:function" building the page set that holds this page (module docstring).
        heads: checkpoint heads it opens besides those whose HeadSpec names it in ``pages``
            (explorer.core.specs.heads: model_head names such as "token_classification"), for a page added at
            run time; () = none beyond the spec's.
        shortcuts: keys bound while the page has focus.
        any_head: it takes the checkpoint opened last whatever its head (a field of its form, as Layer probes'),
            though no checkpoint is routed to it.
    """

    title: str
    help: str
    provider: str
    heads: tuple[str | None, ...] = ()
    shortcuts: tuple[Shortcut, ...] = ()
    any_head: bool = False

    def is_compatible(self, head: str | None) -> bool:
        """Can this page open a checkpoint whose model head is ``head`` (a ``model_head``; None = a checkpoint
        that records no head, such as a bare encoder)? Its head's ``pages`` say so (``NO_HEAD_PAGES`` for none),
        or this page's own ``heads``."""
        spec = for_model_head(head)
        pages = spec.pages if spec is not None else NO_HEAD_PAGES if head is None else ()
        return self.plain_title in pages or head in self.heads

    def takes_offer(self, head: str | None) -> bool:
        """Is the checkpoint opened last, of model head ``head``, offered to this page (when it has no model of its
        own)? A checkpoint with a task head, to the pages that open that head or take any head."""
        return for_model_head(head) is not None and (self.any_head or self.is_compatible(head))

    @property
    def plain_title(self) -> str:
        """The title as shown ("Spans & τ")."""
        return self.title.replace("&&", "&")


PROBE = Shortcut(PROBE_KEYS, "probe the question and passage now", "probe")
SWAP = Shortcut((SWAP_KEYS,), "swap checkpoints A and B (the comparison runs again the other way round)", "swap")

_PAGES: list[InspectorPage] = [
    InspectorPage(
        ATTENTION,
        "How attention moves between the question, the passage and the special tokens ([CLS], [SEP]) in "
        "every layer and head. The block-flow grid shows, for each layer, how much attention the tokens of "
        "one block give to each block (rows sum to 1); the heat map shows single heads token by token; "
        "rollout combines the layers. Much attention goes to [CLS] and [SEP], which many heads use as a "
        "resting place; what matters for QA is how much flows from the question to the passage and back.",
        HUB, shortcuts=(PROBE,)),
    InspectorPage(
        SPANS,
        "One question and passage through the QA head: start and end scores for every token of every "
        "window, the table of span scores start_logits[i] + end_logits[j] (only valid spans inside the "
        "passage, at most max_answer_length tokens long), the n-best answers, the no-answer score s_null and "
        "the decision best_non_null_score > null_score + τ written out with the numbers. The by-hand check "
        "recomputes the start scores from the hidden states. If the model's QA head was never trained, its "
        "scores are random and the panel says so.",
        HUB, shortcuts=(PROBE,)),
    InspectorPage(
        DEV_TAU,
        "Choose the no-answer threshold τ for SQuAD 2.0. For every dev question the model's score_diff is "
        "stored once; the sweep then recomputes EM, F1, HasAns_f1, NoAns_f1 and the answer rate for each τ "
        "from −6 to +6 (wider where a question's score_diff lies outside), in milliseconds. Raising τ trades HasAns_f1 for NoAns_f1; the best τ maximises F1. "
        "Because choosing τ on the same questions flatters the score, the honest figure chooses τ on one "
        "half of the dev set and scores it on the other.",
        HUB),
    InspectorPage(
        CLASSIFY_PAGE,
        "The classifier head of a single-sentence (SST-2 style) or sentence-pair (MRPC style) model, or the "
        "multiple-choice head of a SWAG model, with this model's own numbers. C is the pooled [CLS] vector "
        "fed to the head (drawn as a colour strip, one row per ending for SWAG); the table gives the logits "
        "C Wᵀ + b (SWAG: one score C_k·w + b per ending), their softmax probabilities, the loss "
        "−log p(label) in nats for the label you choose, and the prediction. The by-hand check recomputes "
        "the logits from the hidden state of [CLS] through the pooler in float64 and shows the largest "
        "difference. For pairs, the curves show per layer how much attention flows from sentence A to B and "
        "back, and to [CLS]/[SEP].",
        CLASSIFY),
    InspectorPage(
        CLASSIFY_DEV_PAGE,
        "The Classify tab's model over a dev file (GLUE .tsv / .csv / .jsonl, or a SWAG .csv; the first N "
        "examples with the cap): accuracy, F1, Matthews correlation (MCC) and the confusion matrix (rows: "
        "gold label, columns: prediction), the examples nearest the decision boundary (smallest margin "
        "between the two most probable labels) and the most confident mistakes. Click an example to open it "
        "in Classify with its numbers.",
        CLASSIFY),
    InspectorPage(
        TAG_PAGE,
        "Token tagging (named entities, BERT paper Figure 4d): a tag for every word from its first word piece. "
        "Type a sentence to see the entities found, highlighted by type, and a heat strip of every word's tag "
        "probabilities (words x tags). Pick a word piece to see its head written out: logits = T_i Wᵀ + b from "
        "its final hidden state T_i, the softmax over the tags, and the by-hand check against the model.",
        TAG),
    InspectorPage(
        TAG_DEV_PAGE,
        "The Tag page's model over a dev file (CoNLL columns or JSONL tokens / tags): entity-level precision, "
        "recall and F1 per type (seqeval, strict IOB2, as conlleval), a confusion table between types with "
        "missed and spurious entities, and the most confident mistakes. Double-click a mistake to open its "
        "sentence on the Tag page.",
        TAG),
    InspectorPage(
        GROUPS_PAGE,
        "Run groups of the runs folder: restarts (the same settings with several seeds) and grids (the "
        "paper's batch × learning rate × epochs grid, each point once per seed). A group's dev curves are "
        "drawn as their mean with a band (min–max or ± one standard deviation, each run counted over its own "
        "steps); the table gives each member's best dev metric and the group's mean and sample standard "
        "deviation; a grid also gets a heat map of the mean over two of its settings. Queue a new group "
        "from the Launch tab's settings here; Export report writes report.md, CSV and the plots. "
        "Cross-validate… (classification tables) queues one run per fold (K, and optionally a column whose "
        "values stay in one fold); once every fold's run has finished its held-out fold is predicted and the "
        "pooled out-of-fold figure shown. To ask whether two classification runs really differ, select both "
        "in the Runs dock: Compare two classifiers on the dev rows….",
        GROUPS),
    InspectorPage(
        COMPARE_PAGE,
        "Two checkpoints on the same SQuAD dev file, question by question: the 2×2 table of exact matches "
        "(right / wrong under A and B; for SQuAD 2.0 also answered / abstained), both checkpoints' metrics "
        "and the window and decoding settings each used, and the questions where they disagree most "
        "(largest |F1 B − F1 A|). The forward passes run in a child process. Double-click a disagreement to "
        "see the question in Spans & τ for both checkpoints side by side. Swap A ⇄ B makes B the reference and "
        "runs the comparison again.",
        GROUPS, shortcuts=(SWAP,)),
    InspectorPage(
        "Explain",
        "Which tokens push a fine-tuned model's output up or down, for any head: a class's logit or its margin "
        "to the runner-up (single sentences and pairs), the score (regression), one ending against the others "
        "(SWAG), one token's tag (tagging), the start, end or span score (QA). Gradient × input multiplies each "
        "token's word embedding by the gradient of the output; integrated gradients (Sundararajan et al. 2017, "
        "with Captum) averages the gradient along the straight path from a baseline, the same text with every "
        "token but [CLS] and [SEP] replaced by [PAD], and its attributions add up to f(input) − f(baseline): "
        "the completeness line shows the gap, and a gap over 5 % asks for more steps. Red raises the output, "
        "blue lowers it; the bars list the strongest tokens. Export PNG / SVG saves the view as shown.",
        EXPLAIN),
    InspectorPage(
        "Embeddings",
        "One point per occurrence of a word in its context (BERT's idea: a word has a vector per use, not one "
        "per vocabulary item), or one point per text of a file ([CLS], pooler or mean of the last layer). The "
        "page finds the word in a corpus (a text file, a table's column, a SQuAD file's passages or a run's "
        "training data), embeds each occurrence at every layer (the mean of its word pieces) and draws them "
        "in 2-D by PCA, t-SNE or UMAP; the star is the word's static input embedding. The layer slider "
        "redraws the same points in one shared frame, so you see at which layer the senses separate; a second "
        "model (B, e.g. after fine-tuning) is rotated onto the first by orthogonal Procrustes and drawn in the "
        "same map. Hover a point to read its sentence, click it for its nearest neighbours by cosine in the "
        "original space; export TensorBoard projector files, CSV, PNG or SVG.",
        EMBEDDINGS),
    InspectorPage(
        "Layer probes",
        "What each layer knows, before and after fine-tuning (Tenney et al. 2019, \"BERT rediscovers the "
        "classical NLP pipeline\", in small). A logistic-regression probe is fitted on the frozen hidden states "
        "of every layer (0 = the embeddings) of the base model and of the fine-tuned checkpoint, for a token "
        "label (the entity tag of each word of a CoNLL file, read at the word's first piece) or a sentence label "
        "(the run's own classes; answerable or not for a SQuAD 2.0 run), and scored on held-out sentences. Each "
        "line is the accuracy per layer, its band the 95 % t interval over the splits (one per seed, the same "
        "for both models); the dashed line is the majority class. Where the lines part is where fine-tuning "
        "changed what a linear reader finds in the encoder.",
        LAYER_PROBES, any_head=True),
]


def pages() -> tuple[InspectorPage, ...]:
    """Every registered page, in tab order."""
    return tuple(_PAGES)


def page(title: str) -> InspectorPage:
    """The page titled ``title`` ("Spans && τ" or "Spans & τ").

    Raises:
        KeyError: no such page (the message lists the titles)."""
    for p in _PAGES:
        if title in (p.title, p.plain_title):
            return p
    raise KeyError(f"no inspector page {title!r}; pages: {', '.join(p.plain_title for p in _PAGES)}")


def page_help(title: str) -> str | None:
    """The help of page ``title``; None when no page has that title (a shell panel: Launch, Curves)."""
    try:
        return page(title).help
    except KeyError:
        return None


def register_page(new: InspectorPage, *, before: str | None = None) -> InspectorPage:
    """Add (or replace, by title) a page at run time; ``before`` = the title it goes in front of."""
    _PAGES[:] = [p for p in _PAGES if p.title != new.title]
    index = next((i for i, p in enumerate(_PAGES) if p.title == before), len(_PAGES))
    _PAGES.insert(index, new)
    return new


def page_for_checkpoint(head: str | None) -> InspectorPage | None:
    """The first page that opens a checkpoint with model head ``head``; else the first page that opens
    headless checkpoints (its head note then says what the checkpoint was made for); else None."""
    return (next((p for p in _PAGES if p.is_compatible(head)), None)
            or next((p for p in _PAGES if p.is_compatible(None)), None))


def providers() -> tuple[str, ...]:
    """The distinct providers, in the order of their first page."""
    return tuple(dict.fromkeys(p.provider for p in _PAGES))


def wiring() -> tuple[str, ...]:
    """The start-up hooks ("module:function", called with the main window) of the registered providers, in
    their order: what a provider wires into the window before its pages are built."""
    return tuple(_WIRING[p] for p in providers() if p in _WIRING)


def shortcut_rows() -> list[tuple[str, str, str]]:
    """(key, where, what) rows for the Help page: one per distinct shortcut, naming every page it works on."""
    rows: dict[tuple[str, str], list[str]] = {}
    for p in _PAGES:
        for s in p.shortcuts:
            rows.setdefault((s.keys[0], s.what), []).append(p.plain_title)
    return [(key, ", ".join(titles) + (" tabs" if len(titles) > 1 else " tab"), what)
            for (key, what), titles in rows.items()]
