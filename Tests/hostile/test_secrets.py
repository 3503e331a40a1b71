"""Secrets: a configured API key never appears in logs (stderr), results, error messages, `window/logMessage` or
`window/showMessage`, whatever the model's server does (even a server that echoes the credentials back), on the
language server and on the command line. The fake server checks the key really was sent, so the tests cannot pass
because no key was read."""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

from faultymodel import FaultyModel
from hostilekit import assert_stdout_is_only_protocol
from hostilekit import library  # noqa: F401 (a fixture)
from lspkit import RawClient, server_binary

SECRET = "sk-hostile-7f3a9c1e5b2d4f6a8c0e"
#: A key pasted where the variable's *name* belongs, made only of name characters so it passes as a name.
PASTED = "sk_live_51HxQpZ2eKeyPastedAsName"
MODES = ["echo-key", "error401", "error500", "reset", "partial", "schema", "stall"]


def leaks(text: str) -> list[str]:
    found = [s for s in (SECRET, PASTED) if s in text]
    # Parts of it too (a key cut to fit a message, or without its prefix).
    found += [f"part of {s}" for s in (SECRET[3:], PASTED[8:]) if s in text]
    return found


def test_the_key_never_appears_in_anything_the_server_writes(library: pathlib.Path):
    env = {"SNIPPETS_HOSTILE_TEST_KEY": SECRET}
    with FaultyModel(secret=SECRET) as model, RawClient("serve", env=env) as client:
        settings = {"libraries": [str(library)],
                    "model": {"url": model.url, "apiKeyEnvironmentVariable": "SNIPPETS_HOSTILE_TEST_KEY", "timeoutSeconds": 1}}
        client.initialize(init_options=settings)
        reasons = {}
        for mode in MODES:
            model.mode = mode
            reply = client.call("snippets/ask", {"question": "how do I write an invoice footer?", "workDoneToken": mode})
            reasons[mode] = reply["result"].get("reason", {}).get("code")
        # The same again through a configuration change, and through the command in the problems path.
        client.notify("workspace/didChangeConfiguration", {"settings": {"snippets": {**settings, "model": {
            **settings["model"], "timeoutSeconds": "soon", "candidates": -1}}}})
        model.mode = "echo-key"
        client.call("snippets/ask", {"question": "invoice footer"})
        assert client.shutdown_and_exit() == 0
        messages = assert_stdout_is_only_protocol(client)
        stderr = client.stderr_text()
    sent = [h.get("authorization") for h in model.headers if h["request-line"].startswith("POST")]
    assert sent and all(value == f"Bearer {SECRET}" for value in sent), f"the key was not sent as configured: {sent!r}"
    assert reasons["echo-key"] == "model-server-error" and reasons["error401"] == "model-auth-refused", reasons
    assert leaks(client.stdout_bytes.decode("utf-8", "replace")) == [], "the key is in a protocol message"
    assert leaks(stderr) == [], f"the key is in the log: {stderr[-2000:]}"
    assert any(m.get("method") in ("window/logMessage", "window/showMessage") for m in messages)


def test_a_key_pasted_in_place_of_the_variable_name_is_not_repeated(library: pathlib.Path):
    with FaultyModel(secret=PASTED) as model, RawClient("serve") as client:
        model.mode = "error401"
        for name in (PASTED, SECRET):  # one made of name characters, one not
            client_settings = {"libraries": [str(library)],
                               "model": {"url": model.url, "apiKeyEnvironmentVariable": name, "timeoutSeconds": 1}}
            if name == PASTED:
                client.initialize(init_options=client_settings)
            else:
                client.notify("workspace/didChangeConfiguration", {"settings": {"snippets": client_settings}})
            result = client.call("snippets/ask", {"question": "how do I write an invoice footer?"})["result"]
            assert result["status"] == "fallback", result
        assert client.shutdown_and_exit() == 0
        assert_stdout_is_only_protocol(client)
        everything = client.stdout_bytes.decode("utf-8", "replace") + client.stderr_text()
    assert leaks(everything) == [], f"a pasted key was repeated: {leaks(everything)}"


@pytest.mark.parametrize("mode", ["echo-key", "error401"])
def test_the_ask_command_never_prints_the_key(library: pathlib.Path, mode: str):
    with FaultyModel(secret=SECRET) as model:
        model.mode = mode
        for extra in ([], ["--json"]):
            completed = subprocess.run(
                [server_binary(), "ask", "--library", str(library), "--model-url", model.url, "--model-key-env",
                 "HOSTILE_TEST_KEY", "--model-timeout", "2", *extra, "how do I write an invoice footer?"],
                capture_output=True, timeout=60, env={**os.environ, "HOSTILE_TEST_KEY": SECRET})
            output = completed.stdout.decode("utf-8", "replace") + completed.stderr.decode("utf-8", "replace")
            assert "invoice" in output.lower(), output
            assert leaks(output) == [], f"ask {' '.join(extra)} printed the key: {output[-1500:]}"
        assert model.headers and all(h.get("authorization") == f"Bearer {SECRET}" for h in model.headers
                                     if h["request-line"].startswith("POST"))


@pytest.mark.parametrize("how", ["initializationOptions", "didChangeConfiguration"])
def test_settings_cannot_choose_which_secret_is_sent_nor_where(library: pathlib.Path, how: str):
    """A repository's settings (VS Code forwards a workspace's `snippets` section) naming any variable of the
    server's environment, or moving an allowed key to their own URL: the model's server sees no key at all."""
    env = {"AWS_SECRET_ACCESS_KEY": SECRET, "GITHUB_TOKEN": SECRET, "SNIPPETS_MODEL_KEY": SECRET}
    with FaultyModel(secret=SECRET) as model, RawClient("serve", env=env) as client:
        model.mode = "error401"
        hostile = [{"url": model.url, "apiKeyEnvironmentVariable": name, "timeoutSeconds": 2}
                   for name in ("AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN")]
        if how == "initializationOptions":
            client.initialize(init_options={"libraries": [str(library)], "model": hostile[0]})
        else:
            # The user's own start-up settings send the allowed key to 127.0.0.2 only; the change moves the model.
            client.initialize(init_options={"libraries": [str(library)], "model": {
                "url": "http://127.0.0.2:9", "apiKeyEnvironmentVariable": "SNIPPETS_MODEL_KEY", "timeoutSeconds": 2}})
            hostile.append({"url": model.url, "apiKeyEnvironmentVariable": "SNIPPETS_MODEL_KEY", "timeoutSeconds": 2})
        for settings in hostile:
            client.notify("workspace/didChangeConfiguration", {"settings": {"snippets": {"model": settings}}})
            client.call("snippets/ask", {"question": "how do I write an invoice footer?"})
        assert client.shutdown_and_exit() == 0
    posts = [h for h in model.headers if h["request-line"].startswith("POST")]
    if how == "didChangeConfiguration":
        # The URL library text may go to is taken only at start: the URL a change names gets nothing at all.
        assert posts == [], "a settings change moved the model to another URL"
        return
    assert posts, "the model was never asked"
    assert all("authorization" not in h for h in posts), [h.get("authorization") for h in posts]
