//! The protocol document's JSON examples the mock answers with before drawing from the
//! schema: each example a block fenced `json` (not `json invalid`) holds, read with the docs
//! drift check's own Markdown reader, filed under every method its section's heading names.
//! A response example is a result of the methods named; a request or notification example
//! gives the params of its own method. Whether an example is sent at all is the protocol
//! decoder's to say (`answer`): one it refuses is never sent.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentwire_codegen::docs::markdown;
use serde_json::Value;

/// The largest document read.
const MAX_DOC: u64 = 16 * 1024 * 1024;

/// The examples of one document, by method, in document order.
#[derive(Debug, Default, Clone)]
pub struct Examples {
    results: BTreeMap<String, Vec<Value>>,
    params: BTreeMap<String, Vec<Value>>,
}

impl Examples {
    /// Reads the examples of `doc` for the methods in `methods`.
    pub fn parse(doc: &str, methods: &[&str]) -> Examples {
        let mut out = Examples::default();
        for block in markdown::blocks(doc) {
            if block.lang != "json" || block.attrs.split_whitespace().any(|a| a == "invalid") {
                continue;
            }
            let Ok(value) = serde_json::from_str::<Value>(&block.text) else {
                continue;
            };
            if let Some(method) = value.get("method").and_then(Value::as_str) {
                if let Some(params) = value.get("params") {
                    let list = out.params.entry(method.to_owned()).or_default();
                    list.push(params.clone());
                }
                continue;
            }
            let Some(result) = value.get("result") else {
                continue;
            };
            for m in methods.iter().filter(|m| named(&block.section, m)) {
                let list = out.results.entry((*m).to_owned()).or_default();
                list.push(result.clone());
            }
        }
        out
    }

    /// The document's results for `method`, in document order.
    pub fn results(&self, method: &str) -> &[Value] {
        self.results.get(method).map_or(&[], Vec::as_slice)
    }

    /// The document's params for `method`, in document order.
    pub fn params(&self, method: &str) -> &[Value] {
        self.params.get(method).map_or(&[], Vec::as_slice)
    }
}

/// Whether a heading names `method` as one of its words (`tools/list and tools/call` names
/// both; `notifications/initialized` does not name `initialize`).
fn named(section: &str, method: &str) -> bool {
    section
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '`' | '(' | ')' | ';'))
        .any(|word| word == method)
}

/// The document of the spec folder `dir` whose module is `module`, by convention: the
/// repository's `docs/protocols/<module>.md` or an `agentwire new` scaffold's
/// `docs/<module>.md`, both beside the `spec/` folder holding `dir`.
pub fn by_convention(dir: &Path, module: &str) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok()?;
    let root = dir.parent()?.parent()?;
    let file = format!("{module}.md");
    [
        root.join("docs/protocols").join(&file),
        root.join("docs").join(&file),
    ]
    .into_iter()
    .find(|p| p.is_file())
}

/// Reads the document at `path`.
pub fn read(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let size = std::fs::metadata(path)
        .map_err(|e| format!("cannot read {shown}: {e}"))?
        .len();
    if size > MAX_DOC {
        return Err(format!("{shown} is over {MAX_DOC} bytes"));
    }
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_go_to_the_methods_their_heading_names_and_invalid_blocks_are_left_out() {
        let doc = "## notifications/initialized\n\n```json\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1}}\n```\n\n\
                   ## a/list and a/get\n\n```json\n{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"b\":2}}\n```\n\n\
                   ```json invalid\n{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"c\":3}}\n```\n\n\
                   ```json\n{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{\"v\":1}}\n```\n";
        let e = Examples::parse(doc, &["initialize", "a/list", "a/get"]);
        assert!(e.results("initialize").is_empty());
        assert_eq!(e.results("a/list"), [serde_json::json!({"b": 2})]);
        assert_eq!(e.results("a/get"), [serde_json::json!({"b": 2})]);
        assert_eq!(e.params("initialize"), [serde_json::json!({"v": 1})]);
    }
}
