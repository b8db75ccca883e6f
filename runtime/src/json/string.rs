//! Reading JSON strings: finding where a run of plain characters ends sixteen bytes at a time,
//! and decoding escapes straight into the string the caller keeps.
//!
//! Agent traffic is mostly long text (prompts, streamed replies, tool output) with an escape
//! every line or so, so this loop is where a typed parse spends most of its time. serde_json
//! copies each escaped string twice (into a scratch buffer, then into the `String` the visitor
//! builds); here the decoded text is written once, into the `String` handed to the visitor.

use super::Error;

/// A decoded string: a slice of the input when it held no escapes, else a new `String`.
pub(super) enum Decoded<'de> {
    Borrowed(&'de str),
    Owned(String),
}

/// The most an escaped string reserves up front; longer ones grow by doubling.
const RESERVE_LIMIT: usize = 64 * 1024;

/// Reads the string whose opening quote is at `*pos`, leaving `*pos` after its closing quote.
impl<'de> Decoded<'de> {
    pub(super) fn into_cow(self) -> std::borrow::Cow<'de, str> {
        match self {
            Decoded::Borrowed(s) => std::borrow::Cow::Borrowed(s),
            Decoded::Owned(s) => std::borrow::Cow::Owned(s),
        }
    }
}

pub(super) fn read<'de>(text: &'de str, pos: &mut usize) -> Result<Decoded<'de>, Error> {
    let bytes = text.as_bytes();
    let start = *pos + 1;
    let mut at = find_special(bytes, start);
    match bytes.get(at) {
        Some(b'"') => {
            *pos = at + 1;
            return Ok(Decoded::Borrowed(slice(text, start, at)?));
        }
        Some(b'\\') => {}
        Some(_) => return Err(Error::new("control character in a string")),
        None => return Err(Error::new("unterminated string")),
    }
    // The decoded text is never longer than the rest of the input, so reserving that (up to a
    // bound) means no reallocation while decoding; the excess is returned at the end.
    let mut out = String::with_capacity((bytes.len() - start).min(RESERVE_LIMIT));
    let mut run = start;
    loop {
        out.push_str(slice(text, run, at)?);
        at = unescape(bytes, at + 1, &mut out)?;
        run = at;
        at = find_special(bytes, at);
        match bytes.get(at) {
            Some(b'"') => {
                out.push_str(slice(text, run, at)?);
                *pos = at + 1;
                if out.capacity() > 2 * out.len() + 64 {
                    out.shrink_to_fit();
                }
                return Ok(Decoded::Owned(out));
            }
            Some(b'\\') => {}
            Some(_) => return Err(Error::new("control character in a string")),
            None => return Err(Error::new("unterminated string")),
        }
    }
}

/// Steps over the string whose opening quote is at `*pos` without decoding it, checking what
/// serde_json checks for a value nobody reads: no raw control characters, known escapes, four
/// hex digits after `\u` (but, like serde_json, not whether surrogates pair up).
pub(super) fn skip(bytes: &[u8], pos: &mut usize) -> Result<(), Error> {
    let mut at = *pos + 1;
    loop {
        at = find_special(bytes, at);
        match bytes.get(at) {
            Some(b'"') => {
                *pos = at + 1;
                return Ok(());
            }
            Some(b'\\') => match bytes.get(at + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
                Some(b'u') => {
                    hex4(bytes, at + 2)?;
                    at += 6;
                }
                Some(_) => return Err(Error::new("invalid escape")),
                None => return Err(Error::new("unterminated string")),
            },
            Some(_) => return Err(Error::new("control character in a string")),
            None => return Err(Error::new("unterminated string")),
        }
    }
}

/// `text[from..to]`; the bounds always sit next to ASCII bytes, so this cannot split a
/// character, but a refusal is still an error and never a panic.
#[inline]
fn slice(text: &str, from: usize, to: usize) -> Result<&str, Error> {
    text.get(from..to)
        .ok_or_else(|| Error::new("string bounds inside a character"))
}

/// The index of the first byte at or after `at` that ends a plain run (`"`, `\` or a control
/// character), or `bytes.len()`.
#[inline]
pub(super) fn find_special(bytes: &[u8], mut at: usize) -> usize {
    while let Some(block) = bytes.get(at..).and_then(<[u8]>::first_chunk::<16>) {
        let mask = special_mask(block);
        if mask != 0 {
            return at + mask.trailing_zeros() as usize;
        }
        at += 16;
    }
    while let Some(&b) = bytes.get(at) {
        if is_special(b) {
            return at;
        }
        at += 1;
    }
    at
}

#[inline(always)]
fn is_special(b: u8) -> bool {
    b == b'"' || b == b'\\' || b < 0x20
}

/// One bit per byte of `block` that ends a plain run, lowest bit first. On x86-64 this is a
/// handful of SSE2 instructions (part of every x86-64, wrapped safely by `safe_arch`); the
/// portable form below compiles to far worse vector code, so it only serves other targets.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn special_mask(block: &[u8; 16]) -> u32 {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, max_u8_m128i, move_mask_i8_m128i,
        set_splat_i8_m128i,
    };
    let v = load_unaligned_m128i(block);
    let quote = cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'"' as i8));
    let backslash = cmp_eq_mask_i8_m128i(v, set_splat_i8_m128i(b'\\' as i8));
    // Unsigned `b < 0x20` is `max(b, 0x1f) == 0x1f`: SSE2 has no unsigned less-than.
    let limit = set_splat_i8_m128i(0x1f);
    let control = cmp_eq_mask_i8_m128i(max_u8_m128i(v, limit), limit);
    move_mask_i8_m128i(bitor_m128i(bitor_m128i(quote, backslash), control)) as u32
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn special_mask(block: &[u8; 16]) -> u32 {
    let mut mask = 0u32;
    for (i, &b) in block.iter().enumerate() {
        mask |= u32::from(is_special(b)) << i;
    }
    mask
}

/// Decodes the escape whose letter is at `at` (just after the backslash) onto `out`; returns
/// the index after the escape.
#[inline]
fn unescape(bytes: &[u8], at: usize, out: &mut String) -> Result<usize, Error> {
    let c = match bytes.get(at) {
        Some(b'n') => '\n',
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b't') => '\t',
        Some(b'r') => '\r',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'u') => return unescape_unicode(bytes, at + 1, out),
        Some(_) => return Err(Error::new("invalid escape")),
        None => return Err(Error::new("unterminated string")),
    };
    out.push(c);
    Ok(at + 1)
}

/// Decodes `\uXXXX` (and the low half of a surrogate pair after it) whose digits start at
/// `at`; a lone or mismatched surrogate is an error, as in serde_json.
#[cold]
fn unescape_unicode(bytes: &[u8], at: usize, out: &mut String) -> Result<usize, Error> {
    let unit = hex4(bytes, at)?;
    let (code, next) = match unit {
        0xD800..=0xDBFF => {
            if bytes.get(at + 4..at + 6) != Some(b"\\u") {
                return Err(Error::new("lone leading surrogate"));
            }
            let low = hex4(bytes, at + 6)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return Err(Error::new("invalid trailing surrogate"));
            }
            (0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), at + 10)
        }
        0xDC00..=0xDFFF => return Err(Error::new("lone trailing surrogate")),
        _ => (unit, at + 4),
    };
    out.push(char::from_u32(code).ok_or_else(|| Error::new("invalid code point"))?);
    Ok(next)
}

fn hex4(bytes: &[u8], at: usize) -> Result<u32, Error> {
    let digits = bytes
        .get(at..at + 4)
        .ok_or_else(|| Error::new("short unicode escape"))?;
    digits.iter().try_fold(0u32, |unit, &d| {
        let v = char::from(d)
            .to_digit(16)
            .ok_or_else(|| Error::new("invalid unicode escape"))?;
        Ok(unit * 16 + v)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(json: &str) -> Result<String, Error> {
        let mut pos = 0;
        let s = match read(json, &mut pos)? {
            Decoded::Borrowed(s) => s.to_owned(),
            Decoded::Owned(s) => s,
        };
        assert_eq!(pos, json.len(), "stops after the closing quote");
        Ok(s)
    }

    #[test]
    fn plain_strings_borrow_and_escaped_ones_decode() {
        let mut pos = 0;
        assert!(matches!(
            read("\"abc\"", &mut pos),
            Ok(Decoded::Borrowed("abc"))
        ));
        assert_eq!(
            decode(r#""a\nb\"c\\d\/e\tf\u00e9\ud83d\ude00""#).unwrap(),
            "a\nb\"c\\d/e\tfé😀"
        );
        // Specials on both sides of a 16-byte block boundary.
        for n in 0..40 {
            let body = "x".repeat(n);
            assert_eq!(
                decode(&format!("\"{body}\\n{body}\"")).unwrap(),
                format!("{body}\n{body}")
            );
        }
    }

    #[test]
    fn a_short_escaped_string_does_not_keep_the_room_reserved_for_the_rest() {
        let json = format!("\"a\\nb\", {}", "x".repeat(50_000));
        let mut pos = 0;
        let Ok(Decoded::Owned(s)) = read(&json, &mut pos) else {
            panic!("an escaped string is decoded into a new String");
        };
        assert_eq!((s.as_str(), pos), ("a\nb", 6));
        assert!(
            s.capacity() <= 2 * s.len() + 64,
            "capacity {}",
            s.capacity()
        );
    }

    #[test]
    fn broken_strings_are_errors() {
        for bad in [
            "\"abc",
            "\"a\\",
            "\"a\\x\"",
            "\"a\u{1}\"",
            "\"\\u12\"",
            "\"\\ud83d\"",
            "\"\\ude00\"",
            "\"\\ud83d\\u0041\"",
            "\"\\u12g4\"",
            &format!("\"{}\u{1f}\"", "y".repeat(30)),
        ] {
            assert!(decode(bad).is_err(), "{bad:?} accepted");
        }
    }
}
