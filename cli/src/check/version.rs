//! The version a stream of a protocol with several versions is checked as: learnt from its
//! entries where the spec says a stream names it (`version_source`), switched to when the
//! handshake's answer agrees on another than the one offered, and, when the stream speaks a
//! version the spec does not declare, reported once and the rest of the stream left alone.

use agentwire_runtime::registry::Protocol;
use agentwire_runtime::version::{Reader, Said, Source};
use serde_json::Value;

/// What a stream's version turned out to be, for the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamVersion {
    /// Named by the stream and declared: checked as that version.
    Named(&'static str),
    /// Never named: checked as the newest version, or, where versions name themselves in
    /// different places (`any:`), the newest that opens with the handshake.
    Assumed(&'static str),
    /// Named but not declared: not checked past the entry that named it.
    Undeclared(String),
}

/// What to do with the entry just seen.
pub enum Step {
    /// Check it as the current version.
    Go,
    /// Leave it: the stream speaks an undeclared version, already reported.
    Skip,
    /// Report the undeclared version (this once), then leave the stream.
    Undeclared(String),
    /// Check it, and everything after it, as this version; `Some` is the opening request,
    /// to be shown to the new version's checker first.
    Switch(&'static dyn Protocol, Option<Value>),
}

/// One stream's version pick.
pub struct Pick {
    name: &'static str,
    declared: &'static [&'static str],
    reader: Reader,
    current: StreamVersion,
    /// The handshake's opening request, kept until its answer agrees on a version.
    opening: Option<Value>,
}

impl Pick {
    /// The pick of a stream of `p`; `None` for a protocol of one version.
    pub fn new(p: &dyn Protocol) -> Option<(Self, &'static dyn Protocol)> {
        let declared = p.versions();
        let source = p.version_source()?;
        // A message naming no version is not of a version that names itself on every message
        // (`meta:` beside a handshake in `any:`, a newer version beside an older one): until
        // the stream names one, it is the newest version that opens with the handshake, whose
        // messages before it (a ping) name none. Otherwise the newest.
        let opens = |v: &&&str| match (source, p.version(v)) {
            (Source::Any(_), Some(vp)) => source
                .handshake()
                .is_some_and(|(method, _)| vp.decode_response(method, "{}").is_some()),
            _ => true,
        };
        let assumed = (declared.iter().find(opens)).or(declared.first())?;
        let pick = Pick {
            name: p.name(),
            declared,
            reader: Reader::new(source),
            current: StreamVersion::Assumed(assumed),
            opening: None,
        };
        Some((pick, p.version(assumed)?))
    }

    /// The stream's version so far.
    pub fn version(&self) -> &StreamVersion {
        &self.current
    }

    /// Takes the next entry of the stream, before it is decoded.
    pub fn see(&mut self, p: &dyn Protocol, entry: &Value) -> Step {
        if matches!(self.current, StreamVersion::Undeclared(_)) {
            return Step::Skip;
        }
        match self.reader.read(entry) {
            None => Step::Go,
            // A handshake offer waits for its answer, which may agree on another version.
            Some(Said::Offered(v)) => {
                self.opening = Some(entry.clone());
                match self.declared(p, &v) {
                    Some((name, vp)) => self.switch(name, vp, None),
                    None => Step::Go,
                }
            }
            // The first version a message names is the stream's.
            Some(Said::Named(_)) if matches!(self.current, StreamVersion::Named(_)) => Step::Go,
            Some(Said::Named(v)) => {
                self.settle(p, v, "named by the stream's first message carrying one")
            }
            Some(Said::Agreed(v)) => self.settle(p, v, "agreed by the handshake's answer"),
        }
    }

    /// The stream speaks `v`, said as `how`: switch to it, or report it as undeclared.
    fn settle(&mut self, p: &dyn Protocol, v: String, how: &str) -> Step {
        match self.declared(p, &v) {
            Some((name, _)) if self.current == StreamVersion::Named(name) => Step::Go,
            Some((name, vp)) => {
                let opening = self.opening.take();
                self.switch(name, vp, opening)
            }
            None => {
                let text = format!(
                    "version `{v}` ({how}) is not a version protocol {} declares ({}); the rest of the stream is not checked",
                    self.name,
                    self.declared.join(", ")
                );
                self.current = StreamVersion::Undeclared(v);
                Step::Undeclared(text)
            }
        }
    }

    fn switch(
        &mut self,
        name: &'static str,
        vp: &'static dyn Protocol,
        opening: Option<Value>,
    ) -> Step {
        self.current = StreamVersion::Named(name);
        Step::Switch(vp, opening)
    }

    /// `v` as declared (its `'static` name) and its protocol entry.
    fn declared(&self, p: &dyn Protocol, v: &str) -> Option<(&'static str, &'static dyn Protocol)> {
        let name = self.declared.iter().copied().find(|d| *d == v)?;
        Some((name, p.version(name)?))
    }
}
