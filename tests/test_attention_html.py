"""The self-contained attention HTML page (explorer.core.attention.html_export): its data round trip, the probe's
--html option, and the page in a real headless Chromium driven through the DevTools protocol (it renders, the
layer picker, a small head and a hover change the picture, and the page makes no network request)."""

from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from explorer.core.attention.html_export import attention_html, decode_weights, encode_weights, write_attention_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="LOUD SKIP: no chromium on PATH (Debian: apt-get install chromium; .ci/run installs it); "
                             "the HTML export is not checked in a browser")

SHOTS = os.environ.get("EXPLORER_SHOTS")   # a folder: the browser test also saves its screenshot there
QUESTION, PASSAGE = "who was born?", "ada was born in 1815 in london."


def _weights(seed=0, layers=2, heads=4, n=9):
    rng = np.random.default_rng(seed)
    a = rng.random((layers, heads, n, n)) ** 4
    return (a / a.sum(-1, keepdims=True)).astype(np.float32)


def test_weights_round_trip_and_escaping():
    a = _weights()
    back = decode_weights(encode_weights(a), a.shape)
    assert np.max(np.abs(back - a)) <= 0.5 / 65535 + 1e-7
    tokens = ["</script>", "b", "c", "d", "e", "f", "g", "h", "<i>"]
    page = attention_html(a, tokens, title="<b>t</b>")
    assert page.count("</script>") == 2          # the two script elements only: no token closes one
    assert "<b>t</b>" not in page and "&lt;b&gt;t&lt;/b&gt;" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page, re.I)   # nothing fetched from anywhere


LINES_JS = "Array.from(document.querySelectorAll('#lines line')).map(l => [+l.dataset.from, +l.dataset.to, +l.dataset.w])"


def _drawn(page, n: int) -> np.ndarray:
    """The head view's lines as an (n, n) matrix of their data-w weights (0 where no line)."""
    m = np.zeros((n, n))
    for f, t, w in page.js(LINES_JS):
        m[f, t] = w
    return m


@needs_chromium
def test_page_in_headless_chromium(tmp_path, tiny_qa):
    """Through the DevTools protocol: the page renders the tokens and one line per weight, the layer picker and a
    click on a small head change the picture, hovering a token shows only its lines, and the page asks the network
    for nothing (a copy with a remote image shows that the check sees a request)."""
    from chromium_cdp import Chromium

    from explorer.core.qa.probe import probe

    result = probe(tiny_qa, QUESTION, PASSAGE, attentions=True, keep_attentions="float32")
    w = result.best_window
    weights = result.attention_weights(w.index)
    page_file = write_attention_html(tmp_path / "attention.html", weights, w.tokens, w.blocks, title="tiny")
    n = len(w.tokens)
    assert n <= 40   # every weight is a line (the page's default "all" below 40 tokens)
    leaky = tmp_path / "leaky.html"
    leaky.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page_file.read_text())
                     .replace("<body>", '<body><img src="http://example.invalid/x.png">'))

    def positive(a):
        return np.where(a > 0, a, 0)

    with Chromium(tmp_path / "profile") as page:
        page.open(page_file.as_uri() + "#layer=1&head=2")
        assert page.js("document.body.dataset.ready") == "1"
        assert page.js("document.body.dataset.shown") == "layer 1, head 2"
        assert page.js("Array.from(document.querySelectorAll('text.left')).map(t => t.textContent)") == list(w.tokens)
        assert page.js("document.querySelectorAll('text.right').length") == n
        np.testing.assert_allclose(_drawn(page, n), positive(weights[0, 1]), atol=1e-4)
        assert page.js("document.querySelectorAll('#modelview canvas').length") == 2 * 4   # layers x heads

        page.js("var s = document.getElementById('layer'); s.value = '2'; s.dispatchEvent(new Event('change'))")
        assert page.js("location.hash") == "#layer=2&head=2"
        assert page.js("document.body.dataset.shown") == "layer 2, head 2"
        np.testing.assert_allclose(_drawn(page, n), positive(weights[1, 1]), atol=1e-4)
        assert not np.allclose(weights[0, 1], weights[1, 1], atol=1e-4)   # so the picture did change

        page.js("document.querySelector('text.left[data-index=\"3\"]').dispatchEvent(new MouseEvent('mouseenter'))")
        hovered = page.js(LINES_JS)
        assert {f for f, _, _ in hovered} == {3} and len(hovered) == int((weights[1, 1, 3] > 0).sum())
        assert page.js("document.getElementById('readout').textContent").startswith(f"'{w.tokens[3]}' attends to")
        page.js("document.querySelector('text.left[data-index=\"3\"]').dispatchEvent(new MouseEvent('mouseleave'))")

        page.js("document.querySelector('#modelview canvas[data-layer=\"1\"][data-head=\"3\"]').click()")
        assert page.js("document.body.dataset.shown") == "layer 1, head 3"
        assert page.js("document.getElementById('head').value") == "3"
        np.testing.assert_allclose(_drawn(page, n), positive(weights[0, 2]), atol=1e-4)
        if SHOTS:
            shot = page.call("Page.captureScreenshot", {"format": "png"})["data"]
            (Path(SHOTS) / "html_tiny_layer1_head3.png").write_bytes(base64.b64decode(shot))
        assert all(url.startswith("file:") for url in page.requests()), page.requests()

        page.open(leaky.as_uri())
        assert "http://example.invalid/x.png" in page.requests()


def test_probe_cli_writes_the_page(tmp_path, capsys):
    from explorer.commands import probe as probe_cmd
    from explorer.core.attention.html_export import attention_page_data
    from helpers import save_tiny_model

    folder = save_tiny_model(tmp_path / "model")
    out = tmp_path / "p.html"
    import argparse

    parser = argparse.ArgumentParser()
    probe_cmd.add_arguments(parser)
    args = parser.parse_args(["--model", str(folder), "--question", QUESTION, "--passage", PASSAGE, "--html", str(out)])
    assert probe_cmd.run(args) == 0
    text = out.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="attention-data">(.*?)</script>', text, re.S).group(1))
    assert data["layers"] == 2 and data["heads"] == 4 and data["seq"] == len(data["tokens"])
    w = decode_weights(data["weights"], (2, 4, data["seq"], data["seq"]))
    np.testing.assert_allclose(w.sum(-1), 1.0, atol=1e-3)
    assert set(attention_page_data(w, data["tokens"]).keys()) <= set(data)
    assert "wrote the attention of window 1" in capsys.readouterr().err
    # the printed report is on the page too: the answer's arithmetic, the τ inequality and the block flow per layer
    report = html.unescape(re.search(r'<pre id="report">(.*?)</pre>', text, re.S).group(1))
    for part in ("null_score = S.C + E.C = ", "score_diff = best_non_null_score - null_score = ", "tau = +0.00: ",
                 "attention block flow, mean over 4 heads"):
        assert part in report, part
    bad = parser.parse_args(["--model", str(folder), "--question", QUESTION, "--passage", PASSAGE, "--html",
                             str(out), "--no-flow"])
    assert probe_cmd.run(bad) == 2
    assert "--html needs the attention forward" in capsys.readouterr().err
