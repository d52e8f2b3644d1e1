"""Picking a few tools out of many: a BM25 index over tool descriptions.

Pack §2.4 ("Picking tools: a retrieval problem"). Each tool is a document made of its name,
its description and its parameter names. A query returns the best k tools, so the model sees
a short menu instead of every schema.

A tool's score is the BM25 sum over the distinct words of the query, each counted once however
often it is typed: idf = ln(1 + (N - df + 0.5) / (df + 0.5)) times tf (k1 + 1) / (tf + k1 (1 - b
+ b dl / avgdl)). That is the pack's index, and what bm25s computes with method="atire",
idf_method="lucene" when given each distinct word once.

The index gives exactly the scores of the plain loop (see :func:`plain_bm25_search`)
but does far less work on big catalogs. Each posting stores its finished contribution
(idf times the saturated term frequency), and terms are visited from the highest possible
contribution down. Once the k-th best partial score is larger than everything the remaining
terms could add, no new document can enter the top k, so the remaining (frequent, low-idf)
terms only update documents already in play; this is the MaxScore idea of Turtle and Flood
(1995). The survivors are then scored again word by word in first-seen order, so the floating
point sums, and therefore ties, match the plain loop bit for bit.
"""

from __future__ import annotations

import heapq
import json
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable
from itertools import repeat
from operator import add
from typing import Any

__all__ = [
    "STOP_WORDS",
    "tokenize",
    "query_words",
    "ToolIndex",
    "plain_bm25_search",
    "PlainBM25Index",
    "bm25_term_weight",
    "selection_recall",
    "schema_size_estimate",
    "tool_text",
    "as_schema",
]

STOP_WORDS = frozenset(
    "a an the of for to in on and or is are be me my it its what whats which how do does "
    "with from at by this that".split()
)
_WORD = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Lower case; ``_`` and ``-`` split words; runs of ``[a-z0-9]``; stop words removed.

    Notebook 04.
    """
    text = (text or "").lower().replace("_", " ").replace("-", " ")
    return [w for w in _WORD.findall(text) if w not in STOP_WORDS]


def query_words(query: str) -> list[str]:
    """The words a query is scored on: its tokens, each distinct word once, in first-seen order.

    Pack §2.4 (API.md §4): BM25 adds one term per distinct query word, so "soup soup" scores as
    "soup". Every scoring path here goes through this function.

    Notebook 04, through ToolIndex.
    """
    return list(dict.fromkeys(tokenize(query)))


def as_schema(tool: Any) -> dict:
    """A tool's ``{"name", "description", "inputSchema"}``, from a Tool or a schema dict.

    Notebook 04, through tool_text.
    """
    if hasattr(tool, "schema") and callable(tool.schema):
        return tool.schema()
    if isinstance(tool, dict):
        schema = tool.get("inputSchema") or tool.get("input_schema") or tool.get("parameters") or {}
        return {"name": tool.get("name", ""), "description": tool.get("description", ""), "inputSchema": schema}
    raise TypeError(f"expected a Tool or a tool schema dict, got {type(tool).__name__}")


def _as_list(tools: Any) -> list:
    if hasattr(tools, "tools") and callable(tools.tools):  # a ToolRegistry
        return tools.tools()
    return list(tools)


def tool_text(tool: Any) -> str:
    """The text BM25 indexes for a tool: name, description and parameter names.

    Notebook 04.
    """
    schema = as_schema(tool)
    params = (schema["inputSchema"] or {}).get("properties") or {}
    return " ".join([schema["name"], schema["description"] or "", *params])


def bm25_term_weight(idf: float, tf: int, dl: int, avgdl: float, k1: float, b: float) -> float:
    """One query word's BM25 contribution to one document's score (pack §2.4):
    idf times the saturated term frequency tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)).

    Computed in that order (the tf part first, then times idf), as bm25s does, so the two agree
    to the last bit.

    Notebook 04.
    """
    return idf * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + b * dl / avgdl)))


def _idf(n_docs: int, df: int) -> float:
    """ln(1 + (N - df + 0.5) / (df + 0.5)): never negative, unlike Robertson's original."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


class ToolIndex:
    """BM25 over a catalog of tools. ``search(query, k)`` gives ``[(name, score)]``.

    A tool's score is the sum, over the distinct words of the query (:func:`query_words`), of
    :func:`bm25_term_weight`; a word said twice counts once. Scores are rounded to 3 places,
    best first, ties in catalog order, zero scores left out.

    Notebooks 04, 07.
    """

    def __init__(self, tools: Iterable, k1: float = 1.5, b: float = 0.75) -> None:
        self.tools = _as_list(tools)
        self.k1 = k1
        self.b = b
        self.names = [as_schema(t)["name"] for t in self.tools]
        docs = [Counter(tokenize(tool_text(t))) for t in self.tools]
        self.doc_len = [sum(c.values()) for c in docs]
        n = len(docs)
        self.avgdl = (sum(self.doc_len) / n) if n else 0.0
        df: Counter = Counter()
        for c in docs:
            df.update(c.keys())
        self.idf = {t: _idf(n, d) for t, d in df.items()}
        self._postings: dict[str, dict[int, float]] = {t: {} for t in df}
        for doc_id, counts in enumerate(docs):
            dl = self.doc_len[doc_id]
            for term, tf in counts.items():
                self._postings[term][doc_id] = bm25_term_weight(self.idf[term], tf, dl, self.avgdl or 1.0, k1, b)
        self._max = {t: max(p.values()) for t, p in self._postings.items()}

    def __len__(self) -> int:
        return len(self.tools)

    def scores(self, query: str) -> list[float]:
        """The full score of every tool, in catalog order (for plots and checks)."""
        out = [0.0] * len(self.tools)
        for term in query_words(query):
            for doc_id, w in self._postings.get(term, {}).items():
                out[doc_id] += w
        return out

    def search(self, query: str, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` best tools for ``query`` as ``[(name, score rounded to 3 places)]``.

        The readable core: keep the query words some tool has, score the tools that could make
        the top ``k``, sort. The speed-up is :meth:`maxscore_candidates`: it only rules out
        tools that cannot reach the top ``k``; with every tool as a candidate the answer is
        the same (that is :class:`PlainBM25Index`).
        """
        if k <= 0 or not self.tools:
            return []
        terms = [t for t in query_words(query) if t in self._postings]  # other words add 0
        if not terms:
            return []
        candidates = self.maxscore_candidates(terms, k)
        scored = [(-self.tool_score(doc_id, terms), doc_id) for doc_id in candidates]
        best = heapq.nsmallest(k, scored)  # highest score first, ties in catalog order
        return [(self.names[d], round(-s, 3)) for s, d in best if -s > 0]

    def tool_score(self, doc_id: int, terms: list[str]) -> float:
        """One tool's BM25 score: each query word's stored :func:`bm25_term_weight`, added in
        query order (so sums, and ties, agree with the plain loop bit for bit)."""
        score = 0.0
        for term in terms:
            score += self._postings[term].get(doc_id, 0.0)
        return score

    def maxscore_candidates(self, terms: list[str], k: int) -> list[int]:
        """The speed-up: the tools that can still reach the top ``k`` (MaxScore pruning).

        Terms are visited from the largest possible contribution down, adding partial scores.
        Once the rest could not lift a tool not yet seen past the k-th best partial score, only
        tools already in play are updated, and those that cannot catch up are dropped. Every
        tool of the true top ``k`` survives; :meth:`tool_score` then scores them exactly.
        """
        order = sorted(terms, key=self._max.__getitem__, reverse=True)
        rest = [0.0] * (len(order) + 1)  # rest[i]: the most terms i, i+1, ... can still add
        for i in range(len(order) - 1, -1, -1):
            rest[i] = rest[i + 1] + self._max[order[i]]
        acc: dict[int, float] = {}
        i = 0
        # phase 1: every document in these postings is a candidate
        while i < len(order):
            # The k-th best partial score is at most what the terms so far can give
            # (rest[0] - rest[i]); only when the rest could give less is it worth computing.
            if (
                i
                and len(acc) >= k
                and rest[i] < rest[0] - rest[i]
                and rest[i] < _below(heapq.nlargest(k, acc.values())[-1])
            ):
                break  # a document not seen yet can no longer reach the top k
            posting = self._postings[order[i]]
            if not acc:
                acc = dict(posting)
            else:
                docs: Collection[int] = posting.keys()
                acc.update(zip(docs, map(add, map(acc.get, docs, repeat(0.0)), posting.values())))
            i += 1
        # phase 2: the remaining terms only add to documents already in play
        while i < len(order):
            floor = _below(heapq.nlargest(k, acc.values())[-1])
            acc = {d: s for d, s in acc.items() if s + rest[i] >= floor}
            posting = self._postings[order[i]]
            docs = (
                list(filter(posting.__contains__, acc))
                if len(acc) <= len(posting)
                else list(filter(acc.__contains__, posting))
            )
            acc.update(zip(docs, map(add, map(acc.__getitem__, docs), map(posting.__getitem__, docs))))
            i += 1
        floor = _below(heapq.nlargest(k, acc.values())[-1]) if len(acc) >= k else 0.0
        return [doc_id for doc_id, approx in acc.items() if approx >= floor]


def _below(x: float) -> float:
    """A little under ``x``: pruning must never drop a document that ties it after rounding."""
    return x - 1e-9 * (1.0 + abs(x))


class PlainBM25Index:
    """The textbook loop: score every tool against every distinct query word, then sort.

    Word counts, document frequencies and lengths are computed once, as any sensible first
    version would; the cost is in the query, which touches every document. It is the
    reference that :class:`ToolIndex` must agree with exactly, and the baseline the
    benchmarks compare it with.

    Notebook 04.
    """

    def __init__(self, tools: Iterable, k1: float = 1.5, b: float = 0.75) -> None:
        self.tools = _as_list(tools)
        self.k1, self.b = k1, b
        self.names = [as_schema(t)["name"] for t in self.tools]
        self.docs = [Counter(tokenize(tool_text(t))) for t in self.tools]
        self.lengths = [sum(d.values()) for d in self.docs]
        n = len(self.docs)
        self.avgdl = sum(self.lengths) / n if n else 0.0
        df: Counter = Counter()
        for d in self.docs:
            df.update(d.keys())
        self.idf = {t: _idf(n, c) for t, c in df.items()}

    def search(self, query: str, k: int = 5) -> list[tuple[str, float]]:
        if k <= 0 or not self.docs:
            return []
        q = query_words(query)
        scored = []
        for doc_id, doc in enumerate(self.docs):
            score = 0.0
            for term in q:
                tf = doc.get(term, 0)
                if tf:
                    score += bm25_term_weight(self.idf[term], tf, self.lengths[doc_id], self.avgdl, self.k1, self.b)
            scored.append((-score, doc_id))
        scored.sort()
        return [(self.names[d], round(-s, 3)) for s, d in scored[:k] if -s > 0]


def plain_bm25_search(
    tools: Iterable, query: str, k: int = 5, k1: float = 1.5, b: float = 0.75
) -> list[tuple[str, float]]:
    """One query through :class:`PlainBM25Index` (builds the index each time).

    Used by: toolkit/__init__.py.
    """
    return PlainBM25Index(tools, k1, b).search(query, k)


def selection_recall(index: ToolIndex, queries: Iterable, k: int) -> float:
    """The share of ``(query, gold tool)`` pairs whose gold tool is in the top ``k``.

    Notebook 04.
    """
    pairs = list(queries)
    if not pairs:
        raise ValueError("selection_recall needs at least one (query, gold tool) pair")
    hits = sum(1 for query, gold in pairs if gold in [n for n, _ in index.search(query, k)])
    return hits / len(pairs)


def schema_size_estimate(tools: Iterable) -> int:
    """A rough token count for showing these tools to a model: JSON characters / 4.

    The same rule of thumb the pack uses in §2.4; real tokenizers differ.

    Notebooks 04, 05, 07.
    """
    return len(json.dumps([as_schema(t) for t in _as_list(tools)])) // 4
