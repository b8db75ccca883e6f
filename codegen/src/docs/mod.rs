//! The docs drift check: compares a Markdown document's TypeScript and protobuf blocks with the
//! spec, validates its JSON examples, replays its sequence listings through the machines, and
//! lists spec kinds it never mentions. Every finding names a document line.

pub mod compare;
pub mod constants;
pub mod examples;
pub mod files;
pub mod markdown;
pub mod notes;
pub mod sequences;
pub mod typescript;
pub mod versions;

use std::path::Path;

use crate::front::load::LoadedSpec;
use markdown::Block;

/// One difference between a document and the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// 1-based line in the document.
    pub line: usize,
    pub message: String,
}

/// What one document holds and what the check found in it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    pub declarations: usize,
    pub json_examples: usize,
    pub sequences: usize,
    pub findings: Vec<Finding>,
    /// What was not compared and why, and differences the spec explains in a `Spec note:`.
    pub notes: Vec<Finding>,
}

/// The marker lines between which `cargo xtask gen` writes the state diagrams.
pub const DIAGRAM_BEGIN: &str = "<!-- agentwire:diagram:begin -->";
pub const DIAGRAM_END: &str = "<!-- agentwire:diagram:end -->";
/// The marker lines between which `cargo xtask gen` writes the spec's `Spec note:` list.
pub const NOTES_BEGIN: &str = "<!-- agentwire:notes:begin -->";
pub const NOTES_END: &str = "<!-- agentwire:notes:end -->";
/// The marker lines between which `cargo xtask gen` writes the spec's declared constants
/// (`transport.port`, `transport.content_type`, `sessions.websocket`, `@default`s).
pub const CONSTANTS_BEGIN: &str = "<!-- agentwire:constants:begin -->";
pub const CONSTANTS_END: &str = "<!-- agentwire:constants:end -->";

/// A document whose lines outside `blocks` of `langs` are blanked, so a parser's line numbers
/// are the document's.
pub(super) fn overlay(doc: &str, blocks: &[&Block], header: &str) -> String {
    let total = doc.lines().count().max(1);
    let mut lines = vec![String::new(); total + 1];
    lines[0] = header.to_owned();
    for b in blocks {
        for (i, l) in b.text.lines().enumerate() {
            let at = b.line - 1 + i;
            if at < lines.len() {
                lines[at] = l.to_owned();
            } else {
                lines.push(l.to_owned());
            }
        }
    }
    lines.join("\n")
}

/// Checks one document against a loaded spec (a versioned folder's document part by part,
/// see [`versions`]).
pub fn check_doc(spec: &LoadedSpec, doc_path: &Path, doc: &str) -> Report {
    let doc = doc.replace("\r\n", "\n");
    versions::check(spec, doc_path, &doc).unwrap_or_else(|| check_doc_one(spec, doc_path, &doc))
}

/// Checks one document (or one version's part of it) against one spec.
fn check_doc_one(spec: &LoadedSpec, doc_path: &Path, doc: &str) -> Report {
    let doc = doc.replace("\r\n", "\n");
    let blocks = markdown::blocks(&doc);
    let mut report = Report::default();
    let ts: Vec<&Block> = blocks
        .iter()
        .filter(|b| matches!(b.lang.as_str(), "ts" | "typescript"))
        .collect();
    let proto: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.lang == "proto" || b.lang == "protobuf")
        .collect();
    let doc_types = if ts.is_empty() {
        typescript::Types::new()
    } else {
        typescript::check(spec, doc_path, &doc, &ts, &mut report)
    };
    if !proto.is_empty()
        && let Some(p) = &spec.proto
    {
        let package = p
            .fds
            .file
            .last()
            .and_then(|f| f.package.clone())
            .unwrap_or_default();
        let header = format!("syntax = \"proto3\"; package {package};");
        report.declarations += compare::protobuf(p, &doc, &proto, &header, &mut report.findings);
    }
    let schemas = examples::Schemas::new(spec, &doc_types);
    for b in blocks.iter().filter(|b| b.lang == "json") {
        report.json_examples += 1;
        report.findings.extend(examples::check(spec, b, &schemas));
    }
    for b in blocks
        .iter()
        .filter(|b| matches!(b.lang.as_str(), "text" | ""))
    {
        if sequences::is_listing(&b.text) {
            report.sequences += 1;
            let findings = sequences::replay(&spec.protocol, b);
            if !b.attrs.split_whitespace().any(|a| a == "invalid") {
                report.findings.extend(findings);
            } else if findings.is_empty() {
                report.findings.push(Finding {
                    line: b.line,
                    message: "sequence differs: doc marks it invalid, spec (machine.yaml) allows every step".to_owned(),
                });
            }
        }
    }
    report.findings.extend(unmentioned(spec, &doc));
    report.findings.extend(stale_diagram(spec, &doc));
    report.findings.sort_by_key(|f| f.line);
    report
}

/// Names declared by `interface X` / `type X =` in a TypeScript block.
pub(super) fn declared_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start().trim_start_matches("export ");
            let rest = l
                .strip_prefix("interface ")
                .or_else(|| l.strip_prefix("type "))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// Kinds, methods and routes of the spec the document never names.
fn unmentioned(spec: &LoadedSpec, doc: &str) -> Vec<Finding> {
    let p = &spec.protocol;
    let names = p
        .messages
        .iter()
        .map(|m| m.kind.as_str())
        .chain(p.methods.iter().map(|m| m.name.as_str()));
    let mut out = Vec::new();
    // A route is mentioned by its name or by its path (`:param` and `{param}` placeholders
    // match any segment).
    for r in p
        .routes
        .iter()
        .filter(|r| !doc.contains(r.name.as_str()) && !mentions_path(doc, &r.path))
    {
        out.push(Finding {
            line: 1,
            message: format!(
                "the spec's `{}` ({} {}) is never mentioned",
                r.name, r.method, r.path
            ),
        });
    }
    for name in names {
        let mentioned = doc.match_indices(name).any(|(i, _)| {
            let before = doc[..i].chars().next_back();
            let after = doc[i + name.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !word(before) && !word(after)
        });
        if !mentioned
            && !out
                .iter()
                .any(|f: &Finding| f.message.contains(&format!("`{name}`")))
        {
            out.push(Finding {
                line: 1,
                message: format!("the spec's `{name}` is never mentioned"),
            });
        }
    }
    out
}

/// Whether `doc` writes `path`, a placeholder segment standing for any segment.
fn mentions_path(doc: &str, path: &str) -> bool {
    let placeholder = |s: &str| s.starts_with(':') || s.starts_with('{') || s.starts_with('<');
    let want: Vec<&str> = path.split('/').collect();
    doc.split(|c: char| c.is_whitespace() || matches!(c, '`' | '"' | '\'' | '(' | ')'))
        .filter(|w| w.starts_with('/') || w.starts_with("http"))
        .any(|w| {
            let w = w.split(['?', '#']).next().unwrap_or(w);
            let got: Vec<&str> = w.split('/').collect();
            got.len() >= want.len()
                && got[got.len() - want.len()..]
                    .iter()
                    .zip(&want)
                    .all(|(g, s)| g == s || placeholder(s) || placeholder(g))
        })
}

/// The diagram between the markers, as `cargo xtask gen` writes it.
pub fn diagram_block(spec: &LoadedSpec) -> String {
    let mut out = String::new();
    for m in &spec.protocol.machines {
        out.push_str(&format!(
            "\n`{}`: {}\n\n```mermaid\n{}```\n",
            m.name,
            m.summary,
            crate::emit::diagram::mermaid(m)
        ));
    }
    out.push('\n');
    out
}

/// `doc` with the text between `begin` and `end` replaced by `content`; `None` without them.
fn with_region(doc: &str, begin: &str, end: &str, content: &str) -> Option<String> {
    let start = doc.find(begin)? + begin.len();
    let stop = doc[start..].find(end)? + start;
    Some(format!(
        "{}\n{}{}",
        &doc[..start],
        content.trim_start_matches('\n'),
        &doc[stop..]
    ))
}

/// `doc` with its generated regions (the state diagrams, the spec notes) as `cargo xtask gen`
/// writes them; `None` when it has neither region's markers.
pub fn with_diagram(spec: &LoadedSpec, doc: &str) -> Option<String> {
    match versions::with_regions(spec, doc) {
        Some(fresh) => Some(fresh.unwrap_or_else(|| doc.to_owned())),
        None => with_diagram_one(spec, doc),
    }
}

/// [`with_diagram`] of one spec over the whole of `doc`.
fn with_diagram_one(spec: &LoadedSpec, doc: &str) -> Option<String> {
    let diagram = with_region(doc, DIAGRAM_BEGIN, DIAGRAM_END, &diagram_block(spec));
    let base = diagram.as_deref().unwrap_or(doc);
    let notes = with_region(base, NOTES_BEGIN, NOTES_END, &notes::notes_block(spec));
    let base = notes.as_deref().or(diagram.as_deref()).unwrap_or(doc);
    let constants = with_region(
        base,
        CONSTANTS_BEGIN,
        CONSTANTS_END,
        &constants::constants_block(&spec.protocol),
    );
    constants.or(notes).or(diagram)
}

fn stale_diagram(spec: &LoadedSpec, doc: &str) -> Vec<Finding> {
    match with_diagram(spec, doc) {
        Some(fresh) if fresh != doc => {
            // Point at the first region that changed.
            let region = |d: &str| {
                let start = d.find(DIAGRAM_BEGIN)?;
                d[start..]
                    .find(DIAGRAM_END)
                    .map(|end| d[start..start + end].to_owned())
            };
            let constants = |d: &str| {
                let start = d.find(CONSTANTS_BEGIN)?;
                d[start..]
                    .find(CONSTANTS_END)
                    .map(|end| d[start..start + end].to_owned())
            };
            let (marker, what) = if region(doc) != region(&fresh) {
                (DIAGRAM_BEGIN, "the state diagram differs from the machines")
            } else if constants(doc) != constants(&fresh) {
                (
                    CONSTANTS_BEGIN,
                    "the constants differ from the spec's declared ones",
                )
            } else {
                (
                    NOTES_BEGIN,
                    "the spec notes differ from the spec's `Spec note:` comments",
                )
            };
            let line = doc[..doc.find(marker).unwrap_or(0)].matches('\n').count() + 1;
            vec![Finding {
                line,
                message: format!("{what}: run `cargo xtask gen`"),
            }]
        }
        _ => Vec::new(),
    }
}
