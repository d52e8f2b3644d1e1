"""The Week 3 lab as a package: tool use and function calling, standard library only.

``import toolkit as T`` gives every name of the course's public interface (docs/API.md). The
top level holds the lab's six parts, one idea per module, each naming the pack section it
teaches; everything else sits in its own layer (docs/DESIGN.md):

====================  =======================================================  ========
module                idea                                                     pack §
====================  =======================================================  ========
``schema``            type hints → JSON Schema; validation; careful repair       2.5, 2.8
``registry``          tools, results, errors that teach                         2.2, 2.7
``loop``              the harness: parallel calls, timeouts, retries, limits    2.2, 2.8
``gate``              permission gate, taint, untrusted output                  2.10
``mcp``               JSON-RPC 2.0, MCP server, client and transports           2.6
``selection``         BM25 over tool descriptions, recall@k, token cost         2.4
``scoring``           BFCL-style call parsing, AST matching, failure types      2.9
``reliability``       pass^k and pass@k                                         2.9
``data``              the course's JSON data files                              –
====================  =======================================================  ========

``lessons`` holds the worlds, mocks and experiments the notebooks run (the practice catalog,
the retail world, the injection pages, optional real-model adapters, ...); ``widgets`` the live
views; ``checks`` the exercise checks; ``figures`` the pack's figures; ``course`` the doctor,
the demo and deployment links. This file re-exports the public names of core and lessons, so a
notebook needs only ``import toolkit as T``. Every model the lessons use is a mock, written to
behave in one known way; ``lessons.endpoints`` lets a real model take a mock's place.

Every public function and class says where the course uses it, on one line of its docstring:
``Notebook 04.`` or ``Notebooks 02, 06.``; ``Notebook 09, through classify.`` for a helper the
notebook reaches through a name it calls; ``Used by: python -m toolkit doctor.`` (or a ``make``
target, ``PAGE.md: Heading``, a file) where no notebook does. tests/test_docstring_pointers.py
checks that each pointer is true. In a notebook, ``toolkit.widgets.source.show_source(f)``
shows the code of ``f`` itself.
"""

import importlib

from .data import load_json
from .gate import PermissionGate, looks_like_injection, wrap_untrusted
from .loop import AgentResult, ScriptedModel, call, run_agent
from .mcp import (
    InMemoryTransport,
    LatestRevisionServer,
    MCPClient,
    MCPError,
    MCPServer,
    StdioTransport,
    encode_line,
    mcp_to_registry,
    serve_lines,
)
from .mcp.protocol import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from .mcp.revisions import PROTOCOL_VERSION
from .registry import Tool, ToolError, ToolRegistry, ToolResult, TransientToolError
from .reliability import load_taubench, pass_at_k, pass_hat_k
from .schema import parse_docstring, repair_args, schema_from_function, validate_args
from .scoring import (
    call_matches,
    calls_match,
    classify,
    evaluate_calls,
    exact_string_match,
    format_calls,
    load_bfcl,
    parse_calls,
    values_equal,
)
from .selection import ToolIndex, plain_bm25_search, schema_size_estimate, selection_recall, tokenize

__version__ = "0.1.0"

# The lessons' worlds read their data files when they are imported, so the facade imports them
# on first use (PEP 562), and the pack's seven cases load the same way: `import toolkit` works
# even where the data folder is missing, and `python -m toolkit doctor` can say so.
_ON_FIRST_USE = {
    "lessons.catalog": ("CATALOG_QUERIES", "make_catalog"),
    "lessons.endpoints": ("ChatCompletionsModel", "EndpointError", "MessagesModel"),
    "lessons.exfiltration": ("exfiltration_demo",),
    "lessons.injection": (
        "ATTACKER_PAGE",
        "SENT_EMAILS",
        "InjectableModel",
        "injection_demo",
        "make_injection_registry",
    ),
    "lessons.model_eval": ("real_model_from_env",),
    "lessons.retail": (
        "POLICY",
        "RETAIL_TASKS",
        "RETAIL_TASKS_EXTENDED",
        "PolicyAgentModel",
        "RetailEnv",
        "retail_outcomes",
        "run_retail_trial",
        "run_retail_trials",
    ),
    "scoring": ("FUNCS", "BFCL_CASES", "BFCL_OUTPUTS"),
}
_HOME = {name: module for module, names in _ON_FIRST_USE.items() for name in names}


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))


# 1. tools from type hints
__all__ = ["schema_from_function", "parse_docstring", "validate_args", "repair_args", "ToolError"]
__all__ += ["TransientToolError", "Tool", "ToolResult", "ToolRegistry"]
# 2. the loop, the gate
__all__ += ["ScriptedModel", "call", "run_agent", "AgentResult", "PermissionGate", "wrap_untrusted"]
__all__ += ["looks_like_injection"]
# 3. MCP
__all__ += ["PROTOCOL_VERSION", "PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS"]
__all__ += ["INTERNAL_ERROR", "MCPError", "MCPServer", "encode_line", "serve_lines", "InMemoryTransport"]
__all__ += ["StdioTransport", "MCPClient", "mcp_to_registry", "LatestRevisionServer"]
# 4. picking tools
__all__ += ["ToolIndex", "make_catalog", "CATALOG_QUERIES", "selection_recall", "schema_size_estimate", "tokenize"]
__all__ += ["plain_bm25_search"]
# 5. scoring and pass^k
__all__ += ["parse_calls", "values_equal", "call_matches", "calls_match", "classify", "evaluate_calls", "FUNCS"]
__all__ += ["BFCL_CASES", "BFCL_OUTPUTS", "exact_string_match", "pass_hat_k", "pass_at_k", "RetailEnv", "POLICY"]
__all__ += ["RETAIL_TASKS", "PolicyAgentModel", "run_retail_trial", "run_retail_trials", "load_taubench"]
__all__ += ["RETAIL_TASKS_EXTENDED", "retail_outcomes", "format_calls", "load_bfcl"]
# 6. prompt injection
__all__ += ["ATTACKER_PAGE", "SENT_EMAILS", "make_injection_registry", "InjectableModel", "injection_demo"]
__all__ += ["exfiltration_demo", "load_json"]
# optional: a real model in a mock's place
__all__ += ["ChatCompletionsModel", "MessagesModel", "EndpointError", "real_model_from_env"]
