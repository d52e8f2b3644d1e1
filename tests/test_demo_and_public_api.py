"""The demo prints the pack's figures; the core stays on the standard library (API.md,
"Entry points"; DESIGN.md "its core is standard library only")."""

import json
import subprocess
import sys
import textwrap

import toolkit as T

API_NAMES = """
schema_from_function parse_docstring validate_args repair_args ToolError TransientToolError Tool ToolResult
ToolRegistry ScriptedModel call run_agent AgentResult PermissionGate wrap_untrusted looks_like_injection
PROTOCOL_VERSION PARSE_ERROR INVALID_REQUEST METHOD_NOT_FOUND INVALID_PARAMS MCPError MCPServer encode_line
serve_lines InMemoryTransport StdioTransport MCPClient mcp_to_registry ToolIndex make_catalog CATALOG_QUERIES
selection_recall schema_size_estimate parse_calls values_equal call_matches calls_match classify evaluate_calls
FUNCS BFCL_CASES BFCL_OUTPUTS exact_string_match pass_hat_k pass_at_k RetailEnv RETAIL_TASKS PolicyAgentModel
run_retail_trial run_retail_trials ATTACKER_PAGE SENT_EMAILS make_injection_registry InjectableModel injection_demo
""".split()


def run(*args, **kw):
    return subprocess.run([sys.executable, "-m", "toolkit", *args], capture_output=True, text=True, timeout=60, **kw)


def test_every_public_name_of_the_api_is_importable():
    missing = [n for n in API_NAMES if not hasattr(T, n)]
    assert missing == []
    assert set(API_NAMES) <= set(T.__all__)


def test_demo_prints_the_pack_figures():
    out = run("demo")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for section in range(1, 9):
        assert f"== {section}. " in text
    for expected in [
        "tool recall@1: 0.75",
        "tool recall@3: 0.75",
        "tool recall@5: 1.00",
        "schema size, all 48 tools: 3296 tokens (rough); top 5 only: 327",
        "[('flights_create', 5.051), ('flights_delete', 5.051), ('flights_summarize', 5.051)]",
        "overall: 0.571 | by category: {'simple': 1.0, 'multiple': 0.0, 'parallel': 0.5, 'irrelevance': 0.5}",
        "failures: {'hallucinated_function': 1, 'wrong_call_count': 1, 'should_abstain': 1}",
        "exact string match of 'add(a=2,b=3)' vs 'add(a=2, b=3)': False | AST match: True",
        "defended=False: emails sent = [('evil@attacker.test', 'customer list')]",
        "defended=True: emails sent = []",
        "Tool 'slow_lookup' timed out after 0.1 s. Gave up after 3 tries.",
        "final: I got 3 good results and 2 errors. | steps: 2 | calls: 5",
        "runaway model -> max_steps after 3 steps",
        "protocol error: [-32602] Invalid arguments for tool 'get_weather': city: expected string, got integer (5)",
    ]:
        assert expected in text, expected
    schema = json.loads(text.split("==\n", 1)[1].split("\n\n", 1)[0])
    assert schema["inputSchema"]["required"] == ["city"]


def test_command_line_errors_are_clear():
    out = run("fly")
    assert out.returncode != 0 and "invalid choice" in out.stderr


def test_core_imports_only_the_standard_library():
    code = textwrap.dedent("""
        import sys
        before = set(sys.modules)
        import toolkit, toolkit.mcp, toolkit.checks, toolkit.figures, toolkit.lessons.synthetic_catalog
        added = {m.split('.')[0] for m in set(sys.modules) - before}
        std = set(sys.stdlib_module_names) | {'toolkit', '_distutils_hack'}
        print(sorted(added - std))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_mocks_run_without_the_model_sdks_and_a_real_model_without_them_says_what_to_install():
    """The SDKs (the ``models`` extra) are imported at a real model's first request, never by
    ``import toolkit``, a mock run or building a real model; without them that request is one
    sentence naming the extra."""
    code = textwrap.dedent("""
        import sys
        sys.modules["openai"] = sys.modules["anthropic"] = None  # as if not installed
        import toolkit as T
        from toolkit.lessons.toy_tools import make_weather_registry
        call = {"id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}
        mock = T.ScriptedModel([{"tool_calls": [call]}, {"content": "21 C"}])
        print(T.run_agent(mock, make_weather_registry(), "Paris?").final)
        for cls in (T.ChatCompletionsModel, T.MessagesModel):
            try:
                cls("http://127.0.0.1:9/v1", "m").respond([{"role": "user", "content": "x"}])
            except T.EndpointError as exc:
                print(exc.kind, exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    final, openai, anthropic = out.stdout.strip().splitlines()
    assert final == "21 C"
    assert openai == "setup a real model needs the openai package: pip install 'tooluse-course[models]'"
    assert anthropic == "setup a real model needs the anthropic package: pip install 'tooluse-course[models]'"
