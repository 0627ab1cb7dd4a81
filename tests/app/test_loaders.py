"""The app's upload limits are stated and enforced in one unit, MiB: the page says "Up to 64 MiB", and a refusal
names the same 64 MiB (it once said "67.1 MB" for the same cap)."""

from __future__ import annotations

import gzip

import pytest

from metrics import InputError
from metrics.io.trec import read_run
from ui.common.loaders import MAX_UPLOAD_BYTES, load_run


def test_an_upload_over_the_explorers_limit_is_refused_in_the_unit_the_page_states():
    with pytest.raises(InputError, match=r"^big\.run is 64\.0 MiB; the explorer reads at most 64 MiB "):
        load_run(b"q Q0 d 1 1.0 x\n" + b" " * MAX_UPLOAD_BYTES, "big.run")


def test_the_readers_size_limit_is_stated_in_mib():
    with pytest.raises(InputError, match=r"is 2\.0 MiB, more than the 1 MiB limit"):
        read_run(b"q Q0 d 1 1.0 x\n" * (2 * 2**20 // 15 + 1), name="r", max_bytes=2**20)


def test_a_gzip_that_expands_past_the_limit_names_the_same_limit():
    lines = b"".join(b"q Q0 d%d 1 1.0 x\n" % n for n in range(140_000))  # about 2.5 MiB, 4x compressible
    with pytest.raises(InputError, match=r"decompresses to more than the 2 MiB limit") as refused:
        read_run(gzip.compress(lines), name="r.gz", max_bytes=2 * 2**20)
    assert " MB" not in str(refused.value)
