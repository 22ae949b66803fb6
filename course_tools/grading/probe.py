"""Probe cells: run one hidden case inside the learner's kernel and read its result safely.

A probe cell evaluates the case's expression in the learner's namespace, turns the value
into canonical JSON built only from exact builtin types (an object whose `__eq__` always
returns True becomes ``{"__untrusted_type__": ...}``), and prints it between two copies of
a random nonce. `read_payload` accepts exactly one such payload from the probe cell's own
output; anything else counts as no result. The kernel never sees an expected value: judging
happens in the grading process (`cases.Case.judge`).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

__all__ = ["make_probe", "new_nonce", "read_payload"]

# Runs in the learner's kernel. Self-contained on purpose: it uses no course_lib code and no
# json module, which a submission could have replaced.
_PROBE = r'''
def __course_probe(__nonce, __target, __expr):
    import sys as __sys
    __limit = [200000]

    def __enc_str(s):
        out = ['"']
        for ch in s:
            o = ord(ch)
            if ch == '"' or ch == '\\':
                out.append('\\' + ch)
            elif o < 0x20 or o > 0x7e:
                if o > 0xFFFF:
                    o -= 0x10000
                    out.append('\\u%04x\\u%04x' % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
                else:
                    out.append('\\u%04x' % o)
            else:
                out.append(ch)
        out.append('"')
        return ''.join(out)

    def __canon(v, depth):
        __limit[0] -= 1
        if __limit[0] < 0 or depth > 30:
            raise OverflowError('value too large or too deeply nested')
        t = type(v)
        if v is None or t is bool or t is int:
            if v is None:
                return 'null'
            return ('true' if v is True else 'false') if t is bool else str(int.__repr__(v))
        if t is float:
            r = float.__repr__(v)
            return r if r not in ('nan', 'inf', '-inf') else __enc_str(r)
        if t is str:
            if len(v) > 100000:
                raise OverflowError('string too long')
            return __enc_str(str.__str__(v))
        if t is list or t is tuple:
            return '[' + ','.join(__canon(x, depth + 1) for x in list(v)) + ']'
        if t is set or t is frozenset:
            items = sorted(__canon(x, depth + 1) for x in list(v))
            return '{"__set__":[' + ','.join(items) + ']}'
        if t is dict:
            parts = []
            for k in list(dict.keys(v)):
                if type(k) is not str:
                    return '{"__untrusted_type__":"dict with non-string keys"}'
                parts.append(__enc_str(k) + ':' + __canon(dict.__getitem__(v, k), depth + 1))
            return '{' + ','.join(parts) + '}'
        name = t.__module__ + '.' + t.__qualname__
        if type.__dict__['__dict__'].__get__(t).get('__course_todo__') is True:
            return '{"__todo__":true}'
        import enum as __enum
        if isinstance(v, __enum.Enum):
            value = __canon(v._value_, depth + 1)
            return '{"__enum__":' + __enc_str(t.__qualname__) + ',"value":' + value + '}'
        fields = getattr(t, 'model_fields', None)
        if type(fields) is dict and fields:
            own = object.__getattribute__(v, '__dict__')
            parts = [__enc_str(k) + ':' + __canon(own.get(k), depth + 1) for k in fields]
            head = '{"__model__":' + __enc_str(t.__qualname__)
            return head + (',' if parts else '') + ','.join(parts) + '}'
        import dataclasses as __dc
        if __dc.is_dataclass(v) and not isinstance(v, type):
            parts = [
                __enc_str(f.name) + ':' + __canon(object.__getattribute__(v, f.name), depth + 1)
                for f in __dc.fields(t)
            ]
            head = '{"__dataclass__":' + __enc_str(t.__qualname__)
            return head + (',' if parts else '') + ','.join(parts) + '}'
        return '{"__untrusted_type__":' + __enc_str(name) + '}'

    ns = globals()
    if __target not in ns:
        body = '{"status":"missing"}'
    else:
        try:
            env = dict(ns)
            from mcp.types import ToolAnnotations as __TA
            env['ToolAnnotations'] = __TA
            body = '{"status":"ok","value":' + __canon(eval(__expr, env), 0) + '}'
        except NotImplementedError:
            body = '{"status":"not_attempted"}'
        except BaseException as exc:  # KeyboardInterrupt too: the grader interrupted a hang
            error = (type(exc).__name__ + ': ' + str(exc))[:300]
            body = '{"status":"error","error":' + __enc_str(error) + '}'
    __sys.stdout.write('\n' + __nonce + body + __nonce + '\n')
    __sys.stdout.flush()

__course_probe(<<NONCE>>, <<TARGET>>, <<EXPR>>)
del __course_probe
'''


def new_nonce() -> str:
    """Return a fresh random marker; a submission cannot guess it in advance."""
    return "@@course-probe-" + secrets.token_hex(16) + "@@"


def make_probe(target: str, expr: str, nonce: str) -> str:
    """Return the source of a probe cell for one case."""
    return (
        _PROBE.replace("<<NONCE>>", repr(nonce))
        .replace("<<TARGET>>", repr(target))
        .replace("<<EXPR>>", repr(expr))
    )


def read_payload(text: str, nonce: str) -> dict[str, Any]:
    """Return the probe's payload from the text the probe cell printed.

    Exactly one payload between the nonce markers must be present; otherwise the result
    is ``{"status": "no result"}`` (nothing printed, or more than one payload: tampering).
    """
    pieces = text.split(nonce)
    if len(pieces) != 3:
        reason = "no result" if len(pieces) < 3 else "tampered"
        return {"status": reason}
    try:
        payload = json.loads(pieces[1])
    except ValueError:
        return {"status": "tampered"}
    if not isinstance(payload, dict) or payload.get("status") not in {
        "ok",
        "missing",
        "not_attempted",
        "error",
    }:
        return {"status": "tampered"}
    return payload
