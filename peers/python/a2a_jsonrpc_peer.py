"""A2A peers on the JSON-RPC binding, written with the official Python SDK (a2a-sdk: its card
resolver, JSON-RPC client transport, and its Starlette JSON-RPC and Agent Card routes), for
the interop tests of the generated JSON-RPC binding (tests/tests/interop_a2a_jsonrpc.rs).

  a2a_jsonrpc_peer.py client BASE_URL   reads the Agent Card at BASE_URL's well-known path,
                                        drives the card's JSONRPC interface with the SDK's
                                        client transport, and prints one JSON object of what
                                        it saw
  a2a_jsonrpc_peer.py server            serves the echo agent of a2a_peer.py with the SDK's
                                        JSON-RPC and Agent Card routes under uvicorn, prints
                                        `listening PORT`, and stops when standard input ends
"""

import asyncio
import json
import socket
import sys

import httpx
import uvicorn
from starlette.applications import Starlette

from a2a.client.card_resolver import A2ACardResolver
from a2a.client.transports.jsonrpc import JsonRpcTransport
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import a2a_pb2 as pb

from a2a_peer import STATE, Echo, error_of, kind, message, push_configs, waiting_task


async def raw_call(http, url, body, headers):
    """A JSON-RPC POST the SDK would not send: the error object it is answered with."""
    response = await http.post(url, content=body, headers=headers)
    reply = response.json()
    error = reply.get("error") or {}
    return [response.status_code, error.get("code"), error.get("message")]


def call(method, params):
    """A JSON-RPC request body."""
    return json.dumps({"jsonrpc": "2.0", "id": "x", "method": method, "params": params})


async def bad_input(url, task_id, out):
    """Requests that break the binding or the spec, each answered with a JSON-RPC error (on a
    client of their own: the SDK's sends `A2A-Version` with every request)."""
    json_type = {"Content-Type": "application/json"}
    versioned = {**json_type, "A2A-Version": "1.0"}
    bad_role = {"message": {"messageId": "j-9", "role": 99, "parts": [{"text": "x"}]}}
    get = call("GetTask", {"id": task_id})
    async with httpx.AsyncClient(timeout=10) as http:
        out["bad_enum"] = await raw_call(http, url, call("SendMessage", bad_role), versioned)
        out["unknown_member"] = await raw_call(
            http, url, call("GetTask", {"id": task_id, "colour": "red"}), versioned
        )
        out["no_method"] = await raw_call(http, url, call("message/send", {}), versioned)
        out["not_json"] = await raw_call(http, url, "{", versioned)
        out["no_version"] = await raw_call(http, url, get, json_type)
        out["old_version"] = await raw_call(http, url, get, {**json_type, "A2A-Version": "0.3"})


async def client(base):
    async with httpx.AsyncClient(headers={"A2A-Version": "1.0"}, timeout=10) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        out = {"interfaces": [i.protocol_binding for i in card.supported_interfaces]}
        url = next(i.url for i in card.supported_interfaces if i.protocol_binding == "JSONRPC")
        t = JsonRpcTransport(http, card, url, is_shared_httpx=True)
        extended = await t.get_extended_agent_card(pb.GetExtendedAgentCardRequest())
        out["card"] = extended.name
        sent = await t.send_message(message("j-1", "hello"))
        task = sent.task
        out["send"] = [STATE(task.status.state), [p.text for a in task.artifacts for p in a.parts]]
        out["stream"] = [kind(u) async for u in t.send_message_streaming(message("j-2", "hi"))]
        task_id = await waiting_task(t, out)
        got = await t.get_task(pb.GetTaskRequest(id=task.id, history_length=0))
        out["get"] = [STATE(got.status.state), len(got.history)]
        listed = await t.list_tasks(pb.ListTasksRequest(page_size=2))
        out["list"] = [len(listed.tasks), listed.total_size, listed.next_page_token != ""]
        await push_configs(t, task_id, out)
        out["not_found"] = await error_of(t.get_task(pb.GetTaskRequest(id="no-such-task")))
        await bad_input(url, task.id, out)
    print(json.dumps(out), flush=True)


async def server():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    card = pb.AgentCard(
        name="a2a-sdk echo agent",
        description="Echoes the text.",
        version="1.0.0",
        supported_interfaces=[
            pb.AgentInterface(
                url=f"http://127.0.0.1:{port}/rpc", protocol_binding="JSONRPC", protocol_version="1.0"
            )
        ],
        capabilities=pb.AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[pb.AgentSkill(id="echo", name="Echo", description="Echoes.", tags=["echo"])],
    )
    handler = DefaultRequestHandler(Echo(), InMemoryTaskStore(), card)
    app = Starlette(routes=create_agent_card_routes(card) + create_jsonrpc_routes(handler, "/rpc"))
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    serving = asyncio.create_task(srv.serve(sockets=[sock]))
    print(f"listening {port}", flush=True)
    # Standard input's end is the stop signal: the test holds it open while it runs.
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    srv.should_exit = True
    await serving


if __name__ == "__main__":
    if sys.argv[1:2] == ["client"]:
        asyncio.run(client(sys.argv[2]))
    elif sys.argv[1:2] == ["server"]:
        asyncio.run(server())
    else:
        sys.exit("usage: a2a_jsonrpc_peer.py client BASE_URL | server")
