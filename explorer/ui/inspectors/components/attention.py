"""What the Attention view shows and says, without Qt: the block layouts of a QA window and of a tagged sentence,
the window names, the matrix on screen with its tokens and the head view's rows and columns, and the readout's
sentences (hover, selection, the matrix's description). explorer.ui.inspectors.attention_view draws it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.core.attention.flow import BLOCKS, PASSAGE, QUESTION, SPECIAL
from explorer.core.attention.head_labels import FIRST
from explorer.core.attention.wordmerge import merge_rows

MODE_LAYER, MODE_ROLLOUT = 0, 1   # the mode box: one layer (and head), or rollout over all layers


@dataclass(frozen=True)
class BlockLayout:
    """What the view calls the blocks of explorer.core.attention.flow.BLOCKS and which flows it offers.

    Attributes:
        labels: block name -> its name on screen; a block left out has no tokens in these windows.
        directions: the head view's (label, from block, to block) choices (None = all tokens).
        flow_columns: the block-flow table's (label, from block index, to block index) columns;
            flow_headers: their short headers (the full names are the header tooltips).
        pairs: the model view's (from, to) block index pairs; default_pair: the one shown first.
        header: the view's one-line header; empty: the readout before the first result; panel: the page whose
            help is the header's tooltip.
    """

    labels: dict
    directions: tuple
    flow_columns: tuple
    flow_headers: tuple
    pairs: tuple
    default_pair: tuple
    header: str
    empty: str
    panel: str = "Attention"

    def pair_names(self) -> list[str]:
        """The model view's choices, "question → passage", in ``pairs`` order."""
        return [f"{self.labels[BLOCKS[a]]} → {self.labels[BLOCKS[b]]}" for a, b in self.pairs]


# how to read the token views, in the readout under a freshly drawn matrix (ShownAttention.readout); how to select
# tokens is said beside the lines view's own boxes (SELECT_HINT), where it is done
USAGE_HINT = "Rows attend to columns; hover a token to see where its attention goes."
SELECT_HINT = "select: click, Ctrl+click, drag"

QA_BLOCKS = BlockLayout(
    labels={"question": "question", "passage": "passage", "special": "[CLS]/[SEP]"},
    directions=(("question → passage", "question", "passage"), ("passage → question", "passage", "question"),
                ("all tokens → all tokens", None, None)),
    flow_columns=(("question → passage", QUESTION, PASSAGE), ("passage → question", PASSAGE, QUESTION),
                  ("question → [CLS]/[SEP]", QUESTION, SPECIAL)),
    flow_headers=("q→p", "p→q", "q→[CLS]/[SEP]"),
    pairs=tuple((a, b) for a in range(len(BLOCKS)) for b in range(len(BLOCKS))),
    default_pair=(QUESTION, PASSAGE),
    # one line at 1280x800 (three lines took the lower tabs' room); the page's help is the header's tooltip
    header="How attention flows between question and passage, by layer and head.",
    empty="Probe a question and a passage to see attention.")

# one sentence (the Tag page): its pieces are block 0 ("question", as core.classify.arithmetic's sentence A), no passage
SENTENCE_BLOCKS = BlockLayout(
    labels={"question": "sentence", "special": "[CLS]/[SEP]"},
    directions=(("all tokens → all tokens", None, None), ("sentence → sentence", "question", "question"),
                ("sentence → [CLS]/[SEP]", "question", "special")),
    flow_columns=(("sentence → sentence", QUESTION, QUESTION), ("sentence → [CLS]/[SEP]", QUESTION, SPECIAL),
                  ("[CLS]/[SEP] → sentence", SPECIAL, QUESTION)),
    flow_headers=("s→s", "s→[CLS]/[SEP]", "[CLS]/[SEP]→s"),
    pairs=((QUESTION, QUESTION), (QUESTION, SPECIAL), (SPECIAL, QUESTION), (SPECIAL, SPECIAL)),
    default_pair=(QUESTION, SPECIAL),
    header=("The attention of the sentence being tagged: one layer and head as a token x token map and as lines "
            "(thickness = weight), the share of attention the sentence gives [CLS]/[SEP] per layer, and all "
            "layers x heads at once."),
    empty="Tag a sentence to see its attention.", panel="Tag")


def flow_column_tip(name: str) -> str:
    """The tooltip of a block-flow column "question → passage"."""
    source, target = name.split(" → ")
    return f"{name}: share of the attention of the {source} tokens that goes to the {target} tokens"


def window_label(w, count: int) -> str:
    """'window 2 of 11 · 384 tokens · chars 374–940' (the passage characters the window covers)."""
    offs = [o for o in w.offsets if o is not None]
    chars = f"chars {offs[0][0]}–{offs[-1][1]}" if offs else "no passage"
    return f"window {w.index + 1} of {count} · {len(w.tokens)} tokens · {chars}"


def head_flow(flow: np.ndarray, head: int, mode: int) -> tuple[np.ndarray, str]:
    """The block flow per layer shown for the head box's ``head`` (0 = mean, k = head k) in ``mode``:
    ((layers, 3, 3) shares, "mean over heads" | "head k"); rollout shows the head mean."""
    if head <= 0 or mode == MODE_ROLLOUT:
        return flow.mean(axis=1), "mean over heads"
    return flow[:, head - 1], f"head {head - 1 + FIRST}"


def flow_which_text(which: str) -> str:
    """The line over the block flow table naming whose shares it holds (``which`` as :func:`head_flow` names it):
    "Mean over heads" or "Head 3 only", short enough to read whole over the narrow table at 1280x800 (the way back
    to the layer's mean is in :func:`flow_which_tip`)."""
    if which.startswith("head "):
        return f"{which.capitalize()} only"
    return which.capitalize()


def flow_which_tip(which: str) -> str:
    """The tooltip of the line over the block flow table: whose shares the table and the curves hold, and with a
    head chosen, how to see the layer's flow."""
    if which.startswith("head "):
        return (f"The table and the curves show {which} of each layer (the head box); choose mean in the head box "
                "for the layer's flow.")
    return "The table and the curves show each layer's flow averaged over its heads."


def export_title(result, window: int) -> str:
    """The HTML export's title: the question (or the tagged text) and which window."""
    text = getattr(result, "question", "") or getattr(result, "text", "")
    return " ".join(x for x in (text, f"(window {window + 1} of {len(result.windows)})") if x)


@dataclass
class ShownAttention:
    """The token x token matrix on screen and what the view says about it.

    Attributes:
        matrix: (n, n) float32, rows attend to columns (word pieces merged into words when ``groups`` is set).
        labels, blocks: the n row / column tokens (or words) and their blocks ("question", "passage", "special").
        groups: the explorer.core.attention.wordmerge groups of merged words, or None (word pieces).
        what: "layer 3, head 2", "layer 3, mean over heads", "rollout over all layers".
        left_idx, right_idx: the head view's rows and columns, as indices into the matrix.
    """

    matrix: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    labels: list[str] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)
    groups: object = None
    what: str = ""
    left_idx: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    right_idx: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def show(self, matrix: np.ndarray, labels: list[str], blocks: list[str], groups, what: str) -> None:
        """Another matrix on screen (the head view's rows and columns stay until :meth:`pick_direction`)."""
        self.matrix, self.labels, self.blocks, self.groups, self.what = matrix, labels, blocks, groups, what

    def pick_direction(self, left_block: str | None, right_block: str | None) -> tuple:
        """The head view's rows (tokens of ``left_block``, None = all) and columns (``right_block``); returns its
        data: (weights, left labels, right labels, left blocks, right blocks)."""
        blocks = np.array(self.blocks)
        n = len(self.blocks)
        self.left_idx = np.flatnonzero(blocks == left_block) if left_block else np.arange(n)
        self.right_idx = np.flatnonzero(blocks == right_block) if right_block else np.arange(n)
        weights = self.matrix[np.ix_(self.left_idx, self.right_idx)]
        return (weights, [self.labels[i] for i in self.left_idx], [self.labels[i] for i in self.right_idx],
                [self.blocks[i] for i in self.left_idx], [self.blocks[i] for i in self.right_idx])

    def token_index(self, side: str, i: int) -> int:
        """The matrix index of the head view's row (``side`` "left") or column ("right") ``i``; -1 when none."""
        idx = self.left_idx if side == "left" else self.right_idx
        return int(idx[i]) if 0 <= i < idx.size else -1

    def selected(self, side: str, selection) -> list[int]:
        """The head view's selected rows or columns as matrix indices."""
        idx = self.left_idx if side == "left" else self.right_idx
        return [int(idx[i]) for i in selection if i < idx.size]

    def readout(self, window: int, n_windows: int, note: str = "") -> str:
        """The readout under a freshly drawn matrix: what it is, the window, the memory note, and how to read the
        views (USAGE_HINT, until a hover or a selection replaces the readout)."""
        return (f"{self.what}; window {window + 1} of {n_windows}, "
                f"{len(self.labels)} {'words' if self.groups else 'tokens'}."
                + (f"\nMemory budget: {note}." if note else "") + f"\n{USAGE_HINT}")

    def describe_token(self, t: int, token_share: np.ndarray, names: dict) -> str:
        """Where token ``t``'s attention goes: its three largest weights in the matrix, and (from ``token_share``,
        (tokens, blocks) averaged over all layers and heads) its share per block, blocks named by ``names``."""
        share = merge_rows(token_share, self.groups) if self.groups is not None else token_share
        s = share[t]
        row = self.matrix[t]
        top = np.argsort(-row)[:3]
        tops = ", ".join(f"'{self.labels[j]}' {row[j]:.3f}" for j in top)
        parts = [f"{s[k]:.3f} to the {names[b]}" if b != "special" else f"{s[k]:.3f} to {names[b]}"
                 for k, b in enumerate(BLOCKS) if b in names]
        parts[0] = parts[0].replace(" to ", " of its attention to ", 1)
        shares = ", ".join(parts)
        return (f"'{self.labels[t]}' ({names.get(self.blocks[t], self.blocks[t])}) attends most to {tops} "
                f"({self.what}). Averaged over all layers and heads it gives {shares}.")

    def hover_text(self, row: int, col: int, token_share: np.ndarray, names: dict) -> str:
        """The readout over map cell (row, col): its weight, then where the row's token attends."""
        return (f"'{self.labels[row]}' → '{self.labels[col]}': {self.matrix[row, col]:.4f}.  "
                + self.describe_token(row, token_share, names))

    def selection_text(self, summary) -> str:
        """The readout for a selection (explorer.core.attention.selection.SelectionAttention of this matrix)."""
        names = [f"'{self.labels[i]}'" for i in summary.selected]
        shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
        goes = ", ".join(f"'{self.labels[j]}' {v:.3f}" for j, v in summary.top_outgoing(4))
        comes = ", ".join(f"'{self.labels[i]}' {v:.3f}" for i, v in summary.top_incoming(4))
        return (f"{len(names)} selected ({shown}), {self.what}: their attention goes (mean over them) "
                f"to {goes}. The tokens that give them most of their attention: {comes or 'none'}. "
                "Escape clears the selection.")
