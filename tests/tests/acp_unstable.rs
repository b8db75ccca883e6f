//! ACP's unstable forms, the opt-in modules `acp::v1_unstable` and `acp::v2_unstable`
//! (feature `acp-unstable`), generated from the unchanged `schema.unstable.json` of each
//! version in the pinned `@agentclientprotocol/sdk` package (`versions[].unstable` in
//! `spec/acp/protocol.yaml`):
//!
//! - every definition of each unstable schema, through instances drawn from it and near misses
//!   of them, gets the verdict of a reference validator (the `jsonschema` crate) on the
//!   unchanged schema, and what is accepted comes back unchanged (`schema_oracle`);
//! - `session/fork` round-trips with the official Python SDK's agent run with the SDK's own
//!   opt-in (`use_unstable_protocol=True`, `peers/python/acp_unstable_agent.py`): our messages
//!   decode as the client's in the unstable module, the agent's answers decode and the
//!   unstable machine accepts the whole exchange, and a fork of a session that does not exist
//!   is refused by our checker with ACP's -32002 before it is sent;
//! - the stable modules know none of it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use agentwire_protocols::acp::{v1, v1_unstable, v2_unstable};
use agentwire_tests::instances::Rng;
use agentwire_tests::peers::{python, target_dir};
use serde_json::{Value, json};

use crate::schema_oracle::{Case, Verdict, cases, compare};

/// The unstable schema of `version` (`v1`, `v2`) where `scripts/install-peers` puts the SDK.
fn unstable_schema(version: &str) -> Value {
    let path = target_dir().join(format!(
        "peers/node/node_modules/@agentclientprotocol/sdk/schema/{version}/schema.unstable.json"
    ));
    agentwire_tests::peers::ensure_installed();
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

type Decode = fn(&str, &str) -> Option<Result<Value, agentwire_runtime::Invalid>>;

#[test]
fn the_unstable_modules_agree_with_a_reference_validator_on_the_unchanged_schemas() {
    let modules: [(&str, &str, Decode); 2] = [
        ("acp_v1_unstable", "v1", v1_unstable::decode_type),
        ("acp_v2_unstable", "v2", v2_unstable::decode_type),
    ];
    let mut rng = Rng::new(0x5eed_0027);
    let (mut unexplained, mut lost) = (Vec::new(), Vec::new());
    for (module, version, decode) in modules {
        let doc = unstable_schema(version);
        let all = cases(module, &doc, "SchemaUnstable", &mut rng);
        let ours: Vec<Verdict> = (all.iter())
            .map(|c| decode(&c.rust, &c.value.to_string()).map(|r| r.map_err(|_| ())))
            .collect();
        let refs: Vec<&Case> = all.iter().collect();
        let verdicts: Vec<&Verdict> = ours.iter().collect();
        let tally = compare(module, &doc, &refs, &verdicts);
        // Every definition is a type of the module: nothing is skipped as unknown.
        let defs = doc["$defs"].as_object().unwrap().len();
        assert!(
            tally.compared >= defs * 4,
            "{module}: {} of {} instances compared",
            tally.compared,
            all.len()
        );
        unexplained.extend(tally.unexplained);
        lost.extend(tally.lost);
    }
    assert!(
        unexplained.is_empty(),
        "{} disagreements with the reference validator:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    assert!(
        lost.is_empty(),
        "{} lossy round trips:\n{}",
        lost.len(),
        lost.join("\n")
    );
}

/// The Python SDK's agent on stdio, its lines read on a thread.
struct Agent {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Agent {
    fn start() -> Agent {
        let mut child = python("acp_unstable_agent.py")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the Python SDK's agent");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Agent {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The agent's next line, within a generous deadline.
    fn next(&self) -> Value {
        let line = (self.lines.recv_timeout(Duration::from_secs(60)))
            .expect("the agent answers within 60 s");
        serde_json::from_str(&line).unwrap()
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Feeds one message of `from` to the unstable checker, after decoding it as that sender's
/// message of the unstable module.
fn observe(checker: &mut v1_unstable::machine::Checker, from: &str, message: &Value) {
    let entry = json!({"from": from, "message": message});
    let recorded = v1_unstable::machine::Recorded::decode(from, &entry)
        .expect("a sender of ACP")
        .unwrap_or_else(|e| panic!("{from}: {message}: {e}"));
    checker
        .observe(recorded.as_message())
        .unwrap_or_else(|v| panic!("{from}: {message}: {v}"));
}

#[test]
fn session_fork_round_trips_with_the_python_sdk_agent_behind_its_unstable_opt_in() {
    let mut agent = Agent::start();
    let mut checker = v1_unstable::machine::Checker::new();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
               "params": {"protocolVersion": 1, "clientCapabilities": {}}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/new",
               "params": {"cwd": "/work", "mcpServers": []}}),
    ];
    let mut answers = Vec::new();
    for request in &requests {
        observe(&mut checker, "client", request);
        agent.send(request);
        let answer = agent.next();
        observe(&mut checker, "agent", &answer);
        answers.push(answer);
    }
    assert_eq!(
        answers[0]["result"]["agentCapabilities"]["sessionCapabilities"]["fork"],
        json!({})
    );
    let session = answers[1]["result"]["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();

    // The fork, in the unstable module: sent, answered, its result typed.
    let fork = json!({"jsonrpc": "2.0", "id": 2, "method": "session/fork",
                      "params": {"sessionId": session, "cwd": "/work"}});
    let decoded = v1_unstable::decode_message("client", &fork.to_string())
        .expect("a client of ACP")
        .expect("session/fork is a client request of the unstable module");
    assert_eq!(decoded, fork);
    observe(&mut checker, "client", &fork);
    agent.send(&fork);
    let answer = agent.next();
    observe(&mut checker, "agent", &answer);
    assert_eq!(answer["id"], 2);
    let forked = v1_unstable::decode_type("ForkSessionResponse", &answer["result"].to_string())
        .expect("the type")
        .expect("a valid fork result");
    let forked = forked["sessionId"].as_str().unwrap().to_owned();
    assert_ne!(forked, session);
    assert!(forked.starts_with(&session), "{forked}");

    // The forked session exists for the machine: forking it again is allowed.
    let again = json!({"jsonrpc": "2.0", "id": 3, "method": "session/fork",
                       "params": {"sessionId": forked, "cwd": "/work"}});
    observe(&mut checker, "client", &again);
    agent.send(&again);
    let answer = agent.next();
    observe(&mut checker, "agent", &answer);
    assert!(answer["result"]["sessionId"].is_string(), "{answer}");

    // A session nobody created: our checker refuses the fork with ACP's -32002 (the code the
    // SDK's agent answers it with too), so it is never sent.
    let unknown = json!({"jsonrpc": "2.0", "id": 4, "method": "session/fork",
                         "params": {"sessionId": "never-created", "cwd": "/work"}});
    let entry = json!({"from": "client", "message": unknown});
    let recorded = v1_unstable::machine::Recorded::decode("client", &entry)
        .unwrap()
        .unwrap();
    let refused = checker.observe(recorded.as_message()).unwrap_err();
    assert_eq!(refused.code(), Some(-32002), "{refused}");
    agent.send(&unknown);
    let answer = agent.next();
    assert_eq!(answer["error"]["code"], -32002, "{answer}");
    checker.finish().expect("every request answered");
}

#[test]
fn the_stable_modules_know_no_unstable_method() {
    let fork = json!({"jsonrpc": "2.0", "id": 2, "method": "session/fork",
                      "params": {"sessionId": "s-1", "cwd": "/work"}});
    assert!(
        v1::decode_message("client", &fork.to_string())
            .unwrap()
            .is_err()
    );
    assert!(
        v1_unstable::decode_message("client", &fork.to_string())
            .unwrap()
            .is_ok()
    );
    // A fork before initialize breaks the unstable machine's first rule.
    let mut checker = v1_unstable::machine::Checker::new();
    let entry = json!({"from": "client", "message": fork});
    let recorded = v1_unstable::machine::Recorded::decode("client", &entry)
        .unwrap()
        .unwrap();
    assert!(checker.observe(recorded.as_message()).is_err());
}
