// An MCP client written with the official TypeScript SDK (@modelcontextprotocol/sdk): connects to
// the server given on the command line (`stdio <command> [args...]` or `http <url>`), runs the
// main flows (tools, progress, sampling back to this client, resources, prompts) and broken
// input (unknown method, bad params, a huge message, a request before initialize), checking
// that the session survives each. Prints one line per check; exits 0 only when all passed.
'use strict';

const { spawn } = require('child_process');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  EmptyResultSchema,
} = require('@modelcontextprotocol/sdk/types.js');

const [mode, target, ...rest] = process.argv.slice(2);
if (!['stdio', 'http'].includes(mode) || !target) {
  console.error('usage: node mcp_client.js stdio <server command> [args...] | http <url>');
  process.exit(2);
}

const failures = [];
const sdkErrors = [];
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

async function errorCode(promise) {
  try {
    await promise;
    return 'no error';
  } catch (e) {
    return e && e.code !== undefined ? e.code : String(e);
  }
}

function transport() {
  if (mode === 'stdio') {
    return new StdioClientTransport({ command: target, args: rest, stderr: 'inherit' });
  }
  return new StreamableHTTPClientTransport(new URL(target));
}

async function flows(client) {
  const info = client.getServerVersion();
  check(info && info.name === 'agentwire-mcp-example', `serverInfo.name is ${info && info.name}`);
  const tools = await client.listTools();
  check(tools.tools.some((t) => t.name === 'echo'), 'tools/list names echo');
  const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  check(echo.content[0].text === 'hello', 'tools/call echo answers hello');
  const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  check(add.content[0].text === '5', `tools/call add answers ${add.content[0].text}`);
  const fail = await client.callTool({ name: 'fail', arguments: {} });
  check(fail.isError === true, 'a failing tool answers isError');
  const progress = [];
  const done = await client.callTool(
    { name: 'progress', arguments: { steps: 3 } },
    CallToolResultSchema,
    { onprogress: (p) => progress.push(p.progress) },
  );
  check(progress.join(',') === '1,2,3', `progress notifications 1,2,3 (got ${progress.join(',')})`);
  check(done.content[0].text === 'done in 3 steps', 'the progress call finishes');
  const sampled = await client.callTool({ name: 'sample', arguments: { prompt: 'Say hi' } });
  check(sampled.content[0].text === 'node-model said: hi from node', `sampling round trip: ${sampled.content[0].text}`);
  const res = await client.readResource({ uri: 'file:///greeting.txt' });
  check(res.contents[0].text === 'Hello from agentwire.', 'resources/read');
  const templates = await client.listResourceTemplates();
  check(templates.resourceTemplates.length === 1, 'resources/templates/list');
  const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  check(prompt.messages[0].content.text === 'Please greet Ada.', `prompts/get: ${prompt.messages[0].content.text}`);
  await client.setLoggingLevel('warning');
  check(true, 'logging/setLevel');
}

async function badInput(client, tx) {
  check(await errorCode(client.request({ method: 'no/such/method', params: {} }, EmptyResultSchema)) === -32601,
    'an unknown method is answered with -32601');
  check(await errorCode(client.request({ method: 'tools/call', params: { arguments: {} } }, CallToolResultSchema)) === -32602,
    'tools/call without a name is answered with -32602');
  // 17 MiB of arguments: above the server's 16 MiB frame limit.
  const huge = { jsonrpc: '2.0', id: 'huge', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(17 * 1024 * 1024) } } };
  const before = sdkErrors.length;
  const sent = await tx.send(huge).then(() => 'sent', (e) => String(e));
  await new Promise((r) => setTimeout(r, 300));
  if (mode === 'stdio') {
    // The line is too long to read an id from, so the answer is an error with `id: null`
    // (JSON-RPC's rule), which the SDK cannot match to a request and reports.
    check(sdkErrors.length === before + 1,
      'a huge message is answered with an error whose id is null');
  } else {
    // The server answers 413 from the first bytes and closes the connection; a client still
    // writing the 17 MiB may see that as a reset ("fetch failed") before it reads the 413.
    // Either way the message was refused, and the ping below shows the session survived.
    check(/413|body over|fetch failed/.test(sent), `a huge message is refused by the transport (${sent.slice(0, 120)})`);
  }
  await client.ping();
  check(true, 'the session survives bad input (ping answered)');
}

// A request before initialize, on a connection of its own.
async function beforeInitialize() {
  if (mode === 'http') {
    const r = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    check(r.status === 400, `a request before initialize is refused (HTTP ${r.status})`);
    return;
  }
  const child = spawn(target, rest, { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  let buf = '';
  const waiters = [];
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buf.slice(0, i)));
      buf = buf.slice(i + 1);
      while (waiters.length && lines.length) waiters.shift()(lines.shift());
    }
  });
  const next = () => new Promise((r) => (lines.length ? r(lines.shift()) : waiters.push(r)));
  child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n');
  const refused = await next();
  check(refused.id === 1 && refused.error && refused.error.code === -32600,
    `a request before initialize is answered with -32600 (${JSON.stringify(refused.error)})`);
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) + '\n');
  const init = await next();
  check(init.id === 2 && init.result && init.result.protocolVersion === '2025-11-25', 'initialize still works after it');
  child.kill();
}

async function main() {
  const client = new Client({ name: 'node-sdk-client', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'hi from node' },
    model: 'node-model',
  }));
  // The SDK reports here what it cannot place (a response or progress for no request, a
  // message its schema refuses); only the huge message's answer may land here.
  client.onerror = (e) => sdkErrors.push(String(e && e.message).slice(0, 200));
  const tx = transport();
  await client.connect(tx);
  check(true, `connected over ${mode}`);
  await flows(client);
  await badInput(client, tx);
  await beforeInitialize();
  check(sdkErrors.length <= 1, `no other message the SDK could not place (${JSON.stringify(sdkErrors.slice(1))})`);
  await client.close();
}

main()
  .catch((e) => check(false, `unexpected: ${e && e.stack ? e.stack : e}`))
  .finally(() => {
    console.log(failures.length === 0 ? 'all checks passed' : `${failures.length} check(s) failed`);
    process.exit(failures.length === 0 ? 0 : 1);
  });
