"""Fixtures for the hostile tests: a small temp library (from the e2e helpers)."""

from __future__ import annotations

import pathlib

import pytest

from lspkit import write_library


@pytest.fixture
def library(tmp_path: pathlib.Path) -> pathlib.Path:
    """A fresh library directory holding `test.code-snippets`."""
    return write_library(tmp_path / "library")
