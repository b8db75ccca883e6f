//! Checks for the `@format` names a spec may use. Hand-written rather than pulled in from URL
//! and date crates: each check is a few lines and the generated code stays dependency-light.

/// Whether `s` is a valid instance of `format`. Unknown format names accept everything, as
/// JSON Schema prescribes; the spec lint rejects them before code is generated.
pub fn check(format: &str, s: &str) -> bool {
    match format {
        "uri" => is_uri(s),
        "date-time" => is_date_time(s),
        "uuid" => is_uuid(s),
        _ => true,
    }
}

/// An absolute URI: a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`), a colon, and a
/// rest without whitespace or control characters.
pub fn is_uri(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !rest
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | '"'))
}

/// An RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`.
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(u32::MAX);
    if b.len() < 20
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
    {
        return false;
    }
    if !matches!(b[10], b'T' | b't' | b' ')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    let (month, day, hour, minute, second) =
        (num(5..7), num(8..10), num(11..13), num(14..16), num(17..19));
    let year = num(0..4);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if day == 0 || day > month_days || hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match &b[i..] {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => {
            [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit())
                && (h1 - b'0') * 10 + (h2 - b'0') < 24
                && (m1 - b'0') * 10 + (m2 - b'0') < 60
        }
        _ => false,
    }
}

/// A UUID in its hyphenated 8-4-4-4-12 hex form.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert!(is_uri("http://external.internal/v1/assistant/input"));
        assert!(is_uri("file://foo/bar.clj"));
        assert!(!is_uri("external.internal/v1"));
        assert!(!is_uri("http://a b"));
        assert!(!is_uri("1http://a"));
    }

    #[test]
    fn date_times() {
        assert!(is_date_time("2025-12-12T00:00:00.000Z"));
        assert!(is_date_time("2024-02-29T23:59:59+01:00"));
        assert!(!is_date_time("2025-02-29T00:00:00Z"));
        assert!(!is_date_time("2025-12-12"));
        assert!(!is_date_time("2025-12-12T00:00:00.Z"));
        assert!(!is_date_time("2025-12-12T24:00:00Z"));
    }

    #[test]
    fn uuids() {
        assert!(is_uuid("550e8400-e29b-41d4-a716-446655440000"));
        assert!(!is_uuid("550e8400e29b41d4a716446655440000"));
    }
}
