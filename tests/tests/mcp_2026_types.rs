//! spec/mcp's MCP 2026-07-28 types (`2026-07-28.ts`, the types file of the folder's
//! `2026-07-28` version, written from the revision's published schema) proven against a form derived from a registry package: the zod schemas
//! of MCP's TypeScript SDK v2 (`@modelcontextprotocol/core`, pinned in peers/node), converted
//! to JSON Schema by zod's own `toJSONSchema` (peers/node/mcp_zod_schemas.cjs). Every
//! definition both name is compared by shape (`agentwire_tests::shape_compare`): members,
//! required members, openness and each member's kind. They do not all agree: the SDK's schemas
//! serve 2025-11-25 too and leave much of what 2026-07-28 requires optional, so each
//! disagreement is listed in `DISAGREE` with its reason, and the test fails on any other and
//! on a listed one that has come to agree (docs/protocols/mcp.md quotes the figures).

use std::collections::{BTreeMap, BTreeSet};

use agentwire_codegen::emit::schema::emit_schema;
use agentwire_codegen::front::load::load_spec;
use agentwire_tests::peers::{node, workspace_root};
use agentwire_tests::shape_compare::shape;
use serde_json::Value;

/// The file, in the folder beside `protocol.yaml` (its `versions:` entry names it). It is
/// loaded here on its own, as a types-only spec, so that the comparison sees exactly its
/// definitions.
const TYPES: &str = "2026-07-28.ts";

/// The SDK also admits what 2025-11-25 has and 2026-07-28 dropped: one schema serves both
/// revisions it speaks (tasks, `initialize`, `ping`, `logging/setLevel`, resource subscribe,
/// a request `_meta` on input requests, `elicitationId`, a tool's `execution`).
const BOTH_REVISIONS: &str = "the SDK also admits 2025-11-25's members or alternatives";
/// 2026-07-28 requires what the SDK leaves optional or out: a request's `_meta` (its version
/// and capabilities) and so its params, every result's `resultType`, the caching hints of
/// list and discover results, the request state and input responses of a retried request.
const REQUIRED: &str = "2026-07-28 requires members the SDK leaves optional or out";
/// 2026-07-28's input responses are plain objects, not results: no `_meta`, nothing else.
const NOT_A_RESULT: &str = "2026-07-28 does not make this a Result (closed, no `_meta`)";
/// The SDK leaves out a member 2026-07-28 has (a title, a tool-use reason, content lists).
const SDK_LACKS: &str = "the SDK lacks a member or alternative 2026-07-28 has";

/// Every definition on which the two disagree, with why. The test fails on a disagreement
/// not listed here and on a listed one that agrees now, so the list is exactly the gap
/// between the revision and the SDK's schemas.
const DISAGREE: &[(&str, &[&str])] = &[
    ("CallToolRequestParams", &[REQUIRED, BOTH_REVISIONS]),
    ("CallToolResult", &[REQUIRED]),
    ("CancelledNotificationParams", &[REQUIRED]),
    ("ClientCapabilities", &[BOTH_REVISIONS]),
    ("ClientNotification", &[BOTH_REVISIONS]),
    ("ClientRequest", &[BOTH_REVISIONS, REQUIRED]),
    ("ClientResult", &[BOTH_REVISIONS, REQUIRED]),
    ("CompleteRequestParams", &[REQUIRED]),
    ("CompleteResult", &[REQUIRED]),
    ("CreateMessageRequestParams", &[BOTH_REVISIONS]),
    ("CreateMessageResult", &[NOT_A_RESULT, SDK_LACKS]),
    ("DiscoverRequest", &[REQUIRED]),
    ("DiscoverResult", &[REQUIRED]),
    ("ElicitRequestFormParams", &[BOTH_REVISIONS]),
    ("ElicitRequestParams", &[BOTH_REVISIONS]),
    ("ElicitRequestURLParams", &[BOTH_REVISIONS]),
    ("ElicitResult", &[NOT_A_RESULT]),
    ("EmptyResult", &[REQUIRED]),
    ("GetPromptRequestParams", &[REQUIRED]),
    ("GetPromptResult", &[REQUIRED]),
    ("ListPromptsRequest", &[REQUIRED]),
    ("ListPromptsResult", &[REQUIRED]),
    ("ListResourceTemplatesRequest", &[REQUIRED]),
    ("ListResourceTemplatesResult", &[REQUIRED]),
    ("ListResourcesRequest", &[REQUIRED]),
    ("ListResourcesResult", &[REQUIRED]),
    ("ListRootsResult", &[NOT_A_RESULT]),
    ("ListToolsRequest", &[REQUIRED]),
    ("ListToolsResult", &[REQUIRED]),
    ("PaginatedRequest", &[REQUIRED]),
    ("PaginatedRequestParams", &[REQUIRED]),
    ("PaginatedResult", &[REQUIRED]),
    ("PromptArgument", &[SDK_LACKS]),
    ("PromptReference", &[SDK_LACKS]),
    ("ReadResourceRequestParams", &[REQUIRED]),
    ("ReadResourceResult", &[REQUIRED]),
    ("ResourceRequestParams", &[REQUIRED]),
    ("ServerCapabilities", &[BOTH_REVISIONS]),
    ("ServerNotification", &[BOTH_REVISIONS]),
    ("ServerResult", &[BOTH_REVISIONS, REQUIRED]),
    ("SubscriptionsListenRequestParams", &[REQUIRED]),
    ("SubscriptionsListenResult", &[REQUIRED]),
    ("Tool", &[BOTH_REVISIONS]),
];

/// Our types as the JSON Schema agentwire emits for them: the types file loaded alone, as a
/// types-only spec folder (protocol, title, summary, types).
fn ours() -> Value {
    let tmp = tempfile::tempdir().expect("temp dir");
    // The folder's name is the protocol's.
    let dir = tmp.path().join("mcp");
    std::fs::create_dir(&dir).expect("spec folder");
    std::fs::copy(
        workspace_root().join("spec/mcp").join(TYPES),
        dir.join(TYPES),
    )
    .expect("copy the types file");
    std::fs::write(
        dir.join("protocol.yaml"),
        format!(
            "protocol: mcp\ntitle: MCP 2026-07-28 types\nsummary: types only\ntypes: {TYPES}\n"
        ),
    )
    .expect("write protocol.yaml");
    let loaded = load_spec(&dir).unwrap_or_else(|e| panic!("{TYPES} loads: {e:?}"));
    let mut doc: Value =
        serde_json::from_str(&emit_schema(&loaded.protocol)).expect("our schema is JSON");
    without_envelope(&mut doc);
    doc
}

/// The SDK's schema of a request or notification (`CallToolRequest`) is its method and
/// params only: its protocol layer adds `jsonrpc` and `id` (its `JSONRPCRequest` has them).
/// Ours, as the revision's, extend the JSON-RPC frame; the frame's members are taken out of
/// our message types (not of the `JSONRPC*` frame types) so that the two compare.
fn without_envelope(doc: &mut Value) {
    let Some(defs) = doc.get_mut("$defs").and_then(Value::as_object_mut) else {
        return;
    };
    for (name, def) in defs.iter_mut() {
        let message = name.ends_with("Request") || name.ends_with("Notification");
        if !message || name.starts_with("JSONRPC") {
            continue;
        }
        if let Some(props) = def.get_mut("properties").and_then(Value::as_object_mut) {
            props.remove("jsonrpc");
            props.remove("id");
        }
        if let Some(req) = def.get_mut("required").and_then(Value::as_array_mut) {
            req.retain(|r| r != "jsonrpc" && r != "id");
        }
    }
}

/// The SDK's definitions, each a document of its own (zod writes a reused schema under the
/// definition's own `$defs`).
fn theirs() -> BTreeMap<String, Value> {
    let out = node("mcp_zod_schemas.cjs")
        .output()
        .expect("run peers/node/mcp_zod_schemas.cjs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("zod's output is JSON");
    assert_eq!(
        doc["unconvertible"],
        serde_json::json!({}),
        "zod converts every schema"
    );
    let defs = doc["definitions"].as_object().expect("definitions");
    defs.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// Compares every definition both sides name: (agreeing names, disagreeing names with both
/// shapes).
fn compare(
    ours: &Value,
    theirs: &BTreeMap<String, Value>,
) -> (Vec<String>, BTreeMap<String, String>) {
    let mut agree = Vec::new();
    let mut differ = BTreeMap::new();
    for (name, def) in ours["$defs"].as_object().expect("$defs") {
        let Some(sdk) = theirs.get(name) else {
            continue;
        };
        let (a, b) = (shape(ours, def), shape(sdk, sdk));
        if a == b {
            agree.push(name.clone());
        } else {
            differ.insert(name.clone(), format!("ours   {a}\n  theirs {b}"));
        }
    }
    (agree, differ)
}

#[test]
fn mcp_2026_07_28_types_agree_with_the_typescript_sdk_v2_or_differ_as_listed() {
    let ours = ours();
    let theirs = theirs();
    let (agree, differ) = compare(&ours, &theirs);
    for (name, d) in &differ {
        eprintln!("{name}:\n  {d}");
    }
    eprintln!(
        "{} definitions compared, {} agree, {} differ as listed",
        agree.len() + differ.len(),
        agree.len(),
        differ.len()
    );
    let listed: BTreeSet<&str> = DISAGREE.iter().map(|(n, _)| *n).collect();
    let found: BTreeSet<&str> = differ.keys().map(String::as_str).collect();
    let new: Vec<&&str> = found.difference(&listed).collect();
    let gone: Vec<&&str> = listed.difference(&found).collect();
    assert!(new.is_empty(), "disagreements not in DISAGREE: {new:?}");
    assert!(
        gone.is_empty(),
        "listed in DISAGREE but agreeing now: {gone:?}"
    );
    assert!(DISAGREE.iter().all(|(_, why)| !why.is_empty()));
    // The figures docs/protocols/mcp.md quotes; more agreement is progress, less a regression.
    assert!(agree.len() >= 78, "{} agree", agree.len());
}
