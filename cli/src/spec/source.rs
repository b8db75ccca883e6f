//! `--agentwire SOURCE` of `gen` and `new`: where a crate outside this repository gets
//! agentwire's own crates (a checkout, a git repository or a crates.io version), and the
//! default when none is given.

use std::path::{Path, PathBuf};

use agentwire_codegen::emit::manifest::Source;

/// Reads `--agentwire SOURCE`. A relative checkout path is written relative to `base` (the
/// folder of the manifest that names it), so a checkout kept beside the repository (a
/// submodule, a sibling clone) is found on every machine; an absolute one stays absolute.
pub fn parse(arg: &str, base: &Path) -> Result<Source, String> {
    if let Some(git) = arg.strip_prefix("git+") {
        return Ok(git_source(git));
    }
    if arg.contains("://") || arg.starts_with("git@") {
        return Ok(git_source(arg));
    }
    let path = Path::new(arg);
    let looks_like_version = arg
        .trim_start_matches(['=', '^', '~'])
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.')
        && arg.chars().any(|c| c.is_ascii_digit());
    if looks_like_version && !path.is_dir() {
        return Ok(Source::Registry(arg.to_owned()));
    }
    let root = super::absolute(path);
    checkout(&root).map_err(|why| format!("--agentwire {arg}: {why}"))?;
    let written = if path.is_absolute() {
        root.to_string_lossy().into_owned()
    } else {
        // Lexically, not through symbolic links: a link to a checkout is kept as the link.
        agentwire_codegen::generated_crate::shown(&lexical(path), &lexical(base))
    };
    Ok(Source::Checkout(written.replace('\\', "/")))
}

/// `path` made absolute from the current folder, `.` and `..` steps applied to the text.
fn lexical(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// `URL` or `URL#REV`.
fn git_source(text: &str) -> Source {
    match text.split_once('#') {
        Some((url, rev)) if !rev.is_empty() => Source::Git {
            url: url.to_owned(),
            rev: Some(rev.to_owned()),
        },
        _ => Source::Git {
            url: text.trim_end_matches('#').to_owned(),
            rev: None,
        },
    }
}

/// Whether `root` is a checkout holding every crate a generated crate or a scaffold names.
fn checkout(root: &Path) -> Result<(), String> {
    if !root.is_dir() {
        return Err("no such folder (give a checkout of agentwire, `git+URL[#REV]` or a version such as 0.1)".to_owned());
    }
    let missing: Vec<&str> = agentwire_codegen::emit::manifest::CHECKOUT_DIRS
        .iter()
        .map(|(_, dir)| *dir)
        .filter(|dir| !root.join(dir).join("Cargo.toml").is_file())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "not a checkout of agentwire ({} has no {})",
            root.display(),
            missing
                .iter()
                .map(|d| format!("{d}/Cargo.toml"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    }
}

/// The default source with no `--agentwire`: the one `existing` (the generated manifest
/// already in place, if any) names, so `gen --check` on another machine compares against the
/// choice that was committed; else the checkout this binary was built from (`cargo install
/// --path cli`), while it still holds agentwire's crates; else crates.io at this version.
pub fn default(existing: Option<&Path>) -> Source {
    let kept = existing
        .and_then(|m| std::fs::read_to_string(m).ok())
        .and_then(|text| Source::of_manifest(&text));
    if let Some(source) = kept {
        return source;
    }
    match built_from() {
        Some(root) => Source::Checkout(root.to_string_lossy().replace('\\', "/")),
        None => Source::Registry(env!("CARGO_PKG_VERSION").to_owned()),
    }
}

/// The checkout this binary was built from, if it still holds agentwire's crates.
pub fn built_from() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    checkout(root).ok().map(|()| root.to_path_buf())
}

/// A sentence for standard error: where the crate's agentwire dependencies come from.
pub fn describe(source: &Source) -> String {
    match source {
        Source::Registry(v) => format!(
            "agentwire's crates come from crates.io ({v}); give --agentwire DIR|git+URL to use a checkout or a git repository"
        ),
        Source::Checkout(root) => format!("agentwire's crates come from the checkout {root}"),
        Source::Git {
            url,
            rev: Some(rev),
        } => {
            format!("agentwire's crates come from {url} at {rev}")
        }
        Source::Git { url, rev: None } => format!("agentwire's crates come from {url}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_form_is_read() {
        let here = Path::new(".");
        assert_eq!(parse("0.1", here), Ok(Source::Registry("0.1".to_owned())));
        assert_eq!(
            parse("git+https://example.org/a.git#v1", here),
            Ok(Source::Git {
                url: "https://example.org/a.git".to_owned(),
                rev: Some("v1".to_owned())
            })
        );
        assert_eq!(
            parse("https://example.org/a.git", here),
            Ok(Source::Git {
                url: "https://example.org/a.git".to_owned(),
                rev: None
            })
        );
        let repo = built_from().expect("the tests run in a checkout");
        let abs = parse(repo.to_str().unwrap(), here).unwrap();
        assert_eq!(abs, Source::Checkout(repo.to_string_lossy().into_owned()));
        // Relative to the manifest's folder, not to where the command runs.
        let base = repo.join("a/b");
        let rel = parse(repo.to_str().unwrap(), &base).unwrap();
        assert_eq!(rel, abs, "an absolute path stays absolute");
        // The tests run in cli/: `..` is the checkout, written from the manifest's folder.
        let rel = parse("..", &repo.join("cli/out")).unwrap();
        assert_eq!(rel, Source::Checkout("../..".to_owned()));
        let tmp = tempfile::tempdir().unwrap();
        let err = parse(tmp.path().to_str().unwrap(), here).unwrap_err();
        assert!(err.contains("not a checkout of agentwire"), "{err}");
        assert!(err.contains("runtime/Cargo.toml"), "{err}");
    }
}
