"""An MCP server written with MCP's official Python SDK (`mcp`, FastMCP), for agentwire's
client (tests/tests/interop_mcp.rs): `stdio`, or `http PORT` (Streamable HTTP at
http://127.0.0.1:PORT/mcp). Its tools exercise what a client must do: `echo`; `progress`
(reports `steps` steps); `sample`, `elicit` and `roots` (ask the client back); `slow` (runs
until cancelled) and `was_cancelled` (whether the last `slow` call saw its cancellation)."""

import sys

import anyio
from pydantic import BaseModel
from mcp.server.fastmcp import Context, FastMCP
from mcp.types import SamplingMessage, TextContent

mcp = FastMCP("python-sdk-peer", log_level="WARNING")
state = {"slow": "no slow call yet"}


@mcp.tool()
def echo(text: str) -> str:
    """Returns its text."""
    return text


@mcp.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Reports `steps` steps."""
    for step in range(1, steps + 1):
        await anyio.sleep(0.03)
        await ctx.report_progress(step, steps, f"step {step}")
    await anyio.sleep(0.03)
    return f"done in {steps} steps"


@mcp.tool()
async def sample(prompt: str, ctx: Context) -> str:
    """Asks the client's model."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=50,
        related_request_id=ctx.request_id,
    )
    return f"{result.model} said: {result.content.text}"


class Name(BaseModel):
    name: str = "Ada"


@mcp.tool()
async def elicit(ctx: Context) -> str:
    """Asks the user for a name."""
    result = await ctx.elicit("Who are you?", Name)
    if result.action == "accept":
        return f"accept: {result.data.name}"
    return f"{result.action}: -"


@mcp.tool()
async def roots(ctx: Context) -> str:
    """Lists the client's roots."""
    result = await ctx.session.list_roots()
    return " ".join(str(root.uri) for root in result.roots)


@mcp.tool()
async def slow(ctx: Context) -> str:
    """Runs until cancelled."""
    state["slow"] = "running"
    await ctx.report_progress(0)
    try:
        await anyio.sleep(30)
    except anyio.get_cancelled_exc_class():
        state["slow"] = "yes"
        raise
    state["slow"] = "no"
    return "slept"


@mcp.tool()
def was_cancelled() -> str:
    """Whether the last slow call was cancelled."""
    return state["slow"]


if __name__ == "__main__":
    if sys.argv[1:] == ["stdio"]:
        mcp.run("stdio")
    elif len(sys.argv) == 3 and sys.argv[1] == "http":
        mcp.settings.host = "127.0.0.1"
        mcp.settings.port = int(sys.argv[2])
        mcp.run("streamable-http")
    else:
        sys.exit("usage: mcp_server.py stdio | http PORT")
