"""The "mailer" demo server: sends e-mail, or rather records it in an outbox, touching no network.

| tool       | profile  | readOnly | destructive | idempotent | openWorld | leg (host's knowledge) |
|------------|----------|----------|-------------|------------|-----------|------------------------|
| send_email | additive | false    | false       | false      | true      | external communication |

Honest annotations: sending adds a message (nothing is overwritten), sending twice
sends two messages, and the message goes out to the open world. Every "sent"
message is appended to the handle's `outbox` and to `outbox.jsonl` in the sandbox folder.
Run it with ``python -m course_lib serve mailer --root DIR``.

Introduced in: notebooks/04_lethal_trifecta.ipynb
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from ._demo import DemoServer
from ._sandbox import Sandbox

__all__ = ["NAME", "Mailer", "Message", "mailer_server"]

NAME = "mailer"
MAX_BODY = 10_000
OUTBOX = "outbox.jsonl"
_ADDRESS = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class Message:
    """One message the mailer would have sent."""

    to: str
    subject: str
    body: str


@dataclass(eq=False)
class Mailer(DemoServer):
    """The mailer, its sandbox (holding `outbox.jsonl`), and `outbox`: the `Message`s sent
    through this server object, in order."""

    outbox: list[Message]


def mailer_server(root: str | os.PathLike[str] | None = None) -> Mailer:
    """Build a fresh mailer whose outbox lives in the sandbox folder `root`."""
    sandbox = Sandbox(root, prefix="mailer-")
    outbox: list[Message] = []

    server = MCPServer(
        NAME,
        instructions="Sends e-mail on behalf of the operations team (demo: records messages in an "
        "outbox).",
        log_level="WARNING",
    )

    @server.tool(
        structured_output=False,  # plain text for the model; no output schema to validate
        title="Send an e-mail",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=True,
        ),
    )
    def send_email(to: str, subject: str, body: str) -> str:
        """Send an e-mail to one address. Sending the same message twice sends it twice."""
        if not _ADDRESS.match(to):
            raise ToolError(
                f"{to!r} is not an e-mail address; give one address such as 'mei@ops.example'"
            )
        if len(body) > MAX_BODY:
            raise ToolError(f"the body is {len(body)} characters long; the limit is {MAX_BODY}")
        message = Message(to=to, subject=subject, body=body)
        # checked again on every use
        sandbox.append_text(OUTBOX, json.dumps(asdict(message)) + "\n")
        outbox.append(message)
        return f"sent to {to} ({len(body)} characters)"

    return Mailer(server, sandbox, outbox)
