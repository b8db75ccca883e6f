//! Decoding by a type or role chosen at run time (trace files, docs checks, fixtures): decode,
//! validate, and hand back the value re-encoded as the typed code would send it.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::decode::decode_checked;
use crate::error::Invalid;
use crate::validate::Validate;

/// Decodes `json` as `T`, validates it, and re-encodes it; a failure lists every error found.
pub fn reencode<T: DeserializeOwned + Serialize + Validate>(json: &str) -> Result<Value, Invalid> {
    let value: T = decode_checked(json)?;
    Ok(serde_json::to_value(&value).expect("generated types always serialize"))
}

/// As [`reencode`], for a plain alias of numbers (`type Version = number`, `number[]`): `T` is
/// `f64` itself (or lists and maps of it), so the whole values are made whole again, as a
/// field of that type writes them.
pub fn reencode_numbers<T: DeserializeOwned + Serialize + Validate>(
    json: &str,
) -> Result<Value, Invalid> {
    let mut value = reencode::<T>(json)?;
    crate::serde_helpers::whole_numbers::make_whole(&mut value);
    Ok(value)
}
