"""Live views for the notebooks: mock models to steer and plots that follow the sliders.

Each view is a pure computation (tested without a browser) and a thin ipywidgets +
matplotlib layer, imported only when a view is built, so ``import toolkit.widgets`` needs
neither. One line shows a view in a notebook:

==========================================  ===============================================  ======
call                                        what it shows                                    pack §
==========================================  ===============================================  ======
``passk_explorer()``                        pass^k / pass@k of the mock retail agent          2.9
``recall_explorer()``                       recall@k of BM25 over the 48-tool catalog         2.4
``scoring_panel()``                         three mock callers scored by category             2.9
``gate_playground()``                       the permission gate against two injections        2.10
``transcript(result)``                      an ``AgentResult`` as a conversation              2.2
``wire(transport.log)``                     an MCP session's messages, arrow by arrow         2.6
``wire_side_by_side(left, right)``          two wire logs in two columns, to compare          2.6
``quiz()``                                  the week's ten-question quiz                      6
==========================================  ===============================================  ======

Every view is seeded: the same controls always give the same picture.
"""

from __future__ import annotations

import importlib

# public name -> submodule that defines it (imported on first use)
_LAZY = {
    "passk_explorer": "passk",
    "PassKExplorer": "passk",
    "passk_state": "passk",
    "recall_explorer": "recall",
    "RecallExplorer": "recall",
    "recall_state": "recall",
    "scoring_panel": "scoring",
    "ScoringPanel": "scoring",
    "scoring_state": "scoring",
    "gate_playground": "gate_view",
    "GatePlayground": "gate_view",
    "gate_run": "gate_view",
    "transcript": "transcript_view",
    "wire": "transcript_view",
    "transcript_html": "transcript_view",
    "wire_html": "transcript_view",
    "transcript_text": "transcript_view",
    "wire_text": "transcript_view",
    "wire_side_by_side": "transcript_view",
    "WirePair": "transcript_view",
    "quiz": "quiz_view",
    "Quiz": "quiz_view",
    "load_quiz": "quiz_view",
    "grade": "quiz_view",
    "InputError": "_base",
    "OKABE_ITO": "_base",
    "toolformer_explorer": "toolformer",  # the Toolformer filter view (toolkit/widgets/toolformer.py)
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkit.widgets' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
