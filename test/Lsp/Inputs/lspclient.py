"""A scripted LSP client for the lit tests of `llmsys lsp` (test/Lsp).

    run(llmsys, messages) -> (replies, exit status)

messages: dicts (sent framed as JSON-RPC) or bytes (sent as they are, for
malformed input). All are written to the server's stdin, which is then
closed; replies are the messages it wrote, in order."""

import json
import subprocess


def frame(msg):
    if isinstance(msg, bytes):
        return msg
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def parse(data):
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        length = None
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        assert length is not None, "a reply without Content-Length: %r" % head
        out.append(json.loads(rest[:length]))
        data = rest[length:]
    return out


def run(llmsys, messages, args=()):
    p = subprocess.run([llmsys, "lsp", *args], input=b"".join(map(frame, messages)),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return parse(p.stdout), p.returncode


def request(id, method, params=None):
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        m["params"] = params
    return m


def notification(method, params=None):
    m = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return m


def at(uri, line, character):
    return {"textDocument": {"uri": uri},
            "position": {"line": line, "character": character}}


def show(reply):
    """One line per reply, keys sorted."""
    print(json.dumps(reply, sort_keys=True))
