# %% [markdown] slideshow={"slide_type": "slide"}
# # 02 · What a tool is, and the loop that runs it
#
# *Pack §2.2. No exercises; a drawing task at the end.*
#
# Terms in these notes are defined in the course [glossary](../docs/glossary.md).
#
# "The model called a tool" is a figure of speech. The model only writes a request. A program
# of yours, the **harness**, reads that request, checks it, runs the tool and sends the result
# back. This notebook shows the loop once when everything goes right, then breaks it six
# times, once for each job the harness has, and watches the harness catch each failure.
#
# The models here are **mocks**: `T.ScriptedModel` replays replies written in advance, so
# every run is the same and you can see exactly what the harness does with each one.

# %%
import json
import time

import toolkit as T
from toolkit.figures import show as show_figure
from toolkit.lessons.toy_tools import make_weather_registry
from toolkit.widgets import transcript
from toolkit.widgets.source import show_source

# Nothing below is random. The timing demos use sleeps several times longer than their time
# limits, so their outcomes do not depend on how busy the machine is.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. A tool has three parts
#
# Wang and co-authors, surveying the field, settle on a simple definition: a tool is a program
# outside the language model that the model makes use of [13]. In practice a tool you hand to a
# model has:
#
# 1. **a name**, such as `get_weather`;
# 2. **a description of its inputs**: a sentence on what it does and a JSON Schema for its
#    arguments (notebook 05 builds these from type hints);
# 3. **an implementation**: code that runs on your side.
#
# The model sees only the first two. Here is everything it is told about `get_weather`:

# %%
weather_tools = make_weather_registry()
print(json.dumps(weather_tools.get("get_weather").schema(), indent=1))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. The loop
#
# Figure 1 shows one turn of the loop. The model answers either with text (the run is over)
# or with one or more tool calls. The harness runs each call and appends one result message
# per call, tagged with the call's id. Then it asks the model again.

# %%
show_figure(1)

# %% [markdown]
# The big vendors use the same shape with different field names. In OpenAI's API the
# assistant message carries `tool_calls`, you answer each with a message holding the same
# call id and the output, and one turn may contain several calls [23]. Anthropic's API uses
# `tool_use` and `tool_result` blocks, with `stop_reason: "tool_use"` meaning the model is
# waiting for results [22]. The toolkit follows the OpenAI-style shape.
#
# Anthropic's documentation also separates **client tools**, which run in your code, from
# **server tools**, which the provider runs and loops over for you [22]. This course is about
# client tools: their schema, errors and safety are yours.
#
# A run where nothing goes wrong (mock model):

# %%
model = T.ScriptedModel(
    [
        {"tool_calls": [T.call("c1", "get_weather", city="Paris"), T.call("c2", "get_weather", city="Oslo")]},
        {"content": "Paris is at 21 °C and Oslo at 9 °C."},
    ]
)
happy = T.run_agent(model, make_weather_registry(), "Is it warmer in Paris or Oslo?")
transcript(happy, "The happy path (scripted mock)")

# %% [markdown]
# Two model turns, two tool calls, and the model never touched the weather data: it wrote two
# requests and then read two answers.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. The harness's six jobs
#
# Much of what goes wrong in a tool-using system goes wrong in the code around the model.
# Before and after every call, a careful harness:
#
# | # | job | in `T.run_agent` |
# |---|---|---|
# | 1 | checks the arguments against the schema and explains any mismatch | `ToolRegistry.run` validates (and repairs small slips) |
# | 2 | checks that this call is allowed now, for this user | `gate=T.PermissionGate(...)` |
# | 3 | runs the call under a time limit | `call_timeout=` seconds |
# | 4 | retries only when a retry is safe | `max_retries=`, and only for read-only tools after a timeout |
# | 5 | caps how much of a result reaches the model | `max_result_chars=` |
# | 6 | caps the number of steps | `max_steps=` |
#
# Each subsection below provokes one failure and shows what the harness did about it.

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Job 1: check the arguments
#
# The mock forgets the required `city`. The harness does not run the tool; it answers with
# what was wrong and what the tool expects, and the mock's second attempt succeeds.

# %%
model = T.ScriptedModel(
    [
        {"tool_calls": [T.call("c1", "get_weather", unit="celsius")]},
        {"tool_calls": [T.call("c2", "get_weather", city="Rome", unit="celsius")]},
        {"content": "It is 21 °C in Rome."},
    ]
)
job1 = T.run_agent(model, make_weather_registry(), "How warm is it in Rome?")
transcript(job1, "Job 1: a call that breaks the schema (scripted mock)")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Job 2: is this call allowed now?
#
# The retail world of notebook 10 has a policy: only pending orders may be cancelled. Order
# `A2` has shipped. A careless mock asks to cancel it anyway. With no gate the cancel goes
# through; with a gate that requires a person to confirm each state-changing call, it stops.
# (The mock person below approves only orders that are still pending.)


# %%
def careless_cancel():
    return T.ScriptedModel(
        [{"tool_calls": [T.call("c1", "cancel_order", order_id="A2")]}, {"content": "Order A2 is cancelled."}]
    )


open_env = T.RetailEnv()
T.run_agent(careless_cancel(), open_env.registry, "Cancel A2.", system=T.POLICY)
print("no gate:    A2 is now", open_env.db["A2"])

gated_env = T.RetailEnv()


def person_says_yes(call):
    """(mock) The person asked to confirm: agrees only to cancelling a pending order."""
    return gated_env.db.get(call["arguments"].get("order_id")) == "pending"


gate = T.PermissionGate(allow=["get_order", "cancel_order"], confirm=person_says_yes)
job2 = T.run_agent(careless_cancel(), gated_env.registry, "Cancel A2.", system=T.POLICY, gate=gate)
print("with gate:  A2 is now", gated_env.db["A2"], "| gate log:", gate.log)
transcript(job2, "Job 2: a state-changing call stopped by the gate (scripted mock)")

# %% [markdown]
# The gate did not read the policy text or the model's words. It looked at what the tool can
# do (it changes state) and asked for a yes. Notebook 11 builds on this.
#
# Also note the mock's final words: "Order A2 is cancelled." It was scripted to say that no
# matter what happened. A real model can do the same, which is why the harness, not the
# model's reply, is the record of what ran.

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Job 3: a time limit on every call
#
# Here `slow_lookup` hangs for 30 seconds; the limit is 0.3 s. The harness stops waiting and
# the run carries on with the other call's result. (`slow_lookup` only reads, so the harness
# also retries it twice; job 4 is about when that is safe.)

# %%
model = T.ScriptedModel(
    [
        {"tool_calls": [T.call("c1", "slow_lookup", key="1999 rates"), T.call("c2", "get_weather", city="Lima")]},
        {"content": "The archive did not answer; Lima is at 17 °C."},
    ]
)
start = time.perf_counter()
job3 = T.run_agent(model, make_weather_registry(slow_seconds=30), "Old rates, and Lima's weather.", call_timeout=0.3)
print("finished in under 5 s, though the archive alone takes 30 s:", time.perf_counter() - start < 5)
transcript(job3, "Job 3: a slow tool cut off by the time limit (scripted mock)")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Job 4: retry only when it is safe
#
# `flaky_rate` answers "busy" the first time and works the second: a retry is free and
# helps. `charge_card` is slow *and changes state*: after a timeout nobody knows whether the
# charge went through, so a retry could charge twice. The harness retries the first and not
# the second.

# %%
registry = make_weather_registry()
charges = []


def charge_card(amount: float) -> str:
    """Charge the customer's card (slow today).

    Args:
        amount: the amount in euros
    """
    time.sleep(1.0)
    charges.append(amount)
    return f"charged {amount} EUR"


registry.add(charge_card, read_only=False)
waits = []
model = T.ScriptedModel(
    [
        {"tool_calls": [T.call("c1", "flaky_rate", currency="EUR"), T.call("c2", "charge_card", amount=40.0)]},
        {"content": "The rate is 1.08. The payment timed out; I will check before trying again."},
    ]
)
job4 = T.run_agent(model, registry, "EUR rate, then charge 40 EUR.", call_timeout=0.3, sleep=waits.append)
time.sleep(1.5)  # let the abandoned charge finish in the background
print("back-off waits the harness asked for:", waits)
print("charges that actually happened:", charges)
transcript(job4, "Job 4: one safe retry, one refused retry (scripted mock)")

# %% [markdown]
# The charge happened once even though the call "timed out": the work carried on after the
# harness stopped waiting. Retrying it would have charged 80 EUR. Tools that change state
# need an idempotency key, or a status check before any retry (pack §2.8, notebook 08).

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Job 5: cap the size of a result
#
# `read_log` returns 50,000 characters. Without a cap all of it lands in the model's context
# on every later turn; with `max_result_chars=400` the model gets the start and a visible
# marker saying how much was cut.

# %%
registry = T.ToolRegistry()


def read_log(service: str) -> str:
    """Return a service's full log.

    Args:
        service: the service name, such as billing
    """
    return "".join(f"{service} line {i}: ok\n" for i in range(2500))[:50_000]


registry.add(read_log)


def one_log_call():
    return T.ScriptedModel(
        [{"tool_calls": [T.call("c1", "read_log", service="billing")]}, {"content": "The log looks healthy."}]
    )


uncapped = T.run_agent(one_log_call(), registry, "Is billing healthy?")
capped = T.run_agent(one_log_call(), registry, "Is billing healthy?", max_result_chars=400)
print("characters the model reads without a cap:", len(uncapped.messages[2]["content"]))
print("characters the model reads with the cap: ", len(capped.messages[2]["content"]))
print("end of the capped result:", capped.messages[2]["content"][-60:])
print("events:", capped.events)

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Job 6: cap the number of steps
#
# A mock that never stops asking would loop forever. `max_steps` ends the run and says so.

# %%
runaway = T.ScriptedModel([{"tool_calls": [T.call(f"r{i}", "get_weather", city="Paris")]} for i in range(100)])
job6 = T.run_agent(runaway, make_weather_registry(), "Keep an eye on Paris.", max_steps=3)
print(
    f"stop reason: {job6.stop_reason}; final answer: {job6.final}; model turns: {job6.steps}; tool calls: {job6.calls}"
)
print("events:", job6.events)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. The six jobs at a glance
#
# Each run above, reduced to what the harness reported (this table is printed from the runs,
# not typed in):


# %%
def kinds(run):
    return [r.kind for _, r in run.results]


evidence = [
    ("1 check arguments", "invalid_args" in kinds(job1) and job1.final is not None),
    ("2 permission", "blocked" in kinds(job2) and gated_env.db["A2"] == "shipped"),
    ("3 time limit", "timeout" in kinds(job3) and "ok" in kinds(job3)),
    (
        "4 safe retries",
        "retry 1/2 for flaky_rate (transient)" in job4.events
        and not any("charge_card" in e for e in job4.events)
        and charges == [40.0],
    ),
    ("5 result size", any(e.startswith("truncated read_log") for e in capped.events)),
    ("6 step limit", job6.stop_reason == "max_steps"),
]
for job, caught in evidence:
    print(f"{job:<18} failure provoked and caught: {caught}")

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Read the code that did it
#
# None of this is hidden. `show_source` prints a function as it stands in its file now, with
# the path and line numbers, so you can open the same lines in an editor. First the registry's
# `run`, which holds job 1 and the rule that a broken tool never crashes the loop: `prepare`
# checks (and carefully repairs) the arguments, the tool runs inside `try`, and each way of
# failing becomes a result with its own `kind` and a sentence the model can act on.

# %%
show_source(T.ToolRegistry.run)

# %% [markdown]
# Then the loop itself, a whole turn on one screen. Each call the model wrote becomes one
# record that passes through the jobs in order, one line each: `_checked` (job 1), `_gated`
# (job 2), `_retried`, which runs the call under its time limit and retries it only when that
# is safe (jobs 3 and 4), and `_capped` (job 5). Then every call is answered in the order the
# model wrote them. The `for` line is job 6: after `max_steps` turns the run stops.

# %%
show_source(T.run_agent)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4b. Reasoning models in the loop (beyond the pack)
#
# A reasoning model's reply can hold blocks of its reasoning next to its tool calls: Anthropic's
# `thinking` blocks, each with a `signature`, and OpenAI's reasoning items [35] [37]. They are
# opaque to the harness, but not optional: during tool use they must go back with the tool
# results, complete and unmodified, or the model loses the thread that led to the call, and
# Anthropic's API refuses the follow-up request [35]. Since Claude Fable 5.1 there is a second
# rule, "preserved thinking": each block is bound to everything sent before it (the system
# prompt, the tool list, every earlier message), so a harness that edits an earlier message,
# rebuilds its system prompt or changes its tool list between requests is refused too; that
# check is on by default for accounts opened from 31 August 2026 [56]. The seventh job, on top
# of the six above, is therefore: carry what you do not understand, exactly, and only ever
# append to the conversation.
#
# Forcing a call is the other rule that changes with thinking. With manual thinking
# (`{"type": "enabled"}`) a `tool_choice` of `any` or a named tool is refused; with adaptive
# thinking it depends on the model: some accept it and skip thinking for that call, the newest
# refuse it (read 4 December 2026) [57].
#
# `ReasoningMock` is a mock (no language model) that checks every request that way: it thinks
# one signed block per call, signed over the block and its prefix, calls `get_weather`, then
# answers. Three harnesses meet it: a short hand-written loop that rebuilds the assistant turn
# from its text and calls only, the same loop copying the reply's `reasoning` key unchanged, and
# the toolkit's `run_agent`. Then come three forced choices.

# %%
from toolkit.lessons.reasoning_mock import ReasoningMock, RequestRefused, dropping_harness, keeping_harness

harnesses = {
    "drops the blocks": dropping_harness,
    "keeps the blocks": keeping_harness,
    "toolkit's run_agent": lambda model, reg, user: T.run_agent(model, reg, user).final,
}
for label, harness in harnesses.items():
    try:
        print(f"{label:22} -> answered: {harness(ReasoningMock(), make_weather_registry(), 'Weather in Oslo?')}")
    except RequestRefused as refusal:
        print(f"{label:22} -> refused (mock API): {refusal}")
forcing = {
    "forced, manual": ReasoningMock(tool_choice={"type": "any"}, thinking="manual", accepts_forced=True),
    "forced, adaptive, new": ReasoningMock(tool_choice={"type": "any"}),
    "forced, adaptive, old": ReasoningMock(tool_choice={"type": "any"}, accepts_forced=True),
}
for label, model in forcing.items():
    try:
        reply = model.respond([{"role": "user", "content": "Weather in Oslo?"}], [])
        print(f"{label:22} -> accepted, thinking skipped: {'reasoning' not in reply}")
    except RequestRefused as refusal:
        print(f"{label:22} -> refused (mock API): {refusal}")

# %% [markdown]
# The first harness is refused on its second request: it never sent the block back. The third
# line shows what the toolkit's own `run_agent` does: it copies a reply's `reasoning` key into
# the assistant message unchanged and only appends, so it is answered. The mock is stricter than
# the API in one way: Anthropic lets you leave out the blocks of *earlier* tool-use cycles,
# though with preserved thinking a block left out between others fails the prefix check [56].
#
# OpenAI's Responses API is more forgiving. Leaving the reasoning items out is accepted, but the
# model reasons again from scratch, which costs quality and cache; the guide recommends passing
# them back, as the items themselves or, when nothing is stored on the server, as their
# `encrypted_content`, and `previous_response_id` does it for you [37]. What it does refuse is
# a broken pair: a reasoning item sent back without the function call that followed it, or the
# call without its reasoning item, gets HTTP 400, as SDK authors found in 2025 and 2026 [63].
#
# ### One call on the wire, in both vendors' shapes
#
# The toolkit's messages are plain dicts; each vendor's API has its own. Here is the same weather
# call in OpenAI's Chat Completions and Responses API [23] and in Anthropic's Messages API [22],
# with the reasoning blocks of the section above and `disable_parallel_tool_use`, which sits
# *inside* Anthropic's `tool_choice` [36]. Anthropic's request turns thinking on with
# `{"type": "adaptive"}`, the current mode, in which the model decides how much to think and no
# budget is set; the dial, if you want one, is `output_config.effort` [49]. The older manual
# mode, `{"type": "enabled", "budget_tokens": N}`, is deprecated, and the newest models refuse
# it (the page lists which; the list moves); where it still runs, the N thinking tokens count
# inside `max_tokens`, so `max_tokens` must be greater than N, and N is at least 1,024 [35].
# After the result comes the *next request*, where the section's rule shows on the wire: the
# conversation so far, with the reply's reasoning and call copied back unchanged, then the
# result; below, only its conversation part is printed, since the rest repeats the first
# request. We wrote these after the documentation; ids and signatures are placeholders, and the
# documentation changes often (checked 2 December 2026; the next request added 4 December).

# %%
wire = T.load_json("wire_formats.json")["shapes"]
for vendor, shape in wire.items():
    print(f"== {vendor} ==")
    for part in ("request", "reply", "result"):
        print(f"-- {part}:\n{json.dumps(shape[part], indent=1)}")
    follow_up = shape["next_request"]
    conversation = "messages" if "messages" in follow_up else "input"
    print(f"-- next request, its {conversation}:\n{json.dumps(follow_up[conversation], indent=1)}")

# %% [markdown]
# **Your turn (optional, about 10 minutes).** A harness often has something new to tell the
# model each turn; here, how many model turns it has left. Write `reminding_harness(model,
# registry, user)`: at most six requests; carry each reply's `reasoning` back as `keeping_harness`
# does; in every request after the first, tell the model `"N turns left"` (5 in the second
# request, 4 in the third, ...) without changing anything already sent; return the final answer.
# The check runs it against `ReasoningMock` on cities you have not seen and reads every request.
# Then try the hurried way, a system message rewritten each turn, and read the refusal.

# %% tags=["starter"]
from toolkit.checks import opt02_prefix


def reminding_harness(model, registry, user: str) -> str:
    """A loop that reminds the model of its turns left, only ever appending."""
    raise NotImplementedError("Your turn: write the loop")


# %% tags=["solution"]
from toolkit.checks import opt02_prefix


def reminding_harness(model, registry, user: str) -> str:
    """A loop that reminds the model of its turns left, only ever appending."""
    messages = [{"role": "user", "content": user}]
    for turn in range(1, 7):
        if turn > 1:  # a new message at the end: nothing sent before changes
            messages.append({"role": "user", "content": f"Reminder: {7 - turn} turns left."})
        reply = model.respond(messages, registry.list_schemas())
        if not reply.get("tool_calls"):
            return reply["content"]
        messages.append({**reply, "role": "assistant"})  # the reply as it came, blocks included
        for c in reply["tool_calls"]:
            result = registry.run(c["name"], c["arguments"])
            messages.append({"role": "tool", "tool_call_id": c["id"], "content": result.content})
    return "(turn limit)"


# %% tags=["check"]
opt02_prefix.check(reminding_harness)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Check your understanding
#
# Draw the loop from memory for a model that makes **two** calls in one turn, one of which
# fails. Mark which boxes are the model and which are your code, and where each of the six
# jobs happens.
#
# <details><summary>Show a sketch</summary>
#
# ```
# user ──► MODEL ──(tool_calls: c1, c2)──► HARNESS (your code)
#            ▲                               │ 1 validate c1, c2 against the schemas
#            │                               │ 2 gate: allowed now? for this user?
#            │                               │ 3 run each with a time limit (in parallel)
#            │                               │ 4 retry c2 only if it is safe
#            │                               │ 5 cap each result's size
#            └──(tool c1: result, tool c2: error)─┘
#                 6 count the turn; stop at max_steps
# ```
#
# Only the box labelled MODEL is the model. Everything else, including the error text the model
# reads for c2, is code you wrote and can test.
#
# </details>

# %% [markdown] slideshow={"slide_type": "slide"}
# ## With a real model (optional)
#
# Every model above is a scripted mock. If you have set up a real one ([using a real
# model](../docs/real-models.md#using-a-real-model): a hosted API, a local Ollama or your university's endpoint), the cell below asks it
# the happy-path question through the same `run_agent` and the same three weather tools, with
# the model where the script was. Until then it prints one line saying how to set it up and
# sends nothing.
#
# With a model set up, it first says how many requests it may send, then prints the whole
# conversation. That is one run of that model on that day: run it again and the wording, or
# even the calls, may differ. Look for the harness's jobs: did the model make both calls in one
# turn? Did any argument need repair?
#
# No key and no network? `make local-model-serve` ([a local model that calls
# tools](../docs/real-models.md#no-key-no-network-a-local-model-that-calls-tools)) runs Qwen2.5-Coder-1.5B-Instruct on your own machine. What it prints here is
# that model's run on that day, labelled with its name and the date. Measured on 2026-12-04,
# it gets single calls right (BFCL simple and multiple cases 2 of 2) but makes one call where
# two are needed and calls even when no tool fits: exactly what the harness is for.

# %%
from toolkit.lessons.model_eval import notebook_loop

real_run = notebook_loop("Is it warmer in Paris or Oslo?")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# The sources this notebook cites, under the course pack's numbers (all of them, with
# venues, are in `data/references.json`).
# Sources marked (Beyond the pack.) go past the course pack; each was checked against the
# source itself on the date `data/references.json` gives.
#
# - [13] Wang et al., *What Are Tools Anyway? A Survey from the Language Model Perspective*,
#   2024. <https://arxiv.org/abs/2403.15452> Published: COLM 2024.
# - [22] Anthropic, *Tool use with Claude: overview*, undated.
#   <https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview>
# - [23] OpenAI, *Function calling*, undated.
#   <https://developers.openai.com/api/docs/guides/function-calling>
# - [35] Anthropic, *Extended thinking*, undated.
#   <https://platform.claude.com/docs/en/build-with-claude/extended-thinking> (Beyond the pack.)
# - [36] Anthropic, *Parallel tool use*, undated.
#   <https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use> (Beyond
#   the pack.)
# - [37] OpenAI, *Better performance from reasoning models using the Responses API*, 2025.
#   <https://cookbook.openai.com/examples/responses_api/reasoning_items> (Beyond the pack.)
# - [49] Anthropic, *Adaptive thinking*, undated.
#   <https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking> (Beyond the pack.)
# - [56] Anthropic, *Preserved thinking*, undated.
#   <https://platform.claude.com/docs/en/build-with-claude/preserved-thinking> (Beyond the
#   pack.)
# - [57] Anthropic, *Thinking in tool and multi-turn workflows*, undated.
#   <https://platform.claude.com/docs/build-with-claude/thinking-tool-workflows> (Beyond the
#   pack.)
# - [63] vercel/ai contributors, *Issue #7099: Item 'rs_...' of type 'reasoning' was provided
#   without its required following item*, 2025. <https://github.com/vercel/ai/issues/7099>
#   (Beyond the pack.)
