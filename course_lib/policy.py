"""Client policies: what a client does with a tool's annotations, before the call and after it.

A client answers two questions about every tool call:

* **before the call** (`PreCall`): allow it, ask the user to confirm, confirm with a strong
  warning, or deny it;
* **after the call** (`PostCall`): pass the output to the model as it is ("trust output":
  no review for untrusted content, not a check that the output is correct), or treat it as
  untrusted content (review or sanitise it first).

A `Policy` turns a tool's annotations and the server's `Trust` level into a `Decision`
holding both answers and a sentence saying why. Every function here is pure: no I/O, no
network, no state. The policies::

    Policy (abstract: name, source, decide(annotations, trust=...) -> Decision)
    |-- SpecPolicy            the reference client: the spec's defaults and trust rule, plus the
    |                         2026-03-16 blog post's mapping of hints to behaviour
    |-- TrustEverythingPolicy believes every hint of every server (what a lying server hopes for)
    |-- VSCodePolicy          VS Code / Copilot agent mode, as its source reads
    |-- ReadOnlyModePolicy    read-only modes: only `readOnlyHint: true` runs freely (Cursor Ask)
    `-- IgnoreHintsPolicy     a client that reads no hint and confirms every call (Claude Desktop)

The measured models of Claude Code and Codex, and the `POLICIES` line-up, are in
`course_lib.clients`.

Ready-made instances: `SPEC`, `TRUST_EVERYTHING`, `VSCODE`, `CURSOR_ASK`. Each class names its
source: source code (VS Code) or issue threads (Cursor, Claude Desktop: secondary evidence).

The tables built from these rules (81 combinations, decision matrices) are in
`course_lib.combinations`.

Introduced in: notebooks/02_defaults.ipynb; used in 03_combinations and later lessons.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from .annotations import AnnotationsLike, RiskProfile, classify, declared, effective
from .decisions import Decision, PostCall, PreCall, Trust, as_trust
from .i18n import N_
from .i18n import gettext_ as _
from .vocabulary import member

__all__ = [
    "CURSOR_ASK",
    "SPEC",
    "TRUST_EVERYTHING",
    "VSCODE",
    "IgnoreHintsPolicy",
    "Policy",
    "ReadOnlyModePolicy",
    "SpecPolicy",
    "TrustEverythingPolicy",
    "VSCodePolicy",
    "as_policies",
    "as_policy",
    "decide",
]


class Policy(ABC):
    """A client's rules for turning annotations into a `Decision`.

    Subclasses set `name` (shown in tables and plots) and `source` (where the rules come
    from) and implement `decide`.
    """

    name: str = "policy"
    source: str = ""

    @abstractmethod
    def decide(
        self, annotations: AnnotationsLike, *, trust: Trust = Trust.UNTRUSTED
    ) -> Decision:
        """Return the decision for a tool with these annotations from a server at this trust level.

        `annotations` is anything `course_lib.annotations.declared` accepts: a
        `ToolAnnotations`, a `Tool`, a dict with wire or attribute keys, or `None`.

        Raises:
            ValueError: malformed annotations or an unknown trust level.
        """

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


# --- the reference client -------------------------------------------------------------------

_PRE_BY_PROFILE = {
    RiskProfile.READ_ONLY: PreCall.ALLOW,
    RiskProfile.ADDITIVE: PreCall.CONFIRM,
    RiskProfile.IDEMPOTENT_WRITE: PreCall.CONFIRM,
    RiskProfile.DESTRUCTIVE: PreCall.WARN,
}

_PRE_REASON = {
    RiskProfile.READ_ONLY: N_("read-only, so it runs without asking"),
    RiskProfile.ADDITIVE: N_("it writes (only adds), so the user confirms"),
    RiskProfile.IDEMPOTENT_WRITE: N_(
        "it writes (only adds or sets; repeating changes nothing more), so the user confirms"
    ),
    RiskProfile.DESTRUCTIVE: N_(
        "it may delete or overwrite, so the user confirms after a strong warning"
    ),
}


def _by_hints(annotations: AnnotationsLike, policy_name: str, preface: str = "") -> Decision:
    """Decide by the effective hints' combination: profile before the call, open world after it."""
    eff = effective(annotations)
    profile = classify(annotations)
    post = PostCall.UNTRUSTED if eff.open_world else PostCall.TRUST
    after = (
        _("open world, so its output is treated as untrusted")
        if eff.open_world
        else _("closed world, so its output is not treated as untrusted content")
    )
    retry_safe = eff.read_only or eff.idempotent is True
    return Decision(
        pre_call=_PRE_BY_PROFILE[profile],
        post_call=post,
        reason=_("{policy}: {preface}{before}; {after}.").format(
            policy=policy_name, preface=preface, before=_(_PRE_REASON[profile]), after=after
        ),
        retry_safe=retry_safe,
    )


class SpecPolicy(Policy):
    """The course's reference client: the spec's defaults and trust rule, plus the blog's mapping.

    From the spec (modelcontextprotocol/modelcontextprotocol, `schema/2026-07-28/schema.ts` and
    `docs/specification/2026-07-28/server/tools.mdx`):

    * Hints from an untrusted server are ignored (clients MUST consider annotations untrusted
      unless they come from trusted servers), so the tool is judged as if unannotated: the worst
      case.
    * Absent hints take the schema's pessimistic defaults.

    From the blog post "Tool Annotations as Risk Vocabulary" (2026-03-16,
    `blog/content/posts/2026-03-16-tool-annotations.md`), which maps hints to behaviour:

    * Before the call, by risk profile: read-only -> allow; additive or idempotent write ->
      confirm; destructive -> confirm with a strong warning.
    * After the call: open world -> output treated as untrusted content. Closed-world output
      gets no such review ("trust output"); the spec's SHOULD to validate every result before
      the model sees it is not modelled.
    * A read-only or idempotent tool may be retried after a failure.
    """

    name = "spec (reference)"
    source = (
        "MCP spec 2026-07-28 (schema.ts defaults, server/tools.mdx trust rule) and the 2026-03-16 "
        "blog post 'Tool Annotations as Risk Vocabulary' (hint-to-behaviour mapping)"
    )

    def decide(
        self, annotations: AnnotationsLike, *, trust: Trust = Trust.UNTRUSTED
    ) -> Decision:
        declared(annotations)  # validate even when the hints are about to be ignored
        if as_trust(trust) is Trust.UNTRUSTED:
            return _by_hints(
                None,
                self.name,
                _("the server is untrusted, so its hints are ignored and the worst case applies: "),
            )
        return _by_hints(annotations, self.name)


class TrustEverythingPolicy(Policy):
    """A naive client that believes every server's hints, whatever its trust level.

    Same rules as `SpecPolicy` for a trusted server, applied to every server: exactly what
    the spec's MUST in `server/tools.mdx` forbids, and what a lying server exploits (lesson 05).
    """

    name = "trusts every hint"
    source = (
        "SpecPolicy's rules without the trust check (the anti-pattern the spec's "
        "server/tools.mdx forbids)"
    )

    def decide(
        self, annotations: AnnotationsLike, *, trust: Trust = Trust.UNTRUSTED
    ) -> Decision:
        as_trust(trust)  # validated, then deliberately ignored
        return _by_hints(annotations, self.name, _("believing the hints: "))


# --- models of real clients -----------------------------------------------------------------


class VSCodePolicy(Policy):
    """VS Code (GitHub Copilot agent mode), as `mcpLanguageModelToolContribution.ts` reads.

    Source: microsoft/vscode at 027907c,
    `src/vs/workbench/contrib/mcp/common/mcpLanguageModelToolContribution.ts`.


    * `readOnlyHint: true` -> no confirmation before the call (`canRequestPreApproval:
      !readOnlyHint`).
    * otherwise -> a confirmation ("Run {title}") warning that servers or conversation content
      may misuse tools; the user may auto-approve it per session or workspace.
    * `openWorldHint: true` -> the user reviews the output before the model sees it
      (`confirmResults`); an absent `openWorldHint` counts as false, against the spec default.
    * `destructiveHint` and `idempotentHint` are not read, so the warning never varies with
      them; server trust is not checked beyond installation.
    """

    name = "VS Code"
    source = (
        "microsoft/vscode "
        "src/vs/workbench/contrib/mcp/common/mcpLanguageModelToolContribution.ts at 027907c"
    )

    def decide(
        self, annotations: AnnotationsLike, *, trust: Trust = Trust.UNTRUSTED
    ) -> Decision:
        as_trust(trust)  # validated; VS Code treats installation as trust
        values = declared(annotations)
        if values["readOnlyHint"] is True:
            pre, before = PreCall.ALLOW, _("readOnlyHint is true, so it runs without asking")
        else:
            pre, before = (
                PreCall.CONFIRM,
                _("readOnlyHint is not true, so the user confirms (destructiveHint is not read)"),
            )
        if values["openWorldHint"] is True:
            post, after = (
                PostCall.UNTRUSTED,
                _("openWorldHint is true, so the user reviews the output first"),
            )
        else:
            post, after = (
                PostCall.TRUST,
                _(
                    "openWorldHint is not true (absent counts as false), so the output goes "
                    "straight to the model"
                ),
            )
        reason = _("{policy}: {before}; {after}.").format(
            policy=self.name, before=before, after=after
        )
        return Decision(pre, post, reason, retry_safe=False)


class ReadOnlyModePolicy(Policy):
    """A read-only mode: only tools declaring `readOnlyHint: true` run freely.

    Any other tool (including one with no annotations) gets `otherwise`: `PreCall.DENY` in
    Cursor's Ask mode, whose error is "You are in ask mode and cannot run non read-only tools."
    (colbymchenry/codegraph#1018, sourcebot-dev/sourcebot PR #1013; GitHub Copilot PR review
    filters the same way, microsoft/azure-devops-mcp#1555). These are secondary sources (issue
    threads), not vendor documentation. (Claude Code's plan mode was measured instead: see
    `ClaudeCodePolicy`.)
    No output rule is known for these modes: output goes to the model unreviewed ("trust
    output"). Server trust is not checked.
    """

    source = (
        "Cursor Ask mode (colbymchenry/codegraph#1018, sourcebot-dev/sourcebot PR #1013), "
        "Copilot PR review (microsoft/azure-devops-mcp#1555); issue threads, secondary"
    )

    def __init__(
        self, name: str = "read-only mode", *, otherwise: PreCall = PreCall.DENY
    ) -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError("a policy needs a non-empty name, e.g. 'Cursor Ask mode'")
        otherwise = member(PreCall, otherwise, "otherwise")
        if otherwise is PreCall.ALLOW:
            raise ValueError(
                "otherwise=ALLOW would make the mode admit every tool; use CONFIRM or DENY"
            )
        self.name = name
        self.otherwise = otherwise

    def decide(
        self, annotations: AnnotationsLike, *, trust: Trust = Trust.UNTRUSTED
    ) -> Decision:
        as_trust(trust)  # validated; these modes do not check server trust
        values = declared(annotations)
        if values["readOnlyHint"] is True:
            pre, before = PreCall.ALLOW, _("readOnlyHint is true, so it may run")
        elif self.otherwise is PreCall.DENY:
            pre, before = (
                PreCall.DENY,
                _("readOnlyHint is not true, so the mode refuses to run it"),
            )
        else:
            pre, before = (
                self.otherwise,
                _("readOnlyHint is not true, so the user must {decision}").format(
                    decision=_(str(self.otherwise))
                ),
            )
        reason = _("{policy}: {before}; no output review.").format(policy=self.name, before=before)
        return Decision(pre, PostCall.TRUST, reason, retry_safe=False)


class IgnoreHintsPolicy(Policy):
    """A client that reads no hint and asks the user before every call.

    Claude Desktop prompts per call (s-morgan-jeffries/apple-mail-fast-mcp#217, an issue
    thread: secondary). For Claude Code, use the measured `ClaudeCodePolicy` instead. Output
    goes to the model unreviewed ("trust output").
    """

    source = "Claude Desktop (s-morgan-jeffries/apple-mail-fast-mcp#217); issue thread, secondary"

    def __init__(self, name: str = "ignores hints") -> None:
        if not isinstance(name, str) or not name.strip():
            raise ValueError("a policy needs a non-empty name, e.g. 'Claude Desktop'")
        self.name = name

    def decide(
        self, annotations: AnnotationsLike, *, trust: Trust = Trust.UNTRUSTED
    ) -> Decision:
        as_trust(trust)
        declared(annotations)  # validated, then not read
        return Decision(
            PreCall.CONFIRM,
            PostCall.TRUST,
            _(
                "{policy}: hints are not read, so every call needs the user's confirmation (or "
                "an allow rule); no output review."
            ).format(policy=self.name),
            retry_safe=False,
        )


SPEC = SpecPolicy()
TRUST_EVERYTHING = TrustEverythingPolicy()
VSCODE = VSCodePolicy()
CURSOR_ASK = ReadOnlyModePolicy("Cursor Ask mode", otherwise=PreCall.DENY)


def as_policy(policy: Any) -> Policy:
    """Return `policy` if it is a `Policy`.

    Raises:
        ValueError: it is not (for example annotations passed where the policy goes).
    """
    if not isinstance(policy, Policy):
        raise ValueError(
            f"expected a Policy such as SPEC or VSCODE, not {type(policy).__name__}; "
            "if you passed annotations first, the order is decide(policy, annotations)"
        )
    return policy


def as_policies(policies: Policy | Iterable[Policy]) -> list[Policy]:
    """Return one policy or a sequence of them as a non-empty list, each checked by `as_policy`.

    Raises:
        ValueError: no policies, or something that is not a `Policy`.
    """
    if isinstance(policies, Policy):
        policies = [policies]
    checked = [as_policy(p) for p in policies]
    if not checked:
        raise ValueError("no policies given: pass at least one, e.g. [SPEC, VSCODE]")
    return checked


def decide(
    policy: Policy, annotations: AnnotationsLike, *, trust: Trust = Trust.UNTRUSTED
) -> Decision:
    """Return `policy`'s decision for a tool (or its annotations) from a server at `trust` level.

    The default trust level is untrusted, as the spec requires of any server the client
    has no reason to trust.

    Raises:
        ValueError: `policy` is not a `Policy`, the annotations are malformed or the trust level is
        unknown.
    """
    return as_policy(policy).decide(annotations, trust=trust)
