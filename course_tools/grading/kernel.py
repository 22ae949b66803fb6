"""The grading kernel under the sandbox: start it, run one cell with a time limit, clean up.

Introduced in: docs/instructor.md
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import subprocess
import tempfile
from dataclasses import replace
from typing import Any

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError

from course_lib.safe_text import printable

from .leftovers import PREFIX, new_private_folder, owner_tag
from .results import Limits
from .sandbox import Isolation, kernel_command, kernel_env

__all__ = ["KERNEL_LOG", "GradingClient", "Kernel", "responsive", "run_cell"]

_TIMEOUT_ENAME = "CourseGraderTimeout"

# nbclient and jupyter_client log lines ("Timeout waiting for execute reply ... Interrupting
# kernel", "Kernel died") would land in the instructor's terminal between the progress lines.
# What they report is already in the results' notes, so they go to a logger of their own that
# prints nothing by default (attach a handler to "course_tools.grading.kernel" to see them).
KERNEL_LOG = logging.getLogger("course_tools.grading.kernel")
KERNEL_LOG.addHandler(logging.NullHandler())
KERNEL_LOG.propagate = False


class GradingClient(NotebookClient):
    """A NotebookClient that keeps only what grading needs, within a size limit."""

    def __init__(self, nb: Any, probe_cells: set[int], max_chars: int, **kwargs: Any) -> None:
        super().__init__(nb, **kwargs)
        self._probe_cells = probe_cells
        self._max_chars = max_chars
        self._chars: dict[int, int] = {}
        self.truncated = False
        self.last_reply_ename = ""
        self.asked_exit = False
        self.on_cell_executed = self._note_reply

    def _note_reply(
        self, cell: Any = None, cell_index: int = 0, execute_reply: Any = None, **_: Any
    ) -> None:
        content = (execute_reply or {}).get("content", {})
        self.last_reply_ename = (
            str(content.get("ename", "")) if content.get("status") == "error" else ""
        )
        payloads = content.get("payload") or []
        # exit() and quit() end the kernel shortly after their cell's reply.
        self.asked_exit = any(
            isinstance(p, dict) and p.get("source") == "ask_exit" for p in payloads
        )

    def output(
        self, outs: list[Any], msg: dict[str, Any], display_id: str | None, cell_index: int
    ) -> Any:
        msg_type = msg["msg_type"]
        content = msg["content"]
        if msg_type == "error":
            content["traceback"] = []
            content["evalue"] = str(content.get("evalue", ""))[:300]
            return super().output(outs, msg, display_id, cell_index)
        if (
            cell_index not in self._probe_cells
            or msg_type != "stream"
            or content.get("name") != "stdout"
        ):
            return None  # the learner's own output plays no part in grading
        used = self._chars.get(cell_index, 0)
        text = str(content.get("text", ""))
        if used + len(text) > self._max_chars:
            self.truncated = True
            return None
        self._chars[cell_index] = used + len(text)
        return super().output(outs, msg, display_id, cell_index)


class _OneSpec(KernelSpecManager):
    """A kernel spec manager that knows one spec: the grading kernel's command."""

    def __init__(self, spec: KernelSpec) -> None:
        super().__init__()
        self.one_spec = spec

    def get_kernel_spec(self, kernel_name: str, *args: Any, **kwargs: Any) -> KernelSpec:
        return self.one_spec


class Kernel:
    """A kernel with its own private folder and a client; always cleaned up by `close`.

    Everything the kernel leaves on this machine (its connection file, its stderr, the link to
    its sockets, and without isolation its sockets, working folder, HOME and TMPDIR) is in
    `self.private`, which `close` deletes with the kernel's cgroup.
    """

    def __init__(self, isolation: Isolation, limits: Limits | None = None) -> None:
        self.isolation = isolation
        # CPU time: the sandbox's default, or more when the instructor allows a longer notebook.
        budget = int(3 * (limits or Limits()).notebook_timeout)
        resources = replace(isolation.limits, cpu_seconds=max(isolation.limits.cpu_seconds, budget))
        self.limits = resources
        self.private = new_private_folder()
        # All the kernel's processes together, in a cgroup of its own where there is one.
        name = f"{PREFIX}{owner_tag()}-{os.path.basename(self.private)[len(PREFIX) :]}"
        try:
            self.group = (
                isolation.group.create(name, resources.memory_bytes, resources.processes)
                if isolation.group is not None
                else None
            )
        except OSError:
            shutil.rmtree(self.private, ignore_errors=True)
            raise
        self.workdir = os.path.join(self.private, "work")
        os.mkdir(self.workdir)
        # The kernel's stderr: a file with no name, read back only through this handle, so
        # nothing the kernel plants (a symlink, a FIFO) is ever opened by the grader.
        self.stderr = tempfile.TemporaryFile(dir=self.private)
        # The kernel's sockets go in ipc/. Under bubblewrap that is a size-limited tmpfs of the
        # sandbox, reached from here through a link into the sandbox's root made once it runs
        # (`start`), so nothing the kernel writes lands on this machine's disk; bubblewrap tells
        # the sandbox's process id through a pipe. The connection file is bound read-only.
        self.ipcdir = os.path.join(self.private, "ipc")
        self._info = os.pipe() if isolation.isolated else (-1, -1)
        if not isolation.isolated:
            os.mkdir(self.ipcdir)
        connection_file = os.path.join(self.private, "kernel.json")
        argv = kernel_command(isolation, self.ipcdir, resources, connection_file, self._info[1])
        spec = KernelSpec(
            argv=self.group.wrap(argv) if self.group else argv,
            display_name="course grading",
            language="python",
            # Under bubblewrap the kernel is in its own session: a signal to the sandbox's process
            # group would not reach it, so interrupts go over the control channel.
            interrupt_mode="message" if isolation.isolated else "signal",
        )
        self.km = AsyncKernelManager(
            kernel_name="course-grading",
            kernel_spec_manager=_OneSpec(spec),
            transport="ipc",
            ip=os.path.join(self.ipcdir, "k"),
            connection_file=connection_file,
            log=KERNEL_LOG,
        )
        self.client: GradingClient | None = None
        self.sandbox_pid = 0  # under bubblewrap: the sandbox's first process, once started
        self.closed = False

    async def start(self, nb: Any, probe_cells: set[int], limits: Limits) -> GradingClient:
        await self.km.start_kernel(
            cwd=self.private if self.isolation.isolated else self.workdir,
            env=kernel_env(self.isolation, self.private),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.stderr,
            extra_arguments=[
                "--HistoryManager.hist_file=:memory:",
                "--InteractiveShell.colors=nocolor",
            ],
            pass_fds=[fd for fd in self._info[1:] if fd >= 0],
        )
        if self.isolation.isolated:
            os.close(self._info[1])
            self._info = (self._info[0], -1)
            self.sandbox_pid = _child_pid(await _read_to_end(self._info[0], timeout=30))
            os.symlink(f"/proc/{self.sandbox_pid}/root{self.ipcdir}", self.ipcdir)
        self.client = GradingClient(
            nb,
            probe_cells,
            limits.max_output_chars,
            km=self.km,
            timeout=int(limits.cell_timeout),
            startup_timeout=60,
            allow_errors=True,
            interrupt_on_timeout=True,
            error_on_timeout={
                "ename": _TIMEOUT_ENAME,
                "evalue": "time limit reached",
                "traceback": [],
            },
            record_timing=False,
            iopub_timeout=2,
            raise_on_iopub_timeout=False,
            resources={"metadata": {"path": self.workdir}},
            log=KERNEL_LOG,
        )
        await self.client.async_start_new_kernel_client()
        return self.client

    def stderr_tail(self, chars: int = 300) -> str:
        """The end of what the kernel wrote to stderr, made safe to print (for the instructor).

        Read through the grader's own handle (never by path), at most 4 * `chars` bytes.
        """
        try:
            fd = self.stderr.fileno()
            size = os.fstat(fd).st_size
            start = max(0, size - 4 * chars)
            text = os.pread(fd, size - start, start).decode("utf-8", "replace").strip()
        except (OSError, ValueError):  # ValueError: the handle is closed
            return ""
        return printable(text[-chars:])

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if self.client is not None and self.client.kc is not None:
                self.client.kc.stop_channels()
            if self.km.has_kernel:
                await self.km.shutdown_kernel(now=True)
        except Exception:  # noqa: BLE001 - cleanup of a dead or stuck kernel must not fail grading
            pass
        finally:
            for fd in self._info:
                if fd >= 0:
                    os.close(fd)
            self._info = (-1, -1)
            if os.path.islink(self.ipcdir):  # before jupyter_client removes its socket files
                os.unlink(self.ipcdir)
            try:
                await self.km.cleanup_resources()
            except Exception:  # noqa: BLE001
                pass
            self.stderr.close()
            shutil.rmtree(self.private, ignore_errors=True)
            await self._remove_group()

    def out_of_memory(self) -> bool:
        """Whether the kernel's memory bound stopped one of its processes."""
        return self.group is not None and self.group.out_of_memory()

    async def _remove_group(self) -> None:
        if self.group is None:
            return
        for _ in range(100):  # processes take a moment to leave a group once killed
            self.group.kill()
            if self.group.remove():
                return
            await asyncio.sleep(0.05)
        KERNEL_LOG.warning("cgroup %s still has processes", self.group.folders)


async def _read_to_end(fd: int, timeout: float) -> bytes:
    """Everything written to pipe `fd` until its writer closes it, within `timeout` seconds."""
    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)
    chunks: list[bytes] = []
    ended: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        chunks.append(data)
        if not data and not ended.done():
            ended.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await asyncio.wait_for(ended, timeout)
    finally:
        loop.remove_reader(fd)
    return b"".join(chunks)


def _child_pid(info: bytes) -> int:
    """The sandbox's process id from bubblewrap's --info-fd JSON.

    Raises:
        RuntimeError: bubblewrap wrote none (it failed before starting the sandbox).
    """
    try:
        pid = json.loads(info.decode("utf-8"))["child-pid"]
    except (ValueError, KeyError, TypeError):
        raise RuntimeError("bubblewrap did not start the sandbox") from None
    if not isinstance(pid, int) or pid <= 0:
        raise RuntimeError("bubblewrap did not start the sandbox")
    return pid


async def run_cell(client: GradingClient, nb: Any, index: int, timeout: float) -> str:
    """Execute cell `index`; return "ok", "error", "timeout", "exit" (called exit()) or "dead"."""
    client.timeout = max(1, int(round(timeout)))
    client.last_reply_ename = ""
    client.asked_exit = False
    try:
        cell = await client.async_execute_cell(nb.cells[index], index)
    except DeadKernelError:
        return "dead"
    except Exception:  # noqa: BLE001 - e.g. a timeout nbclient could not turn into an error output
        return "timeout"
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    if client.last_reply_ename == _TIMEOUT_ENAME or any(
        o.get("ename") == _TIMEOUT_ENAME for o in errors
    ):
        return "timeout"
    if client.asked_exit:
        return "exit"
    return "error" if errors else "ok"


async def responsive(client: GradingClient, nb: Any, index: int) -> bool:
    """After an interrupt: does the kernel answer a trivial cell within a few seconds?"""
    return await run_cell(client, nb, index, 5) == "ok"
