"""A2A peers written with the official Python SDK (a2a-sdk, its gRPC transport), for the
interop tests of the generated A2A gRPC skeleton (tests/tests/interop_a2a.rs).

  a2a_peer.py client HOST:PORT   drives an A2A gRPC server with the SDK's client transport
                                 and prints one JSON object of what it saw
  a2a_peer.py server             serves an echo agent with the SDK's server (GrpcHandler over
                                 DefaultRequestHandler), prints `listening PORT`, and stops
                                 when standard input ends

The echo agent answers a message with a task whose artifact echoes its text; a text starting
with `wait` keeps the task working until it is canceled.
"""

import asyncio
import json
import sys

import grpc

from a2a.client.transports.grpc import GrpcTransport
from a2a.helpers.proto_helpers import new_task, new_text_part
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import a2a_pb2 as pb
from a2a.types import a2a_pb2_grpc

STATE = pb.TaskState.Name


def message(mid, text, task_id=""):
    return pb.SendMessageRequest(
        message=pb.Message(
            message_id=mid,
            role=pb.ROLE_USER,
            task_id=task_id,
            parts=[pb.Part(text=text)],
        )
    )


def kind(update):
    """The StreamResponse case and, for a task or status update, its state."""
    case = update.WhichOneof("payload")
    if case == "task":
        return f"task:{STATE(update.task.status.state)}"
    if case == "status_update":
        return f"status_update:{STATE(update.status_update.status.state)}"
    return case


async def error_of(call):
    """The SDK's exception for a call that must fail: its class and message."""
    try:
        await call
    except Exception as e:  # the SDK maps statuses to its own exception classes
        return f"{type(e).__name__}: {e}"
    return "no error"


async def raw_status(channel, method, request, metadata):
    """A call through the bare generated stub, returning the gRPC status it ended with."""
    stub = a2a_pb2_grpc.A2AServiceStub(channel)
    try:
        await getattr(stub, method)(request, metadata=metadata, timeout=10)
    except grpc.aio.AioRpcError as e:
        return [e.code().name, e.details()]
    return ["OK", ""]


async def waiting_task(t, out):
    """A task that waits: streamed until working, resubscribed, canceled."""
    stream = t.send_message_streaming(message("p-3", "wait for me"))
    task_id = None
    opened = []
    async for update in stream:
        opened.append(kind(update))
        if update.HasField("task"):
            task_id = update.task.id
        if update.HasField("status_update"):
            break
    await stream.aclose()
    out["wait_stream"] = opened
    resubscribed = []

    async def follow():
        async for update in t.subscribe(pb.SubscribeToTaskRequest(id=task_id)):
            resubscribed.append(kind(update))

    follower = asyncio.create_task(follow())
    await asyncio.sleep(0.3)
    canceled = await t.cancel_task(pb.CancelTaskRequest(id=task_id))
    out["cancel"] = STATE(canceled.status.state)
    await asyncio.wait_for(follower, 10)
    out["resubscribed"] = resubscribed
    out["subscribe_ended"] = await error_of(
        t.subscribe(pb.SubscribeToTaskRequest(id=task_id)).__anext__()
    )
    out["cancel_again"] = await error_of(t.cancel_task(pb.CancelTaskRequest(id=task_id)))
    return task_id


async def push_configs(t, task_id, out):
    created = await t.create_task_push_notification_config(
        pb.TaskPushNotificationConfig(task_id=task_id, url="https://client.example/hook", token="tok")
    )
    got = await t.get_task_push_notification_config(
        pb.GetTaskPushNotificationConfigRequest(task_id=task_id, id=created.id)
    )
    listed = await t.list_task_push_notification_configs(
        pb.ListTaskPushNotificationConfigsRequest(task_id=task_id)
    )
    await t.delete_task_push_notification_config(
        pb.DeleteTaskPushNotificationConfigRequest(task_id=task_id, id=created.id)
    )
    after = await t.list_task_push_notification_configs(
        pb.ListTaskPushNotificationConfigsRequest(task_id=task_id)
    )
    out["push"] = [got.url, len(listed.configs), len(after.configs)]


async def client(target):
    channel = grpc.aio.insecure_channel(target)
    t = GrpcTransport(channel, None)
    out = {}
    card = await t.get_extended_agent_card(pb.GetExtendedAgentCardRequest())
    out["card"] = card.name
    sent = await t.send_message(message("p-1", "hello"))
    task = sent.task
    out["send"] = [STATE(task.status.state), [p.text for a in task.artifacts for p in a.parts]]
    out["stream"] = [kind(u) async for u in t.send_message_streaming(message("p-2", "hi"))]
    task_id = await waiting_task(t, out)
    got = await t.get_task(pb.GetTaskRequest(id=task.id, history_length=0))
    out["get"] = [STATE(got.status.state), len(got.history)]
    listed = await t.list_tasks(pb.ListTasksRequest(page_size=2))
    out["list"] = [len(listed.tasks), listed.total_size, listed.next_page_token != ""]
    await push_configs(t, task_id, out)
    out["not_found"] = await error_of(t.get_task(pb.GetTaskRequest(id="no-such-task")))
    bad = pb.SendMessageRequest(message=pb.Message(message_id="p-9", role=99, parts=[pb.Part(text="x")]))
    out["bad_enum"] = await raw_status(channel, "SendMessage", bad, [("a2a-version", "1.0")])
    out["no_version"] = await raw_status(channel, "GetTask", pb.GetTaskRequest(id=task.id), [])
    await t.close()
    print(json.dumps(out), flush=True)


class Echo(AgentExecutor):
    """Echoes the text as an artifact; `wait` waits until canceled."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        text = context.get_user_input()
        if context.current_task is None:
            await event_queue.enqueue_event(
                new_task(context.task_id, context.context_id, pb.TASK_STATE_SUBMITTED, history=[context.message])
            )
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.start_work()
        if text.startswith("wait"):
            await asyncio.Event().wait()  # until the framework cancels this coroutine
        await updater.add_artifact([new_text_part(text)], name="echo", last_chunk=True)
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        await TaskUpdater(event_queue, context.task_id, context.context_id).cancel()


async def server():
    card = pb.AgentCard(
        name="a2a-sdk echo agent",
        description="Echoes the text.",
        version="1.0.0",
        capabilities=pb.AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[pb.AgentSkill(id="echo", name="Echo", description="Echoes.", tags=["echo"])],
    )
    handler = DefaultRequestHandler(Echo(), InMemoryTaskStore(), card)
    srv = grpc.aio.server()
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), srv)
    port = srv.add_insecure_port("127.0.0.1:0")
    await srv.start()
    print(f"listening {port}", flush=True)
    # Standard input's end is the stop signal: the test holds it open while it runs.
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    await srv.stop(1)


if __name__ == "__main__":
    if sys.argv[1:2] == ["client"]:
        asyncio.run(client(sys.argv[2]))
    elif sys.argv[1:2] == ["server"]:
        asyncio.run(server())
    else:
        sys.exit("usage: a2a_peer.py client HOST:PORT | server")
