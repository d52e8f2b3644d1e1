"""toolkit.lessons.dual_control: the user holds tools the agent lacks (notebook 10, τ²-bench's idea)."""

from toolkit.lessons.dual_control import AGENTS, LiteralUser, Phone, agent_tools, run_dual_control, user_tools


def test_only_the_agent_that_gets_the_user_to_act_reaches_the_goal():
    guided, silent = run_dual_control("tells the user what to do"), run_dual_control("only checks its own side")
    assert guided["goal reached"] and guided["user did"] == ["airplane mode off", "mobile data on"]
    assert not silent["goal reached"] and silent["user did"] == []
    assert guided["before"] == silent["before"] == {"registered": False, "data session": False}
    assert guided["after"] == {"registered": True, "data session": True}


def test_the_agent_cannot_touch_the_phone_and_the_user_cannot_read_the_network():
    phone = Phone()
    assert agent_tools(phone).run("toggle_airplane_mode", {}).kind == "unknown_tool"
    assert user_tools(phone).run("line_status", {}).kind == "unknown_tool"
    assert phone.airplane_mode, "a refused call changes nothing"


def test_the_literal_user_acts_only_on_an_instruction_it_recognises():
    phone = Phone()
    user = LiteralUser(user_tools(phone))
    user.hear("Could you maybe fix your connection?")
    assert user.log == [] and not phone.connected()
    user.hear("Please turn off airplane mode and turn on mobile data.")
    assert phone.connected()
    assert set(AGENTS) == {"tells the user what to do", "only checks its own side"}
