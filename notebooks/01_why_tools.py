# %% [markdown] slideshow={"slide_type": "slide"}
# # 01 · Why a language model needs tools
#
# *Pack §2.1. No exercises; one question to think about at the end.*
#
# Terms in these notes are defined in the course [glossary](../docs/glossary.md).
#
# A language model reads text and predicts what text comes next. Many useful jobs are not
# of that kind: getting a long product exactly right, knowing what happened yesterday,
# cancelling an order. This notebook names the three gaps and then measures the first one on
# a small experiment you can rerun: a model that multiplies by recalling examples, against the
# same questions handed to a calculator tool.
#
# Both "models" below are **mocks**: a few lines of Python written to behave in one known
# way. No real language model runs anywhere in this course, so no API key is needed.

# %%
import toolkit as T
from toolkit.lessons.calculator import (
    CalculatorCallingModel,
    PatternMatchingModel,
    accuracy_by_digits,
    format_accuracy_table,
    make_calculator_registry,
    make_problems,
    question,
)
from toolkit.widgets import transcript
from toolkit.widgets.accuracy import plot_accuracy

SEED = 0  # the mock's "training" draw; the test problems use their own seed (1)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Three gaps
#
# | The gap | What it looks like | A tool that closes it |
# |---|---|---|
# | **It cannot compute exactly** | multiplying two long numbers, sorting a long list, counting the letters of a word, a deduction with many steps | a calculator, a code interpreter |
# | **It never saw the fact** | anything after its training cut-off, rare facts, your own files and tickets | a search engine, a database query, retrieval (Week 2) |
# | **It cannot reach the world** | cancelling an order, sending an email, reading today's weather, editing a file | an API call, a shell command, a browser |
#
# The retrieval step from Week 2 already was a tool: a call that only reads and hands back
# text. This week the calls also compute, and some of them change things, which is where
# the risk starts (notebooks 10 and 11).
#
# *Looking ahead (beyond the pack).* The far end of the last row is a *computer-use* tool: the
# model gets screenshots and answers with mouse clicks and key presses that your code carries
# out, so it can do whatever the logged-in user can [45]. Notebook 11, section 8, treats it as
# the extreme case of its controls.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. A model that multiplies by recalling examples (mock)
#
# `PatternMatchingModel` is our stand-in for a model that has seen many worked sums but
# never learned the procedure. During its "training" it saw the full one-digit times table
# and 6,000 random worked problems of each larger size. For an exact problem it has seen, it
# recalls the answer. For any other problem it finds the remembered problem with the nearest
# numbers, copies that answer, and fixes the last digit using the units digits.
#
# That recipe is invented for this course. It is built to fail in the way Dziri and
# co-authors describe for real models on multi-digit multiplication: the answers seem to come
# from stitching together pieces of patterns seen before, and accuracy drops quickly as the
# problems get longer [15]. The mock shows the mechanism; it is not evidence that real
# models work this way.

# %%
mock = PatternMatchingModel(seed=SEED)
print(f"The pattern-matching mock remembers {mock.n_examples:,} different worked problems.")
for digits in (1, 2, 3, 4):
    print(f"  share of all {digits}-digit problems it remembers: {mock.coverage(digits):.2%}")
print()
for digits in (1, 2, 3, 4, 5):
    a, b = make_problems(digits, 1, seed=7)[0]
    guess = mock.multiply(a, b)
    verdict = "right" if guess == a * b else f"wrong, off by {abs(guess - a * b) / (a * b):.1%}"
    print(f"{a:>6} × {b:<6} = {a * b:>13,}   mock says {guess:>13,}   {verdict}")

# %% [markdown]
# Look at the wrong answers. Each has the right number of digits and the right last digit,
# and none is more than a few percent from the truth. The error hides in the middle digits,
# and sometimes in the first one too: for 391 × 526 the mock says 199,646, while the product,
# 205,666, starts with a 2. Nothing in how an answer looks gives it away; only redoing the sum
# does.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Accuracy by number of digits, with and without a calculator
#
# Now 100 problems of each size go to two mocks through the same loop `T.run_agent`
# (notebook 02 takes that loop apart). Both are offered the `calculator` tool:
#
# * the **pattern-matching mock** ignores it and answers from memory;
# * the **calculator-calling mock** writes one call, `calculator(expression="a * b")`, and
#   repeats what the tool returns.
#
# An answer counts only if it is exactly right.

# %%
models = {
    "pattern-matching (mock)": PatternMatchingModel(seed=SEED),
    "calls the calculator (mock)": CalculatorCallingModel(),
}
rows = {name: accuracy_by_digits(model, digits=(1, 2, 3, 4, 5), n=100, seed=1) for name, model in models.items()}
print(format_accuracy_table(rows))
print()
print("How far off the pattern-matching mock is (median of |answer − truth| / truth):")
for row in rows["pattern-matching (mock)"]:
    print(f"  numbers of {row.digits} digit(s): {row.median_rel_error:.2%}")

# %%
fig = plot_accuracy(rows, "Exact answers by problem size (two mocks, 100 problems each)")

# %% [markdown]
# What the numbers above say (all of them come from running the two mocks):
#
# * With every one-digit problem in memory, the pattern matcher is perfect on them. The same
#   budget of worked examples covers about half of the two-digit problems and a tiny share of
#   the longer ones (the coverage figures in section 2), so its accuracy collapses as the
#   numbers grow.
# * Its misses are typically within about one percent of the truth (the medians above).
#   "Close" is no use when the task needs the exact figure: a bank balance, a dose, an order
#   total.
# * The tool-calling mock is exact at every size. What it pays is one tool call per question,
#   and in a real system an extra model turn: the `calls` column counts them.
#
# The pack's lesson, in one line: when a step has to be exactly right, let code do it.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. One question, through the loop
#
# Here is what one run of the tool-calling mock looks like as messages. The mock only writes
# the request; the harness (`run_agent`) runs `calculator` and sends the result back.

# %%
run = T.run_agent(CalculatorCallingModel(), make_calculator_registry(), question(48213, 7364))
print(f"final answer: {run.final}   exact product, computed here: {48213 * 7364}")
transcript(run, "One question, answered with the calculator (mock)")

# %% [markdown]
# A tool should fail in a way the model can act on (pack §2.7). Bad input to `calculator`
# comes back as a sentence, not a crash:

# %%
registry = make_calculator_registry()
for expression in ["(17 + 4) * 3", "12 / 0", "2 +* 3", "__import__('os')"]:
    result = registry.run("calculator", {"expression": expression})
    print(f"{expression!r:22} -> [{result.kind}] {result.content}")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Check your understanding
#
# Which gap does each task fall into, and what tool would close it?
#
# 1. "How many times does the letter r appear in *strawberry*?"
# 2. "What did our customer write in ticket 4471 last night?"
# 3. "Move my 3 pm meeting to Friday."
# 4. "Who won yesterday's match?"
# 5. "Sort these 400 invoice totals from largest to smallest."
#
# <details><summary>Show the answers</summary>
#
# 1. Cannot compute exactly (counting characters): a code interpreter.
# 2. Never saw it (private, recent data): a ticket-system query.
# 3. Cannot reach the world (an action that changes state): a calendar API, ideally behind a
#    confirmation step.
# 4. Never saw it (after the training cut-off): a search tool.
# 5. Cannot compute exactly (a long exact procedure): a code interpreter or a sort function.
#
# </details>

# %% [markdown]
# **Think about it.** The pattern-matching mock's wrong answers were typically within about
# one percent of the truth. Why is a nearly right answer more dangerous than a wildly wrong one, and what
# could a system do to catch it?

# %% [markdown] tags=["solution"]
# *One possible answer.* A wildly wrong number looks wrong, so people and downstream checks
# notice it; a nearly right one passes every sanity check on size and format, so it flows into
# invoices and reports unchallenged. Ways to catch it: route every exact calculation to a tool,
# recompute key figures independently, or check cheap invariants (the last digit of a product,
# casting out nines) before trusting the figure.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Reading guide
#
# **Optional reading** for this notebook, with questions to read it by:
#
# - Dziri et al., *Faith and Fate: Limits of Transformers on Compositionality* [15]. Evidence
#   for why exact multi-step work, such as long multiplication, is better handed to code. *Read
#   it for:* Which three tasks do the authors use, and how do they make a task deeper? What
#   happens to accuracy as depth grows, and what does that suggest about a step that must be
#   exact?

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# The sources this notebook cites, under the course pack's numbers (all of them, with
# venues, are in `data/references.json`).
# Sources marked (Beyond the pack.) go past the course pack; each was checked against the
# source itself on the date `data/references.json` gives.
#
# - [15] Dziri et al., *Faith and Fate: Limits of Transformers on Compositionality*, 2023.
#   <https://arxiv.org/abs/2305.18654> Published: NeurIPS 2023.
# - [45] Anthropic, *Computer use tool*, undated.
#   <https://platform.claude.com/docs/en/agents-and-tools/tool-use/computer-use-tool> (Beyond
#   the pack.)
