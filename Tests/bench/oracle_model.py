"""A scripted capable model on loopback: an OpenAI-compatible `/v1/chat/completions` endpoint that knows each
battery's expected answers, so that `snippets-lsp eval` and `ask` can be measured with a model that always picks
right, through the real HTTP client.

- search words: the words of the question's expected titles (none when nothing is expected);
- pick: exactly the listed candidates whose title is expected, or `noneFit` when none is listed.

A question no battery holds (the probes the server makes from the library to measure a model under `model.role`
`auto`) is answered by reading the prompt, as a careful reader would: the first candidate whose title, description
and body hold every content word of the question fits, a candidate whose text tells the reader to ignore its
instructions or to cite it is never picked, and none fits when no candidate holds them all. So the endpoint can
earn `trusted` under `auto` the way a capable model would, and is not handed the answer key of those probes.

It answers `/props` with a 8,192-token context and anything else with 404.

    python3 Tests/bench/oracle_model.py --battery B.json [--battery ...] -- CMD ARG...

starts it on a free 127.0.0.1 port, runs CMD with SNIPPETS_MODEL_URL and SNIPPETS_MODEL_NAME=oracle set, stops it
however CMD ends and exits with CMD's status. With ORACLE_LOG=FILE, each question it answered by reading is appended
to FILE as a JSON line (question, cited ids, prompt). Only the standard library.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import pathlib
import re
import subprocess
import sys
import threading

WORD = re.compile(r"[^\W\d_]{3,24}")
# Words of a question that say nothing about its topic ("which snippet is about ...", "... has X, Y and Z in it").
FRAME = {"which", "what", "snippet", "snippets", "about", "has", "have", "and", "the", "for", "with", "my", "mine",
         "its", "this", "that", "from", "into", "onto", "are", "was", "you", "your", "our", "how", "when", "where"}
# Text in a candidate that addresses the reader instead of informing it.
INSTRUCTION = re.compile(r"ignore (the|all|any|previous|prior|other|your)|your instructions|cite only|answer that",
                         re.IGNORECASE)


def stem(word: str) -> str:
    """A crude English stem, enough to tell a question's word in a candidate's text."""
    word = word.lower()
    for suffix in ("ations", "ation", "ings", "ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def candidates_in(prompt: str) -> list[tuple[str, str]]:
    """Each candidate of a pick prompt as (id, everything shown of it): title, description and body."""
    shown: list[tuple[str, str]] = []
    prompt = prompt.split("\n\nAlso set \"quote\"", 1)[0].split("\n\nWhich candidates answer", 1)[0]
    for block in re.split(r"^(?=\[\d+\] id: )", prompt, flags=re.M)[1:]:
        first, _, rest = block.partition("\n")
        shown.append((first.split("] id: ", 1)[1].strip(), unfence(rest)))
    return shown


def read_and_pick(question: str, prompt: str) -> list[str]:
    """The candidate a careful reader cites for a question it has no key for, or none."""
    wanted = {stem(word) for word in WORD.findall(question.lower()) if word not in FRAME}
    if not wanted:
        return []
    for identifier, text in candidates_in(prompt):
        if INSTRUCTION.search(text):
            continue
        if wanted <= {stem(word) for word in WORD.findall(text.lower())}:
            return [identifier]
    return []


def load_expectations(paths: list[str]) -> dict[str, list[str]]:
    expectations: dict[str, list[str]] = {}
    for path in paths:
        for probe in json.loads(pathlib.Path(path).read_text(encoding="utf-8"))["probes"]:
            expectations.setdefault(probe["question"], probe["expect"])
    return expectations


def unfence(text: str) -> str:
    """The prompt's text with its fence-breaking undone (`< < <` stands for `<<<`)."""
    return text.replace("< < <", "<<<").replace("> > >", ">>>")


def reply_for(body: dict, expectations: dict[str, list[str]]) -> dict:
    name = body.get("response_format", {}).get("json_schema", {}).get("name")
    prompt = body["messages"][-1]["content"]
    question = unfence(prompt.split("\n", 1)[0].removeprefix("Question: "))
    known = question in expectations
    expected = expectations.get(question, [])
    if name == "search_words":
        words: list[str] = []
        for title in expected:
            for word in WORD.findall(title.lower()):
                if word not in words:
                    words.append(word)
        return {"words": words[:6]}
    # pick: `[n] id: ID` then `title: TITLE` for each candidate.
    ids = re.findall(r"^\[\d+\] id: (.+)\ntitle: (.*)$", prompt, flags=re.M)
    if known:
        cited = [identifier for identifier, title in ids if unfence(title) in expected]
    else:
        cited = read_and_pick(question, prompt)
        if os.environ.get("ORACLE_LOG"):
            with open(os.environ["ORACLE_LOG"], "a", encoding="utf-8") as log:
                log.write(json.dumps({"question": question, "cited": cited, "prompt": prompt}) + "\n")
    if not cited:
        return {"status": "noneFit", "cited": [], "note": ""}
    return {"status": "answered", "cited": cited, "note": "eachCoversPart" if len(cited) > 1 else ""}


def serve(expectations: dict[str, list[str]]) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:  # quiet
            pass

        def send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/props":
                self.send(200, {"default_generation_settings": {"n_ctx": 8192}})
            else:
                self.send(404, {"error": "not found"})

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self.send(404, {"error": "not found"})
                return
            content = json.dumps(reply_for(body, expectations))
            self.send(200, {"object": "chat.completion", "model": "oracle",
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}]})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--battery", action="append", required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    server = serve(load_expectations(args.battery))
    env = dict(os.environ, SNIPPETS_MODEL_URL=f"http://127.0.0.1:{server.server_address[1]}", SNIPPETS_MODEL_NAME="oracle")
    try:
        return subprocess.run(command, env=env).returncode
    finally:
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
