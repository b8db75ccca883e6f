//! MCP 2026-07-28's headers from tool parameters (basic/transports/streamable-http.mdx,
//! "Custom Headers from Tool Parameters"): a tool's `inputSchema` may mark a parameter with
//! `x-mcp-header: Name`, and a client over HTTP then sends that parameter's value in the
//! header `Mcp-Param-Name` of every `tools/call` of the tool. A tool whose marks break the
//! page's constraints is one the client "MUST exclude" from its tool list. The transport
//! encodes the values (`ClientConfig::derived`) and, on a server, holds each call to them
//! (`ServerConfig::expected`: 400 and -32020 for one missing or saying another value); this
//! module reads the marks and says which headers a call carries.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agentwire_transport::streamable_http::DeriveHeaders;
use serde_json::Value;

/// The schema keyword marking a parameter.
const MARK: &str = "x-mcp-header";

/// The header name's prefix ("the header name `Mcp-Param-{name}`").
const PREFIX: &str = "Mcp-Param-";

/// One marked parameter: its path of `properties` keys under the arguments, and its header
/// name after the prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    pub path: Vec<String>,
    pub name: String,
}

/// RFC 9110's `tchar` ("MUST match HTTP field-name token syntax").
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// The marks of `schema` (a tool's `inputSchema`), or why the tool is to be excluded: a mark
/// that is empty or no token, on a parameter that is not a string, integer or boolean, on a
/// property not reached by `properties` keys alone from the root, or naming a header another
/// mark names too (ignoring case).
pub fn marks(schema: &Value) -> Result<Vec<Marked>, String> {
    let mut found = Vec::new();
    reachable(schema, &mut Vec::new(), &mut found)?;
    let everywhere = count_marks(schema);
    if everywhere != found.len() {
        return Err(format!(
            "`{MARK}` on a property not reached by `properties` keys alone"
        ));
    }
    let mut seen: Vec<String> = Vec::new();
    for m in &found {
        let lower = m.name.to_ascii_lowercase();
        if seen.contains(&lower) {
            return Err(format!("`{MARK}: {}` is named twice", m.name));
        }
        seen.push(lower);
    }
    Ok(found)
}

/// The marks on properties reached from `schema` through `properties` keys, checked one by one.
fn reachable(
    schema: &Value,
    path: &mut Vec<String>,
    found: &mut Vec<Marked>,
) -> Result<(), String> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (key, property) in properties {
        path.push(key.clone());
        if let Some(mark) = property.get(MARK) {
            let name = mark
                .as_str()
                .filter(|n| !n.is_empty() && n.chars().all(is_tchar))
                .ok_or_else(|| format!("`{MARK}: {mark}` on `{key}` is no header name"))?;
            let kind = property.get("type").and_then(Value::as_str);
            if !matches!(kind, Some("string" | "integer" | "boolean")) {
                return Err(format!(
                    "`{MARK}` on `{key}`, whose type is not string, integer or boolean"
                ));
            }
            found.push(Marked {
                path: path.clone(),
                name: name.to_owned(),
            });
        }
        reachable(property, path, found)?;
        path.pop();
    }
    Ok(())
}

/// How many times the keyword appears anywhere in `schema`.
fn count_marks(schema: &Value) -> usize {
    match schema {
        Value::Object(map) => {
            usize::from(map.contains_key(MARK)) + map.values().map(count_marks).sum::<usize>()
        }
        Value::Array(items) => items.iter().map(count_marks).sum(),
        _ => 0,
    }
}

/// The marks of each tool the client kept, by tool name; filled as tools are listed and read
/// by the transport for each call.
#[derive(Debug, Clone, Default)]
pub struct ToolHeaders(Arc<Mutex<HashMap<String, Vec<Marked>>>>);

impl ToolHeaders {
    /// Remembers `tool`'s marks.
    pub fn learn(&self, tool: &str, marked: Vec<Marked>) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.insert(tool.to_owned(), marked);
    }

    /// The headers `message` carries: for a `tools/call` of a tool with marks, each marked
    /// argument present and not null.
    pub fn for_message(&self, message: &Value) -> Vec<(String, Value)> {
        if message.get("method").and_then(Value::as_str) != Some("tools/call") {
            return Vec::new();
        }
        let params = message.get("params").unwrap_or(&Value::Null);
        let Some(tool) = params.get("name").and_then(Value::as_str) else {
            return Vec::new();
        };
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some(marked) = map.get(tool) else {
            return Vec::new();
        };
        let arguments = params.get("arguments").unwrap_or(&Value::Null);
        marked
            .iter()
            .filter_map(|m| {
                let mut at = arguments;
                for step in &m.path {
                    at = at.get(step)?;
                }
                (!at.is_null()).then(|| (format!("{PREFIX}{}", m.name), at.clone()))
            })
            .collect()
    }

    /// What the transport asks for each message it sends.
    pub fn deriver(&self) -> DeriveHeaders {
        let me = self.clone();
        DeriveHeaders(Arc::new(move |message| me.for_message(message)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn marks_on_reachable_primitives_are_read_and_others_exclude_the_tool() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {
                "level": {"type": "integer", "x-mcp-header": "Level"}}},
            "query": {"type": "string"}}});
        let found = marks(&schema).unwrap();
        let mut names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, ["Level", "Region"]);
        let level = found.iter().find(|m| m.name == "Level").unwrap();
        assert_eq!(level.path, ["opts", "level"]);
        for (bad, why) in [
            (
                json!({"v": {"type": "string", "x-mcp-header": ""}}),
                "no header name",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "My Region"}}),
                "no header name",
            ),
            (
                json!({"v": {"type": "string", "x-mcp-header": "Région"}}),
                "no header name",
            ),
            (
                json!({"v": {"type": "number", "x-mcp-header": "N"}}),
                "not string",
            ),
            (
                json!({"v": {"type": "null", "x-mcp-header": "N"}}),
                "not string",
            ),
            (
                json!({"a": {"type": "string", "x-mcp-header": "F"},
                       "b": {"type": "string", "x-mcp-header": "f"}}),
                "named twice",
            ),
            (
                json!({"v": {"type": "array", "items": {"type": "string", "x-mcp-header": "I"}}}),
                "not reached",
            ),
        ] {
            let schema = json!({"type": "object", "properties": bad});
            let e = marks(&schema).unwrap_err();
            assert!(e.contains(why), "{schema}: {e}");
        }
    }

    #[test]
    fn a_call_carries_its_tools_marked_arguments_that_are_present() {
        let headers = ToolHeaders::default();
        let schema = json!({"properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"}}});
        headers.learn("t", marks(&schema).unwrap());
        let call = json!({"method": "tools/call", "params": {"name": "t",
            "arguments": {"region": "eu", "verbose": null}}});
        assert_eq!(
            headers.for_message(&call),
            vec![("Mcp-Param-Region".to_owned(), json!("eu"))]
        );
        let other = json!({"method": "tools/call", "params": {"name": "u", "arguments": {}}});
        assert!(headers.for_message(&other).is_empty());
    }
}
