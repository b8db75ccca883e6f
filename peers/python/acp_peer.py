"""ACP interop peer on the official Python SDK (agent-client-protocol, pinned in requirements.txt),
through its public API only.

  acp_peer.py client AGENT [ARGS...]   the SDK's client drives the agent it starts (agentwire's
                                       example agent in tests/tests/interop_acp.rs) through the
                                       scenario below and prints what it saw as one JSON object
  acp_peer.py agent REPORT             an agent on the SDK's stdio connection; when its input
                                       ends it writes what it saw to the file REPORT

The client's scenario: initialize (declaring fs and terminal), a session in the current
directory, a prompt turn allowed throughout (answering permission, fs/read_text_file and the
terminal/* requests), a second turn it cancels when asked for permission, then bad input:
a prompt naming no session, an unknown method, and (over the SDK's low-level connection)
invalid params. The agent's turn: a thought and a message chunk, a tool call with updates,
a permission request, a file read, a terminal run and released, and bad requests of its own
(a relative path, an unknown terminal); a turn whose permission comes back cancelled, or that
the client cancels, ends `cancelled`. Both sides report updates in one normal form,
"kind[ id][ status]", the same in every SDK's peer.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import acp
from acp import (
    PROTOCOL_VERSION,
    RequestError,
    connect_to_agent,
    run_agent,
    spawn_stdio_connection,
    spawn_stdio_transport,
    text_block,
)
from acp.schema import (
    AgentCapabilities,
    AllowedOutcome,
    ClientCapabilities,
    CreateTerminalResponse,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    ToolCallUpdate,
    WaitForTerminalExitResponse,
)

LIMIT = 60  # seconds for any one exchange


def plain(model: Any) -> Any:
    """A schema model as the JSON it travels as."""
    if hasattr(model, "model_dump"):
        return model.model_dump(by_alias=True, exclude_none=True, mode="json")
    return model


def update_line(update: dict[str, Any]) -> str:
    """The normal form of one session update: kind, then tool call id and status if any (a new
    tool call's status defaults to `pending`)."""
    parts = [update.get("sessionUpdate", "?")]
    if "toolCallId" in update:
        parts.append(update["toolCallId"])
    if "status" in update:
        parts.append(update["status"])
    elif parts[0] == "tool_call":
        parts.append("pending")
    return " ".join(parts)


def chunk_text(update: dict[str, Any]) -> str:
    content = update.get("content") or {}
    return content.get("text", "") if isinstance(content, dict) else ""


# -- the client --------------------------------------------------------------------------------


class Terminals:
    """Commands run for the agent, by terminal id."""

    def __init__(self) -> None:
        self.procs: dict[str, tuple[asyncio.subprocess.Process, asyncio.Task[bytes]]] = {}
        self.next = 0

    async def create(self, command: str, args: list[str]) -> str:
        proc = await asyncio.create_subprocess_exec(
            command, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        self.next += 1
        tid = f"term-{self.next}"
        self.procs[tid] = (proc, asyncio.ensure_future(proc.stdout.read()))  # type: ignore[union-attr]
        return tid

    def get(self, tid: str) -> tuple[asyncio.subprocess.Process, asyncio.Task[bytes]]:
        if tid not in self.procs:
            raise RequestError.resource_not_found(tid)
        return self.procs[tid]


class ScenarioClient:
    """The SDK client's handlers; it records what the agent asked and sent."""

    def __init__(self) -> None:
        self.conn: Any = None
        self.cancel_next = False
        self.updates: list[str] = []
        self.text = ""
        self.permissions: list[list[str]] = []
        self.reads: list[list[Any]] = []
        self.terminal: list[str] = []
        self.terms = Terminals()

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        u = plain(update)
        self.updates.append(update_line(u))
        if u.get("sessionUpdate") == "agent_message_chunk":
            self.text += chunk_text(u)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        if self.cancel_next:
            # The user cancels the turn while asked (prompt-turn, "Cancellation").
            await self.conn.cancel(session_id=session_id)
            self.permissions.append([tool_call.tool_call_id, "cancelled"])
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        chosen = next(o for o in options if o.kind.startswith("allow"))
        self.permissions.append([tool_call.tool_call_id, chosen.option_id])
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen.option_id))

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        if not os.path.isabs(path):
            raise RequestError.invalid_params({"path": path})
        self.reads.append([os.path.relpath(path), line, limit])
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        end = len(lines) if limit is None else start + limit
        return ReadTextFileResponse(content="".join(lines[start:end]))

    async def create_terminal(
        self, session_id: str, command: str, args: list[str] | None = None, **kwargs: Any
    ) -> CreateTerminalResponse:
        self.terminal.append(f"create {command}")
        return CreateTerminalResponse(terminal_id=await self.terms.create(command, args or []))

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str, **kwargs: Any) -> WaitForTerminalExitResponse:
        self.terminal.append("wait_for_exit")
        proc, _ = self.terms.get(terminal_id)
        return WaitForTerminalExitResponse(exit_code=await proc.wait())

    async def terminal_output(self, session_id: str, terminal_id: str, **kwargs: Any) -> TerminalOutputResponse:
        self.terminal.append("output")
        proc, out = self.terms.get(terminal_id)
        return TerminalOutputResponse(output=(await out).decode(), truncated=False)

    async def release_terminal(self, session_id: str, terminal_id: str, **kwargs: Any) -> ReleaseTerminalResponse:
        self.terminal.append("release")
        proc, _ = self.terms.get(terminal_id)
        if proc.returncode is None:
            proc.kill()
        del self.terms.procs[terminal_id]
        return ReleaseTerminalResponse()

    async def write_text_file(self, *args: Any, **kwargs: Any) -> Any:
        raise RequestError.method_not_found("fs/write_text_file")

    async def kill_terminal(self, *args: Any, **kwargs: Any) -> Any:
        raise RequestError.method_not_found("terminal/kill")

    async def create_elicitation(self, *args: Any, **kwargs: Any) -> Any:
        raise RequestError.method_not_found("elicitation/create")

    async def complete_elicitation(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


def error_of(e: RequestError) -> list[Any]:
    return [e.code, str(e)]


async def bad_params(argv: list[str]) -> list[Any]:
    """A second connection, the SDK's low-level one: initialize, then `session/new` whose
    `cwd` is a number."""

    async def nothing(method: str, params: Any, is_notification: bool) -> Any:
        raise RequestError.method_not_found(method)

    async with spawn_stdio_connection(nothing, argv[0], *argv[1:]) as (conn, _proc):
        await conn.send_request("initialize", {"protocolVersion": PROTOCOL_VERSION})
        try:
            await conn.send_request("session/new", {"cwd": 7, "mcpServers": []})
        except RequestError as e:
            return [e.code]
    return ["answered"]


async def client(argv: list[str]) -> dict[str, Any]:
    seen = ScenarioClient()
    async with spawn_stdio_transport(argv[0], *argv[1:]) as (reader, writer, _proc):
        conn = connect_to_agent(seen, writer, reader)
        seen.on_connect(conn)
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=False), terminal=True
            ),
            client_info=Implementation(name="python-sdk-peer", version=acp.__name__),
        )
        session = await conn.new_session(cwd=os.getcwd(), mcp_servers=[])
        sid = session.session_id
        first = await conn.prompt(session_id=sid, prompt=[text_block("What does the README say?")])
        turn1 = {"stop": first.stop_reason, "updates": seen.updates, "text": seen.text}
        seen.updates, seen.text, seen.cancel_next = [], "", True
        second = await conn.prompt(session_id=sid, prompt=[text_block("Read it again.")])
        turn2 = {"stop": second.stop_reason, "updates": seen.updates}
        errors: dict[str, Any] = {}
        try:
            await conn.prompt(session_id="no-such-session", prompt=[text_block("hi")])
            errors["unknown_session"] = "answered"
        except RequestError as e:
            errors["unknown_session"] = [e.code]
        try:
            await conn.ext_method("agentwire/unknown", {})
            errors["unknown_method"] = "answered"
        except RequestError as e:
            errors["unknown_method"] = [e.code]
        await conn.close()
    errors["invalid_params"] = await bad_params(argv)
    return {
        "initialize": {"protocolVersion": init.protocol_version, "agent": plain(init.agent_info).get("name")},
        "turn1": turn1,
        "turn2": turn2,
        "permissions": seen.permissions,
        "reads": seen.reads,
        "terminal": seen.terminal,
        "errors": errors,
    }


# -- the agent ---------------------------------------------------------------------------------


class ScenarioAgent:
    """An agent on the SDK: one scripted turn per prompt; records what the client answered."""

    def __init__(self) -> None:
        self.conn: Any = None
        self.caps: dict[str, Any] = {}
        self.cancelled: set[str] = set()
        self.turns = 0
        self.seen: dict[str, Any] = {"cancels": 0, "permissions": [], "bad_requests": {}}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **kwargs: Any) -> InitializeResponse:
        self.caps = plain(client_capabilities) or {}
        self.seen["initialize"] = {"protocolVersion": protocol_version, "capabilities": self.caps,
                                   "client": plain(client_info).get("name") if client_info else None}
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(load_session=False),
            agent_info=Implementation(name="python-sdk-agent", version="0"),
            auth_methods=[],
        )

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kwargs: Any) -> NewSessionResponse:
        self.cwd = cwd
        return NewSessionResponse(session_id="sdk-session-1")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.seen["cancels"] += 1
        self.cancelled.add(session_id)

    async def update(self, sid: str, update: dict[str, Any]) -> None:
        await self.conn.session_update(session_id=sid, update=update)

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        if session_id != "sdk-session-1":
            raise RequestError.resource_not_found(session_id)
        self.turns += 1
        self.cancelled.discard(session_id)
        return PromptResponse(stop_reason=await self.turn(session_id, f"call-{self.turns}"))

    async def turn(self, sid: str, call: str) -> str:
        text = lambda t: {"type": "text", "text": t}  # noqa: E731
        await self.update(sid, {"sessionUpdate": "agent_thought_chunk", "content": text("Planning a read.")})
        await self.update(sid, {"sessionUpdate": "agent_message_chunk", "content": text("Reading README.md.")})
        path = os.path.join(self.cwd, "README.md")
        await self.update(sid, {"sessionUpdate": "tool_call", "toolCallId": call, "title": "Read README.md",
                                "kind": "read", "status": "pending", "locations": [{"path": path}]})
        answer = await self.conn.request_permission(
            session_id=sid,
            tool_call=ToolCallUpdate(tool_call_id=call, title="Read README.md"),
            options=[PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
                     PermissionOption(option_id="no", name="Reject", kind="reject_once")],
        )
        outcome = plain(answer.outcome)
        self.seen["permissions"].append(outcome.get("optionId", outcome.get("outcome")))
        if outcome.get("outcome") != "selected" or sid in self.cancelled:
            await self.update(sid, {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "failed"})
            return "cancelled"
        await self.update(sid, {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "in_progress"})
        read = await self.conn.read_text_file(session_id=sid, path=path, line=1, limit=1)
        self.seen["read"] = read.content
        await self.update(sid, {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
                                "content": [{"type": "content", "content": text(read.content)}]})
        term = await self.conn.create_terminal(session_id=sid, command="echo", args=["from", "the", "client"])
        tid = term.terminal_id
        await self.update(sid, {"sessionUpdate": "tool_call", "toolCallId": f"{call}-run", "title": "Run echo",
                                "kind": "execute", "status": "in_progress",
                                "content": [{"type": "terminal", "terminalId": tid}]})
        exit_ = await self.conn.wait_for_terminal_exit(session_id=sid, terminal_id=tid)
        out = await self.conn.terminal_output(session_id=sid, terminal_id=tid)
        await self.conn.release_terminal(session_id=sid, terminal_id=tid)
        self.seen["terminal"] = {"exitCode": exit_.exit_code, "output": out.output}
        await self.update(sid, {"sessionUpdate": "tool_call_update", "toolCallId": f"{call}-run", "status": "completed"})
        await self.bad_requests(sid, tid)
        await self.update(sid, {"sessionUpdate": "agent_message_chunk", "content": text(" Done.")})
        return "end_turn"

    async def bad_requests(self, sid: str, released: str) -> None:
        """Requests the client must refuse, in ACP's error form."""
        bad = self.seen["bad_requests"]
        for name, call in [
            ("relative_path", lambda: self.conn.read_text_file(session_id=sid, path="README.md")),
            ("released_terminal", lambda: self.conn.terminal_output(session_id=sid, terminal_id=released)),
        ]:
            try:
                await call()
                bad[name] = "answered"
            except RequestError as e:
                bad[name] = e.code

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


async def agent(report: str) -> None:
    seen = ScenarioAgent()
    try:
        await run_agent(seen)
    finally:
        with open(report, "w", encoding="utf-8") as f:
            json.dump(seen.seen, f)


def main() -> None:
    if len(sys.argv) >= 3 and sys.argv[1] == "client":
        print(json.dumps(asyncio.run(asyncio.wait_for(client(sys.argv[2:]), LIMIT))))
    elif len(sys.argv) == 3 and sys.argv[1] == "agent":
        asyncio.run(agent(sys.argv[2]))
    else:
        sys.exit("usage: acp_peer.py client AGENT [ARGS...] | agent REPORT")


if __name__ == "__main__":
    main()
