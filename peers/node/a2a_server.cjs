// An A2A agent written with the official JavaScript SDK (@a2a-js/sdk: its DefaultRequestHandler
// over an in-memory task store, mounted with its Express JSON-RPC, HTTP+JSON and Agent Card
// handlers), for the interop tests of agentwire's generated A2A client
// (tests/tests/interop_a2a_js.rs).
//
//   node a2a_server.cjs   serves the echo agent on a free loopback port (JSON-RPC at /rpc,
//                         HTTP+JSON under /rest, the card at its well-known path), prints
//                         `listening PORT`, and stops when standard input ends
//
// The agent answers a message with a task whose artifact echoes its text; a text starting
// with `wait` keeps the task working until it is canceled. Push notifications are declared
// unsupported, so the config rpcs are refused.
const express = require("express");
const { AgentCard, TaskState } = require("@a2a-js/sdk");
const {
  AgentEvent, DefaultRequestHandler, InMemoryTaskStore,
} = require("@a2a-js/sdk/server");
const {
  agentCardHandler, jsonRpcHandler, restHandler, UserBuilder,
} = require("@a2a-js/sdk/server/express");

const now = () => new Date().toISOString();

// The echo agent: every turn opens with the task, then working, then the echo and completed.
class Echo {
  constructor() {
    // Tasks waiting to be canceled: task id -> the function that ends the wait.
    this.waiting = new Map();
  }

  status(ctx, state) {
    return AgentEvent.statusUpdate({
      taskId: ctx.taskId, contextId: ctx.contextId,
      status: { state, timestamp: now(), message: undefined }, metadata: undefined,
    });
  }

  async execute(ctx, bus) {
    const text = ctx.userMessage.parts
      .filter((p) => p.content && p.content.$case === "text")
      .map((p) => p.content.value).join("\n");
    bus.publish(AgentEvent.task(ctx.task ?? {
      id: ctx.taskId, contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined },
      artifacts: [], history: [ctx.userMessage], metadata: undefined,
    }));
    bus.publish(this.status(ctx, TaskState.TASK_STATE_WORKING));
    if (text.startsWith("wait")) {
      await new Promise((resolve) => this.waiting.set(ctx.taskId, resolve));
      this.waiting.delete(ctx.taskId);
      bus.publish(this.status(ctx, TaskState.TASK_STATE_CANCELED));
      return;
    }
    bus.publish(AgentEvent.artifactUpdate({
      taskId: ctx.taskId, contextId: ctx.contextId,
      artifact: {
        artifactId: "echo", name: "echo", description: "", extensions: [], metadata: undefined,
        parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "",
          mediaType: "text/plain" }],
      },
      append: false, lastChunk: true, metadata: undefined,
    }));
    bus.publish(this.status(ctx, TaskState.TASK_STATE_COMPLETED));
  }

  async cancelTask(taskId) {
    const resume = this.waiting.get(taskId);
    if (resume) resume();
  }
}

function card(port) {
  const base = `http://127.0.0.1:${port}`;
  const iface = (url, binding) => ({ url, protocolBinding: binding, protocolVersion: "1.0" });
  return AgentCard.fromJSON({
    name: "a2a-js echo agent",
    description: "Echoes the text.",
    version: "1.0.0",
    supportedInterfaces: [iface(`${base}/rpc`, "JSONRPC"), iface(`${base}/rest`, "HTTP+JSON")],
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes.", tags: ["echo"] }],
  });
}

const app = express();
const server = app.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  const handler = new DefaultRequestHandler(card(port), new InMemoryTaskStore(), new Echo());
  const auth = { requestHandler: handler, userBuilder: UserBuilder.noAuthentication };
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use("/rpc", jsonRpcHandler(auth));
  app.use("/rest", restHandler(auth));
  console.log(`listening ${port}`);
});
// Standard input's end is the stop signal: the test holds it open while it runs.
process.stdin.on("end", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
process.stdin.resume();
