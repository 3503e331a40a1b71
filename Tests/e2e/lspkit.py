"""Shared helpers for the end-to-end tests: where the server binary is, a test library on disk, and a raw
JSON-RPC client over real pipes for protocol-level cases that pytest-lsp cannot express (requests before
`initialize`, malformed bytes, exact stdout contents, exit codes)."""

from __future__ import annotations

import json
import os
import pathlib
import select
import subprocess
import tempfile
import time
from typing import Any

#: The repository root (this file lives in Tests/e2e).
REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]

#: Every wait in these tests is bounded by this many seconds.
TIMEOUT = float(os.environ.get("SNIPPETS_TEST_TIMEOUT", "15"))


#: XDG_CACHE_HOME for every server a test starts (model measurements), never the real home's.
TEST_CACHE_HOME = tempfile.mkdtemp(prefix="snippets-lsp-e2e-cache-")


def server_binary() -> str:
    """The `snippets-lsp` under test: `SNIPPETS_LSP_BIN`, or the debug build."""
    path = pathlib.Path(os.environ.get("SNIPPETS_LSP_BIN", REPO_ROOT / ".build" / "debug" / "snippets-lsp"))
    if not path.is_absolute():
        path = REPO_ROOT / path
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: run `swift build` or set SNIPPETS_LSP_BIN")
    return str(path)


# A small library in VS Code `.code-snippets` form (global scope). Line numbers of the entry keys matter to the
# resolve test, so the file is written exactly as laid out here.
LIBRARY_FILE_NAME = "test.code-snippets"
LIBRARY_TEXT = """{
  "Invoice footer": {
    "prefix": "invfoot",
    "body": ["Payment is due within ${1:14} days.", "Quote invoice ${2:INV-0000}."],
    "description": "Footer for outgoing invoices"
  },
  "Invoice header": {
    "prefix": "invhead",
    "body": "INVOICE ${1:number}",
    "description": "Header line for an invoice"
  },
  "Signature": {
    "prefix": "sig",
    "body": "Mira Okafor",
    "description": "Short signature"
  },
  "Long signature": {
    "prefix": "sigs",
    "body": ["Mira Okafor", "Freelance designer"],
    "description": "Signature with title"
  },
  "Greeting in Russian": {
    "prefix": "privet",
    "body": "Привет, ${1:друг}! 😀 你好",
    "description": "Cyrillic, emoji and CJK in the body"
  },
  "Russian signature": {
    "prefix": "подпись",
    "body": "С уважением, ${1:Мира}",
    "description": "A Cyrillic trigger"
  },
  "Copyright year": {
    "prefix": "copyyear",
    "body": "© $CURRENT_YEAR Mira Okafor",
    "description": "Uses a snippet variable"
  }
}
"""

#: 1-based line of each entry's key in LIBRARY_TEXT, for `file:line` checks.
ENTRY_LINES = {
    line.split('"')[1]: number
    for number, line in enumerate(LIBRARY_TEXT.splitlines(), start=1)
    if line.startswith('  "') and line.rstrip().endswith("{")
}


def write_library(directory: pathlib.Path, text: str = LIBRARY_TEXT, name: str = LIBRARY_FILE_NAME) -> pathlib.Path:
    """Writes one snippet file into `directory` (created if needed) and returns the directory."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text(text, encoding="utf-8")
    return directory


def utf_length(text: str, encoding: str) -> int:
    """The length of `text` in code units of an LSP position encoding."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    if encoding == "utf-32":
        return len(text)
    raise ValueError(encoding)


def string_index(line: str, character: int, encoding: str) -> int:
    """The Python index in `line` of an LSP column counted in `encoding`; fails if it splits a character."""
    units = 0
    for index, char in enumerate(line):
        if units == character:
            return index
        units += utf_length(char, encoding)
        if units > character:
            raise AssertionError(f"column {character} ({encoding}) splits {char!r} in {line!r}")
    if units == character:
        return len(line)
    raise AssertionError(f"column {character} ({encoding}) is past the end of {line!r}")


def apply_edit(text: str, start: tuple[int, int], end: tuple[int, int], new_text: str, encoding: str) -> str:
    """`text` with the LSP range `start`..`end` (line, character in `encoding`) replaced by `new_text`."""
    lines = text.split("\n")

    def offset(position: tuple[int, int]) -> int:
        line, character = position
        return sum(len(l) + 1 for l in lines[:line]) + string_index(lines[line], character, encoding)

    return text[: offset(start)] + new_text + text[offset(end) :]


def is_load_message(params: Any) -> bool:
    """Whether a `window/logMessage`'s params announce a finished library load ("loaded N snippets from M files")."""
    message = params.get("message", "") if isinstance(params, dict) else getattr(params, "message", "")
    return message.startswith("loaded ")


# ---------------------------------------------------------------------------------------------------------------
# Raw client


def frame(payload: bytes) -> bytes:
    """One LSP base-protocol message around `payload`."""
    return b"Content-Length: %d\r\n\r\n" % len(payload) + payload


def parse_frames(data: bytes) -> tuple[list[dict[str, Any]], bytes]:
    """Splits `data` into decoded messages and the unconsumed tail. Raises AssertionError on any byte that is
    not part of a well-formed frame (headers, a Content-Length, a JSON body)."""
    messages = []
    while data:
        header_end = data.find(b"\r\n\r\n")
        if header_end < 0:
            break
        headers = data[:header_end].decode("ascii").split("\r\n")
        length = None
        for header in headers:
            name, sep, value = header.partition(":")
            assert sep, f"malformed header line {header!r} in stdout"
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        assert length is not None, f"frame without Content-Length: {headers!r}"
        body_start = header_end + 4
        if len(data) < body_start + length:
            break
        body = data[body_start : body_start + length]
        message = json.loads(body.decode("utf-8"))
        assert message.get("jsonrpc") == "2.0", f"not a JSON-RPC 2.0 message: {message!r}"
        messages.append(message)
        data = data[body_start + length :]
    return messages, data


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (peak) of process `pid`, in KiB."""
    figures = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                figures[name] = int(value.split()[0])
    return figures


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time process `pid` has used so far."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class RawClient:
    """Drives `snippets-lsp` over real pipes one message at a time and keeps every stdout byte it saw.

    With `keep_transcript=False` (benchmarks, load) it keeps only what is not parsed yet, and the last 64 KiB of
    stderr: keeping every byte grows with the run and costs a copy of the whole transcript per read."""

    def __init__(
        self, *args: str, env: dict[str, str] | None = None, cwd: str | None = None, keep_transcript: bool = True
    ):
        full_env = dict(os.environ)
        full_env.pop("SNIPPETS_LIBRARY", None)
        # A model's measurement is kept under XDG_CACHE_HOME: a test's goes to a folder of the test run's own.
        full_env["XDG_CACHE_HOME"] = TEST_CACHE_HOME
        full_env.update(env or {})
        self.process = subprocess.Popen(
            [server_binary(), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            cwd=cwd,
        )
        self.keep_transcript = keep_transcript
        self.stdout_bytes = b""
        self.stderr_bytes = b""
        self._pending = b""
        self._inbox: list[dict[str, Any]] = []
        self._next_id = 1

    # Writing

    def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_bytes(frame(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")))

    def request(self, method: str, params: Any = None) -> int:
        """Sends a request and returns its id."""
        request_id = self._next_id
        self._next_id += 1
        message: dict[str, Any] = {"id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return request_id

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()

    # Reading

    def _pump(self, deadline: float) -> bool:
        """Reads whatever stdout/stderr have until `deadline`; False when nothing more can come."""
        assert self.process.stdout is not None and self.process.stderr is not None
        streams = [s for s in (self.process.stdout, self.process.stderr) if not s.closed]
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not streams:
            return False
        ready, _, _ = select.select(streams, [], [], remaining)
        progressed = False
        for stream in ready:
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                stream.close()
                continue
            progressed = True
            if stream is self.process.stdout:
                if self.keep_transcript:
                    self.stdout_bytes += chunk
                self._pending += chunk
                messages, self._pending = parse_frames(self._pending)
                self._inbox.extend(messages)
            elif self.keep_transcript:
                self.stderr_bytes += chunk
            else:
                self.stderr_bytes = (self.stderr_bytes + chunk)[-65536:]
        return progressed or bool(ready)

    def receive(self, predicate, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The first message (in arrival order) that satisfies `predicate`; fails after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            for index, message in enumerate(self._inbox):
                if predicate(message):
                    return self._inbox.pop(index)
            if not self._pump(deadline):
                raise AssertionError(
                    f"no matching message within {timeout}s; got {self._inbox!r}; "
                    f"stderr: {self.stderr_text()[-2000:]}"
                )

    def response(self, request_id: Any, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The reply to `request_id` (a response has an id and no method)."""
        return self.receive(lambda m: "method" not in m and m.get("id") == request_id, timeout)

    def call(self, method: str, params: Any = None, timeout: float = TIMEOUT) -> dict[str, Any]:
        """Sends a request and waits for its reply."""
        return self.response(self.request(method, params), timeout)

    def drain(self, seconds: float) -> list[dict[str, Any]]:
        """Reads for `seconds` and returns (and forgets) every message that arrived."""
        deadline = time.monotonic() + seconds
        while self._pump(deadline):
            pass
        messages, self._inbox = self._inbox, []
        return messages

    def wait_exit(self, timeout: float = TIMEOUT) -> int:
        """Waits for the process to end, reading its output meanwhile, and returns the exit status."""
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._pump(min(deadline, time.monotonic() + 0.1))
        try:
            code = self.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"server did not exit within {timeout}s; stderr: {self.stderr_text()[-2000:]}")
        while self._pump(time.monotonic() + 0.5):
            pass
        return code

    def stderr_text(self) -> str:
        return self.stderr_bytes.decode("utf-8", errors="replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    # Conveniences

    def initialize(
        self, capabilities: dict | None = None, init_options: dict | None = None, wait_for_load: bool = True
    ) -> dict[str, Any]:
        """`initialize` + `initialized`, then (by default) waits for the library load; returns the result."""
        params: dict[str, Any] = {"processId": os.getpid(), "rootUri": None, "capabilities": capabilities or {}}
        if init_options is not None:
            params["initializationOptions"] = init_options
        reply = self.call("initialize", params)
        assert "result" in reply, f"initialize failed: {reply!r}"
        self.notify("initialized", {})
        if wait_for_load:
            self.wait_for_load()
        return reply["result"]

    def wait_for_load(self) -> str:
        """Waits for the server's announcement of a finished library load (the protocol never waits on a load,
        so a completion sent earlier may find an empty library) and returns its text."""
        message = self.receive(lambda m: m.get("method") == "window/logMessage" and is_load_message(m["params"]))
        return message["params"]["message"]

    def shutdown_and_exit(self) -> int:
        reply = self.call("shutdown")
        assert "error" not in reply, reply
        assert reply.get("result") is None, reply
        self.notify("exit")
        return self.wait_exit()

    def __enter__(self) -> RawClient:
        return self

    def __exit__(self, *exc) -> None:
        self.kill()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None and not stream.closed:
                stream.close()
