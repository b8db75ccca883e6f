//! The agentwire generator for build scripts, the third door beside `#[derive(Protocol)]` and
//! `agentwire gen`, in the style of `tonic-build`:
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), agentwire_build::Error> {
//!     agentwire_build::configure()
//!         .skeletons(true) // needs `agentwire = { ..., features = ["skeletons"] }`
//!         .compile(&["spec/chat_relay"])?;
//!     Ok(())
//! }
//! ```
//!
//! ```text
//! // src/lib.rs
//! agentwire::include_protocol!("chat_relay"); // pub mod chat_relay { ... }
//! ```
//!
//! For each spec folder, `compile` writes `<out_dir>/<module>.rs`: one `pub mod <module>`
//! holding the items of every file `agentwire gen` and `cargo xtask gen` write for it
//! (`src/<module>.rs`, its `machine` and other submodules inline, `SCHEMA` as text, and with
//! `skeletons` the client and server skeletons as `<module>::skeleton`), which is also exactly
//! what `#[derive(Protocol)]` expands to: all four run `agentwire_codegen`, and a test in
//! agentwire's `cli/` compares their items. A file is rewritten only when its text changes,
//! and each spec file is printed as `cargo:rerun-if-changed`.

use std::path::{Path, PathBuf};

use agentwire_codegen::generated_crate::{shown, spec_dirs_under};
use agentwire_codegen::inline::{InlineSettings, inline_spec};

/// A generation that failed: every spec error at its `file:line:col`, or the file that could
/// not be written.
pub struct Error {
    message: String,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The message itself, so `fn main() -> Result<(), agentwire_build::Error>` prints it readably.
impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl Error {
    fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
        }
    }
}

/// The options of one generation; start with [`configure`].
#[derive(Debug, Clone)]
pub struct Builder {
    out_dir: Option<PathBuf>,
    schemars: bool,
    skeletons: bool,
    runtime: String,
    transport: String,
    rerun_if_changed: bool,
}

/// A [`Builder`] with the defaults: output into `OUT_DIR`, no skeletons, no schemars derives,
/// the runtime at `::agentwire::runtime`.
pub fn configure() -> Builder {
    Builder {
        out_dir: None,
        schemars: false,
        skeletons: false,
        runtime: "::agentwire::runtime".to_owned(),
        transport: "::agentwire::transport".to_owned(),
        rerun_if_changed: true,
    }
}

/// [`configure`]`().compile(specs)`.
pub fn compile(specs: &[impl AsRef<Path>]) -> Result<Vec<PathBuf>, Error> {
    configure().compile(specs)
}

impl Builder {
    /// Where the modules are written [default: the `OUT_DIR` cargo gives build scripts].
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Keeps the `feature = "schemars"` gated `JsonSchema` derives (the derive's
    /// `#[protocol(schemars)]`); the crate then declares a `schemars` feature.
    pub fn schemars(mut self, on: bool) -> Self {
        self.schemars = on;
        self
    }

    /// Adds each protocol's client and server skeletons as `<module>::skeleton`; they name
    /// the transport as `::agentwire::transport` (the facade's `skeletons` feature).
    pub fn skeletons(mut self, on: bool) -> Self {
        self.skeletons = on;
        self
    }

    /// Where generated code finds the runtime, if not `::agentwire::runtime` (the derive's
    /// `crate = "..."`).
    pub fn runtime_path(mut self, path: impl Into<String>) -> Self {
        self.runtime = path.into();
        self
    }

    /// Where skeletons find the transport, if not `::agentwire::transport`.
    pub fn transport_path(mut self, path: impl Into<String>) -> Self {
        self.transport = path.into();
        self
    }

    /// Whether `compile` prints `cargo:rerun-if-changed` for every spec file [default: yes].
    pub fn emit_rerun_if_changed(mut self, on: bool) -> Self {
        self.rerun_if_changed = on;
        self
    }

    /// Generates every spec folder of `specs` (a folder holding `protocol.yaml`, or a folder
    /// of such folders) and writes `<out_dir>/<module>.rs` for each; returns the files'
    /// paths. Every spec folder's errors are collected before failing.
    pub fn compile(&self, specs: &[impl AsRef<Path>]) -> Result<Vec<PathBuf>, Error> {
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Error::new(
                        "OUT_DIR is not set: call compile from a build script, or give out_dir",
                    )
                })?,
        };
        let settings = self.settings()?;
        let mut dirs = Vec::new();
        for spec in specs {
            let spec = spec.as_ref();
            if spec.join("protocol.yaml").is_file() {
                dirs.push(spec.to_path_buf());
            } else {
                let inside = spec_dirs_under(spec).map_err(Error::new)?;
                if inside.is_empty() {
                    return Err(Error::new(format!(
                        "{} holds no protocol.yaml and no spec folders",
                        spec.display()
                    )));
                }
                dirs.extend(inside);
            }
        }
        agentwire_codegen::front::fetch::fetch_all(&dirs)
            .map_err(|e| Error::new(format!("cannot fetch a pinned source: {e}")))?;
        std::fs::create_dir_all(&out_dir)
            .map_err(|e| Error::new(format!("cannot create {}: {e}", out_dir.display())))?;
        let mut errors = Vec::new();
        let mut written = Vec::new();
        for dir in &dirs {
            if self.rerun_if_changed {
                // The folder too: a file added to it (a first machine.yaml) reruns the script.
                println!("cargo:rerun-if-changed={}", dir.display());
            }
            match self.write_one(dir, &settings, &out_dir) {
                Ok(path) => written.push(path),
                Err(e) => errors.push(e.message),
            }
        }
        if errors.is_empty() {
            Ok(written)
        } else {
            Err(Error::new(errors.join("\n")))
        }
    }

    fn settings(&self) -> Result<InlineSettings, Error> {
        let path = |text: &str, what: &str| {
            syn::parse_str::<syn::Path>(text)
                .map_err(|_| Error::new(format!("{what} `{text}` is not a Rust path")))
        };
        Ok(InlineSettings {
            schemars: self.schemars,
            runtime: path(&self.runtime, "runtime_path")?,
            transport: if self.skeletons {
                Some(path(&self.transport, "transport_path")?)
            } else {
                None
            },
        })
    }

    /// One spec folder into `<out_dir>/<module>.rs`.
    fn write_one(
        &self,
        dir: &Path,
        settings: &InlineSettings,
        out_dir: &Path,
    ) -> Result<PathBuf, Error> {
        let inlined = inline_spec(dir, settings).map_err(|errors| {
            let lines: Vec<String> = errors.errors.iter().map(|e| e.render()).collect();
            Error::new(format!(
                "spec errors in {}:\n{}",
                dir.display(),
                lines.join("\n")
            ))
        })?;
        if self.rerun_if_changed {
            for file in &inlined.spec_files {
                println!("cargo:rerun-if-changed={}", file.display());
            }
        }
        let text = render(&inlined.module, &shown(dir, Path::new(".")));
        let path = out_dir.join(format!("{}.rs", inlined.module.ident));
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            std::fs::write(&path, text)
                .map_err(|e| Error::new(format!("cannot write {}: {e}", path.display())))?;
        }
        Ok(path)
    }
}

/// The file: the `@generated` header and `pub mod <module>`, with the lint `#[allow]`s the
/// derive puts on it.
fn render(module: &syn::ItemMod, source: &str) -> String {
    let mut module = module.clone();
    module.vis = syn::parse_quote!(pub);
    module.attrs.insert(
        0,
        syn::parse_quote!(#[allow(missing_docs, unreachable_pub, clippy::all, clippy::pedantic, clippy::nursery)]),
    );
    let file = syn::File {
        shebang: None,
        attrs: Vec::new(),
        items: vec![syn::Item::Mod(module)],
    };
    format!(
        "// @generated by agentwire-build from {source}; do not edit.\n{}",
        prettyplease::unparse(&file)
    )
}
