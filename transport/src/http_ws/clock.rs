//! RFC 3339 timestamps (`createdAt`) that never repeat within one server, so a stored user
//! message can be matched to its forward by time alone, as the sequence checker does.

use std::time::{SystemTime, UNIX_EPOCH};

/// Hands out strictly increasing millisecond timestamps.
#[derive(Debug, Default)]
pub struct Clock {
    last_ms: u64,
}

impl Clock {
    pub fn new() -> Self {
        Self::default()
    }

    /// The current UTC time, bumped one millisecond past the previous answer when the wall
    /// clock has not moved (or moved back).
    pub fn now(&mut self) -> String {
        let wall = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        self.last_ms = wall.max(self.last_ms.saturating_add(1));
        format_millis(self.last_ms)
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the Unix epoch.
pub fn format_millis(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        ms % 1000
    )
}

// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let m = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(1_765_497_600_123), "2025-12-12T00:00:00.123Z");
        assert_eq!(format_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn never_repeats() {
        let mut c = Clock::new();
        let a = c.now();
        let b = c.now();
        assert!(b > a, "{b} should sort after {a}");
    }
}
