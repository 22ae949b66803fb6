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
