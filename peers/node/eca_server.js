// An ECA server written with vscode-jsonrpc, on its own stdin/stdout: answers initialize,
// streams each prompt as chat/contentReceived (with a tool call that waits for approval when
// the prompt mentions "tool"), validates params by hand, and exits on `exit`.
// It also sends one malformed notification per prompt, which a correct client must drop.
'use strict';

const rpc = require('vscode-jsonrpc/node');

const connection = rpc.createMessageConnection(
  new rpc.StreamMessageReader(process.stdin),
  new rpc.StreamMessageWriter(process.stdout),
  { error: (m) => console.error(m), warn: (m) => console.error(m), info: () => {}, log: () => {} },
);

let next = 0;
const waiting = new Map(); // tool call id -> resolve(approved)
let shutDown = false;

const invalidParams = (what) => new rpc.ResponseError(rpc.ErrorCodes.InvalidParams, what);

connection.onRequest('initialize', (params) => {
  if (!params || !Array.isArray(params.workspaceFolders)) throw invalidParams('workspaceFolders must be an array');
  return {
    models: ['node-echo'],
    chatDefaultModel: 'node-echo',
    chatBehaviors: ['agent', 'plan'],
    chatDefaultBehavior: 'agent',
    chatWelcomeMessage: 'vscode-jsonrpc echo server',
  };
});

connection.onNotification('initialized', () => {
  connection.sendNotification('$/showMessage', { type: 'info', message: 'node server ready' });
  connection.sendNotification('tool/serverUpdated', {
    type: 'native', name: 'ECA', status: 'running',
    tools: [{ name: 'list_files', description: 'List files', parameters: {} }],
  });
});

function content(chatId, c) {
  return connection.sendNotification('chat/contentReceived', { chatId, role: 'assistant', content: c });
}

async function stream(chatId, message) {
  // Malformed on purpose: `role` is missing. The client must drop it and carry on.
  await connection.sendNotification('chat/contentReceived', { chatId, content: { type: 'text', text: 'no role' } });
  await content(chatId, { type: 'progress', state: 'running', text: 'Thinking' });
  await content(chatId, { type: 'text', text: `Node heard: ${message}` });
  if (message.includes('tool')) {
    const id = `node-tool-${++next}`;
    const base = { origin: 'native', id, name: 'list_files', manualApproval: true };
    const approved = new Promise((resolve) => waiting.set(id, resolve));
    await content(chatId, { type: 'toolCallPrepare', ...base, argumentsText: '{"path":"."}' });
    await content(chatId, { type: 'toolCallRun', ...base, arguments: { path: '.' } });
    const ok = await approved;
    const done = ok
      ? { type: 'toolCalled', origin: 'native', id, name: 'list_files', arguments: ['.'], error: false,
          outputs: [{ type: 'text', content: 'index.js' }] }
      : { type: 'toolCallRejected', origin: 'native', id, name: 'list_files', arguments: { path: '.' }, reason: 'user' };
    await content(chatId, done);
  }
  await content(chatId, { type: 'progress', state: 'finished', text: 'Done' });
}

connection.onRequest('chat/prompt', (params) => {
  if (shutDown) throw new rpc.ResponseError(rpc.ErrorCodes.InvalidRequest, 'shut down');
  if (!params || typeof params.message !== 'string' || typeof params.requestId !== 'string') {
    throw invalidParams('message and requestId must be strings');
  }
  const chatId = params.chatId || `node-chat-${++next}`;
  setImmediate(() => stream(chatId, params.message).catch((e) => console.error(e)));
  return { chatId, model: params.model || 'node-echo', status: 'success' };
});

function answer(params, approved) {
  const resolve = params && waiting.get(params.toolCallId);
  if (resolve) {
    waiting.delete(params.toolCallId);
    resolve(approved);
  }
}
connection.onNotification('chat/toolCallApprove', (p) => answer(p, true));
connection.onNotification('chat/toolCallReject', (p) => answer(p, false));

connection.onRequest('chat/queryCommands', (params) => {
  if (!params || typeof params.query !== 'string') throw invalidParams('query must be a string');
  return { commands: [{ name: 'echo', description: 'Repeat', type: 'native', arguments: [] }] };
});
connection.onRequest('chat/queryContext', (params) => ({ chatId: params && params.chatId, contexts: [] }));
connection.onRequest('chat/delete', () => ({}));

connection.onRequest('shutdown', () => {
  shutDown = true;
  return null;
});
connection.onNotification('exit', () => process.exit(shutDown ? 0 : 1));

connection.listen();
