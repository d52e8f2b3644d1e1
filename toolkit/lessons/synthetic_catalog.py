"""A ToolBench-sized synthetic catalog, for measuring tool retrieval at scale (pack §2.4).

ToolBench collected 16,464 real REST APIs [4]. We cannot ship those, so this builds a seeded
stand-in with the property that makes retrieval slow: word frequencies that follow a Zipf
law, so a few words appear in most descriptions and most words are rare.
"""

from __future__ import annotations

import random
from itertools import accumulate

__all__ = ["zipf_catalog", "zipf_queries", "TOOLBENCH_SIZE"]

TOOLBENCH_SIZE = 16464


def _vocabulary(size: int, rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words: list[str] = []
    seen = set()
    while len(words) < size:
        w = "".join(rng.choice(letters) for _ in range(rng.randint(3, 9)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


def _sampler(vocab_size: int, exponent: float):
    weights = [1.0 / (rank**exponent) for rank in range(1, vocab_size + 1)]
    return list(accumulate(weights))


def zipf_catalog(
    n_tools: int = TOOLBENCH_SIZE,
    words_per_tool: int = 20,
    vocab_size: int = 20000,
    exponent: float = 1.0,
    seed: int = 0,
) -> list[dict]:
    """``n_tools`` tool schemas whose descriptions are ``words_per_tool`` Zipf-drawn words.

    Returns ``[{"name", "description", "inputSchema"}]`` dicts, which ToolIndex accepts.

    Used by: benchmarks/bench_retrieval.py.
    """
    rng = random.Random(seed)
    vocab = _vocabulary(vocab_size, rng)
    cum = _sampler(vocab_size, exponent)
    tools = []
    for i in range(n_tools):
        words = rng.choices(vocab, cum_weights=cum, k=words_per_tool)
        tools.append(
            {
                "name": f"api_{i:05d}",
                "description": " ".join(words),
                "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
            }
        )
    return tools


def zipf_queries(
    n_queries: int = 300, words_per_query: int = 4, vocab_size: int = 20000, exponent: float = 1.0, seed: int = 0
) -> list[str]:
    """Queries drawn from the same vocabulary and word frequencies as :func:`zipf_catalog`.

    Used by: benchmarks/bench_retrieval.py.
    """
    rng = random.Random(seed)
    vocab = _vocabulary(vocab_size, rng)  # same seed, same words, same ranks as the catalog
    cum = _sampler(vocab_size, exponent)
    qrng = random.Random(seed + 1)
    return [" ".join(qrng.choices(vocab, cum_weights=cum, k=words_per_query)) for _ in range(n_queries)]
