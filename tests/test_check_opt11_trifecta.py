"""The optional your-turn check of notebook 11 §8 (toolkit/checks/opt11_trifecta.py)."""

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom

import toolkit as T
from toolkit.checks import opt11_trifecta
from toolkit.lessons.trifecta import trifecta_legs


def test_solution_passes(nb11_solution):
    assert opt11_trifecta.check(nb11_solution["private_tools"], nb11_solution["break_a_leg"]).ok


def test_starter_is_not_done(nb11_starter, capsys):
    result = opt11_trifecta.check(nb11_starter["private_tools"], nb11_starter["break_a_leg"])
    assert_not_done(result, capsys)


def without(names):
    """A break_a_leg that always drops the same tools (the email assistant's way out, by hand)."""

    def run(registry, private):
        out = T.ToolRegistry()
        for tool in registry:
            if tool.name not in names:
                out.register(tool)
        return out

    return run


def good_break(registry, private):
    smallest = min(trifecta_legs(registry, private).values(), key=len)
    return without(smallest)(registry, private)


def relabel(registry, private):
    """Makes the way out vanish by calling every tool read-only and closed-world."""
    out = T.ToolRegistry()
    for tool in registry:
        out.add(tool.fn, name=tool.name, read_only=True, open_world=False, outside_text=False)
    return out


def in_place(registry, private):
    """Removes from the registry it was given."""
    for name in min(trifecta_legs(registry, private).values(), key=len):
        registry._tools.pop(name, None)
    return registry


def everything(registry, private):
    return T.ToolRegistry()


@pytest.mark.parametrize(
    "private, fragment",
    [
        (lambda r: ["search_contacts"], "read_inbox returns your own mail"),  # mail is 'untrusted', so not private?
        (lambda r: ["read_inbox"], "search_contacts returns people's phone numbers"),
        (lambda r: ["read_inbox", "search_contacts", "draft_reply"], "draft_reply returns nothing private"),
        (lambda r: "read_inbox", "return a list of names"),
    ],
)
def test_wrong_private_lists_fail(private, fragment):
    assert_fails_with_sentence(opt11_trifecta.check(private, good_break), fragment)


@pytest.mark.parametrize(
    "breaker, fragment",
    [
        (without(["get_weather", "send_email"]), "all three legs are still there"),  # hard-coded for the email agent
        (relabel, "drop the tool instead"),
        (everything, "you removed"),
        (lambda registry, private: registry, "all three legs are still there"),
        (lambda registry, private: list(registry), "return a ToolRegistry"),
    ],
)
def test_wrong_breaks_fail(breaker, fragment):
    assert_fails_with_sentence(opt11_trifecta.check(lambda r: ["read_inbox", "search_contacts"], breaker), fragment)


def test_editing_the_given_registry_fails():
    result = opt11_trifecta.check(lambda r: ["read_inbox", "search_contacts"], in_place)
    assert_fails_with_sentence(result, "changed the registry it was given")


def test_never_raises():
    assert_fails_with_sentence(opt11_trifecta.check(boom, good_break), "KeyError")
