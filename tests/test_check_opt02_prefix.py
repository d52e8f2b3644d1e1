"""The optional your-turn check of notebook 02 §4b (toolkit/checks/opt02_prefix.py)."""

import pytest
from exercise_helpers import assert_fails_with_sentence, assert_not_done, boom, cell_namespace

from toolkit.checks import opt02_prefix


@pytest.fixture(scope="module")
def nb02():
    return cell_namespace("02_the_call_loop", "solution"), cell_namespace("02_the_call_loop", "starter")


def test_solution_passes(nb02):
    assert opt02_prefix.check(nb02[0]["reminding_harness"]).ok


def test_starter_is_not_done(nb02, capsys):
    assert_not_done(opt02_prefix.check(nb02[1]["reminding_harness"]), capsys)


def harness(remind, keep=True, turns=6):
    """A loop like the solution's, with one way of reminding (``remind(messages, turn)``)."""

    def run(model, registry, user):
        messages = [{"role": "user", "content": user}]
        for turn in range(1, turns + 1):
            if turn > 1:
                remind(messages, turn)
            reply = model.respond(messages, registry.list_schemas())
            if not reply.get("tool_calls"):
                return reply["content"]
            kept = reply if keep else {k: v for k, v in reply.items() if k != "reasoning"}
            messages.append({**kept, "role": "assistant"})
            for c in reply["tool_calls"]:
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": c["id"],
                        "content": registry.run(c["name"], c["arguments"]).content,
                    }
                )
        return "(turn limit)"

    return run


def append(messages, turn):
    messages.append({"role": "user", "content": f"{7 - turn} turns left"})


def rewrite_system(messages, turn):
    """The hurried way: one system message at the top, rewritten each turn."""
    if messages[0]["role"] == "system":
        messages[0]["content"] = f"{7 - turn} turns left"
    else:
        messages.insert(0, {"role": "system", "content": f"{7 - turn} turns left"})


def edit_first_message(messages, turn):
    messages[0]["content"] = f"What is the weather? ({7 - turn} turns left)"


def replace_last_reminder(messages, turn):
    """Keeps one reminder by deleting the previous one."""
    messages[:] = [m for m in messages if "turns left" not in str(m.get("content"))]
    append(messages, turn)


@pytest.mark.parametrize(
    "answer, fragment",
    [
        (harness(rewrite_system), "does not match its prefix"),
        (harness(edit_first_message), "does not match its prefix"),
        (harness(replace_last_reminder), "does not match its prefix"),
        (harness(append, keep=False), "must start with its thinking blocks"),
        (harness(lambda messages, turn: None), 'carried no "5 turns left"'),  # no reminder
        (harness(lambda m, t: m.append({"role": "user", "content": "6 turns left"})), 'no "5 turns left"'),
        (harness(append, turns=2), "does not name"),  # stops too early
        (lambda model, registry, user: "It is 30 degrees celsius in Cairo.", "does not name Lima"),  # hard-coded
    ],
)
def test_wrong_answers_fail(answer, fragment):
    assert_fails_with_sentence(opt02_prefix.check(answer), fragment)


def test_never_raises():
    assert_fails_with_sentence(opt02_prefix.check(boom), "KeyError")
