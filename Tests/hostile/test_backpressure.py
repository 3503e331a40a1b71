"""A client that keeps sending and never reads its replies, over real pipes. The server must stop reading once
what it has queued (messages read but not applied, replies it cannot write) reaches its bound, so its memory stays
bounded however much the client tries to send, and it must exit once the client closes the pipes."""

from __future__ import annotations

import json
import os
import pathlib
import select
import time

from hostilekit import library  # noqa: F401 (a fixture)
from hostilekit import completion_params, memory_kib, open_document
from lspkit import RawClient, frame

#: What the flood tries to push: far more than the server may hold.
FLOOD_BYTES = 400 << 20
#: How long the flood keeps trying.
FLOOD_SECONDS = 8
#: How much the server's resident memory may grow meanwhile (the bounds are 16 chunks of 64 KiB read ahead and
#: 16 MiB of queued messages, decoded; the rest is allocator slack).
GROWTH_LIMIT_KIB = 160 * 1024


def test_a_client_that_never_reads_cannot_grow_the_server_and_closing_ends_it(library: pathlib.Path):
    with RawClient("serve", env={"MALLOC_ARENA_MAX": "1"}, keep_transcript=False) as client:
        client.initialize(init_options={"libraries": [str(library)]})
        open_document(client, "inv")
        assert "result" in client.call("textDocument/completion", completion_params(0, 3))
        baseline = memory_kib(client.process.pid)["VmRSS"]

        # Completions padded to 32 KiB each with a member the server ignores.
        padding = "x" * (32 << 10)
        stdin = client.process.stdin
        assert stdin is not None
        descriptor = stdin.fileno()
        os.set_blocking(descriptor, False)
        sent = 0
        request_id = 1000
        pending = b""
        deadline = time.monotonic() + FLOOD_SECONDS
        while sent < FLOOD_BYTES and time.monotonic() < deadline:
            if not pending:
                request_id += 1
                pending = frame(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "textDocument/completion",
                                            "params": {**completion_params(0, 3), "padding": padding}}).encode())
            _, writable, _ = select.select([], [descriptor], [], 0.2)
            if not writable:
                continue
            try:
                count = os.write(descriptor, pending)
            except BlockingIOError:
                continue
            sent += count
            pending = pending[count:]
        peak = memory_kib(client.process.pid)
        growth = peak["VmRSS"] - baseline
        print(f"flood: sent {sent >> 20} MiB in {FLOOD_SECONDS}s without reading; server VmRSS grew {growth >> 10} MiB")
        assert sent < FLOOD_BYTES, "the server kept reading everything sent: nothing held the client back"
        assert growth < GROWTH_LIMIT_KIB, f"server memory grew {growth} KiB while the client did not read"

        # The client goes away: both pipes closed. The server must notice and exit.
        os.set_blocking(descriptor, True)
        stdin.close()
        assert client.process.stdout is not None
        client.process.stdout.close()
        client.process.wait(timeout=60)
