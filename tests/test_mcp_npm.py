"""Published MCP clients from npm against the toolkit's server (pack §2.6). Optional.

``make test`` must not download anything, so these tests run only when you point them at a
folder where the clients are already installed, and skip (saying why) otherwise:

    mkdir /tmp/mcp-npm && cd /tmp/mcp-npm && npm init -y
    npm install @modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/inspector@2.12.0
    TOOLKIT_NPM_CLIENTS=/tmp/mcp-npm make test

They drive ``python -m toolkit serve`` (stdio) and ``serve --http`` with the TypeScript SDK's
``Client``, and run the MCP Inspector's command-line mode.
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

ROOT = Path(__file__).resolve().parents[1]
FOLDER = os.environ.get("TOOLKIT_NPM_CLIENTS", "")
NODE = shutil.which("node")
SDK = Path(FOLDER, "node_modules", "@modelcontextprotocol", "sdk")
INSPECTOR = Path(FOLDER, "node_modules", ".bin", "mcp-inspector")
LIMIT = 90

pytestmark = pytest.mark.skipif(
    not (FOLDER and NODE and SDK.is_dir()),
    reason="optional: set TOOLKIT_NPM_CLIENTS to a folder with @modelcontextprotocol/sdk installed "
           "(see this file's docstring); node is needed too")

CLIENT_SCRIPT = r"""
import { createRequire } from "node:module";
const require = createRequire(process.env.CLIENTS + "/package.json");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const [python, url] = process.argv.slice(2);
const transport = url ? new StreamableHTTPClientTransport(new URL(url))
                      : new StdioClientTransport({ command: python, args: ["-m", "toolkit", "serve"], cwd: process.env.ROOT });
const client = new Client({ name: "ts-sdk-check", version: "1.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion(), tools: (await client.listTools()).tools.map(t => t.name) };
out.add = await client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
out.bad = await client.callTool({ name: "add", arguments: { a: "two", b: 3 } });
try { await client.callTool({ name: "nope", arguments: {} }); out.unknown = "no error"; }
catch (e) { out.unknown = e.code; }
console.log(JSON.stringify(out));
await client.close();
"""


def run_client(tmp_path, *args):
    script = tmp_path / "client.mjs"
    script.write_text(CLIENT_SCRIPT)
    proc = subprocess.run([NODE, str(script), sys.executable, *args], capture_output=True, text=True,
                          timeout=LIMIT, env={**os.environ, "CLIENTS": FOLDER, "ROOT": str(ROOT)}, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def check(out):
    assert out["server"]["name"] == "toy-tools"
    assert out["tools"] == ["echo", "add"]
    assert out["add"]["content"][0]["text"] == "5" and out["add"]["isError"] is False
    assert out["bad"]["isError"] is True  # the TS SDK asks for 2025-11-25 (SEP-1303)
    assert out["unknown"] == -32602


def test_typescript_sdk_client_over_stdio(tmp_path):
    check(run_client(tmp_path))


def test_typescript_sdk_client_over_http(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "toolkit", "serve", "--http", "--port", "0"], cwd=ROOT,
                            stderr=subprocess.PIPE, text=True)
    try:
        banner = {}
        reader = threading.Thread(target=lambda: banner.setdefault("line", proc.stderr.readline()), daemon=True)
        reader.start()
        reader.join(timeout=30)
        url = re.search(r"http://127\.0\.0\.1:\d+/mcp", banner.get("line", ""))
        assert url, banner
        check(run_client(tmp_path, url.group(0)))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        proc.stderr.close()


@pytest.mark.skipif(not INSPECTOR.exists(), reason="optional: @modelcontextprotocol/inspector not installed there")
def test_mcp_inspector_cli_lists_and_calls():
    base = [str(INSPECTOR), "--cli", sys.executable, "-m", "toolkit", "serve"]
    listed = subprocess.run(base + ["--method", "tools/list"], capture_output=True, text=True, timeout=LIMIT, cwd=ROOT)
    assert listed.returncode == 0, listed.stderr[-2000:]
    assert [t["name"] for t in json.loads(listed.stdout)["tools"]] == ["echo", "add"]
    called = subprocess.run(base + ["--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2",
                                    "--tool-arg", "b=3"], capture_output=True, text=True, timeout=LIMIT, cwd=ROOT)
    assert called.returncode == 0, called.stderr[-2000:]
    assert json.loads(called.stdout)["content"][0]["text"] == "5"
