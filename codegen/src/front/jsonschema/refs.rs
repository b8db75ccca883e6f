//! `$ref` targets: every reference of the document is resolved once to a named type, whether
//! it names a definition (`#/$defs/Name`, escaped or not), the root schema (`#`), a schema
//! deeper in the document (`#/$defs/a/properties/b`) or an anchor (`#name`). A reference to
//! another document is left unresolved: the loader reads it as any JSON value, with a note.

use std::collections::BTreeMap;

use super::json::{Json, Node};
use crate::naming::pascal_case;

/// Keywords that make a document's root a schema of its own, beside its definitions.
const ROOT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "$ref",
    "allOf",
    "anyOf",
    "oneOf",
    "enum",
    "const",
    "items",
    "additionalProperties",
    "patternProperties",
    "required",
];

/// Whether the document's root says something of a value (more than holding definitions).
pub(super) fn root_is_schema(root: &Node) -> bool {
    ROOT_KEYWORDS.iter().any(|k| root.get(k).is_some())
}

/// The type name of the root schema: the file's name without `.json` (and `.schema`), in
/// Pascal case (`setuptools.schema.json` -> `Setuptools`), `Root` appended while a
/// definition has it.
pub(super) fn root_name(rel: &str, taken: impl Fn(&str) -> bool) -> String {
    let file = rel.rsplit(['/', '\\']).next().unwrap_or(rel);
    let stem = file.strip_suffix(".json").unwrap_or(file);
    let stem = stem.strip_suffix(".schema").unwrap_or(stem);
    let mut name = pascal_case(stem);
    if name.is_empty() {
        name = "Root".to_owned();
    }
    while taken(&name) {
        name.push_str("Root");
    }
    name
}

/// The schema a local reference `r` points at, `None` when it names another document or
/// nothing here. `id` is the root's `$id` (a reference may repeat it before the `#`).
pub(super) fn locate<'n>(root: &'n Node, id: Option<&str>, r: &str) -> Option<&'n Node> {
    let (base, fragment) = r.split_once('#').unwrap_or((r, ""));
    if !base.is_empty() && Some(base) != id.map(|i| i.trim_end_matches('#')) {
        return None;
    }
    let fragment = percent_decode(fragment);
    if fragment.is_empty() {
        return Some(root);
    }
    match fragment.strip_prefix('/') {
        Some(pointer) => pointer.split('/').try_fold(root, |node, segment| {
            let key = segment.replace("~1", "/").replace("~0", "~");
            match &node.value {
                Json::Object(_) => node.get(&key),
                Json::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            }
        }),
        None => anchor(root, &fragment, 0),
    }
}

/// The schema holding `$anchor: name` (2019-09 on), or `$id`/`id` `#name` (draft-04 to 07),
/// or `$dynamicAnchor: name` (2020-12, which is a plain anchor too): the outermost, as a
/// `$dynamicRef` resolves where no other document extends this one.
fn anchor<'n>(node: &'n Node, name: &str, depth: usize) -> Option<&'n Node> {
    if depth > 64 {
        return None;
    }
    let hash = format!("#{name}");
    let here = node.get("$anchor").and_then(Node::as_str) == Some(name)
        || node.get("$dynamicAnchor").and_then(Node::as_str) == Some(name)
        || [node.get("$id"), node.get("id")]
            .into_iter()
            .flatten()
            .any(|i| i.as_str() == Some(hash.as_str()));
    if here {
        return Some(node);
    }
    let children: Vec<&Node> = match &node.value {
        Json::Object(members) => members.iter().map(|m| &m.value).collect(),
        Json::Array(items) => items.iter().collect(),
        _ => Vec::new(),
    };
    children
        .into_iter()
        .find_map(|c| anchor(c, name, depth + 1))
}

/// A name for a schema a reference reaches inside the document: its pointer's keys in Pascal
/// case, structural ones (`properties`, `$defs`, ...) left out (`#/$defs/a/properties/b` ->
/// `AB`), numbered while `taken`.
pub(super) fn pointer_name(r: &str, taken: impl Fn(&str) -> bool) -> String {
    let fragment = percent_decode(r.split_once('#').map_or("", |(_, f)| f));
    let structural = [
        "properties",
        "$defs",
        "definitions",
        "items",
        "allOf",
        "anyOf",
        "oneOf",
    ];
    let mut name: String = fragment
        .split('/')
        .filter(|s| !structural.contains(s))
        .map(pascal_case)
        .collect();
    if name.is_empty() {
        name = "Ref".to_owned();
    }
    let base = name.clone();
    let mut n = 2;
    while taken(&name) {
        name = format!("{base}{n}");
        n += 1;
    }
    name
}

/// Every `$ref` string in the document (and every `$dynamicRef` and `$recursiveRef`, which
/// resolve statically: `refs::locate`), once each, in file order.
pub(super) fn all_refs(node: &Node, out: &mut Vec<String>, depth: usize) {
    if depth > 256 {
        return;
    }
    match &node.value {
        Json::Object(members) => {
            for m in members {
                if is_reference(&m.key)
                    && let Some(r) = m.value.as_str()
                    && !out.iter().any(|o| o == r)
                {
                    out.push(r.to_owned());
                }
                all_refs(&m.value, out, depth + 1);
            }
        }
        Json::Array(items) => items.iter().for_each(|i| all_refs(i, out, depth + 1)),
        _ => {}
    }
}

/// A keyword whose value names a schema by URI.
pub(super) fn is_reference(key: &str) -> bool {
    matches!(key, "$ref" | "$dynamicRef" | "$recursiveRef")
}

/// `%25` and the like in a URI fragment, decoded (invalid escapes kept as written).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The definitions each resolved reference names, by reference text.
pub(super) type RefNames = BTreeMap<String, String>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_anchors_and_escapes_resolve() {
        let root = super::super::json::parse(
            r##"{"$id": "urn:x", "$defs": {"a/b": {"type": "string"}, "c": {"properties": {"d": {"$anchor": "dee"}}}}}"##,
        )
        .unwrap();
        let id = Some("urn:x");
        assert!(std::ptr::eq(locate(&root, id, "#").unwrap(), &root));
        assert_eq!(
            locate(&root, id, "#/$defs/a~1b").and_then(|n| n.get("type")?.as_str()),
            Some("string")
        );
        assert!(locate(&root, id, "urn:x#/$defs/a%7E1b").is_some());
        assert!(locate(&root, id, "#dee").is_some());
        assert!(locate(&root, id, "other.json#/$defs/c").is_none());
        assert!(locate(&root, id, "#/$defs/missing").is_none());
        assert_eq!(pointer_name("#/$defs/c/properties/d", |_| false), "CD");
        assert_eq!(pointer_name("#/$defs/c/properties/d", |n| n == "CD"), "CD2");
        assert_eq!(
            root_name("config/setuptools.schema.json", |_| false),
            "Setuptools"
        );
        assert_eq!(root_name("schema.json", |n| n == "Schema"), "SchemaRoot");
    }
}
