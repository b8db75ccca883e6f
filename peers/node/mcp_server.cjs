// An MCP server written with the official TypeScript SDK (@modelcontextprotocol/sdk), for
// agentwire's client (tests/tests/interop_mcp.rs): `stdio`, or `http` (Streamable HTTP at
// http://127.0.0.1:<port>/mcp, printing "LISTENING <port>" once it listens). Its tools exercise
// what a client must do: `echo`; `progress` (reports `steps` steps); `sample`, `elicit` and
// `roots` (ask the client back, on the call's own stream); `slow` (runs until cancelled) and
// `was_cancelled` (whether the last `slow` call saw its cancellation). CommonJS, so that
// NODE_PATH finds the SDK in target/peers/node.
'use strict';

const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { z } = require('zod');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
} = require('@modelcontextprotocol/sdk/types.js');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (t) => ({ content: [{ type: 'text', text: t }] });

// Whether the last `slow` call was aborted by the client's notifications/cancelled.
let lastSlowCancelled = 'no slow call yet';

function newServer() {
  const server = new McpServer({ name: 'ts-sdk-peer', version: '1.0.0' });
  server.registerTool('echo', { description: 'Returns its text.', inputSchema: { text: z.string() } },
    async ({ text: t }) => text(t));
  server.registerTool('progress', { description: 'Reports steps.', inputSchema: { steps: z.number().int() } },
    async ({ steps }, extra) => {
      const token = extra._meta && extra._meta.progressToken;
      for (let i = 1; i <= steps; i++) {
        await sleep(30);
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
          });
        }
      }
      await sleep(30);
      return text(`done in ${steps} steps`);
    });
  server.registerTool('sample', { description: 'Asks the client model.', inputSchema: { prompt: z.string() } },
    async ({ prompt }, extra) => {
      const r = await extra.sendRequest({
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 50 },
      }, CreateMessageResultSchema);
      return text(`${r.model} said: ${r.content.text}`);
    });
  server.registerTool('elicit', { description: 'Asks the user for a name.', inputSchema: {} },
    async (_args, extra) => {
      const r = await extra.sendRequest({
        method: 'elicitation/create',
        params: {
          message: 'Who are you?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' } } },
        },
      }, ElicitResultSchema);
      return text(`${r.action}: ${r.content ? r.content.name : '-'}`);
    });
  server.registerTool('roots', { description: 'Lists the client roots.', inputSchema: {} },
    async (_args, extra) => {
      const r = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
      return text(r.roots.map((root) => root.uri).join(' '));
    });
  server.registerTool('slow', { description: 'Runs until cancelled.', inputSchema: {} },
    async (_args, extra) => {
      lastSlowCancelled = 'running';
      const token = extra._meta && extra._meta.progressToken;
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 0 } });
      }
      const aborted = new Promise((r) => extra.signal.addEventListener('abort', () => r(true)));
      const done = await Promise.race([aborted, sleep(30000).then(() => false)]);
      lastSlowCancelled = done ? 'yes' : 'no';
      return text('slept');
    });
  server.registerTool('was_cancelled', { description: 'Whether the last slow call was cancelled.', inputSchema: {} },
    async () => text(lastSlowCancelled));
  return server;
}

async function stdio() {
  await newServer().connect(new StdioServerTransport());
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

// One transport (and server) per session; a request naming a session goes to it unread, so the
// SDK itself answers whatever the body is.
function httpMode() {
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    try {
      const sid = req.headers['mcp-session-id'];
      if (sid) {
        const known = transports.get(sid);
        if (!known) {
          res.writeHead(404).end();
          return;
        }
        await known.handleRequest(req, res);
        return;
      }
      let body;
      try {
        body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
      } catch (e) {
        res.writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      if (!(body && body.method === 'initialize')) {
        res.writeHead(400).end();
        return;
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await newServer().connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  httpServer.listen(0, '127.0.0.1', () => {
    console.log(`LISTENING ${httpServer.address().port}`);
  });
}

const mode = process.argv[2];
if (mode === 'stdio') {
  stdio();
} else if (mode === 'http') {
  httpMode();
} else {
  console.error('usage: node mcp_server.cjs stdio|http');
  process.exit(2);
}
