//! Types for TypeScript's lone boolean literal types (`ok: true`): they serialize to their one
//! value and refuse any other.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::error::FieldError;
use crate::validate::{JsonPointer, Validate};

macro_rules! bool_literal {
    ($name:ident, $value:literal, $text:literal, $other:literal) => {
        #[doc = concat!("The JSON value `", $text, "` and nothing else.")]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bool($value)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("the boolean ", $text))
                    }
                    fn visit_bool<E: de::Error>(self, v: bool) -> Result<$name, E> {
                        if v == $value {
                            Ok($name)
                        } else {
                            Err(E::unknown_variant($other, &[$text]))
                        }
                    }
                }
                d.deserialize_bool(V)
            }
        }

        impl Validate for $name {
            #[inline]
            fn validate_at(&self, _: &mut JsonPointer, _: &mut Vec<FieldError>) {}
        }

        #[cfg(feature = "schemars")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $text.into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "const": $value })
            }
        }
    };
}

bool_literal!(True, true, "true", "false");
bool_literal!(False, false, "false", "true");

/// Schema stand-in for a required `field: T | null`: schemars' own `Option<T>` handling would
/// make the key optional, and its `required` attribute would forbid `null`.
#[cfg(feature = "schemars")]
pub struct Nullable<T>(std::marker::PhantomData<T>);

#[cfg(feature = "schemars")]
impl<T: schemars::JsonSchema> schemars::JsonSchema for Nullable<T> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Nullable_{}", T::schema_name()).into()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut inner = generator.subschema_for::<T>();
        // A plain `{"type": "string"}` becomes `{"type": ["string", "null"]}`, so validation
        // attributes (`length`, `regex`) still find their type; anything else gets `anyOf`.
        if let Some(serde_json::Value::String(ty)) = inner.get("type").cloned() {
            inner.insert("type".into(), serde_json::json!([ty, "null"]));
            return inner;
        }
        schemars::json_schema!({ "anyOf": [inner, { "type": "null" }] })
    }
}
