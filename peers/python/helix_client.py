"""Helix side written with Python `websockets`, against the agentwire helix_zed server.

Runs the first-message flow (acp_thread_id null: exactly one context_created, growing
message_added, message_completed echoing request_id), sends bad frames that a Zed side must
drop without closing, then the follow-up flow on the same connection (known acp_thread_id,
no context_created). Usage: helix_client.py ws://127.0.0.1:PORT/
"""

import asyncio
import json
import sys

from websockets.asyncio.client import connect

from ws_common import check, expect_silence, recv_json

SESSION = "ses_python_1"


def chat(thread, text, request_id):
    return json.dumps({
        "type": "chat_message",
        "data": {
            "helix_session_id": SESSION,
            "acp_thread_id": thread,
            "message": text,
            "request_id": request_id,
        },
    })


async def turn(ws, thread, text, request_id):
    """Sends one chat_message and reads the reply up to message_completed."""
    await ws.send(chat(thread, text, request_id))
    created = []
    contents = []
    message_id = None
    while True:
        ev = await recv_json(ws)
        check(ev.get("session_id") == SESSION, f"session id not echoed: {ev}")
        kind = ev.get("event_type")
        data = ev.get("data", {})
        if kind == "context_created":
            check(data.get("helix_session_id") == SESSION, f"bad context_created: {ev}")
            created.append(data["acp_thread_id"])
            thread = data["acp_thread_id"]
        elif kind == "message_added":
            check(data.get("role") == "assistant", f"role: {ev}")
            check(thread is None or data["acp_thread_id"] == thread, f"thread: {ev}")
            if message_id is None:
                message_id = data["message_id"]
            check(data["message_id"] == message_id, f"message_id changed: {ev}")
            if contents:
                check(data["content"].startswith(contents[-1]), f"content shrank: {ev}")
            contents.append(data["content"])
        elif kind == "message_completed":
            check(data.get("request_id") == request_id, f"request_id not echoed: {ev}")
            check(data.get("message_id") == message_id, f"message_id: {ev}")
            check(data.get("acp_thread_id") == thread, f"thread: {ev}")
            return created, contents, thread
        else:
            check(False, f"unexpected event {ev}")


async def main(url):
    async with connect(url) as ws:
        created, contents, thread = await turn(ws, None, "hello from python", "req-py-1")
        check(len(created) == 1, f"first message: expected one context_created, got {created}")
        check(len(contents) >= 2, f"expected streamed updates, got {contents}")
        check(len(contents[-1]) > len(contents[0]), "content did not grow")

        # Bad input: a Zed side has no error event, so these are dropped and the
        # connection keeps working.
        await ws.send("this is not json")
        await ws.send(b"\x00\x01binary")
        await ws.send(json.dumps({"type": "chat_message", "data": {"helix_session_id": SESSION}}))
        await ws.send(json.dumps({"type": "no_such_kind", "data": {}}))
        await expect_silence(ws)

        created, contents, thread2 = await turn(ws, thread, "and a follow-up", "req-py-2")
        check(created == [], f"follow-up got context_created: {created}")
        check(thread2 == thread, "follow-up changed thread")
        check(len(contents) >= 2, "follow-up did not stream")
    print("helix client: ok", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
