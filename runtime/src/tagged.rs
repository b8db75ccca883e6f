//! Decoding of internally tagged unions (`{"type": "message", ...}`) that dispatches on the
//! discriminator as soon as it is read. serde's own `#[serde(tag)]` buffers every object into
//! an intermediate tree first; here only the keys that precede the discriminator are buffered
//! (usually none or one), and the rest streams straight into the variant's struct.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};
use serde_json::Value;

/// The prefix of an error raised inside a buffered field: "at `/pointer`: ". `decode` strips it
/// back into the error's pointer.
pub(crate) const AT_PREFIX: &str = "at `";

/// A union whose variants are told apart by one string field. Generated for every TypeScript
/// union of interfaces that share a literal field.
pub trait TaggedUnion<'de>: Sized {
    /// The discriminator field name, e.g. `type`.
    const TAG: &'static str;
    /// Every discriminator value, in spec order.
    const KINDS: &'static [&'static str];
    /// The value an object without the discriminator is read as, where the spec declares one
    /// (`@default` on a member's tag field); `None`: the discriminator is required.
    const DEFAULT_KIND: Option<&'static str> = None;

    /// Builds the variant for `kind` from the object's other fields.
    fn from_kind<M: MapAccess<'de>>(kind: &str, rest: M) -> Result<Self, M::Error>;
}

/// `Deserialize::deserialize` for a `TaggedUnion`.
pub fn deserialize<'de, T: TaggedUnion<'de>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_map(TaggedVisitor::<T>(PhantomData))
}

/// The error for a discriminator value outside `T::KINDS`.
pub fn unknown_kind<'de, T: TaggedUnion<'de>, E: de::Error>(kind: &str) -> E {
    E::custom(format_args!(
        "unknown `{}` value `{kind}`, expected one of {}",
        T::TAG,
        quoted_list(T::KINDS)
    ))
}

pub(crate) fn quoted_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs the variant's own `Deserialize` over the remaining fields.
pub fn variant<'de, T: Deserialize<'de>, M: MapAccess<'de>>(rest: M) -> Result<T, M::Error> {
    T::deserialize(de::value::MapAccessDeserializer::new(rest))
}

/// Writes `value` (an object) with the discriminator `tag: kind` ahead of its own members: for
/// a union member that does not write its discriminator itself.
pub fn serialize_with_tag<T: serde::Serialize, S: serde::Serializer>(
    tag: &str,
    kind: &str,
    value: &T,
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::{Error, SerializeMap};
    let members = match serde_json::to_value(value).map_err(S::Error::custom)? {
        Value::Object(members) => members,
        other => {
            return Err(S::Error::custom(format_args!(
                "a `{tag}` union member must be an object, not {other}"
            )));
        }
    };
    let mut map = s.serialize_map(Some(members.len() + 1))?;
    map.serialize_entry(tag, kind)?;
    for (k, v) in members.iter().filter(|(k, _)| k.as_str() != tag) {
        map.serialize_entry(k, v)?;
    }
    map.end()
}

struct TaggedVisitor<T>(PhantomData<T>);

impl<'de, T: TaggedUnion<'de>> Visitor<'de> for TaggedVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an object with a `{}` field", T::TAG)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut buffered: Vec<(Text<'de>, Value)> = Vec::new();
        while let Some(key) = map.next_key::<Text<'de>>()? {
            if key.as_str() == T::TAG {
                let kind: Text<'de> = map.next_value()?;
                let rest = ChainedMap {
                    buffered: buffered.into_iter(),
                    pending: None,
                    inner: map,
                };
                return T::from_kind(kind.as_str(), rest);
            }
            let value: Value = map.next_value()?;
            buffered.push((key, value));
        }
        if let Some(kind) = T::DEFAULT_KIND {
            let rest = ChainedMap {
                buffered: buffered.into_iter(),
                pending: None,
                inner: map,
            };
            return T::from_kind(kind, rest);
        }
        Err(de::Error::custom(format_args!(
            "missing discriminator `{}`",
            T::TAG
        )))
    }
}

/// A string (an object key or a discriminator) that borrows from the input when the
/// deserializer allows it. Generated struct decoders read their keys with it.
#[derive(Debug)]
pub enum Text<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Text<'_> {
    pub fn as_str(&self) -> &str {
        match self {
            Text::Borrowed(s) => s,
            Text::Owned(s) => s,
        }
    }
}

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text::Borrowed(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text::Owned(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Text<'de>, E> {
                Ok(Text::Owned(v))
            }
        }
        d.deserialize_str(TextVisitor)
    }
}

/// The fields buffered before the discriminator, followed by the rest of the original map.
struct ChainedMap<'de, A> {
    buffered: std::vec::IntoIter<(Text<'de>, Value)>,
    pending: Option<(Text<'de>, Value)>,
    inner: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for ChainedMap<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.buffered.next() {
            Some((key, value)) => {
                let k = seed.deserialize(key.as_str().into_deserializer())?;
                self.pending = Some((key, value));
                Ok(Some(k))
            }
            None => self.inner.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        let Some((key, value)) = self.pending.take() else {
            return self.inner.next_value_seed(seed);
        };
        // The usual case (an `id` ahead of `type`) is a string: hand it over without a copy,
        // through `Value`'s own deserializer, which reads a string into an `Option` as `Some`
        // (serde's `StringDeserializer` refuses that, so an optional string field written
        // before the discriminator, such as a chunk's message id, failed to decode).
        let value = match value {
            Value::String(s) => {
                return seed.deserialize(Value::String(s)).map_err(|e| {
                    de::Error::custom(format_args!("{AT_PREFIX}/{}`: {e}", escape(key.as_str())))
                });
            }
            other => other,
        };
        // The value went through a `Value` on its way here, so the outer path tracker cannot
        // see inside it: track the inner path ourselves and carry it in the message.
        let mut track = serde_path_to_error::Track::new();
        // A container recurses once per level outside the guarded reader: give it room.
        let deep = matches!(value, Value::Array(_) | Value::Object(_));
        let read = |track: &mut serde_path_to_error::Track| {
            seed.deserialize(serde_path_to_error::Deserializer::new(value, track))
        };
        let read = if deep {
            crate::decode::serde_json_room(|| read(&mut track))
        } else {
            read(&mut track)
        };
        read.map_err(|e| {
            let mut pointer = String::from("/");
            pointer.push_str(&escape(key.as_str()));
            pointer.push_str(&crate::decode::path_to_pointer(&track.path()));
            de::Error::custom(format_args!("{AT_PREFIX}{pointer}`: {e}"))
        })
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner
            .size_hint()
            .map(|n| n + self.buffered.len() + usize::from(self.pending.is_some()))
    }
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
