r"""A results table for a paper: runs by measures, each mean with superscripts naming the runs it beats
significantly, the best mean of each measure in bold, and under it the test, the correction, the conventions and
the qrels, which queries the means are over and what each run lacks (when a run lacks a judged query), and a
warning when fewer than 10 queries are compared. Markdown, LaTeX or plain text; the same data
in every format.

Runs are named by letters (a, b, c, ...) in the order given; a cell "0.412^{ac}" beats runs a and c.

The risk of each run against the baseline (:func:`risk_report`) is a table of its own, in Markdown, LaTeX or CSV,
with the columns the run page shows: an unbounded TRisk reads ``∞`` / ``-∞`` in Markdown (as on the page),
``$\infty$`` / ``$-\infty$`` in LaTeX, and ``inf`` / ``-inf`` in the CSV, which holds numbers (what ``float()``
and pandas read back).
"""

from __future__ import annotations

import re
from typing import Literal

from ..io.csv_cells import csv_text
from ..measures.display import UNBOUNDED_NOTE, statistic, table
from .many import ManyComparison

ReportFormat = Literal["markdown", "latex", "text"]
FORMATS: tuple[ReportFormat, ...] = ("markdown", "latex", "text")
RiskFormat = Literal["markdown", "latex", "csv"]
RISK_FORMATS: tuple[RiskFormat, ...] = ("markdown", "latex", "csv")
#: The risk table's columns, on the page and in every download.
RISK_COLUMNS = ("measure", "run", "wins / ties / losses", "total gain", "total loss", "worst loss", "URisk", "TRisk")


def run_letter(index: int) -> str:
    """The letter naming run ``index`` (a, b, ... z): one character each, so superscripts read unambiguously."""
    if not 0 <= index < 26:
        raise ValueError(f"a report table names at most 26 runs, got run number {index + 1}")
    return "abcdefghijklmnopqrstuvwxyz"[index]


def report_table(comparison: ManyComparison, *, fmt: ReportFormat = "markdown", qrels_name: str = "qrels",
                 digits: int = 4) -> str:
    """The table as text in ``fmt``."""
    if fmt not in FORMATS:
        raise ValueError(f"Argument `fmt` has to be one of {', '.join(FORMATS)}, got {fmt!r}")
    letters = {run: run_letter(i) for i, run in enumerate(comparison.runs)}
    best = {measure: max(comparison.mean(measure, run).mean for run in comparison.runs)
            for measure in comparison.measures}
    rows = []
    for run in comparison.runs:
        cells = []
        for measure in comparison.measures:
            mean = comparison.mean(measure, run).mean
            beaten = "".join(letters[other] for other in comparison.beaten_by(measure, run))
            cells.append((f"{mean:.{digits}f}", beaten, abs(mean - best[measure]) < 10 ** -(digits + 2)))
        rows.append((f"({letters[run]}) {run}", cells))
    if fmt == "latex":
        return _latex(comparison, rows, _notes(comparison, qrels_name, _latex_escape))
    if fmt == "markdown":
        return _markdown(comparison, rows, _notes(comparison, qrels_name, _markdown_escape))
    return _text(comparison, rows, _notes(comparison, qrels_name, _visible))


def _notes(comparison: ManyComparison, qrels_name: str, escape=lambda text: text) -> list[str]:
    """The sentences under the table; ``escape`` makes the user's names (runs, qrels) literal in the format."""
    versus = (f"each run against the baseline {escape(comparison.baseline)}" if comparison.baseline
              else "every pair of runs")
    notes = [
        f"Superscripts: the runs whose mean this run beats significantly ({comparison.describe()}; {versus}).",
        "Bold: the best mean of the measure.",
        f"Conventions: {escape(comparison.conventions.describe())}. Judgments: {escape(qrels_name)}.",
        *comparison.coverage(escape),
    ]
    if comparison.warning is not None:
        notes.append(f"Warning: {comparison.warning}")
    return notes


def _visible(text: str) -> str:
    """A run or file name on one line with nothing hidden in it, the first step of every format's escaping: each run
    of whitespace (line breaks included) becomes one space, and each character that is not printed (Unicode's
    control and format characters: ESC, NUL, DEL, the byte-order mark U+FEFF, a right-to-left override, a
    zero-width space; surrogates, private-use and unassigned code points) is written as its code point, ``U+001B``.
    A terminal, a Markdown renderer or LaTeX then gets only characters it shows."""
    return "".join(char if char.isprintable() else f"U+{ord(char):04X}" for char in " ".join(text.split()))


_MARKDOWN_PUNCTUATION = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")


def _markdown_escape(text: str) -> str:
    """A run or file name as literal Markdown (:func:`_visible`, then every ASCII punctuation character escaped, as
    CommonMark allows), so a run called [x](https://...) is no link and a | no column."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", _visible(text))


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def _latex_escape(text: str) -> str:
    """Text that LaTeX typesets as written (:func:`_visible`, then each special character replaced once, in one
    pass)."""
    return "".join(_LATEX_SPECIAL.get(char, char) for char in _visible(text))


def _markdown(comparison: ManyComparison, rows, notes: list[str]) -> str:
    escape = _markdown_escape

    header = "| run | " + " | ".join(escape(m) for m in comparison.measures) + " |"
    lines = [header, "|---|" + "---:|" * len(comparison.measures)]
    for name, cells in rows:
        shown = [(f"**{v}**" if bold else v) + (f"<sup>{beaten}</sup>" if beaten else "") for v, beaten, bold in cells]
        lines.append(f"| {escape(name)} | " + " | ".join(shown) + " |")
    return "\n".join(lines) + "\n\n" + "\n\n".join(notes) + "\n"


def _latex(comparison: ManyComparison, rows, notes: list[str]) -> str:
    escape = _latex_escape

    lines = [r"\begin{table}", r"\centering", r"\begin{tabular}{l" + "r" * len(comparison.measures) + "}",
             r"\toprule", "Run & " + " & ".join(escape(m) for m in comparison.measures) + r" \\", r"\midrule"]
    for name, cells in rows:
        shown = [(rf"\textbf{{{v}}}" if bold else v) + (rf"$^{{\mathrm{{{beaten}}}}}$" if beaten else "")
                 for v, beaten, bold in cells]
        lines.append(escape(name) + " & " + " & ".join(shown) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\caption{" + " ".join(notes) + "}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _text(comparison: ManyComparison, rows, notes: list[str]) -> str:
    shown_rows = [[_visible(name)] + [v + ("*" if bold else "") + (f"^{beaten}" if beaten else "")
                                      for v, beaten, bold in cells]
                  for name, cells in rows]
    header = ["run", *comparison.measures]
    widths = [max(len(row[i]) for row in [header, *shown_rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row))
             for row in [header, *shown_rows]]
    return "\n".join(lines) + "\n\n" + "\n".join(notes).replace("Bold:", "*:") + "\n"


def risk_rows(comparison: ManyComparison, alpha: float = 1.0) -> list[tuple]:
    """The risk table's rows (:data:`RISK_COLUMNS`), numbers as numbers; empty without a baseline."""
    return [(measure, run, f"{result.wins} / {result.ties} / {result.losses}", result.total_gain, result.total_loss,
             result.largest_loss, result.urisk, result.trisk)
            for measure, run, result in comparison.risks(alpha)]


def risk_note(comparison: ManyComparison, alpha: float, escape=lambda text: text,
              infinity=lambda text: text) -> str:
    """The sentences under the risk table: what URisk and TRisk are, and why a TRisk may be unbounded (``escape``
    makes the baseline's name literal in the format, ``infinity`` writes ``∞`` in it)."""
    return (f"Risk against the baseline {escape(comparison.baseline or '')}, alpha = {alpha:g}. URisk: the mean "
            "difference with every loss counted 1 + alpha times (TREC Web track). TRisk: URisk over its standard "
            "error; below -2 the run is significantly riskier than the baseline, above 2 significantly safer. "
            f"{infinity(UNBOUNDED_NOTE)}.")


def risk_report(comparison: ManyComparison, *, alpha: float = 1.0, fmt: RiskFormat = "markdown") -> str:
    """The risk of each run against the baseline as text in ``fmt`` (Markdown and LaTeX with :func:`risk_note`)."""
    if fmt not in RISK_FORMATS:
        raise ValueError(f"Argument `fmt` has to be one of {', '.join(RISK_FORMATS)}, got {fmt!r}")
    if comparison.baseline is None:
        raise ValueError("the risk table needs a baseline: compare with baseline=<one of the runs>")
    rows = risk_rows(comparison, alpha)
    if fmt == "csv":
        return csv_text([RISK_COLUMNS, *rows])
    shown = [(measure, run, record, *(table(value) for value in sums), statistic(trisk))
             for measure, run, record, *sums, trisk in rows]
    if fmt == "markdown":
        escape = _markdown_escape
        lines = ["| " + " | ".join(RISK_COLUMNS) + " |", "|---|---|---:|" + "---:|" * (len(RISK_COLUMNS) - 3)]
        lines += ["| " + " | ".join([escape(row[0]), escape(row[1]), *row[2:]]) + " |" for row in shown]
        return "\n".join(lines) + "\n\n" + risk_note(comparison, alpha, escape) + "\n"
    escape = _latex_escape
    lines = [r"\begin{table}", r"\centering", r"\begin{tabular}{llr" + "r" * (len(RISK_COLUMNS) - 3) + "}",
             r"\toprule", " & ".join(RISK_COLUMNS) + r" \\", r"\midrule"]
    lines += [" & ".join([escape(row[0]), escape(row[1]), *row[2:-1], _latex_statistic(row[-1])]) + r" \\"
              for row in shown]
    note = risk_note(comparison, alpha, escape,
                     lambda text: text.replace("-∞", _latex_statistic("-∞")).replace("∞", _latex_statistic("∞")))
    lines += [r"\bottomrule", r"\end{tabular}", r"\caption{" + note + "}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _latex_statistic(text: str) -> str:
    """:func:`~metrics.measures.display.statistic`'s text as LaTeX typesets it: ``∞`` is no character of its
    default fonts."""
    return {"∞": r"$\infty$", "-∞": r"$-\infty$"}.get(text, text)

