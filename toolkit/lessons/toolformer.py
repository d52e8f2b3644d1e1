"""Toolformer's filter, by hand, on a language model small enough to train in a second.

Pack §2.3 ("Toolformer: let the model label its own data") [1]. Notebook 03 uses this module.

Toolformer keeps a sampled call only if putting the call and its result in front of the text
makes the next few tokens easier to predict: keep it when ``L⁻ − L⁺ ≥ τ_f``, where ``L⁺`` is
the weighted loss with the call and its result, and ``L⁻`` is the smaller of the loss with no
call and the loss with the call but no result [1]. This module runs that test end to end:

* :func:`make_corpus` writes a small seeded corpus of sentences, some with sums in them;
* :class:`TinyLM` is the language model: a word model that also knows numbers tend to repeat
  numbers seen shortly before (a "copy memory"), trained by counting plus a few rounds of EM;
* :func:`candidate_calls` proposes calculator calls (a stand-in for Toolformer's sampling
  step: every position after two numbers, every way to combine two of them);
* :func:`score_call` computes ``L⁻``, ``L⁺`` and their difference with the paper's weights
  ``w_t ∝ max(0, 1 − 0.2 t)`` over the next five tokens [1];
* :func:`run_filter` scores every candidate of a corpus, and :func:`filter_summary` counts
  what survives at a threshold, next to the paper's Table 2 counts for the calculator
  (:data:`PAPER_TABLE2_CALCULATOR`).

The model is a toy: a few hundred words of vocabulary, not GPT-J's 6.7 billion parameters
[1]. Its counts show the shape of the trade-off, not the paper's numbers. Standard library only;
deterministic for a given seed.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from ..registry import ToolError
from .calculator import calculate

__all__ = [
    "PAPER_TABLE2_CALCULATOR",
    "LOSS_WEIGHTS",
    "tokenize",
    "detokenize",
    "is_number",
    "make_corpus",
    "TinyLM",
    "Candidate",
    "candidate_calls",
    "score_call",
    "run_filter",
    "filter_summary",
    "format_call",
    "insert_call",
    "explain_call",
    "best_per_text",
    "threshold_table",
    "format_threshold_table",
    "near_threshold",
    "FilterRun",
    "filter_run",
    "format_explanation",
]

# Toolformer, Table 2: examples with calculator calls left after filtering, by τ_f [1].
PAPER_TABLE2_CALCULATOR = {0.5: 3680, 1.0: 994, 2.0: 138}

# The paper's weights over the tokens after the call: w̃_t = max(0, 1 − 0.2 t), normalised [1].
_RAW_WEIGHTS = [max(0.0, 1.0 - 0.2 * t) for t in range(5)]
LOSS_WEIGHTS = tuple(w / sum(_RAW_WEIGHTS) for w in _RAW_WEIGHTS)

_TOKEN = re.compile(r"\d+(?:\.\d+)?|[a-z]+|[^\sa-z\d]")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_OPS = ("+", "-", "*", "/")


def tokenize(text: str) -> list[str]:
    """Lower-case words, whole numbers (``84``, ``1.5``) and single punctuation marks.

    Notebook 03.
    """
    if not isinstance(text, str):
        raise TypeError(f"tokenize needs text, got {type(text).__name__}")
    return _TOKEN.findall(text.lower())


def detokenize(tokens: list[str]) -> str:
    """Tokens back to readable text (spaces before punctuation removed).

    Notebook 03, through best_per_text.
    """
    text = " ".join(tokens)
    return re.sub(r" ([.,;:!?])", r"\1", text)


def is_number(token: str) -> bool:
    """Is the token a number, such as ``42``, ``-7`` or ``3.5``?

    Notebook 03, through TinyLM.
    """
    return bool(_NUMBER.match(token))


# --------------------------------------------------------------------------------------------
# a small corpus, written by templates

_NAMES = ["ana", "ben", "chen", "dara", "eli", "farah", "gus", "hana", "ivo", "june", "kofi", "lena"]


# Sentences whose numbers a calculator call would help predict: a's range, b's range (which
# may depend on a), and the sentence, with a + b, a - b or a * b written out.
_SUMS = [
    ((2, 40), lambda a: (2, 40), "{name} packed {a} boxes with {b} cups in each , so {name} packed {product} cups ."),
    ((3, 400), lambda a: (3, 400), "the walk was {a} km before lunch and {b} km after it , {sum} km in all ."),
    ((20, 900), lambda a: (2, a - 2), "of the {a} seats , {b} were sold and {difference} are still free ."),
    ((2, 12), lambda a: (2, 12), "{product} cakes for {a} guests gives each guest {b} cakes ."),
    ((3, 99), lambda a: (2, 12), "each ticket is {a} dollars , so {b} tickets cost {product} dollars ."),
    (
        (30, 999),
        lambda a: (2, a - 5),
        "the tank held {a} litres ; after {b} litres leaked it held {difference} litres .",
    ),
]


def _sum_sentence(rng: random.Random) -> str:
    name = rng.choice(_NAMES)
    a_range, b_range, sentence = _SUMS[rng.randrange(len(_SUMS))]
    a = rng.randint(*a_range)
    b = rng.randint(*b_range(a))
    return sentence.format(name=name, a=a, b=b, sum=a + b, difference=a - b, product=a * b)


def _repeat_sentence(rng: random.Random) -> str:
    n = rng.randint(1, 300)
    return rng.choice(
        [
            f"take bus {n} to the park . bus {n} stops by the gate .",
            f"our room is {n} . room {n} is on the top floor .",
            f"ring extension {n} ; extension {n} is in my office .",
            f"the code is {n} , and {n} opens the side door too .",
        ]
    )


def _plain_sentence(rng: random.Random) -> str:
    name = rng.choice(_NAMES)
    return rng.choice(
        [
            f"the bridge was built in {rng.randint(1850, 2020)} .",
            f"{name} turned {rng.randint(5, 80)} last spring .",
            f"the shop opens at {rng.randint(6, 10)} every morning .",
            f"{name} likes to read in the garden .",
            "the market is busy on sunday .",
            f"{name} walked to the station with a friend .",
        ]
    )


def make_corpus(n: int, seed: int = 0, share_sums: float = 0.5, share_repeats: float = 0.2) -> list[str]:
    """``n`` short texts: a ``share_sums`` part with a sum whose answer appears in the text,
    a ``share_repeats`` part where a number comes back, the rest plain. Seeded.

    Notebook 03.
    """
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a whole number of texts, 0 or more, got {n!r}")
    if not (0 <= share_sums and 0 <= share_repeats and share_sums + share_repeats <= 1):
        raise ValueError("share_sums and share_repeats must be between 0 and 1 and add up to 1 or less")
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        roll = rng.random()
        if roll < share_sums:
            texts.append(_sum_sentence(rng))
        elif roll < share_sums + share_repeats:
            texts.append(_repeat_sentence(rng))
        else:
            texts.append(_plain_sentence(rng))
    return texts


# --------------------------------------------------------------------------------------------
# the tiny language model

_START, _NUM_PREV = "<s>", "<num>"


class TinyLM:
    """A toy language model: word statistics plus a memory for numbers seen before.

    The chance of the next token, given the previous one and the numbers seen so far:

    * first, word or number? ``P(number | previous token)``, counted from the corpus;
    * a word: a mix of "which word follows the previous one" (bigram) and how common the
      word is (unigram);
    * a number: with weight ``1 − copy_weight``, how common that number is (every number, even
      one never seen, gets a small share); with weight ``copy_weight``, a copy of a number in
      the memory. The memory holds the numbers earlier in the text, plus those in any prefix,
      which is where a tool call and its result go.

    ``copy_weight`` is learned from the corpus by EM: it ends up as the share of numbers that
    are best explained as repeats. Pack §2.3 [1]: this is the model whose loss the filter reads.

    Notebook 03.
    """

    # totals that train() stores once, so that each probability is one division
    _after_totals: dict[str, int]
    _n_words: int
    _n_numbers: int

    def __init__(
        self, bigram_weight: float = 0.8, number_smoothing: float = 0.1, number_universe: int = 10_000
    ) -> None:
        self.bigram_weight = bigram_weight
        self.number_smoothing = number_smoothing
        self.number_universe = number_universe
        self.class_counts: dict[str, Counter] = defaultdict(Counter)
        self.word_after: dict[str, Counter] = defaultdict(Counter)
        self.word_counts: Counter = Counter()
        self.number_counts: Counter = Counter()
        self.copy_weight = 0.5
        self.trained_on = 0

    # -- training -----------------------------------------------------------------------

    @staticmethod
    def _prev(token: str | None) -> str:
        if token is None:
            return _START
        return _NUM_PREV if is_number(token) else token

    @classmethod
    def train(cls, texts: list[str], em_rounds: int = 30, **options) -> TinyLM:
        """Count the corpus, then fit ``copy_weight`` by ``em_rounds`` rounds of EM."""
        if not texts:
            raise ValueError("train needs at least one text")
        lm = cls(**options)
        tokenized = [tokenize(t) for t in texts]
        for tokens in tokenized:
            prev = None
            for tok in tokens:
                p = cls._prev(prev)
                if is_number(tok):
                    lm.class_counts[p]["num"] += 1
                    lm.number_counts[tok] += 1
                else:
                    lm.class_counts[p]["word"] += 1
                    lm.word_after[p][tok] += 1
                    lm.word_counts[tok] += 1
                prev = tok
        lm._after_totals = {p: sum(c.values()) for p, c in lm.word_after.items()}
        lm._n_words = sum(lm.word_counts.values())
        lm._n_numbers = sum(lm.number_counts.values())
        # EM for the copy weight: which numbers are better explained as repeats?
        cases = []  # (P_unigram(token), copy share of token) for numbers with a memory
        for tokens in tokenized:
            memory: Counter = Counter()
            size = 0
            for tok in tokens:
                if is_number(tok):
                    if size:
                        cases.append((lm._p_number(tok), memory[tok] / size))
                    memory[tok] += 1
                    size += 1
        for _ in range(em_rounds):
            if not cases:
                break
            w = lm.copy_weight
            lm.copy_weight = sum(w * c / (w * c + (1 - w) * u) for u, c in cases) / len(cases)
        lm.trained_on = len(texts)
        return lm

    # -- probabilities --------------------------------------------------------------------

    def _p_number(self, token: str) -> float:
        a = self.number_smoothing
        return (self.number_counts[token] + a) / (self._n_numbers + a * self.number_universe)

    def _p_word(self, prev: str, token: str) -> float:
        unigram = (self.word_counts[token] + 1) / (self._n_words + len(self.word_counts) + 1)
        total = self._after_totals.get(prev, 0)
        if not total:
            return unigram
        return self.bigram_weight * self.word_after[prev][token] / total + (1 - self.bigram_weight) * unigram

    def prob(self, prev: str | None, token: str, memory: Counter, memory_size: int) -> float:
        """``P(token | previous token, numbers in memory)``."""
        p = self._prev(prev)
        counts = self.class_counts.get(p)
        n_num, n_word = (counts["num"], counts["word"]) if counts else (0, 0)
        p_num = (n_num + 1) / (n_num + n_word + 2)
        if not is_number(token):
            return (1 - p_num) * self._p_word(p, token)
        unigram = self._p_number(token)
        if memory_size:
            w = self.copy_weight
            return p_num * ((1 - w) * unigram + w * memory[token] / memory_size)
        return p_num * unigram

    def token_losses(
        self, tokens: list[str], start: int = 0, stop: int | None = None, prefix_numbers: tuple = ()
    ) -> list[float]:
        """``−ln P`` of ``tokens[start:stop]``, each given everything before it and the
        numbers of a prefix (a tool call put in front of the text)."""
        stop = len(tokens) if stop is None else min(stop, len(tokens))
        memory: Counter = Counter(prefix_numbers)
        size = len(prefix_numbers)
        out = []
        for j, tok in enumerate(tokens[:stop]):
            if j >= start:
                out.append(-math.log(self.prob(tokens[j - 1] if j else None, tok, memory, size)))
            if is_number(tok):
                memory[tok] += 1
                size += 1
        return out

    def mean_loss(self, texts: list[str]) -> float:
        """Average ``−ln P`` per token over ``texts`` (nats); lower is better."""
        losses = [x for t in texts for x in self.token_losses(tokenize(t))]
        if not losses:
            raise ValueError("mean_loss needs at least one token")
        return sum(losses) / len(losses)

    def describe(self) -> str:
        return (
            f"TinyLM trained on {self.trained_on} texts: {len(self.word_counts)} words, "
            f"{len(self.number_counts)} different numbers, learned copy weight "
            f"{self.copy_weight:.3f}"
        )


# --------------------------------------------------------------------------------------------
# the filter


@dataclass
class Candidate:
    """One sampled call at one position of one text, with its three losses (nats, weighted).

    Notebook 03, through best_per_text.
    """

    text_id: int
    position: int  # the call goes in front of tokens[position]
    expression: str  # e.g. "12 * 7"
    result: str  # what the calculator returned, e.g. "84"
    loss_plain: float  # L(ε): no call
    loss_call: float  # L(e(c, ε)): the call without its result
    loss_result: float  # L(e(c, r)) = L⁺: the call and its result
    tokens: list = field(repr=False, default_factory=list)
    loss_minus: float = field(init=False)  # L⁻: the better of "no call" and "call, no result" [1]
    gain: float = field(init=False)  # L⁻ − L⁺: keep the call if this is ≥ τ_f

    def __post_init__(self) -> None:
        self.loss_minus = min(self.loss_plain, self.loss_call)
        self.gain = self.loss_minus - self.loss_result

    def kept(self, tau: float) -> bool:
        return self.gain >= tau

    def augmented(self) -> str:
        return insert_call(self.tokens, self.position, self.expression, self.result)


def format_call(expression: str, result: str | None = None) -> str:
    """A call as Toolformer writes it into text: ``[Calculator(12 * 7) → 84]`` [1].

    Notebook 03, through best_per_text.
    """
    return f"[Calculator({expression})" + (f" → {result}]" if result is not None else "]")


def insert_call(tokens: list[str], position: int, expression: str, result: str | None) -> str:
    """The text with the call written in at ``position``, as the fine-tuning data has it.

    Notebook 03, through best_per_text.
    """
    return detokenize(tokens[:position] + [format_call(expression, result)] + tokens[position:])


def _numbers_in(expression: str) -> tuple:
    return tuple(t for t in tokenize(expression) if is_number(t))


def candidate_calls(tokens: list[str]) -> list[tuple[int, str, str]]:
    """``(position, expression, result)`` for every calculator call worth trying.

    A stand-in for Toolformer's sampling step [1]: the paper asks the model where a call is
    likely and samples calls there; here every position after the second number gets every
    ``x op y`` from two different earlier numbers. The filter must then throw most away.

    Notebook 03, through run_filter.
    """
    out = []
    for position in range(1, len(tokens) + 1):
        earlier = [t for t in tokens[:position] if is_number(t)]
        if len(earlier) < 2:
            continue
        pairs = []
        for i, x in enumerate(earlier):
            for j, y in enumerate(earlier):
                if i != j and (x, y) not in pairs:
                    pairs.append((x, y))
        for x, y in pairs:
            for op in _OPS:
                expression = f"{x} {op} {y}"
                try:
                    result = calculate(expression)
                except ToolError:
                    continue
                out.append((position, expression, result))
    return out


def _weighted(losses: list[float]) -> float:
    return sum(w * x for w, x in zip(LOSS_WEIGHTS, losses))


def score_call(
    lm: TinyLM, tokens: list[str], position: int, expression: str, result: str | None = None, text_id: int = 0
) -> Candidate:
    """The three weighted losses of the tokens after ``position`` (pack §2.3, step 3).

    As in the paper, the call goes in front of the text as a prefix rather than into the
    middle of it [1]; for this model that means its numbers join the copy memory.

    Used by: tests/test_toolformer.py.
    """
    if not 0 <= position <= len(tokens):
        raise ValueError(f"position {position} is outside a text of {len(tokens)} tokens")
    if result is None:
        result = calculate(expression)
    stop = position + len(LOSS_WEIGHTS)
    call_numbers = _numbers_in(expression)
    plain = _weighted(lm.token_losses(tokens, position, stop))
    with_call = _weighted(lm.token_losses(tokens, position, stop, call_numbers))
    with_result = _weighted(lm.token_losses(tokens, position, stop, call_numbers + (result,)))
    return Candidate(text_id, position, expression, result, plain, with_call, with_result, tokens)


def run_filter(lm: TinyLM, texts: list[str]) -> list[Candidate]:
    """Sample, execute and score every candidate call in ``texts`` (steps 1–3 of §2.3).

    Notebook 03.
    """
    out = []
    for text_id, text in enumerate(texts):
        tokens = tokenize(text)
        cache: dict = {}  # the first two losses depend only on the position and the numbers
        for position, expression, result in candidate_calls(tokens):
            stop = position + len(LOSS_WEIGHTS)
            numbers = _numbers_in(expression)
            key = (position, tuple(sorted(numbers)))
            if key not in cache:
                cache[key] = (
                    _weighted(lm.token_losses(tokens, position, stop)),
                    _weighted(lm.token_losses(tokens, position, stop, numbers)),
                )
            plain, with_call = cache[key]
            with_result = _weighted(lm.token_losses(tokens, position, stop, numbers + (result,)))
            out.append(Candidate(text_id, position, expression, result, plain, with_call, with_result, tokens))
    return out


def filter_summary(candidates: list[Candidate], tau: float) -> dict:
    """What survives the filter at ``tau``: calls kept, texts with at least one kept call
    (the unit of the paper's Table 2 [1]), and the best kept call of each such text.

    Notebook 03, through format_threshold_table.
    """
    if not isinstance(tau, (int, float)) or isinstance(tau, bool) or math.isnan(tau):
        raise ValueError(f"tau must be a number, got {tau!r}")
    kept = [c for c in candidates if c.kept(tau)]
    best = best_per_text(kept)
    return {
        "tau": tau,
        "candidates": len(candidates),
        "texts": len({c.text_id for c in candidates}),
        "calls_kept": len(kept),
        "texts_kept": len(best),
        "best": [best[k] for k in sorted(best)],
    }


def best_per_text(candidates: list[Candidate]) -> dict[int, Candidate]:
    """For each text, its candidate with the largest L⁻ − L⁺ (ties: the earliest).

    Notebook 03.
    """
    best: dict[int, Candidate] = {}
    for c in candidates:
        if c.text_id not in best or c.gain > best[c.text_id].gain:
            best[c.text_id] = c
    return best


def threshold_table(candidates: list[Candidate], taus=(0.5, 1.0, 2.0), paper: dict | None = None) -> list[dict]:
    """One row per threshold: texts and calls this run keeps, and the paper's count for the
    calculator where Table 2 has one [1]. ``share`` is relative to the first threshold.

    Notebook 03.
    """
    paper = PAPER_TABLE2_CALCULATOR if paper is None else paper
    rows = []
    for tau in taus:
        s = filter_summary(candidates, tau)
        rows.append({"tau": tau, "texts_kept": s["texts_kept"], "calls_kept": s["calls_kept"], "paper": paper.get(tau)})
    first = rows[0] if rows else None
    for row in rows:
        row["share"] = row["texts_kept"] / first["texts_kept"] if first and first["texts_kept"] else None
        p0 = first.get("paper") if first else None
        row["paper_share"] = row["paper"] / p0 if row["paper"] is not None and p0 else None
    return rows


def format_threshold_table(rows: list[dict]) -> str:
    """The rows of :func:`threshold_table` as plain text, ours beside the paper's.

    Notebook 03.
    """

    def pct(x):
        return "-" if x is None else f"{x:.1%}"

    lines = [
        "τ_f  | texts kept (toy) | calls kept (toy) | share of first row | "
        "Toolformer, calculator [1] | share of first row"
    ]
    lines.append("-" * len(lines[0]))
    for r in rows:
        paper = "-" if r["paper"] is None else f"{r['paper']:,}"
        lines.append(
            f"{r['tau']:<4} | {r['texts_kept']:>16} | {r['calls_kept']:>16} | "
            f"{pct(r['share']):>18} | {paper:>26} | {pct(r['paper_share']):>18}"
        )
    return "\n".join(lines)


def near_threshold(candidates: list[Candidate], tau: float) -> tuple:
    """``(kept, dropped)``: the best call of the text that only just passes ``tau``, and of
    the text that only just fails it (either may be None). Good examples for a slider.

    Used by: tests/test_toolformer.py.
    """
    best = best_per_text(candidates).values()
    above = [c for c in best if c.gain >= tau]
    below = [c for c in best if c.gain < tau and c.result in c.tokens[c.position :]]
    kept = min(above, key=lambda c: (c.gain, c.text_id), default=None)
    dropped = max(below, key=lambda c: (c.gain, c.text_id), default=None)
    return kept, dropped


def explain_call(lm: TinyLM, text: str, position: int, expression: str) -> list[dict]:
    """Token by token, the weight and ``−ln P`` under the three conditions of the filter,
    for a worked example (pack §2.3, step 3).

    Notebook 03.
    """
    tokens = tokenize(text)
    result = calculate(expression)
    stop = position + len(LOSS_WEIGHTS)
    numbers = _numbers_in(expression)
    plain = lm.token_losses(tokens, position, stop)
    call = lm.token_losses(tokens, position, stop, numbers)
    full = lm.token_losses(tokens, position, stop, numbers + (result,))
    return [
        {
            "token": tokens[position + k],
            "weight": LOSS_WEIGHTS[k],
            "no call": plain[k],
            "call, no result": call[k],
            "call + result": full[k],
        }
        for k in range(len(plain))
    ]


@dataclass
class FilterRun:
    """One full run of the hands-on filter: the model, the texts filtered, every candidate.

    Used by: toolkit/lessons/toolformer.py.
    """

    lm: TinyLM
    texts: list
    candidates: list
    train_texts: int
    seed: int


_RUNS: dict = {}


def filter_run(train_texts: int = 2000, filter_texts: int = 400, seed: int = 0) -> FilterRun:
    """Train a :class:`TinyLM` on ``train_texts`` texts (corpus seed ``seed``), then sample,
    execute and score calls in ``filter_texts`` fresh texts (corpus seed ``seed + 2``).
    The same arguments give the same run; it is kept, so asking twice costs nothing.

    Used by: toolkit/widgets/toolformer.py.
    """
    key = (train_texts, filter_texts, seed)
    if key not in _RUNS:
        lm = TinyLM.train(make_corpus(train_texts, seed=seed))
        texts = make_corpus(filter_texts, seed=seed + 2)
        _RUNS[key] = FilterRun(lm, texts, run_filter(lm, texts), train_texts, seed)
    return _RUNS[key]


def format_explanation(rows: list[dict]) -> str:
    """The rows of :func:`explain_call` as a table, with the weighted sums and L⁻ − L⁺.

    Notebook 03.
    """
    conditions = ("no call", "call, no result", "call + result")
    lines = [f"{'next token':>10} | {'weight':>6} | " + " | ".join(f"{c:>15}" for c in conditions)]
    lines.append("-" * len(lines[0]))
    for r in rows:
        lines.append(f"{r['token']:>10} | {r['weight']:6.3f} | " + " | ".join(f"{r[c]:15.3f}" for c in conditions))
    sums = {c: sum(r["weight"] * r[c] for r in rows) for c in conditions}
    lines.append("-" * len(lines[0]))
    lines.append(f"{'weighted':>10} | {'':>6} | " + " | ".join(f"{sums[c]:15.3f}" for c in conditions))
    minus = min(sums["no call"], sums["call, no result"])
    lines.append(f"L⁻ = {minus:.3f}   L⁺ = {sums['call + result']:.3f}   L⁻ − L⁺ = {minus - sums['call + result']:.3f}")
    return "\n".join(lines)
