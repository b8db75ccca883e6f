//! `link:`/`linked:` key rules and `retain: N` in the machine format (spec/README.md,
//! "`machine.yaml`"): a machine using them compiles to a checker holding its links and its
//! retained instances, an extension may add `retain` as if it were written in full, and each
//! misuse is a diagnostic at its `file:line:col`. Their behaviour on messages is held by the
//! MCP traces (`tests/fixtures/mcp/traces/`) through the generated checker and the interpreter.

use crate::machine_extends::{BASE, EXTENSION, MERGED, generate_with, has};

/// A machine keyed by the name an `open` carries, reached again by the request's id, so the
/// answer to that `open` ends it; finished instances of `requests` are retained.
const LINKED: &str = "machines:
  - name: names
    key:
      - on: client.open
        field: params.name
        link: id
      - on: server.response
        field: id
        linked: true
    initial: idle
    accepting: [idle, open]
    final: [closed]
    transitions:
      - {from: idle, on: client.open, to: open}
      - {from: open, on: server.response, to: closed}
  - name: requests
    key:
      - {on: client.open, field: id}
      - {on: client.read, field: id}
      - {on: client.fork, field: id}
      - {on: server.response, field: id}
    initial: idle
    accepting: [idle, answered]
    final: [answered]
    retain: 3
    transitions:
      - {from: idle, on: client.open, to: pending}
      - {from: idle, on: client.read, to: pending}
      - {from: idle, on: client.fork, to: pending}
      - {from: pending, on: server.response, to: answered}
";

fn diagnostics(machine: &str) -> Vec<String> {
    generate_with(machine, &[]).expect_err("diagnostics")
}

#[test]
fn links_and_retained_instances_compile_into_the_checker() {
    let code = generate_with(LINKED, &[]).unwrap_or_else(|e| panic!("{e:#?}"));
    assert!(
        code.contains("names_links: agentwire_runtime::kept::Links"),
        "{code}"
    );
    assert!(code.contains("self.names_links.follow("), "{code}");
    assert!(
        code.contains("self.names_links.link(by, key.as_ref())"),
        "{code}"
    );
    assert!(
        code.contains("agentwire_runtime::kept::Retained::new(3usize)"),
        "{code}"
    );
    assert!(
        code.contains("self.requests_retained.keep(key.as_ref())"),
        "{code}"
    );
    // A machine without them keeps neither.
    assert!(!code.contains("requests_links"), "{code}");
    assert!(!code.contains("names_retained"), "{code}");
}

#[test]
fn each_misuse_is_refused_at_its_line() {
    let cases = [
        // `retain` on a machine with no final state (line 24 once `final` is gone).
        (
            "    final: [answered]\n    retain: 3\n",
            "    retain: 3\n",
            "machine.yaml:24:",
            "needs final states and N of at least 1",
        ),
        (
            "retain: 3",
            "retain: 0",
            "machine.yaml:25:",
            "needs final states and N of at least 1",
        ),
        // A rule following links no rule records.
        (
            "        link: id\n",
            "",
            "machine.yaml:6:",
            "no key rule of this machine records one",
        ),
        // One rule doing both.
        (
            "        linked: true\n",
            "        linked: true\n        link: id\n",
            "machine.yaml:8:",
            "either records a link (`link:`) or follows one",
        ),
        // A linked machine keyed by two fields.
        (
            "        field: params.name\n        link: id",
            "        field: [params.name, id]\n        link: id",
            "machine.yaml:5:",
            "a machine with links is keyed by one field",
        ),
        // A link path the message does not have (the lint, with the closest field).
        (
            "link: id",
            "link: params.nmae",
            "machine.yaml:4:",
            "link of `client.open`",
        ),
    ];
    for (from, to, at, text) in cases {
        assert!(LINKED.contains(from), "{from}");
        let found = diagnostics(&LINKED.replacen(from, to, 1));
        assert!(has(&found, at, text), "{text}: {found:#?}");
    }
}

#[test]
fn an_extension_may_add_retain_and_may_not_change_it() {
    let with = |text: &str, after: &str| {
        assert!(text.contains(after), "{after}");
        text.replacen(after, &format!("{after}    retain: 5\n"), 1)
    };
    // The line `retain: 5` is on, for the diagnostics.
    let line = |text: &str| {
        let n = text
            .lines()
            .position(|l| l.contains("retain: 5"))
            .expect("retain")
            + 1;
        format!("machine.yaml:{n}:")
    };
    let extension = with(EXTENSION, "  - name: requests\n");
    let extended = generate_with(&extension, &[("machine.base.yaml", BASE)])
        .unwrap_or_else(|e| panic!("{e:#?}"));
    let full = generate_with(&with(MERGED, "    final: [answered]\n"), &[])
        .unwrap_or_else(|e| panic!("{e:#?}"));
    assert_eq!(extended, full);
    assert!(extended.contains("Retained::new(5usize)"));

    let base = BASE.replace(
        "    final: [answered]\n",
        "    final: [answered]\n    retain: 2\n",
    );
    let found = generate_with(&extension, &[("machine.base.yaml", &base)]).expect_err("a conflict");
    assert!(
        has(
            &found,
            &line(&extension),
            "it retains the last 2 finished instances, not 5"
        ),
        "{found:#?}"
    );
    // A machine with no final state cannot gain `retain` by extension either.
    let files = with(EXTENSION, "  - name: files\n");
    let found = generate_with(&files, &[("machine.base.yaml", BASE)]).expect_err("no final");
    assert!(
        has(&found, &line(&files), "needs final states"),
        "{found:#?}"
    );
}
