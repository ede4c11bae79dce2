"""What the Embeddings page asks and shows, without Qt: the embed request the inputs make (or why it cannot be
sent), which map a layer / projection / colouring needs, each point's colour and the legend, and the texts of a
hovered point, its neighbours and the status line. explorer.ui.inspectors.embeddings_view draws it.
"""

from __future__ import annotations

import html
from pathlib import Path

from explorer.core.embeddings.occurrences import highlighted
from explorer.core.embeddings.projection import PROJECTION_LABELS

MODES = {"word in context": "word", "sentences": "sentences"}
# a categorical palette (Tableau 10), then grey for the rest ("other")
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf"]
OTHER = "#c7c7c7"
ONE_COLOUR = "#1f77b4"
NO_COLOUR, KMEANS, BY_LAYER = "(one colour)", "k-means clusters", "layer"


def categorical_colours(values: list[str]) -> tuple[list[str], list[tuple[str, str, int]]]:
    """A colour per value (the most frequent values get the palette, the rest grey) and the legend:
    [(value, colour, count)], most frequent first."""
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    order = sorted(counts, key=lambda v: (-counts[v], v))
    colour = {v: PALETTE[k] if k < len(PALETTE) else OTHER for k, v in enumerate(order)}
    legend = [(v, colour[v], counts[v]) for v in order[:len(PALETTE)]]
    rest = sum(counts[v] for v in order[len(PALETTE):])
    if rest:
        legend.append((f"{len(order) - len(PALETTE)} other values", OTHER, rest))
    return [colour[v] for v in values], legend


def highlighted_html(text: str, start: int, end: int, width: int = 160) -> str:
    """The text with the word (characters start:end) in bold on yellow, ``width`` characters each side."""
    if start < 0:
        return html.escape(text[: 2 * width])
    before, word, after = highlighted(text, start, end, width)
    return (f"{html.escape(before)}<b style='background:#ffe066'>{html.escape(word)}</b>{html.escape(after)}")


def request_problem(data: dict, mode: str) -> str:
    """Why the ``embed`` request ``data`` of mode ``mode`` (a MODES key) cannot be sent, or ""."""
    if not data["path"]:
        return "Choose a corpus file first."
    if MODES.get(mode) == "word" and not data["word"]:
        return "Enter the word to find (or choose the sentences mode)."
    return ""


def colour_choices(summary) -> list[str]:
    """The colouring box's items for an embedded space: one colour, its text columns, k-means, layer."""
    return [NO_COLOUR] + list(summary.columns) + [KMEANS, BY_LAYER]


def layer_of(summary, position: int) -> int:
    """The layer at slider ``position`` (clamped to the space's layers)."""
    return summary.layers[min(position, len(summary.layers) - 1)]


def map_key(summary, colour_by: str, position: int, method: str, k: int) -> tuple:
    """(layer or "all", projection method, k-means clusters or 0): the map the shown choices need."""
    layer = "all" if colour_by == BY_LAYER else layer_of(summary, position)
    return layer, method, k if colour_by == KMEANS else 0


def map_running_text(key: tuple) -> str:
    """The status line while map ``key`` (:func:`map_key`) is computed."""
    layer, method, _clusters = key
    return f"{PROJECTION_LABELS[method]} of {'every layer' if layer == 'all' else f'layer {layer}'} …"


def layer_label(summary, position: int) -> str:
    """'layer 3 (of 6)', 'layer 0 (input embeddings)' or 'layer 6 (pooler)' for slider ``position``."""
    layer = layer_of(summary, position)
    last = summary.layers[-1]
    name = "input embeddings" if layer == 0 else ("pooler" if summary.pooling == "pooler" else f"of {last}")
    return f"layer {layer} ({name})"


def point_values(summary, projection, colour_by: str) -> tuple[list[str], str]:
    """Each drawn point's colour value and the legend's title ("": one colour)."""
    repeat = len(projection.coords) // max(summary.n_points, 1)
    if colour_by == BY_LAYER and projection.point_layers is not None:
        return [f"layer {v}" for v in projection.point_layers], "layer"
    if colour_by == KMEANS and projection.clusters is not None:
        return [f"cluster {c + 1}" for c in projection.clusters], "k-means cluster"
    if colour_by in summary.columns:
        return list(summary.columns[colour_by]) * repeat, colour_by
    return [""] * len(projection.coords), ""


def point_colours(summary, projection, colour_by: str) -> tuple[list[str], str]:
    """Each drawn point's colour and the legend as HTML (title, then a dot, value and count per colour)."""
    values, title = point_values(summary, projection, colour_by)
    colours, legend = categorical_colours(values) if title else ([ONE_COLOUR] * len(values), [])
    return colours, ("<b>" + html.escape(title) + "</b><br>" if title else "") + "<br>".join(
        f"<span style='color:{c}'>●</span> {html.escape(str(v))} ({n:,})" for v, c, n in legend)


def point_index(summary, drawn: int) -> int:
    """The summary's point of drawn point ``drawn`` (all layers drawn: they repeat layer by layer)."""
    return int(drawn) % max(summary.n_points, 1)


def point_layer(projection, drawn: int) -> int | None:
    """The layer of drawn point ``drawn`` when the map draws every layer, else None."""
    return projection.point_layers[drawn] if projection is not None and projection.point_layers else None


def point_html(summary, projection, drawn: int) -> str:
    """Drawn point ``drawn``'s sentence (word highlighted), its number, layer and colour columns."""
    i = point_index(summary, drawn)
    extra = ", ".join(f"{html.escape(k)}: {html.escape(str(v[i]))}" for k, v in summary.columns.items())
    layer = point_layer(projection, drawn)
    return (highlighted_html(summary.texts[i], summary.starts[i], summary.ends[i])
            + f"<br><span style='color:#555'>point {i + 1}"
            + (f", layer {layer}" if layer is not None else "") + (f"; {extra}" if extra else "")
            + "</span>")


def neighbour_items(summary, rows, offset: int) -> list[tuple[str, int]]:
    """The neighbours list: (text, drawn point) of each (summary point, cosine) in ``rows``; ``offset`` is the
    first drawn point of the clicked point's layer."""
    s = summary
    items = []
    for j, cos in rows:
        before, word, after = highlighted(s.texts[j], s.starts[j], s.ends[j], 50) if s.starts[j] >= 0 else (
            s.texts[j][:120], "", "")
        extra = f"  [{s.columns['model'][j]}]" if "model" in s.columns else ""
        text = f"{cos:.3f}  {before}[{word}]{after}{extra}" if word else f"{cos:.3f}  {before}{extra}"
        items.append((text, offset + int(j)))
    return items


def space_status(summary) -> str:
    """The status line once a corpus is embedded: how many points of what, from which file and model."""
    what = f"'{summary.word}'" if summary.mode == "word" else f"texts pooled by {summary.pooling}"
    return f"{summary.n_points:,} points of {what} from {Path(summary.source).name} ({summary.model})"


def space_notes(summary) -> str:
    """The notes under the neighbours: the embedding's notes and the vectors' size."""
    return "; ".join(summary.notes) + f". {summary.hidden} dimensions."


def map_status(projection) -> str:
    """The status line once a map is drawn."""
    where = "every layer" if projection.layer < 0 else f"layer {projection.layer}"
    return f"{PROJECTION_LABELS[projection.method]} of {where}: {len(projection.coords):,} points"
