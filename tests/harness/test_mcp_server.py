"""The memory tools over MCP (optional bonus): discovered by the SDK's own client in-process, exactly the
allowlist, the same validation, and the same memory records as the harness's tools."""
from __future__ import annotations

import anyio
import pytest

pytest.importorskip("mcp", reason="the optional MCP bonus needs the mcp package (requirements.txt)")

from mcp import Client  # noqa: E402

from workshop.harness.mcp_server import build_server  # noqa: E402
from workshop.harness.memory import HarnessMemory  # noqa: E402
from workshop.harness.toolset import ToolsetMismatch, check_toolset  # noqa: E402
from workshop.memory import MemoryManager  # noqa: E402


def test_the_memory_tools_over_mcp(conns):
    rw, _ = conns
    memory = HarnessMemory(MemoryManager(rw), namespace="t-mcp")
    memory.forget()

    async def session() -> dict:
        async with Client(build_server(memory)) as client:
            listed = await client.list_tools()
            names = [t.name for t in listed.tools]
            schemas = {t.name: t.input_schema for t in listed.tools}
            told = await client.call_tool("remember", {"key": "Faro lead", "fact": "The Faro lead is Inês."})
            retold = await client.call_tool("remember", {"key": "faro lead", "fact": "The Faro lead is now Rita."})
            recalled = await client.call_tool("recall", {"query": "Who leads Faro?"})
            bad = await client.call_tool("recall", {"query": "Who leads Faro?", "k": 99})
            return {"names": names, "schemas": schemas, "told": told, "retold": retold, "recalled": recalled,
                    "bad": bad}

    got = anyio.run(session)
    assert check_toolset(got["names"], ["remember", "recall"]) == {"remember", "recall"}
    with pytest.raises(ToolsetMismatch):
        check_toolset(got["names"], ["recall"])                       # a client's allowlist refuses an extra tool
    assert set(got["schemas"]["remember"]["required"]) == {"key", "fact"}
    assert not got["told"].is_error and not got["recalled"].is_error
    text = " ".join(c.text for c in got["recalled"].content if hasattr(c, "text"))
    assert "now Rita" in text and "Inês" not in text                 # the same key superseded the old fact
    assert got["bad"].is_error                                        # validated as in the harness
    assert [r["text"] for r in memory.tools()["recall"]("Who leads Faro?")] == ["The Faro lead is now Rita."]
    memory.forget()


def test_the_server_speaks_stdio(conns):
    """`python -m workshop.harness.mcp_server` as a subprocess, driven by the SDK's stdio client."""
    import os
    import sys

    from mcp.client.stdio import StdioServerParameters
    rw, _ = conns
    params = StdioServerParameters(command=sys.executable, args=["-m", "workshop.harness.mcp_server"],
                                   env=dict(os.environ))

    async def session() -> tuple[list[str], str]:
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            await client.call_tool("remember", {"key": "stdio probe", "fact": "The stdio probe answered."})
            recalled = await client.call_tool("recall", {"query": "did the stdio probe answer?"})
            return names, " ".join(c.text for c in recalled.content if hasattr(c, "text"))

    names, text = anyio.run(session)
    assert sorted(names) == ["recall", "remember"] and "stdio probe answered" in text
    HarnessMemory(MemoryManager(rw), namespace="mcp").forget()
