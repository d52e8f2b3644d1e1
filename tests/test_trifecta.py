"""toolkit.lessons.trifecta: the three legs of the lethal trifecta, read off a registry (notebook 11)."""

import pytest

from toolkit.lessons import exfiltration, injection
from toolkit.lessons.trifecta import trifecta_legs


def test_exercise_12s_world_has_all_three_legs_once_fetch_url_joins_it():
    legs = trifecta_legs(exfiltration.make_exfiltration_registry(), ["get_customers"])
    assert legs == {"private data": ["get_customers"], "untrusted content": ["fetch_url"], "a way out": ["fetch_url"]}
    before, _ = exfiltration.make_world()
    legs = trifecta_legs(before, ["get_customers"])
    assert legs["private data"] and not legs["untrusted content"] and not legs["a way out"]


def test_a_writing_tool_is_a_way_out_and_outside_text_fails_closed():
    legs = trifecta_legs(injection.make_injection_registry(), [])
    assert legs["a way out"] == ["fetch_page", "send_email"] and legs["untrusted content"] == ["fetch_page"]
    # a read-only tool that declares nothing is taken to carry outside text (issue 19, point 6)
    assert trifecta_legs(injection.make_ticket_registry(), [])["untrusted content"] == ["get_ticket"]
    assert trifecta_legs(injection.make_ticket_registry(outside_text=False), [])["untrusted content"] == []
    assert trifecta_legs(injection.make_ticket_registry(outside_text=True), [])["untrusted content"]


def test_a_private_tool_the_registry_lacks_is_an_error():
    with pytest.raises(ValueError, match="get_customer'"):
        trifecta_legs(exfiltration.make_exfiltration_registry(), ["get_customer"])
