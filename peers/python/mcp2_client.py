"""An MCP client written on the official Python SDK's 2.x line (`mcp` 2.3.0).

Starts the server given on the command line over stdio (or connects to an http:// URL over
Streamable HTTP), negotiates as asked and runs the flows every MCP server here offers (tools,
progress, resources, a resource template, prompts, completion, an elicitation answered by this
client's callback, a cancellation the server sees, bad input), plus the ones only `ours`
(examples/mcp_server --all-versions) offers: sampling and roots answered by this client's
callbacks, and a resource subscription told of a change (resources/subscribe on 2025-11-25,
subscriptions/listen on 2026-07-28). On 2026-07-28 the server asks for input with
input-required results, which the SDK answers through the same callbacks.

    python mcp2_client.py <auto|legacy|2026-07-28> <VERSION> <ours|peer> <command [args...] | URL>

The first argument is the SDK's connect mode; the second the protocol version the connection
must land on. Prints one line per check; exits 0 only when all passed.
"""

import os
import sys

import anyio
import mcp.types as types
from mcp import Client, MCPError, StdioServerParameters

failures: list[str] = []


def check(ok: bool, what: str) -> None:
    print(f"{'ok  ' if ok else 'FAIL'} {what}", flush=True)
    if not ok:
        failures.append(what)


def first(result) -> str:
    content = getattr(result, "content", None)
    return content[0].text if content else repr(result)


ROOT = "file:///tmp/python-sdk2-root"
URI = "greeting://Ada"
updated: list[str] = []


async def on_elicit(_context, _params):
    return types.ElicitResult(action="accept", content={"name": "Grace"})


async def on_sample(_context, _params):
    content = types.TextContent(type="text", text="hi from the Python SDK")
    return types.CreateMessageResult(role="assistant", content=content, model="python-sdk2-model")


async def on_roots(_context):
    return types.ListRootsResult(roots=[types.Root(uri=ROOT, name="test root")])


async def on_message(message) -> None:
    if getattr(message, "method", None) == "notifications/resources/updated":
        updated.append(str(message.params.uri))


async def told_of_a_change(client: Client, version: str) -> None:
    if version < "2026":
        await client.subscribe_resource(URI)
        told = first(await client.call_tool("touch", {"uri": URI}))
        with anyio.move_on_after(10):
            while URI not in updated:
                await anyio.sleep(0.05)
        check(told == "1 subscriber(s) told" and URI in updated, f"a subscription is told of a change ({told}; {updated})")
        return
    async with client.listen(resource_subscriptions=[URI]) as sub:
        honored = list(sub.honored.resource_subscriptions or [])
        told = first(await client.call_tool("touch", {"uri": URI}))
        event = None
        with anyio.move_on_after(10):
            event = await sub.__anext__()
    uri = getattr(event, "uri", None)
    check(honored == [URI] and told == "1 subscriber(s) told" and uri == URI,
          f"a subscription is told of a change (honored {honored}; {told}; {event})")


async def ours_only(client: Client, version: str) -> None:
    sampled = first(await client.call_tool("sample", {"prompt": "Say hi"}))
    check("hi from the Python SDK" in sampled, f"sampling answered by this client's callback ({sampled})")
    root = first(await client.call_tool("roots", {}))
    check(root == ROOT, f"roots answered by this client's callback ({root})")
    await told_of_a_change(client, version)


async def flows(client: Client) -> None:
    names = [t.name for t in (await client.list_tools()).tools]
    check(all(n in names for n in ("echo", "add", "progress", "fail")), f"tools/list ({names})")
    check(first(await client.call_tool("echo", {"text": "hello"})) == "hello", "tools/call echo")
    fail = await client.call_tool("fail", {})
    check(fail.is_error is True, "a failing tool answers isError")
    seen: list[float] = []

    async def on_progress(progress, _total, _message):
        seen.append(progress)

    done = await client.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
    check(seen == [1, 2, 3] and first(done) == "done in 3 steps", f"progress 1,2,3 then the result ({seen}, {first(done)})")
    read = await client.read_resource("file:///greeting.txt")
    check(read.contents[0].text.startswith("Hello"), f"resources/read ({read.contents[0].text})")
    templates = await client.list_resource_templates()
    check(any(t.uri_template == "greeting://{name}" for t in templates.resource_templates), "resources/templates/list")
    by_name = await client.read_resource("greeting://Ada")
    check("Ada" in by_name.contents[0].text, f"a templated resource ({by_name.contents[0].text})")
    prompts = await client.list_prompts()
    check(any(p.name == "greet" for p in prompts.prompts), "prompts/list")
    prompt = await client.get_prompt("greet", {"name": "Ada"})
    check(prompt.messages[0].content.text == "Please greet Ada.", f"prompts/get ({prompt.messages[0].content.text})")
    done2 = await client.complete(types.PromptReference(type="ref/prompt", name="greet"), {"name": "name", "value": "A"})
    check("Ada" in done2.completion.values, f"completion/complete ({done2.completion.values})")


async def both(client: Client) -> None:
    confirmed = await client.call_tool("confirm", {})
    check(first(confirmed) == "hello Grace", f"input-required round trip through the elicitation callback ({first(confirmed)})")
    started = anyio.Event()

    async def on_progress(_progress, _total, _message):
        started.set()

    with anyio.CancelScope() as scope:

        async def cancel_when_started():
            await started.wait()
            scope.cancel()

        async with anyio.create_task_group() as tg:
            tg.start_soon(cancel_when_started)
            await client.call_tool("slow", {}, progress_callback=on_progress)
    check(scope.cancelled_caught, "the slow call is cancelled locally")
    saw = "running"
    for _ in range(100):
        saw = first(await client.call_tool("was_cancelled", {}))
        if saw != "running":
            break
        await anyio.sleep(0.1)
    check(saw == "yes", f"the server saw the call cancelled ({saw})")


async def error_code(client: Client, method: str, params: dict) -> object:
    try:
        await client.session.send_request(types.Request(method=method, params=params), types.EmptyResult)
    except MCPError as e:
        return e.error.code
    except Exception as e:  # noqa: BLE001 - what the SDK raised is the finding
        return repr(e)
    return "no error"


async def bad_input(client: Client) -> None:
    unknown = await error_code(client, "no/such/method", {})
    check(unknown in (-32601, -32602), f"an unknown method is refused ({unknown})")
    bad = await error_code(client, "resources/read", {})
    check(isinstance(bad, int) and bad < 0, f"resources/read without a uri is refused ({bad})")
    check(first(await client.call_tool("echo", {"text": "still here"})) == "still here", "the connection survives bad input")


async def main() -> None:
    mode, version, kind, command, *args = sys.argv[1:]
    server = command if command.startswith(("http://", "https://")) else StdioServerParameters(command=command, args=args, env=dict(os.environ))
    callbacks = {"elicitation_callback": on_elicit, "sampling_callback": on_sample, "list_roots_callback": on_roots}
    async with Client(server, mode=mode, message_handler=on_message, read_timeout_seconds=60, **callbacks) as client:
        name = client.server_info.name if client.server_info else None
        check(client.protocol_version == version, f"connected in {client.protocol_version} ({name})")
        await flows(client)
        await both(client)
        if kind == "ours":
            await ours_only(client, version)
        await bad_input(client)


if __name__ == "__main__":
    if len(sys.argv) < 5 or sys.argv[3] not in ("ours", "peer"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        anyio.run(main)
    except Exception as e:  # noqa: BLE001 - reported as a failed check
        check(False, f"unexpected: {e!r}")
    print("all checks passed" if not failures else f"{len(failures)} check(s) failed", flush=True)
    sys.exit(0 if not failures else 1)
