"""llmsys lsp reads on after input that could break a reader: a body
nested a million deep, a header whose length cannot be read (its body then
runs into the next header), a file://localhost URI (test/Lsp/recover.test)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lspclient import at, notification, request, run, show

uri = "file://localhost/nonexistent-dir/doc.llmsys"
msgs = [
    request(1, "initialize", {"capabilities": {}}),
    b"Content-Length: 1000000\r\n\r\n" + b"[" * 1000000,
    b"Content-Length: x\r\n\r\n{}",
    notification("textDocument/didOpen", {"textDocument": {
        "uri": uri, "version": 1, "text": "model m { layers = 2 }\n"}}),
    request(2, "textDocument/hover", at(uri, 0, 11)),
    request(3, "shutdown"),
    notification("exit"),
]
replies, status = run(sys.argv[1], msgs)
for r in replies:
    show(r)
print("exit", status)
