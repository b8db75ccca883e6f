//! Small serde adapters named by generated `#[serde(with = ...)]` attributes, for the cases
//! where TypeScript's optional-versus-nullable distinction has no serde default.

use serde::{Deserialize, Deserializer, Serializer};

/// For `field?: T | null` and `field?: any`: a present key becomes `Some`, even when its value
/// is `null`, so `Option<Option<T>>` keeps "absent" and "null" apart and a present `null`
/// survives a round trip.
pub fn present<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// Serializes a TypeScript `number`: whole values within f64's exact integer range are written
/// as integers (`45231`, not `45231.0`), so integral values round-trip unchanged.
pub mod number {
    use super::*;

    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53

    #[allow(clippy::trivially_copy_pass_by_ref)] // serde's `serialize_with` passes a reference
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.fract() == 0.0 && v.abs() < EXACT {
            s.serialize_i64(*v as i64)
        } else {
            s.serialize_f64(*v)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        f64::deserialize(d)
    }
}

/// Any other value holding TypeScript `number`s below lists, maps, `Option`s or aliases
/// (`number[]`, `Record<string, number>`, `Version[]` for `type Version = number`): written
/// as `number` writes each of them, whole values without `.0`. The value goes through a
/// `serde_json::Value` first, so only such fields pay for it.
pub mod whole_numbers {
    use serde::Serialize;
    use serde::ser::Error as _;
    use serde_json::Value;

    pub fn serialize<T: Serialize, S: super::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        let mut value = serde_json::to_value(v).map_err(S::Error::custom)?;
        make_whole(&mut value);
        value.serialize(s)
    }

    /// Rewrites every whole float within f64's exact integer range as an integer.
    pub fn make_whole(v: &mut Value) {
        match v {
            Value::Number(n) => {
                if let Some(f) = n.as_f64().filter(|_| n.is_f64())
                    && f.fract() == 0.0
                    && f.abs() < 9_007_199_254_740_992.0
                {
                    *n = serde_json::Number::from(f as i64);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(make_whole),
            Value::Object(members) => members.values_mut().for_each(make_whole),
            _ => {}
        }
    }
}

/// `number` inside an `Option` (an optional or nullable field).
pub mod option_number {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => super::number::serialize(v, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Option::<f64>::deserialize(d)
    }
}

/// For a required `field: T | null`: the key must be present, its value may be `null`.
/// (serde alone would read a missing key as `None`.)
pub fn nullable<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d)
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct N {
        #[serde(with = "super::number")]
        n: f64,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "super::present"
        )]
        o: Option<Option<String>>,
    }

    #[test]
    fn whole_numbers_stay_integers_and_null_stays_present() {
        let v: N = serde_json::from_str(r#"{"n": 45231, "o": null}"#).unwrap();
        assert_eq!(v.o, Some(None));
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"n":45231,"o":null}"#
        );
        let v: N = serde_json::from_str(r#"{"n": 35.4}"#).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"n":35.4}"#);
    }
}
