"""The agent's memory tools over MCP (the optional bonus of part 07): the same `remember` and `recall`, with the
same validation, served by the `mcp` Python SDK.

MCP is the tool contract, not the permission: the server publishes typed tool schemas that a client discovers,
and everything that decides what a tool may do (the namespace its records carry, the validation, the database
session and its policies) stays where it was. A client should still check discovery against its allowlist
(`check_toolset`), exactly as the harness does at start-up.

    python -m workshop.harness.mcp_server        # serves the memory tools over stdio (namespace "mcp")
"""
from __future__ import annotations

from typing import Any

from .memory import MEMORY_TOOL_SCHEMAS, HarnessMemory

SERVER_NAME = "workshop-memory"


def build_server(memory: HarnessMemory) -> Any:
    """An MCPServer with the two memory tools of `memory` (imports the SDK only when called)."""
    from mcp.server.mcpserver import MCPServer

    tools = memory.tools()
    descriptions = {s["name"]: s["description"] for s in MEMORY_TOOL_SCHEMAS}
    server = MCPServer(SERVER_NAME)

    def remember(key: str, fact: str) -> dict:
        return tools["remember"](key, fact)

    def recall(query: str, k: int = 1) -> list[dict]:
        return tools["recall"](query, k)

    server.add_tool(remember, name="remember", description=descriptions["remember"])
    server.add_tool(recall, name="recall", description=descriptions["recall"])
    return server


def main() -> None:
    from workshop.db import connect
    from workshop.memory import MemoryManager
    conn = connect()
    build_server(HarnessMemory(MemoryManager(conn), namespace="mcp")).run("stdio")


if __name__ == "__main__":
    main()
