"""One self-contained interactive HTML file of a window's attention: a head view (from-tokens in the left
column, to-tokens in the right, one SVG line per weight, width and opacity growing with the square root of the
weight, so 0.01 stays faintly visible; hover a token to see only its lines) and a model view (a grid of small
heads, one per layer x head; click one to show it in the head view), with layer and head pickers. In the
manner of bertviz's head and model views (Vig 2019, "A Multiscale Visualization of Attention in the
Transformer Model"), but one file with its script and data inlined: the page makes no network request (no
CDN, no web font, no image), so it opens offline.

The page reads ``#layer=L&head=H`` (1-based; head 0 = the mean over heads) from its URL, and the pickers
write it back, so a link (or a headless browser, tests/test_attention_html.py) can open a chosen layer.

Weights travel as base64 of little-endian uint16 (weight x 65535, rounded: 1.5e-5 resolution), layer by
layer, head by head: (layers, heads, seq, seq) values, 2 bytes each (4/3 of that in base64). Pure numpy;
no Qt, no torch.
"""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Sequence

import numpy as np

from explorer.core.attention.flow import AttentionShapeError, _as_numpy

MAX_BYTES = 512 * 2 ** 20   # the weights part of one page; over it write_attention_html refuses (a browser chokes)
QUANT = 65535


def encode_weights(attentions) -> str:
    """(layers, heads, seq, seq) weights in [0, 1] -> base64 of uint16 little-endian (round(w x 65535)),
    C order. Raises AttentionShapeError on another shape."""
    a = _as_numpy(attentions)
    if a.ndim != 4 or a.shape[-1] != a.shape[-2]:
        raise AttentionShapeError(f"attentions must have shape (layers, heads, seq, seq); got {a.shape}")
    q = np.rint(np.clip(np.nan_to_num(a, nan=0.0), 0.0, 1.0) * QUANT).astype("<u2")
    return base64.b64encode(q.tobytes(order="C")).decode("ascii")


def decode_weights(text: str, shape: tuple[int, int, int, int]) -> np.ndarray:
    """The inverse of :func:`encode_weights`: float32 (layers, heads, seq, seq); what the page's script reads."""
    q = np.frombuffer(base64.b64decode(text), dtype="<u2")
    return (q.astype(np.float32) / QUANT).reshape(shape)


def attention_page_data(attentions, tokens: Sequence[str], blocks: Sequence[str] | None = None, *,
                        title: str = "", layer: int = 1, head: int = 0) -> dict:
    """The JSON object the page is built from.

    Args:
        attentions: (layers, heads, seq, seq) weights, rows = from-tokens (explorer.core.attention.flow).
        tokens: seq token strings; blocks: seq block names (colours the tokens), default none.
        title: the page's heading (e.g. the model and the question).
        layer, head: what the page shows first (1-based; head 0 = mean over heads).

    Raises:
        AttentionShapeError: tokens or blocks that do not match the weights.
    """
    a = _as_numpy(attentions)
    if a.ndim != 4 or a.shape[-1] != a.shape[-2]:
        raise AttentionShapeError(f"attentions must have shape (layers, heads, seq, seq); got {a.shape}")
    n_layers, n_heads, n, _ = a.shape
    if len(tokens) != n:
        raise AttentionShapeError(f"{len(tokens)} tokens for attention over {n} tokens")
    if blocks is not None and len(blocks) != n:
        raise AttentionShapeError(f"{len(blocks)} blocks for attention over {n} tokens")
    return {"title": title, "tokens": [str(t) for t in tokens],
            "blocks": [str(b) for b in blocks] if blocks is not None else [""] * n,
            "layers": int(n_layers), "heads": int(n_heads), "seq": int(n),
            "layer": int(min(max(layer, 1), n_layers)), "head": int(min(max(head, 0), n_heads)),
            "quant": QUANT, "weights": encode_weights(a)}


def attention_html(attentions, tokens: Sequence[str], blocks: Sequence[str] | None = None, *,
                   title: str = "", layer: int = 1, head: int = 0, report: str = "") -> str:
    """The whole page (a str of HTML5) for one window's attention; arguments as :func:`attention_page_data`.
    ``report``: plain text shown above the views as written (the probe's answer, span scores, null_score,
    score_diff, the τ inequality and the block flow per layer: explorer.core.qa.probe_text.render_text); "" for none.

    The data goes into a ``<script type="application/json">`` element (``<`` escaped, so no token closes
    it); the page's script, its style and the data are all inline.
    """
    data = attention_page_data(attentions, tokens, blocks, title=title, layer=layer, head=head)
    payload = json.dumps(data, ensure_ascii=True).replace("<", "\\u003c")
    heading = html.escape(title or "Attention")
    shown = f'<pre id="report">{html.escape(report)}</pre>' if report else ""
    return (_PAGE.replace("@TITLE@", heading).replace("@STYLE@", _STYLE).replace("@SCRIPT@", _SCRIPT)
            .replace("@REPORT@", shown).replace("@DATA@", payload))


def write_attention_html(path: str | Path, attentions, tokens: Sequence[str], blocks: Sequence[str] | None = None,
                         **kwargs) -> Path:
    """Write :func:`attention_html` to ``path`` (UTF-8); returns the path.

    Raises:
        AttentionShapeError: as attention_page_data, or weights over MAX_BYTES (a browser would not open it).
        OSError: the file cannot be written.
    """
    a = _as_numpy(attentions)
    size = 2 * a.size
    if size > MAX_BYTES:
        raise AttentionShapeError(f"{a.shape[0]} layers x {a.shape[1]} heads x {a.shape[2]}² tokens would put "
                                  f"{size / 2 ** 20:.0f} MiB of weights in one page (limit {MAX_BYTES >> 20} MiB); "
                                  "export a shorter window")
    path = Path(path)
    path.write_text(attention_html(a, tokens, blocks, **kwargs), encoding="utf-8")
    return path


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>@TITLE@</title>
<style>@STYLE@</style></head>
<body>
<h1>@TITLE@</h1>
@REPORT@
<div id="controls">
 <label>layer <select id="layer"></select></label>
 <label>head <select id="head"></select></label>
 <label>lines per token <select id="topk"></select></label>
 <span id="readout">Hover a token to see only its lines; click a small head below to show it here.</span>
</div>
<div id="views">
 <div id="headbox"><h2 id="headtitle">head view</h2><svg id="headview" xmlns="http://www.w3.org/2000/svg"></svg></div>
 <div id="modelbox"><h2>model view (rows: layers, columns: heads)</h2><div id="modelview"></div></div>
</div>
<script type="application/json" id="attention-data">@DATA@</script>
<script>@SCRIPT@</script>
</body></html>
"""

_STYLE = """
body { font-family: sans-serif; font-size: 13px; margin: 12px; color: #222; background: #fff; }
h1 { font-size: 16px; margin: 0 0 8px 0; } h2 { font-size: 13px; margin: 4px 0; }
#controls { margin-bottom: 8px; } #controls label { margin-right: 12px; }
#readout { color: #555; }
#report { font: 12px monospace; background: #f6f6f6; padding: 6px; margin: 0 0 8px 0; overflow-x: auto; }
#views { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
#headview text { font-size: 12px; cursor: default; dominant-baseline: middle; }
#headview text.hover { font-weight: bold; fill: #c0392b; }
#headview line { stroke: #4646c8; stroke-linecap: round; }
#headview.hovering line { stroke: #e6550d; }
#modelview { display: grid; gap: 3px; }
#modelview canvas { border: 1px solid #ccc; cursor: pointer; }
#modelview canvas.current { border: 2px solid #d62728; }
#modelview .lab { font-size: 10px; color: #666; align-self: center; text-align: center; }
.question { fill: #1f77b4; } .passage { fill: #2ca02c; } .special { fill: #7f7f7f; }
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("attention-data").textContent);
  var L = D.layers, H = D.heads, N = D.seq, SVG = "http://www.w3.org/2000/svg";
  var raw = atob(D.weights), bytes = new Uint8Array(raw.length);
  for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  var W = new Float32Array(L * H * N * N), dv = new DataView(bytes.buffer);
  for (var k = 0; k < W.length; k++) W[k] = dv.getUint16(2 * k, true) / D.quant;
  function matrix(layer, head) {          // layer 1-based, head 0 = mean over heads; (N*N) Float32Array
    var out = new Float32Array(N * N), h, j;
    if (head > 0) return W.subarray(((layer - 1) * H + head - 1) * N * N, ((layer - 1) * H + head) * N * N);
    for (h = 0; h < H; h++) {
      var base = ((layer - 1) * H + h) * N * N;
      for (j = 0; j < N * N; j++) out[j] += W[base + j] / H;
    }
    return out;
  }
  var state = {layer: D.layer, head: D.head, topk: N <= 40 ? N : 8, hover: null};
  function readHash() {
    var m = /layer=(\d+)/.exec(location.hash), n = /head=(\d+)/.exec(location.hash);
    if (m) state.layer = Math.min(Math.max(parseInt(m[1], 10), 1), L);
    if (n) state.head = Math.min(Math.max(parseInt(n[1], 10), 0), H);
  }
  function writeHash() {
    var h = "#layer=" + state.layer + "&head=" + state.head;
    if (location.hash !== h) history.replaceState(null, "", h);
  }
  function fill(sel, items, value) {
    sel.innerHTML = "";
    items.forEach(function (it) {
      var o = document.createElement("option"); o.value = it[0]; o.textContent = it[1]; sel.appendChild(o);
    });
    sel.value = String(value);
  }
  var layerSel = document.getElementById("layer"), headSel = document.getElementById("head");
  var topkSel = document.getElementById("topk"), svg = document.getElementById("headview");
  var readout = document.getElementById("readout"), grid = document.getElementById("modelview");
  var ROW = 18, COLW = 120, GAP = 220, HINT = readout.textContent;
  (function () {   // the token columns are as wide as the longest token
    var c = document.createElement("canvas").getContext("2d"); c.font = "12px sans-serif";
    D.tokens.forEach(function (t) { COLW = Math.max(COLW, Math.min(220, c.measureText(t).width + 16)); });
  })();
  function tokenText(x, y, i, side, anchor) {
    var t = document.createElementNS(SVG, "text");
    t.setAttribute("x", x); t.setAttribute("y", y); t.setAttribute("text-anchor", anchor);
    t.setAttribute("class", "token " + side + " " + (D.blocks[i] || ""));
    t.setAttribute("data-side", side); t.setAttribute("data-index", i);
    t.textContent = D.tokens[i];
    t.addEventListener("mouseenter", function () { state.hover = [side, i]; drawHead(); });
    t.addEventListener("mouseleave", function () { state.hover = null; drawHead(); });
    return t;
  }
  function drawHead() {
    var m = matrix(state.layer, state.head), x0 = COLW, x1 = COLW + GAP, i, j, k;
    svg.setAttribute("width", 2 * COLW + GAP); svg.setAttribute("height", N * ROW + ROW);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var lines = document.createElementNS(SVG, "g"); lines.setAttribute("id", "lines"); svg.appendChild(lines);
    svg.setAttribute("class", state.hover ? "hovering" : "");
    var edges = [];
    if (state.hover && state.hover[0] === "left") {
      for (j = 0; j < N; j++) edges.push([state.hover[1], j, m[state.hover[1] * N + j]]);
    } else if (state.hover) {
      for (i = 0; i < N; i++) edges.push([i, state.hover[1], m[i * N + state.hover[1]]]);
    } else {
      for (i = 0; i < N; i++) {
        var row = [];
        for (j = 0; j < N; j++) row.push([i, j, m[i * N + j]]);
        row.sort(function (a, b) { return b[2] - a[2]; });
        edges = edges.concat(row.slice(0, state.topk));
      }
    }
    edges.forEach(function (e) {
      if (e[2] <= 0) return;
      var l = document.createElementNS(SVG, "line"), r = Math.sqrt(Math.min(e[2], 1));
      l.setAttribute("x1", x0); l.setAttribute("y1", ROW * (e[0] + 1));
      l.setAttribute("x2", x1); l.setAttribute("y2", ROW * (e[1] + 1));
      // the weight itself (not relative to the largest shown): square root, so 0.01 is still faintly visible
      l.setAttribute("stroke-width", (0.5 + 4 * r).toFixed(2));
      l.setAttribute("stroke-opacity", (0.03 + 0.97 * r).toFixed(3));
      l.setAttribute("data-from", e[0]); l.setAttribute("data-to", e[1]); l.setAttribute("data-w", e[2].toFixed(4));
      lines.appendChild(l);
    });
    for (i = 0; i < N; i++) {
      var a = tokenText(x0 - 6, ROW * (i + 1), i, "left", "end");
      var b = tokenText(x1 + 6, ROW * (i + 1), i, "right", "start");
      if (state.hover && state.hover[1] === i) (state.hover[0] === "left" ? a : b).setAttribute("class",
          (state.hover[0] === "left" ? a : b).getAttribute("class") + " hover");
      svg.appendChild(a); svg.appendChild(b);
    }
    var what = "layer " + state.layer + ", " + (state.head ? "head " + state.head : "mean over heads");
    document.getElementById("headtitle").textContent = "head view: " + what;
    document.body.setAttribute("data-shown", what);
    if (!state.hover) readout.textContent = HINT;
    else {
      var t = state.hover[1], best = edges.slice().sort(function (a, b) { return b[2] - a[2]; }).slice(0, 3);
      readout.textContent = "'" + D.tokens[t] + "' " + (state.hover[0] === "left" ? "attends to " : "is attended by ") +
        best.map(function (e) { return "'" + D.tokens[state.hover[0] === "left" ? e[1] : e[0]] + "' " + e[2].toFixed(3); }).join(", ") +
        " (" + what + ")";
    }
  }
  var CELL = Math.max(40, Math.min(90, Math.floor(720 / Math.max(H, 1))));
  function drawModel() {
    grid.innerHTML = "";
    grid.style.gridTemplateColumns = "28px repeat(" + H + ", " + (CELL + 2) + "px)";
    grid.appendChild(document.createElement("span"));
    for (var h = 1; h <= H; h++) {
      var lab = document.createElement("span"); lab.className = "lab"; lab.textContent = "H" + h; grid.appendChild(lab);
    }
    for (var l = 1; l <= L; l++) {
      var ll = document.createElement("span"); ll.className = "lab"; ll.textContent = "L" + l; grid.appendChild(ll);
      for (h = 1; h <= H; h++) grid.appendChild(thumb(l, h));
    }
  }
  function thumb(layer, head) {
    var c = document.createElement("canvas"), m = matrix(layer, head), g = c.getContext("2d"), i, j;
    c.width = CELL; c.height = CELL; c.title = "layer " + layer + ", head " + head;
    c.setAttribute("data-layer", layer); c.setAttribute("data-head", head);
    if (layer === state.layer && head === state.head) c.className = "current";
    g.fillStyle = "#fff"; g.fillRect(0, 0, CELL, CELL); g.strokeStyle = "#4646c8"; g.lineWidth = 0.7;
    var dy = (CELL - 4) / Math.max(N - 1, 1);
    for (i = 0; i < N; i++) for (j = 0; j < N; j++) {
      var w = m[i * N + j];
      if (w < 0.05) continue;
      g.globalAlpha = Math.min(1, w); g.beginPath(); g.moveTo(4, 2 + i * dy); g.lineTo(CELL - 4, 2 + j * dy); g.stroke();
    }
    c.addEventListener("click", function () { state.layer = layer; state.head = head; sync(); });
    return c;
  }
  function markModel() {
    Array.prototype.forEach.call(grid.querySelectorAll("canvas"), function (c) {
      c.className = (+c.getAttribute("data-layer") === state.layer && +c.getAttribute("data-head") === state.head) ? "current" : "";
    });
  }
  function sync() {
    layerSel.value = String(state.layer); headSel.value = String(state.head);
    writeHash(); drawHead(); markModel();
  }
  var ls = [], hs = [[0, "mean"]], ks = [];
  for (var a = 1; a <= L; a++) ls.push([a, String(a)]);
  for (var b = 1; b <= H; b++) hs.push([b, String(b)]);
  [1, 3, 5, 8, 10, 20].forEach(function (v) { if (v < N) ks.push([v, String(v)]); });
  ks.push([N, "all"]);
  if (!ks.some(function (x) { return x[0] === state.topk; })) state.topk = N;
  readHash();
  fill(layerSel, ls, state.layer); fill(headSel, hs, state.head); fill(topkSel, ks, state.topk);
  layerSel.addEventListener("change", function () { state.layer = +layerSel.value; sync(); });
  headSel.addEventListener("change", function () { state.head = +headSel.value; sync(); });
  topkSel.addEventListener("change", function () { state.topk = +topkSel.value; drawHead(); });
  window.addEventListener("hashchange", function () { readHash(); sync(); });
  drawModel(); sync();
  document.body.setAttribute("data-ready", "1");
})();
"""
