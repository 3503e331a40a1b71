"""No word of a model or its server reaches the user: a refusal in prose ("I cannot..."), a `message.refusal` field,
an HTTP error's `error.message` or text body, a context complaint, each carrying a link, a "SYSTEM:" line and a
right-to-left override, gives an ask whose reason is the server's own sentence (with the HTTP status where there is
one); what was dropped is logged to stderr as a fixed description, never the words."""

from __future__ import annotations

import json
import pathlib

import pytest

from faultymodel import FaultyModel
from hostilekit import assert_stdout_is_only_protocol, open_document
from hostilekit import library  # noqa: F401 (a fixture)
from lspkit import RawClient

#: Each misbehaviour: the reason code, and what the reason's sentence must say of its own.
CASES = {
    "refusal-prose": ("model-refused", None),
    "refusal-field": ("model-refused", None),
    "error500-words": ("model-server-error", "status 500"),
    "error503-text": ("model-server-error", "status 503"),
    "context-words": ("context-too-long", None),
}
#: Pieces of the hostile words; none may appear anywhere in a reply or in stderr.
PIECES = ["cannot help", "SYSTEM", "evil.example", "https://", "\u202e", "earlier instruction", "txt.exe"]


@pytest.mark.parametrize("mode", CASES)
def test_the_words_of_a_model_or_its_server_never_reach_the_reply(library: pathlib.Path, mode: str):
    code, said = CASES[mode]
    with FaultyModel() as model, RawClient("serve") as client:
        model.mode = mode
        client.initialize(init_options={"libraries": [str(library)], "model": {"url": model.url, "timeoutSeconds": 10}})
        open_document(client, "inv")
        reply = client.call("snippets/ask", {"question": "how do I write an invoice footer?"}, timeout=30)
        assert model.headers, "the ask never reached the model"
        assert client.shutdown_and_exit() == 0
        messages = assert_stdout_is_only_protocol(client)
        stderr = client.stderr_text()
    result = reply["result"]
    assert result["status"] == "fallback", result
    assert result["reason"]["code"] == code, result["reason"]
    message = result["reason"]["message"]
    print(f"\n{mode}: {message}")
    if said:
        assert said in message, message
    everything = json.dumps(messages, ensure_ascii=False)
    for piece in PIECES:
        assert piece not in everything, f"{mode}: {piece!r} reached the client: {message!r}"
        assert piece not in stderr, f"{mode}: {piece!r} was logged: {stderr[-500:]!r}"
    # What was dropped is still known to whoever reads the log.
    assert "its words are not shown" in stderr, stderr[-500:]
