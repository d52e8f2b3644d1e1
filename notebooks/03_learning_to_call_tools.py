# %% [markdown] slideshow={"slide_type": "slide"}
# # 03 · How a model learns to call tools
#
# *Pack §2.3. No coding exercises; discussion questions 1–2, quiz questions 1–2 and the guide to
# the required reading, Toolformer [1], at the end.*
#
# Terms in these notes are defined in the course [glossary](../docs/glossary.md).
#
# Notebook 02 assumed a model that already knows when to ask for a tool. Where does that
# skill come from? This notebook lines up four answers and then rebuilds the middle of the
# most surprising one, Toolformer [1], at toy scale: you train a tiny language model here,
# let it propose calculator calls in its own training text, and keep only the calls that make
# the text after them easier to predict. A slider then lets you move the filter's threshold
# τ_f and compare what survives with the counts the paper reports.

# %%
import toolkit as T  # noqa: F401 (not used below; every notebook opens with it, for your own cells)
from toolkit.figures import show as show_figure
from toolkit.lessons.toolformer import (
    TinyLM,
    best_per_text,
    explain_call,
    format_explanation,
    format_threshold_table,
    make_corpus,
    run_filter,
    threshold_table,
    tokenize,
)
from toolkit.widgets.toolformer import toolformer_explorer

SEED = 0  # corpus seed for training; the filtered texts use SEED + 2, held-out SEED + 1
TRAIN_TEXTS = 2000
FILTER_TEXTS = 400

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Four ways to get tool calls into a model
#
# The approaches differ mainly in **who produces the examples** the model learns from.
#
# | Approach | Where the examples come from | What it is good at | Where it struggles |
# |---|---|---|---|
# | **Prompting**: ReAct [8], MRKL [9], HuggingGPT [11] | you write the tool list and a few demonstrations into the prompt | no training at all; swap tools by editing text | needs a capable model; long prompts; malformed calls |
# | **Supervised traces**: TALM [10] and successors | people, or a stronger model, write correct call transcripts | even small models can learn it | traces are expensive and may not transfer to unseen tools |
# | **Self-labelling**: Toolformer [1] | the model proposes calls in plain text and a loss test keeps the useful ones | no human labels | no chained calls; few examples survive; sensitive to wording |
# | **Tool tokens**: ToolkenGPT [14] | a small training set per tool teaches one new token embedding | many tools on a frozen model | the embeddings only fit the model they were trained for |
#
# ReAct interleaves a written thought ("I need today's rate, so I'll look it up") with an
# action and then reads the observation [8]. MRKL framed the idea as a system of neural models
# plus discrete knowledge and reasoning modules [9]. HuggingGPT lets a language model plan a
# task, pick a Hugging Face model for each step, run it and write up the result [11]. TALM
# grows a small set of demonstrations by "self-play" [10]. ToolkenGPT gives each tool a token
# of its own; when the model emits that token, it is prompted for the arguments [14].
#
# In practice today, most systems combine the first row with a model whose vendor trained it
# to write well-formed calls: the "function calling" feature of model APIs (notebook 05).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. Toolformer: the model labels its own data
#
# Toolformer asks whether a model can find out by itself which calls are worth making [1].
# The recipe has four steps (Figure 2):
#
# 1. **Sample**: in plain text, find positions where the model thinks a call is likely, and
#    sample candidate calls there.
# 2. **Execute**: run every candidate and collect its result.
# 3. **Filter**: compare the model's loss on the tokens *after* the position with and
#    without the call. Keep the call only if the loss drops by at least τ_f, that is
#    L⁻ − L⁺ ≥ τ_f.
# 4. **Fine-tune** the model on the text with the kept calls written into it.
#
# Here L⁺ is the loss when the call *and its result* come first, and L⁻ is the smaller of
# two losses: no call at all, and the call without its result. Taking the smaller one means a
# call gets no credit just for repeating numbers that are already in the text. The loss is a
# weighted sum over the next tokens with weights proportional to max(0, 1 − 0.2·t), so only
# the next five tokens count and nearer ones count more [1].
#
# The paper did this with GPT-J (6.7 billion parameters) and five tools: question answering,
# a calculator, Wikipedia search, machine translation and a calendar [1].

# %%
show_figure(2)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. A language model small enough to train here
#
# GPT-J will not fit in this notebook, so we build a toy with the one skill the filter
# needs: predicting the next token, and doing it better when a useful number sits nearby.
#
# `TinyLM` (our own construction, not from the paper) predicts the next token from the one
# before it. For words it uses counts of which word follows which. For numbers it mixes two
# guesses: "a number I have seen often" and "a copy of a number that appeared earlier in this
# text". How much weight the copy guess gets is *learned* from the training text with a few
# rounds of EM, short for expectation–maximization: start from a guess for the weight; for each
# number in the training text, work out how likely it is that the copy guess produced it (the
# E step); set the weight to the average of those chances (the M step); repeat until it settles.
# A tool call placed in front of the text adds its numbers, and its result, to what can be
# copied.
#
# Losses below are in **nats**: the loss of a token is −ln P, with the natural logarithm, so a
# token the model gave probability 1/e costs 1 nat (one bit is ln 2 ≈ 0.69 nats).
#
# The corpus is made of template sentences, drawn with a fixed seed. About half contain a
# small sum whose answer appears in the sentence, a fifth repeat a number, and the rest are
# plain.

# %%
train_texts = make_corpus(TRAIN_TEXTS, seed=SEED)
for text in train_texts[:6]:
    print("  ", text)

lm = TinyLM.train(train_texts)
print()
print(lm.describe())
held_out = make_corpus(300, seed=SEED + 1)
print(f"average loss on 300 held-out texts: {lm.mean_loss(held_out):.3f} nats per token")

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. Scoring one candidate call by hand
#
# Take one sentence and put a calculator call right before the answer, at position 13.
# The table lists each of the next tokens, its weight, and the model's loss (−ln P) under
# the filter's three conditions.

# %%
sentence = "ben packed 23 boxes with 17 cups in each , so ben packed 391 cups ."
print(list(enumerate(tokenize(sentence))))
print()
print("The right call, just before '391':")
print(format_explanation(explain_call(lm, sentence, 13, "23 * 17")))

# %% [markdown]
# Only the token `391` changes: with the result in front, the model can copy it instead of
# guessing a number it has hardly seen. Below, a wrong call at the same place, and the right
# call made too early:

# %%
print("A wrong call at the same place:")
print(format_explanation(explain_call(lm, sentence, 13, "23 + 17")))
print()
print("The right call, three tokens earlier (the answer now has a small weight):")
print(format_explanation(explain_call(lm, sentence, 10, "23 * 17")))

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. Filtering every sampled call
#
# Our stand-in for step 1 is blunt: after the second number in a text, at every position, try
# every `x op y` built from two earlier numbers with `+ - * /`. (The paper samples positions
# and calls from the model itself [1]; brute force is simpler at this size.) Steps 2 and 3 run
# each call on the calculator from notebook 01 and score it as above, in 400 fresh texts.

# %%
texts = make_corpus(FILTER_TEXTS, seed=SEED + 2)
candidates = run_filter(lm, texts)
print(
    f"{len(candidates):,} candidate calls in {len({c.text_id for c in candidates})} texts "
    f"that have at least two numbers (of {len(texts)} texts)"
)
print()
print(format_threshold_table(threshold_table(candidates, taus=(0.5, 1.0, 2.0))))

# %% [markdown]
# The right-hand columns are the paper's Table 2 counts for the calculator: examples that keep
# at least one call at each threshold [1]. The "share of first row" columns are our own
# arithmetic.
#
# Both columns fall as τ_f rises; the paper's falls much faster. That is expected from how
# the toy corpus was built: half of its texts contain a sum whose answer follows at once, so
# many calls clear a threshold of 1.0. Do not read anything into the sizes: a few hundred
# template sentences are not a web corpus.
#
# Which calls help most? Below are the least and the most useful calls that pass τ_f = 0.5,
# with how often the result appeared in the training text.

# %%
best = sorted(best_per_text(candidates).values(), key=lambda c: (c.gain, c.text_id))
useful = [c for c in best if c.gain >= 0.5]
for c in useful[:3] + useful[-3:]:
    print(
        f"L⁻ − L⁺ = {c.gain:4.2f}  result {c.result:>4} seen {lm.number_counts[c.result]:>3}× "
        f"in training | {c.augmented()}"
    )

# %% [markdown]
# A result the model already expects (a small number it met dozens of times in training, like
# the 3 above) barely lowers the loss, so a strict filter drops those calls; a result it has
# never seen lowers it a lot. The filter rewards calls that bring in information the model lacks, which is the
# point, and it is also why a strict τ_f leaves so few examples.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. Move the threshold yourself
#
# Drag τ_f. The histogram shows each text's most useful call; grey is what the filter drops.
# The table keeps the paper's counts [1] beside this toy's, and the two sentences show the
# call that only just passes and the one that only just fails.

# %% tags=["nbval-ignore-output"]
toolformer_explorer(candidates, tau=1.0)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 7. What came of it, and where it stops
#
# For its size, Toolformer did well on math word problems: the paper reports 40.4 on ASDiv,
# 29.4 on SVAMP and 44.0 on MAWPS, against 14.0, 10.0 and 19.8 for the far larger GPT-3 [1].
# Read those numbers with the way the experiments were run in mind: the model could make at
# most one API call per input, so it could never get caught calling tools over and over [1].
# That is a setting of the paper's evaluation. It is not on the list of limitations the
# authors give, and it says nothing about how often a model trained this way could call
# tools elsewhere.
#
# The limitations the paper itself names [1]:
#
# * **No chains.** Calls for each tool were sampled independently, so the training data never
#   shows one tool's output feeding another tool's input.
# * **No back-and-forth.** The model cannot work with a tool interactively, for example look
#   through a search's results and then search again with a better query.
# * **Sensitive to wording.** Whether the model decides to call a tool depends on exactly how
#   its input is phrased.
# * **Costly in data.** For some tools a great deal of text yields only a few thousand useful
#   calls, and a strict filter keeps fewer still (the Table 2 counts above).
#
# One more, which is our reading rather than the paper's: **only what the loss can see**
# counts. A call is kept only if its result shows up in the next few tokens. The toy makes
# this visible: a call made a few tokens too early gets most of its gain weighted away.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 8. How an open model writes a tool call today (beyond the pack)
#
# *Optional, outside the week's hours.* Toolformer wrote its calls into plain text, and so do
# today's open models: a call is text in a format the model was trained to write. What turns
# that text into an API is software around the model, in three parts: the **chat template**
# that writes the tools and the conversation into one prompt, the **parser** that reads calls
# back out of the reply, and, if the server uses one, a **grammar** that keeps the model from
# writing a malformed call at all. We look at each on the course's own local model,
# Qwen2.5-Coder-1.5B-Instruct served by llama.cpp (`make local-model-serve`, described in
# [docs/real-models.md](../docs/real-models.md)). No model runs in this section.
#
# **The template.** A chat template is a small program in Jinja, a templating language, shipped
# with the model. Below, the course's template (`data/local_model/qwen2.5-coder-tools.jinja`,
# the file the server is given) renders one tool and a conversation that already holds a call
# and its result. It is rendered here with the jinja2 library; llama.cpp's server has a Jinja
# engine of its own, and the course's local-model tests ask the server for the same prompts and
# find them identical, character for character.

# %%
from toolkit.lessons.open_models import call_grammar, chat_tools, grammar_admits, render_prompt
from toolkit.lessons.toy_tools import make_weather_registry

weather_tools = chat_tools(make_weather_registry().list_schemas()[:1])  # get_weather only
conversation = [
    {"role": "user", "content": "Is it cold in Oslo?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}],
    },
    {"role": "tool", "content": '{"city": "Oslo", "temp": 9, "unit": "celsius"}'},
]
print(render_prompt(conversation, weather_tools))

# %% [markdown]
# Read it from the top. The tool list is one JSON line per tool inside `<tools>` tags, then an
# instruction says how to write a call. The earlier call is written in exactly that format, so
# the model sees its own convention in use. The tool's result comes back as a *user* turn
# inside `<tool_response>` tags, followed by one sentence the course added. The prompt ends
# with an open assistant turn: whatever the model writes next is its reply.
#
# Qwen's own template for this family asks for each call inside `<tool_call></tool_call>`
# tags instead (the convention of the Hermes models) [64], and llama.cpp knows that format
# natively [65]. The course changed it because this small coder model answers in
# ```` ```json ```` blocks and never writes the tag: with the original template the server found
# no tag and returned every call as plain text (the template's comments record this, and
# `tests/local_model/` checks that the server now reads the calls). The format is an agreement
# between the template and the model's training data. When the two disagree, calls get lost.
#
# **The parser.** llama.cpp's server (started with `--jinja`) reads the calls out of the reply
# and returns them as OpenAI-style `tool_calls`. Its newer parser learns the format from the
# template itself: it renders the template with different calls and compares the outputs to
# find the fixed text around a call [65]. The same comparison, here:

# %%
import os


def assistant_turn(name):
    call = {"function": {"name": name, "arguments": {"x": 1}}}
    turn = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": [call]}]
    return render_prompt(turn, weather_tools, add_generation_prompt=False).split("<|im_start|>assistant")[-1]


one, other = assistant_turn("find"), assistant_turn("search")  # the same arguments, two names
before = os.path.commonprefix([one, other])
after = os.path.commonprefix([one[::-1], other[::-1]])[::-1]
print("before the name:", repr(before))
print("after the name: ", repr(after))
print("the call:       ", repr(one))

# %% [markdown]
# What the two renders share is the frame of a call: the fence and `{"name": "` before the
# name, then (the arguments being the same in both) the arguments and the closing fence.
# Another comparison, with different arguments, splits the second part the same way. A parser
# also has to decide what to do with what does not fit the frame: text around the calls (the
# user should still see it), a code block that is not a call, and a block it cannot read. The
# safe rule is the one you will write next: never drop text silently. A block that is not a
# valid call stays in the reply's text, with one sentence saying why.

# %% [markdown]
# **Your turn (optional, about 15 minutes).** Write `read_tool_calls(reply, known)`, the parser
# for this template. Every ```` ```json ```` block holding one object with a `"name"` from the
# list `known` and an object of `"arguments"` is a call, in the order they appear. Return a dict
# with `"calls"` (a list of `{"name", "arguments"}`), `"content"` (the text outside the calls,
# stripped) and `"errors"` (one sentence for each ```` ```json ```` block that is not a valid
# call; its text stays in `"content"`). Other code blocks, such as ```` ```python ````, are text
# for the user. The check uses tools and replies you have not seen.

# %% tags=["starter"]
from toolkit.checks import opt03_call_blocks

print(opt03_call_blocks.EXAMPLE_REPLY)


def read_tool_calls(reply: str, known: list) -> dict:
    """The calls of the template's ```json blocks, the text around them, and what could not be read."""
    raise NotImplementedError("Your turn: find the ```json blocks and read each one")


# %% tags=["solution"]
import json
import re

from toolkit.checks import opt03_call_blocks

CALL_BLOCK = re.compile(r"```json[ \t]*\n(.*?)\n?```", re.DOTALL)


def read_tool_calls(reply: str, known: list) -> dict:
    """The calls of the template's ```json blocks, the text around them, and what could not be read."""
    calls, errors, text, end = [], [], [], 0
    for block in CALL_BLOCK.finditer(reply):
        text.append(reply[end : block.start()])
        end = block.end()
        try:
            call = json.loads(block.group(1))
        except json.JSONDecodeError as exc:
            problem = f"a ```json block is not valid JSON ({exc.msg})"
        else:
            if not isinstance(call, dict) or not isinstance(call.get("arguments"), dict):
                problem = 'a ```json block is not {"name": ..., "arguments": {...}}'
            elif call.get("name") not in known:
                problem = f"a ```json block calls {call.get('name')!r}, which is not one of the tools"
            else:
                calls.append({"name": call["name"], "arguments": call["arguments"]})
                continue
        errors.append(problem + "; it is kept in the text")
        text.append(block.group(0))
    text.append(reply[end:])
    return {"calls": calls, "content": "".join(text).strip(), "errors": errors}


# %% tags=["check"]
opt03_call_blocks.check(read_tool_calls)

# %% [markdown] slideshow={"slide_type": "slide"}
# **The grammar.** A parser reads whatever the model wrote. A server can instead make a broken
# call impossible to write: while sampling, it drops every token that would take the text out
# of a formal grammar. llama.cpp writes such grammars in GBNF, its variant of Backus–Naur form
# (rules of the form `name ::= ...`), and converts a JSON Schema into one [65]; vendors'
# strict tool use and structured outputs rest on the same idea, constrained decoding
# (notebook 05 §6, [52]). Below is a grammar derived from `get_weather`'s schema by the
# toolkit's small converter, whose rules follow the style of llama.cpp's, and a test of which
# texts it admits.

# %%
print(call_grammar(weather_tools))
print()
good = '```json\n{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "celsius"}}\n```'
attempts = {
    "a well-formed call": good,
    "a unit the enum does not list": good.replace("celsius", "kelvin"),
    "the required city left out": good.replace('"city": "Oslo", ', ""),
    "an extra argument": good.replace('"Oslo"', '"Oslo", "days": 3'),
    "a trailing comma": good.replace('"celsius"}', '"celsius",}'),
    "words before the block": "Sure! " + good,
    "a well-formed call for the wrong city": good.replace("Oslo", "Bergen"),
}
for label, text in attempts.items():
    print(f"{'admitted' if grammar_admits(weather_tools, text) else 'impossible':>10}: {label}")

# %% [markdown]
# The enum became a choice between two literals, the required property is not optional, and no
# other key can appear (llama.cpp's converter also leaves out additional properties unless a
# schema allows them [65]). Two consequences. First, a grammar that admits only calls forbids
# plain answers, so a server does not hold every reply to it: llama.cpp's parser comes with the
# grammar *and* the triggers that switch it on once a call begins [65]. Second, the last line:
# the grammar admits a call for the wrong city. Constrained decoding removes malformed calls;
# it cannot make a well-formed call right (the lesson of Exercise 2 in notebook 05).
#
# **Training with verifiable rewards.** Where does a model's skill at writing good calls come
# from? Supervised training on call transcripts (the TALM row of the table in section 1) is
# one source. Open models can also be trained with reinforcement learning in which a program
# computes the reward by checking the answer, instead of a learned judge scoring it; Tülu 3
# named this reinforcement learning with verifiable rewards, RLVR [67]. For tools, ToolRL
# compares each call the model writes with the gold calls: a format reward (0 or 1, did the
# reply follow the format) plus a correctness reward in [−3, 3] built from matching tool
# names, parameter names and parameter values. It optimizes that reward with GRPO (group
# relative policy optimization: each sampled reply is scored against the others sampled for
# the same prompt), and the authors report 17% over the base models and 15% over supervised
# fine-tuning [66]. Such a reward is a call scorer, like the matching of calls in notebook 09,
# used for training instead of grading. It answers part of the first discussion question
# below, since it checks the call itself where Toolformer's loss could only see the next few
# tokens, and it inherits a scorer's blind spots: a different call that would also have
# served the user earns less than the gold one.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Discussion
#
# **For discussion.** *(Pack discussion question 1, in our words.)* Toolformer judges a call
# only by whether it lowers the loss on the following tokens [1]. Think of a tool whose
# benefit would never show up that way. How would you decide which calls to that tool belong
# in the training data?

# %% [markdown] tags=["solution"]
# *One possible answer.* Any tool whose value is an effect rather than text: `send_email`,
# `cancel_order`, `create_calendar_event`. The text after such a call ("Done, I've sent it")
# is just as predictable without it, so the loss test sees nothing. The same goes for a
# look-up whose result is used several sentences later, outside the five-token window. To
# judge those calls you need a signal about outcomes: check the world's state after the call
# (as τ-bench does with its database, notebook 10), ask a verifier or a person whether the
# action matched the request, or learn from demonstrations of the right action instead of
# from self-labelled text.

# %% [markdown]
# **For discussion.** *(Pack discussion question 2, in our words.)* The Toolformer paper
# lists the lack of chained tool use among its limitations [1], yet today's agents chain calls
# routinely. What made the difference: a better model, different training data, the harness
# around the model, or all three?

# %% [markdown] tags=["solution"]
# *One possible answer.* All three, each for a different part of the problem. The data:
# vendors train on multi-step transcripts in which one call's result is the next call's
# argument, which Toolformer's independent per-tool sampling never produced. The model: larger
# instruction-tuned models can plan a few steps and read a result before deciding the next
# call. The harness: a loop that runs a call, returns the result as a message and asks the
# model again (notebook 02) turns chaining into a sequence of single decisions, with a step
# cap and error messages to recover from mistakes. Without the loop even a good model cannot
# chain; without the data and the model, the loop just repeats mistakes.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Quiz
#
# **Q1.** Which of Toolformer's sampled calls end up in its fine-tuning data [1]?
#
# - (a) every call that ran without an error
# - (b) only calculator calls, since other tools' results cannot be checked
# - (c) calls a human annotator approved
# - (d) calls for which inserting the call and its result reduces the loss on the next tokens
#   by at least τ_f
#
# <details><summary>Show the answer</summary>
#
# **(d).** That is the filter of step 3, the one you ran in section 5. Nothing in the method
# needs a human label, and all five tools go through the same test.
#
# </details>
#
# **Q2.** Which limitation do the Toolformer authors state about their own method [1]?
#
# - (a) it cannot chain tools, because the calls for each tool were generated independently
# - (b) it only works on models larger than GPT-3
# - (c) every training example needs a human author
# - (d) it works with the calculator and nothing else
#
# <details><summary>Show the answer</summary>
#
# **(a).** The paper's model, GPT-J, is far smaller than GPT-3; no human writes the
# examples; and five tools go through the same recipe. Do not confuse the limitation with the
# one-call-per-input rule of section 7, which is how the experiments were run.
#
# </details>

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Reading guide
#
# **Required reading:** Schick et al., *Toolformer: Language Models Can Teach Themselves to Use
# Tools* [1], one of the week's three. Budget about 60 minutes ([time plan](../docs/teaching.md#time-plan)). It shows a
# model producing its own tool-use training data, with a loss test instead of human labels
# deciding which calls to keep; this notebook rebuilds that test at toy scale. Read the questions
# below before the paper, and note your answers as you go.
#
# 1. Follow one candidate call through sampling, execution and filtering. Which two losses does
#    the filter compare, over which tokens, and why does that remove the need for labelled
#    examples?
# 2. Table 2 counts the calculator examples that survive at several values of τ_f. What do you
#    gain and what do you lose as the threshold goes up?
# 3. How many calls per input did the evaluation allow, and is that a property of the method or
#    a setting of the experiments? Which reported gains might change without it?
# 4. Think of a tool whose benefit never appears in the next few tokens, such as one that sends
#    an email. Could this filter ever keep calls to it, and what would you use instead?
#
# **Optional**, if you want more on this notebook's topic:
#
# - Karpas et al., *MRKL Systems: A modular, neuro-symbolic architecture that combines large
#   language models, external knowledge sources and discrete reasoning* [9]. An early design
#   that routes work between a language model and separate expert modules. *Read it for:* What
#   kinds of modules sit beside the language model, and who decides which one handles a request?
#   Which parts of this design reappear in today's function-calling harnesses?
# - Parisi et al., *TALM: Tool Augmented Language Models* [10]. Supervised training on tool use,
#   grown from a few demonstrations. *Read it for:* What does the model's text interface to a
#   tool look like? How does the self-play step enlarge a small set of demonstrations, and what
#   keeps bad examples out?
# - Shen et al., *HuggingGPT: Solving AI Tasks with ChatGPT and its Friends in Hugging Face*
#   [11]. A language model used as a planner that hands each step of a task to another model.
#   *Read it for:* What are the stages between the user's request and the final answer? How does
#   the controller choose a model for a step, and what could go wrong with that choice?
# - Hao et al., *ToolkenGPT: Augmenting Frozen Language Models with Massive Tools via Tool
#   Embeddings* [14]. Adds tools to a frozen model by learning one new token per tool. *Read it
#   for:* What is trained when a tool is added, and what stays fixed? Once the model emits a
#   tool token, how are the arguments produced?

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
# - [8] Yao et al., *ReAct: Synergizing Reasoning and Acting in Language Models*, 2023.
#   <https://arxiv.org/abs/2210.03629>
# - [9] Karpas et al., *MRKL Systems: A modular, neuro-symbolic architecture that combines large
#   language models, external knowledge sources and discrete reasoning*, 2022.
#   <https://arxiv.org/abs/2205.00445>
# - [10] Parisi et al., *TALM: Tool Augmented Language Models*, 2022.
#   <https://arxiv.org/abs/2205.12255>
# - [11] Shen et al., *HuggingGPT: Solving AI Tasks with ChatGPT and its Friends in Hugging
#   Face*, 2023. <https://arxiv.org/abs/2303.17580> Published: NeurIPS 2023 (Advances in Neural
#   Information Processing Systems 36, 38154-38180).
# - [14] Hao et al., *ToolkenGPT: Augmenting Frozen Language Models with Massive Tools via Tool
#   Embeddings*, 2023. <https://arxiv.org/abs/2305.11554> Published: NeurIPS 2023 (oral).
# - [52] Anthropic, *Structured outputs*, undated.
#   <https://platform.claude.com/docs/en/build-with-claude/structured-outputs> (Beyond the
#   pack.)
# - [64] Qwen team, *Qwen2.5-Coder-1.5B-Instruct: tokenizer_config.json (chat_template)*,
#   undated.
#   <https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct/blob/main/tokenizer_config.json>
#   (Beyond the pack.)
# - [65] llama.cpp contributors, *llama.cpp documentation: Function calling, the auto-parser,
#   and the GBNF guide*, 2026.
#   <https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md> (Beyond the pack.)
# - [66] Qian et al., *ToolRL: Reward is All Tool Learning Needs*, 2025.
#   <https://arxiv.org/abs/2504.13958> (Beyond the pack.)
# - [67] Lambert et al., *Tülu 3: Pushing Frontiers in Open Language Model Post-Training*, 2024.
#   <https://arxiv.org/abs/2411.15124> (Beyond the pack.)
