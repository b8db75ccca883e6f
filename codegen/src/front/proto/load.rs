//! The protobuf front end: compiles a spec folder's `.proto` file with protox (no `protoc`
//! needed) and reads the constraint tags written in field comments.
//!
//! Tags sit anywhere in a field's leading or trailing comment, one per line, the value running
//! to the end of that line:
//!
//! ```proto
//! // The agent's id. @minLength 1
//! string agent_id = 1;
//! int32 timeout_seconds = 5; // @minimum 1
//! ```
//!
//! On a repeated field, `@minItems`/`@maxItems` count the elements and every other tag applies
//! to each element; on a map field the tags apply to each value.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use miette::Diagnostic;
use prost_types::FileDescriptorSet;
use protox::prost_reflect::{DescriptorPool, FieldDescriptor};

use crate::diag::{SourceFile, SpecError, SpecErrors};
use crate::front::proto_include::ImportRoots;
use crate::front::tags::{self, TagName};
use crate::ir::Constraints;
use crate::rules;
use crate::rules::TagError;

/// A compiled `.proto` spec: the descriptors prost and pbjson generate from, and the
/// constraints found in comments.
#[derive(Debug, Clone)]
pub struct ProtoSpec {
    /// The spec folder, as the caller named it (diagnostics use it as the path prefix).
    pub spec_dir: PathBuf,
    /// The root `.proto` file, relative to `spec_dir`.
    pub file: String,
    /// Every compiled file, imports first, with source info (comments and spans).
    pub fds: FileDescriptorSet,
    /// The same files as a reflection pool, for walking messages, fields and services.
    pub pool: DescriptorPool,
    /// Constraints by the field's full proto name (`pkg.RegisterAgent.agent_id`).
    pub constraints: BTreeMap<String, Constraints>,
    /// Declared defaults (`@default 30` in a field's comment) by the field's full proto name.
    pub defaults: BTreeMap<String, serde_json::Value>,
    /// Every `.proto` source read from disk (the spec folder's and the include folders'),
    /// by proto file name, for later diagnostics.
    pub sources: BTreeMap<String, SourceFile>,
    /// The names of the spec folder's own files (the others are imports).
    pub own: std::collections::BTreeSet<String>,
    /// Custom options (`google.api.field_behavior`, `google.api.http`, ...) by the full proto
    /// name of what carries them, each option by its full name with its value as JSON.
    pub options: BTreeMap<String, BTreeMap<String, serde_json::Value>>,
}

impl ProtoSpec {
    /// The protocol's main proto package: the root file's. Its types keep their local names;
    /// other packages' (see [`ProtoSpec::packages`]) are named in full.
    pub fn package(&self) -> Result<String, SpecErrors> {
        let root = self.fds.file.iter().find(|f| f.name() == self.file);
        match root.map(|f| f.package()) {
            Some(p) if !p.is_empty() => Ok(p.to_owned()),
            _ => {
                let at = self.sources.get(&self.file);
                let message = format!("{} declares no `package`", self.file);
                let error = match at {
                    Some(source) => SpecError::at(source, (0, 0), message),
                    None => SpecError::new(message),
                };
                Err(error
                    .with_help("add `package <name>;`: it names the generated types")
                    .into())
            }
        }
    }

    /// Every `.proto` file read from disk, own and imported.
    pub fn source_paths(&self) -> Vec<PathBuf> {
        self.sources.values().map(|s| s.path.clone()).collect()
    }

    /// The files that belong to the spec folder (not imports).
    pub fn own_files(&self) -> impl Iterator<Item = &prost_types::FileDescriptorProto> {
        self.fds.file.iter().filter(|f| self.own.contains(f.name()))
    }

    /// The packages that get Rust types, sorted: the main package (the root file's), those
    /// of what the own files' rpcs carry, and every package a message of a kept package
    /// uses, at any depth. A file imported only for
    /// its options (`google/api/annotations.proto`) adds nothing; the well-known types are
    /// `pbjson_types`' and never among them.
    pub fn packages(&self) -> std::collections::BTreeSet<String> {
        let mut kept: std::collections::BTreeSet<String> = self
            .fds
            .file
            .iter()
            .filter(|f| f.name() == self.file)
            .map(|f| f.package().to_owned())
            .collect();
        // What the own files' services take and return gets Rust types too (the skeletons
        // name them).
        let carried: Vec<String> = self
            .pool
            .services()
            .filter(|s| self.own.contains(s.parent_file().name()))
            .flat_map(|s| s.methods().collect::<Vec<_>>())
            .flat_map(|m| [m.input(), m.output()])
            .map(|m| m.package_name().to_owned())
            .filter(|p| p != "google.protobuf")
            .collect();
        kept.extend(carried);
        loop {
            let before = kept.len();
            let used: Vec<String> = self
                .pool
                .all_messages()
                .filter(|m| kept.contains(m.package_name()))
                .flat_map(|m| m.fields().collect::<Vec<_>>())
                .filter_map(|f| match f.kind() {
                    protox::prost_reflect::Kind::Message(m) => Some(m.package_name().to_owned()),
                    protox::prost_reflect::Kind::Enum(e) => Some(e.package_name().to_owned()),
                    _ => None,
                })
                .filter(|p| p != "google.protobuf")
                .collect();
            kept.extend(used);
            if kept.len() == before {
                return kept;
            }
        }
    }
}

/// Compiles `spec_dir/file` (imports resolve in `spec_dir`, then the common Google protos and
/// the bundled well-known types) and collects its constraint tags.
pub fn load_proto(spec_dir: &Path, file: &str) -> Result<ProtoSpec, SpecErrors> {
    load_proto_in(&ImportRoots::folder(spec_dir), file)
}

/// Reads the binary `FileDescriptorSet` `roots.spec_dir/file` (`front::proto_set`).
pub fn load_descriptor_set_in(roots: &ImportRoots, file: &str) -> Result<ProtoSpec, SpecErrors> {
    crate::front::proto_set::load(roots, file)
}

/// Compiles `roots.spec_dir/file`, its imports resolved through `roots`, and collects its
/// constraint tags and custom options. Every problem is reported with its file, line and
/// column.
pub fn load_proto_in(roots: &ImportRoots, file: &str) -> Result<ProtoSpec, SpecErrors> {
    let spec_dir = roots.spec_dir.as_path();
    let mut compiler = crate::front::proto_include::compiler(roots);
    compiler.include_source_info(true).include_imports(true);
    compiler
        .open_file(file)
        .map_err(|e| from_protox(roots, &e))?;
    let fds = compiler.file_descriptor_set();
    let pool = compiler.descriptor_pool();

    let mut errors = SpecErrors::default();
    let mut sources = BTreeMap::new();
    let mut own = std::collections::BTreeSet::new();
    for meta in compiler.files() {
        // Files without a path on disk are protox's bundled well-known types.
        let Some(path) = meta.path() else { continue };
        match SourceFile::read(path) {
            Ok(mut source) => {
                if path == spec_dir.join(meta.name()) {
                    // The folder as the caller spelled it, e.g. `spec/<module>/<module>.proto`.
                    source.path = spec_dir.join(meta.name());
                    own.insert(meta.name().to_owned());
                }
                sources.insert(meta.name().to_owned(), source);
            }
            Err(e) => errors.push(e),
        }
    }
    let options = crate::front::proto_options::collect(&pool, &own);

    let mut constraints = BTreeMap::new();
    let mut defaults = BTreeMap::new();
    for message in pool.all_messages() {
        let file_name = message.parent_file().name().to_owned();
        let Some(source) = sources.get(&file_name) else {
            continue;
        };
        if message.is_map_entry() {
            continue;
        }
        let info = message
            .parent_file_descriptor_proto()
            .source_code_info
            .as_ref();
        for field in message.fields() {
            let Some(location) =
                info.and_then(|i| i.location.iter().find(|l| l.path == field.path()))
            else {
                continue;
            };
            let mut default = None;
            let c = tags_of_field(source, location, &field, &mut default, &mut errors);
            if let Some(v) = default {
                defaults.insert(field.full_name().to_owned(), v);
            }
            if !c.is_empty() {
                constraints.insert(field.full_name().to_owned(), c);
            }
        }
    }

    errors.finish(ProtoSpec {
        spec_dir: spec_dir.to_path_buf(),
        file: file.to_owned(),
        fds,
        pool,
        constraints,
        defaults,
        sources,
        own,
        options,
    })
}

/// Turns a protox error (a miette diagnostic with spans) and the ones related to it into spec
/// errors that keep their location.
fn from_protox(roots: &ImportRoots, error: &protox::Error) -> SpecErrors {
    let path = error.file().and_then(|name| roots.path_of(name));
    let source = path.as_ref().and_then(|path| SourceFile::read(path).ok());
    let mut errors = SpecErrors::default();
    let mut first = from_diagnostic(source.as_ref(), error);
    // A file that cannot be shown (not UTF-8) is still named by its path.
    if let (None, Some(path)) = (&source, &path) {
        first.message = format!("{}: {}", path.display(), first.message);
    }
    if let Some(help) = missing_common_help(roots, &first.message) {
        first.help = Some(help);
    }
    errors.push(first);
    if let Some(related) = error.related() {
        for d in related {
            errors.push(from_diagnostic(source.as_ref(), d));
        }
    }
    errors
}

/// The hint for an import of a common Google proto that is not in the cache yet.
fn missing_common_help(roots: &ImportRoots, message: &str) -> Option<String> {
    let name = message.strip_prefix("import '")?.split('\'').next()?;
    if !crate::front::proto_include::is_common(name) || roots.common.is_some() {
        return None;
    }
    let pin = crate::front::proto_include::common_pin();
    let root = crate::front::sources::cache_root(&roots.spec_dir);
    Some(format!(
        "`{name}` comes from {} (the common Google protos), which is not fetched yet: {}",
        pin.spec(),
        pin.fetch_help(&root)
    ))
}

fn from_diagnostic(source: Option<&SourceFile>, d: &dyn Diagnostic) -> SpecError {
    let message = d.to_string();
    let label = d.labels().and_then(|mut l| l.next());
    let mut error = match (source, &label) {
        (Some(source), Some(label)) => {
            let mut e = SpecError::at(source, (label.offset(), label.len()), message);
            if let Some(text) = label.label() {
                e.label = text.to_owned();
            }
            e
        }
        (Some(source), None) => {
            // No span (e.g. a missing import target): point at the file's start.
            SpecError::at(source, (0, 0), message)
        }
        _ => SpecError::new(message),
    };
    if let Some(help) = d.help() {
        error.help = Some(help.to_string());
    }
    error
}

/// Parses the tags of one field and checks that they fit its type, through the shared
/// constraint pipeline (`front::tags`).
fn tags_of_field(
    source: &SourceFile,
    location: &prost_types::source_code_info::Location,
    field: &FieldDescriptor,
    default: &mut Option<serde_json::Value>,
    errors: &mut SpecErrors,
) -> Constraints {
    let mut out = Constraints::default();
    let comments = [
        location.leading_comments.as_deref(),
        location.trailing_comments.as_deref(),
    ];
    if comments.iter().flatten().all(|c| !c.contains('@')) {
        return out;
    }
    let ty = crate::front::proto_ty::field_ty(field);
    let mut spans = Vec::new();
    for region in comment_ranges(source, location) {
        let text = &source.text[region.0..region.1];
        for (offset, name, value) in scan_tags(text) {
            let span = (region.0 + offset, name.len() + 1 + value.len());
            let here = |e: TagError| SpecError::at(source, span, e.message).with_help(e.help);
            if name == "default" {
                // Named types (enums) are not resolved here: any string passes for them.
                let read = crate::front::defaults::value(value, &ty, &BTreeMap::new());
                match read {
                    Ok(_) if default.is_some() => {
                        errors.push(SpecError::at(source, span, "duplicate `@default`"))
                    }
                    Ok(v) => *default = Some(v),
                    Err(e) => errors.push(SpecError::at(source, span, e)),
                }
                continue;
            }
            let rule = match tags::classify_tag(name) {
                TagName::Known(rule) => rule,
                TagName::Misspelt(rule) => {
                    errors.push(here(tags::misspelt(name, rule)));
                    continue;
                }
                TagName::Other => continue,
            };
            let written = format!("@{name}");
            let parsed = rules::parse_value(rule, &written, value)
                .and_then(|v| rules::fits(rule, &written, rules::shape_for(rule, &ty)).map(|()| v))
                .and_then(|v| rules::apply(&mut out, rule, &written, v));
            match parsed {
                Ok(()) => spans.push((rule, span)),
                Err(e) => errors.push(here(e)),
            }
        }
    }
    // Say so at the upper bound.
    for (rule, e) in rules::check_bounds(&out, rules::tag_with_value) {
        let span = spans
            .iter()
            .find(|(r, _)| *r == rule)
            .map_or((0, 0), |(_, s)| *s);
        errors.push(SpecError::at(source, span, e.message).with_help(e.help));
    }
    out
}

/// The byte ranges of the source that hold a field's comments: the comment lines directly
/// above the field (its leading comment) and the rest of its last line, plus the comment lines
/// right below when the trailing comment starts there.
fn comment_ranges(
    source: &SourceFile,
    location: &prost_types::source_code_info::Location,
) -> Vec<(usize, usize)> {
    let text: &str = &source.text;
    let starts = line_starts(text);
    let line_end = |i: usize| starts.get(i + 1).copied().unwrap_or(text.len());
    let line = |i: usize| text[starts[i]..line_end(i)].trim();
    let span = &location.span;
    let start_line = span.first().copied().unwrap_or(0).max(0) as usize;
    let end_line = if span.len() == 4 { span[2] } else { span[0] }.max(0) as usize;
    if start_line >= starts.len() || end_line >= starts.len() {
        return Vec::new();
    }
    let mut ranges = Vec::new();

    if location.leading_comments.is_some() {
        let mut first = start_line;
        let mut in_block = false;
        while first > 0 {
            let above = line(first - 1);
            if in_block || above.ends_with("*/") {
                // Inside (or at the end of) a block comment: go on until its opening line.
                in_block = !above.contains("/*");
            } else if !above.starts_with("//") {
                break;
            }
            first -= 1;
        }
        if first < start_line {
            ranges.push((starts[first], starts[start_line]));
        }
    }

    if location.trailing_comments.is_some() {
        let (offset, len) = span_of(source, span);
        let from = offset + len;
        let mut to = line_end(end_line);
        let rest = &text[from..to];
        let mut next = end_line + 1;
        match comment_start(rest) {
            // A block comment opened on the field's line may run on to later lines.
            Some(i) if body_opens_block(&rest[i..], false) => {
                while next < starts.len() {
                    to = line_end(next);
                    let closes = line(next).contains("*/");
                    next += 1;
                    if closes {
                        break;
                    }
                }
            }
            Some(_) => {}
            // No comment on the field's line: the trailing comment sits on the lines below.
            None => {
                let mut in_block = false;
                while next < starts.len() {
                    let below = line(next);
                    if in_block || below.starts_with("/*") {
                        in_block = !below.contains("*/");
                    } else if !below.starts_with("//") {
                        break;
                    }
                    to = line_end(next);
                    next += 1;
                }
            }
        }
        ranges.push((from, to));
    }
    ranges
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Byte offset and length of a source-info span (0-based line and column).
pub(crate) fn span_of(source: &SourceFile, span: &[i32]) -> (usize, usize) {
    let starts = line_starts(&source.text);
    let at = |line: i32, col: i32| {
        let line_start = starts
            .get(line.max(0) as usize)
            .copied()
            .unwrap_or(source.text.len());
        let rest = &source.text[line_start..];
        let col = col.max(0) as usize;
        line_start + rest.char_indices().nth(col).map_or(rest.len(), |(i, _)| i)
    };
    match span {
        [line, col, end_col] => {
            let s = at(*line, *col);
            (s, at(*line, *end_col).saturating_sub(s))
        }
        [line, col, end_line, end_col] => {
            let s = at(*line, *col);
            (s, at(*end_line, *end_col).saturating_sub(s))
        }
        _ => (0, 0),
    }
}

/// Every `@name value` in comment lines of `text`: (offset of `@`, name, value up to the end of
/// the line, without a closing `*/`). Only `//` and `/* */` comment text is scanned.
fn scan_tags(text: &str) -> Vec<(usize, &str, &str)> {
    let mut out = Vec::new();
    let mut offset = 0;
    let mut in_block = false;
    for line in text.split_inclusive('\n') {
        let body_start = if in_block {
            Some(0)
        } else {
            comment_start(line)
        };
        if let Some(start) = body_start {
            let body = &line[start..];
            in_block = body_opens_block(body, in_block);
            let mut search = 0;
            while let Some(i) = body[search..].find('@') {
                let at = search + i;
                search = at + 1;
                if at > 0
                    && !body[..at].ends_with(|c: char| c.is_whitespace() || c == '/' || c == '*')
                {
                    continue; // part of a word, e.g. an email address
                }
                let name_len = body[at + 1..]
                    .find(|c: char| !c.is_ascii_alphabetic())
                    .unwrap_or(body.len() - at - 1);
                if name_len == 0 {
                    continue;
                }
                let name = &body[at + 1..at + 1 + name_len];
                if name != "default" && tags::classify_tag(name) == TagName::Other {
                    continue; // `@someone` in free text is not a tag
                }
                let rest = &body[at + 1 + name_len..];
                let mut value = rest.trim_end_matches(['\n', '\r']);
                if let Some(i) = value.find("*/") {
                    value = &value[..i];
                }
                out.push((offset + start + at, name, value.trim_end()));
                break; // one tag per line; the value runs to the line's end
            }
        } else {
            in_block = false;
        }
        offset += line.len();
    }
    out
}

/// Where the comment text of a line starts, if the line has a comment outside a string.
fn comment_start(line: &str) -> Option<usize> {
    let mut in_string: Option<char> = None;
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        match in_string {
            Some(_) if c == '\\' => i += 1,
            Some(q) if c == q => in_string = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => in_string = Some(c),
            None if c == '/' && matches!(bytes.get(i + 1), Some(b'/' | b'*')) => {
                return Some(i);
            }
            None => {}
        }
        i += 1;
    }
    None
}

/// Whether a block comment is still open at the end of `body`.
fn body_opens_block(body: &str, mut open: bool) -> bool {
    let mut rest = body;
    loop {
        if open {
            match rest.find("*/") {
                Some(i) => {
                    open = false;
                    rest = &rest[i + 2..];
                }
                None => return true,
            }
        } else {
            match (rest.find("/*"), rest.find("//")) {
                (Some(b), line) if line.is_none_or(|l| b < l) => {
                    open = true;
                    rest = &rest[b + 2..];
                }
                _ => return false,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_found_in_line_and_block_comments() {
        let text = "  // The id. @minLength 1\n  /* @pattern ^a+$ */\n  // mail me@host.org\n  // ask @bob @maxItems 2\n";
        let tags: Vec<_> = scan_tags(text)
            .into_iter()
            .map(|(o, n, v)| (&text[o..o + 1], n, v))
            .collect();
        assert_eq!(
            tags,
            vec![
                ("@", "minLength", " 1"),
                ("@", "pattern", " ^a+$"),
                ("@", "maxItems", " 2")
            ]
        );
    }
}
