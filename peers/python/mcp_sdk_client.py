"""An MCP client written with the official Python SDK (PyPI `mcp`) for the SDK peers' own servers
(`peers/python/mcp_server.py`, `peers/node/mcp_server.cjs`), over Streamable HTTP: `http <url>`.
It calls every tool those servers have that asks something of a client (progress, sampling,
elicitation, roots), answering the server's requests itself, then sends bad input (an unknown
method, bad params) and checks that each is answered with a JSON-RPC error and that the session
goes on. For `agentwire proxy` between an SDK client and an SDK server (cli/tests/proxy_http.rs).
Prints one line per check; exits 0 only when all passed."""

import sys

import anyio
from mcp import ClientSession, types
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.exceptions import McpError

ROOT = "file:///tmp/agentwire-sdk-root"
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


async def elicitation(context, params):
    return types.ElicitResult(action="accept", content={"name": "Grace"})


async def roots(context):
    return types.ListRootsResult(roots=[types.Root(uri=ROOT, name="test root")])


async def error_code(coro):
    try:
        await coro
        return None
    except McpError as e:
        return e.error.code


def text(result):
    return result.content[0].text


async def run(session, server):
    init = await session.initialize()
    check(init.serverInfo.name == server, f"serverInfo.name is {init.serverInfo.name}")
    tools = await session.list_tools()
    names = {t.name for t in tools.tools}
    check({"echo", "progress", "sample", "elicit", "roots"} <= names, "tools/list names the tools")
    check(text(await session.call_tool("echo", {"text": "hello"})) == "hello", "tools/call echo")
    seen = []

    async def on_progress(progress, total, message):
        seen.append(progress)

    done = await session.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
    check(seen == [1, 2, 3], f"progress notifications 1,2,3 (got {seen})")
    check(text(done) == "done in 3 steps", "the progress call finishes")
    sampled = text(await session.call_tool("sample", {"prompt": "Say hi"}))
    check(sampled == "python-model said: hi from python", f"sampling round trip: {sampled}")
    elicited = text(await session.call_tool("elicit", {}))
    check(elicited == "accept: Grace", f"elicitation round trip: {elicited}")
    listed = text(await session.call_tool("roots", {}))
    check(listed == ROOT, f"roots round trip: {listed}")
    # Bad input: the SDK's typed requests cannot say these, so they go as raw requests.
    unknown = types.ClientRequest.model_construct(
        root=types.PingRequest.model_construct(method="no/such/method"))
    code = await error_code(session.send_request(unknown, types.EmptyResult))
    check(code is not None, f"an unknown method is answered with an error ({code})")
    bad = types.ClientRequest.model_construct(root=types.CallToolRequest.model_construct(
        method="tools/call", params=types.CallToolRequestParams.model_construct(arguments={})))
    code = await error_code(session.send_request(bad, types.CallToolResult))
    check(code is not None, f"tools/call without a name is answered with an error ({code})")
    await session.send_ping()
    check(True, "the session survives bad input (ping answered)")


async def main(url, server):
    async with streamablehttp_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(
            read,
            write,
            sampling_callback=sampling,
            elicitation_callback=elicitation,
            list_roots_callback=roots,
        ) as session:
            await run(session, server)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "http":
        print("usage: mcp_sdk_client.py http <url> <expected server name>", file=sys.stderr)
        sys.exit(2)
    try:
        anyio.run(main, sys.argv[2], sys.argv[3])
    except Exception as e:  # every failure is a finding, not a traceback
        check(False, f"unexpected: {e!r}")
    print("all checks passed" if not failures else f"{len(failures)} check(s) failed", flush=True)
    sys.exit(0 if not failures else 1)
