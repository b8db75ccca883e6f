//! Where a stream of a protocol with several versions says which one it speaks, as the spec
//! declares it (`version:` in `protocol.yaml`), and a reader that learns it from the
//! stream's messages as they come.

use serde_json::Value;

/// Where a stream names its protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The request that opens the stream offers a version in a params member and its answer
    /// names the version agreed in the result member of the same name; the answer decides.
    Handshake {
        method: &'static str,
        member: &'static str,
    },
    /// Every request and notification carries its version at this path under `params`.
    Meta { path: &'static [&'static str] },
    /// Every HTTP exchange carries its version in this header (names compare ignoring case).
    Header { name: &'static str },
    /// Versions name themselves in different places (one era negotiates in a handshake, a
    /// later one names its version on every message): each entry is read with each of these
    /// in turn, and the first that finds a version says it.
    Any(&'static [Source]),
}

/// What one message said about the version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Said {
    /// A version the opening request offers; its answer decides.
    Offered(String),
    /// A version a message names as the one it speaks (`meta`, `header`).
    Named(String),
    /// The version the opening request's answer agreed on.
    Agreed(String),
}

/// Learns the version of one stream from its trace entries (`{"from": ..., "message": ...}`,
/// with an optional `headers` object), remembering the opening request's id so that its
/// answer is recognised.
#[derive(Debug, Clone)]
pub struct Reader {
    source: Source,
    opening: Option<Value>,
}

/// What `message` carries at `path` under its params.
fn at_path(message: Option<&Value>, path: &[&str]) -> Option<Said> {
    let mut at = message?.get("params")?;
    for step in path {
        at = at.get(step)?;
    }
    Some(Said::Named(name_of(at)?))
}

/// A version as a message writes it: a string, or a whole number (a protocol numbering its
/// versions, `"protocolVersion": 1`), read as its decimal digits, the way `versions:`
/// names it (`"1"`). Anything else names no version.
pub fn name_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) if n.is_u64() || n.is_i64() => Some(n.to_string()),
        _ => None,
    }
}

impl Reader {
    pub fn new(source: Source) -> Self {
        Reader {
            source,
            opening: None,
        }
    }

    /// The source this reader follows.
    pub fn source(&self) -> Source {
        self.source
    }

    /// What `entry` says about the version, if anything. A member of the wrong type says
    /// nothing (the message's own validation reports it).
    pub fn read(&mut self, entry: &Value) -> Option<Said> {
        self.read_as(self.source, entry)
    }

    fn read_as(&mut self, source: Source, entry: &Value) -> Option<Said> {
        let message = entry.get("message");
        match source {
            Source::Handshake { method, member } => {
                let message = message?;
                if message.get("method").and_then(Value::as_str) == Some(method) {
                    self.opening = message.get("id").cloned();
                    let offered = name_of(message.get("params")?.get(member)?)?;
                    return Some(Said::Offered(offered));
                }
                let id = message.get("id")?;
                if self.opening.as_ref() != Some(id) || message.get("method").is_some() {
                    return None;
                }
                let agreed = name_of(message.get("result")?.get(member)?)?;
                Some(Said::Agreed(agreed))
            }
            Source::Meta { path } => at_path(message, path),
            Source::Header { name } => {
                let headers = entry.get("headers")?.as_object()?;
                let (_, value) = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name))?;
                Some(Said::Named(value.as_str()?.to_owned()))
            }
            Source::Any(sources) => sources.iter().find_map(|s| self.read_as(*s, entry)),
        }
    }
}

impl Source {
    /// The handshake this source (or one of an `Any`'s) opens a stream with: its method and
    /// the member offering and agreeing on the version.
    pub fn handshake(&self) -> Option<(&'static str, &'static str)> {
        match self {
            Source::Handshake { method, member } => Some((method, member)),
            Source::Any(sources) => sources.iter().find_map(Source::handshake),
            Source::Meta { .. } | Source::Header { .. } => None,
        }
    }
}

/// Where one message outside any handshake named its version, read from every place the
/// source lists: [`Source::named_in`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// No place the source lists names a version.
    Nowhere,
    /// Every place that names one names this version; `missing` lists the places the source
    /// declares that say nothing (a header left out, say), as [`Source`]'s `Display` writes them.
    Version {
        version: String,
        missing: Vec<String>,
    },
    /// Two places name different versions (the header says one, the message another).
    Disagree { first: String, second: String },
}

impl Source {
    /// Every `meta:` path among the sources.
    pub fn meta_paths(&self) -> Vec<&'static [&'static str]> {
        match self {
            Source::Meta { path } => vec![*path],
            Source::Any(sources) => sources.iter().flat_map(Source::meta_paths).collect(),
            Source::Handshake { .. } | Source::Header { .. } => Vec::new(),
        }
    }

    /// The first `header:` among the sources.
    pub fn header(&self) -> Option<&'static str> {
        match self {
            Source::Header { name } => Some(name),
            Source::Any(sources) => sources.iter().find_map(Source::header),
            Source::Handshake { .. } | Source::Meta { .. } => None,
        }
    }

    /// Whether a message may name its version by itself (the source has a `meta:` or a
    /// `header:`), rather than only through a handshake.
    pub fn per_message(&self) -> bool {
        self.header().is_some() || !self.meta_paths().is_empty()
    }

    /// The version one message names, read from every `meta:` path under its params and from
    /// the `header:` (whose value the caller read, `None` when absent). Unlike [`Reader`],
    /// which takes the first place that says something, this reads them all, so that a header
    /// and a body naming different versions are told apart from a message naming one.
    pub fn named_in(&self, message: &Value, header: Option<&str>) -> Named {
        let mut said: Vec<String> = Vec::new();
        let mut missing = Vec::new();
        for path in self.meta_paths() {
            match at_path(Some(message), path) {
                Some(Said::Named(v)) => said.push(v),
                _ => missing.push(Source::Meta { path }.to_string()),
            }
        }
        if let Some(name) = self.header() {
            match header {
                Some(v) => said.push(v.to_owned()),
                None => missing.push(Source::Header { name }.to_string()),
            }
        }
        let Some(first) = said.first().cloned() else {
            return Named::Nowhere;
        };
        match said.into_iter().find(|v| *v != first) {
            Some(second) => Named::Disagree { first, second },
            None => Named::Version {
                version: first,
                missing,
            },
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Handshake { method, member } => {
                write!(
                    f,
                    "`{method}` params.{member} and its answer's result.{member}"
                )
            }
            Source::Meta { path } => write!(f, "params.{}", path.join(".")),
            Source::Header { name } => write!(f, "the `{name}` header"),
            Source::Any(sources) => {
                let each: Vec<String> = sources.iter().map(ToString::to_string).collect();
                write!(f, "{}", each.join(", or "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_whole_number_names_the_version_of_its_digits() {
        let mut r = Reader::new(Source::Handshake {
            method: "initialize",
            member: "protocolVersion",
        });
        let offer = json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 2}}});
        assert_eq!(r.read(&offer), Some(Said::Offered("2".into())));
        let answer = json!({"from": "agent", "message": {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}});
        assert_eq!(r.read(&answer), Some(Said::Agreed("1".into())));
        // A fraction or a boolean names none.
        let odd = json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1.5}}});
        assert_eq!(r.read(&odd), None);
    }

    #[test]
    fn the_handshake_answer_names_the_agreed_version() {
        let mut r = Reader::new(Source::Handshake {
            method: "open",
            member: "version",
        });
        let offer = json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 7, "method": "open", "params": {"version": "2"}}});
        assert_eq!(r.read(&offer), Some(Said::Offered("2".into())));
        let other = json!({"from": "server", "message": {"jsonrpc": "2.0", "id": 8, "result": {"version": "3"}}});
        assert_eq!(r.read(&other), None);
        let answer = json!({"from": "server", "message": {"jsonrpc": "2.0", "id": 7, "result": {"version": "1"}}});
        assert_eq!(r.read(&answer), Some(Said::Agreed("1".into())));
    }

    #[test]
    fn meta_and_header_sources_read_each_message() {
        let mut meta = Reader::new(Source::Meta {
            path: &["_meta", "v"],
        });
        let m = json!({"message": {"method": "x", "params": {"_meta": {"v": "9"}}}});
        assert_eq!(meta.read(&m), Some(Said::Named("9".into())));
        assert_eq!(meta.read(&json!({"message": {"method": "x"}})), None);
        let mut header = Reader::new(Source::Header { name: "X-Version" });
        let h = json!({"headers": {"x-version": "4"}, "message": {}});
        assert_eq!(header.read(&h), Some(Said::Named("4".into())));
    }

    #[test]
    fn named_in_reads_every_place_and_tells_a_disagreement() {
        const SOURCES: &[Source] = &[
            Source::Handshake {
                method: "open",
                member: "version",
            },
            Source::Meta {
                path: &["_meta", "io.example/version"],
            },
            Source::Header { name: "X-Version" },
        ];
        let any = Source::Any(SOURCES);
        assert!(any.per_message());
        assert!(!SOURCES[0].per_message());
        let named = json!({"method": "x", "params": {"_meta": {"io.example/version": "2"}}});
        let both = any.named_in(&named, Some("2"));
        assert_eq!(
            both,
            Named::Version {
                version: "2".into(),
                missing: vec![]
            }
        );
        let no_header = any.named_in(&named, None);
        assert_eq!(
            no_header,
            Named::Version {
                version: "2".into(),
                missing: vec!["the `X-Version` header".into()]
            }
        );
        assert_eq!(
            any.named_in(&named, Some("1")),
            Named::Disagree {
                first: "2".into(),
                second: "1".into()
            }
        );
        let plain = json!({"method": "x", "params": {}});
        assert_eq!(any.named_in(&plain, None), Named::Nowhere);
        assert!(matches!(
            any.named_in(&plain, Some("1")),
            Named::Version { ref version, ref missing } if version == "1" && missing.len() == 1
        ));
    }

    #[test]
    fn several_sources_are_read_in_turn() {
        const SOURCES: &[Source] = &[
            Source::Handshake {
                method: "open",
                member: "version",
            },
            Source::Meta {
                path: &["_meta", "io.example/version"],
            },
        ];
        let mut r = Reader::new(Source::Any(SOURCES));
        let open = json!({"message": {"id": 1, "method": "open", "params": {"version": "1"}}});
        assert_eq!(r.read(&open), Some(Said::Offered("1".into())));
        let agreed = json!({"message": {"id": 1, "result": {"version": "1"}}});
        assert_eq!(r.read(&agreed), Some(Said::Agreed("1".into())));
        let named = json!({"message": {"id": 2, "method": "x",
            "params": {"_meta": {"io.example/version": "2"}}}});
        assert_eq!(r.read(&named), Some(Said::Named("2".into())));
        assert_eq!(r.read(&json!({"message": {"method": "x"}})), None);
        assert_eq!(
            Source::Any(SOURCES).to_string(),
            "`open` params.version and its answer's result.version, or params._meta.io.example/version"
        );
    }
}
