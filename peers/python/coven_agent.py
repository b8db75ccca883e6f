"""A coven agent written with grpcio against a gateway under test.

Usage: coven_agent.py PROTO ADDRESS AGENT_ID

First two bad streams, each of which must be refused with the right status code: a heartbeat
before any registration (FAILED_PRECONDITION) and a registration without an agent id
(INVALID_ARGUMENT). Then a proper registration declaring injection and cancellation, after
which it answers every SendMessage with thinking, three text chunks and done, acknowledges
every InjectContext, and closes its half of the stream on Shutdown. Prints one JSON line per
step; exits non-zero on the first surprise.
"""

import json
import queue
import sys
import time

import grpc

from coven_stubs import load

proto, address, agent_id = sys.argv[1], sys.argv[2], sys.argv[3]
pb, pb_grpc = load(proto)


def log(**fields):
    print(json.dumps(fields), flush=True)


def fail(why):
    log(step="fail", why=why)
    sys.exit(1)


def expect_refusal(first, code):
    """Opens a stream whose only message is `first`; the gateway must end it with `code`."""
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.CovenControlStub(channel)
        try:
            for msg in stub.AgentStream(iter([first]), timeout=10):
                fail(f"expected {code.name}, got a message: {msg}")
        except grpc.RpcError as e:
            if e.code() != code:
                fail(f"expected {code.name}, got {e.code().name}: {e.details()}")
            log(step="refused", code=e.code().name, details=e.details())
            return
    fail(f"expected {code.name}, the stream ended with OK")


expect_refusal(pb.AgentMessage(heartbeat=pb.Heartbeat(timestamp_ms=int(time.time() * 1000))),
               grpc.StatusCode.FAILED_PRECONDITION)
expect_refusal(pb.AgentMessage(register=pb.RegisterAgent(agent_id="", name="nameless")),
               grpc.StatusCode.INVALID_ARGUMENT)

outbox = queue.Queue()


def requests():
    while True:
        msg = outbox.get()
        if msg is None:
            return
        yield msg


outbox.put(pb.AgentMessage(register=pb.RegisterAgent(
    agent_id=agent_id,
    name="python-agent",
    capabilities=["chat"],
    metadata=pb.AgentMetadata(hostname="peer", os=sys.platform, backend="direct"),
    protocol_features=["injection", "cancellation"],
)))

with grpc.insecure_channel(address) as channel:
    stub = pb_grpc.CovenControlStub(channel)
    stream = stub.AgentStream(requests(), timeout=30)
    first = True
    for msg in stream:
        kind = msg.WhichOneof("payload")
        if first:
            first = False
            if kind != "welcome":
                fail(f"expected welcome, got {kind}")
            log(step="welcome", agent_id=msg.welcome.agent_id, server_id=msg.welcome.server_id)
            continue
        if kind == "send_message":
            req = msg.send_message
            log(step="send_message", request_id=req.request_id, content=req.content)
            outbox.put(pb.AgentMessage(response=pb.MessageResponse(
                request_id=req.request_id, thinking="reading")))
            for chunk in ["echo: ", req.content, "!"]:
                outbox.put(pb.AgentMessage(response=pb.MessageResponse(
                    request_id=req.request_id, text=chunk)))
            outbox.put(pb.AgentMessage(response=pb.MessageResponse(
                request_id=req.request_id,
                done=pb.Done(full_response=f"echo: {req.content}!"))))
        elif kind == "inject_context":
            inj = msg.inject_context
            log(step="inject_context", injection_id=inj.injection_id, content=inj.content)
            outbox.put(pb.AgentMessage(injection_ack=pb.InjectionAck(
                injection_id=inj.injection_id, accepted=True)))
        elif kind == "shutdown":
            log(step="shutdown", reason=msg.shutdown.reason)
            outbox.put(None)
        else:
            fail(f"unexpected {kind}")
    log(step="closed")
