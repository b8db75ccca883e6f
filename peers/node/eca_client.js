// An ECA editor written with vscode-jsonrpc: spawns the server command given on the command
// line, speaks to it over the child's stdio, and runs the protocol's main flows plus broken
// input. Prints one line per finding; exits 0 only when every check passed.
'use strict';

const { spawn } = require('child_process');
const rpc = require('vscode-jsonrpc/node');

const [serverPath, ...serverArgs] = process.argv.slice(2);
if (!serverPath) {
  console.error('usage: node eca_client.js <server command> [args...]');
  process.exit(2);
}

const failures = [];
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

// Errors vscode-jsonrpc logs (an error response with a null id lands here).
const logged = [];
const logger = {
  error: (m) => logged.push(m),
  warn: (m) => logged.push(m),
  info: () => {},
  log: () => {},
};

const child = spawn(serverPath, serverArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(child.stdout),
  new rpc.StreamMessageWriter(child.stdin),
  logger,
);

const contents = [];
const shown = [];
let onContent = () => {};
connection.onNotification('chat/contentReceived', (params) => {
  contents.push(params);
  onContent(params);
});
connection.onNotification('$/showMessage', (params) => shown.push(params));
connection.listen();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(predicate, what) {
  for (let i = 0; i < 200; i++) {
    if (predicate()) return true;
    await sleep(25);
  }
  check(false, `timed out waiting for ${what}`);
  return false;
}

async function expectError(promise, code, what) {
  try {
    await promise;
    check(false, `${what}: expected error ${code}, got a result`);
  } catch (e) {
    check(e instanceof rpc.ResponseError && e.code === code, `${what} -> ${e.code}`);
  }
}

// One prompt that runs a tool call; `approve` decides the user's answer.
async function promptWithTool(chatId, approve) {
  const start = contents.length;
  onContent = (p) => {
    const c = p.content;
    if (c.type === 'toolCallRun' && c.manualApproval) {
      const method = approve ? 'chat/toolCallApprove' : 'chat/toolCallReject';
      connection.sendNotification(method, { chatId: p.chatId, toolCallId: c.id });
    }
  };
  const params = { requestId: `req-${start}`, message: 'please run a tool' };
  if (chatId) params.chatId = chatId;
  const res = await connection.sendRequest('chat/prompt', params);
  check(typeof res.chatId === 'string' && res.status === 'success', `chat/prompt answered (${res.chatId})`);
  const finished = () =>
    contents.slice(start).some((p) => p.content.type === 'progress' && p.content.state === 'finished');
  await until(finished, 'progress finished');
  const mine = contents.slice(start).map((p) => p.content);
  check(mine.every((_, i) => contents[start + i].chatId === res.chatId), 'all content belongs to the chat');
  check(mine[0].type === 'progress' && mine[0].state === 'running', 'stream opens with progress running');
  const last = mine[mine.length - 1];
  check(last.type === 'progress' && last.state === 'finished', 'stream ends with progress finished');
  const types = mine.map((c) => c.type);
  const outcome = approve ? 'toolCalled' : 'toolCallRejected';
  check(
    types.indexOf('toolCallPrepare') < types.indexOf('toolCallRun') && types.indexOf('toolCallRun') < types.indexOf(outcome),
    `tool call goes prepare -> run -> ${outcome}`,
  );
  return res.chatId;
}

async function main() {
  const init = await connection.sendRequest('initialize', {
    processId: process.pid,
    clientInfo: { name: 'vscode-jsonrpc peer', version: '8.2.1' },
    capabilities: { codeAssistant: { chat: true } },
    workspaceFolders: [{ uri: 'file:///tmp/project', name: 'project' }],
  });
  check(Array.isArray(init.models) && init.models.includes(init.chatDefaultModel), 'initialize result has models');
  await connection.sendNotification('initialized', {});
  await until(() => shown.length > 0, '$/showMessage');
  check(shown[0] && shown[0].type === 'info', '$/showMessage after initialized');

  const chatId = await promptWithTool(undefined, true);
  await promptWithTool(chatId, false);

  // Broken input: each is answered and the connection keeps working.
  await expectError(connection.sendRequest('chat/unknownMethod', { x: 1 }), -32601, 'unknown method');
  await expectError(connection.sendRequest('chat/prompt', { requestId: 'bad', message: 42 }), -32602, 'bad params');
  await expectError(connection.sendRequest('chat/queryCommands', { query: 'x', chatId: 7 }), -32602, 'bad optional param');
  const broken = Buffer.from('{"jsonrpc": "2.0", "id": 99, "method":');
  child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${broken.length}\r\n\r\n`), broken]));
  await until(() => logged.some((m) => m.includes('without id') && m.includes('-32700')), 'parse error answer');
  check(logged.some((m) => m.includes('-32700')), 'broken JSON -> -32700 with a null id');

  const commands = await connection.sendRequest('chat/queryCommands', { query: '' });
  check(Array.isArray(commands.commands), 'connection still works after broken input');

  const shutdown = await connection.sendRequest('shutdown');
  check(shutdown === null, 'shutdown answers null');
  // After shutdown the server refuses new requests (its sequence checker, enforce mode).
  await expectError(connection.sendRequest('chat/queryCommands', { query: '' }), -32600, 'request after shutdown');
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  await connection.sendNotification('exit');
  const code = await Promise.race([exited, sleep(5000).then(() => 'still running')]);
  check(code === 0, `server exits after exit (code ${code})`);
}

const guard = setTimeout(() => {
  console.log('FAIL overall timeout');
  child.kill();
  process.exit(3);
}, 30000);

main()
  .catch((e) => check(false, `unexpected error: ${e && e.stack ? e.stack : e}`))
  .finally(() => {
    clearTimeout(guard);
    connection.dispose();
    child.kill();
    console.log(failures.length === 0 ? 'PASS' : `FAILED ${failures.length}`);
    process.exit(failures.length === 0 ? 0 : 1);
  });
