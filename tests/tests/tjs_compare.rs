//! agentwire's JSON Schema emitter against `typescript-json-schema` 0.68.0 (npm, pinned and
//! installed by `scripts/install-peers`), run with the flags MCP publishes its `schema.json`
//! with (`--defaultNumberType integer --required --skipLibCheck`): definition by definition,
//! after the normalisation `agentwire_tests::schema_compare::normalise` documents, and with
//! every difference left named with its reason.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use agentwire_tests::peers::{ensure_installed, target_dir};
use agentwire_tests::schema_compare::{compare, ours, theirs};
use serde_json::Value;

const YAML: &str = "protocol: demo
title: Demo
summary: The shapes MCP's schema is made of.
transport: {kind: websocket, framing: json-text}
roles: [client, server]
types: messages.ts
channels:
  - {from: client, to: server, union: ClientMessage}
messages:
  - {kind: ping, from: client, type: Ping}
  - {kind: call, from: client, type: Call}
";

const TS: &str = r#"/** What a client sends. */
export type ClientMessage = Ping | Call;

/** A liveness check. */
export interface Ping {
  type: 'ping';
  id: string;
}

export interface Call {
  type: 'call';
  id: string;
  /**
   * The tool's name.
   * @minLength 1
   */
  name: string;
  /** Arguments, any JSON object. */
  args?: { [key: string]: unknown };
  mode: Mode;
  note: string | null;
  tags?: string[];
  uri?: Uri;
  size?: number;
  progress?: Progress;
}

/** @format uri */
export type Uri = string;

export type Mode = 'fast' | 'slow';

export interface Progress {
  done: boolean;
  total?: number;
}
"#;

/// Definitions that differ, each with why (anything else differing fails the test).
const EXPECTED: &[(&str, &str)] = &[
    (
        "Call",
        // MCP's flags leave `--strictNullChecks` off, so typescript-json-schema drops
        // `| null`; agentwire keeps it (MCP's own schema says `string | null` in no place).
        "/properties/note/anyOf: ours [{\"type\":\"null\"},{\"type\":\"string\"}], theirs absent; \
         /properties/note/type: ours absent, theirs \"string\"; \
         /properties/size/type: ours \"number\", theirs \"integer\"",
    ),
    // `--defaultNumberType integer` makes every TypeScript `number` an integer; agentwire
    // keeps `number` (write `@TJS-type integer` or `integer` where a whole number is meant).
    (
        "Progress",
        "/properties/total/type: ours \"number\", theirs \"integer\"",
    ),
];

fn tjs(file: &Path) -> Value {
    ensure_installed();
    let bin = target_dir().join("peers/tjs/node_modules/.bin/typescript-json-schema");
    let out = Command::new(bin)
        .args([
            "--defaultNumberType",
            "integer",
            "--required",
            "--skipLibCheck",
        ])
        .arg(file)
        .arg("*")
        .output()
        .expect("run typescript-json-schema");
    assert!(
        out.status.success(),
        "typescript-json-schema failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("typescript-json-schema prints JSON")
}

#[test]
fn definitions_equal_typescript_json_schemas_after_normalisation() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("protocol.yaml"), YAML).unwrap();
    std::fs::write(dir.join("messages.ts"), TS).unwrap();
    let g = agentwire_codegen::generate(&dir).unwrap_or_else(|e| {
        panic!(
            "{:?}",
            e.errors.iter().map(|e| e.one_line()).collect::<Vec<_>>()
        )
    });
    let schema = g
        .files
        .iter()
        .find(|f| f.path == "schemas/demo.schema.json")
        .unwrap()
        .render("demo");
    let loaded = agentwire_codegen::front::load::load_spec(&dir).unwrap();
    let inline: BTreeSet<String> = loaded
        .protocol
        .types
        .values()
        .filter(|t| t.inline)
        .map(|t| t.name.clone())
        .collect();
    let ours = ours(&serde_json::from_str(&schema).unwrap(), &inline);
    let theirs = theirs(&tjs(&dir.join("messages.ts")));
    let result = compare(&ours, &theirs);
    assert!(result.only_ours.is_empty(), "{result:#?}");
    assert!(result.only_theirs.is_empty(), "{result:#?}");
    let differ: Vec<(&str, &str)> = result
        .differ
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(differ, EXPECTED, "{result:#?}");
    println!(
        "equal to typescript-json-schema: {} of {} definitions",
        result.equal.len(),
        theirs.len()
    );
}
