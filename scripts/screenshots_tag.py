"""Screenshots of the Tag page and Tag: dev set for a ner checkpoint (offscreen), into docs/images.

    QT_QPA_PLATFORM=offscreen python scripts/screenshots_tag.py --model /tmp/ner/runs/ner/checkpoints/best \\
        --dev ../shared/data/conll2003/dev.txt --dev-cap 300

The views render what the inspector child's ``tag`` / ``tag_dev`` ops return; here the ops run in this
process on the loaded checkpoint (no child), so the pictures are the pages' own rendering of those results.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="a token-classification checkpoint folder")
    p.add_argument("--dev", default="", help="a CoNLL / JSONL dev file for the dev view")
    p.add_argument("--dev-cap", type=int, default=300)
    p.add_argument("--sentence", default="Peter Blackburn met Angela Merkel in Berlin on Monday .")
    p.add_argument("--out", default=str(ROOT / "docs" / "images"))
    a = p.parse_args(argv)
    from PySide6.QtWidgets import QApplication

    from explorer.core.models.loading import load_model
    from explorer.ui.inspectors.tag_view import TagDevView, TagView
    from explorer.worker.inspector_ops import State, op_tag, op_tag_dev

    app = QApplication.instance() or QApplication([])
    state = State()
    state.models["tag"] = load_model(a.model, "token_classification")
    view = TagView()
    view.resize(1200, 760)
    view.source.setText(a.model)
    view.sentence.setText(a.sentence)
    view.show_result(op_tag(state, {"slot": "tag", "text": a.sentence, "token": 1}, None, lambda: False))
    view.show()
    app.processEvents()
    out = Path(a.out)
    view.grab().save(str(out / "tag.png"))
    print(out / "tag.png")
    if a.dev:
        dev = TagDevView(view)
        dev.resize(1200, 760)
        dev.path.setText(a.dev)
        dev.show_report(op_tag_dev(state, {"slot": "tag", "path": a.dev, "cap": a.dev_cap}, None, lambda: False))
        dev.show()
        app.processEvents()
        dev.grab().save(str(out / "tag_dev.png"))
        print(out / "tag_dev.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
