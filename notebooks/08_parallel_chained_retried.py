# %% [markdown] slideshow={"slide_type": "slide"}
# # 08 · Parallel, chained, retried
#
# *Pack §2.8. Exercises 3, 4 and 5.*
#
# Terms in these notes are defined in the course [glossary](../docs/glossary.md).
#
# One call is the easy case. Real requests need several: three cities' weather, an order to
# find and then cancel, a flaky rate service that answers on the second try. This notebook
# measures what the harness does with many calls: how long they take side by side and in a
# row, which calls must wait for others, and what happens when a call fails because the
# arguments were wrong, because the service was briefly down, or because it took too long.
#
# The models are **mocks** (`T.ScriptedModel` replays replies written in advance). The tools
# are small Python functions that sleep to stand in for slow services, so the times below are
# real measurements of the toolkit's harness on this machine, not of any model.

# %%
import json
import time

import toolkit as T
from toolkit.checks import ex03, ex04, ex05
from toolkit.lessons.order_shop import order_registry
from toolkit.lessons.repair_rules import repair_with
from toolkit.lessons.toy_tools import sample_args
from toolkit.widgets import transcript
from toolkit.widgets.timeline import CallClock, plot_timeline, total_time

SEED = 0  # nothing here draws random numbers; the timings come from sleeps, so they vary a little


def sleepy_tool(seconds: float):
    """A made-up weather look-up that takes `seconds` to answer."""

    def look_up(city: str) -> str:
        """Current weather for a city (made up).

        Args:
            city: city name, such as Paris
        """
        time.sleep(seconds)
        return f"{city}: mild (made up)"

    return look_up


# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Three shapes of multi-call work
#
# | shape | example | what the harness can do |
# |---|---|---|
# | **parallel** | "weather in Paris, Rome and Oslo" | the calls do not need each other; run them all at once |
# | **chained** | "find my last order, then cancel it" | call 2 needs call 1's answer; it has to wait |
# | **mixed** | "compare the weather in three cities and book the warmest" | the three look-ups together, then the booking |
#
# Whether calls *can* run together is decided by the model: it has to put them in the same turn.
# Whether they *do* run together is decided by the harness. Both big vendor APIs let a model
# return several calls in one turn unless you switch it off [22] [23]; `T.run_agent` runs them
# in threads when `parallel=True` (its default).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. Parallel calls, measured
#
# Three look-ups that take 0.1, 0.2 and 0.3 s. Our own arithmetic: run together, the turn
# should last about as long as the slowest call (0.3 s); one after another, about the sum
# (0.6 s). A `CallClock` wraps each tool to note when it started and stopped, and the plot
# shows the two runs on one time axis.

# %%
registry = T.ToolRegistry()
for name, seconds in [("weather_paris", 0.1), ("weather_rome", 0.2), ("weather_oslo", 0.3)]:
    registry.add(sleepy_tool(seconds), name=name)


def three_lookups():
    """(mock) One turn asking for all three look-ups, then a short answer."""
    return T.ScriptedModel(
        [
            {
                "tool_calls": [
                    T.call(f"c{i}", name, city=name.split("_")[1].title()) for i, name in enumerate(registry.names())
                ]
            },
            {"content": "All three cities are mild today (made-up data)."},
        ]
    )


runs = {}
for parallel in (True, False):
    clock = CallClock()
    clock.wrap(registry)
    T.run_agent(three_lookups(), registry, "Weather in Paris, Rome and Oslo?", parallel=parallel)
    runs["parallel=True" if parallel else "parallel=False"] = clock.spans

plot_timeline(runs, title="Three look-ups (0.1, 0.2, 0.3 s), together and one after another")

# %% [markdown]
# The exact times vary a little from run to run, so the next cell prints only what should
# hold on any machine that is not badly overloaded:

# %%
together, in_a_row = total_time(runs["parallel=True"]), total_time(runs["parallel=False"])
print("together: finished within 0.1 s of the slowest call (0.3 s):", abs(together - 0.3) < 0.1)
print("one after another: took at least the sum of the three (0.6 s):", in_a_row >= 0.6)
print("together was at least 1.5x faster:", in_a_row >= 1.5 * together)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. Chained calls, and plans written up front
#
# A chain cannot be sped up by threads: the model has to *see* one result before it can write
# the next call. Each link costs a full model turn. Here is the retail world of notebook 10:
# the policy says to cancel only pending orders, so a careful mock looks the order up first and
# decides from what comes back. Its second turn is a function of the conversation so far.


# %%
def cancel_if_pending(messages):
    """(mock) Turn 2: read the status from the look-up, then act on it."""
    order = json.loads(messages[-1]["content"])
    if order["status"] == "pending":
        return {"tool_calls": [T.call("c2", "cancel_order", order_id=order["order_id"])]}
    return {"content": f"Order {order['order_id']} is {order['status']}, so I cannot cancel it."}


env = T.RetailEnv()
careful = T.ScriptedModel(
    [
        {"tool_calls": [T.call("c1", "get_order", order_id="B1")]},
        cancel_if_pending,
        {"content": "Order B1 is cancelled."},
    ]
)
chain = T.run_agent(careful, env.registry, "Please cancel order B1.", system=T.POLICY)
print("model turns:", chain.steps, "| tool calls:", chain.calls, "| B1 is now", env.db["B1"])
transcript(chain, "A two-link chain: look, then act (scripted mock)")

# %% [markdown] slideshow={"slide_type": "subslide"}
# A plain ReAct loop [8] takes one step per turn, even when some steps could run together.
# **LLMCompiler** [16] treats the task like a compiler treats a program: a *planner* writes the
# whole plan as a graph of calls up front, where a later call can name an earlier call's output
# as an input; a *task-fetching unit* hands each call over as soon as its inputs exist; an
# *executor* runs the ready calls in parallel. Compared with ReAct on its benchmarks, the paper
# reports latency speedups of up to 3.7x, cost savings of up to 6.7x and accuracy up to about
# 9% better [16]. Those are the best cases in one paper, on its own tasks.
#
# Our own arithmetic for the mixed example above, with every call taking 0.2 s: one call per
# turn needs 4 turns, 0.8 s of tool time; a plan that runs the three look-ups together and then
# the booking needs 2 layers, 0.4 s. Model turns cost time and tokens too, so fewer turns save
# more than the tool time alone.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. When a call fails: bad arguments
#
# Not every failure deserves a retry. When the *arguments* are wrong, sending the same call
# again gets the same error. The harness has two better moves: send the error text back so the
# model can fix its call, and quietly repair slips whose meaning is beyond doubt (notebook 05),
# noting every repair. It must never make up a value the model did not send.
#
# Here is a slip the toolkit's repair does **not** handle: an enum value with stray spaces.


# %%
def set_heating(mode: str, level: int) -> str:
    """Set the heating.

    Args:
        mode: heating mode
        level: power level from 1 to 3
    """
    return f"heating set to {mode} at level {level}"


heating = T.ToolRegistry()
heating_tool = heating.add(set_heating, read_only=False)
heating_tool.input_schema["properties"]["mode"]["enum"] = ["eco", "comfort", "off"]
result = heating.run("set_heating", {"mode": " Comfort ", "level": "2"})
print("notes:", result.notes)
print(result.kind, "|", result.content)

# %% [markdown]
# The string `"2"` became the integer 2 (noted), but `" Comfort "` was left alone, because
# the existing rule only compares letter case. The model gets an error that names the allowed
# values, which is a fine outcome. Could the harness fix it itself?

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercise 3: repair limits
#
# Add one repair rule: **an enum value with white space around it becomes the allowed value it
# plainly means**. Write it as `trim_enum_value(value, spec)`, which gets one argument's value and
# that property's schema and returns `(value, note)`: the fixed value and a short note, or the
# value unchanged and `None` when the rule has nothing to do. Strip the spaces, then accept an
# exact match, or a match that ignores case when *exactly one* allowed value fits. Anything else
# stays as it was: `"maybe"`, a misspelling, a prefix, text with no `enum` to compare with.
#
# Then write `test_rule(rule)`: a few `assert`s that pass for a correct rule and fail for a
# wrong one, including a test that it fires and a test that it does **not** fire on `"maybe"`.
# The check runs your tests against a correct rule and against two broken rules of its own.
#
# `repair_with(rule, args, schema)` (from `toolkit.lessons.repair_rules`) runs the toolkit's repair and
# then your rule on each argument, so you can try your rule on the heating call above.


# %% tags=["starter"]
def trim_enum_value(value, spec: dict):
    """Fix an enum value that only has stray white space; return (value, note or None)."""
    raise NotImplementedError("Exercise 3: write the trimming rule")


def test_rule(rule) -> None:
    """Raise AssertionError if `rule` is wrong: it must fire on a padded value and not on 'maybe'."""
    raise NotImplementedError("Exercise 3: write the tests")


# %% tags=["solution"]
def trim_enum_value(value, spec: dict):
    """Fix an enum value that only has stray white space; return (value, note or None)."""
    allowed = spec.get("enum") if isinstance(spec, dict) else None
    if not isinstance(value, str) or not allowed or value in allowed:
        return value, None
    text = value.strip()
    if text in allowed:
        return text, f"trimmed {value!r} to {text!r}"
    same = [a for a in allowed if isinstance(a, str) and a.lower() == text.lower()]
    if text and len(same) == 1:  # two values that differ only in case: do not pick one
        return same[0], f"trimmed {value!r} to {same[0]!r}"
    return value, None


def test_rule(rule) -> None:
    """Raise AssertionError if `rule` is wrong: it must fire on a padded value and not on 'maybe'."""
    unit = {"type": "string", "enum": ["celsius", "fahrenheit"]}
    value, note = rule(" Celsius ", unit)
    assert value == "celsius" and note, "a padded value should be fixed, with a note"
    for untouched in ["maybe", "celsius", "cels", ""]:
        assert rule(untouched, unit) == (untouched, None), f"{untouched!r} should be left alone"
    assert rule(" Paris ", {"type": "string"}) == (" Paris ", None), "no enum, no repair"


heating_schema = {
    "type": "object",
    "required": ["mode", "level"],
    "properties": {"mode": {"type": "string", "enum": ["eco", "comfort", "off"]}, "level": {"type": "integer"}},
}
print(repair_with(trim_enum_value, {"mode": " Comfort ", "level": "2"}, heating_schema))

# %% tags=["check"]
ex03.check(trim_enum_value, test_rule)

# %% [markdown]
# **In two sentences:** why is a repair rule riskier for a tool that changes things than for
# one that only reads?

# %% [markdown] tags=["solution"]
# *A model answer.* A wrong repair of a read-only call wastes one look-up and the model can see
# the odd answer and ask again, but a wrong repair of a state-changing call does the wrong thing
# in the world (cancels the other order, charges the other amount), and nobody may notice until
# it is too late to undo. Worse, the repair hides the model's mistake, so the note in the log is
# the only trace; for state-changing tools the safer default is to send the error back and let
# the model, or the user, say what they meant.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Transient failures: try again, a little later each time
#
# Rate limits and brief outages go away on their own. A tool signals such a failure by raising
# `T.TransientToolError`, and the harness tries the same call again, up to `max_retries` times,
# waiting 0.1 s, then 0.2 s, then 0.4 s: each wait twice the one before. Growing waits give a
# struggling service room to recover, instead of hitting it again at once. (Many real clients also
# add a random jitter to each wait, so that they do not all retry in step; the toolkit
# keeps its waits fixed so that lessons are repeatable.)
#
# `rate_service` below fails three times and then answers. The clock's `sleep` really waits and
# notes each wait, so the plot shows the attempts and the pauses between them.


# %%
def make_rate_service(failures: int, seconds: float = 0.05):
    """A made-up exchange-rate tool that takes `seconds` and is busy for its first `failures` calls."""
    calls = {"n": 0}

    def rate_service(currency: str) -> str:
        """Exchange rate of a currency against the US dollar (made up).

        Args:
            currency: a three-letter code, such as EUR
        """
        calls["n"] += 1
        time.sleep(seconds)  # a real request takes a moment too
        if calls["n"] <= failures:
            raise T.TransientToolError("Rate service busy (HTTP 429). Try again shortly.")
        return f"{currency}=1.08 (made up)"

    return rate_service


rates = T.ToolRegistry()
rates.add(make_rate_service(3))
clock = CallClock()
clock.wrap(rates)
one_call = T.ScriptedModel(
    [{"tool_calls": [T.call("c1", "rate_service", currency="EUR")]}, {"content": "The euro is at 1.08 (made up)."}]
)
flaky_run = T.run_agent(one_call, rates, "EUR rate?", max_retries=3, sleep=clock.sleep)
plot_timeline({"max_retries=3": clock.spans}, title="A tool that is busy three times, then answers")

# %%
print("waits the harness asked for:", clock.waits)
print("attempts:", [s.kind for s in clock.spans if s.lane == "rate_service"])
print("events:", flaky_run.events)
print("what the model read:", flaky_run.messages[2]["content"])

# %% [markdown]
# The model never saw the three failures: it got the rate. The events are the harness's record
# of what it hid. With `max_retries=2`, the same tool would have failed for good, and the model
# would read the last error with "Gave up after 3 tries." added; Exercise 4 lets you try it.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Timeouts: retry only what only reads
#
# Every call gets a time limit (`call_timeout`). When a call that only reads runs out of time,
# trying again is harmless. When a call that *changes* something runs out of time, the harness
# does not know whether it happened: the work may still be going on. A second try could do it
# twice. So the toolkit retries a timed-out call only when its tool is registered as read-only.
#
# Below, two tools take 0.2 s against a limit of 0.05 s. Both were going to write one line to
# a list; one is registered as read-only (wrongly, on purpose), the other honestly as not.


# %%
def slow_writer(log: list):
    def save_note(text: str) -> str:
        """Save a note (slow today).

        Args:
            text: the note
        """
        time.sleep(0.2)
        log.append(text)
        return "saved"

    return save_note


for read_only in (True, False):
    log = []
    reg = T.ToolRegistry()
    reg.add(slow_writer(log), read_only=read_only)
    model = T.ScriptedModel(
        [
            {"tool_calls": [T.call("c1", "save_note", text="call the plumber")]},
            {"content": "I could not confirm that the note was saved."},
        ]
    )
    outcome = T.run_agent(model, reg, "Note: call the plumber.", call_timeout=0.05, max_retries=2, sleep=lambda s: None)
    time.sleep(0.5)  # let calls the harness stopped waiting for finish in the background
    print(
        f"registered read_only={read_only!s:5}: retries {sum(e.startswith('retry') for e in outcome.events)}, "
        f"notes actually saved: {len(log)}"
    )

# %% [markdown]
# The "timed out" call was not lost: it finished in the background. Marked read-only, it was
# started three times and saved the note three times. The honest flag stopped the harness from
# repeating it, and the note was saved once.
#
# A real system adds an **idempotency key**: the caller sends a unique key with each request,
# and the service remembers keys it has handled, so a repeat of the same key does nothing the
# second time. Then a retry is safe again. The toolkit's loop does not know about keys; it only
# looks at `read_only`.


# %%
def make_charge():
    done = {}

    def charge(amount: float, idempotency_key: str) -> str:
        """Charge the customer's card once per key (made up).

        Args:
            amount: the amount in euros
            idempotency_key: a unique id for this payment; a repeat with the same key does nothing
        """
        if idempotency_key in done:
            return f"already charged {done[idempotency_key]} EUR for {idempotency_key}"
        done[idempotency_key] = amount
        return f"charged {amount} EUR"

    return charge, done


charge, charged = make_charge()
print(charge(40.0, "order-A1-payment"))
print(charge(40.0, "order-A1-payment"))
print("charges on the card:", list(charged.values()))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercise 4: retries
#
# 1. Write `make_flaky_tool(failures)`. It returns a tool function (typed, with a docstring, such
#    as `quote(symbol: str) -> str`) that raises `T.TransientToolError` on its first `failures`
#    calls and works after that. Each tool it returns keeps its own count.
# 2. Write `slow_writer_registry(seconds, saved)`: a registry with one tool that changes state
#    (register it with `read_only=False`); it sleeps `seconds`, then appends its input to `saved`.
# 3. After the check, run the cell below it: it gives the loop a tool from your
#    `make_flaky_tool(5)` with `max_retries` of 0, 2 and 5. Read the events and the waits each
#    time: how many tries, how long between them, and what the model is told in the end?
#
# The check runs your flaky tool with several retry limits and counts the tries, then runs your
# slow writer under a time limit shorter than its sleep and watches what the harness does.


# %% tags=["starter"]
def make_flaky_tool(failures: int):
    """Return a tool that raises T.TransientToolError on its first `failures` calls, then works."""
    raise NotImplementedError("Exercise 4: write the flaky tool")


def slow_writer_registry(seconds: float, saved: list) -> T.ToolRegistry:
    """A registry with one state-changing tool that sleeps `seconds`, then appends to `saved`."""
    raise NotImplementedError("Exercise 4: write the slow writer")


# %% tags=["solution"]
def make_flaky_tool(failures: int):
    """Return a tool that raises T.TransientToolError on its first `failures` calls, then works."""
    count = {"calls": 0}

    def quote(symbol: str) -> str:
        """Latest price of a stock (made up).

        Args:
            symbol: ticker symbol, such as ACME
        """
        count["calls"] += 1
        if count["calls"] <= failures:
            raise T.TransientToolError(f"Quote service busy (attempt {count['calls']}). Try again.")
        return f"{symbol}: 12.5 (made up)"

    return quote


def slow_writer_registry(seconds: float, saved: list) -> T.ToolRegistry:
    """A registry with one state-changing tool that sleeps `seconds`, then appends to `saved`."""

    def save_note(text: str) -> str:
        """Save a note.

        Args:
            text: the note
        """
        time.sleep(seconds)
        saved.append(text)
        return "saved"

    registry = T.ToolRegistry()
    registry.add(save_note, read_only=False)
    return registry


# %% tags=["check"]
ex04.check(make_flaky_tool, slow_writer_registry)

# %% [markdown]
# Step 3: your flaky tool, failing five times, under three retry limits. The waits are recorded
# instead of slept, so the cell runs at once.

# %%
try:
    for max_retries in (0, 2, 5):
        reg = T.ToolRegistry()
        reg.add(make_flaky_tool(5), name="flaky_quote")
        waits = []
        args = sample_args(reg.get("flaky_quote"))
        outcome = T.run_agent(
            T.ScriptedModel([{"tool_calls": [T.call("c1", "flaky_quote", **args)]}]),
            reg,
            "Quote ACME.",
            max_retries=max_retries,
            sleep=waits.append,
        )
        print(
            f"max_retries={max_retries}: waits {waits}\n   events {outcome.events}\n"
            f"   model read: {outcome.messages[2]['content']}"
        )
except NotImplementedError:
    print("Write make_flaky_tool (step 1) to see the retries here.")

# %% [markdown]
# **Why** must the loop not retry the slow writer after its timeout? What would make a retry
# safe?

# %% [markdown] tags=["solution"]
# *A model answer.* A timeout says only that the harness stopped waiting, not that the work
# stopped: the check saw the note saved once even though the call "failed". A retry starts the
# work a second time, so a note is saved twice, an email goes out twice, a card is charged
# twice. A retry becomes safe when the service can recognise a repeat, for example through an
# idempotency key sent with each request, or when the harness can check the state first ("was
# the note saved?") before it tries again.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 7. Step limits
#
# A confused model can keep calling tools forever. `max_steps` ends the run after that many
# model turns and says so in the events. The cost of a loop also grows faster than the number of
# turns: every turn sends the whole conversation so far back to the model. The mock below never
# stops; it records the size of what it is sent each turn (characters / 4, our rough estimate).


# %%
def runaway(sizes: list):
    def respond(messages, tools):
        sizes.append(len(json.dumps(messages)) // 4)
        return {"tool_calls": [T.call(f"r{len(sizes)}", "rate_service", currency="EUR")]}

    return respond


rates = T.ToolRegistry()
rates.add(make_rate_service(0, seconds=0))
totals = {}
for limit in (3, 6, 12):
    sizes = []
    looped = T.run_agent(runaway(sizes), rates, "What is the euro rate?", max_steps=limit)
    print(
        f"max_steps={limit:2}: stop reason {looped.stop_reason}, tool calls {looped.calls:2}, "
        f"tokens sent to the model over the run about {sum(sizes):5} (last turn {sizes[-1]})"
    )
    totals[limit] = sum(sizes)
print("last event:", looped.events[-1])
print(f"our arithmetic: 12 turns read {totals[12] / totals[6]:.1f} times as much as 6 turns")

# %% [markdown]
# Doubling the limit doubles the tool calls but about quadruples what the model has read in
# total (our estimate above), because each turn re-reads all the turns before it. A step limit bounds both
# the time and the bill.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercise 5: parallel or not
#
# 1. Write `time_one_turn(parallel, n_calls=4, delay=0.2)`: make `n_calls` tools that each sleep
#    `delay` seconds, have a scripted mock ask for all of them in one turn, run `T.run_agent` with
#    that `parallel` setting, and return the seconds the run took (measure it with
#    `time.perf_counter()`). Compare with the pack's arithmetic: about 0.2 s together, about
#    0.8 s one after another, for four calls of 0.2 s. The check prints your two times next to
#    those numbers.
# 2. Now call 2 depends on call 1. `order_registry(order_id)` (from `toolkit.lessons.order_shop`) has
#    `find_order(customer)` and `cancel_order(order_id)`. Write `chained_model()`: a mock that
#    handles "Cancel Dana's latest order." by calling `find_order` alone, reading the id from the
#    tool message, and only then calling `cancel_order`. The check uses order books you have not
#    seen, so the id must come from the tool's answer.

# %% tags=["starter"]
registry_demo, db_demo = order_registry("K2")
print("tools:", registry_demo.names(), "| orders:", db_demo)


def time_one_turn(parallel: bool, n_calls: int = 4, delay: float = 0.2) -> float:
    """Seconds one turn of `n_calls` calls of `delay` seconds takes, with or without parallel."""
    raise NotImplementedError("Exercise 5: time one turn")


def chained_model():
    """A mock that finds Dana's latest order, then cancels the id it was given."""
    raise NotImplementedError("Exercise 5: write the chained model")


# %% tags=["solution"]
def time_one_turn(parallel: bool, n_calls: int = 4, delay: float = 0.2) -> float:
    """Seconds one turn of `n_calls` calls of `delay` seconds takes, with or without parallel."""
    registry = T.ToolRegistry()
    for i in range(n_calls):
        registry.add(sleepy_tool(delay), name=f"lookup_{i}")
    model = T.ScriptedModel(
        [{"tool_calls": [T.call(f"c{i}", f"lookup_{i}", city="Paris") for i in range(n_calls)]}, {"content": "done"}]
    )
    start = time.perf_counter()
    T.run_agent(model, registry, "Four look-ups, please.", parallel=parallel)
    return time.perf_counter() - start


def chained_model():
    """A mock that finds Dana's latest order, then cancels the id it was given."""

    def cancel_what_was_found(messages):
        found = json.loads(messages[-1]["content"])
        return {"tool_calls": [T.call("c2", "cancel_order", order_id=found["order_id"])]}

    return T.ScriptedModel(
        [
            {"tool_calls": [T.call("c1", "find_order", customer="Dana")]},
            cancel_what_was_found,
            {"content": "Your latest order is cancelled."},
        ]
    )


registry_demo, db_demo = order_registry("K2")
demo = T.run_agent(chained_model(), registry_demo, ex05.REQUEST)
print("turns:", demo.steps, "| orders now:", db_demo)

# %% tags=["check"]
ex05.check(time_one_turn, chained_model)

# %% [markdown]
# **Question.** With call 2 depending on call 1, what does the model have to do differently,
# and what does a planner such as LLMCompiler's change about it [16]?

# %% [markdown] tags=["solution"]
# *A model answer.* The model can no longer put both calls in one turn: it must stop after
# `find_order`, wait for the harness to run it, read the id in the result, and write
# `cancel_order` in a second turn. That costs a second round trip to the model, and
# `parallel=True` cannot help, because there is nothing to run side by side. A planner in the
# style of LLMCompiler writes both calls at once, with the second call's `order_id` given as a
# reference to the first call's output; its task-fetching unit holds call 2 back until call 1
# has answered and then fills in the value. The order of execution is the same, but the model
# is asked once instead of twice, and any independent calls in the plan run in parallel [16].

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 8. Code as action (beyond the pack)
#
# LLMCompiler's planner writes a plan of calls for an executor [16]. Take the idea one step
# further and the plan *is* a program: the model writes a few lines that call tools, loop and
# add up, the harness runs them, and only the program's `result` goes back into the
# conversation. CodeAct (Wang et al.) proposed this design: an agent whose actions are Python
# code run by an interpreter, so one action can call several tools, keep results in variables
# and branch on them. Tested with 17 models on API-Bank and a benchmark of the authors' own, it
# reached up to 20% higher success rates than actions written as JSON or text [53]. Anthropic's
# API offers this as programmatic tool calling: tools opt in to being called from code, the code
# runs in a sandboxed container, and intermediate results stay out of the model's context [38].
# `run_program` is a small sandbox of our own: a walk over a subset of Python that can call the
# registry's tools (through `ToolRegistry.run`, and through the gate when there is one) and
# nothing else. The program printed below is what a model might write (we wrote it; no model is
# involved) for "who spent more than 1,100 this quarter?" on a 12-person team.

# %%
from toolkit.lessons.code_action import OVER_BUDGET_PROGRAM, context_cost, expense_registry, run_program

program = OVER_BUDGET_PROGRAM
print(program)
team_tools = expense_registry()
run = run_program(program, team_tools)
print("result:", run["result"], "| tool calls made inside the program:", len(run["calls"]))
one_call_per_turn = [team_tools.run("get_expenses", {"person": p}).data for p in team_tools.run("list_team", {}).data]
print(
    f"tokens entering the conversation (our estimate, characters / 4): one call per turn "
    f"{context_cost(one_call_per_turn)} over {len(one_call_per_turn) + 1} turns; as a program "
    f"{context_cost([run['result']])} in one"
)

# %% [markdown]
# What it saves: model turns (two, one to write the program and one to answer, instead of
# fourteen) and context (the 180 expense lines never reach the model, only the answer does).
# What it risks: the model now writes code that your
# machine runs. So the program runs in a sandbox that refuses anything outside a small language,
# with a step budget, and every tool call inside it still meets the same gate as a direct call:

# %%
for attempt in [
    "import os\nresult = os.listdir('.')",
    "result = open('/etc/passwd')",
    "result = reimburse(person='p01', amount=5000)",
]:
    print(repr(attempt), "->", run_program(attempt, team_tools, gate=T.PermissionGate())["error"])

# %% [markdown]
# Two things this sandbox cannot do for you. A program that only reads can still mix private
# data into an address it fetches, the leak of notebook 11, so what the program may call
# matters as much as what it may import. And a real sandbox must also bound memory, time and
# network; a tree walk in the same Python process, like this one, is a teaching model, not an
# isolation boundary.

# %% [markdown]
# **Your turn (optional, about 10 minutes).** A new question: "Who spent the least this quarter?
# Pay them a bonus of 50." Write `least_spender_program()`: it returns the source of a program
# for `run_program` that sets `result` to `[person, total]` for the person with the smallest
# total, then calls `reimburse(person=..., amount=50)`. Under the gate the reading part answers
# and the payment is stopped. The check runs your program on teams of other sizes.

# %% tags=["starter"]
from toolkit.checks import opt08_program


def least_spender_program() -> str:
    """The source of a program that finds the least spender, then asks to pay them 50."""
    raise NotImplementedError("Your turn: return the program as a string")


# %% tags=["solution"]
from toolkit.checks import opt08_program


def least_spender_program() -> str:
    """The source of a program that finds the least spender, then asks to pay them 50."""
    return """least = []
for person in list_team():
    total = 0
    for line in get_expenses(person=person):
        total = total + line["amount"]
    if least == []:
        least = [person, total]
    if total < least[1]:
        least = [person, total]
result = least
reimburse(person=least[0], amount=50)
"""


# %% tags=["check"]
opt08_program.check(least_spender_program)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What to take away
#
# * Independent calls should go in one turn and run together: the turn lasts as long as the
#   slowest call, not the sum. Dependent calls cannot; each link needs the model to read a result.
# * Retry only what a retry can fix: transient failures, with growing waits, and timeouts of
#   read-only tools. Send argument errors back to the model; repair only slips whose meaning is
#   certain, and note every repair.
# * A timed-out call that changes state may still have happened. Without an idempotency key or
#   a state check, do not repeat it.
# * A step limit bounds a run whose cost grows faster than its length. Notebook 09 turns to
#   scoring the calls themselves.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# The sources this notebook cites, under the course pack's numbers (all of them, with
# venues, are in `data/references.json`).
# Sources marked (Beyond the pack.) go past the course pack; each was checked against the
# source itself on the date `data/references.json` gives.
#
# - [8] Yao et al., *ReAct: Synergizing Reasoning and Acting in Language Models*, 2023.
#   <https://arxiv.org/abs/2210.03629>
# - [16] Kim et al., *An LLM Compiler for Parallel Function Calling*, 2023.
#   <https://arxiv.org/abs/2312.04511> Published: ICML 2024, PMLR 235:24370-24391.
# - [22] Anthropic, *Tool use with Claude: overview*, undated.
#   <https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview>
# - [23] OpenAI, *Function calling*, undated.
#   <https://developers.openai.com/api/docs/guides/function-calling>
# - [38] Anthropic, *Programmatic tool calling*, undated.
#   <https://platform.claude.com/docs/en/agents-and-tools/tool-use/programmatic-tool-calling>
#   (Beyond the pack.)
# - [53] Wang et al., *Executable Code Actions Elicit Better LLM Agents*, ICML 2024.
#   <https://arxiv.org/abs/2402.01030> (Beyond the pack.)
