"""toolkit.lessons.skills: names up front, instructions when used (notebook 07)."""

from toolkit.lessons.skills import SKILLS, prompt_tokens, skill_catalog, skill_registry


def test_the_catalog_holds_names_and_descriptions_only_and_costs_a_fraction_of_the_bodies():
    catalog = skill_catalog()
    assert [c["name"] for c in catalog] == [s["name"] for s in SKILLS]
    assert all(set(c) == {"name", "description"} for c in catalog)
    assert prompt_tokens(catalog) * 3 < prompt_tokens(SKILLS)


def test_use_skill_returns_the_instructions_and_files_of_the_named_skill():
    result = skill_registry().run("use_skill", {"name": "quarterly-report"})
    assert result.ok and result.data["files"] == ["group_orders.py", "report_template.md"]
    assert result.data["instructions"].startswith("1. Fetch orders")


def test_a_wrong_name_gets_a_sentence_with_the_nearest_skill():
    result = skill_registry().run("use_skill", {"name": "refund_policy"})
    assert not result.ok and "Did you mean 'refund-policy'?" in result.content
    assert "Did you mean" not in skill_registry().run("use_skill", {"name": "zzz"}).content
