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
