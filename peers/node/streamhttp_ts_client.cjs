// The official TypeScript MCP SDK's Streamable HTTP client, against agentwire's server
// (transport/tests/streamable_http_ts.rs). Prints one JSON line of what it observed.
// CommonJS, so that NODE_PATH finds the SDK in target/peers/node.
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ListRootsRequestSchema, ResultSchema } = require('@modelcontextprotocol/sdk/types.js');

async function main() {
    const url = new URL(process.argv[2]);
    const transport = new StreamableHTTPClientTransport(url);
    const client = new Client({ name: 'ts-peer', version: '0' }, { capabilities: { roots: {} } });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] }));
    const seen = {};
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
    try {
        await client.request({ method: 'nope', params: {} }, ResultSchema);
        seen.nope = 'answered';
    } catch (e) {
        seen.nope = e.code;
    }
    await transport.terminateSession();
    seen.after = transport.sessionId === undefined ? 'forgotten' : 'kept';
    await client.close();
    console.log(JSON.stringify(seen));
}

main().catch(e => {
    console.error(e && e.stack ? e.stack : String(e));
    process.exit(1);
});
