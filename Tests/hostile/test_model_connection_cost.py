"""What waiting on a misbehaving model costs the server: CPU per second while an ask waits on a model that stalls
or trickles, and memory while a model floods replies past the 4 MB cap. The figures are printed (run with -s).

Before the model client spoke libcurl's C API itself, FoundationNetworking's URLSession burned 0.49-0.78 s of CPU
per second of waiting (measured with this test on a loaded 2-core machine; 0.8-0.95 reported), and kept reading
(and queuing) a flood it had cancelled: the peak memory grew by 514-668 MiB here (0.3-2.2 GB reported), never
returned, or the next ask timed out behind the flood. With libcurl: 0.000-0.002 s per second, 10-14 MiB, nothing
read after the cut-off. The bounds below are far above what libcurl costs and far below what URLSession cost."""

from __future__ import annotations

import pathlib
import time

from faultymodel import FaultyModel
from hostilekit import assert_stdout_is_only_protocol, memory_kib, open_document
from hostilekit import library  # noqa: F401 (a fixture)
from lspkit import RawClient, cpu_seconds

QUESTION = "how do I write an invoice footer?"
#: Seconds of waiting measured per misbehaviour.
WAIT_SECONDS = 4.0


def start(client: RawClient, model: FaultyModel, library: pathlib.Path, timeout: float) -> None:
    client.initialize(init_options={"libraries": [str(library)], "model": {"url": model.url, "timeoutSeconds": timeout}})
    open_document(client, "inv")


def test_an_ask_waiting_on_a_stalled_or_trickling_model_costs_next_to_no_cpu(library: pathlib.Path):
    figures = {}
    with FaultyModel() as model, RawClient("serve") as client:
        start(client, model, library, timeout=WAIT_SECONDS + 3)
        for mode in ("stall", "drip"):
            model.mode = mode
            asked = len(model.headers)
            ask_id = client.request("snippets/ask", {"question": QUESTION})
            deadline = time.monotonic() + 30
            while len(model.headers) == asked and time.monotonic() < deadline:
                client.drain(0.05)
            assert len(model.headers) > asked, f"{mode}: the ask never reached the model"
            time.sleep(0.3)  # the request is in flight; measure the waiting only
            cpu_before, started = cpu_seconds(client.process.pid), time.monotonic()
            time.sleep(WAIT_SECONDS)
            cpu_after, waited = cpu_seconds(client.process.pid), time.monotonic() - started
            reply = client.response(ask_id, timeout=30)
            assert reply["result"]["status"] == "fallback", f"{mode}: {reply!r}"
            assert reply["result"]["reason"]["code"] == "model-timeout", f"{mode}: {reply['result']['reason']!r}"
            figures[mode] = (cpu_after - cpu_before) / waited
        assert client.shutdown_and_exit() == 0
        assert_stdout_is_only_protocol(client)
    for mode, rate in figures.items():
        print(f"\nwaiting on a model that does '{mode}': {rate:.3f} CPU seconds per second of waiting", end="")
    print()
    for mode, rate in figures.items():
        # URLSession: 0.8-0.95. A poll that sleeps until the socket or the clock wakes it costs a few milliseconds.
        assert rate < 0.1, f"{mode}: the server used {rate:.2f} s of CPU per second while waiting on the model"


def test_a_flood_past_the_reply_cap_is_not_read_on_after_the_ask_falls_back(library: pathlib.Path):
    """The model sends without end (2 GB declared, or chunked with no length), and goes on sending whatever the client
    does: only the client can stop reading. Each ask falls back at the cap; the server's peak memory stays near its
    size before the floods, and the bytes the model manages to send after the ask was answered stay few."""
    rounds = []
    with FaultyModel() as model, RawClient("serve") as client:
        model.floods_end_with_their_mode = False
        start(client, model, library, timeout=3.0)
        base = memory_kib(client.process.pid)
        for mode in ("gigantic-chunked", "gigantic") * 3:
            model.mode = mode
            started = time.monotonic()
            reply = client.call("snippets/ask", {"question": QUESTION}, timeout=30)
            seconds = time.monotonic() - started
            assert reply["result"]["status"] == "fallback", f"{mode}: {reply!r}"
            assert reply["result"]["reason"]["code"] == "model-schema-mismatch", f"{mode}: {reply['result']['reason']!r}"
            sent_at_answer = model.flood_bytes
            time.sleep(1.0)
            rounds.append((mode, seconds, model.flood_bytes - sent_at_answer))
        model.mode = "schema"
        time.sleep(1.0)
        peak = memory_kib(client.process.pid)
        assert client.shutdown_and_exit() == 0
        assert_stdout_is_only_protocol(client)
    for mode, seconds, after in rounds:
        print(f"\nflood {mode:16} ask {seconds:.2f}s; sent in the second after the answer: {after / 1e6:.0f} MB", end="")
    print(f"\nserver VmHWM {base['VmHWM'] / 1024:.0f} MiB before the floods, {peak['VmHWM'] / 1024:.0f} MiB after; "
          f"VmRSS {peak['VmRSS'] / 1024:.0f} MiB at the end; the floods sent {model.flood_bytes / 1e6:.0f} MB in all")
    grown = (peak["VmHWM"] - base["VmHWM"]) / 1024
    # URLSession: 300-2,200 MiB. The cap is 4 MB per reply.
    assert grown < 100, f"the server's peak memory grew by {grown:.0f} MiB under the floods"
    # A cancelled transfer is closed: the model cannot push more than the socket buffers take (a few MB).
    for mode, seconds, after in rounds:
        assert after < 50_000_000, f"{mode}: {after / 1e6:.0f} MB were still sent in the second after the answer"
