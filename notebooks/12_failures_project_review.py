# %% [markdown] slideshow={"slide_type": "slide"}
# # 12 · Failure modes, your project, and the week in review
#
# *Pack §2.11–2.13, the quiz (§6) and the graded assignment (§7).*
#
# Terms in these notes are defined in the course [glossary](../docs/glossary.md).
#
# The last eleven notebooks each broke something on purpose. This one collects those breakages
# and sorts them: when an agent fails, the first useful question is *where* it failed, because
# the answer points at the fix. After a sorting activity on nine failed runs, the notebook turns
# to your own work: a short guide for a course project with tools in it, the week on one page,
# the ten-question quiz, and the graded assignment.

# %%
import random

import toolkit as T  # noqa: F401 (not used below; every notebook opens with it, for your own cells)
from toolkit.checks import failure_groups
from toolkit.figures import show as show_figure
from toolkit.lessons.failure_runs import GROUPS, failed_runs
from toolkit.widgets import load_quiz, quiz, transcript

SEED = 0  # every failed run below is seeded inside toolkit.lessons.failure_runs; nothing here draws more
random.seed(SEED)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Three places a run can go wrong
#
# Figure 8 sorts tool-use failures into three groups. Read the signs across, then the remedies
# down.
#
# * **Single call.** One call is wrong by itself: a made-up tool, a parameter the schema does
#   not have or a required one left out, a call where no tool fits. The schema, the validator
#   and the tool list are where this gets fixed (notebooks 04, 05, 07, 09) [2] [7].
# * **Many steps.** Each call may be fine, but the sequence is not: acting before looking,
#   sending the same failing call again, losing an id between turns, circling until a limit
#   stops it. Step limits, errors that say what to change, and plans with explicit dependencies
#   help; so does searching over alternatives, as DFSDT does (notebooks 02, 04, 08) [4] [8] [16].
# * **Conversation.** The calls and their order may be fine, but the agent followed the wrong
#   voice: the user rather than the policy, its own guess rather than a question back, a planted
#   instruction rather than the user. Policy enforced in code, a simulated user in tests, pass^k
#   and a gate on state changes help (notebooks 10, 11) [5] [19] [22].

# %%
show_figure(8)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Activity: sort nine failed runs
#
# Each run below went wrong, and each was produced just now by the course's mocks (none is a
# real model): the mock retail agent of notebook 10 with one slip forced on, the mock callers
# of notebook 09 scored by `T.classify`, the injection demo of notebook 11, and a scripted
# agent that will not take no for an answer. For each run, decide which group it belongs to.
# Look at the evidence, not at the title: two runs get the same label from the scorer and
# still belong to different groups.

# %%
runs = failed_runs()
for run in runs:
    print(run.text(), "\n")

# %% [markdown]
# Any run that went through the agent loop can also be read as a conversation, for example F5:

# %%
transcript(next(r for r in runs if r.id == "F5").result, title="F5: two writes, in the order the user said them")

# %% [markdown]
# Write `sort_failures()`: it returns a dict from each run's id to one of `"single call"`,
# `"many steps"` or `"conversation"`. The check marks each run; a wrong one gets a hint, a
# right one gets the reason.

# %% tags=["starter"]
print("groups:", GROUPS)


def sort_failures() -> dict:
    """Each run's group: {"F1": "...", "F2": "...", ..., "F9": "..."}."""
    raise NotImplementedError("Activity: file each of F1 to F9 under one of the three groups")


# %% tags=["solution"]
def sort_failures() -> dict:
    """Each run's group: {"F1": "...", "F2": "...", ..., "F9": "..."}."""
    return {
        "F1": "conversation",  # did what the user asked, against the written policy
        "F2": "single call",  # a function name nobody offered
        "F3": "many steps",  # the same failing call, turn after turn
        "F4": "conversation",  # guessed a currency instead of asking
        "F5": "many steps",  # two right writes in the wrong order, without reading first
        "F6": "single call",  # a required argument left out
        "F7": "conversation",  # obeyed a planted instruction
        "F8": "many steps",  # mangled the id in its first look-up, then ignored the error
        "F9": "single call",  # called a tool when none fits
    }


# %% tags=["check"]
failure_groups.check(sort_failures)

# %% [markdown]
# **Question.** F4 and F9 both get `should_abstain` from the scorer. Why do they belong to
# different groups, and what would you change in each case?

# %% [markdown] tags=["solution"]
# *A model answer.* The scorer only knows that the right answer was "no call". In F9 no offered
# tool could answer the question at all, so the mistake is inside one decision, whether to call,
# and it is fixed where single calls are fixed: irrelevance cases in the test set, clearer tool
# descriptions that say what each tool is *not* for [7]. In F4 the tool fits perfectly; the
# request is incomplete, and the agent should have asked the user which currency. That is a
# failure of the conversation, fixed by testing with a simulated user that leaves things out and
# by prompts and tools that make asking easy; Anthropic's documentation warns about exactly this
# habit of guessing a missing value [22]. A score label tells you *that* a run failed; reading
# the transcript tells you *where*.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. From tool use to a course project
#
# The pack adds a short general guide for projects that use tools. It is not the project brief:
# the rules, deadlines and grading are on the course site [29]. In our words:
#
# 1. **Start small.** Two or three tools with one clear job each. Add a tool when a task fails
#    for want of it, not before.
# 2. **Write the descriptions and schemas first,** and review them as if a new colleague had to
#    use them with nothing else to go on (notebook 07).
# 3. **Build the harness before tuning the prompt.** Validation, time limits, a step limit and
#    errors that teach catch most early problems (notebooks 02, 05, 08).
# 4. **Collect test cases of three kinds:** ordinary requests, requests that should trigger a
#    clarifying question, and requests no tool can serve. Add some the agent should refuse.
# 5. **Run every case several times** and report pass^k, not a single run (notebook 10).
# 6. **Log every call and read about twenty transcripts yourself,** sorting the failures into
#    the three groups above.
# 7. **Decide who may do what.** Mark each tool read-only or not, and say which calls need a
#    person's yes (notebook 11).
# 8. **Report honestly:** how many tasks, how you chose them, and what your mock or simulator
#    cannot show.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. The week on one page
#
# * **Why tools.** Models are unreliable at exact computation, do not know private or recent
#   facts, and cannot act on the world; tools close those gaps at a price in cost and risk
#   [13] [15] (notebook 01).
# * **The loop.** The model only writes a request. The harness validates it, checks it is
#   allowed, runs it under a time limit and returns a result or an error; a step limit ends
#   runaway loops (notebook 02).
# * **Learning to call.** ReAct prompts, TALM's traces, Toolformer's self-labelling with a
#   loss filter (which cannot chain tools), ToolkenGPT's tool tokens [1] [8] [10] [14]
#   (notebook 03).
# * **Many tools.** Retrieve a few tool descriptions, then call (Gorilla, ToolLLM); searching
#   over chains recovers from dead ends; a made-up tool and a misused real one are different
#   mistakes [2] [4] (notebook 04).
# * **Interfaces.** REST for programmers, function calling with JSON Schema for one vendor's
#   API, MCP for a whole ecosystem [3] [23] [24] (notebook 05).
# * **MCP.** Host, client and server exchange JSON-RPC 2.0 messages. Up to revision 2025-11-25
#   (the pack's 2025-06-18 among them) a session opens with `initialize` and the
#   `notifications/initialized` message, which gets no reply; only then come `tools/list` and
#   `tools/call` [3]. Revision 2026-07-28 drops the handshake: every request carries its version
#   in `_meta` [60]. In every revision a protocol error and an `isError` result are different
#   things (notebook 06).
# * **Design.** Few tools, clear names, small and meaningful results, errors that teach, careful
#   descriptions [21] (notebook 07).
# * **Harness mechanics.** Parallel calls when independent, retries with back-off only when
#   safe, no blind retry of a write that timed out [16] (notebook 08).
# * **Evaluation.** BFCL's single-turn part scores single calls (it has multi-turn and agentic
#   parts too), ToolBench whole runs on live APIs, τ-bench rule-following judged by the final
#   state, and pass^k repeatability [4] [5] [7] (notebooks 09, 10).
# * **Security.** Tool output can carry orders; rely on least privilege, confirmation and
#   taint, not on wording filters [3] [18] [19] (notebook 11).
# * **Debugging.** Single call, many steps or conversation: find the group, then the fix
#   (this notebook).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. The quiz
#
# Ten questions, one per topic of the week. Pick an answer for each, then press the button;
# each answer comes with a short explanation. The questions are stored in `data/quiz.json`.

# %%
questions = load_quiz()
print(f"{len(questions)} questions:")
for q in questions:
    print(f"  {q['id']:>2}. {q['topic']}")

# %% tags=["nbval-ignore-output"]
quiz()

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. The graded assignment
#
# **Make tool calls safe and repeatable.** Extend the toolkit, score it, test it for
# reliability, and write a memo of at most three pages. Solo work, about 3 to 4 hours,
# 100 points. Mock models are fine. If a real model or a real MCP server takes part, name the
# parts it touched. Every part needs tools and data of your own making; describe how you built
# them.
#
# **What the course gives, and what you build.** The toolkit hands you building blocks, never a
# finished part. Under each part, *Reuse* names course functions you may call, subclass or
# copy from, and *Already in the course* names what a notebook has built already: it shows the
# idea, and it does not count as your answer.
#
# Figure 9 is the map of what you are extending.

# %%
show_figure(9)

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Part A. Validation, repair and the loop (30 points)
#
# * Teach `validate_args` one JSON Schema feature it does not check yet, such as
#   `minimum`/`maximum` or `pattern` [24]. Have `schema_from_function` produce it, or show it in
#   a schema written by hand.
# * Add one repair rule to `repair_args`. In two sentences, say what it must never do, and
#   write a test in which it declines.
# * Add one feature the loop does not have yet: for example a time budget for the whole run, or
#   retry rules that differ per tool [21].
# * At least five unit tests for your new code, including one edge case and one that checks an
#   error message tells the model what to do next.
# * A transcript showing the fix at work: the broken call, the error text the model got back,
#   and its corrected call.
#
# *Reuse:* `T.validate_args`, `T.repair_args`, `T.schema_from_function` and `T.run_agent` are
# the code you extend; `T.ScriptedModel` can play the model that makes the broken call and
# then the corrected one. *Already in the course:* nested objects in `validate_args`, the
# repairs `repair_args` makes today (notebook 05), and the result cap `max_result_chars` of
# `run_agent` (notebook 02).

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Part B. A call-scoring study (25 points)
#
# * At least 30 cases you write yourself in the shape of `BFCL_CASES`, covering all four
#   categories (simple, multiple, parallel, irrelevance), and among them at least four of your
#   own design in which the user leaves out a needed value [7]. Give each its gold calls and
#   acceptable values.
# * Outputs from three mock models you write, each with a different habit (inventing names,
#   dropping values, calling when nothing fits…). A real model may be a fourth.
# * Accuracy overall and per category, and a count of each failure type from `classify`.
# * AST scoring against exact string match on your data: on how many cases do they disagree?
# * Two mistakes of your scorer: a case it fails though it should pass, and one it passes
#   though it should fail. Say how you would change it.
#
# *Reuse:* `T.evaluate_calls`, `T.classify`, `T.exact_string_match` and `T.parse_calls` score
# your data, and `MockCaller` in `toolkit.lessons.mock_callers` is a base class with seeded slips for your
# mocks. *Already in the course:* notebook 09's 32 cases (`data/course_cases.json`), its three
# mock callers (`NameInventor`, `ValueDropper`, `OverEagerCaller`) and the scoring panel's
# tables of them. Your cases and your mocks are new ones, written by you.

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Part C. A reliability study (25 points)
#
# * Build a small world of your own, or extend `RetailEnv` with tools and tasks you write: at
#   least five tasks of yours, one of which needs two calls in a fixed order [5].
# * Run each task 16 times. With `pass_hat_k` and `pass_at_k`, tabulate or plot pass^k and
#   pass@k at k = 1, 2, 4, 8 and 16.
# * One task's pass^2 worked by hand, labelled as your own arithmetic, matching the code.
# * Move one policy rule of your world from the prompt into a tool, as Exercise 11 did for
#   canceling, and report how pass^k changes.
# * A short failure memo: five failed trials sorted into the three groups of Figure 8, one line
#   of reason each (the activity above).
# * State your slip rates and say plainly that you chose them; they are not measurements.
#
# *Reuse:* `T.RetailEnv` (its `orders=` argument, and `env.registry.add` for a tool of yours),
# `T.run_retail_trials` and `T.retail_outcomes` (they take your `tasks=`, your own mock agent
# as `agent=`, and `prepare=` to change each fresh world: its orders, tools and `env.POLICY`),
# `T.PolicyAgentModel` as a mock agent to adapt, `T.pass_hat_k` and `T.pass_at_k`. *Already in the course:* the tasks T1 to T5 behind notebook 10's explorer (T5
# returns an order, then refunds it, with the tools `return_order` and `refund_order`), the
# explorer's curves for them, and Exercise 11's guarded `cancel_order`. None of them counts
# towards your five tasks, your ordered task or your moved rule.

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Part D. Server design and security memo (20 points)
#
# * A small domain of your choice (a library, clinic bookings, a to-do app). Three MCP tools
#   with complete definitions: name, description, `inputSchema` and annotations, each marked
#   read-only or not [3].
# * Two error messages that teach the model its next step [21].
# * A path by which untrusted text could get to the model through your tools, and a harm it
#   could then cause. Which controls from notebook 11 you would use, and what risk remains
#   [18] [20].
# * One size estimate with its arithmetic (for example tokens for your three definitions,
#   characters divided by 4), labelled as your own rough estimate.
# * The MCP revision you designed for, and one change in a newer revision you would check, with
#   what it would mean for your three tools [3].
# * Three limits of your experiments.
#
# *Reuse:* `T.schema_from_function` and `T.Tool`'s `to_mcp()` turn a typed function into a
# definition, and `T.MCPServer` serves your tools if you want to try them. *Already in the
# course:* the `echo` and `add` tools of `python -m toolkit serve`, and notebook 06's table of
# revisions with its example change. Your domain, definitions and threat path are your own.
#
# **Hand in:** your code (the toolkit or your own files), your cases and worlds, and the tests,
# all passing; the memo (PDF or Markdown) with the tables of Parts A–C and your answers to
# Part D; a list of the sources you cite.

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Rubric
#
# | part | full marks | partial marks | points |
# |---|---|---|---|
# | A. Validation, repair, loop | a validation feature, a repair rule with a test where it declines, a loop feature; five or more passing tests including an edge case and a helpful-error check; a clear transcript | the features work but the tests are thin, or the repair rule's limit is not stated | 30 |
# | B. Scoring study | 30+ cases across the categories; three mock models; accuracy per category and failure counts; AST vs exact match compared; two scorer mistakes found and explained | fewer cases, no failure analysis, or no scorer mistakes found | 25 |
# | C. Reliability study | 5+ tasks × 16 trials; pass^k and pass@k tables; a hand check that matches the code; the policy-in-tool comparison; five failures sorted; slip rates stated as your own | the hand check, the comparison, or the sorting is missing | 25 |
# | D. Design and security | three well-formed definitions with annotations; two teaching errors; a concrete threat path with controls and what remains; a labelled estimate; the revision named; three honest limits | vague definitions, or a threat model with no remaining risk | 20 |
# | **total** | | | **100** |
#
# Grade bands: 90–100 excellent, 75–89 good, 60–74 needs work, below 60 redo and resubmit.
# Short, plain sentences score better than long ones, and any arithmetic of your own must be
# labelled as such.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Back to the schema question
#
# Discussion question 12 of the pack ("we have a schema, so our calls are safe") is posed once,
# at the end of notebook 05, where schemas are taught. If your group takes it up after this
# notebook, bring the nine runs above as evidence: hold each call up against the tools and
# schemas that were offered.
#
# ## What to take away
#
# * Ask where a run failed: one call, the sequence, or the conversation. The group names the
#   fix.
# * Score labels tell you that a run failed; transcripts tell you why.
# * Start projects small, build the harness first, test with repeats, decide permissions
#   early, and report what your mocks cannot show.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## References
#
# The sources this notebook cites, under the course pack's numbers (all of them, with
# venues, are in `data/references.json`).
# Sources marked (Beyond the pack.) go past the course pack; each was checked against the
# source itself on the date `data/references.json` gives.
#
# - [1] Schick et al., *Toolformer: Language Models Can Teach Themselves to Use Tools*, 2023.
#   <https://arxiv.org/abs/2302.04761> Published: NeurIPS 2023, with 9 authors (adds Hambro,
#   E.).
# - [2] Patil et al., *Gorilla: Large Language Model Connected with Massive APIs*, 2024.
#   <https://arxiv.org/abs/2305.15334>
# - [3] Model Context Protocol, *Model Context Protocol Specification*, 2025.
#   <https://modelcontextprotocol.io/specification/2025-06-18>
# - [4] Qin et al., *ToolLLM: Facilitating Large Language Models to Master 16000+ Real-world
#   APIs*, 2023. <https://arxiv.org/abs/2307.16789> Published: ICLR 2024 (spotlight).
# - [5] Yao et al., *τ-bench: A Benchmark for Tool-Agent-User Interaction in Real-World
#   Domains*, 2024. <https://arxiv.org/abs/2406.12045> Published: ICLR 2025.
# - [7] Patil et al., *The Berkeley Function Calling Leaderboard (BFCL): From Tool Use to
#   Agentic Evaluation of Large Language Models*, 2025.
#   <https://proceedings.mlr.press/v267/patil25a.html>
# - [8] Yao et al., *ReAct: Synergizing Reasoning and Acting in Language Models*, 2023.
#   <https://arxiv.org/abs/2210.03629>
# - [10] Parisi et al., *TALM: Tool Augmented Language Models*, 2022.
#   <https://arxiv.org/abs/2205.12255>
# - [13] Wang et al., *What Are Tools Anyway? A Survey from the Language Model Perspective*,
#   2024. <https://arxiv.org/abs/2403.15452> Published: COLM 2024.
# - [14] Hao et al., *ToolkenGPT: Augmenting Frozen Language Models with Massive Tools via Tool
#   Embeddings*, 2023. <https://arxiv.org/abs/2305.11554> Published: NeurIPS 2023 (oral).
# - [15] Dziri et al., *Faith and Fate: Limits of Transformers on Compositionality*, 2023.
#   <https://arxiv.org/abs/2305.18654> Published: NeurIPS 2023.
# - [16] Kim et al., *An LLM Compiler for Parallel Function Calling*, 2023.
#   <https://arxiv.org/abs/2312.04511> Published: ICML 2024, PMLR 235:24370-24391.
# - [18] Greshake et al., *Not what you've signed up for: Compromising Real-World LLM-Integrated
#   Applications with Indirect Prompt Injection*, 2023. <https://arxiv.org/abs/2302.12173>
#   Published: AISec '23 (16th ACM Workshop on Artificial Intelligence and Security), pages
#   79-90.
# - [19] Debenedetti et al., *AgentDojo: A Dynamic Environment to Evaluate Prompt Injection
#   Attacks and Defenses for LLM Agents*, 2024. <https://arxiv.org/abs/2406.13352>
# - [20] OWASP GenAI Security Project, *OWASP Top 10 for LLM Applications 2025*, undated.
#   <https://genai.owasp.org/llm-top-10/>
# - [21] Anthropic, *Writing effective tools for agents — with agents*, 2025.
#   <https://www.anthropic.com/engineering/writing-tools-for-agents>
# - [22] Anthropic, *Tool use with Claude: overview*, undated.
#   <https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview>
# - [23] OpenAI, *Function calling*, undated.
#   <https://developers.openai.com/api/docs/guides/function-calling>
# - [24] JSON Schema, *JSON Schema Specification*, undated.
#   <https://json-schema.org/specification>
# - [29] Yang et al., *CS329Z: Engineering AI Agents*, 2026. <https://cs329z.stanford.edu/>
# - [60] Model Context Protocol, *Key changes (revision 2026-07-28)*, 2026.
#   <https://modelcontextprotocol.io/specification/2026-07-28/changelog> (Beyond the pack.)
