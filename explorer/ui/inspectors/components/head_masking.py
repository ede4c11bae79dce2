"""What the head-masking controls and the head importance map say, without Qt: which heads a typed selection names,
the request to the inspector child, the unmasked and masked result side by side (the span decision, the class
probabilities or the tags), and the importance map's texts and pruning curve. explorer.ui.inspectors.head_mask_bar
and explorer.ui.inspectors.head_importance_panel show them.

A selection is typed as comma- or space-separated items, layers and heads counted from 1 as on the Attention page
(explorer.core.attention.head_labels, the one place that numbers heads for a person): ``5.3`` (head 3 of layer 5),
``5.*`` or ``L5`` (every head of layer 5).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from explorer.core.attention.head_labels import (SELECTION_HELP, HeadLabelError, HeadSet, head_axis_labels,
                                                 head_label, head_name, layer_axis_labels, parse_heads,
                                                 selection_label)

__all__ = ["SELECTION_HELP", "Selection", "parse_selection"]


@dataclass(frozen=True, kw_only=True)
class Selection:
    """A typed selection: ``heads`` (layer, head) pairs and whole ``layers`` as 0-based indexes, and ``error`` (""
    when it reads)."""

    heads: list[tuple[int, int]] = field(default_factory=list)
    layers: list[int] = field(default_factory=list)
    error: str = ""

    @property
    def empty(self) -> bool:
        return not self.heads and not self.layers

    def request(self) -> dict:
        """The ``heads`` / ``layers`` fields of a mask_heads request."""
        return {"heads": [list(p) for p in self.heads], "layers": list(self.layers)}

    def describe(self) -> str:
        """"layer 3 (all heads), 1.2, 3.6" (counted from 1)."""
        return ", ".join(HeadSet(heads=self.heads, layers=self.layers).labels()) or "none"


def parse_selection(text: str, layers: int | None = None, heads: int | None = None) -> Selection:
    """The heads named by ``text`` (module docstring); with the model's ``layers`` and ``heads`` per layer known,
    a number outside it is an error in a person's words ("layer 7 does not exist: this model has layers 1-6 and
    heads 1-12 per layer")."""
    try:
        named = parse_heads(text, layers, heads)
    except HeadLabelError as exc:
        return Selection(error=str(exc))
    return Selection(heads=named.heads, layers=named.layers)


MASK_DEV_CAP = 200   # dev examples a comparison scores when the dev page says "all": each Compare scores them again


def dev_fields(path: str, cap: int, task: str = "", settings: dict | None = None) -> dict | None:
    """The mask_heads fields that name a dev set for "and on the dev set": ``dev`` (the file), ``cap`` (the dev
    page's first-N; 0, "all" there, becomes MASK_DEV_CAP, as a comparison scores the set with every Compare),
    ``task`` ("": the task of the model's head) and the table ``settings`` the dev page reads it with (text and
    label columns, encoding, ...). None when no file is named."""
    path = (path or "").strip()
    if not path:
        return None
    out = {"dev": path, "cap": int(cap) if cap and cap > 0 else MASK_DEV_CAP, "task": task}
    if settings:
        out["settings"] = dict(settings)
    return out


def _fmt(x) -> str:
    return "—" if x is None else f"{x:+.2f}"


def comparison_rows(result: dict) -> list[tuple[str, str, str]]:
    """(what, unmasked, masked) rows of a mask_heads result (explorer.core.ablation.one_input.Masked.to_dict),
    the dev metric's row first when the result has one."""
    return _dev_rows(result.get("dev")) + _input_rows(result)


def _dev_rows(dev: dict | None) -> list[tuple[str, str, str]]:
    if not dev:
        return []
    undefined = dev.get("undefined") or {}
    shown = [("undefined" if side in undefined else "—") if dev[side] is None else f"{dev[side]:.4g}"
             for side in ("base", "masked")]
    return [(f"dev {dev['metric']} ({dev['examples']} examples)", *shown)]


def _input_rows(result: dict) -> list[tuple[str, str, str]]:
    b, m = result["base"], result["masked"]
    if result["kind"] == "span_decision":
        rows = [("answer", b["answer"] or "no answer", m["answer"] or "no answer"),
                ("best span score", _fmt(b["best_non_null_score"]), _fmt(m["best_non_null_score"])),
                ("null score s_null", _fmt(b["null_score"]), _fmt(m["null_score"])),
                ("score_diff", _fmt(b["score_diff"]), _fmt(m["score_diff"])),
                (f"τ = {b['tau']:+.2f} decision", b["inequality"], m["inequality"])]
        top = [(f"span #{k + 1}", f"{x['text']} ({x['score']:.2f})", f"{y['text']} ({y['score']:.2f})")
               for k, (x, y) in enumerate(zip(b["nbest"][:3], m["nbest"][:3]))]
        return rows + top
    if result["kind"] == "probabilities":
        rows = [(f"{b['value_name']}({name})", f"{x:.3f}", f"{y:.3f}") for name, x, y in zip(b["names"], b["values"],
                                                                                m["values"])]
        return rows + [("predicted", ", ".join(b["predicted"]) or "none", ", ".join(m["predicted"]) or "none")]
    return [(word, x, y) for word, x, y in zip(b["words"], b["tags"], m["tags"])]


def with_class_names(result: dict, names: list[str]) -> dict:
    """A probabilities result whose output names (and predicted names) are ``names`` in order (the page's readable
    class names); any other result, or a list of another length, unchanged."""
    base = result.get("base", {})
    if result.get("kind") != "probabilities" or len(names) != len(base.get("names", [])):
        return result
    rename = dict(zip(base["names"], names))

    def renamed(side: dict) -> dict:
        return {**side, "names": list(names), "predicted": [rename.get(n, n) for n in side["predicted"]]}

    return {**result, "base": renamed(result["base"]), "masked": renamed(result["masked"])}


def change_line(result: dict) -> str:
    """One sentence on what switching the heads off changed (on the input, then on the dev set when scored)."""
    dev = result.get("dev")
    undefined = (dev or {}).get("undefined") or {}
    if undefined:   # no change to give: the metric has no value with (or without) the heads
        side = "with these heads off" if "masked" in undefined else "with every head"
        return (f"{_input_change_line(result)} Dev {dev['metric']} undefined {side}: "
                f"{undefined.get('masked') or undefined.get('base')}.")
    if not dev or dev.get("change") is None:
        return _input_change_line(result)
    moved = "unchanged" if abs(dev["change"]) < 1e-9 else f"{dev['change']:+.4g}"
    return f"{_input_change_line(result)} Dev {dev['metric']}: {moved}."


def _input_change_line(result: dict) -> str:
    heads = len(result["masked_heads"])
    per_layer = result.get("heads_per_layer", 0)
    total = result.get("layers", 0) * per_layer
    which = selection_label(result["masked_heads"], per_layer)
    off = (f"{heads} of {total} heads off" if total else f"{heads} heads off") + (f" ({which})" if which else "")
    c = result["change"]
    if result["kind"] == "span_decision":
        diff = c["score_diff"]
        moved = "score_diff unchanged" if diff is None or abs(diff) < 5e-3 else f"score_diff {diff:+.2f}"
        verdict = ("the τ decision flips" if c["decision_flipped"] else
                   "the answer changes" if c["answer_changed"] else "the decision stays")
        return f"{off}: {moved}; {verdict}."
    if result["kind"] == "probabilities":
        biggest = max((abs(v) for v in c["values"]), default=0.0)
        verdict = "the prediction changes" if c["prediction_changed"] else "the prediction stays"
        return f"{off}: largest change {biggest:.3f}; {verdict}."
    n = len(c["words_changed"])
    return f"{off}: {n} word{'s' if n != 1 else ''} change tag." if n else f"{off}: every tag stays."


def comparison_html(result: dict) -> str:
    """The rows as an HTML table (changed rows in bold) under the change line."""
    cells = []
    for what, x, y in comparison_rows(result):
        weight = "bold" if x != y else "normal"
        cells.append(f"<tr style='font-weight:{weight}'><td>{html.escape(what)}</td><td>{html.escape(x)}</td>"
                     f"<td>{html.escape(y)}</td></tr>")
    return (f"<p>{html.escape(change_line(result))}</p><table cellspacing='0' cellpadding='3' border='1'>"
            "<tr><th></th><th>all heads</th><th>heads off</th></tr>" + "".join(cells) + "</table>")


# ------------------------------------------------------------------------------------------- importance


def importance_matrix(report: dict) -> list[list[float]]:
    """The (layers, heads) normalised importance of a head_importance report."""
    return report["importance"]["scores"]


def importance_axes(report: dict) -> tuple[list[str], list[str]]:
    """The map's row labels ("layer 1", ...) and column labels ("h1", ...), counted from 1."""
    scores = importance_matrix(report)
    return layer_axis_labels(len(scores)), head_axis_labels(len(scores[0]) if scores else 0)


def importance_hover(report: dict, row: int, col: int) -> str:
    """What the map says about the 0-based cell (``row``, ``col``) under the mouse: "head 5.3 (layer 5, head 3):
    importance 0.82, rank 4 of 72 (1 = most important)"; "" outside the map."""
    scores = importance_matrix(report)
    if not (0 <= row < len(scores) and 0 <= col < len(scores[row])):
        return ""
    order = [tuple(p) for p in report.get("least_important_first", [])]
    rank = f", rank {len(order) - order.index((row, col))} of {len(order)} (1 = most important)" \
        if (row, col) in order else ""
    return f"head {head_label(row, col)} ({head_name(row, col)}): importance {scores[row][col]:.2f}{rank}"


def importance_summary(report: dict, n: int = 5) -> str:
    """The map's caption: what was scored, the most and least important heads, and where the curve ends."""
    imp = report["importance"]
    order = report["least_important_first"]
    most = ", ".join(head_label(a, b) for a, b in reversed(order[-n:]))
    least = ", ".join(head_label(a, b) for a, b in order[:n])
    text = (f"{imp['examples']} dev examples ({imp['tokens']} tokens). Most important: {most}. Least important: "
            f"{least}.")
    curve = report.get("prune_curve") or []
    if len(curve) > 1 and curve[0]["value"] is not None:
        half = min(curve, key=lambda p: abs(p["heads_kept"] - p["heads_total"] / 2))
        if half["value"] is not None:
            how = " (iterative pruning)" if report.get("pruning") == "iterative" else ""
            text += (f" {imp['metric']} {curve[0]['value']:.3g} with all {curve[0]['heads_total']} heads, "
                     f"{half['value']:.3g} with {half['heads_kept']} kept{how}.")
    undefined = next((p for p in curve if p["value"] is None and p.get("undefined")), None)
    if undefined is not None:   # a gap in the curve: say why, never leave it unexplained
        text += f" {imp['metric']} undefined with {undefined['heads_kept']} heads kept: {undefined['undefined']}."
    return text


def curve_points(report: dict) -> tuple[list[int], list[float]]:
    """(heads kept, metric) of the pruning curve's points that have a value."""
    pts = [(p["heads_kept"], p["value"]) for p in report.get("prune_curve") or [] if p["value"] is not None]
    return [x for x, _ in pts], [y for _, y in pts]


def importance_request(slot: str, dev: str, cap: int, steps: int, window: dict | None = None,
                       task: str = "", iterative: bool = False) -> dict | None:
    """The head_importance request (``task`` "": the first task of the model's head; ``iterative``: the pruning
    curve ranks the heads again after each step), or None when no dev file is named."""
    if not dev.strip():
        return None
    return {"slot": slot, "dev": dev.strip(), "cap": int(cap), "steps": int(steps), "task": task,
            "iterative": bool(iterative), **(window or {})}
