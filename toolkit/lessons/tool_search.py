"""Tool search with deferred loading over the BM25 index (notebook 04; pack §2.4, beyond the pack).

The model starts with one tool, ``tool_search``. Its results are names and descriptions from
the course's :class:`~toolkit.selection.ToolIndex`, and each tool it returns is registered at
that moment, so the loop shows that tool's full schema to the model from the next turn on.
Hosted APIs offer the same thing as "deferred loading" (Anthropic's tool search tool, reference
[34]); here it is built from the course's own parts so its cost and recall can be measured.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..loop import call, run_agent
from ..registry import ToolRegistry
from ..selection import ToolIndex, schema_size_estimate

__all__ = ["deferred_registry", "TopHitMock", "compare_loading"]


def deferred_registry(catalog: Iterable, k: int = 3) -> tuple[ToolRegistry, list[str]]:
    """A registry holding only ``tool_search``; each search registers the tools it returns.

    Returns ``(registry, loaded)``: ``loaded`` lists the names the searches have loaded so
    far, in order. A tool is loaded once, however often it is found again.

    Notebook 04.
    """
    tools = list(catalog)
    index, by_name = ToolIndex(tools), {t.name: t for t in tools}
    registry, loaded = ToolRegistry(), []

    def tool_search(query: str) -> list:
        """Find tools for a need and load them, so they can be called from the next turn.

        Args:
            query: what the user wants done, in plain words
        """
        hits = [name for name, _ in index.search(query, k=k)]
        for name in hits:
            if name not in registry:
                registry.register(by_name[name])
                loaded.append(name)
        return [{"name": n, "description": by_name[n].description} for n in hits]

    registry.add(tool_search)
    return registry, loaded


class TopHitMock:
    """A mock model (no language model anywhere) that calls the best tool it can see.

    With ``tool_search`` among its tools and nothing found yet, it searches for the user's
    words. Then it calls the first search result (or, with every tool shown, the BM25 top hit
    over them) with the user's words as the required argument, and answers. It records the
    rough token cost (characters / 4) of the schemas it was sent on each turn in ``sent``.

    Notebook 04.
    """

    def __init__(self) -> None:
        self.sent: list[int] = []

    def respond(self, messages: list, tools: list) -> dict:
        self.sent.append(schema_size_estimate(tools))
        user = next(m["content"] for m in messages if m["role"] == "user")
        asked = [c["name"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        if len(asked) >= 2 or (asked and asked[-1] != "tool_search"):
            return {"content": f"done: called {asked[-1]}"}
        visible = {t["name"]: t for t in tools}
        if "tool_search" in visible and not asked:
            return {"tool_calls": [call("c1", "tool_search", query=user)]}
        if asked:  # the search ran: take its first hit
            found = next(m for m in reversed(messages) if m["role"] == "tool")["content"]
            name = next((t["name"] for t in visible.values() if f'"{t["name"]}"' in found), None)
        else:  # every tool is in the prompt: rank them all
            name = ToolIndex(list(visible.values())).search(user, k=1)[0][0]
        if name is None:
            return {"content": "no tool found"}
        required = visible[name]["inputSchema"].get("required", [])
        return {"tool_calls": [call("c2", name, **{p: user for p in required})]}


def compare_loading(catalog: Iterable, queries: Iterable, k: int = 3) -> dict[str, dict[str, Any]]:
    """Every tool in the prompt against tool search with deferred loading, run by run.

    For each (query, right tool) pair the mock runs through :func:`~toolkit.loop.run_agent`
    twice. Returns, per approach, the mean tokens of schemas sent per request and per run
    (characters / 4), the search results' tokens per run, the number of model turns, the share
    of runs in which the right tool was in view (recall@k of the search; always 1 with every
    tool shown) and the share that called it.

    Notebook 04.
    """
    tools, pairs = list(catalog), list(queries)
    rows: dict[str, dict[str, Any]] = {}
    for label in ("every tool", "tool search"):
        per_request, per_run, found_tokens, in_view, hits, turns = [], [], 0, 0, 0, 0
        for query, gold in pairs:
            if label == "every tool":
                registry, loaded = ToolRegistry(), [t.name for t in tools]
                for tool in tools:
                    registry.register(tool)
            else:
                registry, loaded = deferred_registry(tools, k=k)
            mock = TopHitMock()
            result = run_agent(mock, registry, query, call_timeout=None)
            called = [c["name"] for c, _ in result.results]
            hits += gold in called
            in_view += gold in loaded
            found_tokens += sum(len(m["content"]) // 4 for m in result.messages if m.get("name") == "tool_search")
            per_request += mock.sent
            per_run.append(sum(mock.sent))
            turns += len(mock.sent)
        rows[label] = {
            "tokens per request": round(sum(per_request) / len(per_request)),
            "tokens per run": round(sum(per_run) / len(per_run)),
            "search results per run": round(found_tokens / len(pairs)),
            "model turns": turns,
            "right tool in view": in_view / len(pairs),
            "right tool called": hits / len(pairs),
        }
    return rows
