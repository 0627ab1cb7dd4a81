"""Every qrels and run upload of the app goes one way (ui.common.uploads.read_upload) with one cap, stated and
enforced in one unit, MiB. The uploader lets every file up to that cap through: browsers count 10^6 bytes to the
uploader's megabyte, so a limit of 256 of them refused a 250 MiB file the caption promised to read."""

from __future__ import annotations

import gzip
import json
import tomllib

import pytest

from metrics import InputError
from metrics.io.trec import QrelsTable, RunTable, read_run
from tests.app.support import open_app, open_runs_page
from tests.support.paths import REPO
from ui.common import uploads
from ui.common.uploads import MAX_UPLOAD_BYTES, UPLOADER_MB, read_upload

MIB = 2**20


def test_the_cap_is_256_mib_and_the_uploader_lets_a_250_mib_file_through():
    assert MAX_UPLOAD_BYTES == 256 * MIB
    browser_limit = min(UPLOADER_MB * 10**6, UPLOADER_MB * MIB)  # macOS and Linux count 10^6, Windows 2^20
    assert 250 * MIB <= MAX_UPLOAD_BYTES <= browser_limit
    assert (UPLOADER_MB - 1) * 10**6 < MAX_UPLOAD_BYTES  # no looser than it must be


def test_the_server_takes_every_file_the_uploader_lets_through():
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] * MIB >= UPLOADER_MB * 10**6  # the server counts MiB


@pytest.mark.parametrize("page, keys", [
    (open_app, ["upload_qrels", "upload_run"]),
    (open_runs_page, ["runs_qrels", "runs_runs"]),
])
def test_each_page_states_the_cap_its_uploaders_enforce(page, keys):
    at = page()
    for key in keys:
        assert at.file_uploader(key=key).proto.max_upload_size_mb == UPLOADER_MB
    assert any("up to 256 MiB (after gzip; the uploader counts it as 269MB)" in caption.value for caption in at.caption)


@pytest.mark.parametrize("kind, text", [
    ("qrels", b"q 0 d 1\n"), ("run", b"q Q0 d 1 1.0 x\n"),
    ("qrels", json.dumps({"q": {"d": 1}}).encode()), ("run", json.dumps({"q": {"d": 1.0}}).encode()),
])
def test_trec_and_json_uploads_become_the_data_models_tables(kind, text):
    table = read_upload(kind, text, "upload")
    assert isinstance(table, QrelsTable if kind == "qrels" else RunTable)
    assert table.to_dict() == {"q": {"d": 1}}


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("as_json", [False, True], ids=["trec", "json"])
def test_an_upload_over_the_cap_is_refused_naming_the_cap_in_mib(monkeypatch, compress, as_json):
    monkeypatch.setattr(uploads, "MAX_UPLOAD_BYTES", MIB)  # the same path, with a cap a test can pass cheaply
    if as_json:
        text = json.dumps({"q": {f"d{n}": 1.0 for n in range(100_000)}}).encode()
    else:
        text = b"".join(b"q Q0 d%d 1 1.0 x\n" % n for n in range(100_000))
    assert len(text) > MIB
    with pytest.raises(InputError, match=r"the 1 MiB limit") as refused:
        read_upload("run", gzip.compress(text) if compress else text, "big.run")
    assert str(refused.value).startswith("big.run")
    assert " MB" not in str(refused.value)


def test_the_readers_size_limit_is_stated_in_mib():
    with pytest.raises(InputError, match=r"is 2\.0 MiB, more than the 1 MiB limit"):
        read_run(b"q Q0 d 1 1.0 x\n" * (2 * 2**20 // 15 + 1), name="r", max_bytes=2**20)


def test_a_gzip_that_expands_past_the_limit_names_the_same_limit():
    lines = b"".join(b"q Q0 d%d 1 1.0 x\n" % n for n in range(140_000))  # about 2.5 MiB, 4x compressible
    with pytest.raises(InputError, match=r"decompresses to more than the 2 MiB limit") as refused:
        read_run(gzip.compress(lines), name="r.gz", max_bytes=2 * 2**20)
    assert " MB" not in str(refused.value)
