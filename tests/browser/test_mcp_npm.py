"""Published MCP clients from npm against the toolkit's server (pack §2.6).

Part of ``make test-browser`` (``make test`` downloads nothing and does not collect this
folder): the clients are pinned with axe-core in ``tests/browser/npm/package-lock.json``
(@modelcontextprotocol/sdk 1.32.2, @modelcontextprotocol/inspector 2.12.0), installed there by
the Makefile with ``npm ci``, which also points ``TOOLKIT_NPM_CLIENTS`` at that folder. To use
other copies, set ``TOOLKIT_NPM_CLIENTS`` to a folder where they are installed.

They drive ``python -m toolkit serve`` (stdio) and ``serve --http`` (with the bearer token it
prints) with the TypeScript SDK's ``Client``, against the lesson server and ``--latest``, and
run the MCP Inspector's command-line mode.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = os.environ.get("TOOLKIT_NPM_CLIENTS") or str(Path(__file__).resolve().parent / "npm")
NODE = shutil.which("node")
SDK = Path(FOLDER, "node_modules", "@modelcontextprotocol", "sdk")
INSPECTOR = Path(FOLDER, "node_modules", ".bin", "mcp-inspector")
LIMIT = 90


@pytest.fixture(autouse=True)
def clients_installed():
    """Not a skip: in the browser suite the clients are part of what is tested."""
    if not (NODE and SDK.is_dir() and INSPECTOR.exists()):
        pytest.fail(
            f"node and the MCP npm clients are needed: run `npm ci` in {FOLDER} "
            "(make test-browser does), or set TOOLKIT_NPM_CLIENTS to a folder holding them"
        )


CLIENT_SCRIPT = r"""
import { createRequire } from "node:module";
const require = createRequire(process.env.CLIENTS + "/package.json");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const [python, url, ...serveArgs] = process.argv.slice(2);
const headers = process.env.TOKEN ? { Authorization: `Bearer ${process.env.TOKEN}` } : {};
const transport = url ? new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
                      : new StdioClientTransport({ command: python, args: ["-m", "toolkit", "serve", ...serveArgs],
                                                   cwd: process.env.ROOT });
const client = new Client({ name: "ts-sdk-check", version: "1.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion(), version: transport.protocolVersion ?? null,
              tools: (await client.listTools()).tools.map(t => t.name) };
// a tool result, or the code of a protocol error
const call = async (name, args) => { try { return await client.callTool({ name, arguments: args }); }
                                     catch (e) { return { error: e.code }; } };
out.add = await call("add", { a: 2, b: 3 });
out.bad = await call("add", { a: "two", b: 3 });
out.unknown = await call("nope", {});
console.log(JSON.stringify(out));
await client.close();
"""


# The TS SDK asks for 2025-11-25. The lesson server offers its latest, the pack's 2025-06-18,
# where a schema-breaking call is a protocol error; serve --latest agrees to 2025-11-25, where
# it is a tool result the model reads (SEP-1303). An unknown tool is a protocol error in both.
SERVERS = [([], "2025-06-18", {"error": -32602}), (["--latest"], "2025-11-25", {"isError": True})]


def run_client(tmp_path, *args, token=None):
    script = tmp_path / "client.mjs"
    script.write_text(CLIENT_SCRIPT)
    env = {**os.environ, "CLIENTS": FOLDER, "ROOT": str(ROOT), **({"TOKEN": token} if token else {})}
    proc = subprocess.run(
        [NODE, str(script), sys.executable, *args], capture_output=True, text=True, timeout=LIMIT, env=env, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check(out, version, bad):
    assert out["server"]["name"] == "toy-tools"
    assert out["tools"] == ["echo", "add"]
    assert out["add"]["content"][0]["text"] == "5" and out["add"]["isError"] is False
    assert {key: out["bad"].get(key) for key in bad} == bad
    assert out["unknown"] == {"error": -32602}
    if out["version"] is not None:  # only the HTTP transport shows the negotiated version
        assert out["version"] == version


@pytest.mark.parametrize("options, version, bad", SERVERS)
def test_typescript_sdk_client_over_stdio(tmp_path, options, version, bad):
    check(run_client(tmp_path, "", *options), version, bad)


def read_banner(stream, timeout=30):
    """The URL and bearer token ``serve --http`` prints on standard error at start."""
    found = {}

    def read():
        for line in stream:
            found.setdefault("url", re.search(r"http://127\.0\.0\.1:\d+/mcp", line))
            token = re.search(r"Authorization: Bearer (\S+)", line)
            if token:
                found["token"] = token.group(1)
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout=timeout)
    assert found.get("url") and found.get("token"), found
    return found["url"].group(0), found["token"]


@pytest.mark.parametrize("options, version, bad", SERVERS)
def test_typescript_sdk_client_over_http(tmp_path, options, version, bad):
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolkit", "serve", "--http", "--port", "0", *options],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url, token = read_banner(proc.stderr)
        check(run_client(tmp_path, url, token=token), version, bad)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stderr.close()


def test_mcp_inspector_cli_lists_and_calls():
    base = [str(INSPECTOR), "--cli", sys.executable, "-m", "toolkit", "serve"]
    listed = subprocess.run(base + ["--method", "tools/list"], capture_output=True, text=True, timeout=LIMIT, cwd=ROOT)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert [t["name"] for t in json.loads(listed.stdout)["tools"]] == ["echo", "add"]
    called = subprocess.run(
        base + ["--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "--tool-arg", "b=3"],
        capture_output=True,
        text=True,
        timeout=LIMIT,
        cwd=ROOT,
    )
    assert called.returncode == 0, called.stderr[-2000:]
    assert json.loads(called.stdout)["content"][0]["text"] == "5"
