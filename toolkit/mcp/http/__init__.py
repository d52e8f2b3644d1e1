"""Streamable HTTP for MCP, both sides (pack §2.6): ``server`` answers POSTs on one endpoint
with sessions, Origin and version checks and an optional bearer token; ``transport`` is the
client's side. Kept apart from the lesson core: stdio is what notebook 06 teaches first."""
