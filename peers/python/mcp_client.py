"""An MCP client written with the official Python SDK (PyPI `mcp`): connects to the server given
on the command line (`stdio <command> [args...]` or `http <url>`), runs tools, progress,
sampling back to this client, resources and prompts, then bad input (an unknown method, bad
params), checking the JSON-RPC error and that the session goes on. Prints one line per check;
exits 0 only when all passed."""

import sys

import anyio
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


async def sampling(context, params):
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="hi from python"),
        model="python-model",
    )


async def error_code(coro):
    try:
        await coro
        return "no error"
    except McpError as e:
        return e.error.code


async def run(session):
    init = await session.initialize()
    check(init.serverInfo.name == "agentwire-mcp-example", f"serverInfo.name is {init.serverInfo.name}")
    check(init.protocolVersion == types.LATEST_PROTOCOL_VERSION, f"protocol version {init.protocolVersion}")
    tools = await session.list_tools()
    check(any(t.name == "echo" for t in tools.tools), "tools/list names echo")
    echo = await session.call_tool("echo", {"text": "hello"})
    check(echo.content[0].text == "hello", "tools/call echo answers hello")
    seen = []

    async def on_progress(progress, total, message):
        seen.append(progress)

    done = await session.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
    check(seen == [1, 2, 3], f"progress notifications 1,2,3 (got {seen})")
    check(done.content[0].text == "done in 3 steps", "the progress call finishes")
    sampled = await session.call_tool("sample", {"prompt": "Say hi"})
    check(sampled.content[0].text == "python-model said: hi from python", f"sampling round trip: {sampled.content[0].text}")
    res = await session.read_resource("file:///greeting.txt")
    check(res.contents[0].text == "Hello from agentwire.", "resources/read")
    prompt = await session.get_prompt("greet", {"name": "Ada"})
    check(prompt.messages[0].content.text == "Please greet Ada.", "prompts/get")
    # Bad input: the SDK's typed requests cannot say these, so they go as raw requests.
    unknown = types.ClientRequest.model_construct(
        root=types.PingRequest.model_construct(method="no/such/method"))
    check(await error_code(session.send_request(unknown, types.EmptyResult)) == -32601,
          "an unknown method is answered with -32601")
    bad = types.ClientRequest.model_construct(root=types.ReadResourceRequest.model_construct(
        method="resources/read", params=types.ReadResourceRequestParams.model_construct(uri=7)))
    check(await error_code(session.send_request(bad, types.ReadResourceResult)) == -32602,
          "resources/read with a number for uri is answered with -32602")
    await session.send_ping()
    check(True, "the session survives bad input (ping answered)")


async def main(mode, target, rest):
    if mode == "stdio":
        transport = stdio_client(StdioServerParameters(command=target, args=rest))
    else:
        transport = streamablehttp_client(target)
    async with transport as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write, sampling_callback=sampling) as session:
            await run(session)


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("stdio", "http"):
        print("usage: mcp_client.py stdio <command> [args...] | http <url>", file=sys.stderr)
        sys.exit(2)
    try:
        anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3:])
    except Exception as e:  # every failure is a finding, not a traceback
        check(False, f"unexpected: {e!r}")
    print("all checks passed" if not failures else f"{len(failures)} check(s) failed", flush=True)
    sys.exit(0 if not failures else 1)
