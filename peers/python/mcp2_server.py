"""An MCP server written on the official Python SDK's 2.x line (`mcp` 2.3.0, `MCPServer`).

    python mcp2_server.py stdio | http <port>

Serves both eras, over stdio or over Streamable HTTP at http://127.0.0.1:<port>/mcp: a client that probes with server/discover gets 2026-07-28, one
that opens with initialize gets 2025-11-25. Tools: echo, add, fail, progress (one report per
step), slow (runs until cancelled, after one report), was_cancelled (what the last slow call
saw), confirm (asks the client for a name: an input-required result on 2026-07-28, an
elicitation request on 2025-11-25); one resource and one resource template; one prompt whose
argument completes.
"""

import sys

import anyio
import mcp.types as types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

server = MCPServer("python-sdk2-peer")
slow_seen = {"value": "never ran"}


class Who(BaseModel):
    name: str = "Ada"


@server.tool()
def echo(text: str) -> str:
    """Returns its text."""
    return text


@server.tool()
def add(a: float, b: float) -> str:
    """Adds two numbers."""
    return str(int(a + b) if (a + b).is_integer() else a + b)


@server.tool()
def fail() -> types.CallToolResult:
    """Always fails (isError)."""
    return types.CallToolResult(content=[types.TextContent(type="text", text="this tool always fails")], is_error=True)


@server.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Reports progress in `steps` steps."""
    for step in range(1, steps + 1):
        await anyio.sleep(0.03)
        await ctx.report_progress(step, steps)
    await anyio.sleep(0.03)
    return f"done in {steps} steps"


@server.tool()
async def slow(ctx: Context) -> str:
    """Runs until cancelled."""
    slow_seen["value"] = "running"
    try:
        await ctx.report_progress(0, None, "started")
        await anyio.sleep(30)
    except anyio.get_cancelled_exc_class():
        slow_seen["value"] = "yes"
        raise
    slow_seen["value"] = "no"
    return "slow finished"


@server.tool()
def was_cancelled() -> str:
    """What the last slow call saw."""
    return slow_seen["value"]


@server.tool()
async def confirm(ctx: Context) -> str | types.InputRequiredResult:
    """Asks the client for a name, then greets it."""
    if (ctx.protocol_version or "") < "2026":
        asked = await ctx.elicit("Who is there?", Who)
        return f"hello {asked.data.name}" if asked.action == "accept" else asked.action
    answer = (ctx.input_responses or {}).get("who")
    if answer is None:
        form = types.ElicitRequestFormParams(message="Who is there?", requested_schema=Who.model_json_schema())
        return types.InputRequiredResult(input_requests={"who": types.ElicitRequest(params=form)})
    content = getattr(answer, "content", None) or {}
    return f"hello {content.get('name')}"


@server.resource("file:///greeting.txt", mime_type="text/plain")
def greeting() -> str:
    return "Hello from the Python SDK."


@server.resource("greeting://{name}", mime_type="text/plain")
def greeting_for(name: str) -> str:
    return f"Hello, {name}."


@server.prompt()
def greet(name: str) -> str:
    """Greets someone by name."""
    return f"Please greet {name}."


@server.completion()
async def complete(ref, argument, _context):
    names = [n for n in ("Ada", "Alan", "Grace") if n.startswith(argument.value)]
    return types.Completion(values=names, total=len(names), has_more=False)


if __name__ == "__main__":
    if sys.argv[1:] == ["stdio"]:
        server.run("stdio")
    elif len(sys.argv) == 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
