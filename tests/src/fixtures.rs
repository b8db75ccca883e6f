//! The message fixtures under `tests/fixtures/<module>/{valid,invalid}`: loading them in a
//! fixed order, the JSON text each one holds as a message would arrive, and the version of
//! the protocol a fixture is about (`"version": "1"` in a fixture of a protocol with several).

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Every fixture of `module` of one `kind` (`valid` or `invalid`), by path, sorted.
pub fn load(module: &str, kind: &str) -> Vec<(PathBuf, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(module)
        .join(kind);
    let mut out: Vec<(PathBuf, Value)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fixtures in {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let v: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", p.display()));
            (p, v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The text a fixture feeds the decoder: `raw` verbatim (it may not even be JSON), else its
/// `message` or `value` printed compactly; `None` when it has none of the three.
pub fn input_text(fixture: &Value) -> Option<String> {
    match (
        fixture.get("raw"),
        fixture.get("message"),
        fixture.get("value"),
    ) {
        (Some(Value::String(raw)), _, _) => Some(raw.clone()),
        (_, Some(m), _) => Some(m.to_string()),
        (_, _, Some(v)) => Some(v.to_string()),
        _ => None,
    }
}

/// The registry entry a fixture of `p` is decoded with: the version its `version` member
/// names, else `p` itself (a protocol of one version, or the newest of several).
pub fn protocol_of(
    p: &'static dyn agentwire_runtime::registry::Protocol,
    fixture: &Value,
) -> &'static dyn agentwire_runtime::registry::Protocol {
    match fixture.get("version").and_then(Value::as_str) {
        None => p,
        Some(v) => p
            .version(v)
            .unwrap_or_else(|| panic!("{}: the fixture's version `{v}` is not declared", p.name())),
    }
}
