"""Large files take the speculative parse (see trec_io._fast_parse); what they give must not depend on it."""

from __future__ import annotations

import pytest

from metrics.io import trec as trec_io
from metrics.io.trec import TrecFormatError, read_run

LINES = 300_000  # about 9 MB: above the size at which the parse starts before the check


def big_run(separator: str = " ", extra: str = "") -> bytes:
    body = "".join(f"q{i % 97}{separator}Q0{separator}d{i}{separator}{i % 1000 + 1}{separator}{(i * 7919) % 1000 / 7}"
                   f"{separator}tag\n" for i in range(LINES))
    return (body + extra).encode()


@pytest.mark.parametrize("separator", [" ", "\t"])
def test_a_large_clean_run_reads_the_same_with_and_without_the_speculative_parse(monkeypatch, separator):
    data = big_run(separator)
    assert len(data) >= trec_io._SPECULATE_ABOVE
    fast = read_run(data)
    monkeypatch.setattr(trec_io, "_SPECULATE_ABOVE", 10**12)
    careful = read_run(data)
    assert fast.to_dict() == careful.to_dict() and fast.runid == careful.runid == "tag"


def test_a_large_run_with_messy_whitespace_discards_the_speculative_parse():
    data = big_run() + b"q1  Q0   extra 1 0.5 tag\n"
    run = read_run(data)
    assert run.query("q1")["extra"] == 0.5 and len(run) == LINES + 1


def test_a_bad_line_at_the_end_of_a_large_run_is_still_named():
    with pytest.raises(TrecFormatError, match=f"line {LINES + 1}"):
        read_run(big_run() + b"q1 Q0 broken 1\n")
