// An MCP client written on the official TypeScript SDK's 2.x line (@modelcontextprotocol/client
// 2.4.0): starts the server given on the command line over stdio (or connects to an http://
// URL over Streamable HTTP), negotiates as asked, and runs the flows every MCP server here
// offers (tools, progress, resources, a resource template, prompts, completion, an elicitation
// answered by this client's handler, a cancellation the server sees, bad input), plus the ones
// only `ours` (examples/mcp_server --all-versions) offers: sampling and roots answered by this
// client's handlers, and a resource subscription told of a change (resources/subscribe in the
// legacy era, subscriptions/listen in the modern one). In the modern era the server asks for
// input with input-required results, which the SDK answers through the same handlers.
//
//   node mcp2_client.cjs <auto|legacy|2026-07-28> <modern|legacy> <ours|peer> <command [args...] | URL>
//
// The first argument is the SDK's versionNegotiation mode (a version string pins it); the second
// is the era the connection must land on. Prints one line per check; exits 0 only when all pass.
'use strict';

const { Client } = require('@modelcontextprotocol/client');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
const z = require('zod/v4');

const [negotiation, era, kind, command, ...args] = process.argv.slice(2);
if (!['modern', 'legacy'].includes(era) || !['ours', 'peer'].includes(kind) || !command) {
  console.error('usage: node mcp2_client.cjs <auto|legacy|VERSION> <modern|legacy> <ours|peer> <command> [args...]');
  process.exit(2);
}
const mode = negotiation === 'auto' || negotiation === 'legacy' ? negotiation : { pin: negotiation };

const failures = [];
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

const first = (r) => (r && r.content && r.content[0] ? r.content[0].text : JSON.stringify(r));

async function flows(client) {
  const tools = await client.listTools();
  const names = tools.tools.map((t) => t.name);
  check(['echo', 'add', 'progress', 'fail'].every((n) => names.includes(n)), `tools/list (${names.join(',')})`);
  check(first(await client.callTool({ name: 'echo', arguments: { text: 'hello' } })) === 'hello', 'tools/call echo');
  const fail = await client.callTool({ name: 'fail', arguments: {} });
  check(fail.isError === true, 'a failing tool answers isError');
  const seen = [];
  const done = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: (p) => seen.push(p.progress) });
  check(seen.join(',') === '1,2,3' && first(done) === 'done in 3 steps', `progress 1,2,3 then the result (got ${seen.join(',')}; ${first(done)})`);
  const read = await client.readResource({ uri: 'file:///greeting.txt' });
  check(typeof read.contents[0].text === 'string' && read.contents[0].text.startsWith('Hello'), `resources/read (${read.contents[0].text})`);
  const templates = await client.listResourceTemplates();
  check(templates.resourceTemplates.some((t) => t.uriTemplate === 'greeting://{name}'), 'resources/templates/list');
  const byName = await client.readResource({ uri: 'greeting://Ada' });
  check(/Ada/.test(byName.contents[0].text), `a templated resource (${byName.contents[0].text})`);
  const prompts = await client.listPrompts();
  check(prompts.prompts.some((p) => p.name === 'greet'), 'prompts/list');
  const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  check(prompt.messages[0].content.text === 'Please greet Ada.', `prompts/get (${prompt.messages[0].content.text})`);
  const done2 = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } });
  check(done2.completion.values.includes('Ada'), `completion/complete (${done2.completion.values})`);
}

const ROOT = 'file:///tmp/ts-sdk2-root';

async function within(ms, ready) {
  for (let waited = 0; waited < ms && !ready(); waited += 50) await new Promise((r) => setTimeout(r, 50));
  return ready();
}

async function oursOnly(client) {
  const sampled = first(await client.callTool({ name: 'sample', arguments: { prompt: 'Say hi' } }));
  check(/hi from the TS SDK/.test(sampled), `sampling answered by this client's handler (${sampled})`);
  const root = first(await client.callTool({ name: 'roots', arguments: {} }));
  check(root === ROOT, `roots answered by this client's handler (${root})`);
  const uri = 'greeting://Ada';
  const updated = [];
  client.setNotificationHandler('notifications/resources/updated', (n) => { updated.push(n.params.uri); });
  let sub;
  if (era === 'modern') {
    sub = await client.listen({ resourceSubscriptions: [uri] });
  } else {
    await client.subscribeResource({ uri });
  }
  const told = first(await client.callTool({ name: 'touch', arguments: { uri } }));
  const got = await within(10000, () => updated.includes(uri));
  const honored = sub ? (sub.honoredFilter.resourceSubscriptions || []).join(',') : 'n/a';
  check(got && told === '1 subscriber(s) told' && (!sub || honored === uri),
    `a subscription is told of a change (${told}; honored ${honored}; updated ${updated})`);
  if (sub) await sub.close();
}

async function both(client) {
  const confirmed = await client.callTool({ name: 'confirm', arguments: {} });
  check(first(confirmed) === 'hello Grace', `input-required round trip through the elicitation handler (${first(confirmed)})`);
  const cancel = new AbortController();
  let started;
  const running = new Promise((r) => (started = r));
  const call = client.callTool({ name: 'slow', arguments: {} }, { signal: cancel.signal, onprogress: () => started() });
  await running;
  cancel.abort('no longer wanted');
  check(String(await errorCode(call)) !== 'no error', 'the cancelled call is rejected locally');
  let saw = 'running';
  for (let i = 0; i < 100 && saw === 'running'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    saw = first(await client.callTool({ name: 'was_cancelled', arguments: {} }));
  }
  check(saw === 'yes', `the server saw the call cancelled (${saw})`);
}

async function badInput(client) {
  const unknown = await errorCode(client.request({ method: 'no/such/method', params: {} }, z.object({})));
  // Over Streamable HTTP 2026-07-28 answers an unknown method's -32601 with HTTP 404, which
  // this SDK reports as its own transport error rather than the JSON-RPC code.
  const overHttp = /^https?:[/][/]/.test(command) && era === 'modern';
  check(unknown === -32601 || unknown === -32602 || (overHttp && unknown === 'CLIENT_HTTP_NOT_IMPLEMENTED'),
    `an unknown method is refused (${unknown})`);
  const bad = await errorCode(client.request({ method: 'resources/read', params: {} }));
  check(typeof bad === 'number' && bad < 0, `resources/read without a uri is refused (${bad})`);
  check(first(await client.callTool({ name: 'echo', arguments: { text: 'still here' } })) === 'still here', 'the connection survives bad input');
}

async function main() {
  const client = new Client(
    { name: 'ts-sdk2-client', version: '2.4.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }));
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant', content: { type: 'text', text: 'hi from the TS SDK' }, model: 'ts-sdk2-model',
  }));
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: ROOT, name: 'test root' }] }));
  const transport = /^https?:[/][/]/.test(command)
    ? new StreamableHTTPClientTransport(new URL(command))
    : new StdioClientTransport({ command, args, env: process.env, stderr: 'inherit' });
  await client.connect(transport);
  const landed = client.getProtocolEra();
  check(landed === era, `connected in the ${landed} era (${client.getServerVersion() && client.getServerVersion().name})`);
  await flows(client);
  await both(client);
  if (kind === 'ours') await oursOnly(client);
  await badInput(client);
  await client.close();
}

main()
  .catch((e) => check(false, `unexpected: ${e && e.stack ? e.stack : e}`))
  .finally(() => {
    console.log(failures.length === 0 ? 'all checks passed' : `${failures.length} check(s) failed`);
    process.exit(failures.length === 0 ? 0 : 1);
  });
