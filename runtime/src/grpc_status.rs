//! gRPC's status codes (the names and numbers of `google.rpc.Code`): the one list that spec
//! loading (which statuses may end a stream) and trace checking (which statuses a trace records)
//! both read.

/// The status code names, indexed by their number: `CODES[6]` is `ALREADY_EXISTS`.
pub const CODES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

/// The HTTP status of each code, indexed by its number, as `google/rpc/code.proto` maps them
/// (what an HTTP binding of a gRPC service answers a failed call with).
pub const HTTP: [u16; 17] = [
    200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401,
];

/// The codes that end a call early: every code but `OK`.
pub fn failures() -> &'static [&'static str] {
    &CODES[1..]
}

/// The code name spelled `name`, if it is one.
pub fn by_name(name: &str) -> Option<&'static str> {
    CODES.iter().copied().find(|code| *code == name)
}

/// The code name of number `n`, if it is one.
pub fn by_number(n: u64) -> Option<&'static str> {
    CODES.get(usize::try_from(n).ok()?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_agree() {
        assert_eq!(by_number(6), Some("ALREADY_EXISTS"));
        assert_eq!(by_name("UNAUTHENTICATED"), by_number(16));
        assert_eq!(by_number(17), None);
        assert_eq!(by_name("Ok"), None);
        assert!(!failures().contains(&"OK"));
        assert_eq!(failures().len(), 16);
        assert_eq!((HTTP[5], HTTP[9], HTTP[16]), (404, 400, 401));
    }
}
