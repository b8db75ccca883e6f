//! "Did you mean" for spec diagnostics: the closest valid name to a misspelt one, and the
//! YAML reader's errors reworded so they carry that suggestion and no source snippet of their
//! own (the diagnostic shows one, under the real file's name).

/// Where the spec formats are documented, for hints: the `spec` module of the `agentwire`
/// facade crate's published docs (spec/README.md), which a downstream crate can read (it has no
/// copy of this repository).
pub const DOCS: &str = "https://docs.rs/agentwire/latest/agentwire/spec/index.html";

/// The anchor of "gRPC protocols" in [`DOCS`].
pub const GRPC_DOCS: &str = "grpc-protocols-transportkind-grpc";

/// The anchor of "Session skeletons" in [`DOCS`].
pub const SESSIONS_DOCS: &str = "session-skeletons-sessions-for-transportkind-httpwebsocket";

/// A section of [`DOCS`], by the anchor rustdoc gives its heading (`protocolyaml` for
/// "`protocol.yaml`").
pub fn docs(section: &str) -> String {
    format!("{DOCS}#{section}")
}

/// A hint naming a section of the docs: `see <what> in agentwire's docs, <url>`.
pub fn see(what: &str, section: &str) -> String {
    format!("see {what} in agentwire's docs, {}", docs(section))
}

/// The candidate closest to `word` by edit distance, if it is close enough to be a typo: at
/// most a third of the word's length (at least 1), and a different word.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (distance(&word.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `; did you mean `x`?` for the closest candidate, or nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates).map_or(String::new(), |c| format!("; did you mean `{c}`?"))
}

/// Levenshtein distance, counting an adjacent swap as one edit (a common typo).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = d;
        }
    }
    rows[a.len()][b.len()]
}

/// The YAML reader's message for `e`, without its own snippet (which names the text
/// `<input>`) and its `line N column M` (the diagnostic gives the real file's), plus a
/// suggestion for an unknown field or value.
pub fn yaml_message(e: &serde_saphyr::Error) -> String {
    let text = e.without_snippet().to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    // `line 7 column 6: message`
    let text = match text.split_once(": ") {
        Some((place, rest)) if place.starts_with("line ") && place.contains(" column ") => rest,
        _ => text,
    };
    let text = text.lines().next().unwrap_or_default();
    // `... at line 7, column 6`
    let text = match text.rsplit_once(" at line ") {
        Some((what, place)) if place.contains(", column ") => what,
        _ => text,
    }
    .to_owned();
    for what in ["unknown field `", "unknown variant `"] {
        let Some(rest) = text.strip_prefix(what) else {
            continue;
        };
        let Some((word, list)) = rest.split_once("`, expected one of ") else {
            continue;
        };
        let candidates: Vec<&str> = list.split(", ").map(|c| c.trim_matches('`')).collect();
        return format!("{text}{}", did_you_mean(word, candidates));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The id rustdoc gives a Markdown heading: lower case, spaces as `-`, other marks dropped.
    fn rustdoc_id(heading: &str) -> String {
        heading
            .chars()
            .filter_map(|c| match c {
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
                c if c.is_whitespace() => Some('-'),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_section_a_hint_names_is_a_heading_of_the_spec_docs() {
        let readme = include_str!("../../spec/README.md");
        let ids: Vec<String> = readme
            .lines()
            .filter_map(|l| l.strip_prefix('#'))
            .map(|h| rustdoc_id(h.trim_start_matches('#').trim()))
            .collect();
        for section in ["protocolyaml", "machineyaml", GRPC_DOCS, SESSIONS_DOCS] {
            assert!(
                ids.iter().any(|id| id == section),
                "{section} not in {ids:?}"
            );
        }
    }

    #[test]
    fn the_closest_name_within_reach_is_suggested() {
        assert_eq!(closest("framin", ["kind", "framing"]), Some("framing"));
        assert_eq!(
            closest("trnasport", ["transport", "roles"]),
            Some("transport")
        );
        assert_eq!(
            closest("json-txt", ["json-text", "content-length"]),
            Some("json-text")
        );
        assert_eq!(closest("zzz", ["kind", "framing"]), None);
        assert_eq!(closest("kind", ["kind"]), None);
    }
}
