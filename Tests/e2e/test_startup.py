"""What a start costs: libcurl (and the ~30 libraries behind it) is opened only when a model is first used, so a
process without a model never maps it. glibc's loader reports every file it maps under LD_DEBUG=files."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from lspkit import server_binary, write_library

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_DEBUG is glibc's")


def mapped_files(*arguments: str) -> str:
    """The loader's report of every file the binary mapped while running `arguments`."""
    run = subprocess.run(
        [server_binary(), *arguments], env={**os.environ, "LD_DEBUG": "files"}, capture_output=True, text=True, timeout=60
    )
    assert "file=" in run.stderr, f"LD_DEBUG wrote nothing: {run.stderr[-500:]!r}"
    return run.stderr


def test_without_a_model_libcurl_is_never_loaded(tmp_path: pathlib.Path) -> None:
    library = write_library(tmp_path / "library")
    for arguments in (["--version"], ["check", "--library", str(library)], ["ask", "--library", str(library), "--no-learning", "log"]):
        report = mapped_files(*arguments)
        assert "libcurl" not in report, f"{arguments} mapped libcurl"
        assert "libFoundationNetworking" not in report, f"{arguments} mapped FoundationNetworking"


def test_the_first_model_request_opens_libcurl(tmp_path: pathlib.Path) -> None:
    library = write_library(tmp_path / "library")
    # Nothing listens on port 1: libcurl is opened, tries, and the ask falls back.
    report = mapped_files("ask", "--library", str(library), "--model-url", "http://127.0.0.1:1", "--model-role", "advisory", "--no-learning", "log")
    assert "file=libcurl.so" in report and "dynamically loaded" in report, report[-2000:]
