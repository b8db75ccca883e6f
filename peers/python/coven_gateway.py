"""A coven gateway written with grpcio for an agent under test.

Usage: coven_gateway.py PROTO

Listens on 127.0.0.1 (a free port, printed as the first stdout line `PORT <n>`), accepts one
agent stream and drives it: Welcome; SendMessage r1 immediately followed by SendMessage r2
(the bad input: the agent takes one request at a time, so r2 must be answered with an `error`
event while r1 completes with done); InjectContext, which must be acknowledged; SendMessage
r3 then CancelRequest r3, which must end with `cancelled`; Shutdown, after which the agent
must close the stream. Prints one JSON line per step and a final verdict; exits non-zero when
anything differs.
"""

import json
import sys
import threading
from concurrent import futures

import grpc

from coven_stubs import load

pb, pb_grpc = load(sys.argv[1])
TERMINAL = ("done", "error", "cancelled")
verdict = {"problems": []}
finished = threading.Event()


def log(**fields):
    print(json.dumps(fields), flush=True)


def problem(why):
    verdict["problems"].append(why)
    log(step="problem", why=why)


class Gateway(pb_grpc.CovenControlServicer):
    def AgentStream(self, request_iterator, context):
        try:
            yield from self.drive(request_iterator)
        finally:
            finished.set()

    def drive(self, inbound):
        def next_msg():
            """The next agent message that is not a heartbeat, or None at end of stream."""
            for msg in inbound:
                if msg.WhichOneof("payload") != "heartbeat":
                    return msg
            return None

        first = next_msg()
        if first is None or first.WhichOneof("payload") != "register":
            problem(f"first message is not register: {first}")
            return
        reg = first.register
        log(step="register", agent_id=reg.agent_id, features=list(reg.protocol_features))
        features = set(reg.protocol_features)
        yield pb.ServerMessage(welcome=pb.Welcome(
            server_id="python-gateway", agent_id=reg.agent_id, instance_id="py1"))

        yield pb.ServerMessage(send_message=pb.SendMessage(
            request_id="r1", thread_id="t1", sender="tester", content="hello"))
        yield pb.ServerMessage(send_message=pb.SendMessage(
            request_id="r2", thread_id="t1", sender="tester", content="too soon"))
        events = {"r1": [], "r2": []}
        while not (events["r1"] and events["r1"][-1] in TERMINAL
                   and events["r2"] and events["r2"][-1] in TERMINAL):
            msg = next_msg()
            if msg is None or msg.WhichOneof("payload") != "response":
                problem(f"expected responses to r1 and r2, got {msg}")
                return
            r = msg.response
            kind = r.WhichOneof("event")
            if r.request_id not in events:
                problem(f"response for unknown request {r.request_id}")
                return
            events[r.request_id].append(kind)
            if kind == "text":
                log(step="text", request_id=r.request_id, text=r.text)
            if kind == "error":
                log(step="error", request_id=r.request_id, error=r.error)
        log(step="answers", r1=events["r1"], r2=events["r2"])
        if events["r1"][-1] != "done" or "text" not in events["r1"]:
            problem(f"r1 should stream text and end with done: {events['r1']}")
        if events["r2"] != ["error"]:
            problem(f"r2 should be refused with one error event: {events['r2']}")

        if "injection" in features:
            yield pb.ServerMessage(inject_context=pb.InjectContext(
                injection_id="i1", content="the build is green",
                priority=pb.INJECTION_PRIORITY_NORMAL, source="system"))
            msg = next_msg()
            if msg is None or msg.WhichOneof("payload") != "injection_ack" \
                    or msg.injection_ack.injection_id != "i1":
                problem(f"expected injection_ack i1, got {msg}")
                return
            log(step="injection_ack", accepted=msg.injection_ack.accepted)

        if "cancellation" in features:
            yield pb.ServerMessage(send_message=pb.SendMessage(
                request_id="r3", thread_id="t1", sender="tester", content="wait for cancel"))
            yield pb.ServerMessage(cancel_request=pb.CancelRequest(
                request_id="r3", reason="user_requested"))
            r3 = []
            while not r3 or r3[-1] not in TERMINAL:
                msg = next_msg()
                if msg is None or msg.WhichOneof("payload") != "response":
                    problem(f"expected responses to r3, got {msg}")
                    return
                r3.append(msg.response.WhichOneof("event"))
                if r3[-1] == "cancelled":
                    log(step="cancelled", reason=msg.response.cancelled.reason)
            if r3[-1] != "cancelled":
                problem(f"r3 should end with cancelled: {r3}")

        yield pb.ServerMessage(shutdown=pb.Shutdown(reason="test over"))
        rest = next_msg()
        if rest is not None:
            problem(f"expected the agent to close after shutdown, got {rest}")
        log(step="agent_closed")


server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
pb_grpc.add_CovenControlServicer_to_server(Gateway(), server)
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print(f"PORT {port}", flush=True)
if not finished.wait(timeout=60):
    problem("no agent stream finished within 60 s")
server.stop(grace=1).wait()
log(step="verdict", ok=not verdict["problems"], problems=verdict["problems"])
sys.exit(1 if verdict["problems"] else 0)
