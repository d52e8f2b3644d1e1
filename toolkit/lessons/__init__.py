"""The worlds, mocks and experiments the notebooks use, one module per idea.

Nothing here is part of the lab's six parts (those live at the top of ``toolkit``); these
modules build on them to give each lesson something to run:

=====================  ===========================================================  ========
module                 what it holds                                                notebook
=====================  ===========================================================  ========
``calculator``         the safe calculator and the mock that multiplies by pattern   01
``toolformer``         Toolformer's filter on a toy corpus, with a mock scorer       03
``catalog``            the 48-tool practice catalog and its queries                 04
``synthetic_catalog``  a seeded ToolBench-sized catalog for retrieval at scale      04
``toy_tools``          small registries: weather, the MCP demo server's tools       02, 06
``sdk_sessions``       the toolkit's server driven by the official MCP SDK          06
``auth_server``        the SDK's OAuth server on loopback, a client that shows it   06
``tool_design``        good and bad tool designs, tried on a mock caller            07
``mock_callers``       mock function callers with known failure habits              09, 12
``retail``             a τ-bench-style shop, its policy and a mock agent that slips 10
``injection``          indirect prompt injection, the attack pages, the defended run 11
``exfiltration``       data leaving through URLs, and a detector for it             11
``failure_runs``       the transcripts of failed runs students sort                 12
``tool_search``        a search tool that loads the schemas it finds (deferred)     04
``structured_output``  a JSON Schema the final answer must fit, and its limits      05
``reasoning_mock``     a mock reasoning model whose signed blocks must return       02
``code_action``        a short program that calls tools, run in a small sandbox     08
``multi_turn``         a stateful API scored on final state and responses           09
``dual_control``       a phone the user fixes with tools of their own (τ²)          10
``skills``             skills: names up front, instructions loaded when used        07
``trifecta``           the lethal trifecta's three legs, read off a registry        11
``endpoints``          optional real models: Chat Completions and Messages APIs     02, 09, 10
``model_eval``         a real model on the BFCL cases and the retail pass^k         09, 10
=====================  ===========================================================  ========

Lessons import the core; the core never imports lessons.
"""
