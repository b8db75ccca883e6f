// An A2A client written with the official JavaScript SDK (@a2a-js/sdk: its ClientFactory,
// which reads the Agent Card at the well-known path and picks the interface of the binding
// asked for), for the interop tests of the generated A2A bindings
// (tests/tests/interop_a2a_js.rs).
//
//   node a2a_client.cjs BASE_URL BINDING [WEBHOOK]
//       drives the agent at BASE_URL on BINDING (JSONRPC or HTTP+JSON) and prints one JSON
//       object of what it saw; with WEBHOOK, it registers that URL for push notifications
//       about the waiting task (token `js-token`, `Bearer js-secret`) before canceling it
const { ClientFactory, ClientFactoryOptions } = require("@a2a-js/sdk/client");

const STATES = ["UNSPECIFIED", "SUBMITTED", "WORKING", "COMPLETED", "FAILED", "CANCELED",
  "INPUT_REQUIRED", "REJECTED", "AUTH_REQUIRED"];
const state = (s) => `TASK_STATE_${STATES[s] ?? s}`;

function message(id, text) {
  return {
    tenant: "",
    message: {
      messageId: id, contextId: "", taskId: "", role: 1,
      parts: [{ content: { $case: "text", value: text } }],
      metadata: undefined, extensions: [], referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

// The case of a stream response and, for a task or status update, its state.
function kind(update) {
  const p = update.payload;
  if (!p) return "none";
  if (p.$case === "task") return `task:${state(p.value.status.state)}`;
  if (p.$case === "statusUpdate") return `status_update:${state(p.value.status.state)}`;
  if (p.$case === "artifactUpdate") return "artifact_update";
  return p.$case;
}

// The SDK's error for a call that must fail: its class and message.
async function errorOf(call) {
  try {
    await call();
  } catch (e) {
    return `${e.constructor.name}: ${e.message}`;
  }
  return "no error";
}

// Registers `url` for push notifications about `taskId`; the config as the agent kept it.
async function registerWebhook(client, taskId, url) {
  const created = await client.createTaskPushNotificationConfig({
    tenant: "", id: "", taskId, url, token: "js-token",
    authentication: { scheme: "Bearer", credentials: "js-secret" },
  });
  const listed = await client.listTaskPushNotificationConfig({
    tenant: "", taskId, pageSize: 0, pageToken: "",
  });
  return [created.url, created.id !== "", listed.configs.length];
}

async function main(base, binding, webhook) {
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    preferredTransports: [binding],
  });
  const client = await new ClientFactory(options).createFromUrl(base);
  const out = {};
  const card = await client.getAgentCard();
  out.card = card.name;
  const sent = await client.sendMessage(message("js-1", "hello"));
  const task = sent;
  out.send = [state(task.status.state),
    task.artifacts.flatMap((a) => a.parts.map((p) => p.content.value))];
  out.stream = [];
  for await (const u of client.sendMessageStream(message("js-2", "hi"))) out.stream.push(kind(u));
  // A task that waits: streamed until working, resubscribed, canceled.
  out.wait_stream = [];
  let taskId;
  for await (const u of client.sendMessageStream(message("js-3", "wait for me"))) {
    out.wait_stream.push(kind(u));
    if (u.payload.$case === "task") taskId = u.payload.value.id;
    if (u.payload.$case === "statusUpdate") break;
  }
  out.resubscribed = [];
  const follow = (async () => {
    for await (const u of client.resubscribeTask({ tenant: "", id: taskId })) {
      out.resubscribed.push(kind(u));
    }
  })();
  await new Promise((r) => setTimeout(r, 300));
  if (webhook) out.push = await registerWebhook(client, taskId, webhook);
  const canceled = await client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
  out.cancel = state(canceled.status.state);
  await follow;
  out.cancel_again = await errorOf(() => client.cancelTask({ tenant: "", id: taskId, metadata: undefined }));
  const got = await client.getTask({ tenant: "", id: task.id, historyLength: 0 });
  out.get = [state(got.status.state), got.history.length];
  const listed = await client.listTasks({ tenant: "", contextId: "", status: 0, pageSize: 2,
    pageToken: "", historyLength: undefined, statusTimestampAfter: undefined,
    includeArtifacts: undefined });
  out.list = [listed.tasks.length, listed.totalSize, listed.nextPageToken !== ""];
  out.not_found = await errorOf(() => client.getTask({ tenant: "", id: "no-such-task" }));
  console.log(JSON.stringify(out));
}

main(process.argv[2], process.argv[3], process.argv[4]).catch((e) => {
  console.error(e);
  process.exit(1);
});
