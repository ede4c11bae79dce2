"""The Attention view's faster redraw shows what the straightforward computation shows.

Colour scale, colours, head means and the cached block-flow table / model map are compared with the plain
numpy expressions the view used before (np.quantile, the one-expression colorize, astype + mean).
"""

import numpy as np
import pyqtgraph as pg
import pytest

from explorer.ui.inspectors.heatmap import colorize, upper_level


def _old_colorize(matrix, levels, cmap):
    lo, hi = levels
    span = hi - lo if hi > lo else 1.0
    lut = cmap.getLookupTable(0.0, 1.0, 256, alpha=True, mode="byte")
    idx = np.clip((np.nan_to_num(matrix, nan=lo) - lo) * (255.0 / span), 0, 255).astype(np.uint8)
    rgba = lut[idx]
    rgba[np.isnan(matrix)] = (0, 0, 0, 0)
    return rgba


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (7, 7), (384, 384), (101, 37)])
def test_upper_level_is_np_quantile(shape):
    rng = np.random.default_rng(sum(shape))
    m = rng.random(shape).astype(np.float32) ** 3
    for q in (0.0, 0.5, 0.995, 1.0):
        assert upper_level(m, q) == float(np.quantile(m, q))
    with pytest.raises(ValueError, match="empty"):
        upper_level(np.zeros((0, 0)), 0.5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_colorize_is_the_plain_expression(dtype):
    rng = np.random.default_rng(1)
    cmap = pg.colormap.get("viridis")
    m = rng.normal(size=(50, 60)).astype(dtype)
    for levels in ((-1.0, 1.5), (0.0, 0.0), (0.3, 0.2000001)):
        np.testing.assert_array_equal(colorize(m, levels, cmap), _old_colorize(m, levels, cmap))
    strided = m.T[::2]                     # a strided view (the model map's flow[:, :, a, b] is one)
    np.testing.assert_array_equal(colorize(strided, (-1.0, 1.0), cmap), _old_colorize(strided, (-1.0, 1.0), cmap))
    m[3, 4] = np.nan
    m[0, :] = np.nan
    out = colorize(m, (-1.0, 1.0), cmap)
    np.testing.assert_array_equal(out, _old_colorize(m, (-1.0, 1.0), cmap))
    assert out[3, 4, 3] == 0 and (out[0, :, 3] == 0).all() and out[1, 1, 3] == 255


def test_float16_head_mean_equals_cast_then_mean():
    rng = np.random.default_rng(2)
    w = rng.random((3, 12, 64, 64)).astype(np.float16)
    for layer in range(3):
        np.testing.assert_array_equal(w[layer].mean(axis=0, dtype=np.float32),
                                      w[layer].astype(np.float32).mean(axis=0))


def test_layer_and_head_changes_refresh_the_cached_flow_and_model_map(qtbot, tiny_qa):
    from explorer.core.qa.probe import probe
    from explorer.ui.inspectors.attention_view import AttentionView

    view = AttentionView()
    qtbot.addWidget(view)
    long = " ".join(f"In year {1800 + k} Ada was born in London and Paris had {k} bridges." for k in range(6))
    r = probe(tiny_qa, "Where was Ada born?", long, attentions=True, max_seq_length=48, doc_stride=16)
    view.set_result(r)
    att = r.attention[0]
    view.layer.setCurrentIndex(1)            # a layer change: the head-mean table stays, layer 2 is selected
    assert view.flow_table.item(1, 0).text() == f"{att.flow[1].mean(axis=0)[0, 1]:.3f}"
    assert view.flow_table.selectedItems()[0].row() == 1
    np.testing.assert_array_equal(view.current_matrix(), att.attentions[1].astype(np.float32).mean(axis=0))
    assert view.flow.which.text() == "Mean over heads"
    view.head.setCurrentIndex(2)             # head 2: the table shows that head, and says so over it
    assert view.flow_table.item(0, 0).text() == f"{att.flow[0, 1, 0, 1]:.3f}"
    assert view.flow.which.text() == "Head 2 only" and "choose mean" in view.flow.which.toolTip()
    assert view.model_map.cell_marker.isVisible()
    view.head.setCurrentIndex(0)             # back to the mean: no marked head in the model map
    assert view.flow_table.item(0, 0).text() == f"{att.flow[0].mean(axis=0)[0, 1]:.3f}"
    assert not view.model_map.cell_marker.isVisible()
    view.model_pair.setCurrentIndex(view._pairs.index((1, 0)))   # passage -> question over layers x heads
    np.testing.assert_array_equal(view.model_map.matrix, att.flow[:, :, 1, 0])
    view.set_window(2)                       # another window: its own table and map
    att2 = r.attention[2]
    assert view.flow_table.item(0, 0).text() == f"{att2.flow[0].mean(axis=0)[0, 1]:.3f}"
    np.testing.assert_array_equal(view.model_map.matrix, att2.flow[:, :, 1, 0])
    assert view.current_labels() == r.windows[2].tokens
    assert view.heatmap.left_axis.labels == r.windows[2].tokens
    vmax = view.heatmap.levels[1]
    assert vmax == max(float(np.quantile(view.current_matrix(), 0.995)), 1e-6)
