"""The τ spin box, one definition for every place τ is typed (Spans & τ, τ on dev set).

τ is in score_diff units (logit sums): answer iff score_diff > τ (BERT paper, section 4.3).
"""

from __future__ import annotations

from PySide6.QtWidgets import QDoubleSpinBox

from .common import tip

from explorer.core.qa.scores import TAU_GRID_STEP

TAU_RANGE = (-1000.0, 1000.0)   # score_diff units; the sweep grid is core.qa.scores.DEFAULT_TAUS (−6…+6)
TAU_STEP = TAU_GRID_STEP        # the step of the τ grid
TAU_DECIMALS = 2


def tau_spin_box(parent=None) -> QDoubleSpinBox:
    """A QDoubleSpinBox for τ: range ±1000, 2 decimals, step 0.25, the glossary's τ tooltip."""
    spin = QDoubleSpinBox(parent)
    spin.setRange(*TAU_RANGE)
    spin.setDecimals(TAU_DECIMALS)
    spin.setSingleStep(TAU_STEP)
    spin.setToolTip(tip("tau"))
    return spin
