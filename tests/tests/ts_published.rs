//! Published TypeScript schemas come in unchanged: the MCP schema as npm
//! `@modelcontextprotocol/sdk` 1.32.2 ships it (`dist/esm/spec.types.d.ts`, installed by
//! `scripts/install-peers` from `peers/node`, never copied into the repository) generates with
//! no refusal, and the generated module, beside the eca-vscode shapes and the code-generator
//! shapes (ts-proto, hey-api, Stainless, quicktype) of `codegen/tests/ts_shapes`, compiles
//! warning-free in a crate of its own. So do, as types-only specs, `@a2a-js/sdk` 1.3.0's protocol
//! types (ts-proto's output for A2A's proto: 48 refusals before the TypeScript front read
//! `declare enum`, `T | undefined` and `Buffer`) and `@vscode/debugprotocol` 1.68.0's
//! `debugProtocol.d.ts` (one refusal before namespaces were read: the whole `DebugProtocol`
//! namespace). Neither package ships a JSON Schema, so no instance is compared with a
//! reference validator here.

use std::path::{Path, PathBuf};

use agentwire_codegen::generate;
use agentwire_tests::peers::{ensure_installed, target_dir};
use agentwire_tests::published::{Module, build_crate};

/// The methods the test protocol names; the types file is the SDK's, unchanged.
const MCP_YAML: &str = "protocol: mcp_draft
title: MCP draft schema
summary: The MCP schema as the TypeScript SDK ships it.
transport: {kind: jsonrpc, framing: content-length}
roles: [client, server]
types: spec.types.d.ts
jsonrpc:
  methods:
    - {method: initialize, call: request, from: client, params: InitializeRequestParams, result: InitializeResult}
    - {method: ping, call: request, from: client, params: RequestParams, result: EmptyResult}
    - {method: tools/call, call: request, from: client, params: CallToolRequestParams, result: CallToolResult}
    - {method: notifications/initialized, call: notification, from: client, params: NotificationParams}
    - {method: sampling/createMessage, call: request, from: server, params: CreateMessageRequestParams, result: CreateMessageResult}
    - {method: notifications/progress, call: notification, from: server, params: ProgressNotificationParams}
";

fn sdk_file(package: &str, path: &str) -> PathBuf {
    ensure_installed();
    let file = target_dir()
        .join("peers/node/node_modules")
        .join(package)
        .join(path);
    assert!(file.is_file(), "{} is not installed", file.display());
    file
}

/// A spec folder in `root` named `module`, holding `yaml` and the types file `types` under
/// the name `types_name`.
fn spec_dir(root: &Path, module: &str, yaml: &str, types: &Path, types_name: &str) -> PathBuf {
    let dir = root.join(module);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), yaml).unwrap();
    std::fs::copy(types, dir.join(types_name)).unwrap();
    dir
}

fn generated(dir: &Path) -> agentwire_codegen::generate::Generated {
    generate(dir).unwrap_or_else(|e| {
        panic!(
            "{} refusals:\n{}",
            e.errors.len(),
            e.errors
                .iter()
                .map(|e| e.one_line())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })
}

/// The files of a generated module as `published::build_crate` writes them.
fn module(g: agentwire_codegen::generate::Generated) -> Module {
    let files = g
        .files
        .iter()
        .map(|f| (f.path.clone(), f.render("a published schema")))
        .collect();
    Module {
        name: g.module,
        files,
    }
}

#[test]
fn the_mcp_sdk_schema_generates_unchanged_and_compiles() {
    let tmp = tempfile::tempdir().unwrap();
    let specs = tmp.path().join("specs");
    let types = sdk_file("@modelcontextprotocol/sdk", "dist/esm/spec.types.d.ts");
    let mcp = generated(&spec_dir(
        &specs,
        "mcp_draft",
        MCP_YAML,
        &types,
        "spec.types.d.ts",
    ));
    // Names the generated module defines itself, or Rust's prelude does, are renamed with a
    // note, the JSON unchanged.
    for (from, to) in [
        ("Result", "ResultType"),
        ("ClientRequest", "ClientRequestType"),
        ("ClientNotification", "ClientNotificationType"),
        ("ServerResult", "ServerResultType"),
    ] {
        assert!(
            mcp.summary.contains(&format!("type `{from}` is ") as &str)
                && mcp
                    .summary
                    .contains(&format!("its Rust type is `{to}`") as &str),
            "{from}: {}",
            mcp.summary
        );
    }
    // Formats the validators do not check are carried into the schema and noted.
    assert!(
        mcp.summary.contains("format `uri-template` is carried"),
        "{}",
        mcp.summary
    );
    let schema = mcp
        .files
        .iter()
        .find(|f| f.path == "schemas/mcp_draft.schema.json")
        .unwrap()
        .render("a published schema");
    assert!(schema.contains("\"uri-template\""));
    let shapes = generated(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/tests/ts_shapes/eca_shapes"),
    );
    let generators = generated(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../codegen/tests/ts_shapes/generator_shapes"),
    );
    build_crate(
        &tmp.path().join("crate"),
        &[module(mcp), module(shapes), module(generators)],
    );
}

/// `@a2a-js/sdk`'s protocol types: ts-proto's output for A2A's proto, bundled into a chunk of
/// the package's `dist` whose name carries a content hash (`a2a-<hash>.d.ts`).
fn a2a_js_types() -> PathBuf {
    let dist = sdk_file("@a2a-js/sdk", "package.json").with_file_name("dist");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("a2a-") && n.ends_with(".d.ts"))
        })
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

/// A types-only spec folder in `root` holding `types` unchanged as `types_name`.
fn types_only(root: &Path, module: &str, types: &Path, types_name: &str) -> PathBuf {
    let yaml = format!(
        "protocol: {module}\ntitle: {module}\nsummary: A published TypeScript schema, unchanged.\ntypes: {types_name}\n"
    );
    spec_dir(root, module, &yaml, types, types_name)
}

#[test]
fn the_a2a_js_sdk_types_and_the_debug_protocol_generate_unchanged_and_compile() {
    let tmp = tempfile::tempdir().unwrap();
    let specs = tmp.path().join("specs");
    let a2a = generated(&types_only(&specs, "a2a_js", &a2a_js_types(), "a2a.d.ts"));
    let dap = generated(&types_only(
        &specs,
        "debug_protocol",
        &sdk_file("@vscode/debugprotocol", "lib/debugProtocol.d.ts"),
        "debugProtocol.d.ts",
    ));
    let types = &a2a.spec.protocol.types;
    // ts-proto's enums (numbered from 0, `UNRECOGNIZED = -1`) and `T | undefined` members.
    assert!(
        types.contains_key("TaskState"),
        "{:?}",
        types.keys().collect::<Vec<_>>()
    );
    // Every interface of the `DebugProtocol` namespace, named by its path.
    let types = &dap.spec.protocol.types;
    for name in [
        "DebugProtocolProtocolMessage",
        "DebugProtocolInitializeRequest",
        "DebugProtocolCapabilities",
    ] {
        assert!(
            types.contains_key(name),
            "{name}: {:?}",
            types.keys().take(20).collect::<Vec<_>>()
        );
    }
    build_crate(&tmp.path().join("crate"), &[module(a2a), module(dap)]);
}
