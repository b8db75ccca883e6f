// ACP interop peer on the official TypeScript SDK (@agentclientprotocol/sdk, pinned in
// package.json), through its public API only (the stable v1 entry point).
//
//   node acp_peer.cjs client AGENT [ARGS...]   the SDK's client drives the agent it starts and
//                                              prints what it saw as one JSON object
//   node acp_peer.cjs agent REPORT             an agent on stdio; when its input ends it writes
//                                              what it saw to the file REPORT
//
// The same scenario, and the same report, as peers/python/acp_peer.py (see there): session
// updates in the normal form "kind[ id][ status]".
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const { Readable, Writable } = require('stream');
const { pathToFileURL } = require('url');

const LIMIT_MS = 60000;

function updateLine(u) {
  const parts = [u.sessionUpdate];
  if (u.toolCallId !== undefined) parts.push(u.toolCallId);
  if (u.status !== undefined && u.status !== null) parts.push(u.status);
  else if (u.sessionUpdate === 'tool_call') parts.push('pending'); // the default status
  return parts.join(' ');
}

function codeOf(e) {
  if (e && typeof e.code === 'number') return [e.code];
  throw e;
}

async function loadSdk() {
  // The package is ESM only; its path is resolved through NODE_PATH, then imported.
  return import(pathToFileURL(require.resolve('@agentclientprotocol/sdk')).href);
}

// -- the client -------------------------------------------------------------------------------

function terminals(acp) {
  const procs = new Map();
  let next = 0;
  const get = (id) => {
    const t = procs.get(id);
    if (!t) throw new acp.RequestError(-32002, 'Resource not found', { uri: id });
    return t;
  };
  return {
    create(command, args) {
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d) => { output += d; });
      child.stderr.on('data', (d) => { output += d; });
      const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
      next += 1;
      const id = `term-${next}`;
      procs.set(id, { child, exited, output: () => output });
      return id;
    },
    get,
    release(id) {
      const t = get(id);
      if (t.child.exitCode === null) t.child.kill();
      procs.delete(id);
    },
  };
}

function scenarioClient(acp, seen) {
  const terms = terminals(acp);
  const app = acp.client({ name: 'typescript-sdk-peer' });
  app.onNotification('session/update', ({ params }) => {
    const u = params.update;
    seen.updates.push(updateLine(u));
    if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text') seen.text += u.content.text;
  });
  app.onRequest('session/request_permission', async ({ params, agent }) => {
    const call = params.toolCall.toolCallId;
    if (seen.cancelNext) {
      // The user cancels the turn while asked (prompt-turn, "Cancellation").
      await agent.notify('session/cancel', { sessionId: params.sessionId });
      seen.permissions.push([call, 'cancelled']);
      return { outcome: { outcome: 'cancelled' } };
    }
    const chosen = params.options.find((o) => o.kind.startsWith('allow'));
    seen.permissions.push([call, chosen.optionId]);
    return { outcome: { outcome: 'selected', optionId: chosen.optionId } };
  });
  app.onRequest('fs/read_text_file', ({ params }) => {
    if (!path.isAbsolute(params.path)) throw acp.RequestError.invalidParams({ path: params.path });
    seen.reads.push([path.relative(process.cwd(), params.path), params.line ?? null, params.limit ?? null]);
    const lines = fs.readFileSync(params.path, 'utf8').split(/(?<=\n)/);
    const start = Math.max((params.line ?? 1) - 1, 0);
    const end = params.limit == null ? lines.length : start + params.limit;
    return { content: lines.slice(start, end).join('') };
  });
  app.onRequest('terminal/create', ({ params }) => {
    seen.terminal.push(`create ${params.command}`);
    return { terminalId: terms.create(params.command, params.args ?? []) };
  });
  app.onRequest('terminal/wait_for_exit', async ({ params }) => {
    seen.terminal.push('wait_for_exit');
    const { code, signal } = await terms.get(params.terminalId).exited;
    return { exitCode: code, signal };
  });
  app.onRequest('terminal/output', async ({ params }) => {
    seen.terminal.push('output');
    const t = terms.get(params.terminalId);
    await t.exited;
    return { output: t.output(), truncated: false };
  });
  app.onRequest('terminal/release', ({ params }) => {
    seen.terminal.push('release');
    terms.release(params.terminalId);
    return {};
  });
  return app;
}

function spawnAgent(acp, argv) {
  const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  return { child, stream };
}

async function client(argv) {
  const acp = await loadSdk();
  const seen = { updates: [], text: '', permissions: [], reads: [], terminal: [], cancelNext: false };
  const { child, stream } = spawnAgent(acp, argv);
  const report = await scenarioClient(acp, seen).connectWith(stream, async (agent) => {
    const init = await agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: false }, terminal: true },
      clientInfo: { name: 'typescript-sdk-peer', version: '0' },
    });
    const { sessionId } = await agent.request('session/new', { cwd: process.cwd(), mcpServers: [] });
    const prompt = (text) => agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
    const first = await prompt('What does the README say?');
    const turn1 = { stop: first.stopReason, updates: seen.updates, text: seen.text };
    Object.assign(seen, { updates: [], text: '', cancelNext: true });
    const second = await prompt('Read it again.');
    const turn2 = { stop: second.stopReason, updates: seen.updates };
    const errors = {};
    const attempt = async (name, call) => {
      try { await call(); errors[name] = 'answered'; } catch (e) { errors[name] = codeOf(e); }
    };
    await attempt('unknown_session', () => agent.request('session/prompt',
      { sessionId: 'no-such-session', prompt: [{ type: 'text', text: 'hi' }] }));
    await attempt('unknown_method', () => agent.request('_agentwire/unknown', {}));
    await attempt('invalid_params', () => agent.request('session/new', { cwd: 7, mcpServers: [] }));
    return {
      initialize: { protocolVersion: init.protocolVersion, agent: init.agentInfo?.name ?? null },
      turn1, turn2,
      permissions: seen.permissions, reads: seen.reads, terminal: seen.terminal, errors,
    };
  });
  child.stdin.end();
  return report;
}

// -- the agent --------------------------------------------------------------------------------

async function agent(reportPath) {
  const acp = await loadSdk();
  const seen = { cancels: 0, permissions: [], bad_requests: {} };
  const cancelled = new Set();
  let cwd = '/';
  let turns = 0;
  const app = acp.agent({ name: 'typescript-sdk-agent' });
  app.onRequest('initialize', ({ params }) => {
    seen.initialize = {
      protocolVersion: params.protocolVersion,
      capabilities: params.clientCapabilities ?? {},
      client: params.clientInfo?.name ?? null,
    };
    return {
      protocolVersion: Math.min(params.protocolVersion, acp.PROTOCOL_VERSION),
      agentCapabilities: { loadSession: false },
      agentInfo: { name: 'typescript-sdk-agent', version: '0' },
      authMethods: [],
    };
  });
  app.onRequest('session/new', ({ params }) => {
    cwd = params.cwd;
    return { sessionId: 'sdk-session-1' };
  });
  app.onNotification('session/cancel', ({ params }) => {
    seen.cancels += 1;
    cancelled.add(params.sessionId);
  });
  app.onRequest('session/prompt', async ({ params, client: to }) => {
    const sid = params.sessionId;
    if (sid !== 'sdk-session-1') throw new acp.RequestError(-32002, 'Resource not found', { uri: sid });
    turns += 1;
    cancelled.delete(sid);
    return { stopReason: await turn(to, sid, `call-${turns}`) };
  });

  async function turn(to, sid, call) {
    const update = (u) => to.notify('session/update', { sessionId: sid, update: u });
    const text = (t) => ({ type: 'text', text: t });
    await update({ sessionUpdate: 'agent_thought_chunk', content: text('Planning a read.') });
    await update({ sessionUpdate: 'agent_message_chunk', content: text('Reading README.md.') });
    const file = path.join(cwd, 'README.md');
    await update({ sessionUpdate: 'tool_call', toolCallId: call, title: 'Read README.md', kind: 'read',
                   status: 'pending', locations: [{ path: file }] });
    const answer = await to.request('session/request_permission', {
      sessionId: sid,
      toolCall: { toolCallId: call, title: 'Read README.md' },
      options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' },
                { optionId: 'no', name: 'Reject', kind: 'reject_once' }],
    });
    seen.permissions.push(answer.outcome.optionId ?? answer.outcome.outcome);
    if (answer.outcome.outcome !== 'selected' || cancelled.has(sid)) {
      await update({ sessionUpdate: 'tool_call_update', toolCallId: call, status: 'failed' });
      return 'cancelled';
    }
    await update({ sessionUpdate: 'tool_call_update', toolCallId: call, status: 'in_progress' });
    const read = await to.request('fs/read_text_file', { sessionId: sid, path: file, line: 1, limit: 1 });
    seen.read = read.content;
    await update({ sessionUpdate: 'tool_call_update', toolCallId: call, status: 'completed',
                   content: [{ type: 'content', content: text(read.content) }] });
    const term = await to.createTerminal({ sessionId: sid, command: 'echo', args: ['from', 'the', 'client'] });
    await update({ sessionUpdate: 'tool_call', toolCallId: `${call}-run`, title: 'Run echo', kind: 'execute',
                   status: 'in_progress', content: [{ type: 'terminal', terminalId: term.id }] });
    const exit = await term.waitForExit();
    const out = await term.currentOutput();
    await term.release();
    seen.terminal = { exitCode: exit.exitCode ?? null, output: out.output };
    await update({ sessionUpdate: 'tool_call_update', toolCallId: `${call}-run`, status: 'completed' });
    // Requests the client must refuse, in ACP's error form.
    for (const [name, call2] of [
      ['relative_path', () => to.request('fs/read_text_file', { sessionId: sid, path: 'README.md' })],
      ['released_terminal', () => to.request('terminal/output', { sessionId: sid, terminalId: term.id })],
    ]) {
      try { await call2(); seen.bad_requests[name] = 'answered'; } catch (e) { seen.bad_requests[name] = codeOf(e)[0]; }
    }
    await update({ sessionUpdate: 'agent_message_chunk', content: text(' Done.') });
    return 'end_turn';
  }

  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  const connection = app.connect(stream);
  await connection.closed;
  fs.writeFileSync(reportPath, JSON.stringify(seen));
}

async function main() {
  const [mode, ...rest] = process.argv.slice(2);
  const timer = setTimeout(() => { console.error('acp_peer: over the time limit'); process.exit(3); }, LIMIT_MS);
  if (mode === 'client' && rest.length >= 1) {
    console.log(JSON.stringify(await client(rest)));
  } else if (mode === 'agent' && rest.length === 1) {
    await agent(rest[0]);
  } else {
    console.error('usage: node acp_peer.cjs client AGENT [ARGS...] | agent REPORT');
    process.exit(2);
  }
  clearTimeout(timer);
}

main().catch((e) => { console.error(e); process.exit(1); });
