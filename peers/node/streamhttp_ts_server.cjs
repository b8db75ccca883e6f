// The official TypeScript MCP SDK's Streamable HTTP server, for agentwire's client
// (transport/tests/streamable_http.rs). One tool, `echo`, which reports progress and asks the
// client for its roots before answering. Prints "LISTENING <port>" once it listens on
// 127.0.0.1. CommonJS, so that NODE_PATH finds the SDK in target/peers/node.
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { z } = require('zod');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { ListRootsResultSchema } = require('@modelcontextprotocol/sdk/types.js');

function newServer() {
    const server = new McpServer({ name: 'ts-peer-server', version: '0' });
    server.registerTool(
        'echo',
        { description: 'echoes text', inputSchema: { text: z.string() } },
        async ({ text }, extra) => {
            const token = extra._meta && extra._meta.progressToken;
            if (token !== undefined) {
                await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } });
            }
            const roots = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
            return { content: [{ type: 'text', text: `${text} (${roots.roots.length} roots)` }] };
        }
    );
    return server;
}

const transports = new Map();

function readBody(req) {
    return new Promise((resolve, reject) => {
        let data = '';
        req.on('data', c => (data += c));
        req.on('end', () => resolve(data));
        req.on('error', reject);
    });
}

const httpServer = http.createServer(async (req, res) => {
    try {
        const sid = req.headers['mcp-session-id'];
        const body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
        let transport = sid ? transports.get(sid) : undefined;
        if (!transport) {
            if (sid || !(body && body.method === 'initialize')) {
                res.writeHead(sid ? 404 : 400).end();
                return;
            }
            transport = new StreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                onsessioninitialized: id => transports.set(id, transport),
            });
            transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
            await newServer().connect(transport);
        }
        await transport.handleRequest(req, res, body);
    } catch (e) {
        if (!res.headersSent) res.writeHead(500).end(String(e));
    }
});

httpServer.listen(0, '127.0.0.1', () => {
    console.log(`LISTENING ${httpServer.address().port}`);
});
