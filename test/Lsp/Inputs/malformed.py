"""Bad input to `llmsys lsp`: each gets a JSON-RPC error (or is ignored,
as the protocol says for notifications) and the server keeps serving
(test/Lsp/malformed.test)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from lspclient import at, notification, request, run, show

llmsys = sys.argv[1]
uri = "file:///nonexistent-dir/doc.llmsys"
msgs = [
    request(1, "textDocument/hover", at(uri, 0, 0)),          # before initialize
    request(2, "initialize", {"capabilities": {}}),
    b"Content-Length: 9\r\n\r\n{not json",                    # not JSON
    b"Content-Type: x\r\n\r\n",                                # no length
    b"Content-Length: lots\r\n\r\n",                           # not a number
    b"Content-Length: 99999999999\r\n\r\n",                    # too large
    request(3, "workspace/symbol", {"query": "x"}),           # not served
    {"jsonrpc": "2.0", "id": 4},                               # no method
    request(5, "textDocument/hover", {"textDocument": {"uri": uri}}),  # no position
    notification("textDocument/didOpen", {"textDocument": {"uri": uri}}),  # no text: ignored
    notification("textDocument/didOpen", {"textDocument": {
        "uri": uri, "version": 1, "text": "model m { layers = \xff }\n"}}),
    request(6, "textDocument/hover", at(uri, 0, 7)),          # nothing resolved
    notification("no/such/notification", {}),                # ignored
    request(7, "textDocument/completion", at(uri, 0, 10)),
    notification("exit"),                                      # without shutdown
]
replies, status = run(llmsys, msgs)
for r in replies:
    show(r)
print("exit", status)
