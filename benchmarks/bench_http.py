"""Kept-alive Streamable HTTP round trips, side by side: the toolkit's server as shipped
(TCP_NODELAY on every connection it accepts) against the same server with Nagle's algorithm
left on. A reply goes out as two writes (headers, then body); with Nagle on, the second waits
for the client's delayed ACK. Notebook 06 (HTTP) serves over this server.

One session per server (initialize, notifications/initialized), then ``--calls`` pings on one
kept-alive connection, each sent after the previous reply; the servers take turns over
``--rounds`` rounds; the median round trip per server over all its calls.

Target (this is why the option is set): replies are at least 5x faster with TCP_NODELAY.
Exits 1 when the target is missed or a reply is wrong. The unit test
tests/test_mcp_http.py checks the option itself, so that no test times the network.

    python benchmarks/bench_http.py [--calls 50] [--rounds 3]
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import sys
import time

import common
from common import median, table, verdict

import toolkit as T
from toolkit.lessons.toy_tools import make_server_registry
from toolkit.mcp import StreamableHTTPServer
from toolkit.mcp.http import server as http_server

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


class NagleOnHandler(http_server._Handler):
    """The shipped handler with the one line under test undone."""

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0)


def post(conn: http.client.HTTPConnection, body: dict, headers: dict) -> tuple[http.client.HTTPResponse, bytes]:
    conn.request("POST", "/mcp", body=json.dumps(body), headers=headers)
    response = conn.getresponse()
    return response, response.read()


def round_trips(app: StreamableHTTPServer, calls: int) -> list[float]:
    headers = {**HEADERS, **({"Authorization": f"Bearer {app.token}"} if app.token else {})}
    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=10)
    try:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
        response, _ = post(conn, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}, headers)
        headers["Mcp-Session-Id"] = response.getheader("Mcp-Session-Id") or ""
        post(conn, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
        times = []
        for i in range(1, calls + 1):
            start = time.perf_counter()
            _, body = post(conn, {"jsonrpc": "2.0", "id": i, "method": "ping"}, headers)
            times.append(time.perf_counter() - start)
            if json.loads(body).get("id") != i:
                raise SystemExit(f"wrong reply to ping {i}: {body[:200]!r}")
        return times
    finally:
        conn.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"Kept-alive HTTP round trips, {common.machine()}")
    servers = []
    for name, handler in [("toolkit (TCP_NODELAY)", http_server._Handler), ("Nagle left on", NagleOnHandler)]:
        app = StreamableHTTPServer(lambda: T.MCPServer(make_server_registry()), port=0)
        app._httpd.RequestHandlerClass = handler
        servers.append((name, app))
    times: list[list[float]] = [[] for _ in servers]
    try:
        for _, app in servers:
            app.start()
        for n in range(args.rounds):
            for k in (0, 1) if n % 2 == 0 else (1, 0):
                times[k] += round_trips(servers[k][1], args.calls)
    finally:
        for _, app in servers:
            app.close()
    medians = [median(t) * 1e3 for t in times]
    print(f"\n{args.calls} pings on one connection, {args.rounds} rounds, servers taking turns")
    table(
        ["server", "median ms", "x toolkit's"],
        [[name, f"{m:.2f}", f"{m / medians[0]:.1f}x"] for (name, _), m in zip(servers, medians)],
    )
    ratio = medians[1] / medians[0]
    return verdict([(f"replies with TCP_NODELAY are >= 5x faster: {ratio:.1f}x", ratio >= 5)])


if __name__ == "__main__":
    sys.exit(main())
