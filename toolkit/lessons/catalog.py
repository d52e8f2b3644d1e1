"""The 48-tool practice catalog of pack §2.4, built from ``data/catalog.json``.

Eight domains times six actions gives tools named ``<domain>_<action>`` whose descriptions
share most of their words, which is exactly what makes picking among them hard.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..data import load_json
from ..registry import Tool

__all__ = ["make_catalog", "expand_query", "CATALOG_QUERIES", "CATALOG_DOMAINS", "CATALOG_ACTIONS"]

_CATALOG = load_json("catalog.json")
CATALOG_DOMAINS: list[dict] = _CATALOG["domains"]
CATALOG_ACTIONS: list[dict] = _CATALOG["actions"]
CATALOG_QUERIES: list[tuple[str, str]] = [tuple(q) for q in _CATALOG["queries"]]


def _stub(name: str):
    def run(**arguments: Any) -> dict:
        return {"tool": name, "arguments": arguments, "note": "catalog stub: nothing was done"}

    run.__name__ = name
    return run


def _domains(domains: Any) -> list[dict]:
    if domains is None:
        return CATALOG_DOMAINS
    if isinstance(domains, Mapping):  # {name: {"words", "param", ...}} for a custom catalog
        return [{"name": n, **spec} for n, spec in domains.items()]
    by_name = {d["name"]: d for d in CATALOG_DOMAINS}
    out = []
    for d in domains:
        if isinstance(d, Mapping):
            out.append(dict(d))
        elif d in by_name:
            out.append(by_name[d])
        else:
            raise ValueError(f"unknown catalog domain {d!r}; choose from {', '.join(by_name)}")
    return out


def make_catalog(
    domains: Iterable | Mapping | None = None, descriptions: Mapping[str, str] | None = None
) -> list[Tool]:
    """The catalog's tools, domain by domain, action by action.

    ``domains`` picks a subset by name (or gives custom domains as dicts with ``name``,
    ``words`` and ``param``). ``descriptions`` replaces the description of named tools, which
    is how exercise 8 tries better wording.

    Notebooks 04, 07.
    """
    tools = []
    for dom in _domains(domains):
        param = dom["param"]
        for act in CATALOG_ACTIONS:
            name = f"{dom['name']}_{act['name']}"
            props: dict = {param: {"type": "string", "description": dom.get("param_description", param)}}
            if act["takes_id"]:
                props["id"] = {"type": "string"}
            schema = {"type": "object", "properties": props, "required": [param], "additionalProperties": False}
            description = act["description"].format(d=dom["words"])
            if descriptions and name in descriptions:
                description = descriptions[name]
            tools.append(
                Tool(name, description, _stub(name), schema, read_only=act["read_only"], destructive=act["destructive"])
            )
    return tools


def expand_query(query: str, synonyms: dict[str, str]) -> str:
    """The query plus the words of every synonym phrase it contains (whole words, any case).

    Used by: toolkit/checks/ex08.py.
    """
    extra = [
        words
        for phrase, words in synonyms.items()
        if re.search(r"(?<![a-z0-9])" + re.escape(phrase.lower()) + r"(?![a-z0-9])", query.lower())
    ]
    return " ".join([query] + extra)
