//! A `.d.ts` spread over several files: `import { X } from "./other"`, `export * from
//! "./other"` and `export { X } from "./other"` bring the files they name (relative to the
//! importing file, inside the spec folder) into one declaration space. The files are read one
//! after another as one text whose import statements are blanked out (offsets, lines and
//! columns unchanged), so every diagnostic still names its own file, line and column.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use oxc_allocator::Allocator;
use oxc_ast::ast::{ImportDeclarationSpecifier, ModuleExportName, Statement, StringLiteral};
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType, Span};

use crate::diag::{SourceFile, SpecError, SpecErrors};

/// One file's place in the joined text.
pub(super) struct Segment {
    start: usize,
    pub(super) file: SourceFile,
    pub(super) rel: String,
}

/// The files of a types spec, joined.
pub(super) struct Sources {
    pub(super) text: String,
    segments: Vec<Segment>,
}

impl Sources {
    /// `file` alone, read as written (imports included).
    pub(super) fn single(file: &SourceFile, rel: &str) -> Self {
        Self {
            text: file.text.to_string(),
            segments: vec![Segment {
                start: 0,
                file: file.clone(),
                rel: rel.to_owned(),
            }],
        }
    }

    /// The file holding the joined text's `offset`, and the offset within it.
    pub(super) fn locate(&self, offset: usize) -> (&Segment, usize) {
        let i = self
            .segments
            .partition_point(|s| s.start <= offset)
            .saturating_sub(1);
        let seg = &self.segments[i];
        (seg, offset - seg.start)
    }

    /// An error at `span` of the joined text, located in its own file.
    pub(super) fn error(&self, span: (usize, usize), message: impl Into<String>) -> SpecError {
        let (seg, local) = self.locate(span.0);
        SpecError::at(&seg.file, (local, span.1), message)
    }

    /// Every file read, for the derive to rebuild when one changes.
    pub(super) fn paths(&self) -> Vec<PathBuf> {
        self.segments.iter().map(|s| s.file.path.clone()).collect()
    }
}

/// `file` (at `rel` in the spec folder) and every file it imports, transitively, each once.
pub(super) fn gather(file: &SourceFile, rel: &str) -> Result<Sources, SpecErrors> {
    let depth = Path::new(rel).components().count();
    let folder = file.path.ancestors().nth(depth).unwrap_or(Path::new("."));
    let folder = folder
        .canonicalize()
        .unwrap_or_else(|_| folder.to_path_buf());
    let mut errors = SpecErrors::default();
    let mut queue = vec![(file.clone(), rel.to_owned())];
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    seen.insert(canonical(&file.path));
    let mut sources = Sources {
        text: String::new(),
        segments: Vec::new(),
    };
    let mut next = 0;
    while let Some((file, rel)) = queue.get(next).cloned() {
        next += 1;
        let (blanked, imports) = imports_of(&file, &mut errors);
        for (spec, span) in imports {
            match resolve(&file, &folder, &spec) {
                Ok(path) if seen.insert(canonical(&path)) => match SourceFile::read(&path) {
                    Ok(f) => {
                        let rel = relative(&folder, &path);
                        queue.push((f, rel));
                    }
                    Err(e) => errors.push(SpecError::at(&file, span, e.message)),
                },
                Ok(_) => {}
                Err(message) => errors.push(SpecError::at(&file, span, message)),
            }
        }
        if !sources.text.is_empty() {
            sources.text.push('\n');
        }
        sources.segments.push(Segment {
            start: sources.text.len(),
            file,
            rel,
        });
        sources.text.push_str(&blanked);
    }
    errors.finish(sources)
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

fn relative(folder: &Path, path: &Path) -> String {
    let path = canonical(path);
    path.strip_prefix(folder)
        .unwrap_or(&path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// A relative specifier an import names, and its span (offset, length) in the importing file.
type Import = (String, (usize, usize));

/// The text of `file` with its import and re-export statements blanked out, and the relative
/// specifiers they name (with the span of each). Package imports are blanked and not followed:
/// a name taken from one is reported as unknown where it is used.
fn imports_of(file: &SourceFile, errors: &mut SpecErrors) -> (String, Vec<Import>) {
    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, &file.text, SourceType::ts()).parse();
    if !parsed.diagnostics.is_empty() {
        // Reported where the joined text is parsed, located in this file.
        return (file.text.to_string(), Vec::new());
    }
    let mut text = file.text.as_bytes().to_vec();
    let mut found = Vec::new();
    for stmt in &parsed.program.body {
        let source = match stmt {
            Statement::ImportDeclaration(i) => {
                if let Some(specifiers) = &i.specifiers {
                    check_specifiers(file, specifiers, errors);
                }
                &i.source
            }
            Statement::ExportAllDeclaration(e) => {
                if let Some(name) = &e.exported {
                    errors.push(SpecError::at(
                        file,
                        span_of(name.span()),
                        "`export * as name from` makes a namespace object, which is not read; write `export * from`",
                    ));
                }
                &e.source
            }
            Statement::ExportFromDeclaration(e) => &e.source,
            _ => continue,
        };
        blank(&mut text, stmt.span());
        if is_relative(source) {
            found.push((source.value.as_str().to_owned(), span_of(source.span)));
        }
    }
    // Only ASCII bytes were replaced by spaces, so the text is still UTF-8.
    (String::from_utf8(text).unwrap_or_default(), found)
}

/// Refuses imports the joined declaration space cannot mean: a rename, a default import, a
/// namespace import.
fn check_specifiers(
    file: &SourceFile,
    specifiers: &[ImportDeclarationSpecifier<'_>],
    errors: &mut SpecErrors,
) {
    for s in specifiers {
        let message = match s {
            ImportDeclarationSpecifier::ImportSpecifier(i) => match &i.imported {
                ModuleExportName::IdentifierName(n) if n.name == i.local.name => continue,
                ModuleExportName::IdentifierReference(n) if n.name == i.local.name => continue,
                _ => format!(
                    "`{}` renames an imported type; import it under its own name (`import {{ {} }}`)",
                    &file.text[i.span.start as usize..i.span.end as usize],
                    i.imported.name()
                ),
            },
            ImportDeclarationSpecifier::ImportDefaultSpecifier(_) => {
                "a default import names no declaration; import the types by name (`import { A } from ...`)".to_owned()
            }
            ImportDeclarationSpecifier::ImportNamespaceSpecifier(_) => {
                "a namespace import (`import * as ns`) is not read; import the types by name (`import { A } from ...`)".to_owned()
            }
        };
        errors.push(SpecError::at(file, span_of(s.span()), message));
    }
}

fn is_relative(source: &StringLiteral<'_>) -> bool {
    let s = source.value.as_str();
    s.starts_with("./") || s.starts_with("../")
}

fn span_of(span: Span) -> (usize, usize) {
    (span.start as usize, span.size() as usize)
}

/// Replaces `span` of `text` with spaces, keeping line breaks.
fn blank(text: &mut [u8], span: Span) {
    let end = (span.end as usize).min(text.len());
    for b in &mut text[(span.start as usize).min(end)..end] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

/// The file `spec` names from `file`, as TypeScript finds it: with `.ts` or `.d.ts` added (a
/// `.js` written for the emitted code stands for them), or the folder's `index`; inside
/// `folder`, the spec folder.
fn resolve(file: &SourceFile, folder: &Path, spec: &str) -> Result<PathBuf, String> {
    let dir = file.path.parent().unwrap_or(Path::new("."));
    let stem = ["js", "mjs", "cjs"]
        .iter()
        .find_map(|ext| spec.strip_suffix(&format!(".{ext}")))
        .unwrap_or(spec);
    let mut tried = Vec::new();
    for candidate in [
        spec.to_owned(),
        format!("{stem}.ts"),
        format!("{stem}.d.ts"),
        format!("{stem}.mts"),
        format!("{stem}.d.mts"),
        format!("{stem}/index.ts"),
        format!("{stem}/index.d.ts"),
    ] {
        let path = lexical(&dir.join(&candidate));
        if candidate.ends_with("ts") && path.is_file() {
            if !canonical(&path).starts_with(folder) {
                return Err(format!(
                    "`{spec}` is outside the spec folder; keep the types files in it ({})",
                    folder.display()
                ));
            }
            return Ok(path);
        }
        if candidate.ends_with("ts") {
            tried.push(candidate);
        }
    }
    Err(format!(
        "cannot find `{spec}`: none of {} is a file beside this one; name a `.ts` or `.d.ts` file of the spec folder",
        tried.join(", ")
    ))
}

/// `path` without `.` components and with each `..` taking off the component before it, so
/// a diagnostic names `types/a.ts`, not `./types/../types/a.ts`.
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
