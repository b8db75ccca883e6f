//! Reading JSON numbers with serde_json's grammar and its choice of Rust type: `u64` for a
//! non-negative integer, `i64` for a negative one, `f64` for everything else.

use serde::de::Visitor;

use super::Error;

/// Reads the number at `*pos` and hands it to `visitor`, leaving `*pos` after it.
pub(super) fn read<'de, V: Visitor<'de>>(
    text: &str,
    pos: &mut usize,
    visitor: V,
) -> Result<V::Value, Error> {
    let start = *pos;
    let number = scan(text.as_bytes(), start)?;
    *pos = number.end;
    if !number.is_float
        && let Some(magnitude) = integer(&text.as_bytes()[number.int_digits.clone()])
    {
        if !number.negative {
            return visitor.visit_u64(magnitude);
        }
        // serde_json turns `-0` and anything below i64::MIN into a float.
        if magnitude != 0 && magnitude <= i64::MIN.unsigned_abs() {
            return visitor.visit_i64((magnitude as i64).wrapping_neg());
        }
    }
    // Floats go through serde_json's own parser so both paths round alike.
    match serde_json::from_str::<f64>(&text[start..number.end]) {
        Ok(f) => visitor.visit_f64(f),
        Err(_) => Err(Error::new("number out of range")),
    }
}

/// Steps over the number at `*pos` checking only its grammar, as serde_json does for a value
/// nobody reads (so `1e400` in an ignored field is accepted there too).
pub(super) fn skip(bytes: &[u8], pos: &mut usize) -> Result<(), Error> {
    *pos = scan(bytes, *pos)?.end;
    Ok(())
}

/// Where a number's parts are.
struct Scanned {
    negative: bool,
    int_digits: std::ops::Range<usize>,
    is_float: bool,
    end: usize,
}

fn scan(bytes: &[u8], start: usize) -> Result<Scanned, Error> {
    let negative = bytes.get(start) == Some(&b'-');
    let int_start = start + usize::from(negative);
    let mut i = digits_end(bytes, int_start);
    let int_digits = &bytes[int_start..i];
    if int_digits.is_empty() || (int_digits.len() > 1 && int_digits[0] == b'0') {
        return Err(Error::new("invalid number"));
    }
    let int_digits = int_start..i;
    let mut is_float = false;
    if bytes.get(i) == Some(&b'.') {
        is_float = true;
        let frac_end = digits_end(bytes, i + 1);
        if frac_end == i + 1 {
            return Err(Error::new("invalid number"));
        }
        i = frac_end;
    }
    if let Some(b'e' | b'E') = bytes.get(i) {
        is_float = true;
        i += 1;
        if let Some(b'+' | b'-') = bytes.get(i) {
            i += 1;
        }
        let exp_end = digits_end(bytes, i);
        if exp_end == i {
            return Err(Error::new("invalid number"));
        }
        i = exp_end;
    }
    Ok(Scanned {
        negative,
        int_digits,
        is_float,
        end: i,
    })
}

fn digits_end(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

/// The value of a run of decimal digits, if it fits a `u64`.
fn integer(digits: &[u8]) -> Option<u64> {
    digits.iter().try_fold(0u64, |n, &d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}
