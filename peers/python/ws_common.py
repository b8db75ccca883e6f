"""Helpers shared by the WebSocket interop peers (Python `websockets`, asyncio API)."""

import asyncio
import json
import sys

TIMEOUT = 10


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


async def recv_json(ws):
    """Next frame as JSON; fails the run on timeout or a non-JSON frame."""
    try:
        raw = await asyncio.wait_for(ws.recv(), TIMEOUT)
    except asyncio.TimeoutError:
        fail("timed out waiting for a frame")
    check(isinstance(raw, str), f"expected a text frame, got {type(raw).__name__}")
    return json.loads(raw)


async def expect_silence(ws, seconds=0.3):
    """Asserts that the peer sends nothing for a moment (a dropped frame gets no answer)."""
    try:
        raw = await asyncio.wait_for(ws.recv(), seconds)
    except asyncio.TimeoutError:
        return
    fail(f"expected no answer, got {raw!r}")
