//! HTTP path templates as `google.api.http` writes them (`/v1/{name=shelves/*}/books:get`):
//! parsed once, matched against a request path to bind each variable to its value, and
//! expanded from a value per variable to build a request path. The generator checks a
//! spec's templates with it; the HTTP+JSON transcoder serves and calls with it.
//!
//! Grammar (google/api/http.proto): `Template = "/" Segments [ Verb ]`, `Segments = Segment
//! { "/" Segment }`, `Segment = "*" | "**" | LITERAL | Variable`, `Variable = "{" FieldPath
//! [ "=" Segments ] "}"`, `Verb = ":" LITERAL`. A variable without a pattern is `{x=*}`;
//! `**` may only end the template.

/// One segment of the path, variables expanded into the segments they match.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    /// `*`: exactly one segment.
    One,
    /// `**`: the rest of the path, zero or more segments.
    Rest,
}

/// A variable: the field path it binds and the segments it spans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// The field path, as written (`name`, `book.name`).
    pub field: String,
    start: usize,
    end: usize,
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathTemplate {
    segments: Vec<Segment>,
    variables: Vec<Variable>,
    verb: Option<String>,
}

/// Why a template does not parse: the offending template and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("path template `{template}`: {reason}")]
pub struct TemplateError {
    pub template: String,
    pub reason: String,
}

/// What a matched request path binds: each variable's field path and its decoded value.
pub type Bindings = Vec<(String, String)>;

fn is_literal(s: &str) -> bool {
    !s.is_empty()
        && !s
            .chars()
            .any(|c| matches!(c, '{' | '}' | '/' | '=' | '*' | ':') || c.is_whitespace())
}

fn is_field_path(s: &str) -> bool {
    s.split('.').all(|p| {
        let mut chars = p.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// `*`, `**` or a literal.
fn plain(s: &str) -> Option<Segment> {
    match s {
        "*" => Some(Segment::One),
        "**" => Some(Segment::Rest),
        _ => is_literal(s).then(|| Segment::Literal(s.to_owned())),
    }
}

impl PathTemplate {
    /// Parses `template`.
    pub fn parse(template: &str) -> Result<Self, TemplateError> {
        let fail = |reason: &str| TemplateError {
            template: template.to_owned(),
            reason: reason.to_owned(),
        };
        let body = template
            .strip_prefix('/')
            .ok_or_else(|| fail("it must start with `/`"))?;
        // The verb follows the last `:` outside braces.
        let mut depth = 0i32;
        let mut verb_at = None;
        for (i, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ':' if depth == 0 => verb_at = Some(i),
                _ => {}
            }
        }
        let (path, verb) = match verb_at {
            Some(i) => (&body[..i], Some(&body[i + 1..])),
            None => (body, None),
        };
        if let Some(v) = verb
            && !is_literal(v)
        {
            return Err(fail("the verb after `:` must be a literal"));
        }
        let mut out = PathTemplate {
            segments: Vec::new(),
            variables: Vec::new(),
            verb: verb.map(str::to_owned),
        };
        out.read_segments(path, &fail)?;
        if let Some(i) = out.segments.iter().position(|s| *s == Segment::Rest)
            && i + 1 != out.segments.len()
        {
            return Err(fail("`**` may only be the last segment"));
        }
        Ok(out)
    }

    fn read_segments(
        &mut self,
        path: &str,
        fail: &dyn Fn(&str) -> TemplateError,
    ) -> Result<(), TemplateError> {
        let mut rest = path;
        loop {
            if let Some(inner) = rest.strip_prefix('{') {
                let close = inner.find('}').ok_or_else(|| fail("a `{` is not closed"))?;
                let (field, pattern) = match inner[..close].split_once('=') {
                    Some((f, p)) => (f, p),
                    None => (&inner[..close], "*"),
                };
                if !is_field_path(field) {
                    return Err(fail(&format!("`{field}` is not a field path")));
                }
                if self.variables.iter().any(|v| v.field == field) {
                    return Err(fail(&format!("`{field}` is bound twice")));
                }
                let start = self.segments.len();
                for s in pattern.split('/') {
                    let seg = plain(s).ok_or_else(|| {
                        fail(&format!("`{s}` is not a segment of a variable's pattern"))
                    })?;
                    self.segments.push(seg);
                }
                self.variables.push(Variable {
                    field: field.to_owned(),
                    start,
                    end: self.segments.len(),
                });
                rest = &inner[close + 1..];
            } else {
                let end = rest.find('/').unwrap_or(rest.len());
                let seg = plain(&rest[..end])
                    .ok_or_else(|| fail(&format!("`{}` is not a segment", &rest[..end])))?;
                self.segments.push(seg);
                rest = &rest[end..];
            }
            match rest.strip_prefix('/') {
                Some(next) => rest = next,
                None if rest.is_empty() => return Ok(()),
                None => return Err(fail("a variable must fill a whole segment")),
            }
        }
    }

    /// The variables, in the order they are written.
    pub fn variables(&self) -> &[Variable] {
        &self.variables
    }

    /// The number of literal segments (and verb): how specific the template is, so that
    /// of two templates matching one path the more literal one can be preferred.
    pub fn literals(&self) -> usize {
        let segments = self
            .segments
            .iter()
            .filter(|s| matches!(s, Segment::Literal(_)))
            .count();
        segments + usize::from(self.verb.is_some())
    }

    /// The variables' values if `path` (without its query) matches, each percent-decoded.
    pub fn matches(&self, path: &str) -> Option<Bindings> {
        let mut path = path.strip_prefix('/')?;
        if let Some(verb) = &self.verb {
            path = path.strip_suffix(verb.as_str())?.strip_suffix(':')?;
        }
        let parts: Vec<&str> = if path.is_empty() {
            Vec::new()
        } else {
            path.split('/').collect()
        };
        let rest = self.segments.last() == Some(&Segment::Rest);
        let fixed = self.segments.len() - usize::from(rest);
        if parts.len() < fixed || (!rest && parts.len() != fixed) {
            return None;
        }
        for (seg, part) in self.segments.iter().zip(&parts) {
            match seg {
                Segment::Literal(l) if l != part => return None,
                Segment::One | Segment::Rest if part.is_empty() => return None,
                _ => {}
            }
        }
        let mut out = Vec::with_capacity(self.variables.len());
        for v in &self.variables {
            let end = if v.end == self.segments.len() && rest {
                parts.len()
            } else {
                v.end
            };
            let raw = parts[v.start..end].join("/");
            let value = percent_decode(&raw)?;
            out.push((v.field.clone(), value));
        }
        Some(out)
    }

    /// The path with each variable replaced by its value from `value_of` (reserved characters
    /// percent-encoded; a multi-segment value keeps its `/`); `None` when a value is missing,
    /// empty or does not fit its variable's pattern.
    pub fn expand(&self, value_of: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        let mut out = String::new();
        let mut i = 0;
        while i < self.segments.len() {
            out.push('/');
            if let Some(v) = self.variables.iter().find(|v| v.start == i) {
                let value = value_of(&v.field).filter(|s| !s.is_empty())?;
                let pattern = &self.segments[v.start..v.end];
                if pattern == [Segment::One] {
                    // One segment: every `/` in the value is encoded with the rest.
                    out.push_str(&percent_encode(&value));
                } else {
                    let filled = PathTemplate {
                        segments: pattern.to_vec(),
                        variables: Vec::new(),
                        verb: None,
                    };
                    filled.matches(&format!("/{value}"))?;
                    let encoded: Vec<String> = value.split('/').map(percent_encode).collect();
                    out.push_str(&encoded.join("/"));
                }
                i = v.end;
                continue;
            }
            match &self.segments[i] {
                Segment::Literal(l) => out.push_str(l),
                // A wildcard outside a variable binds nothing a request could fill.
                Segment::One | Segment::Rest => return None,
            }
            i += 1;
        }
        if self.segments.is_empty() {
            out.push('/');
        }
        if let Some(verb) = &self.verb {
            out.push(':');
            out.push_str(verb);
        }
        Some(out)
    }
}

/// `%XX` sequences decoded; `None` when one is malformed or the result is not UTF-8.
pub fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Every byte outside RFC 3986's unreserved set percent-encoded.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bind(t: &str, path: &str) -> Option<Vec<(String, String)>> {
        PathTemplate::parse(t).unwrap().matches(path)
    }

    fn pairs(v: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            v.iter()
                .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
                .collect(),
        )
    }

    #[test]
    fn variables_verbs_and_wildcards_bind_what_they_match() {
        assert_eq!(bind("/message:send", "/message:send"), pairs(&[]));
        assert_eq!(bind("/message:send", "/message:stream"), None);
        assert_eq!(
            bind("/tasks/{id=*}", "/tasks/a%20b"),
            pairs(&[("id", "a b")])
        );
        assert_eq!(bind("/tasks/{id}", "/tasks/a/b"), None);
        assert_eq!(bind("/tasks/{id}", "/tasks/"), None);
        assert_eq!(
            bind("/tasks/{id=*}:cancel", "/tasks/t-1:cancel"),
            pairs(&[("id", "t-1")])
        );
        // Without a verb, the colon is part of the value.
        assert_eq!(
            bind("/tasks/{id=*}", "/tasks/t-1:cancel"),
            pairs(&[("id", "t-1:cancel")])
        );
        assert_eq!(
            bind("/v1/{name=shelves/*/books/*}", "/v1/shelves/s1/books/b2"),
            pairs(&[("name", "shelves/s1/books/b2")])
        );
        assert_eq!(bind("/v1/{name=shelves/*}", "/v1/racks/s1"), None);
        assert_eq!(
            bind(
                "/{tenant}/tasks/{task_id=*}/pushNotificationConfigs",
                "/acme/tasks/t/pushNotificationConfigs"
            ),
            pairs(&[("tenant", "acme"), ("task_id", "t")])
        );
        assert_eq!(
            bind("/files/{path=**}", "/files/a/b/c"),
            pairs(&[("path", "a/b/c")])
        );
        assert_eq!(bind("/tasks/{id}", "/tasks/%zz"), None);
    }

    #[test]
    fn expansion_is_the_inverse_of_matching() {
        let t = PathTemplate::parse("/v1/{name=shelves/*}/{sub.id}:get").unwrap();
        let values = |f: &str| match f {
            "name" => Some("shelves/a b".to_owned()),
            "sub.id" => Some("x/y".to_owned()),
            _ => None,
        };
        let path = t.expand(&values).unwrap();
        assert_eq!(path, "/v1/shelves/a%20b/x%2Fy:get");
        assert_eq!(
            t.matches(&path),
            pairs(&[("name", "shelves/a b"), ("sub.id", "x/y")])
        );
        // A value that does not fit its pattern, or none, builds no path.
        let wrong = |f: &str| (f == "name").then(|| "racks/a".to_owned());
        assert_eq!(t.expand(&wrong), None);
        assert_eq!(t.expand(&|_| None), None);
    }

    #[test]
    fn malformed_templates_are_refused_with_a_reason() {
        for (t, why) in [
            ("tasks", "start with `/`"),
            ("/tasks/{id", "not closed"),
            ("/tasks/{1d}", "not a field path"),
            ("/{a}/{a}", "bound twice"),
            ("/a/**/b", "last segment"),
            ("/a/{x}y", "whole segment"),
            ("/a:", "verb"),
            ("/a//b", "is not a segment"),
        ] {
            let e = PathTemplate::parse(t).unwrap_err();
            assert!(e.reason.contains(why), "{t}: {e}");
        }
        assert_eq!(PathTemplate::parse("/a/{b}").unwrap().literals(), 1);
        assert_eq!(PathTemplate::parse("/a/{b}:c").unwrap().literals(), 2);
    }
}
