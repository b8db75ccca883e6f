//! Headers that mirror members of the message they carry ([`Mirror`]): the value a header
//! holds for a message (set by the client), and the check that a request's headers agree
//! with its body (made by the server), so that an intermediary routing on a header and the
//! server acting on the body cannot be told two different things.

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::profile::{Mirror, Profile};

/// The member of `message` at `path`, if it has one (a `null` counts as none).
fn at<'a>(message: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut v = message;
    for step in path {
        v = v.get(step)?;
    }
    (!v.is_null()).then_some(v)
}

/// The value `mirror` mirrors in `message`: the first of its members the message has.
fn source<'a>(mirror: &Mirror, message: &'a Value) -> Option<&'a Value> {
    mirror.members.iter().find_map(|path| at(message, path))
}

/// A member's value as header text: a string as it is, an integer in decimal, a boolean as
/// `true`/`false`; anything else cannot be mirrored.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

/// Whether `text` can travel in a header as it is: visible ASCII and spaces inside, none at
/// either end, and not itself looking like an encoded value. A tab, though HTTP allows it
/// inside a value, is a control character, which goes encoded.
fn plain(text: &str, base64: Option<(&str, &str)>) -> bool {
    let visible = text.bytes().all(|b| b.is_ascii_graphic() || b == b' ');
    let trimmed = text.trim_matches(' ') == text;
    let looks_encoded =
        base64.is_some_and(|(open, close)| text.starts_with(open) && text.ends_with(close));
    !text.is_empty() && visible && trimmed && !looks_encoded
}

/// The header value carrying `text`: itself when plain, else base64 between the profile's
/// markers; `None` when it is not plain and the profile has no encoding.
fn encode(text: &str, base64: Option<(&str, &str)>) -> Option<String> {
    if plain(text, base64) {
        return Some(text.to_owned());
    }
    let (open, close) = base64?;
    Some(format!("{open}{}{close}", STANDARD.encode(text.as_bytes())))
}

/// The text a header value carries, decoding the profile's base64 form.
fn decode(value: &HeaderValue, base64: Option<(&str, &str)>) -> Result<String, String> {
    let raw = value
        .to_str()
        .map_err(|_| "holds bytes that are not visible ASCII".to_owned())?;
    let Some((open, close)) = base64 else {
        return Ok(raw.to_owned());
    };
    let Some(inner) = raw.strip_prefix(open).and_then(|r| r.strip_suffix(close)) else {
        return Ok(raw.to_owned());
    };
    let bytes = STANDARD
        .decode(inner)
        .map_err(|e| format!("is not valid base64 between its markers: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "decodes to bytes that are not UTF-8".to_owned())
}

/// Whether the header text `given` says `value` (an integer compares as a number, so that
/// `42.0` says 42).
fn agrees(given: &str, value: &Value, text: &str) -> bool {
    if given == text {
        return true;
    }
    match (
        value.as_f64(),
        value.is_number(),
        given.trim().parse::<f64>(),
    ) {
        (Some(v), true, Ok(g)) => v == g,
        _ => false,
    }
}

/// The mirrored headers a client sets on `message` (those whose member it has).
pub(crate) fn headers_for(profile: &Profile, message: &Value) -> Vec<(HeaderName, HeaderValue)> {
    let mut out = Vec::new();
    for m in profile.mirror {
        let Some(text) = source(m, message).and_then(text_of) else {
            continue;
        };
        let value = encode(&text, profile.mirror_base64).and_then(|v| v.parse().ok());
        let name = HeaderName::from_bytes(m.header.as_bytes()).ok();
        if let (Some(name), Some(value)) = (name, value) {
            out.push((name, value));
        }
    }
    out
}

/// The headers an application derived for one message (`ClientConfig::derived`), each value
/// written as a mirrored member's is (base64 between the profile's markers when it is not
/// plain); a name HTTP does not allow, or a value that is no string, integer or boolean, is
/// left out.
pub(crate) fn derived(
    profile: &Profile,
    pairs: Vec<(String, Value)>,
) -> Vec<(HeaderName, HeaderValue)> {
    pairs
        .into_iter()
        .filter_map(|(name, value)| {
            let name = HeaderName::from_bytes(name.as_bytes()).ok()?;
            let text = text_of(&value)?;
            let value = encode(&text, profile.mirror_base64)?.parse().ok()?;
            Some((name, value))
        })
        .collect()
}

/// Whether `headers` agree with `message` on every mirrored member: a member the message
/// has needs its header, saying the same; a header whose member the message lacks is refused
/// too. `Err` says which header and why.
pub(crate) fn check(profile: &Profile, headers: &HeaderMap, message: &Value) -> Result<(), String> {
    for m in profile.mirror {
        let member = source(m, message);
        let given = headers.get(m.header);
        match (member, given) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(format!(
                    "{} is sent, but the message has no member it mirrors",
                    m.header
                ));
            }
            (Some(_), None) => {
                return Err(format!("{} header is required for this message", m.header));
            }
            (Some(value), Some(given)) => {
                let given = decode(given, profile.mirror_base64)
                    .map_err(|why| format!("{} header {why}", m.header))?;
                let Some(text) = text_of(value) else {
                    return Err(format!(
                        "{} mirrors a member that is not a string, an integer or a boolean",
                        m.header
                    ));
                };
                if !agrees(&given, value, &text) {
                    return Err(format!(
                        "{} header value {given:?} does not match the message's {text:?}",
                        m.header
                    ));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const MIRROR: &[Mirror] = &[
        Mirror {
            header: "X-Method",
            members: &[&["method"]],
        },
        Mirror {
            header: "X-Name",
            members: &[&["params", "name"], &["params", "uri"]],
        },
    ];

    fn profile() -> Profile {
        Profile {
            path: "/rpc",
            session_header: "X-Session",
            version_header: "X-Version",
            versions: &["2"],
            opens_with: "open",
            version_member: "version",
            priming_since: None,
            version_source: None,
            unsupported_code: super::super::DEFAULT_UNSUPPORTED_CODE,
            mirror: MIRROR,
            mirror_since: None,
            mirror_base64: Some(("=?b64?", "?=")),
            mismatch_code: super::super::DEFAULT_MISMATCH_CODE,
            sealed_state: None,
            error_status: &[],
        }
    }

    fn map(pairs: Vec<(HeaderName, HeaderValue)>) -> HeaderMap {
        pairs.into_iter().collect()
    }

    #[test]
    fn what_a_client_sets_the_server_accepts() {
        let p = profile();
        for message in [
            json!({"method": "call", "params": {"name": "plain-name"}}),
            json!({"method": "read", "params": {"uri": "file:///a b"}}),
            json!({"method": "call", "params": {"name": "Hello, 世界"}}),
            json!({"method": "call", "params": {"name": " padded "}}),
            json!({"method": "call", "params": {"name": "=?b64?looks?="}}),
            json!({"method": "list", "params": {}}),
        ] {
            let headers = map(headers_for(&p, &message));
            assert_eq!(check(&p, &headers, &message), Ok(()), "{message}");
        }
        let m = json!({"method": "call", "params": {"name": "Hello, 世界"}});
        let set = headers_for(&p, &m);
        assert_eq!(set[1].1, "=?b64?SGVsbG8sIOS4lueVjA==?=");
    }

    #[test]
    fn a_header_that_disagrees_is_missing_or_left_over_is_refused() {
        let p = profile();
        let m = json!({"method": "call", "params": {"name": "a"}});
        let mut h = map(headers_for(&p, &m));
        h.insert("x-name", HeaderValue::from_static("b"));
        assert!(check(&p, &h, &m).unwrap_err().contains("does not match"));
        h.remove("x-name");
        assert!(check(&p, &h, &m).unwrap_err().contains("is required"));
        let list = json!({"method": "list", "params": {}});
        let mut h = map(headers_for(&p, &list));
        h.insert("x-name", HeaderValue::from_static("a"));
        assert!(check(&p, &h, &list).unwrap_err().contains("no member"));
        let mut h = map(headers_for(&p, &m));
        h.insert("x-name", HeaderValue::from_static("=?b64?!!?="));
        assert!(check(&p, &h, &m).unwrap_err().contains("base64"));
        // An integer compares as a number.
        let n = json!({"method": "call", "params": {"name": 42}});
        let mut h = map(headers_for(&p, &n));
        h.insert("x-name", HeaderValue::from_static("42.0"));
        assert_eq!(check(&p, &h, &n), Ok(()));
    }

    #[test]
    fn derived_headers_are_encoded_as_mirrored_ones_and_bad_ones_left_out() {
        let p = profile();
        let pairs = vec![
            ("X-Plain".to_owned(), json!("us west 1")),
            ("X-Tab".to_owned(), json!("\tindented")),
            ("X-Inner-Tab".to_owned(), json!("a\tb")),
            ("X-Int".to_owned(), json!(42)),
            ("X-Flag".to_owned(), json!(false)),
            ("X-Float".to_owned(), json!(3.5)),
            ("bad name".to_owned(), json!("x")),
        ];
        let set: Vec<(String, String)> = derived(&p, pairs)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap().to_owned()))
            .collect();
        let expected = [
            ("x-plain", "us west 1"),
            ("x-tab", "=?b64?CWluZGVudGVk?="),
            ("x-inner-tab", "=?b64?YQli?="),
            ("x-int", "42"),
            ("x-flag", "false"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        assert_eq!(set, expected);
    }
}
