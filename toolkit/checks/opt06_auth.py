"""Your turn in notebook 06 §9b (optional, beyond the pack): which MUST does a recorded flow break?

MCP authorization (2026-07-28 basic/authorization) gives the client and the server rules that
a flow on the wire either keeps or breaks. The student writes ``broken_must(flow)``: for one
recorded flow (a dict, :func:`example_flow` shows its shape) it returns the name of the rule
broken, one of :data:`RULES`, or ``None`` when the flow keeps them all. The check shows it
flows it has not seen, one per way to go wrong and a few that are right though they look odd:

- ``"resource"``: the token was issued for another resource than this MCP server (its ``aud``),
  or the client asked for one (RFC 8707; servers MUST only accept tokens meant for them);
- ``"iss"``: the authorization response's ``iss`` differs from the recorded issuer by simple
  string comparison (no trailing-slash or case folding), or is absent though the metadata
  advertised it; absent and not advertised is fine (index.mdx:196-211);
- ``"pkce"``: the authorization request has no ``code_challenge_method`` S256 (PKCE is required);
- ``"passthrough"``: the MCP server called an upstream API with the token the client gave it
  (token passthrough is forbidden); with a token of its own it is fine.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from . import Checker, CheckResult, NotDone, StudentError

__all__ = ["check", "example_flow", "RULES"]

TITLE = "Optional exercise (notebook 06): which MUST does the flow break?"
RULES = ("resource", "iss", "pkce", "passthrough")
WHY = {
    "resource": "the token's aud and the requested resource must both be this MCP server's URL, exactly",
    "iss": "iss is compared with the issuer as strings, exactly; absent is wrong only when the metadata promised it",
    "pkce": "the authorization request must use code_challenge_method S256",
    "passthrough": "the server must not hand the client's token to another API; its own token is fine",
    None: "look again at each rule: this flow keeps them all",
}


def example_flow(port: int = 8001, issuer_port: int = 9001) -> dict:
    """A flow that keeps every rule: what the client saw and sent, step by step.

    Notebook 06.
    """
    server = f"http://127.0.0.1:{port}/mcp"
    issuer = f"http://127.0.0.1:{issuer_port}"
    return {
        "mcp_server": server,
        "resource_metadata": {"resource": server, "authorization_servers": [issuer]},
        "issuer_metadata": {"issuer": issuer, "authorization_response_iss_parameter_supported": True},
        "authorization_request": {"resource": server, "code_challenge_method": "S256", "scope": "mcp"},
        "authorization_response": {"code": "c0de", "state": "st4te", "iss": issuer},
        "token": {"aud": server, "scope": "mcp"},
        "upstream_call_token": None,  # None, "its own" or "the client's"
    }


def _variant(port: int, issuer_port: int, change: Callable[[dict], None]) -> dict:
    flow = example_flow(port, issuer_port)
    change(flow)
    return flow


def _cases() -> list[tuple[str, dict, str | None]]:
    """(what the flow shows, the flow, the rule it breaks): built afresh for each check."""
    issuer = "http://127.0.0.1:9123"

    def iss(value: str | None, advertised: bool | None = True) -> Callable[[dict], None]:
        def change(flow: dict) -> None:
            if value is None:
                flow["authorization_response"].pop("iss")
            else:
                flow["authorization_response"]["iss"] = value
            if advertised is None:
                flow["issuer_metadata"].pop("authorization_response_iss_parameter_supported")

        return change

    def set_(step: str, key: str, value: object) -> Callable[[dict], None]:
        return lambda flow: flow[step].__setitem__(key, value)

    def upstream(value: str) -> Callable[[dict], None]:
        return lambda flow: flow.__setitem__("upstream_call_token", value)

    other = "http://127.0.0.1:8124/mcp"
    return [
        ("a flow that keeps every rule", _variant(8123, 9123, lambda flow: None), None),
        ("no iss, and the metadata never promised one", _variant(8123, 9123, iss(None, None)), None),
        ("an iss from another server", _variant(8123, 9123, iss("https://evil.example")), "iss"),
        ("the issuer with a trailing slash", _variant(8123, 9123, iss(issuer + "/")), "iss"),
        ("the issuer in capitals", _variant(8123, 9123, iss(issuer.upper())), "iss"),
        ("no iss though the metadata promised one", _variant(8123, 9123, iss(None)), "iss"),
        ("a wrong iss the metadata never promised", _variant(8123, 9123, iss("http://127.0.0.1:9", None)), "iss"),
        ("a token for the same host on another port", _variant(8123, 9123, set_("token", "aud", other)), "resource"),
        ("a token with no audience", _variant(8123, 9123, set_("token", "aud", None)), "resource"),
        (
            "asked for another resource",
            _variant(8123, 9123, set_("authorization_request", "resource", other)),
            "resource",
        ),
        (
            "PKCE with the plain method",
            _variant(8123, 9123, set_("authorization_request", "code_challenge_method", "plain")),
            "pkce",
        ),
        (
            "no PKCE at all",
            _variant(8123, 9123, lambda flow: flow["authorization_request"].pop("code_challenge_method")),
            "pkce",
        ),
        ("the client's token sent upstream", _variant(8123, 9123, upstream("the client's")), "passthrough"),
        ("the server's own token sent upstream", _variant(8123, 9123, upstream("its own")), None),
    ]


def check(broken_must: Callable[[dict], str | None]) -> CheckResult:
    """``broken_must(flow)`` returns the rule a flow breaks (one of RULES) or None.

    Notebook 06.
    """
    c = Checker(TITLE)
    try:
        c.call(broken_must, example_flow())
    except NotDone:
        return c.not_started()
    except StudentError:
        pass  # reported below, flow by flow
    for label, flow, wanted in _cases():
        try:
            answer = c.call(broken_must, copy.deepcopy(flow))
        except NotDone:
            return c.not_started()
        except StudentError as exc:
            c.expect(False, f"{label}: {wanted or 'no rule broken'}", str(exc))
            continue
        said = "None" if answer is None else repr(answer)
        if answer is not None and answer not in RULES:
            c.expect(False, f"{label}: {wanted or 'no rule broken'}", f"{said} is not one of {RULES} or None")
            continue
        broken = f"breaks {wanted!r}" if wanted else "breaks no rule"
        hint = f"broken_must returned {said}; this flow {broken} ({WHY[wanted]})"
        c.expect(answer == wanted, f"{label}: {wanted or 'no rule broken'}", hint)
    return c.done(next_step="Each of these is a line the toolkit's OAuth client or ProtectedResource checks.")
