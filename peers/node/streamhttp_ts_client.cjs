// The official TypeScript MCP SDK's Streamable HTTP client, against agentwire's server
// (transport/tests/streamable_http_ts.rs). Prints one JSON line of what it observed.
// CommonJS, so that NODE_PATH finds the SDK in target/peers/node.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ListRootsRequestSchema, LoggingMessageNotificationSchema, ResultSchema } = require('@modelcontextprotocol/sdk/types.js');

async function main() {
    const url = new URL(process.argv[2]);
    const transport = new StreamableHTTPClientTransport(url);
    const client = new Client({ name: 'ts-peer', version: '0' }, { capabilities: { roots: {} } });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] }));
    const seen = {};
    // `broadcast` sends a log message related to no request: it comes on the GET stream.
    let logged;
    const heard = new Promise(resolve => (logged = resolve));
    client.setNotificationHandler(LoggingMessageNotificationSchema, n => logged(n.params.data));
    const errors = [];
    client.onerror = e => errors.push(String(e));
    await client.connect(transport);
    seen.session = transport.sessionId;
    seen.version = client.getServerVersion();
    seen.ping = await client.ping();
    seen.echo = await client.request({ method: 'echo', params: { x: [1, 2] } }, ResultSchema);
    const progress = [];
    seen.slow = await client.request({ method: 'slow', params: {} }, ResultSchema, {
        onprogress: p => progress.push(p.progress),
    });
    seen.progress = progress;
    seen.ask = await client.request({ method: 'ask', params: {} }, ResultSchema);
    seen.broadcast = await client.request({ method: 'broadcast', params: {} }, ResultSchema);
    // An unref'd timer: it must not keep the process alive once the message came.
    seen.logged = await Promise.race([heard, new Promise(r => setTimeout(() => r('timed out'), 10000).unref())]);
    try {
        await client.request({ method: 'nope', params: {} }, ResultSchema);
        seen.nope = 'answered';
    } catch (e) {
        seen.nope = e.code;
    }
    seen.errors = errors;
    await transport.terminateSession();
    seen.after = transport.sessionId === undefined ? 'forgotten' : 'kept';
    await client.close();
    console.log(JSON.stringify(seen));
}

main().catch(e => {
    console.error(e && e.stack ? e.stack : String(e));
    process.exit(1);
});
