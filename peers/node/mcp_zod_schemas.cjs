// Prints the MCP TypeScript SDK v2's zod schemas (`@modelcontextprotocol/core`) as JSON
// Schema, converted by zod's own `toJSONSchema`: one object, each exported `<Name>Schema`
// under `<Name>`. A schema zod cannot convert is listed under `unconvertible` with zod's
// reason rather than guessed at. tests/tests/mcp_2026_types.rs compares the result with
// spec/mcp's 2026-07-28 types.
const core = require("@modelcontextprotocol/core");
const z = require("zod");

const definitions = {};
const unconvertible = {};
for (const [name, value] of Object.entries(core)) {
  if (!name.endsWith("Schema") || !value || typeof value !== "object" || !("_zod" in value)) {
    continue;
  }
  const short = name.slice(0, -"Schema".length);
  try {
    // `io: "input"`: the form a sender writes (a field with a default stays optional).
    definitions[short] = z.toJSONSchema(value, { io: "input", unrepresentable: "throw" });
  } catch (e) {
    unconvertible[short] = String(e && e.message ? e.message : e);
  }
}
process.stdout.write(JSON.stringify({ definitions, unconvertible }));
