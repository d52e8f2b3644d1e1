"""The optional authorization exercise's check (toolkit/checks/opt06_auth.py). What every check
test holds: tests/conftest.py. The solution is notebook 06 §9b's; the hurried answers live
here."""

from urllib.parse import urlsplit

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

from toolkit.checks import opt06_auth


def solution(flow):
    server = flow["mcp_server"]
    if flow["token"].get("aud") != server or flow["authorization_request"].get("resource") != server:
        return "resource"
    issuer = flow["issuer_metadata"]["issuer"]
    back = flow["authorization_response"]
    promised = flow["issuer_metadata"].get("authorization_response_iss_parameter_supported") is True
    if ("iss" in back and back["iss"] != issuer) or ("iss" not in back and promised):
        return "iss"
    if flow["authorization_request"].get("code_challenge_method") != "S256":
        return "pkce"
    if flow["upstream_call_token"] == "the client's":
        return "passthrough"
    return None


def test_the_solution_passes():
    assert opt06_auth.check(solution).ok


def test_the_example_flow_keeps_every_rule():
    assert solution(opt06_auth.example_flow()) is None


def test_the_stub_is_not_done(capsys):
    def stub(flow):
        raise NotImplementedError

    assert_not_done(opt06_auth.check(stub), capsys)


def always_fine(flow):
    return None


def iss_must_be_there(flow):  # forgets that an unadvertised iss may be absent
    if "iss" not in flow["authorization_response"]:
        return "iss"
    return solution(flow)


def iss_normalized(flow):  # compares as URLs, not strings
    back = dict(flow["authorization_response"])
    if "iss" in back:
        back["iss"] = back["iss"].rstrip("/").lower()
    return solution({**flow, "authorization_response": back})


def aud_host_only(flow):  # same host taken for the same resource
    if urlsplit(str(flow["token"].get("aud"))).hostname == urlsplit(flow["mcp_server"]).hostname:
        return solution({**flow, "token": {**flow["token"], "aud": flow["mcp_server"]}})
    return solution(flow)


def any_upstream_call(flow):  # every upstream call taken for passthrough
    return "passthrough" if flow["upstream_call_token"] else solution(flow)


def a_sentence(flow):
    return "the iss is wrong" if solution(flow) == "iss" else solution(flow)


def mutates_and_solves(flow):
    answer = solution(flow)
    flow.clear()
    return answer


@pytest.mark.parametrize(
    "answer, fragment",
    [
        (always_fine, "the issuer with a trailing slash: iss"),
        (iss_must_be_there, "no iss, and the metadata never promised one: no rule broken"),
        (iss_normalized, "the issuer in capitals: iss"),
        (aud_host_only, "a token for the same host on another port: resource"),
        (any_upstream_call, "the server's own token sent upstream: no rule broken"),
        (a_sentence, "is not one of"),
        (boom, "KeyError"),
    ],
)
def test_hurried_answers_are_rejected_with_a_sentence(answer, fragment):
    assert_fails_with_sentence(opt06_auth.check(answer), fragment)


def test_the_flows_reach_the_student_as_copies():
    assert opt06_auth.check(mutates_and_solves).ok
