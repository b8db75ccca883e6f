//! The gRPC skeleton comes from the spec's `grpc:` section, not from kind names: a second
//! protocol (`tests/protocols/jobs`, other roles, kinds, fields and oneof names) gets its
//! gateway and agent, and a spec that lacks what the skeleton needs gets a located
//! diagnostic saying what to add.

use std::path::{Path, PathBuf};

use agentwire_codegen::generate;

fn jobs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/protocols/jobs")
}

/// A copy of the jobs spec in a temporary folder, with `edit` applied to its protocol.yaml.
fn edited(root: &Path, edit: impl FnOnce(String) -> String) -> PathBuf {
    let dir = root.join("jobs");
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["jobs.proto", "machine.yaml", "protocol.yaml"] {
        std::fs::copy(jobs_dir().join(f), dir.join(f)).unwrap();
    }
    let yaml = std::fs::read_to_string(dir.join("protocol.yaml")).unwrap();
    std::fs::write(dir.join("protocol.yaml"), edit(yaml)).unwrap();
    dir
}

fn errors_of(dir: &Path) -> Vec<String> {
    match generate(dir) {
        Ok(_) => Vec::new(),
        Err(e) => e.errors.iter().map(|e| e.one_line()).collect(),
    }
}

#[test]
fn a_second_grpc_protocol_gets_both_roles_named_after_its_own_spec() {
    let g = generate(&jobs_dir()).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let skeleton = g
        .files
        .iter()
        .find(|f| f.path == "src/skeletons/jobs.rs")
        .expect("a skeleton for the jobs protocol");
    let code = skeleton.render("tests/protocols/jobs");
    let code = code.as_str();
    for needle in [
        "pub struct Hub<H: HubHandler>",
        "pub trait HubHandler",
        "fn on_hello(",
        "hello: &proto::Hello",
        "pub struct WorkerHandle(grpc::Peer<Binding>)",
        "pub async fn job(&self, msg: proto::Job) -> Result<ResponseStream, SendError>",
        "pub async fn abort(&self, msg: proto::Abort)",
        "fn on_log(",
        "_peer: &WorkerHandle,",
        "pub trait WorkerHandler",
        "fn on_job(&self, msg: proto::Job, reply: Reply)",
        "fn on_note(",
        "_session: &Session,",
        "pub async fn finished(self, value: impl Into<String>)",
        "pub async fn percent(&mut self, value: u32)",
        "pub struct RunningWorker",
        "JobHubServer",
        "impl grpc::Binding for Binding",
    ] {
        assert!(code.contains(needle), "missing `{needle}` in\n{code}");
    }
    // Nothing of the other gRPC protocol leaks in.
    for absent in [
        "RegisterAgent",
        "welcome",
        "send_message",
        "agent_id",
        "coven",
    ] {
        assert!(!code.contains(absent), "`{absent}` in the jobs skeleton");
    }
}

#[test]
fn a_grpc_spec_without_handshake_or_exchange_says_what_to_add() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = edited(tmp.path(), |y| {
        let start = y.find("  handshake:").unwrap();
        let end = y.find("  shutdown:").unwrap();
        format!("{}{}", &y[..start], &y[end..])
    });
    let errors = errors_of(&dir);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("protocol.yaml:10:12:")
            && errors[0]
                .contains("needs `handshake:` (hello, peer_id, accept, refuse) and `exchange:`"),
        "{errors:?}"
    );
}

#[test]
fn wrong_kinds_roles_and_events_are_located() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = edited(tmp.path(), |y| {
        y.replace("    refuse: denied", "    refuse: log")
            .replace("    request: job", "    request: jobb")
            .replace("    failure: failed", "    failure: output")
            .replace("    kinds: [abort]", "    kinds: [abortt]")
    });
    let errors = errors_of(&dir);
    let expect = [
        "protocol.yaml:18:13: the refusal `log` is sent by `worker`; it must be a kind the `hub` role sends",
        "protocol.yaml:22:14: `jobb` is not a kind of the `messages:` catalogue",
        "protocol.yaml:26:14: event `output` ends a request: mark it `terminal: true` in `events:`",
        "`abortt` is not a kind of the `messages:` catalogue",
    ];
    for e in expect {
        assert!(
            errors.iter().any(|x| x.contains(e)),
            "no `{e}` in {errors:?}"
        );
    }
}

#[test]
fn the_statuses_that_end_a_stream_come_from_the_spec() {
    let g = generate(&jobs_dir()).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let skeleton = g.files.iter().find(|f| f.path == "src/skeletons/jobs.rs");
    let code = skeleton.unwrap().render("tests/protocols/jobs");
    // `taken: UNAVAILABLE` as declared; `invalid` left out, so gRPC's usual one.
    assert!(code.contains("const TAKEN_STATUS: tonic::Code = tonic::Code::Unavailable;"));
    assert!(code.contains("const INVALID_STATUS: tonic::Code = tonic::Code::InvalidArgument;"));

    let tmp = tempfile::tempdir().unwrap();
    let dir = edited(tmp.path(), |y| {
        y.replace("      taken: UNAVAILABLE", "      taken: UNAVAILIBLE")
    });
    let errors = errors_of(&dir);
    let expect = "/jobs/protocol.yaml:20:14: `UNAVAILIBLE` is not a gRPC status that can end a \
                  stream; did you mean `UNAVAILABLE`? (hint: see \"gRPC protocols\" in agentwire's \
                  docs, https://docs.rs/agentwire/latest/agentwire/spec/index.html#grpc-protocols-transportkind-grpc)";
    assert!(
        errors.len() == 1 && errors[0].ends_with(expect),
        "{errors:?}"
    );
}

#[test]
fn without_a_grpc_section_the_skeleton_is_the_services_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = edited(tmp.path(), |y| {
        let start = y.find("grpc:\n").unwrap();
        let end = y.find("channels:").unwrap();
        // `framing:` may go too: `grpc` is the kind's only one.
        format!("{}{}", &y[..start], &y[end..]).replace("  framing: grpc\n", "")
    });
    let g = generate(&dir).unwrap_or_else(|e| panic!("{:?}", e.errors));
    let skeleton = g.files.iter().find(|f| f.path == "src/skeletons/jobs.rs");
    let code = skeleton.unwrap().render("tests/protocols/jobs");
    for needle in [
        "pub mod job_hub_server",
        "pub mod job_hub_client",
        "ClientCodec",
    ] {
        assert!(code.contains(needle), "missing `{needle}`");
    }
    assert!(
        !code.contains("impl grpc::Binding"),
        "the layer is not declared"
    );
}

#[test]
fn fields_and_events_are_checked_against_the_proto() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = edited(tmp.path(), |y| {
        y.replace("    peer_id: name", "    peer_id: nam")
            .replace("    features: caps", "    features: name")
            .replace("    clock_ms: at_ms", "    clock_ms: at")
            .replace(
                "  - name: percent\n    terminal: false\n",
                "  - name: percnt\n",
            )
            .replace("events: [percent]", "events: [percnt]")
    });
    let errors = errors_of(&dir);
    let expect = [
        "protocol.yaml:14:14: `Hello` has no field `nam`",
        "protocol.yaml:15:15: `Hello.name` must be a `repeated string` field",
        "protocol.yaml:37:15: `Ping` has no field `at`",
        "event `percnt` is not a case of `Progress.update`",
        "case `percent` of `Progress.update` is missing from `events:`",
    ];
    for e in expect {
        assert!(
            errors.iter().any(|x| x.contains(e)),
            "no `{e}` in {errors:?}"
        );
    }
}

#[test]
fn a_grpc_protocol_needs_proto_types() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = edited(tmp.path(), |y| {
        y.replace("types: jobs.proto", "types: messages.ts")
    });
    std::fs::write(
        dir.join("messages.ts"),
        "type WorkerMessage = Hello;\ninterface Hello { type: 'hello'; name: string }\n",
    )
    .unwrap();
    let errors = errors_of(&dir);
    assert!(
        errors.iter().any(|e| e
            .contains("protocol.yaml:8:8: a grpc protocol takes its types from a `.proto` file")),
        "{errors:?}"
    );
}
