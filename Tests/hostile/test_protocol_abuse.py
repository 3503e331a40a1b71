"""Protocol abuse over real pipes: wrong Content-Length values, headers without bodies, bytes that are not UTF-8,
deep nesting, 10 MB strings, ids of every JSON type, duplicate ids, responses to requests never sent and a flood
of cancellations. The server answers what can be answered, refuses the rest with the right error, keeps its
memory bounded, and writes nothing but framed protocol messages to stdout."""

from __future__ import annotations

import contextlib
import json
import pathlib
import time

import pytest

from hostilekit import library  # noqa: F401 (a fixture)
from hostilekit import (
    assert_stdout_is_only_protocol,
    completion_params,
    memory_kib,
    open_document,
)
from lspkit import RawClient, frame


def raw(obj) -> bytes:
    return frame(json.dumps({"jsonrpc": "2.0", **obj}).encode("utf-8"))


def still_answers(client: RawClient) -> None:
    """A completion sent now is answered with the library's snippets: the server survived what came before."""
    reply = client.call("textDocument/completion", completion_params(0, 3))
    assert "result" in reply, reply
    labels = [item["label"] for item in reply["result"]["items"]]
    assert "invfoot" in labels, labels


#: For tests that compare memory figures: one malloc arena, so VmRSS follows live memory rather than what each
#: thread's arena keeps cached (with the default arenas the same work moves VmRSS by +-70 MB from round to round).
ONE_ARENA = {"MALLOC_ARENA_MAX": "1"}


@contextlib.contextmanager
def serving(library: pathlib.Path, env: dict[str, str] | None = None):
    """An initialized server on the test library with a document holding `inv` open; at the end it must shut down
    cleanly and every stdout byte must have been a framed message."""
    with RawClient("serve", env=env) as client:
        client.initialize(init_options={"libraries": [str(library)]})
        open_document(client, "inv")
        yield client
        assert client.shutdown_and_exit() == 0, client.stderr_text()[-2000:]
        assert_stdout_is_only_protocol(client)


@pytest.fixture
def client(library: pathlib.Path):
    with serving(library) as client:
        yield client


@pytest.fixture
def measured_client(library: pathlib.Path):
    with serving(library, ONE_ARENA) as client:
        yield client


VALID_IDS = [7, 0, -3, 2**53, "s", "", "пример 😀", "1"]
INVALID_IDS = [None, 1.5, {"a": 1}, [1], True, False, 2**70]


def test_valid_ids_of_every_kind_are_answered_with_the_same_id(client: RawClient):
    for request_id in VALID_IDS:
        client.send_bytes(raw({"id": request_id, "method": "textDocument/completion", "params": completion_params(0, 3)}))
        reply = client.response(request_id)
        assert type(reply["id"]) is type(request_id) and "result" in reply, reply
    still_answers(client)


@pytest.mark.parametrize("request_id", INVALID_IDS, ids=lambda v: type(v).__name__ + ":" + json.dumps(v)[:20])
def test_invalid_ids_are_refused_with_32600_and_id_null(client: RawClient, request_id):
    client.send_bytes(raw({"id": request_id, "method": "textDocument/completion", "params": completion_params(0, 3)}))
    reply = client.receive(lambda m: "method" not in m)
    assert reply["id"] is None and reply["error"]["code"] == -32600, reply
    still_answers(client)


def test_an_integral_float_id_is_the_number(client: RawClient):
    client.send_bytes(raw({"id": 5.0, "method": "textDocument/completion", "params": completion_params(0, 3)}))
    assert "result" in client.response(5)


#: Ids written as JSON text: those a reply can carry exactly, with the integer it must carry.
EXACT_ID_TEXTS = {"9007199254740993": 9007199254740993, "9007199254740993.0": 9007199254740993,
                  "9223372036854775807": 2**63 - 1, "-9223372036854775808": -2**63, "1e2": 100}
#: Numbers no reply could carry unchanged (out of Int64, or not integers): refused, never answered with another id.
INEXACT_ID_TEXTS = ["-9223372036854775809", "9223372036854775808", "18446744073709551616", "1e-400",
                    "9007199254740993.5", "1" + "0" * 40]


def raw_with_id_text(id_text: str) -> bytes:
    params = json.dumps(completion_params(0, 3))
    return frame(f'{{"jsonrpc":"2.0","id":{id_text},"method":"textDocument/completion","params":{params}}}'.encode())


def test_numeric_ids_come_back_exactly_or_are_refused(client: RawClient):
    for text, expected in EXACT_ID_TEXTS.items():
        client.send_bytes(raw_with_id_text(text))
        reply = client.receive(lambda m: "method" not in m)
        # Python reads the reply's integer exactly: the id came back as the number that was sent.
        assert reply["id"] == expected and type(reply["id"]) is int and "result" in reply, (text, reply)
    for text in INEXACT_ID_TEXTS:
        client.send_bytes(raw_with_id_text(text))
        reply = client.receive(lambda m: "method" not in m)
        assert reply["id"] is None and reply["error"]["code"] == -32600, (text, reply)
    still_answers(client)


def test_duplicate_ids_each_get_one_reply(client: RawClient):
    for _ in range(3):
        client.send_bytes(raw({"id": 42, "method": "textDocument/completion", "params": completion_params(0, 3)}))
    client.send_bytes(raw({"id": "dup", "method": "snippets/ask", "params": {"question": "invoice footer"}}))
    client.send_bytes(raw({"id": "dup", "method": "snippets/ask", "params": {"question": "signature"}}))
    replies = [client.response(42) for _ in range(3)] + [client.response("dup") for _ in range(2)]
    assert all("result" in r for r in replies), replies
    extra = [m for m in client.drain(0.5) if m.get("id") in (42, "dup")]
    assert extra == [], f"more replies than requests: {extra!r}"


def test_responses_to_requests_never_sent_are_not_answered(client: RawClient):
    client.send({"id": 12345, "result": {"x": 1}})
    client.send({"id": "never", "error": {"code": -1, "message": "no"}})
    client.send({"id": None, "result": None})
    client.send({"id": 9, "result": None, "error": {"code": 1, "message": "both"}})
    still_answers(client)
    stray = [m for m in client.drain(0.5) if "method" not in m]
    assert stray == [], f"the server answered a response: {stray!r}"


def test_bytes_that_are_not_utf8_are_a_parse_error(client: RawClient):
    client.send_bytes(frame(b'{"jsonrpc":"2.0","id":99,"method":"textDocument/completion","params":"\xff\xfe\xc0"}'))
    reply = client.receive(lambda m: "method" not in m)
    assert reply == {"jsonrpc": "2.0", "id": None, "error": reply["error"]} and reply["error"]["code"] == -32700
    client.send_bytes(b"Content-Length: 2\r\nX-\xff\xfe: \xc3\r\n\r\n{}")  # a header that is not UTF-8 either
    assert client.receive(lambda m: "method" not in m)["error"]["code"] == -32600
    still_answers(client)


@pytest.mark.parametrize("depth", [200, 5_000, 1_000_000])
def test_deeply_nested_json_is_refused_without_a_crash(client: RawClient, depth: int):
    for opener, closer in ((b"[", b"]"), (b'{"a":', b"}")):
        body = b'{"jsonrpc":"2.0","id":1,"method":"textDocument/completion","params":' + opener * depth + b"1" + closer * depth + b"}"
        client.send_bytes(frame(body))
        reply = client.receive(lambda m: "method" not in m)
        assert "error" in reply, reply
        # Shallow enough to read: the params are wrong (-32602); too deep: a parse error with id null.
        assert reply["error"]["code"] in (-32602, -32700), reply
        assert client.process.poll() is None, "the server died"
    still_answers(client)


def ten_megabyte_round(client: RawClient, big: str) -> None:
    """One round of 10 MB strings: a question, a method name, an open document completed at both ends, a key."""
    client.send({"id": "ask", "method": "snippets/ask", "params": {"question": big}})
    assert client.response("ask")["error"]["code"] == -32602
    client.send({"id": "method", "method": big, "params": {}})
    refusal = client.response("method")["error"]
    assert refusal["code"] == -32601 and len(refusal["message"]) < 1000, "the 10 MB name was echoed back"
    open_document(client, big, uri="file:///tmp/snippets-hostile/big.txt")
    for character in (10_000_000, 5, 0):
        reply = client.call("textDocument/completion", completion_params(0, character, "file:///tmp/snippets-hostile/big.txt"))
        assert reply["result"]["items"] == [], reply
    client.send({"id": "key", "method": "textDocument/completion", "params": {**completion_params(0, 3), big: big}})
    assert "result" in client.response("key")
    client.notify("textDocument/didClose", {"textDocument": {"uri": "file:///tmp/snippets-hostile/big.txt"}})
    still_answers(client)


def test_ten_megabyte_strings_are_answered_or_refused_quickly_and_memory_does_not_pile_up(measured_client: RawClient):
    """The allocator may keep some of the first rounds' memory; later rounds must not add to it (a round holds
    60 MB of strings: keeping one round's would show)."""
    client = measured_client
    big = "a" * 10_000_000
    figures = [memory_kib(client.process.pid)]
    timings = []
    for _ in range(6):
        started = time.monotonic()
        ten_megabyte_round(client, big)
        timings.append(time.monotonic() - started)
        figures.append(memory_kib(client.process.pid))
    rss = [f["VmRSS"] for f in figures]
    print(f"10 MB strings, 6 rounds: {', '.join(f'{t:.2f}s' for t in timings)}; VmRSS KiB {rss}; VmHWM {figures[-1]['VmHWM']} KiB")
    assert max(timings) < 20, timings
    assert max(rss[4:]) - max(rss[1:4]) < 40_000, f"memory grows with every round: {rss}"
    assert figures[-1]["VmHWM"] < 600_000, figures


def test_a_body_shorter_than_its_header_costs_only_that_message(client: RawClient):
    body = json.dumps({"jsonrpc": "2.0", "id": 600, "method": "textDocument/completion", "params": completion_params(0, 3)}).encode()
    client.send_bytes(b"Content-Length: %d\r\n\r\n" % (len(body) - 5) + body)
    assert client.receive(lambda m: "method" not in m) == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "message is not valid JSON"}}
    still_answers(client)
    assert "malformed message header" in client.stderr_text()


def test_a_body_longer_than_sent_swallows_the_next_message_and_the_one_after_is_answered(client: RawClient):
    body = json.dumps({"jsonrpc": "2.0", "id": 601, "method": "textDocument/completion", "params": completion_params(0, 3)}).encode()
    client.send_bytes(b"Content-Length: %d\r\n\r\n" % (len(body) + 10) + body)
    lost = client.request("textDocument/completion", completion_params(0, 3))
    assert client.receive(lambda m: "method" not in m)["error"]["code"] == -32700
    still_answers(client)
    client.drain(0.2)
    print(f"request {lost} after the long body was {'lost' if 'malformed' in client.stderr_text() else 'answered'}")


@pytest.mark.parametrize("header", [b"Content-Length: -5", b"Content-Length: 99999999999999", b"Content-Length: 1e3",
                                    b"Content-Length: 99999999999999999999999999", b"Content-Type: text/plain",
                                    b"no colon here", b"Content-Length: 67108865"])
def test_unusable_headers_are_skipped_and_the_next_message_is_read(client: RawClient, header: bytes):
    body = json.dumps({"jsonrpc": "2.0", "id": 602, "method": "textDocument/completion", "params": completion_params(0, 3)}).encode()
    client.send_bytes(header + b"\r\n\r\n" + body)
    still_answers(client)
    assert "malformed message header" in client.stderr_text()
    # The body had no usable header, so it was never a message: it must not be answered.
    assert [m for m in client.drain(0.3) if m.get("id") == 602] == []


def test_headers_without_a_body_then_end_of_input(library: pathlib.Path):
    with RawClient("serve") as client:
        client.initialize(init_options={"libraries": [str(library)]})
        client.send_bytes(b"Content-Length: 500\r\n\r\n")
        client.close_stdin()
        assert client.wait_exit() == 1
        assert "input ended in the middle of a message" in client.stderr_text()
        assert_stdout_is_only_protocol(client)


def test_a_run_of_bytes_without_headers_is_dropped_not_hoarded(measured_client: RawClient):
    client = measured_client
    before = memory_kib(client.process.pid)
    junk = bytes(range(32, 127)) * 1000
    for _ in range(200):  # 19 MB without a blank line
        client.send_bytes(junk)
    still_answers(client)
    after = memory_kib(client.process.pid)
    print(f"19 MB without headers: VmRSS {before['VmRSS']} -> {after['VmRSS']} KiB, VmHWM {after['VmHWM']} KiB")
    assert after["VmRSS"] - before["VmRSS"] < 50_000, (before, after)


def test_a_flood_of_cancellations_keeps_memory_bounded_and_requests_answered(measured_client: RawClient):
    client = measured_client
    before = memory_kib(client.process.pid)
    ids = []
    batch = bytearray()
    for n in range(50_000):
        target = [n, f"c{n}", None, {"x": n}, 1.5][n % 5]
        batch += raw({"method": "$/cancelRequest", "params": {"id": target}})
        if n % 1000 == 0:
            request_id = f"live-{n}"
            ids.append(request_id)
            batch += raw({"id": request_id, "method": "textDocument/completion", "params": completion_params(0, 3)})
        if len(batch) > 1 << 20:
            client.send_bytes(bytes(batch))
            batch.clear()
    client.send_bytes(bytes(batch))
    replies = {request_id: client.response(request_id, timeout=60) for request_id in ids}
    assert all("result" in r for r in replies.values()), replies
    still_answers(client)
    after = memory_kib(client.process.pid)
    print(f"50,000 cancellations: VmRSS {before['VmRSS']} -> {after['VmRSS']} KiB, VmHWM {after['VmHWM']} KiB")
    assert after["VmRSS"] - before["VmRSS"] < 100_000, (before, after)
    assert [m for m in client.drain(0.3) if "method" not in m] == [], "cancellations were answered"


def test_a_cancellation_for_an_id_not_yet_sent_or_long_answered_cancels_nothing(client: RawClient):
    """Cancellations name requests the server has read; others are ignored, so they cannot mark a later request."""
    for request_id in ("later", 77):
        client.notify("$/cancelRequest", {"id": request_id})
    answered = client.call("textDocument/completion", completion_params(0, 3))
    client.notify("$/cancelRequest", {"id": answered["id"]})
    # The completion reply is written on its own fast path; it must count as answered there too.
    for request_id in ("later", 77, answered["id"]):
        client.send_bytes(raw({"id": request_id, "method": "textDocument/completion", "params": completion_params(0, 3)}))
        assert "result" in client.response(request_id)


def test_positions_ranges_and_params_out_of_range_are_answered_without_a_crash(client: RawClient):
    uri = "file:///tmp/snippets-hostile/odd.py"
    open_document(client, "inv\nпривет 😀\n", uri=uri)
    for line, character in [(-1, 0), (0, -1), (10**9, 0), (0, 10**9), (1, 8), (2**31, 2**31), (2**62, 2**62)]:
        reply = client.call("textDocument/completion", completion_params(line, character, uri))
        assert "result" in reply or reply["error"]["code"] == -32602, reply
    for start, end in [((-5, 0), (0, 0)), ((0, 0), (-1, -1)), ((5, 0), (1, 0)), ((0, 10**9), (10**9, 0)), ((1, 7), (1, 8))]:
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": start[0], "character": start[1]}, "end": {"line": end[0], "character": end[1]}},
             "text": "X"}]})
        assert "result" in client.call("textDocument/completion", completion_params(0, 1, uri))
    for params in [None, [], "x", {"textDocument": None}, {"textDocument": {"uri": 5}, "position": {"line": "a"}}]:
        assert client.call("textDocument/completion", params)["error"]["code"] == -32602
    for item in [None, {}, {"label": "x", "data": {"snippetID": 5}}, {"label": "x", "data": "zz"}]:
        assert client.call("completionItem/resolve", item)["error"]["code"] == -32602
    for params in [{"question": "x", "limit": 10**20}, {"question": "x", "limit": -1},
                   {"question": "x", "position": {"line": 0, "character": 0}}]:
        assert client.call("snippets/ask", params)["error"]["code"] == -32602
    assert "result" in client.call("snippets/ask", {"question": "invoice \u0000\ud7ff", "textDocument": {"uri": uri},
                                                    "position": {"line": -1, "character": 10**9}})
    still_answers(client)
