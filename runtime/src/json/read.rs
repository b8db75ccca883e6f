//! The `Deserializer` itself: whitespace, literals, containers and the serde access types;
//! strings and numbers are read by their own modules.

use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};

use super::string::{self, Decoded};
use super::unique::Keys;
use super::{Error, MAX_DEPTH, STACK_RED_ZONE, STACK_SEGMENT, number, with_stack};

pub(super) fn from_str<'de, T: de::Deserialize<'de>>(json: &'de str) -> Result<T, Error> {
    let mut de = Deserializer {
        text: json,
        pos: 0,
        depth: 0,
        keys: Keys::new(),
    };
    let value = T::deserialize(&mut de)?;
    de.skip_ws();
    if de.pos != json.len() {
        return Err(Error::new("trailing characters"));
    }
    Ok(value)
}

struct Deserializer<'de> {
    text: &'de str,
    pos: usize,
    depth: usize,
    /// The keys of every open object, to refuse a key given twice.
    keys: Keys<'de>,
}

impl<'de> Deserializer<'de> {
    #[inline]
    fn skip_ws(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The next byte that is not whitespace, without consuming it.
    #[inline]
    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.text.as_bytes().get(self.pos).copied()
    }

    fn expect_literal(&mut self, literal: &str) -> Result<(), Error> {
        if self.text.as_bytes()[self.pos..].starts_with(literal.as_bytes()) {
            self.pos += literal.len();
            Ok(())
        } else {
            Err(Error::new("invalid literal"))
        }
    }

    #[inline]
    fn read_str(&mut self) -> Result<Decoded<'de>, Error> {
        string::read(self.text, &mut self.pos)
    }

    /// Steps over one value nobody reads (an unknown field's), allocating nothing.
    fn skip_value(&mut self) -> Result<(), Error> {
        let bytes = self.text.as_bytes();
        match self.peek() {
            Some(b'"') => string::skip(bytes, &mut self.pos),
            Some(b'-' | b'0'..=b'9') => number::skip(bytes, &mut self.pos),
            Some(b'n') => self.expect_literal("null"),
            Some(b't') => self.expect_literal("true"),
            Some(b'f') => self.expect_literal("false"),
            Some(open @ (b'[' | b'{')) => {
                let close = if open == b'[' { b']' } else { b'}' };
                self.enter()?;
                let start = self.keys.open();
                let mut first = true;
                while self.peek() != Some(close) {
                    if !first {
                        if self.peek() != Some(b',') {
                            return Err(Error::new("expected `,`"));
                        }
                        self.pos += 1;
                    }
                    first = false;
                    if open == b'{' {
                        if self.peek() != Some(b'"') {
                            return Err(Error::new("expected a key"));
                        }
                        // Keys of skipped objects are checked too: a consumer that reads
                        // this value as a `Value` must not see one of two values.
                        let key = self.skip_key()?;
                        if !self.keys.insert(start, key) {
                            return Err(Error::duplicate());
                        }
                        if self.peek() != Some(b':') {
                            return Err(Error::new("expected `:`"));
                        }
                        self.pos += 1;
                    }
                    with_stack(STACK_RED_ZONE, STACK_SEGMENT, || self.skip_value())?;
                }
                self.keys.close(start);
                self.leave(close)
            }
            _ => Err(Error::new("expected a value")),
        }
    }

    /// Steps over a key of a skipped object and returns its text. A skipped value is checked
    /// as leniently as serde_json skips (a lone surrogate passes), so an escape that does not
    /// decode leaves the key as written.
    fn skip_key(&mut self) -> Result<Cow<'de, str>, Error> {
        let begin = self.pos;
        string::skip(self.text.as_bytes(), &mut self.pos)?;
        let raw = self
            .text
            .get(begin + 1..self.pos - 1)
            .ok_or_else(|| Error::new("key bounds"))?;
        if !raw.contains('\\') {
            return Ok(Cow::Borrowed(raw));
        }
        let mut at = begin;
        Ok(string::read(self.text, &mut at).map_or(Cow::Borrowed(raw), |d| d.into_cow()))
    }

    /// Steps into an array or object whose opening bracket is at `self.pos`.
    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Error::new("nesting too deep for the fast path"));
        }
        self.pos += 1;
        Ok(())
    }

    fn leave(&mut self, close: u8) -> Result<(), Error> {
        self.depth -= 1;
        if self.peek() == Some(close) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Error::new("expected the end of the container"))
        }
    }
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.peek() {
            Some(b'"') => match self.read_str()? {
                Decoded::Borrowed(s) => visitor.visit_borrowed_str(s),
                Decoded::Owned(s) => visitor.visit_string(s),
            },
            Some(b'{') => {
                self.enter()?;
                let start = self.keys.open();
                let value = with_stack(STACK_RED_ZONE, STACK_SEGMENT, || {
                    visitor.visit_map(Entries {
                        de: &mut *self,
                        first: true,
                        start,
                    })
                })?;
                self.keys.close(start);
                self.leave(b'}')?;
                Ok(value)
            }
            Some(b'[') => {
                self.enter()?;
                let value = with_stack(STACK_RED_ZONE, STACK_SEGMENT, || {
                    visitor.visit_seq(Elements {
                        de: &mut *self,
                        first: true,
                    })
                })?;
                self.leave(b']')?;
                Ok(value)
            }
            Some(b'n') => {
                self.expect_literal("null")?;
                visitor.visit_unit()
            }
            Some(b't') => {
                self.expect_literal("true")?;
                visitor.visit_bool(true)
            }
            Some(b'f') => {
                self.expect_literal("false")?;
                visitor.visit_bool(false)
            }
            Some(b'-' | b'0'..=b'9') => number::read(self.text, &mut self.pos, visitor),
            _ => Err(Error::new("expected a value")),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.peek() == Some(b'n') {
            self.expect_literal("null")?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // Generated types only use the string form (unit variants); serde_json handles the rest.
        if self.peek() != Some(b'"') {
            return Err(Error::new("expected a string enum"));
        }
        match self.read_str()? {
            Decoded::Borrowed(s) => visitor.visit_enum(s.into_deserializer()),
            Decoded::Owned(s) => visitor.visit_enum(s.into_deserializer()),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.skip_value()?;
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        // serde_json's RawValue needs serde_json's own deserializer.
        if name.starts_with("$serde_json::") {
            return Err(Error::new("serde_json private type"));
        }
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier
    }
}

/// The elements of an array.
struct Elements<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: bool,
}

impl<'de> SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.de.peek() {
            Some(b']') => return Ok(None),
            Some(b',') if !self.first => {
                self.de.pos += 1;
                if self.de.peek() == Some(b']') {
                    return Err(Error::new("trailing comma"));
                }
            }
            _ if self.first => {}
            _ => return Err(Error::new("expected `,` or `]`")),
        }
        self.first = false;
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// The members of an object.
struct Entries<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    first: bool,
    /// Where this object's keys start in the shared key list.
    start: usize,
}

impl<'de> MapAccess<'de> for Entries<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.de.peek() {
            Some(b'}') => return Ok(None),
            Some(b',') if !self.first => {
                self.de.pos += 1;
                if self.de.peek() != Some(b'"') {
                    return Err(Error::new("expected a key after `,`"));
                }
            }
            Some(b'"') if self.first => {}
            _ => return Err(Error::new("expected a key")),
        }
        self.first = false;
        let key = self.de.read_str()?.into_cow();
        // An escaped key (rare) is copied: one copy to remember, one for the visitor.
        if !self.de.keys.insert(self.start, key.clone()) {
            return Err(Error::duplicate());
        }
        let key = match key {
            Cow::Borrowed(s) => seed.deserialize(de::value::BorrowedStrDeserializer::new(s)),
            Cow::Owned(s) => seed.deserialize(de::value::StringDeserializer::new(s)),
        }?;
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        if self.de.peek() != Some(b':') {
            return Err(Error::new("expected `:`"));
        }
        self.de.pos += 1;
        seed.deserialize(&mut *self.de)
    }
}
