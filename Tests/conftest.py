"""Shared by every pytest test (e2e, editors, hostile): the server's state directory is a temporary one.

An ask answered `noMatch` is counted in the gap log under $XDG_STATE_HOME/snippets-lsp/; tests must never write
into the real home's state, so every server and command the tests start inherits this XDG_STATE_HOME.

Meaning search (the sentence encoder beside the built binary) is off for the servers these tests start
(SNIPPETS_ENCODER=off), so each test's answers are the word pipeline's and no test pays for embedding its corpus;
`e2e/test_meaning.py` turns it on, with a cache of its own, to check asking by meaning end to end.
"""

import os
import tempfile

import pytest


@pytest.fixture(autouse=True, scope="session")
def _meaning_off_unless_asked():
    previous = os.environ.get("SNIPPETS_ENCODER")
    os.environ["SNIPPETS_ENCODER"] = "off"
    yield
    if previous is None:
        os.environ.pop("SNIPPETS_ENCODER", None)
    else:
        os.environ["SNIPPETS_ENCODER"] = previous


@pytest.fixture(autouse=True, scope="session")
def _private_state_home():
    with tempfile.TemporaryDirectory(prefix="snippets-lsp-test-state-") as state:
        previous = os.environ.get("XDG_STATE_HOME")
        os.environ["XDG_STATE_HOME"] = state
        yield state
        if previous is None:
            os.environ.pop("XDG_STATE_HOME", None)
        else:
            os.environ["XDG_STATE_HOME"] = previous
