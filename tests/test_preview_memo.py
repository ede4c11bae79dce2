"""The launcher's data preview remembers a file's answer while the file's bytes are the same
(explorer.ui.launch.preview): the same file previewed again starts no child process; a changed file, a
different task or column, a failed child and a file changed while it was read are read (again)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import write_tiny_classification

preview = pytest.importorskip("explorer.ui.launch.preview")


@pytest.fixture
def children(monkeypatch):
    """The argv of every preview child started (the real child runs); the memo starts empty."""
    started: list[list[str]] = []
    real_popen = subprocess.Popen

    def counting_popen(argv, *args, **kwargs):
        started.append(list(argv))
        return real_popen(argv, *args, **kwargs)

    monkeypatch.setattr(preview.subprocess, "Popen", counting_popen)
    monkeypatch.setattr(preview, "_memo", type(preview._memo)())
    return started


def _preview(path, label="label"):
    return preview.run_preview_process(str(path), "single", "train", ["sentence"], label)


def test_the_same_file_is_read_once_and_a_changed_one_again(children, tmp_path):
    data = write_tiny_classification(tmp_path / "d.tsv", repeat=2)
    first = _preview(data)
    assert first["ok"] and first["counts"]["examples"] > 0 and len(children) == 1
    first["counts"]["examples"] = -1                         # a caller editing its answer edits its own copy
    again = _preview(data)
    assert len(children) == 1 and again["counts"]["examples"] == len(data.read_text().splitlines()) - 1
    assert "_complete" not in again and "_complete" not in first

    write_tiny_classification(data, repeat=3)                # new bytes (same path, maybe the same mtime)
    changed = _preview(data)
    assert len(children) == 2 and changed["counts"]["examples"] == again["counts"]["examples"] * 3 // 2
    _preview(data, label="sentence")                         # other arguments: another answer
    assert len(children) == 3


def test_a_failed_child_or_a_file_changed_while_read_is_not_kept(children, tmp_path, monkeypatch):
    data = write_tiny_classification(tmp_path / "d.tsv")
    python = sys.executable
    monkeypatch.setattr(sys, "executable", "/bin/false")   # a child that prints no answer
    for _ in range(2):
        failed = _preview(data)
        assert not failed["ok"] and "the preview process failed" in failed["error"]
    assert len(children) == 2 and not preview._memo
    monkeypatch.setattr(sys, "executable", python)

    real_child = preview._preview_child

    def child_then_edit(argv, source, *rest):
        result = real_child(argv, source, *rest)
        text = data.read_text()
        data.write_text(text + text.splitlines()[1] + "\n")     # written to while the child read it
        return result

    monkeypatch.setattr(preview, "_preview_child", child_then_edit)
    assert _preview(data)["ok"] and _preview(data)["ok"]
    assert len(children) == 4 and not preview._memo
    assert preview.file_digest(str(tmp_path)) is None and preview.file_digest(str(tmp_path / "none")) is None
