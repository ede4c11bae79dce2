"""The self-contained attention HTML page (explorer.core.attention_html): its data round trip, the probe's
--html option, and the page in a real headless Chromium (it renders, the layer in the URL changes the picture,
no request leaves the machine, checked in Chromium's own network log)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import numpy as np
import pytest

from explorer.core.attention_html import attention_html, decode_weights, encode_weights, write_attention_html

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="LOUD SKIP: no chromium on PATH (Debian: apt-get install chromium; .ci/run installs it); "
                             "the HTML export is not checked in a browser")

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


def _chromium(tmp_path, url: str, *, netlog=None, screenshot=None) -> str:
    """Run headless Chromium on ``url``; the DOM after the page's script ran."""
    args = [CHROMIUM, "--headless=new", "--disable-gpu", "--no-sandbox", f"--user-data-dir={tmp_path / 'profile'}",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
            "--disable-default-apps", "--disable-extensions", '--host-resolver-rules=MAP * ~NOTFOUND',
            "--window-size=1280,800"]
    if netlog:
        args.append(f"--log-net-log={netlog}")
    args.append(f"--screenshot={screenshot}" if screenshot else "--dump-dom")
    out = subprocess.run(args + [url], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def _page_requests(netlog) -> list[str]:
    """URLs the page (not the browser's own housekeeping, whose initiator is 'not an origin') asked the network
    for, from Chromium's net log."""
    log = json.loads(netlog.read_text())
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for e in log["events"]:
        p = e.get("params") or {}
        if e["type"] == start and "url" in p and p.get("initiator") != "not an origin":
            if not p["url"].startswith(("file:", "data:")):
                urls.append(p["url"])
    return urls


def _lines(dom: str) -> list[tuple[int, int, float]]:
    return [(int(f), int(t), float(w)) for f, t, w in
            re.findall(r'<line [^>]*data-from="(\d+)" data-to="(\d+)" data-w="([0-9.]+)"', dom)]


@needs_chromium
def test_page_in_headless_chromium(tmp_path, tiny_qa):
    from explorer.core.probe import probe

    result = probe(tiny_qa, QUESTION, PASSAGE, attentions=True, keep_attentions="float32")
    w = result.best_window
    weights = result.attention_weights(w.index)
    page = write_attention_html(tmp_path / "attention.html", weights, w.tokens, w.blocks, title="tiny")
    n = len(w.tokens)
    assert n <= 40   # every weight is a line (the page's default "all" below 40 tokens)

    netlog = tmp_path / "net.json"
    dom1 = _chromium(tmp_path, page.as_uri() + "#layer=1&head=2", netlog=netlog)
    dom2 = _chromium(tmp_path, page.as_uri() + "#layer=2&head=2")
    assert 'data-ready="1"' in dom1 and 'data-shown="layer 2, head 2"' in dom2
    for tok in set(w.tokens):   # both token columns
        assert dom1.count(f">{tok}</text>") >= 2 * w.tokens.count(tok)
    for layer, dom in ((0, dom1), (1, dom2)):
        lines = _lines(dom)
        drawn = np.zeros((n, n))
        for f, t, v in lines:
            drawn[f, t] = v
        np.testing.assert_allclose(drawn, np.where(weights[layer, 1] > 0, weights[layer, 1], 0), atol=1e-4)
    assert _lines(dom1) != _lines(dom2)
    assert dom1.count("<canvas") == 2 * 4      # the model view: layers x heads small heads
    assert _page_requests(netlog) == []

    # the check can fail: the same page with a remote image (and no content policy) is seen asking for it
    leaky = tmp_path / "leaky.html"
    leaky.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page.read_text())
                     .replace("<body>", '<body><img src="http://example.invalid/x.png">'))
    _chromium(tmp_path, leaky.as_uri(), netlog=tmp_path / "net2.json")
    assert _page_requests(tmp_path / "net2.json") == ["http://example.invalid/x.png"]


def test_probe_cli_writes_the_page(tmp_path, capsys):
    from explorer.commands import probe as probe_cmd
    from explorer.core.attention_html import attention_page_data
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
    bad = parser.parse_args(["--model", str(folder), "--question", QUESTION, "--passage", PASSAGE, "--html",
                             str(out), "--no-flow"])
    assert probe_cmd.run(bad) == 2
    assert "--html needs the attention forward" in capsys.readouterr().err
