# %% [markdown] slideshow={"slide_type": "slide"}
# # 09 · Scoring calls (BFCL)
#
# *Pack §2.9, the part on BFCL. Exercise 9; discussion question 8 and quiz question 7.*
#
# Terms in these notes are defined in the course [glossary](../docs/glossary.md).
#
# How do you know a model calls tools well? You need test cases, and a rule that says whether a
# reply is right. This notebook is about the rule. It looks at the Berkeley Function Calling
# Leaderboard, BFCL, whose single-turn part is the standard benchmark for single calls (it has
# multi-turn and agentic parts too) [7] [28]; builds its main scoring idea, matching the parsed
# call instead of its text, with the toolkit's scorer; runs it on the pack's seven cases and on
# 250 real BFCL cases; and then asks where a scorer that is too forgiving lets a wrong call
# through (Exercise 9).
#
# No model is called anywhere. The replies come from **mock callers**: small rules that copy
# the right answer except for one bad habit each. Their scores describe their habits and our
# scorer, not any model.

# %%
import json
from collections import Counter

import toolkit as T
from toolkit.checks import ex09
from toolkit.figures import show as show_figure
from toolkit.lessons.mock_callers import MockCaller, gold_text, make_callers
from toolkit.scoring import case_category, load_bfcl
from toolkit.widgets import scoring_panel
from toolkit.widgets.scoring import scoring_state
from toolkit.widgets.source import show_source

SEED = 0  # every mock caller's slips are drawn from this seed
SLIP = 0.3  # the mock callers' slip rate in the printed tables (our choice, not a measurement)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 1. Three things to score
#
# An evaluation of tool use has to answer three different questions: is the call well formed
# and the right one, did running it have the right effect, and does the agent manage it every
# time? Figure 6 (left) sets three ways of scoring side by side. Comparing the call text is
# cheap and repeatable and never runs anything; judging the output on live APIs is closer to
# real use but costly and noisy; checking the final state of a world judges what the agent did,
# not what it said. The right-hand panel is notebook 10's subject.

# %%
show_figure(6)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 2. What BFCL checks
#
# BFCL's single-turn part sorts cases into categories [7]:
#
# | category | the model sees | a right reply |
# |---|---|---|
# | simple | one function | one call of it |
# | multiple | several functions | one call of the one that fits |
# | parallel | one function | several calls of it, in one reply |
# | parallel multiple | several functions | several calls, of several of them |
# | irrelevance | functions, none of which fits | no call at all |
#
# Later versions added multi-turn categories: plain conversations, turns where a needed value or
# a fitting function is missing at first, and long contexts. After every turn BFCL compares the
# state of the world with the answer key's, and checks that the model's calls returned
# everything the answer key's calls returned; the second check is needed because a call that
# only reads, such as a look-up, leaves no trace in the state [7] [31]. In the turns with a
# missing piece, BFCL no longer scores whether the model asks or declines (it stopped on
# 30 October 2024): it checks that the model finishes the job once the piece arrives [31]. The
# `missing_parameter` cases of Exercise 9, where the right reply is to ask, are this course's own
# rule, nearer to ToolSandbox's "insufficient information" scenarios [17]. The leaderboard
# changes over time, so quote it with its date, not from memory [28]; section 2b below lists its
# versions.
#
# The course ships 250 real single-turn cases, 50 per category, drawn from BFCL's own data
# (Apache-2.0; see `data/bfcl/ATTRIBUTION.md`). The output below uses the names of BFCL's data
# files. `simple_python` is the simple category written in Python: the model is offered one
# Python function and should make one call of it. BFCL keeps `simple_java` and
# `simple_javascript` beside it, and `live_` versions of its categories built from questions
# users sent in; the slice here takes only the non-live Python cases.

# %%
bfcl = load_bfcl()
print(len(bfcl), "cases:", dict(Counter(case_category(c) for c in bfcl)))
example = next(c for c in bfcl if c["id"] == "parallel_multiple_0")
print("\nquestion:", example["question"][0][0]["content"])
print("functions:", [f["name"] for f in example["function"]])
print("ground truth:", json.dumps(example["ground_truth"]))

# %% [markdown]
# Each parameter lists every value the authors accept; an empty string `""` in the list marks
# a parameter the reply may leave out. An irrelevance case has no ground truth at all.

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### 2b. BFCL's versions and what its overall score weighs (beyond the pack)
#
# The pack describes BFCL as it was; the benchmark has kept moving. From its changelog, read at
# the repository's commit of 23 March 2026 [31]:
#
# | version | date | what it added |
# |---|---|---|
# | V1 | 2024 | the single-turn categories above, scored by AST matching (the paper's core [7]) |
# | V2 "live" | 19 Aug 2024 | questions and functions contributed by users, the `live_` categories |
# | V3 | 19 Sep 2024 | multi-turn conversations, the state compared with the answer key's after every turn; from 30 Oct 2024 a response check after every turn as well, and asking or declining no longer scored |
# | V4 | 17 Jul 2025 | an "agentic" part: web search and memory; new weights for the overall score |
#
# V4 also runs a format-sensitivity test that is not scored, and the executable categories (and
# the REST one) were retired on 9 April 2025 [31]. V4's overall
# accuracy weighs Non-Live 10%, Live 10%, Irrelevance 10%, Multi-Turn 30% and Agentic 40%, where
# before it was a third each for Non-Live, Live and Multi-Turn; the changelog's reason is that
# single-turn tasks are close to saturation [31]. BFCL's scoring code shows where this
# notebook's five categories land [54]. The four that call (simple, multiple, parallel, parallel
# multiple) each make up a quarter of the Non-Live group; "simple" is itself the mean of its
# Python, Java and JavaScript sets, and the slice here is the Python one. Irrelevance is not in
# Non-Live at all: it shares the Irrelevance group half and half with live irrelevance. By our
# arithmetic, then, the five categories carry about 13 of the headline number's 100 points: 0.8
# for `simple_python`, 2.5 each for the other three, 5 for irrelevance. A model's BFCL score
# today says far more about multi-turn and agentic work than about the AST matching you build
# here. Section 9 below scores one multi-turn case the V3 way. (Dated: this holds for the
# changelog and the scoring code as read on 2 December 2026.)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 3. AST matching instead of string matching
#
# BFCL's main method parses the model's reply into a syntax tree, the AST, and compares the
# function name and each argument with the accepted values, without running anything [7]. The
# authors compared it with real execution on a subset and found the two agree strongly, which is
# why a cheap check can run at scale [7]. `T.parse_calls` does the parsing (and never evaluates
# code); `T.classify` does the comparison.

# %%
print(T.parse_calls("[add(a=3, b=4), add(a=1, b=2)]"))
parallel_case = next(c for c in T.BFCL_CASES if c["id"] == "parallel_1")
reference = gold_text(parallel_case)
print("reference text:", reference)

# %% [markdown]
# Now nine ways a model might write the same answer, or nearly, judged both ways. Exact
# string match compares the text with the reference character for character.

# %%
variants = [
    ("the reference itself", "[add(a=1, b=2), add(a=3, b=4)]"),
    ("no spaces", "[add(a=1,b=2), add(a=3,b=4)]"),
    ("arguments swapped", "[add(b=2, a=1), add(a=3, b=4)]"),
    ("calls swapped", "[add(a=3, b=4), add(a=1, b=2)]"),
    ("1.0 for 1", "[add(a=1.0, b=2), add(a=3, b=4)]"),
    ("in a Markdown fence", "```python\n[add(a=1, b=2), add(a=3, b=4)]\n```"),
    ("no list brackets", "add(a=1, b=2), add(a=3, b=4)"),
    ("one call missing", "add(a=1, b=2)"),
    ("prose around it", "Sure: add(a=1, b=2) and add(a=3, b=4)"),
]
print(f"{'variant':22} {'exact match':12} AST verdict")
for label, reply in variants:
    print(f"{label:22} {str(T.exact_string_match(reply, reference)):12} {T.classify(parallel_case, reply)}")

# %% [markdown]
# Exact match rejects six replies a person would accept. AST matching accepts them and still
# catches the two real mistakes, and says which mistake it was. Like BFCL's decoder for
# prompted models, the parser drops a Markdown fence around the reply and adds the list
# brackets when they are missing; prose around the calls is a `format_error` there as here [7].
#
# `1.0 for 1` passes only because this call of `T.classify` knows the function names, not their
# schemas. Given the schemas, it checks each value's type the way BFCL does, and `add` declares
# integers:

# %%
print(T.classify(parallel_case, "[add(a=1.0, b=2), add(a=3, b=4)]", T.FUNCS))

# %% [markdown] slideshow={"slide_type": "subslide"}
# ### Read the scorer
#
# Two functions do the work. `parse_calls` turns the reply into syntax trees with Python's own
# `ast` module and reads only literals out of them, so nothing the model wrote is ever run;
# `_unwrap` is where the fence and the missing brackets are handled.

# %%
show_source(T.parse_calls)

# %% [markdown]
# `call_matches` is the rule for one call against one gold call: the same name, every argument
# given is acceptable (`_argument_ok` checks the declared type first, then the value), and
# every gold parameter left out lists `""`. For several calls in any order, `calls_match` tries
# the gold order first and otherwise leaves the pairing to `pairs_one_to_one`, the speed-up that
# avoids trying every order.

# %%
show_source(T.call_matches)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 4. The pack's seven cases
#
# The pack's lab scores seven BFCL-style cases with one mock reply each. Here they are with the
# label `T.classify` gives each reply:

# %%
for case, reply in zip(T.BFCL_CASES, T.BFCL_OUTPUTS):
    print(f"{case['id']:14} {T.classify(case, reply):22} {reply or '(no call)'}")
report = T.evaluate_calls(T.BFCL_CASES, T.BFCL_OUTPUTS)
print(f"\noverall {report['overall']:.3f} (4 of 7) | by category {report['by_category']}")
print("failures:", report["failures"])

# %% [markdown]
# `multiply` is a function nobody offered, Gorilla's "hallucination" [2]; the parallel case
# answered one city of two; the last case called the weather tool for a question about a play.
# `get_weather(city='paris')` passes although the unit is missing, because the gold answer lists
# `""` for it and strings are compared without case.
#
# The scorer keeps an invented function (`hallucinated_function`) apart from a real function
# called wrongly (`wrong_arguments`), the split Gorilla draws [2]. Which of the two is worse for
# a payments tool is discussion question 3, posed in notebook 04; these labels give you counts
# to bring to it.

# %% [markdown] slideshow={"slide_type": "subslide"}
# **Quiz.** *(Pack quiz question 7, in our words.)* In an irrelevance case the model is offered
# a currency converter and asked for a poem about autumn. What does the scorer expect [7]?
#
# 1. A call to the converter with empty arguments, for partial credit.
# 2. A call to a new function, such as `write_poem`, that fits the request.
# 3. No call: any call at all fails the case.
# 4. One call to each offered function, to be safe.
#
# <details><summary>Answer</summary>
#
# 3. The category tests whether the model holds back when nothing fits; the pack's
# `irrelevance_2` above fails as `should_abstain` for exactly that reason.
# </details>

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 5. 250 real BFCL cases
#
# First, a mock that copies the first accepted answer of every case and never slips. It should
# pass everything:

# %%
copier = MockCaller(slip=0.0, seed=SEED)
copied = copier.answers(bfcl)
labels = [T.classify(case, reply) for case, reply in zip(bfcl, copied)]
print(f"passed {labels.count('pass')} of {len(bfcl)}")
for case, reply, label in zip(bfcl, copied, labels):
    if label != "pass":
        print(f"{case['id']}: {label}\n  reply: {reply}")
        for fn in case["function"]:
            print(f"  {fn['name']} declares {list(fn['parameters']['properties'])}")

# %% [markdown]
# It does not. In `parallel_multiple_26` the ground truth lists a parameter `type` for
# `bank.calculate_balance`, but the function's schema declares no such parameter at its top
# level (a `type` exists only inside each transaction). Our scorer, like BFCL's checker, rejects
# an argument the function does not declare, so a reply written from the answer key fails. Even
# a well-used benchmark carries slips in its answers; reading failures one by one is how you
# find them.
#
# Now the three mock callers with a bad habit each, at a slip rate of 0.3 (our choice):

# %%
callers = make_callers([SLIP] * 3, seed=SEED)
categories = list(dict.fromkeys(case_category(c) for c in bfcl))
print(f"{'mock caller':16}{'overall':>8}" + "".join(f"{cat:>19}" for cat in categories) + "   exact match")
for caller in callers:
    replies = caller.answers(bfcl)
    result = T.evaluate_calls(bfcl, replies)
    exact = sum(T.exact_string_match(r, gold_text(c)) for r, c in zip(replies, bfcl)) / len(bfcl)
    print(
        f"{caller.name:16}{result['overall']:8.2f}"
        + "".join(f"{result['by_category'][cat]:19.2f}" for cat in categories)
        + f"{exact:14.2f}"
    )
    print(f"{'':16}failures: {result['failures']}")

# %% [markdown]
# Each habit leaves its own mark: invented names cost every category except irrelevance, where
# there is nothing to rename; dropped values show up as `wrong_arguments`; apart from the
# answer-key slip above, the over-eager caller loses only on irrelevance. Exact string match
# scores every caller lower, because the callers often word a value in one of the other accepted
# forms (all mock results).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 6. The scoring panel
#
# The panel runs the same three mock callers on the course's own 39 cases (the pack's 7 and 32
# more, including "missing parameter" cases, where the right move is to ask). Move a slider to
# change how often a caller slips; the bars show accuracy by category, the table counts each
# failure type, and the last part lists cases where AST matching and exact match disagree.

# %% tags=["nbval-ignore-output"]
scoring_panel()

# %% [markdown]
# The panel's starting point, printed (all three callers at slip 0.3, seed 0, all 39 cases):

# %%
state = scoring_state((SLIP, SLIP, SLIP), seed=SEED)
for score in state.callers:
    print(
        f"{score.name:14} AST {score.overall:.2f} | exact match {score.exact_overall:.2f} | "
        f"verdicts differ on {len(score.disagreements)} cases | failures {score.failures}"
    )

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 7. Where our scorer and BFCL's part ways
#
# The toolkit's scorer is a small version of BFCL's AST checker. Where the two share a rule,
# they should give the same verdict, and `benchmarks/compare_bfcl.py` checks that reply by reply
# against BFCL's own evaluation code (the `bfcl-eval` package, installed apart from the course).
# The shared rules:
#
# * **Reading the reply.** A Markdown fence (```` ``` ```` or ```` ```python ````) is dropped and
#   missing list brackets are added, so `f(a=1), g(b=2)` is two calls. On an irrelevance case a
#   fenced call is still a call, and fails.
# * **Optional values and types.** `""` in the accepted list means the parameter may be left
#   out; it is not a value to match. When the schema is known, each value must have the
#   declared type: an integer is fine for a float, but `3.0` fails for an integer, a `True`
#   is never a number, and `z=''` fails for an integer `z`. (Only for a string parameter does
#   `''` equal a listed `""`, because BFCL compares texts there.)
# * **Extra arguments.** An argument the gold answer or the schema does not know fails, and a
#   dictionary argument is checked key by key against lists of accepted values.
#
# Where ours is **more lenient** than BFCL, on purpose:
#
# * **Strings.** BFCL lower-cases a string and deletes spaces and a handful of punctuation
#   marks (`,./-_*^`) [7]. Ours deletes *every* character that is not a letter or a digit, so
#   `"New York!"` passes for `"New York"` here and fails in BFCL: see the next cell and
#   Exercise 9.
# * **Numbers.** `T.values_equal(3, 3.0)` is true. With a schema the type check comes first, so
#   this forgives a `3.0` for an integer only when the scorer knows no schema (BFCL always has
#   one).
# * **Parallel calls.** Ours finds a one-to-one pairing of replies with answers whenever one
#   exists. BFCL pairs them greedily, so when one reply fits two answers it can miss a valid
#   pairing and fail a reply that passes here.
#
# And **stricter**: ours reads only literal keyword arguments. BFCL's decoder ignores
# positional arguments and reads a bare name such as `city=Paris` as the text `"Paris"`, so it
# can pass a call that is a `format_error` here.

# %%
for a, b in [
    ("New York", "new york"),
    ("New York!", "new york"),
    ("Paris, France", "paris france"),
    (3, 3.0),
    (True, 1),
    (["Rome", "Oslo"], ["rome", "oslo"]),
]:
    print(f"values_equal({a!r}, {b!r}) = {T.values_equal(a, b)}")

# %% [markdown]
# The shared rules on a few replies. `simple_python_25` is a real BFCL case whose
# `initial_velocity` is an optional integer; `irrelevance_2` is the pack's question about a play.

# %%
velocity = next(c for c in bfcl if c["id"] == "simple_python_25")
irrelevant = next(c for c in T.BFCL_CASES if c["id"] == "irrelevance_2")
for case, reply in [
    (velocity, "calculate_final_velocity(height=150)"),
    (velocity, "calculate_final_velocity(height=150, initial_velocity='')"),
    (velocity, "calculate_final_velocity(height=150.0)"),
    (irrelevant, "```python\nget_weather(city='Stratford-upon-Avon')\n```"),
    (irrelevant, "None of my tools can answer that."),
]:
    print(f"{case['id']:17} {T.classify(case, reply):15} {reply!r}")

# %% [markdown]
# On 21,876 generated replies to the 250 cases and the pack's seven, the two scorers agreed on
# every reply that tests a shared rule, and on 97% of all replies; every other disagreement
# was one of the differences above (our measurement, `benchmarks/compare_bfcl.py`).

# %% [markdown] slideshow={"slide_type": "slide"}
# ## Exercise 9: score harder
#
# 1. Write `harder_cases()`: at least ten new cases in the course's format (the example printed
#    below), over the course's functions (listed below; `?` marks an optional parameter). Include
#    at least one case whose gold answer has a **nested dictionary** argument, written in BFCL's
#    form `{"key": [accepted values]}`, and one with an **optional parameter** (`""` next to a
#    value in its list). Categories: simple, multiple, parallel, parallel_multiple, irrelevance,
#    missing_parameter (the last two have `"gold": []`). Each gold value must be what the
#    question says: a standard form of the user's words is fine (an ISO date for "March 5,
#    2026", 15:00 for "3 pm", JPY for "yen", the enum's `celsius` for "°C"), a contradiction is
#    not (day and month swapped, 09:00 for "9 pm", "from" and "to" swapped). Names of places,
#    people and companies are kept as the user wrote them; a code for one (an airport code, a
#    ticker) may be listed next to the name, not instead of it.
# 2. Write `lenient_pair()`: two strings that `T.values_equal` calls equal and a user would not.
#    Hint: it drops punctuation and spaces. They must differ in more than a reader would shrug
#    at: letter case, spaces, a closing full stop, quotes around the value, the dots of "U.S.",
#    the hyphen of "e-mail", the apostrophe of "O'Brien", the comma of "Paris, France".
# 3. Write `stricter_equal(a, b)`: a comparison that tells your pair apart but still accepts
#    differences of letter case and spacing. For anything but two strings, use `T.values_equal`.
#
# The check validates each case against the function schemas, makes sure a reply written from
# your gold answer passes, that a wrong nested value fails and that the optional parameter may be
# left out, and tries your `stricter_equal` on pairs you have not seen.

# %% tags=["starter"]
for name, fn in ex09.FUNCTIONS.items():
    params, required = fn["parameters"]["properties"], fn["parameters"].get("required", [])
    print(f"{name}({', '.join(p if p in required else p + '?' for p in params)})")
print("\nan example case:", json.dumps(ex09.EXAMPLE))


def harder_cases() -> list[dict]:
    """Ten or more new cases, with a nested dictionary argument and an optional parameter."""
    raise NotImplementedError("Exercise 9: write ten cases")


def lenient_pair() -> tuple[str, str]:
    """Two strings values_equal calls equal, which a user would not."""
    raise NotImplementedError("Exercise 9: find a pair the scorer confuses")


def stricter_equal(a, b) -> bool:
    """Like T.values_equal, but strict about the characters that change meaning."""
    raise NotImplementedError("Exercise 9: write a stricter comparison")


# %% tags=["solution"]
def harder_cases() -> list[dict]:
    """Ten or more new cases, with a nested dictionary argument and an optional parameter."""

    def case(cid, category, question, functions, gold):
        return {"id": f"ex9_{cid}", "category": category, "question": question, "functions": functions, "gold": gold}

    return [
        case(
            "nested_1",
            "simple",
            "Put 'Team retro' in the calendar on 2026-12-09 at 15:00 and invite ana@example.test.",
            ["create_event"],
            [
                {
                    "name": "create_event",
                    "args": {
                        "title": ["Team retro"],
                        "when": [{"date": ["2026-12-09"], "time": ["15:00", "3pm", "3 pm"]}],
                        "attendees": [["ana@example.test"]],
                    },
                }
            ],
        ),
        case(
            "nested_2",
            "parallel",
            "Add two events: 'Gym' on 2026-12-01 at 07:00 and 'Gym' on 2026-12-03 at 07:00.",
            ["create_event"],
            [
                {
                    "name": "create_event",
                    "args": {
                        "title": ["Gym"],
                        "when": [{"date": ["2026-12-01"], "time": ["07:00", "7am"]}],
                        "attendees": [""],
                    },
                },
                {
                    "name": "create_event",
                    "args": {
                        "title": ["Gym"],
                        "when": [{"date": ["2026-12-03"], "time": ["07:00", "7am"]}],
                        "attendees": [""],
                    },
                },
            ],
        ),
        case(
            "optional_1",
            "simple",
            "Find flights from Madrid to Athens on 2026-12-20.",
            ["search_flights"],
            [
                {
                    "name": "search_flights",
                    "args": {
                        "origin": ["Madrid", "MAD"],
                        "destination": ["Athens", "ATH"],
                        "date": ["2026-12-20"],
                        "cabin": ["", "economy"],
                    },
                }
            ],
        ),
        case(
            "optional_2",
            "simple",
            "Table for two at Nopa at 20:00, a window seat if they can.",
            ["book_table"],
            [
                {
                    "name": "book_table",
                    "args": {
                        "restaurant": ["Nopa"],
                        "people": [2],
                        "time": ["20:00", "8pm", "8 pm"],
                        "notes": ["", "window seat", "window seat if possible"],
                    },
                }
            ],
        ),
        case(
            "multiple_1",
            "multiple",
            "Tell Omar the meeting moved to Friday.",
            ["set_reminder", "send_message", "create_event"],
            [
                {
                    "name": "send_message",
                    "args": {"to": ["Omar"], "text": ["the meeting moved to Friday", "The meeting moved to Friday."]},
                }
            ],
        ),
        case(
            "multiple_2",
            "multiple",
            "What's 15 times 4?",
            ["add", "mult", "get_stock_price"],
            [{"name": "mult", "args": {"a": [15], "b": [4]}}],
        ),
        case(
            "pm_1",
            "parallel_multiple",
            "Convert 30 GBP to EUR and give me the ACME share price.",
            ["convert_currency", "get_stock_price"],
            [
                {
                    "name": "convert_currency",
                    "args": {"amount": [30], "from_currency": ["GBP"], "to_currency": ["EUR"]},
                },
                {"name": "get_stock_price", "args": {"ticker": ["ACME"]}},
            ],
        ),
        case(
            "translate_1",
            "simple",
            "Translate 'see you tomorrow' into Spanish.",
            ["translate"],
            [
                {
                    "name": "translate",
                    "args": {
                        "text": ["see you tomorrow"],
                        "target_language": ["Spanish", "es"],
                        "source_language": ["", "English", "en"],
                    },
                }
            ],
        ),
        case("irrelevance_1", "irrelevance", "What is the capital of Peru?", ["get_weather", "translate"], []),
        case("missing_1", "missing_parameter", "Remind me about the dentist.", ["set_reminder"], []),
    ]


def lenient_pair() -> tuple[str, str]:
    """Two strings values_equal calls equal, which a user would not."""
    # To translate: signing a lease again is not quitting one.
    return ("re-sign the lease", "resign the lease")


def stricter_equal(a, b) -> bool:
    """Like T.values_equal, but strict about the characters that change meaning."""
    if isinstance(a, str) and isinstance(b, str):
        return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()
    return T.values_equal(a, b)


print(T.values_equal(*lenient_pair()), stricter_equal(*lenient_pair()))

# %% tags=["check"]
ex09.check(harder_cases, lenient_pair, stricter_equal)

# %% [markdown]
# **Question.** What would you change in the scorer, and what would the change cost [7]?

# %% [markdown] tags=["solution"]
# *A model answer.* Deleting every non-alphanumeric character makes "re-sign" equal "resign",
# "C++" equal "C", "-5" equal "5" and "3.5" equal "35". I would drop far fewer characters: white
# space and letter case only. BFCL's own checker [7] strips fewer marks than ours (`,./-_*^`),
# which keeps "C++" apart from "C", but even that list merges "re-sign" with "resign", "3.5"
# with "35" and "-5" with "5". Better still, compare by the parameter's
# type from the schema: numbers as numbers, dates as dates, enum values exactly, ids exactly,
# and only free text loosely. The cost is strictness: replies that differ harmlessly ("Paris,
# France" against "Paris France") start to fail, so the answer key must list more accepted
# values, which is work for whoever writes the cases, and a scorer that is too strict drifts
# back toward exact match.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 8. Reading any tool benchmark
#
# Five questions to put to any number you are shown, here answered for the numbers in this
# notebook:
#
# | question | in this notebook |
# |---|---|
# | What is scored: the text of the call, its output, or the state it leaves? | the call text, parsed |
# | Who judges, code or a model? | code: `T.classify` |
# | Are the APIs live, recorded, or mocked? | nothing runs at all |
# | How many runs per task? | one; the mock callers are deterministic for a seed |
# | What prompt and call format did each model get? | no prompt; the replies are Python call syntax written by mock rules |
#
# Two published scores can differ more because of these answers than because of the models.

# %% [markdown]
# **For discussion.** *(Pack discussion question 8, in our words.)* AST matching agreed strongly
# with real execution on the subset the BFCL authors checked [7]. When would you still pay for
# running the calls, or for checking the state afterwards? Describe a call that AST matching
# passes and that still harms the user.

# %% [markdown] tags=["solution"]
# *Instructor's note.* AST matching compares a call with answers written down in advance; it
# never learns what the call does. Pay for execution or a state check when (1) the right
# argument depends on the world at the time (the id of "my latest order", today's rate), so no
# fixed answer key can hold it; (2) the task takes several steps and later calls act on what
# earlier ones changed, which is why BFCL's multi-turn categories check the state after every turn
# [7]; (3) the call writes, because the user cares about the effect, not the wording; (4) many
# argument values are acceptable and cannot all be listed; (5) the tool or its API changes,
# since a stored answer key goes stale without warning. Calls that pass and still harm: a
# cancellation that matches the gold call on an order that has already shipped, breaking a
# policy only the world's state reveals; a recipient address that our scorer's punctuation
# stripping treats as equal to the right one (`ana.b@example.test` against `anab@example.test`,
# Exercise 9), so the message goes to someone else; an optional parameter left out because the
# gold answer accepts `""` when the tool's default is the dangerous choice (a delete whose
# `recursive` defaults to true); and any case whose answer key is wrong, like
# `parallel_multiple_26` above. A good answer states the trade: AST scoring is cheap and
# repeatable, so use it for breadth, and buy execution or state checks for the calls that
# write or depend on state.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## 9. One multi-turn case, scored the V3 way (beyond the pack)
#
# Section 2b said that most of BFCL's score now comes from multi-turn work. Here is one case in
# its V3 shape, written for the course (not BFCL's data): a small stateful API (a file system
# with a message outbox, `FileSystem`), one question per turn, and an answer key that is a list
# of calls per turn. BFCL V3 runs the answer key's calls and the model's calls on two copies of
# the world and, after every turn, asks two questions: is the state the same, and did the model's
# calls return everything the answer key's calls returned [31]. The four trajectories are mock
# models'.

# %%
from toolkit.lessons.multi_turn import MULTI_TURN_CASE, score_by_answer_key, score_state_and_response

case = MULTI_TURN_CASE
for n, (question, gold_turn) in enumerate(zip(case["turns"], case["ground_truth"]), 1):
    print(f"turn {n}: {question}\n   answer key: {gold_turn}")
print(f"\n{'trajectory (mock)':28} {'answer key':11} {'state':6} {'response':9} verdict")
disagree = []  # trajectories where matching the answer key gives another verdict than V3's two checks
for label, turns in case["trajectories"].items():
    v3 = score_state_and_response(turns, case["ground_truth"])
    by_key = score_by_answer_key(turns, case["ground_truth"])
    print(f"{label:28} {str(by_key):11} {str(v3['state']):6} {str(v3['response']):9} {v3['why']}")
    if by_key != (v3["state"] and v3["response"]):
        disagree.append(label)
print(f"\nthe answer key's verdict differs from V3's on {len(disagree)} of {len(case['trajectories'])}: {disagree}")

# %% [markdown]
# Matching each turn's calls against a fixed answer key, the way this notebook scores single
# calls, disagrees with V3's verdict on the trajectories the last line lists. It fails "looks
# first", which did the job by a different path (an extra `ls()`): in a conversation there are
# many right sequences and no answer key can list them all. Where V3 fails a trajectory too, the
# verdicts agree, but the answer key cannot say *why*. The state check passes "never reads the
# file" (the message sent is right, perhaps by luck), and only the response check catches that
# it never read the report; the state check alone catches the copy that left `draft.txt` behind.
# That is why V3 needs both checkers, and why a call scorer, however careful, cannot judge a
# conversation.

# %% [markdown]
# **Your turn (optional, about 10 minutes).** Write `fool_one_check(gold_turns)`: given any
# answer key in this shape, it returns a trajectory that passes one of V3's two checks and fails
# the other (either way round). The check runs it on this case and on two answer keys you have
# not seen, on the same file system, and scores with `score_state_and_response`. Think about
# which calls a state check cannot see.

# %% tags=["starter"]
from toolkit.checks import opt09_trajectory


def fool_one_check(gold_turns: list) -> list:
    """A trajectory (a list of turns of call strings) that passes exactly one of the two checks."""
    raise NotImplementedError("Your turn: build the trajectory from gold_turns")


# %% tags=["solution"]
from toolkit.checks import opt09_trajectory
from toolkit.scoring import parse_calls

READS = {"cat", "ls"}  # calls that return something and change nothing


def fool_one_check(gold_turns: list) -> list:
    """Drop every read: the state stays the answer key's, a response goes missing."""
    return [[c for c in turn if parse_calls(c)[0][0] not in READS] for turn in gold_turns]


# %% tags=["check"]
opt09_trajectory.check(fool_one_check)

# %% [markdown] slideshow={"slide_type": "slide"}
# ## What to take away
#
# * Score the parsed call, not its text: AST matching forgives spacing, order and a Markdown
#   fence, and still names the real mistake (an invented function, a missing call, a wrong
#   value, a value of the wrong type).
# * BFCL's categories test different skills, and irrelevance tests the skill of not calling.
# * A lenient scorer is only as good as its notion of "equal": check what it forgives, and what
#   the answer key itself gets wrong.
# * Ask the five questions before you compare two scores. Notebook 10 moves from single calls
#   to whole conversations, and from one run to many: pass^k.

# %% [markdown] slideshow={"slide_type": "slide"}
# ## With a real model (optional)
#
# The three mock callers have habits we chose, so their scores only show how the scorer reacts.
# A real model's habits are unknown until you measure them. If you have set one up ([using a
# real model](../docs/real-models.md#using-a-real-model)), the cell below sends it 10 of the 250 cases, the first two of each
# category, with each case's functions as tools. Names BFCL writes with dots (`math.gcd`) go
# out as legal aliases and come back as the original, and BFCL's types (`dict`, `float`) go
# out as JSON Schema. The replies are scored by the same `T.classify` as above. Without a
# set-up the cell prints one line and sends nothing.
#
# Ten cases are a glimpse, not a score: `python -m toolkit bfcl` runs all 250 and keeps every
# reply. Each number is printed with the model's name and the date, because it measures that
# model on that day, with our lenient scorer, and nothing more.
#
# With no key, `make local-model-serve` ([a local model that calls tools](../docs/real-models.md#no-key-no-network-a-local-model-that-calls-tools))
# serves Qwen2.5-Coder-1.5B-Instruct on this machine. Its table is that 1.5B model's score on
# that day. On these ten cases on 2026-12-04 it scored 0.40: simple and multiple 2 of 2, every
# parallel, parallel_multiple and irrelevance case missed (wrong_call_count 4, should_abstain
# 2), so expect the failure types above, counted for a real model.

# %%
from toolkit.lessons.model_eval import notebook_bfcl

real_summary = notebook_bfcl(per_category=2)

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
# - [7] Patil et al., *The Berkeley Function Calling Leaderboard (BFCL): From Tool Use to
#   Agentic Evaluation of Large Language Models*, 2025.
#   <https://proceedings.mlr.press/v267/patil25a.html>
# - [17] Lu et al., *ToolSandbox: A Stateful, Conversational, Interactive Evaluation Benchmark
#   for LLM Tool Use Capabilities*, 2024. <https://arxiv.org/abs/2408.04682> Published: Findings
#   of NAACL 2025, pages 1160-1183.
# - [28] Gorilla project, *Berkeley Function-Calling Leaderboard*, undated.
#   <https://gorilla.cs.berkeley.edu/leaderboard.html>
# - [31] Gorilla project, *Berkeley Function Calling Leaderboard: CHANGELOG and test
#   categories*, 2026.
#   <https://github.com/ShishirPatil/gorilla/blob/main/berkeley-function-call-leaderboard/CHANGELOG.md>
#   (Beyond the pack.)
# - [54] Gorilla project, *Berkeley Function Calling Leaderboard: eval_runner_helper.py (the
#   overall score)*, 2025.
#   <https://github.com/ShishirPatil/gorilla/blob/main/berkeley-function-call-leaderboard/bfcl_eval/eval_checker/eval_runner_helper.py>
#   (Beyond the pack.)
