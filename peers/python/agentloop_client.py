"""AgentLoop client written with Python `websockets`, against the agentwire agentloop server.

Sends bad frames first (each must be answered by an `error` message naming the failing
rule), asks for context info, then runs a turn with one approval: user_input ->
loading_state(true) -> response_item* / approval_request -> approval_response ->
loading_state(false) -> agent_finished. Usage: agentloop_client.py ws://127.0.0.1:PORT/
"""

import asyncio
import json
import sys

from websockets.asyncio.client import connect

from ws_common import check, recv_json


async def expect_error(ws, needle):
    ev = await recv_json(ws)
    check(ev.get("type") == "error", f"expected an error message, got {ev}")
    check(isinstance(ev.get("id"), str) and ev["id"], f"error without id: {ev}")
    text = json.dumps(ev["payload"])
    check(needle in text, f"error does not mention {needle!r}: {ev}")


async def main(url):
    async with connect(url) as ws:
        await ws.send("{not json")
        await expect_error(ws, "syntax")
        await ws.send(json.dumps({"id": "b1", "type": "launch_rockets", "payload": {}}))
        await expect_error(ws, "unknown_kind")
        await ws.send(json.dumps({"id": "b2", "type": "user_input", "payload": {"input": "x"}}))
        await expect_error(ws, "/payload/input")
        await ws.send(b"\xff\xfe")
        await expect_error(ws, "binary")
        # Nothing is pending: an approval here is out of sequence.
        await ws.send(json.dumps({"id": "b3", "type": "approval_response",
                                  "payload": {"review": "yes"}}))
        await expect_error(ws, "approval_response")

        await ws.send(json.dumps({"id": "c1", "type": "get_context_info"}))
        info = await recv_json(ws)
        check(info.get("type") == "context_info", f"expected context_info, got {info}")
        check(info["payload"]["maxTokens"] >= 1, f"context_info: {info}")

        await ws.send(json.dumps({
            "id": "u1",
            "type": "user_input",
            "payload": {"input": [{"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": "list files"}]}]},
        }))
        seen = []
        while True:
            ev = await recv_json(ws)
            kind = ev.get("type")
            if kind == "loading_state":
                seen.append(f"loading_state:{ev['payload']['loading']}")
            else:
                seen.append(kind)
            if kind == "approval_request":
                check(ev["payload"]["command"], "empty command")
                await ws.send(json.dumps({"id": "a1", "type": "approval_response",
                                          "payload": {"review": "yes"}}))
            if kind == "agent_finished":
                check(ev["payload"]["responseId"], "no responseId")
                break
            check(kind != "error", f"turn failed: {ev}")
        check(seen[0] == "loading_state:True", f"turn did not start loading: {seen}")
        check("approval_request" in seen, f"no approval requested: {seen}")
        check(seen[-2:] == ["loading_state:False", "agent_finished"], f"bad ending: {seen}")
        i = seen.index("approval_request")
        check("response_item" in seen[i:], f"nothing ran after approval: {seen}")
    print("agentloop client: ok", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
