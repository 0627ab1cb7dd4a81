"""The edges both command lines share (``python -m metrics`` and ``python -m metrics.check``): a reader that goes
away (``| head -1``), Ctrl-C and an output that cannot be written end in one line and an exit status, never a
traceback."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, TextIO, TypeVar

from .conventions import DEFAULT_TREC_EVAL, TREC_EVAL_BUILDS, Conventions, trec_eval_conventions, trec_eval_values
from .model import InputError
from .names import MAX_NUMBER_CHARS

T = TypeVar("T")

#: Exit status after Ctrl-C, as shells report a process ended by SIGINT (128 + 2).
EXIT_INTERRUPTED = 130
#: Exit status when the reader of the output went away, as for a process ended by SIGPIPE (128 + 13).
EXIT_BROKEN_PIPE = 141


def run_guarded(main: Callable[[], int], prog: str) -> NoReturn:
    """Exit with ``main()``'s status; a reader that went away stops quietly, Ctrl-C prints one line.

    A standard stream closed before the start (``>&-``, ``2>&-``) is None in Python: with no stdout there is
    nowhere to write the result, so the command does no work and exits as for a broken pipe, saying why on stderr
    if stderr is open; with no stderr, its messages are dropped and the exit status still tells."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (open for the life of the process)
    if sys.stdout is None:
        print(f"{prog}: cannot write the output: standard output is closed", file=sys.stderr)
        sys.exit(EXIT_BROKEN_PIPE)
    try:
        status = main()
        sys.stdout.flush()  # a pipe closed early shows here, not at interpreter exit
    except BrokenPipeError:
        # The reader of our output went away (e.g. `| head -1`): stop quietly, as trec_eval does. Python would
        # flush stdout again at exit and complain, so stdout now points to /dev/null.
        _silence_stdout()
        status = EXIT_BROKEN_PIPE
    except OSError as error:  # only the final flush is left unguarded by main
        _silence_stdout()
        print(f"{prog}: {cannot_write(error)}", file=sys.stderr)
        status = 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        status = EXIT_INTERRUPTED
    sys.exit(status)


class OneLineParser(argparse.ArgumentParser):
    """argparse whose usage errors raise ``InputError`` (reported in one line by :func:`one_line_errors`)."""

    def error(self, message: str) -> NoReturn:
        raise InputError(f"{message} (see --help)")


def one_line_errors(prog: str, err: TextIO, body: Callable[[], int]) -> int:
    """``body()``'s exit status; bad input or a file that cannot be read becomes one line on ``err`` and status 2.
    A reader that went away (BrokenPipeError) passes through to :func:`run_guarded`."""
    try:
        return body()
    except BrokenPipeError:
        raise
    except OutputError as error:
        message = str(error)
    except FileNotFoundError as error:
        message = f"cannot read {error.filename}: no such file"
    except OSError as error:
        message = f"cannot read {error.filename or 'input'}: {error.strerror or error}"
    except ValueError as error:  # InputError names the file and the line, or the option
        message = str(error)
    err.write(f"{prog}: {' '.join(message.split())}\n")
    return 2


def run_command(prog: str, build_parser: Callable[[], argparse.ArgumentParser],
                report: Callable[[argparse.Namespace], str], argv, out: TextIO, err: TextIO) -> int:
    """A command's main: ``--help`` prints the parser's help, otherwise ``report(args)`` is written to ``out``;
    every error is one line (see :func:`one_line_errors`)."""

    def body() -> int:
        parser = build_parser()
        given = sys.argv[1:] if argv is None else list(argv)
        if any(arg in ("-h", "--help") for arg in given):
            out.write(parser.format_help())
            return 0
        text = report(parser.parse_args(given))
        write_output(out, text)
        return 0

    return one_line_errors(prog, err, body)




#: reST markup of a docstring: :role:`name` (or `~name`), ``literal`` and `text`, each kept as its text alone.
_DOCSTRING_MARKUP = re.compile(r"(?::[a-z]+:)?(``?)~?([^`]+)\1")


def help_description(docstring: str) -> str:
    """``--help``'s description from a command module's docstring: its second paragraph as one line, without its
    reST markup (a terminal shows ``--baseline`` as typed, backticks and all)."""
    return _DOCSTRING_MARKUP.sub(r"\2", " ".join(docstring.split("\n\n")[1].split()))


def whole_number(text: str) -> int:
    """argparse ``type`` for an integer option: a bad value is echoed cut to its start, never in full
    (``--queries`` with 400 digits, or 5,000 digits that Python's ``int`` itself refuses)."""
    return _bounded_number(text, int, "a whole number")


def real_number(text: str) -> float:
    """argparse ``type`` for a number option, echoing a bad value cut to its start (see :func:`whole_number`)."""
    return _bounded_number(text, float, "a number")


def _bounded_number(text: str, convert: Callable[[str], T], kind: str) -> T:
    try:
        if len(text) > MAX_NUMBER_CHARS:
            raise ValueError
        return convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"has to be {kind} of at most {MAX_NUMBER_CHARS} characters, "
                                         f"got {_shown(text)}") from None


def _shown(text: str) -> str:
    return repr(text) if len(text) <= MAX_NUMBER_CHARS else f"{text[:20]!r}... ({len(text):,} characters)"


TREC_EVAL_HELP = (f"the trec_eval build whose output to reproduce byte for byte: {' or '.join(TREC_EVAL_BUILDS)} "
                  f"(default {DEFAULT_TREC_EVAL}, the build inside pytrec_eval, ir_measures and PyTerrier); sets "
                  + ", ".join(f"--{name.replace('_', '-')}" for name in trec_eval_values(DEFAULT_TREC_EVAL)))


def trec_eval_build_name(text: str) -> str:
    """argparse ``type`` of ``--trec-eval``: one of :data:`~metrics.conventions.TREC_EVAL_BUILDS`."""
    if text.strip() not in TREC_EVAL_BUILDS:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(TREC_EVAL_BUILDS)}, got {_shown(text)}")
    return text.strip()


def add_trec_eval_argument(parser) -> None:
    """``--trec-eval 9.0.8|10.0`` on a parser or argument group; read it back with :func:`trec_eval_preset`.
    Every command line that evaluates has it."""
    parser.add_argument("--trec-eval", "--trec_eval", dest="trec_eval", type=trec_eval_build_name,
                        metavar="{" + "|".join(TREC_EVAL_BUILDS) + "}", help=TREC_EVAL_HELP)


def trec_eval_preset(args: argparse.Namespace, base: Conventions | None = None,
                     changes: dict[str, object] | None = None) -> Conventions:
    """``base`` with the build of ``--trec-eval`` (the default build when it is absent), then ``changes`` (the
    other options); a change that contradicts a ``--trec-eval`` given raises InputError naming both options."""
    changes = dict(changes or {})
    build = getattr(args, "trec_eval", None)
    if build is None:
        return (base or Conventions()).replace(**changes)
    preset = trec_eval_values(build)
    for name, value in changes.items():
        if name in preset and value != preset[name]:
            raise InputError(f"--{name.replace('_', '-')} {value} conflicts with --trec-eval {build}, which sets "
                             f"{preset[name]}")
    return trec_eval_conventions(build, base).replace(**changes)


class OutputError(Exception):
    """The output could not be written; the message says so (not "cannot read")."""


def write_output(out: TextIO, text: str) -> None:
    """Write and flush ``text``; a full disk or a closed file becomes :class:`OutputError` (a reader that went
    away stays a BrokenPipeError, for :func:`run_guarded`)."""
    try:
        out.write(text)
        out.flush()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(cannot_write(error)) from None


def _silence_stdout() -> None:
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def run_names(paths: Sequence[str]) -> list[str]:
    """Each run's file name, as the command lines name runs given by path: made unique with its position when two
    runs share one; ``-`` is standard input."""
    names: list[str] = []
    for position, path in enumerate(paths, 1):
        name = "standard input" if path == "-" else os.path.basename(path) or path
        names.append(name if name not in names else f"{name} ({position})")
    return names


def cannot_write(error: OSError) -> str:
    """The one line for an output that cannot be written (a full disk, /dev/full, a closed file)."""
    return f"cannot write the output: {error.strerror or error}"


__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "MAX_NUMBER_CHARS", "OneLineParser", "OutputError", "TREC_EVAL_HELP",
           "add_trec_eval_argument", "cannot_write", "help_description", "one_line_errors", "real_number",
           "run_command", "run_guarded", "run_names", "trec_eval_build_name", "trec_eval_preset", "whole_number",
           "write_output"]
