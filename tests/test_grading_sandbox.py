"""The sandbox around a graded kernel holds whoever runs the grader, root or a normal user.

Each attack runs as a learner's cell in a real grading kernel under bubblewrap, once as the user
running the tests (root here and in CI) and once as a normal user (uid 65534, when the tests run
as root). The kernel must have no capability, must not remount, mount, change its user or the
owner of a bound path, or write any bound path; it is bounded as a whole (memory, processes),
and every folder it can write is bounded and disappears with it. Skipped only where bubblewrap
cannot run.
"""

from __future__ import annotations

import json
import os

import pytest

from grading_kernel import USERS, run_as

# Tries everything a process with capabilities could do to the read-only binds, then reports.
# A write that works is undone at once (the file is removed), so a failing test harms nothing.
_ESCAPE = r"""
import ctypes, json, os, secrets, sys
import course_lib
libc = ctypes.CDLL(None, use_errno=True)
MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
report = {}
with open('/proc/self/status') as f:
    report['CapEff'] = f.read().split('CapEff:')[1].split()[0]
read_only = []
with open('/proc/self/mountinfo') as f:
    for line in f:
        fields = line.split()
        point = fields[4].replace('\\040', ' ')
        if 'ro' in fields[5].split(','):
            read_only.append(point)
report['read_only'] = read_only
report['remounted'] = [
    p for p in read_only if libc.mount(None, p.encode(), None, MS_REMOUNT | MS_BIND, None) == 0
]
os.makedirs('/tmp/work/m', exist_ok=True)
report['mounted'] = libc.mount(b'tmpfs', b'/tmp/work/m', b'tmpfs', 0, None) == 0
report['setuid'] = []
for name, call in (('setuid', os.setuid), ('setgid', os.setgid), ('seteuid', os.seteuid)):
    try:
        call(0)
        report['setuid'].append(name)
    except OSError:
        pass
package = os.path.dirname(course_lib.__file__)
bound = sorted(set(read_only) | {package, sys.prefix, os.path.dirname(sys.executable)})
report['chowned'] = []
for p in bound:
    try:
        st = os.stat(p)
        os.chown(p, st.st_uid, st.st_gid)
        report['chowned'].append(p)
    except OSError:
        pass
report['wrote'] = []
for p in bound:
    name = os.path.join(p, '.course-canary-' + secrets.token_hex(4))
    try:
        os.close(os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.unlink(name)
        report['wrote'].append(p)
    except OSError:
        pass
for p in (os.path.join(package, '__init__.py'), sys.executable):
    try:
        os.close(os.open(p, os.O_WRONLY | os.O_APPEND))
        report['wrote'].append(p)
    except OSError:
        pass
report['new_userns'] = libc.unshare(0x10000000) == 0  # CLONE_NEWUSER
report['uid'] = os.getuid()
print(json.dumps(report))
"""


@pytest.mark.parametrize("user", USERS)
def test_the_kernel_has_no_capability_and_cannot_remount_mount_setuid_chown_or_write(user):
    done = run_as(user, {"cells": [_ESCAPE]})
    assert done["outcomes"] == ["ok"], done
    report = json.loads(done["texts"][0])
    assert report["read_only"], "the sandbox should show read-only binds"
    assert report["CapEff"] == "0000000000000000", report["CapEff"]
    assert report["remounted"] == [], "a read-only bind was made writable"
    assert report["mounted"] is False
    assert report["setuid"] == []
    assert report["chowned"] == []
    assert report["wrote"] == []
    assert report["new_userns"] is False, "the kernel could make a user namespace of its own"
    assert report["uid"] != 0


# Fills each folder the kernel can write (its IPC socket folder, its /tmp, /dev/shm) in bytes and
# in files, and reports how far it got. Nothing is removed: the host is looked at meanwhile.
_FILL = r"""
import errno, json, os, sys
conn = [a for a in sys.argv if a.endswith('.json')][0]
with open(conn) as f:
    ipc = os.path.dirname(json.load(f)['ip'])
CHUNK = 8 * 1024 * 1024
def fill_bytes(folder, limit):
    written = 0
    try:
        for i in range(limit // (4 * CHUNK)):
            with open(os.path.join(folder, f'big{i}'), 'wb') as f:
                for _ in range(4):
                    f.write(b'x' * CHUNK)
                    f.flush()
                    written += CHUNK
    except OSError as e:
        return written, errno.errorcode.get(e.errno, str(e.errno))
    return written, ''
def fill_files(folder, count):
    made = 0
    try:
        for i in range(count):
            os.close(os.open(os.path.join(folder, f'f{i}'), os.O_CREAT | os.O_WRONLY, 0o600))
            made += 1
    except OSError as e:
        return made, errno.errorcode.get(e.errno, str(e.errno))
    return made, ''
report = {}
for name, folder in (('ipc', ipc), ('tmp', '/tmp/work'), ('shm', '/dev/shm')):
    report[name] = {'bytes': fill_bytes(folder, 160 * 1024 * 1024), 'files': fill_files(folder, 20000)}
print(json.dumps(report))
"""
_SMALL = {"tmp_bytes": 64 * 1024**2, "shm_bytes": 16 * 1024**2}


@pytest.mark.parametrize("user", USERS)
def test_filling_every_folder_the_kernel_can_write_leaves_the_host_untouched(user):
    done = run_as(user, {"cells": [_FILL], "limits": _SMALL, "timeout": 60})
    assert done["outcomes"] == ["ok"], done
    report = json.loads(done["texts"][0])
    # Each folder is a size-limited tmpfs of the sandbox: the writes stop there...
    assert report["tmp"]["bytes"][0] <= _SMALL["tmp_bytes"] and report["tmp"]["bytes"][1] == "ENOSPC"
    assert report["shm"]["bytes"][0] <= _SMALL["shm_bytes"] and report["shm"]["bytes"][1] == "ENOSPC"
    assert report["ipc"]["bytes"][0] <= 1024**2 and report["ipc"]["bytes"][1] == "ENOSPC", report
    # ...and none of it is on the host: not in the kernel's folder, not as files, not as bytes.
    assert done["host_bytes"] < 64 * 1024, done["on_host"]
    assert done["host_files"] < 10, done["on_host"]


def test_dev_shm_is_private_and_multiprocessing_locks_work(tmp_path):
    done = run_as(USERS[0], {"cells": [
        "import multiprocessing, os\n"
        "lock = multiprocessing.Lock()\n"
        "with lock:\n"
        "    print('locked', sorted(os.listdir('/dev/shm')) == [] or 'sem' in str(os.listdir('/dev/shm')))\n"
    ]})
    assert done["outcomes"] == ["ok"], done
    assert done["texts"][0].startswith("locked"), done


# Six children each hold 256 MiB at once: 1.5 GiB together, past a 1 GiB bound for the kernel.
_HOLDERS = r"""
import json, os, select, time
SIZE, COUNT = 256 * 1024 * 1024, 6
children, ready = [], 0
r, w = os.pipe()
for _ in range(COUNT):
    pid = os.fork()
    if pid == 0:
        try:
            buf = bytearray(SIZE)
            buf[::4096] = b'x' * (SIZE // 4096)
            os.write(w, b'1')
            time.sleep(60)
        finally:
            os._exit(0)
    children.append(pid)
deadline = time.time() + 30
while ready < COUNT and time.time() < deadline:
    if select.select([r], [], [], 0.5)[0]:
        ready += len(os.read(r, 64))
time.sleep(1)
alive = [p for p in children if os.waitpid(p, os.WNOHANG) == (0, 0)]
for p in children:
    try:
        os.kill(p, 9)
    except OSError:
        pass
print(json.dumps({'ready': ready, 'alive': len(alive)}))
"""
_GIB = 1024**3


def _bounded_as_a_whole(user: str) -> bool:
    """Whether a cgroup bounds the kernel as a whole for `user` here (root can make one)."""
    from course_tools.grading.sandbox import choose_isolation

    if user == USERS[1] and os.geteuid() == 0:
        return False  # uid 65534 cannot make a cgroup on this machine (no delegated cgroup v2)
    try:
        return choose_isolation("bwrap").group is not None
    except ValueError:
        return False


@pytest.mark.parametrize("user", USERS)
def test_six_children_cannot_hold_more_memory_together_than_the_kernels_bound(user):
    done = run_as(user, {"cells": [_HOLDERS], "limits": {"memory_bytes": _GIB}, "timeout": 60})
    if not _bounded_as_a_whole(user):
        pytest.skip("no cgroup for this user here: each process keeps its own limit (next test)")
    assert done["group"], done
    if done["outcomes"] == ["dead"]:
        return  # the memory bound's OOM killer chose the kernel itself: bounded, and graded on
    assert done["outcomes"] == ["ok"], done
    report = json.loads(done["texts"][0])
    assert report["alive"] * 256 * 1024**2 < _GIB, report


_FORKS = r"""
import os, time
made, refused = [], ''
for _ in range(300):
    try:
        pid = os.fork()
    except OSError as e:
        refused = e.strerror
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    made.append(pid)
for p in made:
    os.kill(p, 9)
    os.waitpid(p, 0)
print(len(made), refused)
"""


@pytest.mark.parametrize("user", USERS)
def test_the_kernel_cannot_start_more_processes_than_its_bound(user):
    if not _bounded_as_a_whole(user) and user == USERS[0] and os.geteuid() == 0:
        pytest.skip("root without a cgroup: the process count is not bounded (the grader warns)")
    done = run_as(user, {"cells": [_FORKS], "limits": {"processes": 64}, "timeout": 60})
    assert done["outcomes"] == ["ok"], done
    made, _, refused = done["texts"][0].strip().partition(" ")
    assert int(made) < 64 and refused, done["texts"]


_BOMB = r"""
import os, time
while True:
    try:
        os.fork()
    except OSError:
        time.sleep(0.05)
"""


@pytest.mark.parametrize("user", USERS)
def test_a_fork_bomb_is_contained_and_gone_with_its_kernel(user):
    if not _bounded_as_a_whole(user) and user == USERS[0] and os.geteuid() == 0:
        pytest.skip("root without a cgroup: a fork bomb would reach the machine (the grader warns)")
    done = run_as(user, {"cells": [_BOMB], "limits": {"processes": 64}, "timeout": 5})
    assert done["outcomes"] == ["timeout"], done
    assert 1 < done["processes"] <= 64, done  # seen from the host, in the sandbox's namespace
    assert done["left_after_close"] == 0, done


_ONE_BIG = r"""
import resource
try:
    buf = bytearray(1536 * 1024 * 1024)
    print('allocated')
except MemoryError:
    print('refused', resource.getrlimit(resource.RLIMIT_AS)[0], resource.getrlimit(resource.RLIMIT_FSIZE)[0])
"""


@pytest.mark.parametrize("user", USERS)
def test_without_a_cgroup_each_process_keeps_its_own_limits(user):
    done = run_as(user, {"cells": [_ONE_BIG], "limits": {"memory_bytes": _GIB}, "cgroup": False})
    assert done["group"] == "", done
    assert done["outcomes"] == ["ok"], done
    said = done["texts"][0].split()
    assert said == ["refused", str(_GIB), str(256 * 1024**2)], said
