//! The one list of Rust keywords, strict and reserved, that no generated name may be written
//! plainly as.

/// Every keyword of the 2024 edition, reserved ones included (`gen`, `try`, `abstract`, ...).
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
];

/// The keywords that cannot be written raw either (`r#self` is not an identifier).
const NOT_RAW: &[&str] = &["crate", "self", "Self", "super"];

/// Whether `s` must be written `r#s` (or, for [`can_be_raw`]'s exceptions, renamed) to be a
/// Rust identifier.
pub fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// Whether `r#s` is an identifier: every keyword but `crate`, `self`, `Self` and `super`.
pub fn can_be_raw(s: &str) -> bool {
    !NOT_RAW.contains(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_keyword_is_refused_as_a_plain_identifier() {
        // syn predates the 2024 edition's reserved `gen`.
        for k in KEYWORDS.iter().filter(|k| **k != "gen") {
            assert!(syn::parse_str::<syn::Ident>(k).is_err(), "{k}");
            let raw = syn::parse_str::<syn::Ident>(&format!("r#{k}"));
            assert_eq!(raw.is_ok(), can_be_raw(k), "r#{k}");
        }
        assert!(!is_keyword("types"));
    }
}
