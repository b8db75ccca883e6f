//! Spec diagnostics: every problem found in a spec file, with its file, line and column.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use miette::{Diagnostic, NamedSource, SourceSpan};

/// One mistake in a spec file, rendered by miette as `file:line:col` with the offending text.
#[derive(Debug, Clone, thiserror::Error, Diagnostic)]
#[error("{message}")]
pub struct SpecError {
    pub message: String,
    #[source_code]
    pub source_code: Option<NamedSource<Arc<str>>>,
    #[label("{label}")]
    pub span: Option<SourceSpan>,
    pub label: String,
    #[help]
    pub help: Option<String>,
    /// The file the error is about, kept apart from the rendered source for plain-text output.
    pub file: Option<PathBuf>,
}

impl SpecError {
    /// An error with no location (a missing folder, an unreadable file).
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            source_code: None,
            span: None,
            label: String::new(),
            help: None,
            file: None,
        }
    }

    /// An error pointing at `span` (byte offset and length) inside `file`.
    pub fn at(file: &SourceFile, span: (usize, usize), message: impl Into<String>) -> Self {
        let message = message.into();
        let (offset, len) = span;
        let offset = offset.min(file.text.len());
        let len = len.min(file.text.len() - offset);
        Self {
            label: "here".to_owned(),
            source_code: Some(NamedSource::new(
                file.path.display().to_string(),
                file.text.clone(),
            )),
            span: Some(SourceSpan::new(offset.into(), len)),
            help: None,
            file: Some(file.path.clone()),
            message,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// `file:line:col` of the error's start, when it has one (1-based line and column).
    pub fn location(&self) -> Option<String> {
        let file = self.file.as_ref()?;
        let src = self.source_code.as_ref()?;
        let offset = self.span?.offset();
        let (line, col) = line_col(src.inner(), offset);
        Some(format!("{}:{line}:{col}", file.display()))
    }

    /// One plain line: `file:line:col: message (hint)`; what `cargo xtask` prints and the
    /// derive macro puts inside `compile_error!`.
    pub fn one_line(&self) -> String {
        let mut out = match self.location() {
            Some(loc) => format!("{loc}: {}", self.message),
            None => self.message.clone(),
        };
        if let Some(help) = &self.help {
            out.push_str(&format!(" (hint: {help})"));
        }
        out
    }
}

impl SpecError {
    /// The offending source line under its number, the span underlined, as rustc and miette
    /// show them; `None` for an error without a location.
    ///
    /// ```text
    ///   |
    /// 3 | interface Ping { type: 'ping' id: string; }
    ///   |                               ^^ here
    /// ```
    pub fn snippet(&self) -> Option<String> {
        let text = self.source_code.as_ref()?.inner();
        let span = self.span?;
        let offset = floor_char_boundary(text, span.offset().min(text.len()));
        let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let line = text[start..end].trim_end_matches('\r');
        let number = line_col(text, offset).0.to_string();
        let gutter = " ".repeat(number.len());
        // Tabs stay tabs under the line, so the marks line up in any editor.
        let pad: String = text[start..offset]
            .chars()
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let marked = line.get(offset - start..).unwrap_or_default();
        let width = marked
            .char_indices()
            .take_while(|(i, _)| *i < span.len())
            .count()
            .max(1);
        let marks = format!("{pad}{} {}", "^".repeat(width), self.label);
        Some(format!(
            "{gutter} |\n{number} | {line}\n{gutter} | {}",
            marks.trim_end()
        ))
    }

    /// [`one_line`](Self::one_line), then the [`snippet`](Self::snippet) when there is one:
    /// what `cargo xtask` prints and the derive macro reports.
    pub fn render(&self) -> String {
        match self.snippet() {
            Some(snippet) => format!("{}\n{snippet}", self.one_line()),
            None => self.one_line(),
        }
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// A spec file read into memory, shared by every diagnostic that points into it.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub text: Arc<str>,
}

impl SourceFile {
    pub fn read(path: &Path) -> Result<Self, SpecError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| SpecError::new(format!("cannot read {}: {e}", path.display())))?;
        Ok(Self {
            path: path.to_path_buf(),
            text: text.into(),
        })
    }

    /// The 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        line_col(&self.text, offset).0
    }
}

/// Every error found while loading one spec, collected rather than stopping at the first.
#[derive(Debug, Default, Clone, thiserror::Error, Diagnostic)]
#[error("{} error(s) in the spec", errors.len())]
pub struct SpecErrors {
    #[related]
    pub errors: Vec<SpecError>,
}

impl SpecErrors {
    pub fn push(&mut self, e: SpecError) {
        self.errors.push(e);
    }

    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// `Ok(value)` when nothing was collected, the collected errors otherwise.
    pub fn finish<T>(self, value: T) -> Result<T, SpecErrors> {
        if self.errors.is_empty() {
            Ok(value)
        } else {
            Err(self)
        }
    }
}

impl From<SpecError> for SpecErrors {
    fn from(e: SpecError) -> Self {
        Self { errors: vec![e] }
    }
}

/// Byte span of a YAML location, for `SpecError::at`.
pub fn span_of(file: &SourceFile, loc: &serde_saphyr::Location) -> (usize, usize) {
    let span = loc.span();
    match (span.byte_offset(), span.byte_len()) {
        (Some(off), Some(len)) => (off as usize, len as usize),
        _ => {
            let line_start: usize = file
                .text
                .split_inclusive('\n')
                .take((loc.line() as usize).saturating_sub(1))
                .map(str::len)
                .sum();
            (line_start + (loc.column() as usize).saturating_sub(1), 1)
        }
    }
}
