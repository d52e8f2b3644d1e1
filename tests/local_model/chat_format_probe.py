"""Run by tests/local_model/test_local_model.py with the Python of build/local-model/: the
prompt each chat format renders for one conversation, as JSON on stdout. No model is loaded:
a stand-in llama records the prompts and answers "message:" then a short text."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import local_model  # noqa: E402
from llama_cpp import llama_chat_format  # noqa: E402

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_order",
            "description": "Look up an order.",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
        },
    }
]
CONVERSATION = [
    {"role": "user", "content": "Cancel order A1 if it is pending."},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": '{"order_id": "A1"}'}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": '{"order_id": "A1", "status": "pending-ZX81"}'},
]


class Recorder:
    """Just enough of llama_cpp.Llama for chatml_function_calling."""

    verbose = False

    def __init__(self):
        self.calls = []

    def create_completion(self, **kwargs):
        self.calls.append({"prompt": kwargs["prompt"], "max_tokens": kwargs.get("max_tokens"),
                           "grammar": kwargs.get("grammar") is not None})  # fmt: skip
        text = "message:" if len(self.calls) == 1 else "Done."
        return {
            "id": f"cmpl-{len(self.calls)}",
            "object": "text_completion",
            "created": 0,
            "model": "probe",
            "choices": [{"text": text, "index": 0, "logprobs": None, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


def render(handler):
    llama = Recorder()
    reply = handler(llama=llama, messages=[dict(m) for m in CONVERSATION], tools=TOOLS, tool_choice="auto",
                    max_tokens=64)  # fmt: skip
    return {"calls": llama.calls, "content": reply["choices"][0]["message"]["content"]}


local_model.register_chat_format()
registry = llama_chat_format.LlamaChatCompletionHandlerRegistry()
print(
    json.dumps(
        {
            "stock": render(llama_chat_format.chatml_function_calling),
            "course": render(registry.get_chat_completion_handler_by_name(local_model.CHAT_FORMAT)),
        }
    )
)
