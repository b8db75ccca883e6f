// The TypeScript SDK's demo authorization server on its own: `setupAuthServer` from the
// SDK's examples/server/demoInMemoryOAuthProvider.js, as the pinned @modelcontextprotocol/sdk
// installs it. It registers clients dynamically, grants every authorization at once, issues
// opaque tokens for the resource it is told (strict: only that one) and answers token
// introspection (RFC 7662) at /introspect. The SDK's own protected example server uses it the
// same way, on a port of its own; here the resource server is agentwire's
// (tests/tests/interop_mcp_auth.rs).
//
// Usage: node mcp_demo_as.cjs PORT RESOURCE_URL. Prints the authorization server's metadata
// as one JSON line, then the SDK's "listening" line once it listens.
const { setupAuthServer } = require('@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js');

const [port, resource] = process.argv.slice(2);
if (!port || !resource) {
    console.error('usage: node mcp_demo_as.cjs PORT RESOURCE_URL');
    process.exit(2);
}
const metadata = setupAuthServer({
    authServerUrl: new URL(`http://127.0.0.1:${port}`),
    mcpServerUrl: new URL(resource),
    strictResource: true
});
console.log(JSON.stringify(metadata));
// The test ends this process by closing its standard input.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
