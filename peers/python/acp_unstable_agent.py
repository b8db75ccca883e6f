"""An ACP agent on the official Python SDK (`agent-client-protocol`) with the SDK's own
opt-in to ACP's unstable methods (`use_unstable_protocol=True`), over stdio.

It declares `sessionCapabilities.fork`, creates sessions and forks them: the fork of a
session it created answers with a new session id that names its origin; a fork of a session
it does not know is refused with the SDK's "resource not found" error. Used by
`tests/tests/acp_unstable.rs` to round-trip `session/fork` with agentwire's
`acp::v1_unstable` module. Written for agentwire's tests; nothing here is copied.
"""

from __future__ import annotations

import asyncio
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, run_agent
from acp.schema import (
    AgentCapabilities,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    SessionCapabilities,
    SessionForkCapabilities,
)


class ForkingAgent:
    def __init__(self) -> None:
        self.sessions: list[str] = []

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, client_info: Any = None, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                session_capabilities=SessionCapabilities(fork=SessionForkCapabilities()),
            ),
            agent_info=Implementation(name="python-sdk-unstable-agent", version="0"),
            auth_methods=[],
        )

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kwargs: Any) -> NewSessionResponse:
        sid = f"py-session-{len(self.sessions) + 1}"
        self.sessions.append(sid)
        return NewSessionResponse(session_id=sid)

    async def fork_session(self, session_id: str, cwd: str, **kwargs: Any) -> ForkSessionResponse:
        if session_id not in self.sessions:
            raise RequestError.resource_not_found(session_id)
        sid = f"{session_id}-fork-{len(self.sessions) + 1}"
        self.sessions.append(sid)
        return ForkSessionResponse(session_id=sid)

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> Any:
        raise RequestError.method_not_found("session/prompt")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


def main() -> None:
    asyncio.run(run_agent(ForkingAgent(), use_unstable_protocol=True))


if __name__ == "__main__":
    main()
