"""The launcher's data check of a table's first rows: a first line that is data ticks No header row by itself
(once per training file, never over a person's choice, said in the banner), and a column named like an id is
guessed only when its values identify the rows (rounded, repeated ids are said, and rows go by line)."""

from helpers import STANCE_ROWS, STSB_ROWS, write_file

from explorer.core.data.header_row import FIRST_LINE_NUMBERS, first_line_is_data
from explorer.core.data.row_ids import id_column_note
from explorer.core.specs.train_config import TrainConfig
from explorer.ui.launch.form_model import LaunchForm

# a spreadsheet's export of tweet ids: 18 digits written as 5.70306E+17, so rows share an "id"
TWEETS = ("tweet_id,airline_sentiment,text\n"
          "5.70306E+17,neutral,What he said about the flight.\n"
          "5.70301E+17,positive,plus you added commercials to the experience\n"
          "5.70301E+17,neutral,I did not today must mean I need to take another trip\n"
          "5.70301E+17,negative,it is really aggressive to blast obnoxious entertainment\n"
          "5.70295E+17,negative,and it is a really big bad thing about it\n")
UNIQUE = "tweet_id,airline_sentiment,text\n1,neutral,one two three\n2,positive,four five six\n3,negative,seven eight\n"


def test_a_first_line_of_numbers_in_columns_of_numbers_is_data_and_a_header_is_not(tmp_path):
    assert first_line_is_data(write_file(tmp_path / "stsb" / "train.csv", STSB_ROWS)) == FIRST_LINE_NUMBERS
    assert first_line_is_data(write_file(tmp_path / "stance.txt", STANCE_ROWS)) == ""   # names over numbers
    # a header that names a column by a number, over texts, is still a header
    assert first_line_is_data(write_file(tmp_path / "h.csv", "2015,label\nsome text here,a\nmore text,b\n")) == ""
    assert first_line_is_data(tmp_path / "missing.csv") == ""


def test_an_id_column_whose_values_repeat_is_not_guessed_and_the_preview_says_why(tmp_path):
    from explorer.ui.launch.data_preview import preview_data

    assert id_column_note("id", ["1", "2", "", ""]) == ""               # empty cells are not ids
    assert id_column_note("tweet_id", ["5.70306E+17", "5.70301E+17", "5.70301E+17"]) == (
        "tweet_id is not unique: 1 value repeats (rounded numbers?); rows are identified by line")
    res = preview_data(str(write_file(tmp_path / "Tweets.csv", TWEETS)), "single",
                       label_column="airline_sentiment")
    said = "tweet_id is not unique: 2 values repeat (rounded numbers?); rows are identified by line"
    assert res["ok"] and res["guess"]["id_column"] == "" and said in res["notes"]
    # an Id column the user chose is theirs: the run's own check names its repeats
    chosen = preview_data(str(tmp_path / "Tweets.csv"), "single", label_column="airline_sentiment",
                          options={"id_column": "tweet_id"})
    assert said not in chosen["notes"] and any("repeated ids" in p for p in chosen["problems"])
    unique = preview_data(str(write_file(tmp_path / "u.csv", UNIQUE)), "single", label_column="airline_sentiment")
    assert unique["guess"]["id_column"] == "tweet_id" and not any("not unique" in n for n in unique["notes"])


def _form(tmp_path, **fields) -> LaunchForm:
    form = LaunchForm(tmp_path / "runs")
    form.load(TrainConfig(output_dir=str(tmp_path / "runs"), **fields))
    return form


def test_no_header_row_is_ticked_once_per_file_and_never_over_the_users_choice(tmp_path):
    stsb = str(write_file(tmp_path / "stsb" / "train.csv", STSB_ROWS))
    form = _form(tmp_path, task="regression")
    form.edit("train", stsb)
    assert form.offer_no_header(FIRST_LINE_NUMBERS) and form.get("no_header")
    assert "No header row ticked: the first line holds numbers" in form.note
    assert form.config().no_header
    form.edit("no_header", False)                      # the user unticks it: it stays unticked
    assert not form.offer_no_header(FIRST_LINE_NUMBERS) and not form.get("no_header")
    other = str(write_file(tmp_path / "other" / "train.csv", STSB_ROWS))
    form.edit("train", other)                          # a new file is checked afresh
    assert form.offer_no_header(FIRST_LINE_NUMBERS) and form.get("no_header")
    assert not form.offer_no_header("")                # nothing said: nothing ticked
    loaded = _form(tmp_path, task="regression", train=stsb)   # a loaded config's setting stands
    assert not loaded.offer_no_header(FIRST_LINE_NUMBERS) and not loaded.get("no_header")


def test_the_launcher_reads_stsb_after_ticking_no_header_row_itself(qtbot, tmp_path):
    """STS-B typed in: the data check sees a first line of numbers, No header row is ticked, the file is read
    again without a header and its columns are guessed; no refusal is left on the screen."""
    from explorer.ui.launch.data_preview import preview_data
    from explorer.ui.launch.launcher import LauncherPanel

    stsb = str(write_file(tmp_path / "stsb" / "train.csv", STSB_ROWS))
    w = LauncherPanel(tmp_path / "runs")
    qtbot.addWidget(w)
    w.set_config(TrainConfig(task="regression"))
    w.editors["train"].set(stsb)

    def answer():   # the data check for the form as it is (run here rather than in its child)
        cfg = w.config()
        w.train_preview._token += 1
        w.train_preview._done(w.train_preview._token, preview_data(
            stsb, "regression", text_columns=cfg.text_columns, label_column=cfg.label_column,
            options=w.form.preview_options(cfg)))

    answer()
    assert w.editors["no_header"].get() and "--no-header" in w.command.toPlainText()
    assert "No header row ticked: the first line holds numbers" in w.banner.whole_text()
    answer()                                           # read again as the run will read it: columns guessed
    assert w.editors["text_columns"].get() == ["6", "7"] and w.config().label_column == "5"
    label = w.editors["label_column"].widget   # the label guessed from the values shows as a guess, not a choice
    assert w.editors["label_column"].get() == "" and label.lineEdit().placeholderText() == "guessed: 5"
    answer()
    assert w.train_preview.result["ok"] and not w.problem.text().startswith("Cannot launch")
    w.editors["no_header"].set(False)                  # unticked by the user: stays so
    answer()
    assert not w.editors["no_header"].get()


def test_a_headerless_file_whose_first_line_is_cut_shows_the_columns_most_rows_have(qtbot, tmp_path):
    """No header row ticked on a file whose line 1 is one field and every other line three: the preview table has
    the 3 columns the reader gives the file (core.data.table.file_width), the cut line's missing cells empty."""
    from explorer.ui.launch.data_preview import preview_data
    from explorer.ui.launch.preview import DataPreview

    rows = "".join(f"{i},some text number {i} here,{'pos' if i % 2 else 'neg'}\n" for i in range(40))
    path = str(write_file(tmp_path / "cut.csv", '"a short first line"\n' + rows))
    res = preview_data(path, "single", options={"no_header": True, "skip_invalid": True})
    assert res["columns"] == ["1", "2", "3"]
    preview = DataPreview("train")
    qtbot.addWidget(preview)
    preview._done(preview._token, res)
    table = preview.table
    titles = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert titles == ["1", "2", "3"]
    assert table.item(0, 0).text() == "a short first line"
    assert table.item(0, 1).text() == "" and table.item(0, 2).text() == ""
    assert table.item(1, 1).text() == "some text number 0 here"
