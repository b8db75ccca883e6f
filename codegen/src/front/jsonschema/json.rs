//! A JSON reader that keeps where every value and key starts, so a schema diagnostic points at
//! the file's line and column (serde_json's `Value` forgets positions).

/// Deeper nesting than this is refused: no real schema comes near it, and the reader recurses.
const MAX_DEPTH: usize = 256;

/// A JSON value with its byte span `(offset, len)` in the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub span: (usize, usize),
    pub value: Json,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number and its text as written (so `1` and `1.0` stay apart).
    Number(f64, String),
    String(String),
    Array(Vec<Node>),
    /// Members in file order, each with its key's span.
    Object(Vec<Member>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub key: String,
    pub key_span: (usize, usize),
    pub value: Node,
}

impl Node {
    /// The member `key` of an object (the last one if given twice; the reader refuses that).
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Json::Object(members) => members.iter().find(|m| m.key == key).map(|m| &m.value),
            _ => None,
        }
    }

    pub fn members(&self) -> &[Member] {
        match &self.value {
            Json::Object(members) => members,
            _ => &[],
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node]> {
        match &self.value {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match &self.value {
            Json::Number(n, _) => Some(*n),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match &self.value {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self.value, Json::Object(_))
    }

    /// The value as serde_json's, for `const`/`enum`/`default` values carried into docs.
    pub fn to_value(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.value {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(_, raw) => serde_json::from_str(raw).unwrap_or(Value::Null),
            Json::String(s) => Value::String(s.clone()),
            Json::Array(items) => Value::Array(items.iter().map(Node::to_value).collect()),
            Json::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|m| (m.key.clone(), m.value.to_value()))
                    .collect(),
            ),
        }
    }
}

/// A syntax error: what is wrong and the byte offset where.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub message: String,
    pub offset: usize,
}

/// Parses one JSON document.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut r = Reader {
        bytes: text.as_bytes(),
        text,
        pos: 0,
    };
    r.skip_ws();
    let node = r.value(0)?;
    r.skip_ws();
    if r.pos < r.bytes.len() {
        return Err(r.error("unexpected text after the JSON document"));
    }
    Ok(node)
}

struct Reader<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn error(&self, message: &str) -> SyntaxError {
        SyntaxError {
            message: message.to_owned(),
            offset: self.pos,
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.bytes.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("JSON nested too deeply"));
        }
        let start = self.pos;
        let value = match self.bytes.get(self.pos) {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Json::String(self.string()?),
            Some(b't') => self.word("true", Json::Bool(true))?,
            Some(b'f') => self.word("false", Json::Bool(false))?,
            Some(b'n') => self.word("null", Json::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => return Err(self.error("expected a JSON value")),
            None => return Err(self.error("unexpected end of the file")),
        };
        Ok(Node {
            span: (start, self.pos - start),
            value,
        })
    }

    fn word(&mut self, word: &str, value: Json) -> Result<Json, SyntaxError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("expected a JSON value"))
        }
    }

    fn number(&mut self) -> Result<Json, SyntaxError> {
        let start = self.pos;
        while matches!(
            self.bytes.get(self.pos),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.pos += 1;
        }
        let raw = &self.text[start..self.pos];
        // serde_json checks the grammar (no leading zeros, digits after the point).
        match serde_json::from_str::<serde_json::Number>(raw) {
            Ok(n) => Ok(Json::Number(n.as_f64().unwrap_or(f64::NAN), raw.to_owned())),
            Err(_) => {
                self.pos = start;
                Err(self.error("malformed number"))
            }
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.bytes.get(self.pos) {
                Some(b'"') => break,
                Some(b'\\') => self.pos += 2,
                Some(0..=0x1f) => return Err(self.error("control character in a string")),
                Some(_) => self.pos += 1,
                None => {
                    self.pos = start;
                    return Err(self.error("unterminated string"));
                }
            }
        }
        self.pos += 1;
        let raw = self.text.get(start..self.pos).unwrap_or_default();
        serde_json::from_str::<String>(raw).map_err(|e| SyntaxError {
            message: format!("malformed string: {e}"),
            offset: start,
        })
    }

    fn array(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Json::Array(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        self.pos += 1;
        let mut members: Vec<Member> = Vec::new();
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b'"') {
                return Err(self.error("expected a quoted key"));
            }
            let key_start = self.pos;
            let key = self.string()?;
            let key_span = (key_start, self.pos - key_start);
            if members.iter().any(|m| m.key == key) {
                self.pos = key_start;
                return Err(self.error(&format!("the key `{key}` is given twice")));
            }
            self.skip_ws();
            if self.bytes.get(self.pos) != Some(&b':') {
                return Err(self.error("expected `:`"));
            }
            self.pos += 1;
            self.skip_ws();
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                key_span,
                value,
            });
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_spans_and_order_and_refuses_bad_input() {
        let text = r#"{"b": [1, 2.5e1, "x\u00e9"], "a": {"t": true, "n": null}}"#;
        let node = parse(text).unwrap();
        let keys: Vec<&str> = node.members().iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["b", "a"]);
        let b = node.get("b").unwrap();
        assert_eq!(
            &text[b.span.0..b.span.0 + b.span.1],
            r#"[1, 2.5e1, "x\u00e9"]"#
        );
        assert_eq!(b.as_array().unwrap()[2].as_str(), Some("xé"));
        assert_eq!(node.to_value()["b"][1], serde_json::json!(25.0));
        for bad in [
            r#"{"a": 1,}"#,
            r#"{"a": 01}"#,
            r#"{"a" 1}"#,
            "[1] 2",
            r#"{"a":1,"a":2}"#,
            "\"x",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let deep = "[".repeat(300) + &"]".repeat(300);
        assert!(parse(&deep).is_err());
        assert_eq!(parse(r#"{"a":1,"a":2}"#).unwrap_err().offset, 7);
    }
}
