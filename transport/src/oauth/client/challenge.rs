//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1): the scheme and its auth-params, read
//! with a bounded, allocation-light scan that never fails (what cannot be read is skipped).

/// One challenge: its scheme and parameters (names lower-cased, values unquoted).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Challenge {
    pub scheme: String,
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The parameter `name` (lower-case), if present.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The longest header value read; a longer one is cut there.
const MAX_HEADER: usize = 8 * 1024;
/// Parameters kept per challenge.
const MAX_PARAMS: usize = 32;

/// The challenges of every value in `values`.
pub fn parse_all(values: &[String]) -> Vec<Challenge> {
    values.iter().flat_map(|v| parse(v)).collect()
}

/// The first `Bearer` challenge of `values`.
pub fn bearer(values: &[String]) -> Option<Challenge> {
    parse_all(values)
        .into_iter()
        .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
}

/// The challenges of one header value.
pub fn parse(value: &str) -> Vec<Challenge> {
    let mut end = value.len().min(MAX_HEADER);
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    let mut rest = &value[..end];
    let mut out: Vec<Challenge> = Vec::new();
    loop {
        rest = rest.trim_start_matches([' ', '\t', ',']);
        if rest.is_empty() {
            break;
        }
        let (name, after) = take_token(rest);
        if name.is_empty() {
            // Not a token: skip one character and go on.
            let mut chars = rest.chars();
            chars.next();
            rest = chars.as_str();
            continue;
        }
        let after_space = after.trim_start_matches([' ', '\t']);
        match after_space.strip_prefix('=') {
            Some(value) if !value.starts_with('=') => {
                let value = value.trim_start_matches([' ', '\t']);
                let (v, after) = if let Some(quoted) = value.strip_prefix('"') {
                    take_quoted(quoted)
                } else {
                    let (t, a) = take_token(value);
                    (t.to_owned(), a)
                };
                if let Some(c) = out.last_mut()
                    && c.params.len() < MAX_PARAMS
                {
                    c.params.push((name.to_ascii_lowercase(), v));
                }
                rest = after;
            }
            // token68 (`abc==`) credentials: not used by Bearer; skipped.
            Some(value) => rest = value.trim_start_matches('='),
            None => {
                out.push(Challenge {
                    scheme: name.to_owned(),
                    params: Vec::new(),
                });
                rest = after;
            }
        }
    }
    out
}

fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~/".contains(c)
}

fn take_token(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !is_tchar(c)).unwrap_or(s.len());
    s.split_at(end)
}

/// A quoted-string's content after its opening quote, and what follows the closing one.
fn take_quoted(s: &str) -> (String, &str) {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (out, &s[i + 1..]),
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    out.push(escaped);
                }
            }
            _ => out.push(c),
        }
    }
    (out, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_params_are_read_whatever_their_form() {
        let c = parse(
            r#"Bearer resource_metadata="https://a/.well-known/x", scope="a b", error=insufficient_scope"#,
        );
        assert_eq!(c.len(), 1);
        assert_eq!(
            c[0].param("resource_metadata"),
            Some("https://a/.well-known/x")
        );
        assert_eq!(c[0].param("scope"), Some("a b"));
        assert_eq!(c[0].param("error"), Some("insufficient_scope"));
    }

    #[test]
    fn several_challenges_and_escapes() {
        let c = parse(r#"DPoP algs="ES256", Bearer realm="x\"y", Scope="s""#);
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].scheme, "Bearer");
        assert_eq!(c[1].param("realm"), Some("x\"y"));
        assert_eq!(c[1].param("scope"), Some("s"));
        assert_eq!(bearer(&["Basic realm=\"r\"".into()]), None);
    }

    #[test]
    fn garbage_never_panics() {
        for s in [
            "",
            "=",
            "\"",
            "Bearer =",
            "Bearer a=\"unterminated",
            "Bearer abc==",
            "é=ü, ,,=\"",
            "Bearer a=b=c",
        ] {
            let _ = parse(s);
        }
        let long = format!("Bearer scope=\"{}\"", "é".repeat(10_000));
        let c = parse(&long);
        assert!(c[0].param("scope").unwrap().len() <= MAX_HEADER);
    }
}
