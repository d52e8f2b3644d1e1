"""Test doubles that stand in for outside services (no network needed).

``tests.fakes.llm``: local HTTP fakes of the OpenAI Chat Completions and Anthropic Messages
APIs (pack §2.5, "Function calling in model APIs").
"""
