"""What the classification dev-set page decides and says, without Qt: what a run checkpoint's run fills in (dev
file, cap, columns; never over what the user typed), the table settings a request carries, the metrics line and
tables of each kind of report (classifier, regression, multi-label), and the example a clicked row opens in
Classify. explorer.ui.inspectors.classify_dev_view draws it; the numbers come from explorer.core.classify.dev_report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.core.classify.dev_report import TABLE_SETTINGS, run_data_settings
from explorer.core.runs.layout import run_dir_of
from explorer.core.specs.metric_display import format_metric, metric_label, to_display
from explorer.core.specs.tasks import find_task_facts
from explorer.ui.runs.best_rows import best_checkpoint_rows
from explorer.ui.shell.short_names import short_name

CLASSIFIER, REGRESSION, MULTILABEL = "ClassificationDevReport", "RegressionDevReport", "MultiLabelDevReport"
NO_MODEL = "Load a model in Classify, choose a dev file, press Score dev set."
EXAMPLE_HEADERS = ["#", "gold", "predicted", "P", "text"]   # short titles: the text gets the list's width
HEADER_TIPS = {"#": "the row's number in the dev file", "P": "the probability of the predicted class",
               "error": "predicted - gold: + the prediction is too high, - too low; the list is sorted by its size"}
ERROR_HEADERS = ["#", "gold", "predicted", "error", "text"]

PICKED_SETTINGS = ("text_columns", "label_column", "no_header")   # what the page's own pickers set
# the run's settings a request carries as they are: how the run read its table, and the classes its F_avg averages
RUN_TABLE_SETTINGS = tuple(k for k in TABLE_SETTINGS if k not in PICKED_SETTINGS) + ("f1_classes",)


# characters the confusion matrix's titles may take side by side (its row titles, then every column title with a
# cell's padding) and fit the page's width at 1280x800 without a sideways scroll; wider, each column's class name is
# cut to its share of these
CONFUSION_CHARS = 96
ROW_NAME_CHARS = 34     # characters: the most of a class name a cut confusion matrix's row title ("gold <class>") shows
COLUMN_MIN_CHARS = 8    # characters: the fewest of a class name a cut column title shows (many classes scroll)


@dataclass(frozen=True)
class ConfusionTitles:
    """The confusion matrix's titles: its columns and rows, each one's tooltip ("" for none), and whether they are
    cut to share the page's width (the columns then read the class name alone, "pred <class>" in the tooltip)."""

    columns: list[str]
    rows: list[str]
    column_tips: list[str]
    row_tips: list[str]
    cut: bool


def confusion_titles(names) -> ConfusionTitles:
    """The titles of a confusion matrix of ``names``: "pred <class>" and "gold <class>" where they fit the page's
    width side by side (CONFUSION_CHARS); else every column still names its class, cut to its share of that width
    (the class alone, "mostly-true"; "pred <class>" whole in the tooltip), and the rows read "gold <class>" up to
    ROW_NAME_CHARS of the name (columns numbered "pred 1" … "pred 6" made a reader look each number up). Cut names
    that would read the same are told apart by their class's number ("2 lost…_11")."""
    names = [str(n) for n in names]
    pred = [f"pred {n}" for n in names]
    gold = [f"gold {n}" for n in names]
    wide = max((len(short_name(t)) for t in gold), default=0) + sum(len(short_name(t)) + 2 for t in pred)
    if wide <= CONFUSION_CHARS:
        return ConfusionTitles(pred, gold, [""] * len(names), [""] * len(names), cut=False)
    rows = [f"gold {short_name(n, ROW_NAME_CHARS)}" for n in names]
    share = (CONFUSION_CHARS - max(len(r) for r in rows)) // len(names) - 2
    chars = max(COLUMN_MIN_CHARS, share)
    columns = [short_name(n, chars) for n in names]
    if len(set(columns)) < len(columns):
        columns = [f"{i} {short_name(n, chars)}" for i, n in enumerate(names, 1)]
    return ConfusionTitles(columns, rows, pred,
                           [t if short_name(n, ROW_NAME_CHARS) != n else "" for t, n in zip(gold, names)], cut=True)


def report_kind(rep) -> str:
    """CLASSIFIER, REGRESSION or MULTILABEL: which dev report ``rep`` is (explorer.core.classify.dev_report)."""
    return type(rep).__name__


def dev_example(kind: str, row) -> dict:
    """The dict ClassifyView.open_example takes, from a DevRow."""
    facts = find_task_facts(kind)
    if facts is not None and facts.is_regression:
        return {"kind": kind, "text_a": row.text_a, "text_b": row.text_b, "label": row.gold}
    if facts is not None and facts.is_multiple_choice:
        endings = row.text_b.split(" | ")
        return {"kind": kind, "text_a": row.text_a, "endings": endings, "label": row.label}
    return {"kind": kind, "text_a": row.text_a, "text_b": row.text_b, "label": row.label}


def f1_text(rep, kind: str) -> str:
    """The report's F1 named and scaled by the metric table (explorer.core.classify.dev_report._f1 holds the binary
    F1 of the second class for two classes, else the macro F1): 'F1 (%) 80.00 of class 1' / 'macro F1 (%) 61.20'."""
    names = list(rep.label_names or [])
    if len(names) == 2:
        return f"{format_metric('f1', rep.f1, kind)} of class {names[1]}"
    return format_metric("macro_f1", rep.f1, kind)


def model_line(loaded) -> str:
    """Before a table is shown: which model Score dev set uses (the one loaded in Classify), or how to get one."""
    if loaded is None:
        return NO_MODEL
    source = str(getattr(loaded, "source", "") or getattr(loaded, "path", "") or "")
    return (f"Uses the model loaded in Classify ({source or 'loaded'}): choose a dev file (a run's is filled in), "
            "press Score dev set.")


def page_heading(kind: str) -> tuple[str, str]:
    """The page's one-line heading and its tooltip for a model of task ``kind``: what this page shows for that
    head (a regression head has no accuracy or confusion matrix: Pearson, Spearman, MSE, predicted against gold
    and the largest errors)."""
    facts = find_task_facts(kind)
    if facts is not None and facts.is_regression:
        return ("Dev-set Pearson, Spearman and MSE, predicted against gold and the largest errors; click an "
                "example to open it in Classify.",
                "Each dot is a dev row: its gold score across, the model's prediction up; on the line = predicted "
                "exactly. The largest errors list the rows furthest from it.")
    if facts is not None and facts.is_multilabel:
        return ("Dev-set micro / macro F1, subset accuracy and a row per label; click an example to open it in "
                "Classify.", "Shares in percent, as in the curves.")
    return ("Dev-set accuracy, F1, MCC, per-class figures and confusion matrix; click an example to open it in "
            "Classify.", "A regression head: Pearson, Spearman, MSE and predicted against gold; multi-label: "
            "micro / macro F1 and a row per label. Shares in percent, as in the curves.")


def loading_line(source: str, found: bool) -> str:
    """While Classify loads ``source``: what the page filled in from its run (``found``) and that Score dev set
    waits for the model (a press did nothing while the page still asked for a model)."""
    filled = ("the run's dev rows are filled in from its config.json" if found else
              "not a run checkpoint: choose a dev file")
    return f"Loading {source} in Classify … {filled}; a press of Score dev set scores it once the model is in."


def queued_line(source: str) -> str:
    """Score dev set pressed while Classify loads ``source``: the press is kept, and scoring starts by itself."""
    return f"Score dev set: waiting for {source} to load in Classify; scoring starts once it is in …"


@dataclass
class Prefill:
    """What a run puts in the page: ``path`` (None: the field keeps its text), ``columns`` ("text" / "label" ->
    the picker's new text; "" clears it), ``no_header``, ``split`` (the run held rows out as dev: the "only those"
    box shown and ticked) and ``cap`` (None: kept). ``found``: a run was found."""

    found: bool
    path: str | None = None
    columns: dict = field(default_factory=dict)
    no_header: bool | None = None
    split: bool = False
    cap: int | None = None


class RunPrefill:
    """The dev file, cap and columns of the run whose checkpoint Classify has, put in the page where the user typed
    nothing, or where a previous run put them (another run's must not carry over). ``settings`` are the run's
    table settings (explorer.core.classify.dev_report.run_data_settings; {} without a run)."""

    def __init__(self):
        self.settings: dict = {}
        self.prefilled_for = None
        self.path_from_run = ""                    # the dev path a run put in (replaced when the model changes)
        self.columns_from_run: dict[str, str] = {}   # "text" / "label" -> the columns a run put in
        self.dev_file = None   # the run's dev file as shown and as read (core.models.checkpoint_windows.RunDevFile)

    def best_rows(self) -> tuple[int, int] | None:
        """(dev rows, dev rows in all) the run's own figure of its best checkpoint counts, read from its events now
        (not when the model loaded: a run that ended since may have scored its best on every dev row at its end);
        None without a run."""
        if not self.settings or not self.prefilled_for:
            return None
        return best_checkpoint_rows(run_dir_of(self.prefilled_for))

    def overlap_line(self, typed: str, split: bool) -> str:
        """The line under the figures when the page scores the run's own dev rows (the file field names its dev
        file) or the rows it held out (``split``: the request carries them) and the run found some of them among its
        training rows: "optimistic: 382 of 1,387 dev rows (27.5%) also occur in the training rows"
        (core.metrics.optimism.dev_overlap_mark, from the run's events); the run's training file scored whole (not
        ``split``): its figures count the rows the model was trained on, said with the way to a fair figure;
        "" for another file, no run, no overlap."""
        from explorer.core.metrics.optimism import dev_overlap_mark, figure_marks, trained_on_file
        from explorer.core.runs.reading import read_run_events

        if self.settings and not split and trained_on_file(self.settings, typed.strip()):
            fair = ("tick \"only the run's held-out dev rows\" for the rows it held out" if self.settings.get("dev_split")
                    else "score its dev file for a fair figure")
            return f"{figure_marks(on_training_rows=True)[0].text} (this is the run's training file: {fair})"
        dev = self.dev_file.shown if self.dev_file is not None else str(self.settings.get("dev") or "").strip()
        own = (split and bool(self.settings.get("dev_split"))) or (bool(dev) and typed.strip() == dev)
        if not self.settings or not own or (run_dir := run_dir_of(self.prefilled_for)) is None:
            return ""
        mark = dev_overlap_mark(read_run_events(run_dir, steps="last")[0], example=False)
        return mark.text if mark is not None else ""

    def plan(self, source: str, typed_path: str, shown: dict[str, str]) -> Prefill:
        """What to put in for the model ``source``, with ``typed_path`` in the file field and ``shown`` the
        pickers' texts ("text", "label"). The cap is the run's Dev cap when the file is the run's dev file (not
        "first 200" left from an earlier run while this run evaluated 300 rows: "pearson 0.66 (200 examples)"
        beside the Runs list's 0.648), all of the held-out rows of a run without one."""
        from explorer.core.models.checkpoint_windows import run_dev_file

        settings = run_data_settings(source)
        self.prefilled_for = source
        self.dev_file = run_dev_file(source) if settings.get("dev") else None
        if not settings:
            self.settings = {}            # another run's encoding, names, columns or dev split must not carry over
            cleared = {k: "" for k, v in shown.items() if v.strip() and v.strip() == self.columns_from_run.get(k)}
            self.columns_from_run = {}
            return Prefill(found=False, columns=cleared)
        self.settings = settings
        out = Prefill(found=True, no_header=bool(settings.get("no_header")), split=bool(settings.get("dev_split")))
        typed = typed_path.strip()
        path = typed
        dev = self.dev_file.shown if self.dev_file is not None else str(settings.get("dev") or "").strip()
        if not typed or typed == self.path_from_run:   # empty, or put there for the previous model's run
            out.path = dev or str(settings.get("train") or "")
            path = self.path_from_run = out.path.strip()
        values = {"text": ", ".join(str(c) for c in settings.get("text_columns") or []),
                  "label": str(settings.get("label_column") or "")}
        for key, value in values.items():
            now = shown.get(key, "").strip()
            # empty, or put there for the previous model's run (its columns need not be this run's): replaced
            if not now or now == self.columns_from_run.get(key):
                out.columns[key] = value
                self.columns_from_run[key] = value
        if out.split:
            out.cap = 0   # the held-out rows are a tenth of the file: all of them, as the run's curves
        elif dev and path == dev:
            out.cap = int(settings.get("dev_cap") or 0)   # the rows the run's evaluations scored
        return out

    def path_to_read(self, typed: str) -> str:
        """The dev path a request carries for the file field's text ``typed``: the run's dev file as the inspector
        reads it (a remote run's copy on its host) while the field names it as the user gave it."""
        return self.dev_file.to_read(typed) if self.dev_file is not None else typed.strip()

    def path_note(self, typed: str) -> str:
        """The file field's tooltip: which copy is read, while the field names the run's dev file; else ""."""
        return self.dev_file.note if self.dev_file is not None and typed.strip() == self.dev_file.shown else ""

    def table_settings(self, text_columns: str, label_column: str, no_header: bool, only_split: bool) -> dict:
        """The table settings sent with a request: the pickers' columns (text columns comma-separated), plus the
        run's encoding, id column, label names, the classes its F_avg averages (f1_classes) and whether it skipped
        invalid rows (skip_invalid: a file with empty texts the run skipped is read as the run read it), and its
        held-out rows when ``only_split``."""
        out = {k: self.settings[k] for k in RUN_TABLE_SETTINGS if self.settings.get(k)}
        texts = [c.strip() for c in text_columns.split(",") if c.strip()]
        if texts:
            out["text_columns"] = texts
        if label_column.strip():
            out["label_column"] = label_column.strip()
        out["no_header"] = no_header
        if self.settings.get("dev_split") and only_split:
            out["dev_split"] = self.settings["dev_split"]
        return out


def classifier_metrics(rep, kind: str) -> str:
    """The metrics line of a classifier's report: accuracy, F1 (macro F1 too for two classes, F_avg when named),
    MCC, examples."""
    extra = ""
    if getattr(rep, "per_class", None) and len(rep.label_names) == 2:
        extra += f"   {format_metric('macro_f1', rep.macro_f1, kind)}"
    if getattr(rep, "f_avg", None) is not None:
        extra += f"   {format_metric('f_avg', rep.f_avg, kind)} ({', '.join(rep.f1_classes)})"
    return (f"{format_metric('accuracy', rep.accuracy, kind)}   {f1_text(rep, kind)}{extra}   "
            f"{format_metric('matthews_corrcoef', rep.mcc, kind)}   ({rep.total} examples)")


def regression_metrics(rep, kind: str) -> str:
    """The metrics line of a regression head's report."""
    why = getattr(rep, "undefined", "")   # a correlation of constant predictions or gold: the reason
    return (f"{format_metric('pearson', rep.pearson, kind)}   {format_metric('spearman', rep.spearman, kind)}"
            f"   {format_metric('mse', rep.mse, kind)}   ({rep.total} examples; on the dashed identity "
            "line = predicted exactly)" + (f"\n{why}" if why else ""))


def multilabel_metrics(rep, kind: str) -> str:
    """The metrics line of a multi-label head's report."""
    return (f"{format_metric('micro_f1', rep.micro_f1, kind)}   {format_metric('macro_f1', rep.macro_f1, kind)}"
            f"   {format_metric('subset_accuracy', rep.subset_accuracy, kind)}   (at the checkpoint's "
            f"thresholds; {rep.total} examples)")


def per_class_table(rep, kind: str) -> tuple[list[str], list[tuple[str, list]]]:
    """(titles, [(row name, values)]): precision, recall, F1 and support of every class by name, then macro and
    weighted F1 and, when the run named classes for it, F_avg (scaled as the metric table says)."""
    per = getattr(rep, "per_class", None) or {}
    titles = [metric_label("precision", kind), metric_label("recall", kind), metric_label("f1", kind), "support"]
    rows = [(n, [to_display("precision", v["precision"], kind), to_display("recall", v["recall"], kind),
                 to_display("f1", v["f1"], kind), v["support"]]) if v.get("in_macro", True)
            else (f"{n} (no dev rows)", ["—", "—", "—", 0]) for n, v in per.items()]
    absent = sum(1 for v in per.values() if not v.get("in_macro", True))
    if per:
        rows.append((macro_row_name(len(per), absent), ["", "", to_display("macro_f1", rep.macro_f1, kind), rep.total]))
        rows.append(("weighted average", ["", "", to_display("weighted_f1", rep.weighted_f1, kind), rep.total]))
        if rep.f_avg is not None:
            rows.append((f"F_avg ({', '.join(rep.f1_classes)})", ["", "", to_display("f_avg", rep.f_avg, kind), ""]))
    return titles, rows


def macro_row_name(classes: int, absent: int) -> str:
    """The macro row's title, short enough to read whole beside the class names: "macro average", and "(4 of 5)"
    where classes without dev rows are left out of the mean (per_class_tips says which and why)."""
    return "macro average" + (f" ({classes - absent} of {classes})" if absent else "")


def per_class_tips(rep) -> dict[str, str]:
    """{row title: tooltip} of the per-class table's rows that say more than their title: the macro row, where
    classes without dev rows are left out of the mean (its title only counts them)."""
    per = getattr(rep, "per_class", None) or {}
    absent = [n for n, v in per.items() if not v.get("in_macro", True)]
    if not absent:
        return {}
    kept = len(per) - len(absent)
    return {macro_row_name(len(per), len(absent)):
            f"Macro F1: the mean F1 of the {kept} of {len(per)} classes that occur in the dev rows' gold labels or "
            f"predictions, as scikit-learn's f1_score(average=\"macro\"). Left out ({len(absent)} without dev rows): "
            + ", ".join(absent)}


def cell(v) -> str:
    """A table cell: floats with two decimals."""
    return f"{v:.2f}" if isinstance(v, float) else str(v)


def example_rows(rows, names: list[str]) -> list[tuple]:
    """The example lists' rows of a classifier's report: number, gold and predicted class by name (as the
    confusion matrix says them), confidence, the text (a pair joined by ||)."""
    def named(k: int) -> str:
        return names[k] if 0 <= k < len(names) else str(k)

    return [(row.index + 1, named(row.label), named(row.prediction), f"{row.confidence:.3f}",
             row.text_a + (f"  ||  {row.text_b}" if row.text_b else "")) for row in rows]


def error_rows(rep) -> list[tuple]:
    """The largest errors of a regression head's report: number, gold, predicted, error, text."""
    return [(row.index + 1, f"{row.gold:.3f}", f"{row.predicted:.3f}", f"{row.error:+.3f}",
             row.text_a + (f"  ||  {row.text_b}" if row.text_b else "")) for row in rep.worst]


def label_rows(rep, kind: str) -> list[tuple[str, str, str]]:
    """A multi-label head's per-label table: threshold τ, F1, support."""
    return [(f"{rep.thresholds[i]:.2f}", f"{to_display('f1', rep.label_f1[i], kind):.2f}", str(int(rep.support[i])))
            for i in range(len(rep.label_names))]


def clicked_rows(rep, mistakes: bool) -> list:
    """The rows of the list clicked (``mistakes``: the right-hand list, else the boundary list) that open in
    Classify; none for a multi-label report."""
    kind = report_kind(rep)
    if kind == MULTILABEL:
        return []
    if kind == REGRESSION:
        return rep.worst if mistakes else []
    return rep.mistakes if mistakes else rep.boundary
