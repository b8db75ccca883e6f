//! The doc of a folder with several versions: a line `<!-- agentwire:version <name> -->`
//! starts the part of the document about that version, up to the next such line. Each
//! version is checked against the text before the first marker (what every version shares)
//! and its own part, the other parts blanked so that line numbers stay the document's; the
//! generated regions (diagrams, notes, constants) of a part are that version's. A document
//! without markers is checked against the newest version, as a one-version document is.

use crate::front::load::LoadedSpec;

use super::{Finding, Report};

/// The start of a version marker line; the version's name and ` -->` follow.
pub const VERSION_MARKER: &str = "<!-- agentwire:version ";

/// One part of a document: the version it is about (`None` for the shared text before the
/// first marker) and its lines, `[start, end)` by 0-based line index.
struct Part {
    version: Option<String>,
    start: usize,
    end: usize,
}

/// The version a marker line names.
fn marker(line: &str) -> Option<&str> {
    line.trim()
        .strip_prefix(VERSION_MARKER)?
        .strip_suffix("-->")
        .map(str::trim)
}

/// `doc`'s parts, or `None` when it has no version marker.
fn parts(doc: &str) -> Option<Vec<Part>> {
    let lines: Vec<&str> = doc.split('\n').collect();
    let mut parts = vec![Part {
        version: None,
        start: 0,
        end: lines.len(),
    }];
    for (i, l) in lines.iter().enumerate() {
        if let Some(v) = marker(l) {
            if let Some(last) = parts.last_mut() {
                last.end = i;
            }
            parts.push(Part {
                version: Some(v.to_owned()),
                start: i,
                end: lines.len(),
            });
        }
    }
    (parts.len() > 1).then_some(parts)
}

/// The version of `spec` named `name`.
fn version<'a>(spec: &'a LoadedSpec, name: &str) -> Option<&'a LoadedSpec> {
    spec.versions
        .iter()
        .find(|v| v.protocol.version.as_ref().is_some_and(|i| i.name == name))
}

/// The check of a versioned folder's document with markers; `None` when `spec` has no
/// versions or `doc` no markers (then it is checked as any document).
pub fn check(spec: &LoadedSpec, doc_path: &std::path::Path, doc: &str) -> Option<Report> {
    if spec.versions.is_empty() {
        return None;
    }
    let parts = parts(doc)?;
    let lines: Vec<&str> = doc.split('\n').collect();
    let mut report = Report::default();
    for part in parts.iter().filter(|p| p.version.is_some()) {
        let name = part.version.as_deref().unwrap_or_default();
        let Some(v) = version(spec, name) else {
            report.findings.push(Finding {
                line: part.start + 1,
                message: format!("version `{name}` is not one of the spec's `versions:`"),
            });
            continue;
        };
        // The shared part and this one; every other line blank.
        let masked: Vec<&str> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let shared = i < parts[0].end;
                if shared || (part.start..part.end).contains(&i) {
                    *l
                } else {
                    ""
                }
            })
            .collect();
        let one = super::check_doc_one(v, doc_path, &masked.join("\n"));
        report.declarations += one.declarations;
        report.json_examples += one.json_examples;
        report.sequences += one.sequences;
        for f in one.findings {
            let message = format!("version {name}: {}", f.message);
            report.findings.push(Finding {
                line: f.line,
                message,
            });
        }
        report.notes.extend(one.notes);
    }
    for v in &spec.versions {
        let Some(info) = &v.protocol.version else {
            continue;
        };
        if !parts
            .iter()
            .any(|p| p.version.as_deref() == Some(&info.name))
        {
            report.findings.push(Finding {
                line: 1,
                message: format!(
                    "version `{}` has no part of its own (a line `{VERSION_MARKER}{} -->`)",
                    info.name, info.name
                ),
            });
        }
    }
    report.findings.sort_by_key(|f| f.line);
    report.findings.dedup();
    report.notes.sort_by_key(|f| f.line);
    report.notes.dedup();
    Some(report)
}

/// `doc` with each part's generated regions written from its own version (the shared part's
/// from the newest); `None` when `spec` has no versions or `doc` no markers.
pub fn with_regions(spec: &LoadedSpec, doc: &str) -> Option<Option<String>> {
    if spec.versions.is_empty() {
        return None;
    }
    let parts = parts(doc)?;
    let lines: Vec<&str> = doc.split('\n').collect();
    let mut changed = false;
    let mut out: Vec<String> = Vec::new();
    for part in &parts {
        let text = lines[part.start..part.end].join("\n");
        let of = match &part.version {
            None => spec,
            Some(name) => version(spec, name).unwrap_or(spec),
        };
        match super::with_diagram_one(of, &text) {
            Some(fresh) => {
                changed |= fresh != text;
                out.push(fresh);
            }
            None => out.push(text),
        }
    }
    Some(changed.then(|| out.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_split_a_document_into_the_shared_text_and_one_part_per_version() {
        let doc =
            "# P\nshared\n<!-- agentwire:version 2 -->\ntwo\n<!-- agentwire:version 1 -->\none";
        let split = parts(doc).expect("markers");
        let got: Vec<(Option<&str>, usize, usize)> = split
            .iter()
            .map(|p| (p.version.as_deref(), p.start, p.end))
            .collect();
        assert_eq!(got, [(None, 0, 2), (Some("2"), 2, 4), (Some("1"), 4, 6)]);
        assert!(parts("# P\nno markers").is_none());
    }
}
