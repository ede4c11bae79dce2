"""The Spans tab's saliency page, offscreen: a probe result's best span is attributed on a worker thread
when the page is shown, coloured on the question and passage, and a clicked span is attributed next."""

import numpy as np
import pytest
from helpers import tiny_loaded_model

from explorer.core.qa.probe import probe
from explorer.ui.inspectors.components.saliency import colour
from explorer.ui.inspectors.spans_view import SpansView


@pytest.fixture(scope="module")
def probed():
    loaded = tiny_loaded_model("qa", seed=1)
    res = probe(loaded, "where was ada born?", "ada was born in london. the river is in paris.",
                tokenizer=loaded.tokenizer, attentions=False)
    return loaded, res


def test_best_span_then_clicked_span_are_attributed(qtbot, probed):
    loaded, res = probed
    view = SpansView()
    qtbot.addWidget(view)
    view.saliency.model_getter = lambda: loaded
    view.show()
    view.set_result(res)
    assert view.saliency.saliency is None          # not visible yet: nothing computed
    view.right_tabs.setCurrentWidget(view.saliency)
    qtbot.waitUntil(lambda: view.saliency.saliency is not None, timeout=30000)
    best = res.nbest[0]
    sal = view.saliency.saliency
    assert (sal.start_index, sal.end_index) == (best.start_token, best.end_token)
    assert sal.start_logit == pytest.approx(best.start_logit, abs=1e-4)
    html = view.saliency.text.toHtml()
    assert "question:" in html and "passage:" in html and "london" in html
    p = res.windows[0].blocks.index("passage")
    with qtbot.waitSignal(view.saliency.computed, timeout=30000) as sig:
        view.select_span(0, p + 2, p + 3)
    assert (sig.args[0].start_index, sig.args[0].end_index) == (p + 2, p + 3)
    assert np.abs(sig.args[0].end_attribution).max() > 0


def test_colour_scale():
    assert colour(1.0, 2.0) == "background: rgba(214,39,40,0.50);"
    assert colour(-4.0, 2.0) == "background: rgba(31,119,180,1.00);"
    assert colour(0.3, 0.0).endswith("0.00);")
