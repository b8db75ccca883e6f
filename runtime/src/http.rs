//! Helpers for generated HTTP exchange decoders: route path matching and raw text bodies.

use serde_json::Value;

use crate::error::{FieldError, Invalid, Rule};

/// Matches `path` against a route template. `:name` segments capture one segment; a template
/// that is a configured URL placeholder (`{external.inputUrl}`) matches any path. A full URL
/// or a query string in `path` is reduced to its path first.
pub fn match_path<'p>(template: &str, path: &'p str) -> Option<Vec<(String, &'p str)>> {
    if template.starts_with('{') && template.ends_with('}') {
        return Some(Vec::new());
    }
    let path = strip_origin(path);
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let mut t = template.trim_end_matches('/').split('/');
    let mut p = path.trim_end_matches('/').split('/');
    let mut params = Vec::new();
    loop {
        match (t.next(), p.next()) {
            (None, None) => return Some(params),
            (Some(ts), Some(ps)) => {
                if let Some(name) = ts.strip_prefix(':') {
                    if ps.is_empty() {
                        return None;
                    }
                    params.push((name.to_owned(), ps));
                } else if ts != ps {
                    return None;
                }
            }
            _ => return None,
        }
    }
}

fn strip_origin(path: &str) -> &str {
    match path.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => path,
    }
}

/// The captured value of path parameter `name` (empty if absent).
pub fn param<'p>(params: &[(String, &'p str)], name: &str) -> &'p str {
    params
        .iter()
        .find(|(n, _)| n == name)
        .map_or("", |(_, v)| v)
}

/// A raw text body, recorded in a trace as a JSON string.
pub fn text_body(body: &Value) -> Result<String, Invalid> {
    match body {
        Value::String(s) => Ok(s.clone()),
        _ => Err(Invalid::one(FieldError::new(
            "/body",
            Rule::Type,
            "a raw text body is recorded as a JSON string",
        ))),
    }
}

/// The error for an exchange that matches no route.
pub fn no_route(from: &str, method: &str, path: &str) -> Invalid {
    Invalid::one(FieldError::new(
        "/path",
        Rule::UnknownKind,
        format!("no route of `{from}` matches {method} {path}"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_match_templates() {
        let m = match_path(
            "/external/sessions/:sessionId/messages",
            "/external/sessions/abc/messages",
        );
        assert_eq!(m, Some(vec![("sessionId".to_owned(), "abc")]));
        let m = match_path(
            "/external/sessions/:sessionId/messages",
            "http://agent-server.internal/external/sessions/X-1/messages?x=1",
        );
        assert_eq!(m, Some(vec![("sessionId".to_owned(), "X-1")]));
        assert_eq!(match_path("/a/:b", "/a"), None);
        assert_eq!(match_path("/a/:b", "/a//"), None);
        assert!(match_path("{external.inputUrl}", "/anything").is_some());
    }
}
