"""`snippets/ask` with a real language model behind it, over real pipes: run by `make model-test`, which starts
llama-server with SmolLM2-135M and sets SNIPPETS_MODEL_URL. The tiny model often talks nonsense; whatever it
says, every answer must stay grounded: citations among the candidates, each range covering exactly its title."""

from __future__ import annotations

import os
import pathlib

import pytest

from lspkit import REPO_ROOT, RawClient

MODEL_URL = os.environ.get("SNIPPETS_MODEL_URL")
PERSONAL = REPO_ROOT.parent / "shared" / "corpora" / "personal"

pytestmark = pytest.mark.skipif(not MODEL_URL, reason="SNIPPETS_MODEL_URL is not set (make model-test sets it)")

QUESTIONS = [
    "how do I remind a client that an invoice is overdue?",
    "what is my day rate?",
    "where do I send the VAT number?",
    "something about a free upgrade coupon",
    "what is my passport number?",
]


def utf16_slice(text: str, start: int, end: int) -> str:
    data = text.encode("utf-16-le")
    return data[start * 2 : end * 2].decode("utf-16-le")


def check_grounded(result: dict) -> None:
    assert result["status"] in ("answered", "fallback", "noMatch"), result
    candidate_ids = {c["id"] for c in result["candidates"]}
    for citation in result["citations"]:
        assert citation["id"] in candidate_ids, f"cited a snippet it did not look at: {citation!r}"
        start, end = citation["answerRange"]["start"], citation["answerRange"]["end"]
        assert utf16_slice(result["answer"], start, end) == citation["title"], result
    if result["status"] != "answered":
        assert result["reason"]["code"] and result["reason"]["message"], result


@pytest.mark.skipif(not PERSONAL.is_dir(), reason=f"{PERSONAL} not found (shared/ belongs beside the repository)")
def test_asks_with_the_model_setting_stay_grounded():
    library = PERSONAL if PERSONAL.is_dir() else REPO_ROOT / "examples" / "library"
    with RawClient("serve") as client:
        client.initialize(
            init_options={"libraries": [str(library)], "model": {"url": MODEL_URL, "name": "smollm2", "timeoutSeconds": 60}}
        )
        statuses = []
        for number, question in enumerate(QUESTIONS):
            reply = client.call("snippets/ask", {"question": question}, timeout=120)
            assert "result" in reply, reply
            check_grounded(reply["result"])
            # The model is measured in the background: never trusted before it is measured, and never held up by it.
            result = reply["result"]
            assert result["modelRole"] in ("advisory", "ignored"), result
            if number == 0:
                assert result["modelRole"] == "advisory" and result["qualification"]["basis"] == "measuring", result
            statuses.append((reply["result"]["status"], (reply["result"].get("reason") or {}).get("code")))
        # The model was really consulted: a fault would say model-unreachable for every question.
        assert not all(code == "model-unreachable" for _, code in statuses), statuses
        assert client.shutdown_and_exit() == 0


def test_serve_flags_put_the_model_behind_ask():
    library = REPO_ROOT / "examples" / "library"
    with RawClient("serve", "--library", str(library), "--model-url", MODEL_URL, "--model-timeout", "60") as client:
        client.initialize()
        reply = client.call("snippets/ask", {"question": "how do I remind a client that an invoice is overdue?"}, timeout=120)
        result = reply["result"]
        check_grounded(result)
        assert (result.get("reason") or {}).get("code") != "model-unreachable", result
        assert client.shutdown_and_exit() == 0


def test_a_timeout_too_short_for_the_model_falls_back_with_its_reason():
    library = REPO_ROOT / "examples" / "library"
    with RawClient("serve", "--library", str(library)) as client:
        client.initialize(init_options={"libraries": [str(library)], "model": {"url": MODEL_URL, "timeoutSeconds": 0.1}})
        # The first call may come from a warm cache in well under 0.1 s; a long question makes that unlikely.
        question = "how do I remind a client that an invoice is overdue? " + "please answer carefully " * 20
        result = client.call("snippets/ask", {"question": question[:1000]}, timeout=60)["result"]
        check_grounded(result)
        assert result["status"] == "fallback", result
        assert result["reason"]["code"] == "model-timeout", result
        assert client.shutdown_and_exit() == 0
