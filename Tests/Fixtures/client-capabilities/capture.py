"""A stand-in language server that records what a real editor sends in `initialize`: it writes the request's params
to the file named by its first argument, answers with no capabilities and exits at `exit` or end of input. The
fixtures in this folder were captured with it (see README.md)."""

import json
import sys


def read_message(stream):
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return json.loads(stream.read(length)) if length is not None else None


def write_message(stream, message):
    body = json.dumps(message).encode()
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def main():
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while (message := read_message(stdin)) is not None:
        method = message.get("method")
        if method == "initialize":
            with open(sys.argv[1], "w", encoding="utf-8") as out:
                json.dump(message["params"], out, indent=2, sort_keys=True)
                out.write("\n")
        if "id" in message and method is not None:
            write_message(stdout, {"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {}} if method == "initialize" else None})
        if method == "exit":
            return


main()
