"""A big table's launcher preview: its first rows at once, then its rows and exact class counts counted in pieces
(one row in memory at a time), the same counts the whole-file reader finds."""

import csv
import json

import pytest

from explorer.core.data import table_stream
from explorer.core.data.table_stream import count_rows, read_head
from explorer.core.errors import ClassificationDataError
from explorer.ui.launch import big_table_preview, data_preview

LABELS = ("negative", "neutral", "positive", "rare")


def _label(i: int) -> str:
    return "rare" if i % 97 == 0 else LABELS[i % 3]


def _write_csv(path, n):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["id", "text", "label"])
        for i in range(n):
            text = f"row {i}: a film" + (', with a "quoted", comma\nand a line break' if i % 10 == 0 else "")
            out.writerow([i, text, _label(i)])
    return path


def _expected(n):
    counts = {}
    for i in range(n):
        counts[_label(i)] = counts.get(_label(i), 0) + 1
    return counts


def test_rows_and_class_counts_are_exact_in_chunks(tmp_path):
    path = _write_csv(tmp_path / "t.csv", 2_345)
    seen = []
    got = count_rows(path, label_index=2, chunk_rows=500, progress=seen.append)
    assert got.n_rows == 2_345
    assert got.class_counts == _expected(2_345)
    assert seen == [500, 1000, 1500, 2000]                     # one report per chunk of rows


def test_the_head_is_read_from_the_first_bytes_only(tmp_path, monkeypatch):
    path = _write_csv(tmp_path / "t.csv", 3_000)
    monkeypatch.setattr(table_stream, "HEAD_BYTES", 4096)      # far less than the file
    head = read_head(path, n=5)
    assert head.columns == ["id", "text", "label"]
    assert [values[0] for _, values in head.rows] == ["0", "1", "2", "3", "4"]
    assert head.n_rows < 3_000                                 # not every row was read


def test_a_row_with_a_missing_field_names_its_line(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("text\tlabel\ngood\t1\nbad row without label\n", encoding="utf-8")
    with pytest.raises(ClassificationDataError, match="line 3"):
        count_rows(path, label_index=1)



def test_a_headerless_table_counted_in_pieces_has_the_columns_most_rows_have(tmp_path):
    """Without a header the head's columns are as many as most rows' fields (a cut first line does not narrow them),
    and a short row is counted with an empty label rather than refusing the file."""
    path = tmp_path / "t.csv"
    path.write_text('cut short",x\n' + "".join(f"{i},text {i},{'ab'[i % 2]}\n" for i in range(6)) + "7,short\n",
                    encoding="utf-8")
    assert read_head(path, no_header=True).columns == ["1", "2", "3"]
    count = count_rows(path, label_index=2, no_header=True)
    assert count.n_rows == 8 and count.class_counts == {"a": 3, "b": 3} and count.empty_labels == 2

def test_the_launcher_preview_shows_the_head_first_then_the_counts(tmp_path, monkeypatch):
    path = _write_csv(tmp_path / "big.csv", 1_200)
    monkeypatch.setattr(big_table_preview, "STREAM_BYTES", 1000)   # "big" at this size
    heads = []
    res = data_preview.preview_data(str(path), "single", options={"dev_fraction": 0.1}, on_head=heads.append)
    assert res["ok"], res["error"]
    assert len(heads) == 1 and heads[0]["partial"] and not heads[0]["class_counts"]
    assert [r["id"] for r in heads[0]["records"]] == [str(i) for i in range(8)]
    assert res["counts"]["examples"] == 1_200
    assert res["class_counts"] == _expected(1_200)
    assert res["used"]["label_column"] == "label" and res["used"]["text_columns"] == ["text"]
    assert "counted in pieces" in " ".join(res["notes"])


def test_the_child_prints_the_head_line_before_the_answer(tmp_path, monkeypatch, capsys):
    path = _write_csv(tmp_path / "big.csv", 300)
    monkeypatch.setattr(big_table_preview, "STREAM_BYTES", 1000)
    assert data_preview.main([str(path), "--task", "single"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [bool(x.get("partial")) for x in lines] == [True, False]
    assert lines[-1]["counts"]["examples"] == 300


def test_a_small_table_is_still_read_whole(tmp_path):
    path = _write_csv(tmp_path / "small.csv", 50)
    heads = []
    res = data_preview.preview_data(str(path), "single", on_head=heads.append)
    assert res["ok"] and res["counts"]["examples"] == 50 and heads == []


def test_old_mac_line_ends_are_counted_and_the_head_cut_at_a_cr(tmp_path, monkeypatch):
    rows = "".join(f'"row {i}, caf\xe9\nsecond line",{_label(i)}\r' for i in range(300))
    path = tmp_path / "mac.csv"
    path.write_bytes(("text,label\r" + rows).encode("latin-1"))
    monkeypatch.setattr(table_stream, "HEAD_BYTES", 1000)   # the head ends inside the file
    head = read_head(path, n=5)
    assert [v for _, v in head.rows][:2] == [["row 0, caf\xe9\nsecond line", _label(0)],
                                             ["row 1, caf\xe9\nsecond line", _label(1)]]
    assert [line for line, _ in head.rows][:3] == [2, 3, 4]
    assert any("old Mac line ends (CR) read as line ends" in n for n in head.notes)
    counted = count_rows(path, label_index=1)
    assert counted.n_rows == 300 and counted.class_counts == _expected(300)
