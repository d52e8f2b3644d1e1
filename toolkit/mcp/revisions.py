"""MCP revisions: which ones this toolkit speaks, and what changes between them (pack §2.6).

The pack pins revision 2025-06-18 and asks students to check the newer ones (assignment
Part D). The lesson server, ``MCPServer``, speaks the pack's revision and the two older ones
that open with an ``initialize`` handshake (:data:`SUPPORTED_VERSIONS`), so its latest, which
it offers to a client that asks for a version it does not speak, is the pack's 2025-06-18.
``LatestRevisionServer`` adds 2025-11-25, the newest handshake revision
(:data:`HANDSHAKE_VERSIONS`), as an extension beyond the pack. Both switch the few behaviours
that differ on the version they negotiated. Each switch is one small function below, named
after the rule, with the changelog entry it comes from, so a reader can see the whole
difference in one place.

Sources (read for this module):

- 2025-03-26 basic protocol: implementations "MUST support receiving JSON-RPC batches".
- 2025-06-18 changelog, item 1: "Remove support for JSON-RPC batching"; item 8: HTTP clients
  send the negotiated version in an ``MCP-Protocol-Version`` header.
- 2025-11-25 changelog, minor change 4 (SEP-1303): input validation errors become tool
  execution errors (``isError: true``), so that the model can correct its call. The same
  revision's tools page still files unknown tools under protocol errors.
- 2026-07-28 changelog, items 2 and 3: no handshake; every request carries its version in
  ``_meta``; servers implement ``server/discover``; a version the server does not implement
  gets ``UnsupportedProtocolVersionError`` (code -32022, ``data.supported`` and
  ``data.requested``; basic/versioning).

The stateless 2026-07-28 revision is spoken by ``ModernServer`` (``toolkit/mcp/modern.py``,
``python -m toolkit serve --modern``), beside every handshake revision. The lesson server and
``LatestRevisionServer`` do not speak it, and answer a request in that revision's shape as a
server from before it would: ``server/discover`` is -32601 (method not found), anything else
before ``initialize`` is -32600 (not initialized), each message naming the revisions they do
speak. Not -32022: that code belongs to 2026-07-28 and marks a server of that revision, so a
client that speaks both eras (the official Python SDK's default client does, and so does
``MCPClient.connect``) would not fall back to ``initialize`` after it (2026-07-28
basic/transports/stdio.mdx:129-141). A client that speaks only the new era fails at once,
with a reason, instead of hanging.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "PROTOCOL_VERSION",
    "HANDSHAKE_VERSIONS",
    "SUPPORTED_VERSIONS",
    "STATELESS_VERSIONS",
    "KNOWN_VERSIONS",
    "META_VERSION_KEY",
    "at_least",
    "negotiate",
    "accepts_batches",
    "schema_errors_are_tool_results",
    "revision_notes",
]

# The pack's revision: what the toolkit's client asks for by default, and the latest revision
# the lesson server speaks. A server that is asked for a version it does not speak offers its
# latest instead (see negotiate).
PROTOCOL_VERSION = "2025-06-18"

# Revisions that open with initialize / notifications/initialized, oldest first: all the
# toolkit implements. The client speaks them all, and so does LatestRevisionServer.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")

# The lesson server's revisions (MCPServer.SUPPORTED): the handshake revisions up to and
# including the pack's, so that its latest is the pack's revision.
SUPPORTED_VERSIONS = HANDSHAKE_VERSIONS[: HANDSHAKE_VERSIONS.index(PROTOCOL_VERSION) + 1]

# Revisions without a handshake. Known, so they can be named in errors, but not served.
STATELESS_VERSIONS = ("2026-07-28",)

KNOWN_VERSIONS = HANDSHAKE_VERSIONS + STATELESS_VERSIONS

# Where a 2026-07-28 request carries its protocol version.
META_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"


def at_least(version: str | None, minimum: str) -> bool:
    """True when ``version`` is a known revision no older than ``minimum``.

    Revisions are compared by their place in :data:`KNOWN_VERSIONS`, not as strings, and an
    unknown version is never "at least" anything: the cautious answer for a peer we cannot
    place.

    Shown in section 8, "Streamable HTTP, in one place".
    Notebook 06, through mcp.StreamableHTTPServer.
    """
    if minimum not in KNOWN_VERSIONS:
        raise ValueError(f"{minimum!r} is not a revision this toolkit knows: {', '.join(KNOWN_VERSIONS)}")
    if version not in KNOWN_VERSIONS:
        return False
    return KNOWN_VERSIONS.index(version) >= KNOWN_VERSIONS.index(minimum)


def negotiate(asked: str, supported: Sequence[str] = SUPPORTED_VERSIONS) -> str:
    """The server's side of version negotiation (2025-06-18 lifecycle, "Version Negotiation").

    If the server speaks the version the client asked for, it MUST answer with that one;
    otherwise it MUST answer with another it speaks, which SHOULD be its latest. The client
    then decides whether it can go on. ``supported`` is the server's own list, its class's
    ``SUPPORTED`` (the lesson server's latest is the pack's revision; a subclass may speak more
    or fewer revisions); revision names are dates written YYYY-MM-DD, so the latest is the
    largest string, whatever order the list is in.

    Notebook 06, through MCPServer.
    """
    if not supported:
        raise ValueError("a server must speak at least one protocol revision")
    return asked if asked in supported else max(supported)


def accepts_batches(version: str | None) -> bool:
    """JSON-RPC batches (a JSON array of messages) are part of exactly one revision.

    2025-03-26 required servers to receive them; 2025-06-18 removed them again. Before
    initialize (no version yet) the default revision's rule applies: no batches.

    Notebook 06, through MCPServer.
    """
    return version == "2025-03-26"


def schema_errors_are_tool_results(version: str | None) -> bool:
    """Arguments that break a tool's input schema: protocol error or tool result?

    Up to 2025-06-18 the pack's reading holds: a JSON-RPC error -32602, which the host sees
    and the model usually does not. From 2025-11-25 (SEP-1303) the server answers with a
    normal result marked ``isError: true`` whose text says what to fix, so the model can
    read it and try again. An unknown tool stays a protocol error in every revision.

    Notebook 06, through MCPServer.
    """
    return at_least(version, "2025-11-25")


def revision_notes() -> list[dict]:
    """One row per revision: whether the toolkit serves it (``served``; 2026-07-28 only by
    ``ModernServer``), whether it opens with ``initialize`` (``handshake``), whether the lesson
    server ``MCPServer`` does (``lesson server``), and what differs for a server like ours. For the notebook's table (pack §2.6, assignment
    Part D).

    Notebook 06.
    """
    return [
        {
            "version": version,
            "served": version in KNOWN_VERSIONS,
            "handshake": version in HANDSHAKE_VERSIONS,
            "lesson server": version in SUPPORTED_VERSIONS,
            "for this server": note,
        }
        for version, note in _NOTES
    ]


_NOTES = (
    (
        "2024-11-05",
        "initialize handshake; stdio; no tool annotations yet (newer fields we send are ignored by older clients)",
    ),
    (
        "2025-03-26",
        "tool annotations; Streamable HTTP replaces HTTP+SSE; "
        "servers MUST accept JSON-RPC batches (we do, in this revision only)",
    ),
    (
        "2025-06-18",
        "the pack's revision: batching removed; structuredContent; "
        "title in serverInfo; MCP-Protocol-Version header over HTTP; "
        "schema-breaking arguments -> protocol error -32602",
    ),
    (
        "2025-11-25",
        "SEP-1303: schema-breaking arguments -> result with isError: true, so the "
        "model can correct itself; unknown tool still -32602 (its 403 for a bad Origin "
        "over HTTP, the toolkit's HTTP server applies to every revision)",
    ),
    (
        "2026-07-28",
        "stateless: no initialize, sessions or ping; version and capabilities in every "
        "request's _meta; server/discover; resultType on every result; input_required "
        "(multi round-trip) instead of server requests; Mcp-Method/Mcp-Name headers; "
        "change notifications only on a subscriptions/listen stream; "
        "ModernServer speaks it; the others answer as older servers do (-32601 to server/discover)",
    ),
)
