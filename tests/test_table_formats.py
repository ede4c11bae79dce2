"""Every command reads a table by one rule (explorer/core/data/table.table_kind): the whole-file reader that
train, embed and the launcher use (read_table) and predict's streaming reader (predict/reading.iter_rows) give
the same columns and rows for the same file, with or without a header; a .txt without tabs is one text per line
everywhere; predict reads the header-less tab-separated .csv that train reads (STS-B)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import save_tiny_head_model

from explorer.core.data.table import read_table, table_kind
from explorer.core.predict.reading import iter_rows, read_header

FILES = {
    "comma.csv": ("sentence,label\n\"a, quoted\",pos\nplain text,neg\n", False, "csv"),
    "tabs.tsv": ("sentence\tlabel\na \"quote\" stays\tpos\nb\tneg\n", False, "tsv"),
    "stsb.csv": ("main\tf\t2012\t1\t5.0\tA man plays.\tA man is playing.\nmain\tf\t2012\t2\t1.5\tA dog.\tCats.\tx\ty\n",
                 True, "tsv"),
    "stance.txt": ("ID\tTarget\tTweet\tStance\r\n1\tAtheism\tGod is good\tAGAINST\r\n", False, "tsv"),
    "lines.txt": ("I loved this film\n\nIt was dull, truly.\r\n", False, "lines"),
    "rows.jsonl": ('{"text": "one", "label": 1}\n{"text": "two", "label": 0}\n', False, "jsonl"),
    "headless.csv": ("first text,pos\nsecond text,neg\n", True, "csv"),
    "unnamed.csv": ("class,message,,,\nham,hi there,,,\nspam,win now,call,08001,today\n", False, "csv"),
    "repeated.tsv": ("text\tlabel\ttext\none\tpos\tuno\n", False, "tsv"),
    "csv_quoted.tsv": ('text\tlabel\n"a text, with ""quotes"" inside"\tpos\n5" screen\tneg\n', False, "tsv"),
}

QUOTED_TSV = ('id\ttext\tlabel\n'
              '1\t"a text, with ""quotes"" inside"\tpos\n'
              '2\t"""fine"", she said"\tpos\n'
              '3\ta 5" screen\tneg\n'
              '4\tit\'s "fine\tneg\n'        # a lone quote: never joins the next line or row
              '5\t"a quotation kept as written"\tpos\n'
              '6\t"half ""quoted\tneg\n')
QUOTED_TEXTS = ['a text, with "quotes" inside', '"fine", she said', 'a 5" screen', 'it\'s "fine',
                '"a quotation kept as written"', '"half ""quoted']


def _cell(value) -> str:
    return "" if value is None else str(value)


@pytest.mark.parametrize("name", list(FILES))
def test_the_streaming_and_the_whole_file_reader_agree(tmp_path, name):
    text, no_header, kind = FILES[name]
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    assert table_kind(path, text.split("\n", 1)[0]) == kind
    table = read_table(path, no_header=no_header)
    info, rows = iter_rows(path, no_header=no_header)
    rows = list(rows)
    assert table.kind == info.kind == kind
    assert table.columns == info.columns == read_header(path, no_header=no_header).columns
    assert [[_cell(v) for v in values[:len(table.columns)]] for _, values in table.rows] == \
        [[_cell(r.values.get(c)) for c in info.columns] for r in rows]
    assert [line for line, _ in table.rows] == [r.line for r in rows]
    assert not any(r.error for r in rows)


def test_a_tsv_field_in_csv_quoting_is_unquoted_and_a_lone_quote_stays_text_in_every_reader(tmp_path):
    """A field in quotes whose quotes inside are all doubled reads as CSV reads it; any other quote is text, in
    the whole-file reader, the streaming one and the row count: one row per line, none joined or lost."""
    from explorer.core.data.table_stream import count_rows

    path = tmp_path / "quoted.tsv"
    path.write_text(QUOTED_TSV, encoding="utf-8")
    table = read_table(path)
    assert [values[1] for _, values in table.rows] == QUOTED_TEXTS
    assert [line for line, _ in table.rows] == [2, 3, 4, 5, 6, 7]
    _info, rows = iter_rows(path)
    assert [r.values["text"] for r in rows] == QUOTED_TEXTS
    assert count_rows(path, label_index=2).n_rows == 6


def test_a_txt_file_is_one_text_per_line_in_every_reader(tmp_path):
    from explorer.core.embeddings.corpus import read_corpus

    path = tmp_path / "new.txt"
    path.write_text("I loved this film\n\nIt was dull, truly.\n", encoding="utf-8")
    texts = ["I loved this film", "It was dull, truly."]
    assert [v[0] for _, v in read_table(path).rows] == texts
    assert [r.values["text"] for r in iter_rows(path)[1]] == texts
    corpus = read_corpus(path)
    assert corpus.kind == "text" and corpus.texts == texts and corpus.lines == [1, 3]


def test_predict_labels_a_txt_file_and_a_headerless_tab_separated_csv(tmp_path, capsys):
    from explorer.cli import main
    from explorer.core.specs.heads import REGRESSION, SINGLE_LABEL

    classifier = save_tiny_head_model(tmp_path / "cls", SINGLE_LABEL)
    new = tmp_path / "new.txt"
    new.write_text("I loved this film\nIt was dull\n", encoding="utf-8")
    assert main(["predict", "--model", str(classifier), "--data", str(new), "--out", str(tmp_path / "a.jsonl")]) == 0
    rows = [json.loads(x) for x in (tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["text"] for r in rows] == ["I loved this film", "It was dull"] and all(r["predicted_label"] for r in rows)

    scorer = save_tiny_head_model(tmp_path / "reg", REGRESSION)
    stsb = tmp_path / "stsb.csv"
    stsb.write_text(FILES["stsb.csv"][0], encoding="utf-8")
    out = tmp_path / "b.csv"
    assert main(["predict", "--model", str(scorer), "--data", str(stsb), "--out", str(out), "--no-header",
                 "--text-columns", "6", "7"]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("1,2,3,4,5,6,7,") and "predicted_score" in lines[0] and len(lines) == 3
    capsys.readouterr()


def test_unnamed_and_repeated_header_columns_keep_their_values_under_names_of_their_own(tmp_path):
    """An SMS spam CSV's header "class,message,,,": every reader names the empty columns by position and says so;
    a repeated name gets its position too; no value is lost on the way to a predictions file."""
    from explorer.core.data.table import unique_columns

    assert unique_columns(["class", "message", "", "", ""]) == (
        ["class", "message", "column 3", "column 4", "column 5"],
        "header columns 3, 4, 5 have no name: read as 'column 3', 'column 4', 'column 5'")
    assert unique_columns(["text", "label", "text"]) == (
        ["text", "label", "text (column 3)"], "repeated header name: 'text' of column 3 read as 'text (column 3)'")
    assert unique_columns(["", "column 1"])[0] == ["column 1'", "column 1"]   # a header's own name wins
    assert unique_columns(["a", "b"]) == (["a", "b"], "")
    path = tmp_path / "spam.csv"
    path.write_text(FILES["unnamed.csv"][0], encoding="utf-8")
    table = read_table(path)
    assert table.columns == ["class", "message", "column 3", "column 4", "column 5"]
    assert any("have no name" in n for n in table.notes)
    info, rows = iter_rows(path)
    assert "have no name" in info.note
    assert list(rows)[1].values == {"class": "spam", "message": "win now", "column 3": "call",
                                    "column 4": "08001", "column 5": "today"}


def test_predict_keeps_every_unnamed_columns_values(tmp_path, capsys):
    from explorer.cli import main
    from explorer.core.specs.heads import SINGLE_LABEL

    classifier = save_tiny_head_model(tmp_path / "cls", SINGLE_LABEL)
    data = tmp_path / "spam.csv"
    data.write_text(FILES["unnamed.csv"][0], encoding="utf-8")
    out = tmp_path / "out.csv"
    assert main(["predict", "--model", str(classifier), "--data", str(data), "--out", str(out),
                 "--text-columns", "message"]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("class,message,column 3,column 4,column 5,")
    assert lines[2].startswith("spam,win now,call,08001,today,")
    capsys.readouterr()


def test_the_format_rule_names_unknown_suffixes(tmp_path):
    from explorer.core.errors import ClassificationDataError

    with pytest.raises(ClassificationDataError, match="unknown file type '.doc'"):
        table_kind(Path("x.doc"))
    assert table_kind("x.txt", "a\tb") == "tsv" and table_kind("x.txt", "a, b") == "lines"
    assert table_kind("x.csv", "a\tb\tc,d") == "tsv" and table_kind("x.csv", "a,b") == "csv"


def test_training_on_a_one_text_per_line_file_says_it_has_no_labels(tmp_path):
    from explorer.core.data.classification import load_classification
    from explorer.core.data.scores_and_label_sets import load_regression
    from explorer.core.errors import ClassificationDataError

    path = tmp_path / "new.txt"
    path.write_text("I loved this film\nIt was dull\n", encoding="utf-8")
    for load in (load_classification, load_regression):
        with pytest.raises(ClassificationDataError, match="a .txt file without tabs is one text per line, with no "
                                                          "label column"):
            load(str(path))


CUT_FIRST_LINE = 'pel @press http://t.co/x",nocode\n' + "".join(f'{100 + i},"text number {i} is here",{"ab"[i % 2]}\n'
                                                              for i in range(6))


def test_a_headerless_table_has_as_many_columns_as_most_rows_not_as_a_cut_first_line(tmp_path):
    """A file without a header whose first line is cut short (2 of 3 fields): both readers give columns 1..3; the
    cut line is that row's problem (a missing label, refused or skipped with skip_invalid), not the file's shape."""
    from explorer.core.data.classification import load_classification
    from explorer.core.errors import ClassificationDataError

    path = tmp_path / "cut.csv"
    path.write_text(CUT_FIRST_LINE, encoding="utf-8")
    table = read_table(path, no_header=True)
    assert table.columns == ["1", "2", "3"] and table.short_rows == [1] and table.n_rows == 7
    assert any("1 row has fewer fields than the 3 most rows have" in n and "lines 1" in n for n in table.notes)
    info, rows = iter_rows(path, no_header=True)
    rows = list(rows)
    assert info.columns == ["1", "2", "3"] and read_header(path, no_header=True).columns == ["1", "2", "3"]
    assert "line 1: 2 fields, most rows have 3" in rows[0].error
    assert [r.values["3"] for r in rows[1:]] == ["a", "b"] * 3 and not any(r.error for r in rows[1:])
    with pytest.raises(ClassificationDataError, match="line 1, column 3: missing label"):
        load_classification(str(path), no_header=True, text_columns=["2"], label_column="3")
    data = load_classification(str(path), no_header=True, text_columns=["2"], label_column="3", skip_invalid=True)
    assert len(data.texts_a) == 6


def test_a_cut_first_line_read_as_a_header_says_to_tick_no_header_row(tmp_path):
    """Read with a header, a first line with fewer fields than most lines is named as a data line cut short."""
    path = tmp_path / "cut.csv"
    path.write_text(CUT_FIRST_LINE, encoding="utf-8")
    with pytest.raises(Exception, match="line 1 looks like a data line cut short, not a header: tick No header row"):
        read_table(path)


def test_predict_keeps_every_column_of_a_headerless_file_whose_first_line_is_cut(tmp_path, capsys):
    """`predict --no-header` writes columns 1..3 (the gold labels of column 3 kept) and gives the cut line an
    error of its own."""
    import csv

    from explorer.cli import main
    from explorer.core.specs.heads import SINGLE_LABEL

    classifier = save_tiny_head_model(tmp_path / "cls", SINGLE_LABEL)
    path = tmp_path / "cut.csv"
    path.write_text(CUT_FIRST_LINE, encoding="utf-8")
    out = tmp_path / "p.csv"
    assert main(["predict", "--model", str(classifier), "--data", str(path), "--out", str(out), "--no-header",
                 "--text-columns", "2"]) == 0
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    assert [r["3"] for r in rows] == ["", "a", "b", "a", "b", "a", "b"]
    assert rows[0]["error"] and all(r["predicted_label"] and not r["error"] for r in rows[1:])
    capsys.readouterr()


def test_a_headerless_sheet_has_as_many_columns_as_most_rows_cells(tmp_path):
    """An .xlsx without a header whose first row is cut short: both readers give columns 1..3."""
    import openpyxl

    path = tmp_path / "cut.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["cut short", "nocode"])
    for i in range(4):
        sheet.append([100 + i, f"text number {i}", "ab"[i % 2]])
    book.save(path)
    table = read_table(path, no_header=True)
    assert table.columns == ["1", "2", "3"] and table.rows[0][1] == ["cut short", "nocode", ""]
    assert [values[2] for _, values in table.rows[1:]] == ["a", "b", "a", "b"]
    info, rows = iter_rows(path, no_header=True)
    assert info.columns == ["1", "2", "3"] and [r.values["3"] for r in rows][1:] == ["a", "b", "a", "b"]
