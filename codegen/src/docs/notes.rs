//! The spec's `Spec note:` comments (types file and machines), gathered for the protocol docs:
//! every reading the spec takes where its source document is inconsistent or silent is shown
//! to readers, and `cargo xtask check` keeps the list fresh like the state diagrams.

use crate::front::load::LoadedSpec;

/// One note: the file and line it starts on, and its text on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecNote {
    pub file: String,
    pub line: usize,
    pub text: String,
}

/// The text of a comment line without its comment marker, or `None` for a non-comment line.
fn comment_text(line: &str) -> Option<&str> {
    let t = line.trim_start();
    let rest = ["///", "//", "/**", "*/", "#", "*"]
        .iter()
        .find_map(|m| t.strip_prefix(m))?;
    Some(rest.trim_end_matches("*/").trim())
}

/// Every `Spec note:` of one file: from the marker to the end of its comment paragraph.
pub fn notes_in(file: &str, text: &str) -> Vec<SpecNote> {
    let mut out: Vec<SpecNote> = Vec::new();
    let mut open: Option<SpecNote> = None;
    for (i, line) in text.lines().enumerate() {
        let comment = comment_text(line);
        if let Some(note) = open.as_mut() {
            match comment {
                Some(c) if !c.is_empty() && !c.starts_with('@') && !c.contains("Spec note:") => {
                    note.text.push(' ');
                    note.text.push_str(c);
                    continue;
                }
                _ => out.extend(open.take()),
            }
        }
        if let Some((c, at)) = comment.and_then(|c| c.find("Spec note:").map(|at| (c, at))) {
            open = Some(SpecNote {
                file: file.to_owned(),
                line: i + 1,
                text: c[at + "Spec note:".len()..].trim().to_owned(),
            });
        }
    }
    out.extend(open);
    out
}

/// The notes of every source file of the spec (types file, proto files, machine.yaml).
pub fn spec_notes(spec: &LoadedSpec) -> Vec<SpecNote> {
    let mut out = Vec::new();
    for path in &spec.files {
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        if name == "protocol.yaml" {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(path) {
            out.extend(notes_in(&name, &text));
        }
    }
    out
}

/// The Markdown the notes markers of a protocol doc hold.
pub fn notes_block(spec: &LoadedSpec) -> String {
    let mut out = String::from("\n");
    for n in spec_notes(spec) {
        out.push_str(&format!("- `{}:{}`: {}\n", n.file, n.line, n.text));
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_run_to_the_end_of_their_comment_paragraph() {
        let text = "// intro\n// Spec note: the doc says A;\n// the spec says B.\n//\n// other\n\
                    type X = string;\n  # Spec note: yaml one\n  - a: b\n/**\n * Spec note: in jsdoc.\n * @minLength 1\n */\n";
        let notes = notes_in("f", text);
        let got: Vec<(usize, &str)> = notes.iter().map(|n| (n.line, n.text.as_str())).collect();
        assert_eq!(
            got,
            [
                (2, "the doc says A; the spec says B."),
                (7, "yaml one"),
                (10, "in jsdoc.")
            ]
        );
    }
}
