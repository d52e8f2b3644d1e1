# %% [markdown] slideshow={"slide_type": "slide"}
# # 10 · Reliability: τ-bench and pass^k
#
# *Pack §2.9 (ToolBench, τ-bench, pass^k). Exercises 10 and 11, each followed by a written
# question; discussion question 9 and a quiz question on pass^k (in the spirit of the pack's quiz
# question 8), both after Exercise 11. Terms are defined in the course
# [glossary](../docs/glossary.md).*
#
# Notebook 09 scored single calls. This one asks a harder question: if you give an agent the
# same job again and again, how often does it get **all** of them right? A support agent that
# works for three customers out of four is not a product you can ship, even if each of its
# calls looks fine.
#
# You will meet the benchmarks that score whole runs, run a miniature τ-bench world with a mock
# agent that slips now and then, compute pass^k and pass@k by hand and by code, recompute a
# published τ-bench row from its per-task data, and then make the agent more reliable without
# touching the agent at all (Exercise 11).

# %%
import random
from math import comb

import toolkit as T
from toolkit.checks import ex10, ex11
from toolkit.figures import show as show_figure
from toolkit.widgets import passk_explorer, transcript

SEED = 0  # seeds every mock trial below; T.run_retail_trials(seed=SEED) is reproducible
N_TRIALS = 8  # trials per task for the mock agent
random.seed(SEED)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Three things you can score
#
# A tool-using run leaves three traces you can grade (Figure 6): the call it wrote, the answer
# it gave, and the state of the world afterwards. Each benchmark in this section picks one.
#
# * **BFCL**, in its single-turn part, compares the call text with accepted answers without
#   running it (notebook 09) [7].
# * **ToolBench** runs instructions end to end against real REST APIs. Its judge, **ToolEval**,
#   gives two numbers: a *pass rate*, the share of runs that complete the task within a set
#   budget, and a *win rate*, how often one solution path is preferred over another [4]. Real APIs make it realistic; a
#   language-model judge and live services make it noisy, and the BFCL authors report that
#   results built on RapidAPI are hard to reproduce [7].
# * **τ-bench** (Yao et al.) puts the agent in a conversation [5]. A language model plays the
#   customer; the agent has tools and a written policy for its domain; when the conversation
#   ends, the database is compared with the annotated goal state. What the agent *said* does
#   not count, only what it *did*. τ-retail has 115 tasks with 7 writing and 8 read-only tools;
#   τ-airline has 50 tasks with 6 writing and 7 read-only tools [5].

# %%
show_figure(6)

# %% [markdown] slideshow={"slide_type": "subslide"}
# What τ-bench found, in the paper's own figures [5]:
#
# * gpt-4o with function calling reaches pass^1 (the success rate of a single try; section 3
#   defines pass^k) of 61.2% on retail and 35.2% on airline;
# * the abstract says such agents (like gpt-4o) "succeed on <50% of the tasks". That holds for
#   the plain mean of the two domains' rates, (61.2 + 35.2) / 2 = 48.2%, which gives airline's
#   50 tasks the same weight as retail's 115. Counted over all 165 tasks, (0.612 × 115 + 0.352 ×
#   50) / 165 = 53.3%, a little over half (both our arithmetic). On retail alone the agent
#   solves more than half on a single try, and its pass^8 there is below 25%;
# * removing the policy from the prompt costs little on retail (61.2 → 56.8) and a lot on
#   airline, so the airline rules are not something a model already knows.
#
# Three relatives are worth knowing. **τ²-bench** adds a telecom domain where the customer has
# tools too and both act on one shared world, as when a support agent walks someone through
# resetting their phone [6]; the course's lecture slides also note that τ-bench has kept
# evolving [30]. **ToolSandbox** uses stateful tools with hidden dependencies between them, a
# simulated user and milestones along the way; its authors single out State Dependency and
# Insufficient Information as hard even for the best models [17]. **AgentDojo** tests attacks
# on agents, and comes back in notebook 11 [19].

# %% [markdown] slideshow={"slide_type": "subslide"}
# **Which tasks? (beyond the pack, checked 1 December 2026.)** τ-bench's own repository now warns
# that its airline and retail tasks are out of date and sends readers to τ³-bench, which lives in
# the tau2-bench repository [32]. Its release 1.0.0 (March 2026) fixed 27 airline and 26 retail
# tasks: expected actions the policy does not allow were removed, ambiguous instructions
# clarified, impossible constraints fixed, based on the analysis in the SABER paper [33] [59].
# The 61.2% and 35.2% above were measured on the old tasks. A score on the fixed tasks is judged
# against different goal states, so the two numbers are not comparable (our reading; the τ³
# changelog says it in so many words for a later fix to its banking domain [33]). This is the sharpest case of the rule in "Reading a
# benchmark number" below: name the benchmark version, the task split and the run you quote.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. A τ-bench world in miniature
#
# `T.RetailEnv` is a toy version: four orders, two tools, and one rule written in the prompt.
# The tools themselves do **not** enforce the rule. The three tasks are the pack's.

# %%
env = T.RetailEnv()
print("policy (in the prompt):", env.POLICY)
print("orders:", env.db)
print("tools:", [(t.name, "reads" if t.read_only else "writes") for t in map(env.registry.get, env.registry.names())])
for task in T.RETAIL_TASKS:
    changed = {k: v for k, v in task["goal"].items() if v != env.db[k]} or "nothing changes"
    print(f"  {task['id']}: {task['instruction']!r:40} goal: {changed}")

# %% [markdown]
# The mock agent, `T.PolicyAgentModel`, is a few lines of Python, not a language model. For
# each order in a task it rolls two dice: with probability `p_skip_check` it cancels without
# looking the order up first, and with probability `p_typo` it mangles the id (the last
# character becomes `9`). Both rates are **our own choices** for a mock; nobody measured them
# on a real model.
#
# Here is task T3 run twice, once by a careful agent and once by one that never checks. Both
# finish with the same word, "Done."; only the database tells them apart.

# %%
task = T.RETAIL_TASKS[2]  # T3: "Cancel order C1, please." The order is delivered, so nothing should change.
runs = {}
for label, skip in [("careful (p_skip_check=0)", 0.0), ("hasty (p_skip_check=1)", 1.0)]:
    world = T.RetailEnv()
    agent = T.PolicyAgentModel(task, random.Random(SEED), p_skip_check=skip, p_typo=0.0)
    runs[label] = T.run_agent(
        agent, world.registry, task["instruction"], system=world.POLICY, call_timeout=None, parallel=False
    )
    print(
        f"{label:26} says {runs[label].final!r:8} C1 is now {world.db['C1']!r:12}goal met: {world.db == task['goal']}"
    )

# %%
transcript(runs["hasty (p_skip_check=1)"], title="T3, hasty mock agent: the policy is in the prompt, and ignored")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. pass^k and pass@k
#
# Run every task n times and count its successes c. Pick k of the n trials at random:
#
# * **pass^k**, τ-bench's metric, is the chance that *all k* picked trials succeeded:
#   C(c, k) / C(n, k) [5].
# * **pass@k**, borrowed from code generation, is the chance that *at least one* did:
#   1 − C(n − c, k) / C(n, k).
#
# Each is averaged over tasks. pass^k can only fall as k grows; pass@k can only rise. A
# product that serves many customers lives on pass^k.
#
# The pack works one case by hand (its own arithmetic): one task, n = 4 trials, c = 3
# successes, k = 2. There are C(4, 2) = 6 pairs of trials and C(3, 2) = 3 pairs of successes,
# so pass^2 = 3/6 = 0.5; no pair can be two failures, because only one trial failed, so
# pass@2 = 1 − 0/6 = 1. The code agrees:

# %%
print(
    "by hand:  pass^2 =",
    comb(3, 2),
    "/",
    comb(4, 2),
    "=",
    comb(3, 2) / comb(4, 2),
    "  pass@2 = 1 -",
    comb(1, 2),
    "/",
    comb(4, 2),
    "=",
    1 - comb(1, 2) / comb(4, 2),
)
print("toolkit:  pass^2 =", T.pass_hat_k([3], n=4, k=2), "  pass@2 =", T.pass_at_k([3], n=4, k=2))

# %% [markdown]
# Now the mock agent with its default slips (p_skip_check = 0.2, p_typo = 0.05), 8 trials of
# each task. The last column is the pack's rule of thumb: if every try succeeded on its own with
# probability 0.9, pass^k would be 0.9^k. The numbers in it are our own arithmetic.

# %%
successes = T.run_retail_trials(n=N_TRIALS, seed=SEED)
print("successes per task (T1, T2, T3) out of", N_TRIALS, "(mock):", successes)
print(f"{'k':>3} {'pass^k':>8} {'pass@k':>8} {'0.9^k':>8}")
for k in (1, 2, 4, 8):
    print(
        f"{k:>3} {T.pass_hat_k(successes, N_TRIALS, k):>8.3f} {T.pass_at_k(successes, N_TRIALS, k):>8.3f} {0.9**k:>8.3f}"
    )
print(f"\nour own arithmetic: 0.9^5 = {0.9**5:.2f}, 0.9^8 = {0.9**8:.2f}")

# %% [markdown]
# An agent that is "90% right" fails more than half of its customers at least once in eight
# tries. Real trials are not independent draws with one shared probability (some tasks are
# easy every time, some never work), so 0.9^k only gives the scale. The next section shows how
# far off it is on real data.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Real data: gpt-4o on τ-airline
#
# τ-bench's repository publishes the trajectories behind its leaderboard. `T.load_taubench()`
# holds, for each of the 50 airline tasks, how many of 4 trials the gpt-4o tool-calling agent
# passed, taken from the repository's `historical_trajectories/gpt-4o-airline.json` (MIT
# licence; source and attribution in `data/taubench/ATTRIBUTION.md`) [5]. From those counts
# alone we can rebuild the repository's leaderboard row.

# %%
tau = T.load_taubench()
counts = tau["successes"]
n = tau["trials_per_task"]
print(f"{tau['agent']}, {tau['domain']}: {len(counts)} tasks x {n} trials")
print("tasks by successes out of 4:", {c: counts.count(c) for c in range(n + 1)})
print(f"{'k':>3} {'recomputed':>11} {'published':>10}")
for k in range(1, n + 1):
    print(f"{k:>3} {T.pass_hat_k(counts, n, k):>11.3f} {tau['leaderboard_row'][f'pass^{k}']:>10.3f}")

# %% [markdown]
# The recomputed row matches the repository's leaderboard to three places. Two things to read
# in it:
#
# * **It is not the paper's number.** The paper's table gives 35.2% for this agent on airline
#   [5]; the leaderboard in the repository, updated since the paper, says 0.42. Same label, same
#   benchmark name, two published values, and neither names a dated snapshot of the model, so
#   the runs may differ in model as well as in code. When you quote a score, say which run it
#   came from, and pin the snapshot when you run one yourself.
# * **The tasks are not alike.** Count the tasks above: many pass all 4 trials or none. The
#   next cell compares the real curve with what independent tries at pass^1's rate would give
#   (our own arithmetic).

# %%
p1 = T.pass_hat_k(counts, n, 1)
for k in range(1, n + 1):
    print(f"k={k}: real pass^k = {T.pass_hat_k(counts, n, k):.3f}   pass^1 ** k = {p1**k:.3f}")

# %% [markdown]
# The real curve falls much more slowly than the independent one, because the failures cluster
# on certain tasks: a task that always fails costs the same at k = 1 and at k = 4. So a low
# pass^k mostly points at tasks to study, and a flat curve at a low level means the agent is
# consistently wrong, not unlucky.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. The explorer
#
# Drag the slip rates and the number of trials; the plot shows pass^k and pass@k against k,
# with 0.9^k dashed. It runs the pack's three tasks plus two more (T4 sorts three orders, T5
# needs two writes in a fixed order). The switch "policy in the tool" is Exercise 11's idea,
# and the source menu swaps in τ-bench's own airline counts.

# %% tags=["nbval-ignore-output"]
passk_explorer()

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercise 10: vary the agent
#
# 1. Write `passk_table(p_skip_check, p_typo)`: run the mock agent on the pack's three tasks
#    with `T.run_retail_trials(n=N_TRIALS, p_skip_check=..., p_typo=..., seed=SEED)`, and return
#    pass^1, pass^2, …, pass^8 as a list (`T.pass_hat_k` does the counting).
# 2. Choose your own slip rates `P_SKIP_CHECK` and `P_TYPO` (not the defaults 0.2 and 0.05),
#    and print your table next to 0.9^k.
# 3. Pick one task that succeeded at least twice but not every time at your rates (otherwise
#    there is nothing to work out), read its success count c, and work out its pass^2 by hand:
#    C(c, 2) / C(8, 2). Write the working in a comment, mark it as your own arithmetic, and
#    return it from `my_pass2_by_hand()`.
#
# The check runs `passk_table` on settings you have not seen, recounts your task, and checks
# your arithmetic.

# %% tags=["starter"]
P_SKIP_CHECK = 0.2  # change these two: they are your own choices, not measurements
P_TYPO = 0.05


def passk_table(p_skip_check: float, p_typo: float) -> list[float]:
    """pass^1 ... pass^8 of the mock retail agent at these slip rates (8 trials per task)."""
    raise NotImplementedError("Exercise 10: run the trials and return pass^k for k = 1 to 8")


def my_pass2_by_hand() -> dict:
    """One task's success count at your rates, and its pass^2 worked out by hand."""
    raise NotImplementedError("Exercise 10: return {'task': ..., 'successes': ..., 'pass2': ...}")


# %% tags=["solution"]
P_SKIP_CHECK = 0.5  # our own choices for the mock, not measurements
P_TYPO = 0.1


def passk_table(p_skip_check: float, p_typo: float) -> list[float]:
    """pass^1 ... pass^8 of the mock retail agent at these slip rates (8 trials per task)."""
    wins = T.run_retail_trials(n=N_TRIALS, p_skip_check=p_skip_check, p_typo=p_typo, seed=SEED)
    return [T.pass_hat_k(wins, N_TRIALS, k) for k in range(1, N_TRIALS + 1)]


print(
    "successes per task (T1, T2, T3):",
    T.run_retail_trials(n=N_TRIALS, p_skip_check=P_SKIP_CHECK, p_typo=P_TYPO, seed=SEED),
)
for k, value in enumerate(passk_table(P_SKIP_CHECK, P_TYPO), start=1):
    print(f"k={k}: pass^k = {value:.3f}   0.9^k = {0.9**k:.3f} (our own arithmetic)")


def my_pass2_by_hand() -> dict:
    """One task's success count at your rates, and its pass^2 worked out by hand."""
    # Our own arithmetic, task T3 (3 of 8 trials succeeded at these rates):
    # pairs of successes C(3, 2) = 3; pairs of trials C(8, 2) = 28; pass^2 = 3/28 = 0.107.
    return {"task": "T3", "successes": 3, "pass2": 0.107}


# %% tags=["check"]
ex10.check(passk_table, my_pass2_by_hand, P_SKIP_CHECK, P_TYPO, seed=SEED)

# %% [markdown]
# **Question.** Set your curve beside 0.9^k and beside pass^1 raised to the k (the check
# printed both). Why is your pass^8 higher than pass^1 to the eighth? What would make a real
# agent's curve look like 0.9^k?

# %% [markdown] tags=["solution"]
# *A model answer.* pass^k averages each task's own chance of k clean runs. In the mock, T2
# almost never fails and T3 fails whenever the agent skips its check, so the average of
# p_task^k stays well above (average p)^k: the easy task keeps pass^8 up however large k gets,
# and the hard task was already lost at k = 1. The τ-airline data shows the same shape for the
# same reason. A curve like 0.9^k needs every task to be equally hard and every try to fail at
# random, independently of the others: noise, not a systematic weakness. That is rarely true,
# which is why the pack offers 0.9^k only as a feel for the scale and why τ-bench measures
# pass^k from repeated trials instead of deriving it from pass^1 [5].

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercise 11: move the rule into the tool
#
# So far the cancel policy lives only in the prompt, and an agent in a hurry ignores it. Put it
# where it cannot be ignored: write `enforce_cancel_policy(env)`, which changes the
# `cancel_order` tool of one `T.RetailEnv` so that it raises `T.ToolError` whenever the order is
# not pending, with a message that tells the model why. Pending orders must still be canceled
# and unknown ids must still get the tool's own error.
#
# `T.RetailEnv(policy_in_tool=True)` already does this; here you write the rule yourself. One
# way: take the registered tool with `env.registry.get("cancel_order")`, keep its `fn`, and
# put a checking function in its place that reads `env.db` first. The check tries your tool on
# orders it has not shown you, then reruns the trials with your rule in every world and prints
# pass^k before and after, for a hasty agent (p_skip_check = 0.5, p_typo = 0.2, our own
# choices).


# %% tags=["starter"]
def enforce_cancel_policy(env: T.RetailEnv) -> None:
    """Make env's cancel_order refuse (raise T.ToolError) any order that is not pending."""
    raise NotImplementedError("Exercise 11: wrap cancel_order so it checks the status first")


# %% tags=["solution"]
def enforce_cancel_policy(env: T.RetailEnv) -> None:
    """Make env's cancel_order refuse (raise T.ToolError) any order that is not pending."""
    tool = env.registry.get("cancel_order")
    unguarded = tool.fn

    def cancel_order(order_id: str) -> dict:
        status = env.db.get(order_id)  # None: unknown id, which the original tool reports
        if status is not None and status != "pending":
            raise T.ToolError(
                f"Order {order_id} is {status}; only pending orders can be canceled. "
                "Tell the user it cannot be canceled."
            )
        return unguarded(order_id)

    tool.fn = cancel_order


# %% tags=["check"]
ex11.check(enforce_cancel_policy, p_skip_check=0.5, p_typo=0.2, seed=SEED)

# %% [markdown]
# The toolkit's built-in switch gives the same comparison without your code, for a range of
# hastiness (mock agent, 8 trials × 3 tasks; the slip rates are our own choices). Look at the
# right-hand column: the skipped checks no longer matter, and what is left are typos.

# %%
TYPO = 0.2  # our own choice, high enough that typos show up in 8 trials
print(f"p_typo = {TYPO} (mock); successes per task (T1, T2, T3), then pass^1 and pass^8")
print(f"{'p_skip_check':>12} | {'policy only in the prompt':^30} | {'rule in the tool':^30}")
for skip in (0.0, 0.2, 0.5, 1.0):
    cells = []
    for in_tool in (False, True):
        wins = T.run_retail_trials(n=N_TRIALS, p_skip_check=skip, p_typo=TYPO, seed=SEED, policy_in_tool=in_tool)
        cells.append(f"{str(wins):10} {T.pass_hat_k(wins, N_TRIALS, 1):.3f}  {T.pass_hat_k(wins, N_TRIALS, 8):.3f}")
    print(f"{skip:>12} | {cells[0]:^30} | {cells[1]:^30}")

# %% [markdown]
# **Question.** What happened to pass^k, and which failures are left? What does that say about
# where a policy belongs: the prompt, the tool, or both?

# %% [markdown] tags=["solution"]
# *A model answer.* With the rule in the tool, every failure that came from skipping the check
# disappears: a hasty cancel of A2 or C1 now bounces off a `ToolError` and the database stays at
# its goal. In the check's run, T3 goes from 3 to 8 successes out of 8 and pass^8 rises from
# 0.333 to 0.667. What remains are typos, which the rule cannot fix: a mangled id still means
# the wanted cancel of A1 never happens, so T1 keeps failing now and then. A rule that
# must always hold belongs in code, next to the data it protects, where it holds for every
# model, prompt and conversation; the τ-bench airline result (a large drop without the policy
# in the prompt [5]) shows how badly agents follow rules they are only told. The prompt still
# matters: it tells the model the rule so it can plan and explain, and the tool's error message
# does the same job after a slip. Rules that need judgement (exceptions, goodwill refunds)
# cannot be written as a check, and those are exactly the ones pass^k over a simulated user
# has to test.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Reading a benchmark number
#
# Section 8 of notebook 09 puts five questions to any benchmark number. Their answers for the
# numbers in this notebook:
#
# | question | τ-bench airline, gpt-4o [5] | our mock retail world |
# |---|---|---|
# | What is scored? | the database at the end, against the goal | the same: `env.db == task["goal"]` |
# | Who judges? | code, but the user it talks to is a language model | code, and there is no language model anywhere |
# | Live, recorded or mocked tools? | tools acting on the benchmark's own database, no live services | mocked tools and a mock agent |
# | How many runs per task? | 4 in the counts used here | 8 (16 in the assignment) |
# | What prompt and call format? | the tool-calling strategy with the domain policy in the prompt | a scripted agent; the policy text is passed but the mock never reads it |
#
# Two consequences. The published τ-bench value for one label, "gpt-4o", changed between the
# paper and the repository's leaderboard, possibly with the snapshot behind the label, so
# always say which run you quote. And the mock's numbers repeat exactly for a seed, which makes
# them good for teaching and useless as a statement about any real model.

# %% [markdown]
# **For discussion.** *(Pack discussion question 9, in our words.)* A colleague's support agent
# gets 80% on its task set, one run per task. Would you let it talk to customers? Which number
# would you ask for before deciding, and why that one?

# %% [markdown] tags=["solution"]
# *Instructor's note.* The expected answer is "not yet", with a reason. One run per task
# cannot tell a task the agent always solves from one it solves by luck, and customers meet the
# agent many times, so the number that matters is how often it gets the *same* task right
# *every* time. Ask for pass^k from repeated trials (at least 4 to 8 runs per task), with the
# task set described: τ-bench introduced the metric because pass^1 hides exactly this, and even
# a strong gpt-4o agent fell below 25% at pass^8 on retail [5]. Two reference points from this
# notebook: if every try succeeded independently at 0.8, pass^8 would be about 0.17 (our own
# arithmetic); the τ-airline counts fall much more slowly than pass^1 to the k, because the
# failures sit on particular tasks, and that is useful too, since it names the tasks to fix.
# Strong answers also ask what is scored (the final state or the reply), who plays the user,
# and what a failure costs: a refused refund and a wrong cancellation are not equal, so a
# reliability target should weigh the writes. A fair conclusion: ship behind a gate on state
# changes (notebook 11) or for read-only tasks first, and move hard rules into the tools
# (Exercise 11) before trusting the agent with writes.

# %% [markdown]
# **Quiz.** One task, 4 trials, 3 successes. What is pass^2 by τ-bench's estimate [5]?
# (a) 0.75 (b) 0.5 (c) 1.0 (d) 0.25
#
# <details><summary>Answer</summary>
#
# (b): C(3, 2) / C(4, 2) = 3/6 = 0.5 (the worked case in section 3).
# </details>

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Dual control, in one mock example (beyond the pack)
#
# In τ²-bench the user is not only a source of information: both sides hold tools on one shared
# world, and the task is won or lost on that world's final state [6]. Below, the agent can read the line's status from the
# network but cannot touch the phone; only the (mock, literal-minded) user can switch airplane
# mode and mobile data. Two scripted mock agents face the same broken phone.

# %%
from toolkit.lessons.dual_control import AGENTS, Phone, agent_tools, run_dual_control

print("the agent tries the phone's switch itself:", agent_tools(Phone()).run("toggle_airplane_mode", {}).content)
for name in AGENTS:
    run = run_dual_control(name)
    print(f"\nagent (mock) that {name}:")
    for said, heard in run["turns"]:
        print(f"  agent: {said}\n  user:  {heard}")
    print(f"  line before {run['before']} -> after {run['after']}; goal reached: {run['goal reached']}")

# %% [markdown]
# Both agents see the same diagnosis; only one gets the fix applied, because only the user
# can apply it. A benchmark that scored what the agent *said* or *called* could not tell them
# apart; the shared world's final state does.

# %% [markdown]
# **Your turn (optional, about 10 minutes).** Write `guide(status, user_said)`: from what the
# agent sees of the line (`line_status`'s dict) and the user's last reply, the next message to
# the user. The user flips a switch whenever a message names it ("turn off airplane mode",
# "turn on mobile data"), so asking for a switch that is already right breaks it again. The
# check runs your agent for four turns on phones that start in states this notebook does not
# show, and counts the flips.

# %% tags=["starter"]
from toolkit.checks import opt10_dual_control


def guide(status: dict, user_said: str) -> str:
    """The agent's next message, from line_status's dict and the user's last reply."""
    raise NotImplementedError("Your turn: read the status, ask for what is wrong")


# %% tags=["solution"]
from toolkit.checks import opt10_dual_control


def guide(status: dict, user_said: str) -> str:
    """The agent's next message, from line_status's dict and the user's last reply."""
    if not status["registered"]:
        return "Your phone is not on the network. Please turn off airplane mode."
    if not status["data session"]:
        return "The network sees you now. Please turn on mobile data in settings."
    return "Your line is working; anything else I can do?"


# %% tags=["check"]
opt10_dual_control.check(guide)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What to take away
#
# * Score what the agent did (the final state), not what it said.
# * Report pass^k from repeated trials: one lucky run hides a lot, and 0.9^k is only a feel
#   for how fast reliability falls.
# * Real failures cluster on tasks; a low pass^k is a list of tasks to study.
# * Rules that must always hold belong in the tools. Notebook 11 does the same for security:
#   controls in the harness, not in the wording of a prompt.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## With a real model (optional)
#
# The pass^k figures above are those of a mock agent whose slip rates we set. If you have set
# up a real model ([Using a real model](../docs/real-models.md#using-a-real-model)), the cell below makes it the agent: each of
# the three retail tasks runs 4 times in a fresh world, under the same policy and tools, and
# the final database decides each trial. It prints each task's successes, then pass^k and
# pass@k for k = 1, 2, 4. Without a set-up it prints one line and sends nothing.
#
# Four trials give a rough estimate (`python -m toolkit passk --trials 8` runs more). The
# numbers carry the model's name and the date: they describe that model in this small world
# on that day, not the mock above and not another model.
#
# The [local model](../docs/real-models.md#no-key-no-network-a-local-model-that-calls-tools) (Qwen2.5-Coder-1.5B-Instruct) passed T1 and T2 and failed T3 on
# 2026-12-04 (pass^1 0.667 at temperature 0): its pass^k is that model's, on that day, and
# shows how a real agent's failures cluster on tasks, not how well larger models do.

# %%
from toolkit.lessons.model_eval import notebook_passk

real_passk = notebook_passk(trials=4)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# The sources this notebook cites, under the course pack's numbers (all of them, with
# venues, are in `data/references.json`).
# Sources marked (Beyond the pack.) go past the course pack; each was checked against the
# source itself on the date `data/references.json` gives.
#
# - [4] Qin et al., *ToolLLM: Facilitating Large Language Models to Master 16000+ Real-world
#   APIs*, 2023. <https://arxiv.org/abs/2307.16789> Published: ICLR 2024 (spotlight).
# - [5] Yao et al., *τ-bench: A Benchmark for Tool-Agent-User Interaction in Real-World
#   Domains*, 2024. <https://arxiv.org/abs/2406.12045> Published: ICLR 2025.
# - [6] Barres et al., *τ²-Bench: Evaluating Conversational Agents in a Dual-Control
#   Environment*, 2025. <https://arxiv.org/abs/2506.07982>
# - [7] Patil et al., *The Berkeley Function Calling Leaderboard (BFCL): From Tool Use to
#   Agentic Evaluation of Large Language Models*, 2025.
#   <https://proceedings.mlr.press/v267/patil25a.html>
# - [17] Lu et al., *ToolSandbox: A Stateful, Conversational, Interactive Evaluation Benchmark
#   for LLM Tool Use Capabilities*, 2024. <https://arxiv.org/abs/2408.04682> Published: Findings
#   of NAACL 2025, pages 1160-1183.
# - [19] Debenedetti et al., *AgentDojo: A Dynamic Environment to Evaluate Prompt Injection
#   Attacks and Defenses for LLM Agents*, 2024. <https://arxiv.org/abs/2406.13352>
# - [30] Yang et al., *Tool Use & Function Calling (CS329Z Week 3 lecture slides)*, Stanford
#   University, undated. No link: the course pack names these slides in its credit line and in
#   §2.9 but leaves them out of its reference list.
# - [32] Sierra, *τ-bench repository README (the warning that its tasks are outdated)*, 2026.
#   <https://github.com/sierra-research/tau-bench> (Beyond the pack.)
# - [33] Sierra, *τ³-bench (tau2-bench repository): README and CHANGELOG*, 2026.
#   <https://github.com/sierra-research/tau2-bench/blob/main/CHANGELOG.md> (Beyond the pack.)
# - [59] Cuadron et al., *SABER: Small Actions, Big Errors — Safeguarding Mutating Steps in LLM
#   Agents*, 2025. <https://arxiv.org/abs/2512.07850> (Beyond the pack.)
