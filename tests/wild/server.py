"""Raw JSON-RPC stdio servers of the shapes real servers take: `python server.py SHAPE [ARG]`.

Each shape is one that broke `inspect` in the census of real servers (issue 21):
`needs-env NAME` (refuses to start without the variable NAME, as servers reading an API key
do; with it, serves one tool), `leaky-env NAME` (exits and prints the variable's value on
stderr), `malformed` (one tool's `inputSchema` has no "type", as a real server's did; the
other tools are fine), `crash COUNTFILE` (exits at start for an ordinary reason, counting its
starts in COUNTFILE), `discover-crash COUNTFILE` (crashes on `server/discover` as servers on
mcp <= 1.9.3 do, quoting the method on stderr, and answers `initialize`; counts its starts),
`discover-then-initialize-crash COUNTFILE` (crashes on both handshakes; counts its starts),
`stringly` (a hint sent as the string "yes", and an annotation key outside the spec).
"""

import json
import os
import sys

SHAPE = sys.argv[1]
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
OBJECT = {"type": "object"}
TOOLS = [{"name": "get_status", "inputSchema": OBJECT, "annotations": {"readOnlyHint": True, "openWorldHint": False}}]
if SHAPE == "malformed":
    TOOLS = [
        {"name": "search_docs", "title": "Search the docs", "inputSchema": OBJECT,
         "annotations": {"readOnlyHint": True, "openWorldHint": True}},
        {"name": "get_page", "inputSchema": {"properties": {"url": {"type": "string"}}},  # no "type"
         "annotations": {"title": "Get a page", "readOnlyHint": True, "openWorldHint": False, "category": "docs"}},
        {"name": "delete_page", "inputSchema": OBJECT},
    ]
if SHAPE == "stringly":
    TOOLS = [{"name": "list_items", "inputSchema": OBJECT,
              "annotations": {"readOnlyHint": "yes", "openWorldHint": False, "category": "x"}}]

if SHAPE in ("crash", "discover-crash", "discover-then-initialize-crash"):
    with open(ARG, "a") as count:
        count.write("started\n")
if SHAPE == "crash":
    sys.exit("Error: config file ./settings.toml not found")
if SHAPE == "needs-env" and not os.environ.get(ARG):
    sys.exit(f"Error: {ARG} environment variable is required")
if SHAPE == "leaky-env":
    sys.exit(f"Error: the key {os.environ.get(ARG)!s} was rejected")

for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    method = request["method"]
    if method == "initialize" and SHAPE == "discover-then-initialize-crash":
        sys.exit("Error: unsupported protocol version")
    if method == "server/discover" and SHAPE in ("discover-crash", "discover-then-initialize-crash"):
        sys.stderr.write(
            "pydantic_core._pydantic_core.ValidationError: 22 validation errors for ClientRequest\n"
            "PingRequest.method\n  Input should be 'ping' [type=literal_error, "
            "input_value='server/discover', input_type=str]\n"
        )
        sys.exit(1)
    if method == "initialize":
        reply = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                            "serverInfo": {"name": f"wild-{SHAPE}", "version": "0.1"}}}
    elif method == "tools/list":
        reply = {"result": {"tools": TOOLS}}
    else:
        reply = {"error": {"code": -32601, "message": "Method not found"}}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], **reply}) + "\n")
    sys.stdout.flush()
