"""course_lib.connection: in-process and stdio sessions, sync helpers, and clear connection errors."""

from __future__ import annotations

import logging
import subprocess
import sys

import anyio
import pytest

from course_lib import connect, python_command
from course_lib.connection import ConnectError, call_tool_sync, list_tools_sync, run_sync
from course_lib.servers.file_ops import file_ops_server

FILE_OPS_TOOLS = ["read_file", "append_text", "set_value", "delete_file"]


def test_in_process_session_negotiates_the_2026_protocol():
    async def main():
        with anyio.fail_after(60):
            async with connect(file_ops_server()) as client:
                return client.protocol_version, [t.name for t in (await client.list_tools()).tools]

    assert anyio.run(main) == ("2026-07-28", FILE_OPS_TOOLS)


def test_legacy_mode_uses_the_pre_2026_handshake():
    async def main():
        async with connect(file_ops_server(), mode="legacy") as client:
            return client.protocol_version

    assert anyio.run(main) == "2025-11-25"


def test_stdio_session_sees_the_same_tools_and_annotations(tmp_path):
    command = python_command("-m", "course_lib", "serve", "file-ops", "--root", str(tmp_path))
    over_stdio = list_tools_sync(command, timeout=30)
    in_process = list_tools_sync(file_ops_server(tmp_path))
    assert [t.model_dump() for t in over_stdio] == [t.model_dump() for t in in_process]


def test_stdio_tool_call_acts_inside_the_given_root(tmp_path):
    command = python_command("-m", "course_lib", "serve", "file-ops", "--root", str(tmp_path))
    result = call_tool_sync(command, "append_text", {"path": "a.txt", "text": "hi"}, timeout=30)
    assert not result.is_error
    assert (tmp_path / "a.txt").read_text() == "hi"


def test_sync_helpers_work_inside_a_running_event_loop():
    # What a Jupyter cell is: code running while the kernel's asyncio loop runs. It runs in its
    # own interpreter because nest_asyncio patches asyncio for the rest of the process, as it
    # does for the lifetime of a kernel.
    script = (
        "import asyncio\n"
        "from course_lib.connection import list_tools_sync\n"
        "from course_lib.servers.file_ops import file_ops_server\n"
        "async def cell():\n"
        "    return [t.name for t in list_tools_sync(file_ops_server())]\n"
        "print(asyncio.run(cell()))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(FILE_OPS_TOOLS)


def test_run_sync_returns_the_coroutine_result():
    async def answer():
        return 42

    assert run_sync(answer) == 42


def test_missing_program_is_a_clear_connect_error():
    with pytest.raises(ConnectError, match="no such program on PATH"):
        list_tools_sync(["definitely-not-a-program-xyz"])


def test_program_that_is_not_an_mcp_server_is_a_clear_connect_error():
    logging.disable(logging.CRITICAL)  # the SDK logs the unparsable line; the error is what we check
    try:
        with pytest.raises(ConnectError, match="closed its output before completing the MCP handshake"):
            list_tools_sync([sys.executable, "-c", "print('hello')"], timeout=20)
    finally:
        logging.disable(logging.NOTSET)


def test_program_that_hangs_is_stopped_by_the_timeout():
    with pytest.raises(ConnectError, match="did not answer within 1 s"):
        list_tools_sync([sys.executable, "-c", "import time; time.sleep(60)"], timeout=1)


def test_empty_command_is_a_value_error():
    with pytest.raises(ValueError, match="command to start the server is empty"):
        list_tools_sync([])


def test_connect_error_quotes_what_the_server_wrote_on_stderr():
    logging.disable(logging.CRITICAL)
    try:
        with pytest.raises(ConnectError, match="boom: missing config file"):
            list_tools_sync([sys.executable, "-c", "import sys; sys.stderr.write('boom: missing config file\\n'); sys.exit(3)"])
    finally:
        logging.disable(logging.NOTSET)


def test_stdio_server_gets_only_the_sdk_allow_list_of_environment_variables(monkeypatch):
    monkeypatch.setenv("COURSE_TEST_SECRET", "s3cret")
    script = "import os, sys; sys.stderr.write('secret=' + os.environ.get('COURSE_TEST_SECRET', 'absent') + '\\n'); sys.exit(1)"
    logging.disable(logging.CRITICAL)
    try:
        with pytest.raises(ConnectError, match="secret=absent"):
            list_tools_sync([sys.executable, "-c", script])
        with pytest.raises(ConnectError, match="secret=given"):
            list_tools_sync([sys.executable, "-c", script], env={"COURSE_TEST_SECRET": "given"})
    finally:
        logging.disable(logging.NOTSET)
