// An MCP server written on the official TypeScript SDK's 2.x line (@modelcontextprotocol/server
// 2.4.0), serving both eras from one factory: a client that probes with server/discover (or
// names 2026-07-28 in a request's _meta) gets MCP 2026-07-28, one that opens with initialize
// gets 2025-11-25. Over stdio (`serveStdio`), or over Streamable HTTP (`createMcpHandler`,
// mounted on node:http at 127.0.0.1 on a free port, printed as `LISTENING <port>`; the
// endpoint is /mcp).
//
//   node mcp2_server.cjs stdio | http
//
// Tools: echo, add, fail, progress (one report per step), slow (runs until cancelled, after one
// report) and was_cancelled (what the last slow call saw), confirm (asks the client for a form
// through an input-required result, then answers with what the form held). One resource and one
// resource template, one prompt whose argument completes, and logging. Logs go to stderr.
'use strict';

const http = require('node:http');
const { McpServer, ResourceTemplate, completable, inputRequired, acceptedContent, createMcpHandler } = require('@modelcontextprotocol/server');
const { serveStdio } = require('@modelcontextprotocol/server/stdio');
const z = require('zod/v4');

const [mode] = process.argv.slice(2);
if (mode !== 'stdio' && mode !== 'http') {
  console.error('usage: node mcp2_server.cjs stdio | http');
  process.exit(2);
}

// What the last `slow` call saw: "running" until it ends, then "yes" when it was cancelled.
let slowSeen = 'never ran';

const text = (t) => ({ content: [{ type: 'text', text: t }] });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function build({ era } = {}) {
  const server = new McpServer({ name: 'ts-sdk2-peer', version: '2.4.0' }, { capabilities: { logging: {} } });
  server.registerTool('echo', { description: 'Returns its text.', inputSchema: z.object({ text: z.string() }) },
    async ({ text: t }) => text(t));
  server.registerTool('add', { description: 'Adds two numbers.', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => text(String(a + b)));
  server.registerTool('fail', { description: 'Always fails (isError).', inputSchema: z.object({}) },
    async () => ({ ...text('this tool always fails'), isError: true }));
  server.registerTool('era', { description: 'Names the era this request was served in.', inputSchema: z.object({}) },
    async () => text(String(era)));
  server.registerTool('progress', { description: 'Reports progress in `steps` steps.', inputSchema: z.object({ steps: z.number().int() }) },
    async ({ steps }, ctx) => {
      const token = ctx.mcpReq._meta && ctx.mcpReq._meta.progressToken;
      for (let step = 1; step <= steps; step++) {
        await sleep(30);
        if (token !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: steps } });
        }
      }
      await sleep(30);
      return text(`done in ${steps} steps`);
    });
  server.registerTool('slow', { description: 'Runs until cancelled.', inputSchema: z.object({}) },
    async (_args, ctx) => {
      slowSeen = 'running';
      const token = ctx.mcpReq._meta && ctx.mcpReq._meta.progressToken;
      if (token !== undefined) {
        await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 0, message: 'started' } });
      }
      for (let i = 0; i < 600 && !ctx.mcpReq.signal.aborted; i++) await sleep(50);
      slowSeen = ctx.mcpReq.signal.aborted ? 'yes' : 'no';
      return text('slow finished');
    });
  server.registerTool('was_cancelled', { description: 'What the last slow call saw.', inputSchema: z.object({}) },
    async () => text(slowSeen));
  const form = z.object({ name: z.string().default('Ada') });
  server.registerTool('confirm', { description: 'Asks the client for a name, then greets it.', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const got = acceptedContent(ctx.mcpReq.inputResponses, 'who', form);
      if (got === undefined) {
        return inputRequired({ inputRequests: { who: inputRequired.elicit({ message: 'Who is there?', requestedSchema: form }) } });
      }
      return text(`hello ${got.name}`);
    });
  server.registerResource('greeting', 'file:///greeting.txt', { mimeType: 'text/plain' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Hello from the TypeScript SDK.' }] }));
  server.registerResource('greeting for a name', new ResourceTemplate('greeting://{name}', { list: undefined }), { mimeType: 'text/plain' },
    async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `Hello, ${name}.` }] }));
  server.registerPrompt('greet', {
    description: 'Greets someone by name.',
    argsSchema: z.object({ name: completable(z.string(), (v) => ['Ada', 'Alan', 'Grace'].filter((n) => n.startsWith(v))) }),
  }, ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Please greet ${name}.` } }] }));
  return server;
}

// node:http in front of the handler's web-standard fetch: the request's body in, the
// response's status, headers and (streamed, for SSE) body out. A client that closes the
// connection before the answer ends aborts the request's signal, which the handler takes
// for a cancellation (2026-07-28 over HTTP cancels by closing the answer's stream).
function serveHttp() {
  const handler = createMcpHandler(build);
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const gone = new AbortController();
    res.on('close', () => { if (!res.writableFinished) gone.abort(); });
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body, signal: gone.signal });
    try {
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (response.body) for await (const part of response.body) res.write(part);
      res.end();
    } catch (e) {
      console.error('ts-sdk2-peer:', e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  server.listen(0, '127.0.0.1', () => console.log(`LISTENING ${server.address().port}`));
}

if (mode === 'stdio') {
  serveStdio(build);
  console.error('ts-sdk2-peer serving on stdio');
} else {
  serveHttp();
}
