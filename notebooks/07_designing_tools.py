# %% [markdown] slideshow={"slide_type": "slide"}
# # 07 · Designing tools models can use
#
# *Pack §2.7. No coding exercise; discussion question 10 and quiz question 10.*
#
# Terms in these notes are defined in the course [glossary](../docs/glossary.md).
#
# A tool has two audiences. The code behind it is for you; the name, the description, the
# parameters, the answers and the error messages are for the model, which reads them on every
# request and has nothing else to go on. Anthropic's engineering post on writing tools for
# agents [21] is a short guide to writing for that reader, and its working method is the one
# this notebook follows in miniature: build a rough version, try it on realistic requests, read
# the transcripts, and rewrite.
#
# We take one made-up tool, an order look-up, write it twice (as it often comes out first, and
# as it reads after a review), and watch a **mock** model use each. Then we measure what the
# post's advice saves in tokens, with the course's rough rule of characters divided by 4.

# %%
import json

import toolkit as T
from toolkit.lessons.tool_design import (
    LiteralReader,
    SideBySide,
    better_registry,
    list_orders_tool,
    order_book,
    search_orders_tool,
    token_estimate,
    weak_registry,
)
from toolkit.widgets import transcript

SEED = 0  # the made-up order book below is drawn with this seed
BOOK_SIZE = 120

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Six rules, in short
#
# The pack distils the post into six rules [21]; here they are in a sentence each, with where
# this notebook shows them.
#
# | # | rule | in short | below |
# |---|---|---|---|
# | 1 | fewer, better tools | one tool per task a user has, not per endpoint; a search beats a full listing | §4, §5 |
# | 2 | clear names | related tools share a prefix; parameters say what they hold (`order_id`, not `id`) | §2 |
# | 3 | return what is needed | readable names over internal codes; offer a concise and a detailed answer | §3 |
# | 4 | spend tokens with care | page, filter and cut long answers | §3, §4 |
# | 5 | errors that teach | say what was wrong and what to try next | §2 |
# | 6 | descriptions as onboarding notes | what the tool does, when to call it, when not to | §2, §5 |
#
# Two facts from the post, as the pack reports them: its example of a concise answer drops a
# result from 206 tokens to 72, and Claude Code caps a tool's response at 25,000 tokens by
# default [21].

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. One tool, written twice
#
# Both registries look up the same two made-up orders. The left one is a first draft; the right
# one applies rules 2, 3, 5 and 6. This is everything a model would be shown about each:

# %%
weak, better = weak_registry(), better_registry()
SideBySide({"weak (first draft)": weak.list_schemas()[0], "better (after review)": better.list_schemas()[0]})

# %% [markdown]
# The same four parts, side by side (printed from the two tools, not typed in):


# %%
def parts(registry, bad_id):
    """Name, description, parameters and the error for an unknown id, as the model sees them."""
    tool = registry.tools()[0]
    params = {p: spec.get("type", "(no type)") for p, spec in tool.input_schema["properties"].items()}
    key = next(iter(params))
    return [tool.name, tool.description, json.dumps(params), registry.run(tool.name, {key: bad_id}).content]


for label, w, b in zip(["name", "description", "parameters", "error"], parts(weak, "A9"), parts(better, "A9")):
    print(f"{label.upper()}\n  weak:   {w}\n  better: {b}")

# %% [markdown] slideshow={"slide_type": "subslide"}
# **What a model does with each.** `LiteralReader` is a mock model: a few rules in Python, no
# language model at all. It acts only on the text it is given: it fills a parameter with the
# id that follows a word the parameter's name or description mentions, or else with the first
# id in the request; after an error it does what the error tells it, if anything, and otherwise
# repeats the call once and gives up. Real models are far better readers, but they too can only
# use what the text gives them.
#
# The user mentions two ids, as users do:

# %%
REQUEST = "I'm customer C17. What's the status of my order B7?"
weak_run = T.run_agent(LiteralReader(), weak_registry(), REQUEST)
better_run = T.run_agent(LiteralReader(), better_registry(), REQUEST)
transcript(weak_run, "Weak tool (mock model)")

# %%
transcript(better_run, "Better tool (mock model)")

# %% [markdown]
# With a parameter called `id` and nothing else to go on, the mock filled in the first id it
# saw, which was the customer's. The error said "failed", so it could only try the same call
# again. With `order_id`, the mock knew which id was meant. Now a request with an id that
# does not exist:

# %%
TYPO = "I'm customer C17. What's the status of my order B9?"
for label, registry in [("weak", weak_registry()), ("better", better_registry())]:
    run = T.run_agent(LiteralReader(), registry, TYPO)
    print(f"{label:6}: {run.calls} tool call(s); final answer: {run.final}\n")

# %% [markdown]
# "failed" gives the reader nothing to act on; the better error names the problem, shows what
# a valid id looks like and says what to do next (ask, do not guess), and the mock followed it.
# That is rule 5. The toolkit's registry writes its own errors the same way, for the mistakes it
# catches before a tool runs, such as a misspelt tool name or a value outside the allowed list:

# %%
print(better.run("orders_gt", {"order_id": "B7"}).content)
print(better.run("orders_get", {"order_id": "B7", "response_format": "short"}).content)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Return what the model needs, and no more
#
# When the weak tool works, it hands back the record as the back end stores it: internal codes,
# product UUIDs, prices in cents, address ids. The better tool answers with readable item names
# by default and keeps the full record behind `response_format="detailed"` for the rare case
# that needs it (rule 3). Sizes below are our own rough estimate (characters / 4):

# %%
detailed = better.run("orders_get", {"order_id": "B7", "response_format": "detailed"}).data
concise = better.run("orders_get", {"order_id": "B7"}).data
print(json.dumps(concise))
print(
    f"\ndetailed: about {token_estimate(detailed)} tokens; concise: about {token_estimate(concise)} tokens "
    f"(our estimate; {token_estimate(concise) / token_estimate(detailed):.0%} of the detailed size)"
)

# %% [markdown]
# The post's own example went from 206 tokens to 72 [21]; ours is a cut of the same kind, on a
# made-up record. The saving repeats on every later turn, since the result stays in the conversation.
# Just as important, nothing the user would ask about was lost: status, items, carrier and
# tracking number are all still there, in words.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Filter before you answer
#
# Rule 1's example in the post is a contacts tool: a search beats a listing that makes the model
# scan everything [21]. The same on orders: `list_orders()` returns a made-up book of 120
# orders; `orders_search(customer_id, status)` returns only the ones asked for, concisely.

# %%
book = order_book(BOOK_SIZE, seed=SEED)
dump, search = list_orders_tool(book), search_orders_tool(book)
everything = dump.fn()
hits = search.fn("C17", status="shipped")
print(f"list_orders():                        {len(everything):3} orders, about {token_estimate(everything):6,} tokens")
print(f"orders_search('C17', status='shipped'): {len(hits):3} orders, about {token_estimate(hits):6,} tokens")
print(
    f"(our estimate; the listing alone is {token_estimate(everything) / 25_000:.0%} of the 25,000-token "
    "default cap the post reports for Claude Code [21])"
)

# %% [markdown]
# The search also moves the work to where it is cheap and exact: your code compares customer
# ids; the model does not have to. And it fails helpfully:

# %%
registry = T.ToolRegistry()
registry.register(search)
print(registry.run("orders_search", {"customer_id": "c 17"}).content)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Descriptions are onboarding notes, and they cost tokens
#
# Write a description the way you would brief a new colleague: what the tool does, when to
# reach for it, what it will not do (rule 6). The post reports that careful edits of tool
# descriptions improved results on a coding benchmark [21]. A description is also read by your
# *tool retriever*, when you have one (notebook 04): with 48 other tools in the catalog, which
# version can a user's question find?

# %%
catalog = T.make_catalog()
question = "is my order on its way? it should have shipped"
for label, registry in [("weak", weak_registry()), ("better", better_registry())]:
    index = T.ToolIndex(catalog + registry.tools())
    names = [name for name, _ in index.search(question, k=len(catalog) + 1)]
    tool = registry.names()[0]
    rank = names.index(tool) + 1 if tool in names else None
    print(f"{label:6} tool {tool!r:13} rank for the question: {rank or 'not found'}")

# %% [markdown]
# "Gets stuff." shares no word with any question, so BM25 cannot find it at all. The cost of the
# better text is paid on every request that shows the tool (our estimate):

# %%
print("weak definition:  ", T.schema_size_estimate(weak), "tokens")
print("better definition:", T.schema_size_estimate(better), "tokens")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Fewer, better tools
#
# How many tools should an agent see? Our own arithmetic, from the practice catalog of notebook
# 04 (48 short definitions, generated from templates):

# %%
per_tool = T.schema_size_estimate(catalog) / len(catalog)
print(f"average definition in the catalog: about {per_tool:.0f} tokens (our estimate)")
for n in (5, 48, 120):
    print(f"{n:4} tools shown on every request: about {n * per_tool:6,.0f} tokens")

# %% [markdown]
# Real endpoint documentation is longer than these one-line templates, so the true cost would
# be higher. Tokens are not the only cost: every tool on the menu is one more wrong choice the
# model can make, and thin wrappers push the work of combining calls onto the model, one turn
# at a time.

# %% [markdown]
# **For discussion.** *(Pack discussion question 10, in our words.)* A teammate proposes one
# tool per endpoint of your company's API: 120 tools. Drawing on notebook 04 (retrieval, the
# cost of a long menu) and this notebook (rules 1 and 6), give them two arguments against, and
# one point where they are right.

# %% [markdown] tags=["solution"]
# *Instructor's note.* Look for two arguments with numbers or mechanisms behind them, and a
# concession that is real rather than polite.
#
# 1. **Cost and confusion on every request.** By our rough estimate in section 6, 120 short
#    definitions from the practice catalog come to about 8,000 tokens, sent again with every
#    request, against a few hundred for five; real endpoint docs are longer. And each extra
#    entry is one more near neighbour to pick by mistake: thin wrappers around `GET`, `PATCH`
#    and `POST` on the same resource read almost alike (notebook 04).
# 2. **The work lands on the model.** An endpoint says how the server is organised, not what a
#    user wants. Cancelling an order becomes read, check, patch, log: four calls, four turns,
#    four chances to slip or to skip the check, as the mock agents of notebook 10 do. One tool
#    per task (`orders_cancel` that reads and checks inside) keeps that logic in code and fits
#    the post's advice to fold several steps into one tool and to prefer a search to a dump
#    (rule 1) [21]. Rule 6 adds a quieter cost: 120 descriptions that each say when to use the
#    tool and when not are 120 onboarding notes someone must write and keep true.
#
# **Where the teammate is right.** Coverage is easy to audit (every endpoint is reachable) and
# the wrappers can be generated and kept in step with the API. If the catalog must stay large,
# the answer is not to show all of it: index the tools and retrieve a short list per request,
# as Gorilla and ToolLLM do and as notebook 04 measures with recall@k [2] [4]. A retriever has
# its own failure, though: a tool it misses cannot be picked at all.

# %% [markdown] slideshow={"slide_type": "subslide"}
# **Quiz.** *(Pack quiz question 10, in our words.)* Which change follows the post's advice
# best [21]?
#
# 1. Split `find_orders(customer, status)` into one tool per status, so each name is specific.
# 2. Replace `get_all_orders()`, which returns every order, with `find_orders(customer,
#    status)`, which returns matching orders with readable item names.
# 3. Rename the tools `t1`, `t2`, `t3` to save tokens on every request.
# 4. Pass the upstream service's raw JSON through unchanged, so the model misses nothing.
#
# <details><summary>Answer</summary>
#
# 2. It replaces a dump with a targeted search (rule 1) and answers in readable names (rule 3).
# Option 1 multiplies tools, option 3 throws away the names the model reads, and option 4 is the
# detailed record of section 3, which costs tokens and buries what matters.
# </details>

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 7. Skills, and when not to write a tool (beyond the pack)
#
# Some of what an agent needs is not a new action but know-how: the refund policy, how the
# finance team wants its report. Agent Skills package that as a folder with a `SKILL.md` (a name
# and a description, then instructions) and optional scripts and reference files [46]. The
# format was first shipped by Anthropic and is now an open one (agentskills.io) that other
# agents read too, OpenAI's Codex among them [58] [61]. It loads in three steps: only the names
# and descriptions sit in the prompt; a skill's instructions are read when the model decides to
# use it; its scripts and reference files only when the instructions call for them. It is the
# deferred loading of notebook 04, applied to instructions. Here three
# skills are data, and `use_skill` is an ordinary tool that returns one of them:

# %%
from toolkit.lessons.skills import SKILLS, prompt_tokens, skill_catalog, skill_registry

print("in the prompt up front:", [s["name"] for s in skill_catalog()])
print(
    f"tokens (our estimate): the catalog {prompt_tokens(skill_catalog())}, every skill in full {prompt_tokens(SKILLS)}"
)
shelf = skill_registry()
print(shelf.run("use_skill", {"name": "refund-policy"}).data["instructions"][:90], "...")
print(shelf.run("use_skill", {"name": "refund_policy"}).content)

# %% [markdown]
# **When a skill, when a tool?** Write instructions (a skill, or a line in the prompt) when the
# job is a procedure the model can carry out with tools it already has: the refund skill above
# tells the model *how* to use `search_orders` and a payment tool. Write a tool when something
# must hold whatever the model does: a check on the arguments, a permission, an effect on the
# world, a limit (notebook 11's refund limit lives in the tool for that reason). A skill is
# advice the model may misread; a tool's code runs the same way every time. And a skill's
# scripts run through some code tool, so they inherit that tool's sandbox and gate, not their
# own. A skill written by someone else is a stranger's prompt text plus a stranger's scripts:
# the same supply-chain and injection risk as a poisoned tool description (notebook 11,
# section 8). Read it before you install it.

# %% [markdown]
# **Your turn (optional, about 10 minutes).** Write `skill_md()`: the text of
# `expense-report/SKILL.md`, a skill for filing the month's expense report with the agent's
# tools `list_expenses` and `submit_report`. Follow the open format [61]: front matter between
# two `---` lines with a `name` (the folder's name; lowercase letters, digits and single
# hyphens) and a short `description` (what and when), then the instructions. The check parses
# the file as a host would and loads it with `use_skill`.

# %% tags=["starter"]
from toolkit.checks import opt07_skill_files


def skill_md() -> str:
    """The text of expense-report/SKILL.md."""
    raise NotImplementedError("Your turn: write the skill file")


# %% tags=["solution"]
from toolkit.checks import opt07_skill_files


def skill_md() -> str:
    """The text of expense-report/SKILL.md."""
    return """---
name: expense-report
description: File the month's expense report. Use when the user asks to submit or close expenses.
---
1. Call list_expenses for the month the user names (this month if none).
2. Drop lines without a receipt and tell the user which ones.
3. Group the rest by category and add each group up, in euros with two decimals.
4. Show the user the totals and wait for a yes.
5. Only then call submit_report with the grouped lines.
"""


# %% tags=["check"]
opt07_skill_files.check(skill_md)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What to take away
#
# * Write every part of a tool for its reader: a name and parameter names that say what they
#   hold, a description that says what, when and when not, and errors that say what to do next.
# * Answer with what the model needs, in words it can use; keep the detailed record behind a
#   switch, and filter or page long results before they reach the model.
# * Fewer, richer tools beat many thin ones: shorter prompts, fewer wrong picks, fewer turns.
# * Test tools the way the post does: give them realistic requests, read the transcripts, and
#   rewrite. Notebook 08 turns to what the harness does when many calls are in flight.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# The sources this notebook cites, under the course pack's numbers (all of them, with
# venues, are in `data/references.json`).
# Sources marked (Beyond the pack.) go past the course pack; each was checked against the
# source itself on the date `data/references.json` gives.
#
# - [2] Patil et al., *Gorilla: Large Language Model Connected with Massive APIs*, 2024.
#   <https://arxiv.org/abs/2305.15334>
# - [4] Qin et al., *ToolLLM: Facilitating Large Language Models to Master 16000+ Real-world
#   APIs*, 2023. <https://arxiv.org/abs/2307.16789> Published: ICLR 2024 (spotlight).
# - [21] Anthropic, *Writing effective tools for agents — with agents*, 2025.
#   <https://www.anthropic.com/engineering/writing-tools-for-agents>
# - [46] Anthropic, *Agent Skills*, undated.
#   <https://platform.claude.com/docs/en/agents-and-tools/agent-skills/overview> (Beyond the
#   pack.)
# - [58] OpenAI, *Agent Skills*, undated. <https://developers.openai.com/codex/skills> (Beyond
#   the pack.)
# - [61] Agent Skills, *Specification*, undated. <https://agentskills.io/specification> (Beyond
#   the pack.)
