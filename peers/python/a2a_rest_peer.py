"""A2A peers on the HTTP+JSON (REST) binding, written with the official Python SDK (a2a-sdk:
its card resolver, REST client transport, and its Starlette REST and Agent Card routes), for
the interop tests of the generated HTTP+JSON binding (tests/tests/interop_a2a_rest.rs).

  a2a_rest_peer.py client BASE_URL   reads the Agent Card at BASE_URL's well-known path,
                                     drives the card's HTTP+JSON interface with the SDK's
                                     REST transport, and prints one JSON object of what it saw
  a2a_rest_peer.py server            serves the echo agent of a2a_peer.py with the SDK's REST
                                     and Agent Card routes under uvicorn, prints
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
from a2a.client.transports.rest import RestTransport
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import a2a_pb2 as pb

from a2a_peer import STATE, Echo, error_of, kind, message, push_configs, waiting_task


async def raw(http, method, url, headers, body=None):
    """A request the SDK would not send: the HTTP status and the error it is answered with."""
    response = await http.request(method, url, content=body, headers=headers)
    error = response.json().get("error") or {}
    reasons = [d.get("reason") for d in error.get("details", []) if "reason" in d]
    return [response.status_code, error.get("code"), error.get("status"), reasons, error.get("message")]


async def bad_input(url, task_id, out):
    """Requests that break the binding or the spec, each answered in the binding's error form
    (on a client of their own: the SDK's sends `A2A-Version` with every request)."""
    json_type = {"Content-Type": "application/a2a+json"}
    versioned = {**json_type, "A2A-Version": "1.0"}
    bad_role = json.dumps({"message": {"messageId": "r-9", "role": 99, "parts": [{"text": "x"}]}})
    async with httpx.AsyncClient(timeout=10) as http:
        out["bad_enum"] = await raw(http, "POST", f"{url}/message:send", versioned, bad_role)
        out["unknown_member"] = await raw(
            http, "POST", f"{url}/message:send", versioned, json.dumps({"colour": "red"})
        )
        out["unknown_query"] = await raw(http, "GET", f"{url}/tasks/{task_id}?colour=red", versioned)
        out["bad_number"] = await raw(http, "GET", f"{url}/tasks?pageSize=many", versioned)
        out["no_route"] = await raw(http, "GET", f"{url}/message:send", versioned)
        out["not_json"] = await raw(http, "POST", f"{url}/message:send", versioned, "{")
        out["no_version"] = await raw(http, "GET", f"{url}/tasks/{task_id}", json_type)
        out["old_version"] = await raw(
            http, "GET", f"{url}/tasks/{task_id}", {**json_type, "A2A-Version": "0.3"}
        )
        out["tenant"] = await raw(http, "GET", f"{url}/acme/tasks/no-such-task", versioned)


async def client(base):
    async with httpx.AsyncClient(headers={"A2A-Version": "1.0"}, timeout=10) as http:
        card = await A2ACardResolver(http, base).get_agent_card()
        out = {"interfaces": [i.protocol_binding for i in card.supported_interfaces]}
        url = next(i.url for i in card.supported_interfaces if i.protocol_binding == "HTTP+JSON")
        t = RestTransport(http, card, url, is_shared_httpx=True)
        extended = await t.get_extended_agent_card(pb.GetExtendedAgentCardRequest())
        out["card"] = extended.name
        sent = await t.send_message(message("r-1", "hello"))
        task = sent.task
        out["send"] = [STATE(task.status.state), [p.text for a in task.artifacts for p in a.parts]]
        out["stream"] = [kind(u) async for u in t.send_message_streaming(message("r-2", "hi"))]
        task_id = await waiting_task(t, out)
        got = await t.get_task(pb.GetTaskRequest(id=task.id, history_length=0))
        out["get"] = [STATE(got.status.state), len(got.history)]
        listed = await t.list_tasks(pb.ListTasksRequest(page_size=2))
        out["list"] = [len(listed.tasks), listed.total_size, listed.next_page_token != ""]
        await push_configs(t, task_id, out)
        out["not_found"] = await error_of(t.get_task(pb.GetTaskRequest(id="no-such-task")))
        await bad_input(url.rstrip("/"), task.id, out)
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
                url=f"http://127.0.0.1:{port}/api", protocol_binding="HTTP+JSON", protocol_version="1.0"
            )
        ],
        capabilities=pb.AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[pb.AgentSkill(id="echo", name="Echo", description="Echoes.", tags=["echo"])],
    )
    handler = DefaultRequestHandler(Echo(), InMemoryTaskStore(), card)
    routes = create_agent_card_routes(card) + create_rest_routes(handler, path_prefix="/api")
    app = Starlette(routes=routes)
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
        sys.exit("usage: a2a_rest_peer.py client BASE_URL | server")
