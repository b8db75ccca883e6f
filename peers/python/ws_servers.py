"""Python `websockets` servers that the agentwire Rust clients talk to.

`ws_servers.py helix` plays the Zed side of helix_zed; `ws_servers.py agentloop` plays an
AgentLoop server. Each binds 127.0.0.1 on a free port, prints `PORT <n>` on stdout, and
serves until killed. Each also sends one malformed frame before its first real answer, so
the Rust client's refusal path is exercised against a peer it did not write.
"""

import asyncio
import json
import sys
import time
import uuid

from websockets.asyncio.server import serve


async def helix_zed(ws):
    bad_sent = False
    async for raw in ws:
        msg = json.loads(raw)
        if msg.get("type") != "chat_message":
            continue
        data = msg["data"]
        session = data["helix_session_id"]
        if not bad_sent:
            # message_added without its data: the client must refuse it and go on.
            await ws.send(json.dumps({"session_id": session, "event_type": "message_added"}))
            bad_sent = True
        thread = data["acp_thread_id"]
        if thread is None:
            thread = str(uuid.uuid4())
            await ws.send(json.dumps({
                "session_id": session,
                "event_type": "context_created",
                "data": {"acp_thread_id": thread, "helix_session_id": session},
            }))
        message_id = str(uuid.uuid4())
        content = ""
        for word in ("Python", "Zed", "heard:", data["message"]):
            content = f"{content} {word}".strip()
            await ws.send(json.dumps({
                "session_id": session,
                "event_type": "message_added",
                "data": {"acp_thread_id": thread, "message_id": message_id,
                         "role": "assistant", "content": content,
                         "timestamp": int(time.time())},
            }))
        await ws.send(json.dumps({
            "session_id": session,
            "event_type": "message_completed",
            "data": {"acp_thread_id": thread, "message_id": message_id,
                     "request_id": data["request_id"]},
        }))


async def agentloop(ws):
    counter = 0
    bad_sent = False

    def frame(kind, payload):
        nonlocal counter
        counter += 1
        return json.dumps({"id": f"py-{counter}", "type": kind, "payload": payload})

    async for raw in ws:
        msg = json.loads(raw)
        kind = msg.get("type")
        if not bad_sent:
            # loading is a boolean: the client must refuse this frame and go on.
            await ws.send(frame("loading_state", {"loading": "yes"}))
            bad_sent = True
        if kind == "user_input":
            await ws.send(frame("loading_state", {"loading": True}))
            await ws.send(frame("response_item", {
                "id": "msg-1", "type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": "I will list the files."}]}))
            await ws.send(frame("approval_request", {"command": ["ls", "-la"]}))
        elif kind == "approval_response":
            allowed = msg["payload"]["review"] in ("yes", "always")
            output = "file_a\nfile_b" if allowed else "denied"
            await ws.send(frame("response_item", {
                "id": "out-1", "type": "local_shell_call_output",
                "output": json.dumps({"output": output, "metadata": {"exit_code": 0}})}))
            await ws.send(frame("loading_state", {"loading": False}))
            await ws.send(frame("agent_finished", {"responseId": "resp-py-1"}))
        elif kind == "get_context_info":
            await ws.send(frame("context_info", {
                "tokenCount": 1200, "usagePercent": 0.9, "transcriptLength": 4,
                "maxTokens": 128000, "strategy": "python-window"}))
        elif kind == "manual_compact":
            await ws.send(frame("context_compacted", {
                "oldTokenCount": 1200, "newTokenCount": 300, "reductionPercent": 75,
                "strategy": "python-window"}))


async def main(which):
    handler = {"helix": helix_zed, "agentloop": agentloop}[which]
    async with serve(handler, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
