//! `agentwire new NAME --transport KIND`: scaffolds a crate outside any workspace with a spec
//! folder of its own (protocol.yaml, types, machine, a trace), a document `check-docs`
//! accepts, a CI workflow, the crate `agentwire gen` writes (`protocols/`, checked in), a
//! build script (`agentwire-build`, skeletons on) and a test that
//! runs the generated client and server against each other. `cargo test` in it passes as
//! written.

mod jsonrpc;
mod websocket;

use std::io::Write;
use std::path::PathBuf;

use agentwire_codegen::emit::manifest::{CHECKOUT_DIRS, Source};

use clap::{Args, ValueEnum};

use crate::spec::generate::GenArgs;
use crate::spec::{OK, USAGE};

/// The texts of one transport's scaffold; `@NAME@` and `@TITLE@` are filled in.
pub struct Template {
    pub protocol_yaml: &'static str,
    pub messages_ts: &'static str,
    pub machine_yaml: &'static str,
    /// One accepted session, JSON Lines.
    pub trace: &'static str,
    pub doc_intro: &'static str,
    /// A JSON example for the document (checked by `check-docs`).
    pub doc_example: &'static str,
    pub test_rs: &'static str,
}

/// The transports `new` scaffolds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    /// WebSocket, one JSON message per text frame.
    Websocket,
    /// JSON-RPC 2.0 with `Content-Length` framing.
    Jsonrpc,
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The crate's and the protocol's name: lowercase letters, digits and `_`, starting with
    /// a letter.
    #[arg(value_name = "NAME")]
    name: String,

    /// The protocol's transport.
    #[arg(long, value_enum, value_name = "KIND")]
    transport: Transport,

    /// Where to create the crate [default: ./NAME]; must not exist or be empty.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,

    /// Where the scaffold gets agentwire's crates: a checkout of agentwire's repository (a
    /// folder), `git+URL[#REV]`, or a crates.io version; a checkout or a git repository is
    /// named in a `[patch.crates-io]` table, and the checked-in `protocols/` crate names it
    /// directly [default: the checkout this command was built from while it is there, else
    /// this command's version from crates.io].
    #[arg(long, value_name = "SOURCE")]
    agentwire: Option<String>,
}

pub fn run(args: &NewArgs, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match try_run(args, out, err) {
        Ok(()) => OK,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            USAGE
        }
    }
}

fn try_run(args: &NewArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<(), String> {
    let name = &args.name;
    check_name(name)?;
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from(name));
    if std::fs::read_dir(&dir).is_ok_and(|mut d| d.next().is_some()) {
        return Err(format!(
            "{} exists and is not empty: choose another NAME or --dir",
            dir.display()
        ));
    }
    let source = match &args.agentwire {
        Some(arg) => crate::spec::source::parse(arg, &dir)?,
        None => crate::spec::source::default(None),
    };
    let files = files(name, args.transport, &source);
    for (rel, text) in &files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    // The generated crate, checked in beside the spec (its JSON Schema is for other
    // languages; CI's `gen --check` keeps it fresh): the same call as `agentwire gen`.
    let gen_args = GenArgs::new(
        dir.join("spec"),
        dir.join("protocols"),
        args.agentwire.clone(),
    );
    let mut gen_out = Vec::new();
    if crate::spec::generate::run(&gen_args, &mut gen_out, err) != OK {
        return Err(format!(
            "the scaffold's spec does not generate (a bug in `agentwire new`): {}",
            String::from_utf8_lossy(&gen_out)
        ));
    }
    let _ = writeln!(
        out,
        "created {} ({} protocol `{name}`, {} files, and protocols/ by `agentwire gen`):",
        dir.display(),
        args.transport
            .to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default(),
        files.len()
    );
    for (rel, _) in &files {
        let _ = writeln!(out, "  {rel}");
    }
    let _ = writeln!(err, "{}", crate::spec::source::describe(&source));
    let _ = writeln!(out, "next: cd {} && cargo test", dir.display());
    Ok(())
}

fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest_ok = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    let reserved = ["self", "super", "crate", "test", "std", "core", "agentwire"];
    if !first_ok || !rest_ok || reserved.contains(&name) {
        return Err(format!(
            "NAME `{name}` must be lowercase letters, digits and `_`, start with a letter, and not be a reserved name"
        ));
    }
    Ok(())
}

/// `Chat relay` from `chat_relay`.
fn title(name: &str) -> String {
    let words = name.replace('_', " ");
    let mut chars = words.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

/// Every file of the scaffold, path relative to its root.
fn files(name: &str, transport: Transport, source: &Source) -> Vec<(String, String)> {
    let t = match transport {
        Transport::Websocket => &websocket::TEMPLATE,
        Transport::Jsonrpc => &jsonrpc::TEMPLATE,
    };
    let title = title(name);
    let fill = |text: &str| text.replace("@NAME@", name).replace("@TITLE@", &title);
    let spec = format!("spec/{name}");
    vec![
        ("Cargo.toml".to_owned(), cargo_toml(name, source)),
        (".gitignore".to_owned(), "/target\n".to_owned()),
        ("build.rs".to_owned(), fill(BUILD_RS)),
        ("src/lib.rs".to_owned(), fill(LIB_RS)),
        (format!("tests/{name}.rs"), fill(t.test_rs)),
        (format!("{spec}/protocol.yaml"), fill(t.protocol_yaml)),
        (format!("{spec}/messages.ts"), fill(t.messages_ts)),
        (format!("{spec}/machine.yaml"), fill(t.machine_yaml)),
        (format!("{spec}/traces/hello.jsonl"), fill(t.trace)),
        (format!("docs/{name}.md"), doc(name, &title, t)),
        (
            ".github/workflows/agentwire.yml".to_owned(),
            WORKFLOW.replace("@NAME@", name),
        ),
    ]
}

/// The CI workflow of a downstream repository (docs/downstream-ci.md shows the same).
pub const WORKFLOW: &str = include_str!("workflow.yml");

const BUILD_RS: &str = r#"//! Generates the @NAME@ protocol's module (types, validators, schema, sequence checker,
//! client and server skeletons) from spec/@NAME@ into OUT_DIR.

fn main() -> Result<(), agentwire_build::Error> {
    agentwire_build::configure()
        .skeletons(true)
        .compile(&["spec/@NAME@"])?;
    Ok(())
}
"#;

const LIB_RS: &str = r#"//! @TITLE@: the protocol generated from spec/@NAME@ by build.rs.

agentwire::include_protocol!("@NAME@");
"#;

fn cargo_toml(name: &str, source: &Source) -> String {
    let version = env!("CARGO_PKG_VERSION");
    let major_minor = match source {
        Source::Registry(v) => v.as_str(),
        _ => version.rsplit_once('.').map_or(version, |(v, _)| v),
    };
    let mut text = format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
agentwire = {{ version = "{major_minor}", default-features = false, features = ["skeletons"] }}

[build-dependencies]
agentwire-build = "{major_minor}"

# A crate of its own, even when created inside another workspace's folder; `protocols/`
# (written by `agentwire gen`) is one too, so it builds on its own.
[workspace]
exclude = ["protocols"]
"#
    );
    let from = match source {
        Source::Registry(_) => return text,
        Source::Checkout(_) => "a local checkout",
        Source::Git { .. } => "their git repository",
    };
    text.push_str(&format!(
        "\n# agentwire's crates from {from}.\n[patch.crates-io]\n"
    ));
    for (krate, _) in CHECKOUT_DIRS {
        text.push_str(&format!("{krate} = {}\n", source.spec(krate)));
    }
    text
}

fn doc(name: &str, title: &str, t: &Template) -> String {
    let types = t
        .messages_ts
        .split_once("\n\n")
        .map_or(t.messages_ts, |(_, rest)| rest)
        .trim_end();
    format!(
        "# {title}\n\n{intro}\n\nThe spec is `spec/{name}/`; `agentwire check-docs --spec spec/{name} docs/{name}.md` keeps this page and it in step.\n\n## Types\n\n```ts\n{types}\n```\n\n## Example\n\n```json\n{example}\n```\n",
        intro = t.doc_intro,
        example = t.doc_example,
    )
}
