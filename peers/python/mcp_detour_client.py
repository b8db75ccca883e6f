"""An MCP client written with the official Python SDK (PyPI `mcp`) that takes another path than
mcp_client.py: after `initialize` it asks for the prompt list where mcp_client.py lists tools.
For `agentwire mock --replay` (cli/tests/mock_replay.rs): replaying a session of mcp_client.py
to this client must report the deviation at that request. Usage: `stdio <command> [args...]`
or `http <url>` (Streamable HTTP).
Prints what it got; exits 0 either way (the replay's report is what is checked)."""

import sys

import anyio
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError


async def main(mode, target, rest):
    if mode == "stdio":
        transport = stdio_client(StdioServerParameters(command=target, args=rest))
    else:
        transport = streamablehttp_client(target)
    async with transport as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            init = await session.initialize()
            print(f"ok   initialized with {init.serverInfo.name}", flush=True)
            try:
                prompts = await session.list_prompts()
                print(f"prompts: {len(prompts.prompts)}", flush=True)
            except McpError as e:
                print(f"prompts/list refused: {e.error.code}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("stdio", "http"):
        print("usage: mcp_detour_client.py stdio <command> [args...] | http <url>", file=sys.stderr)
        sys.exit(2)
    anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3:])
