"""BFCL-style scoring: parsing, matching, classifying (pack §2.9; API.md §5)."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolkit as T
from toolkit.scoring import format_calls, gold_calls, load_bfcl

# ---- parsing --------------------------------------------------------------------------------


def test_parse_calls_accepts_calls_lists_dotted_names_and_nothing():
    assert T.parse_calls("add(a=2, b=3)") == [("add", {"a": 2, "b": 3})]
    assert T.parse_calls("[add(a=1, b=2), math.gcd(num1=4, num2=6)]") == [
        ("add", {"a": 1, "b": 2}),
        ("math.gcd", {"num1": 4, "num2": 6}),
    ]
    assert T.parse_calls("f(x=[1, {'k': None}], y=-2.5, z=True)") == [
        ("f", {"x": [1, {"k": None}], "y": -2.5, "z": True})
    ]
    assert T.parse_calls("") == [] and T.parse_calls("  [] ") == [] and T.parse_calls("f()") == [("f", {})]


@pytest.mark.parametrize(
    "text",
    [
        "add(2, 3)",
        "add(**kw)",
        "add(a=b)",
        "add(a=__import__('os').system('echo hi'))",
        "add(a=1",
        "42",
        "not a call at all",
        "[add(a=1), 7]",
        "add(a=1, a=2)",
        "(lambda: 1)()",
        "f(x=1)(y=2)",
        "a" * 10,
        "f(x=" + "[" * 5000 + "]" * 5000 + ")",
        "f(x=" + "9" * 5000 + ")",
        "f(x=1)\x00",
        "f(x={1, 2} - {1})",
    ],
)
def test_parse_calls_rejects_with_value_error_only(text):
    with pytest.raises(ValueError) as e:
        T.parse_calls(text)
    assert str(e.value)


@pytest.mark.parametrize("value", [None, 5, b"add(a=1)", ["add(a=1)"]])
def test_parse_calls_rejects_non_text(value):
    with pytest.raises(ValueError):
        T.parse_calls(value)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60) | st.from_regex(r"\[?[a-z_.]{1,8}\((\w+=[\w'\"\[\]{}:, .-]*)?\)\]?", fullmatch=True))
def test_parse_calls_never_raises_anything_but_value_error(text):
    try:
        out = T.parse_calls(text)
    except ValueError:
        return
    assert isinstance(out, list) and all(isinstance(n, str) and isinstance(k, dict) for n, k in out)


# ---- values and calls -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, equal",
    [
        ("New York", "new-york!", True),
        ("Paris", "paris ", True),
        ("Paris", "Pari", False),
        (3, 3.0, True),
        (3, 3.5, False),
        (True, True, True),
        (True, 1, False),
        (1, True, False),
        (False, 0, False),
        (None, None, True),
        (None, 0, False),
        ("", None, False),
        ("3", 3, False),
        ([1, "A"], [1.0, "a"], True),
        ([1, 2], [2, 1], False),
        ([1], (1,), True),
        ({"a": "X"}, {"a": "x"}, True),
        ({"a": 1}, {"a": 1, "b": 2}, False),
    ],
)
def test_values_equal(a, b, equal):
    assert T.values_equal(a, b) is equal
    assert T.values_equal(b, a) is equal


def test_call_matches_optional_and_extra_parameters():
    gold = {"name": "get_weather", "args": {"city": ["Paris", "Paris, France"], "unit": ["celsius", ""]}}
    assert T.call_matches(("get_weather", {"city": "paris"}), gold)
    assert T.call_matches(("get_weather", {"city": "Paris France", "unit": "Celsius"}), gold)
    assert not T.call_matches(("get_weather", {"city": "Rome"}), gold)
    assert not T.call_matches(("get_weather", {"unit": "celsius"}), gold)  # required city missing
    assert not T.call_matches(("get_weather", {"city": "Paris", "days": 3}), gold)  # extra parameter
    assert not T.call_matches(("get_wether", {"city": "Paris"}), gold)
    assert T.call_matches({"name": "get_weather", "arguments": {"city": "Paris"}}, gold)


def test_bfcl_nested_dict_and_list_of_dict_forms():
    gold = {
        "name": "book",
        "args": {
            "guest": [{"name": ["Ada"], "age": [36, ""]}],
            "rooms": [[{"kind": ["double"], "nights": [2]}, {"kind": ["single"], "nights": [1]}]],
        },
    }
    good = (
        "book",
        {"guest": {"name": "ada"}, "rooms": [{"kind": "Double", "nights": 2}, {"kind": "single", "nights": 1}]},
    )
    assert T.call_matches(good, gold)
    assert not T.call_matches(("book", {"guest": {"name": "Ada", "pet": "cat"}, "rooms": good[1]["rooms"]}), gold)
    assert not T.call_matches(("book", {"guest": {"age": 36}, "rooms": good[1]["rooms"]}), gold)
    assert not T.call_matches(("book", {"guest": {"name": "Ada"}, "rooms": good[1]["rooms"][::-1]}), gold)


def test_calls_match_is_order_free_and_one_to_one():
    g = [{"name": "add", "args": {"a": [1], "b": [2]}}, {"name": "add", "args": {"a": [3], "b": [4]}}]
    assert T.calls_match([("add", {"a": 3, "b": 4}), ("add", {"a": 1, "b": 2})], g)
    assert not T.calls_match([("add", {"a": 1, "b": 2}), ("add", {"a": 1, "b": 2})], g)
    assert not T.calls_match([("add", {"a": 1, "b": 2})], g)


def test_calls_match_finds_a_pairing_that_greedy_misses():
    golds = [{"name": "f", "args": {"x": [1, 2]}}, {"name": "f", "args": {"x": [1]}}]
    preds = [("f", {"x": 1}), ("f", {"x": 2})]
    assert T.calls_match(preds, golds)


def test_calls_match_with_many_parallel_calls_and_one_wrong():
    golds = [{"name": "get_weather", "args": {"city": [f"City{i}"], "unit": ["celsius", ""]}} for i in range(12)]
    preds = [("get_weather", {"city": f"city{i}"}) for i in reversed(range(12))]
    assert T.calls_match(preds, golds)
    preds[5] = ("get_weather", {"city": "Nowhere"})
    assert not T.calls_match(preds, golds)  # 12! orders would take hours to try one by one


def test_calls_match_agrees_with_trying_every_order_on_small_cases():
    rng = __import__("random").Random(3)
    for _ in range(300):
        n = rng.randint(1, 4)
        golds = [{"name": "f", "args": {"x": rng.sample(range(4), rng.randint(1, 2))}} for _ in range(n)]
        preds = [("f", {"x": rng.randrange(4)}) for _ in range(n)]
        brute = any(all(T.call_matches(p, g) for p, g in zip(perm, golds)) for perm in itertools.permutations(preds))
        assert T.calls_match(preds, golds) == brute


# ---- classify and evaluate -------------------------------------------------------------------


def test_the_pack_cases_score_four_of_seven():
    report = T.evaluate_calls(T.BFCL_CASES, T.BFCL_OUTPUTS, T.FUNCS)
    assert report["overall"] == pytest.approx(4 / 7)
    assert report["by_category"] == {"simple": 1.0, "multiple": 0.0, "parallel": 0.5, "irrelevance": 0.5}
    assert report["failures"] == {"hallucinated_function": 1, "wrong_call_count": 1, "should_abstain": 1}
    assert len(T.BFCL_CASES) == 7 and set(T.FUNCS) == {"add", "mult", "get_weather"}


def test_classify_each_failure_type():
    simple = T.BFCL_CASES[0]  # add(a=2, b=3)
    funcs = T.FUNCS
    assert T.classify(simple, "add(a=2, b=3)", funcs) == "pass"
    assert T.classify(simple, "add(a=2, b=", funcs) == "format_error"
    assert T.classify(simple, "I think it is 5.", funcs) == "format_error"
    assert T.classify(simple, "", funcs) == "missed_call"
    assert T.classify(simple, "plus(a=2, b=3)", funcs) == "hallucinated_function"
    assert T.classify(simple, "[add(a=2, b=3), add(a=2, b=3)]", funcs) == "wrong_call_count"
    assert T.classify(simple, "mult(a=2, b=3)", funcs) == "wrong_function"
    assert T.classify(simple, "add(a=3, b=2)", funcs) == "wrong_arguments"
    irrelevant = T.BFCL_CASES[5]
    assert T.classify(irrelevant, "[]", funcs) == "pass"
    assert T.classify(irrelevant, "Sorry, none of my tools can tell jokes.", funcs) == "pass"
    assert T.classify(irrelevant, "add(a=1, b=1)", funcs) == "should_abstain"
    assert T.classify(simple, [("add", {"a": 2, "b": 3})], funcs) == "pass"  # pre-parsed calls


def test_classify_known_functions_in_any_shape():
    case = T.BFCL_CASES[2]
    for known in (T.FUNCS, list(T.FUNCS), list(T.FUNCS.values()), None):
        assert T.classify(case, "multiply(a=4, b=5)", known) == "hallucinated_function"
        assert T.classify(case, "mult(a=4, b=5)", known) == "pass"


def test_evaluate_calls_inputs():
    outputs = {c["id"]: o for c, o in zip(T.BFCL_CASES, T.BFCL_OUTPUTS)}
    assert T.evaluate_calls(T.BFCL_CASES, outputs)["overall"] == pytest.approx(4 / 7)
    with pytest.raises(ValueError):
        T.evaluate_calls(T.BFCL_CASES, T.BFCL_OUTPUTS[:3])
    with pytest.raises(ValueError):
        T.evaluate_calls([], [])


def test_exact_string_match_is_brittle_where_ast_is_not():
    assert not T.exact_string_match("add(a=2,b=3)", "add(a=2, b=3)")
    assert T.exact_string_match("add(a=2, b=3) ", "add(a=2, b=3)")
    gold = [{"name": "add", "args": {"a": [2], "b": [3]}}]
    assert T.calls_match(T.parse_calls("add(a=2,b=3)"), gold)


# ---- real benchmark data -------------------------------------------------------------------


def _perfect_output(case):
    declared = {f["name"]: f["parameters"]["properties"] for f in case["function"]}
    calls = []
    for g in gold_calls(case):
        kwargs = {}
        for param, options in g["args"].items():
            value = next((o for o in options if o != ""), None)
            if value is None or param not in declared[g["name"]]:
                continue
            kwargs[param] = _first_choice(value)
        calls.append((g["name"], kwargs))
    return format_calls(calls) if calls else "I can't help with that using these tools."


def _first_choice(value):
    """Turn BFCL's nested {key: [options]} forms into one concrete value."""
    if isinstance(value, dict) and all(isinstance(v, list) for v in value.values()):
        return {k: _first_choice(next(o for o in v if o != "")) for k, v in value.items() if any(o != "" for o in v)}
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [_first_choice(v) for v in value]
    return value


def test_bfcl_slice_gold_answers_pass_and_mutations_fail():
    cases = load_bfcl()
    assert len(cases) == 250
    for case in cases:
        assert T.classify(case, _perfect_output(case)) == "pass", case["id"]
    for case in cases:
        golds = gold_calls(case)
        if not golds:
            name = case["function"][0]["name"]
            assert T.classify(case, f"{name}()") == "should_abstain"
            continue
        renamed = _perfect_output(case).replace(golds[0]["name"] + "(", "made_up_tool(", 1)
        assert T.classify(case, renamed) == "hallucinated_function", case["id"]
        assert T.classify(case, "") == "missed_call"


def test_an_argument_the_schema_does_not_declare_fails_even_if_gold_lists_it():
    """BFCL checks arguments against the function's schema too (parallel_multiple_26's gold
    lists a 'type' argument that bank.calculate_balance does not declare)."""
    case = next(c for c in load_bfcl("parallel_multiple") if c["id"] == "parallel_multiple_26")
    ok = "[bank.get_transaction_history(account='00125648', days=7), bank.calculate_balance(account='00125648')]"
    assert T.classify(case, ok) == "pass"
    extra = ok.replace("account='00125648')]", "account='00125648', type='credit')]")
    assert T.classify(case, extra) == "wrong_arguments"
    missing_required = "[bank.get_transaction_history(account='00125648'), bank.calculate_balance(account='00125648')]"
    assert T.classify(case, missing_required) == "wrong_arguments"


def test_bfcl_optional_parameters_may_be_left_out():
    case = next(c for c in load_bfcl("simple_python") if c["id"] == "simple_python_23")
    assert T.classify(case, "prime_factorize(number=60, return_type='dictionary')") == "pass"
    assert T.classify(case, "prime_factorize(number=60)") == "wrong_arguments"  # not optional here
    assert T.classify(case, "prime_factorize(number=60, return_type='dictionary', extra=1)") == "wrong_arguments"


# ---- issue 11: the rules BFCL's checker shares with the course ------------------------------


def _bfcl_case(case_id):
    category = case_id.rsplit("_", 1)[0]
    return next(c for c in load_bfcl(category) if c["id"] == case_id)


def test_an_empty_string_given_as_a_value_fails_for_a_typed_parameter():
    """'' in the gold list means "may be left out"; BFCL fails '' given for an integer or float."""
    case = _bfcl_case("simple_python_25")  # initial_velocity: integer [0, ""]; gravity: float [9.81, ""]
    assert T.classify(case, "calculate_final_velocity(height=150)") == "pass"
    assert T.classify(case, "calculate_final_velocity(height=150, initial_velocity='')") == "wrong_arguments"
    assert T.classify(case, "calculate_final_velocity(height=150, gravity='')") == "wrong_arguments"
    # without a schema no type can be checked, and a listed "" is never a value to match
    assert not T.call_matches(("f", {"z": ""}), {"name": "f", "args": {"z": [1, ""]}})
    assert T.call_matches(("f", {}), {"name": "f", "args": {"z": [1, ""]}})
    # a string parameter compares the given text with every listed one, "" included, as BFCL does
    weather = _bfcl_case("simple_python_44")  # medium: string ["", "vacuum"]
    assert T.classify(weather, "calculate_electric_field_strength(charge=0.01, distance=4, medium='')") == "pass"


def test_values_are_checked_against_the_declared_type_when_the_schema_is_known():
    simple = T.BFCL_CASES[0]  # add(a=2, b=3); add declares integers
    assert T.classify(simple, "add(a=2, b=3)", T.FUNCS) == "pass"
    assert T.classify(simple, "add(a=2.0, b=3)", T.FUNCS) == "wrong_arguments"  # BFCL: float for integer fails
    assert T.classify(simple, "add(a=2.0, b=3)", ["add"]) == "pass"  # names only: values compared, 3 == 3.0
    assert T.values_equal(2, 2.0)
    gcd = _bfcl_case("simple_python_19")
    assert T.classify(gcd, "math.gcd(num1=40, num2=True)") == "wrong_arguments"  # a bool is no integer
    speed = _bfcl_case("simple_python_29")  # gravity: float [-9.81, ""]; time: integer [5]
    assert T.classify(speed, "calculate_final_speed(time=5, gravity=-9.81)") == "pass"
    assert T.classify(speed, "calculate_final_speed(time='5', gravity=-9.81)") == "wrong_arguments"
    melody = _bfcl_case("simple_python_292")  # progression: array of strings
    assert T.classify(melody, "compose_melody(progression=['C', 'F', 'G'], measures=4)") == "pass"
    assert T.classify(melody, "compose_melody(progression=('C', 'F', 'G'), measures=4)") == "wrong_arguments"
    schema = {"type": "object", "properties": {"x": {"type": "number"}, "n": {"type": "integer"}}}
    gold = {"name": "f", "args": {"x": [2.0], "n": [1]}}
    assert T.call_matches(("f", {"x": 2, "n": 1}), gold, schema)  # an int is fine for a float
    assert not T.call_matches(("f", {"x": 2.0, "n": 1.0}), gold, schema)


@pytest.mark.parametrize(
    "reply",
    [
        "```python\n[add(a=1, b=2)]\n```",
        "```\nadd(a=1, b=2)\n```",
        "\n  ```python\nadd(a=1, b=2)\n```  \n",
        "`add(a=1, b=2)`",
        "```add(a=1, b=2)```",
    ],
)
def test_a_call_in_a_markdown_fence_is_read_as_the_call(reply):
    assert T.parse_calls(reply) == [("add", {"a": 1, "b": 2})]
    assert (
        T.classify(T.BFCL_CASES[3], reply.replace("add(a=1, b=2)", "add(a=1, b=2), add(a=3, b=4)"), T.FUNCS) == "pass"
    )


def test_a_fenced_call_on_an_irrelevance_case_does_not_count_as_abstaining():
    irrelevant = T.BFCL_CASES[6]
    assert (
        T.classify(irrelevant, "```python\nget_weather(city='Stratford-upon-Avon')\n```", T.FUNCS) == "should_abstain"
    )
    assert T.classify(irrelevant, "```\n[get_weather(city='Paris')]\n```", T.FUNCS) == "should_abstain"
    assert T.classify(irrelevant, "```\nNone of my tools can answer that.\n```", T.FUNCS) == "pass"


@pytest.mark.parametrize(
    "reply, label",
    [
        ("add(a=3, b=4), add(a=1, b=2)", "pass"),  # BFCL adds the brackets
        ("[add(a=3, b=4), add(a=1, b=2)", "pass"),  # ... or only the missing one
        ("add(a=3, b=4), add(a=1, b=2)]", "pass"),
        ("(add(a=3, b=4), add(a=1, b=2))", "format_error"),  # a tuple inside the list is not a call
        ("add(a=3, b=4)\nadd(a=1, b=2)", "format_error"),  # no comma between the calls
        ("add(a=3, b=4), add(a=1, b=2) Done.", "format_error"),
        ("add(a=3, b=4)", "wrong_call_count"),
    ],
)
def test_calls_without_list_brackets_get_bfcls_verdict(reply, label):
    assert T.classify(T.BFCL_CASES[3], reply, T.FUNCS) == label


def test_on_an_irrelevance_case_a_call_the_parser_refuses_is_still_a_call():
    """BFCL's decoder reads positional arguments and bare names, so these are calls made."""
    irrelevant = T.BFCL_CASES[6]
    for reply in (
        "get_weather('Stratford-upon-Avon')",
        "get_weather(city=Stratford)",
        "[get_weather('Rome'), add(1, 2)]",
    ):
        with pytest.raises(ValueError):
            T.parse_calls(reply)
        assert T.classify(irrelevant, reply) == "should_abstain", reply
    assert T.classify(irrelevant, "[1, 2]") == "pass"  # not calls: nothing was called


def test_one_call_formatter_writes_calls_as_a_model_would():
    """format_calls is the toolkit's one call formatter (issue 13, point 2): the mock callers,
    the failure gallery and the run-as-text helpers all write calls through it."""
    from toolkit.scoring import is_nested_form

    calls = [("get_weather", {"city": "Paris"}), ("add", {"a": 2, "b": 3})]
    assert format_calls(calls[:1]) == "get_weather(city='Paris')"
    assert format_calls(calls) == "[get_weather(city='Paris'), add(a=2, b=3)]"
    assert format_calls([]) == ""  # a model that calls nothing writes nothing
    assert T.parse_calls(format_calls(calls)) == calls
    # a call as the loop records it: arguments a dict, None, JSON text, or text that is not JSON
    assert format_calls([{"name": "f", "arguments": None}]) == "f()"
    assert format_calls([{"name": "f", "arguments": '{"a": 1}'}]) == "f(a=1)"
    assert format_calls([{"name": "f", "arguments": '{"a": 1'}]) == 'f({"a": 1)'
    assert is_nested_form({"date": ["2026-12-03"]}) and not is_nested_form({})
    assert not is_nested_form({"date": "2026-12-03"}) and not is_nested_form(["x"])
