//! The benchmark corpora: for each protocol, every message kind it has, with the free-text
//! fields grown from a few dozen bytes to several kilobytes, serialized compactly as they
//! would travel on the wire. Built in code from a fixed seed, so runs are comparable.
//!
//! Keys are written in the order the spec declares them (discriminators near the front, as
//! a TypeScript producer would emit them), not alphabetically as a `serde_json::Value`
//! would: where the tag sits changes how much a tag-dispatching decoder has to buffer.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Value;

use crate::prose::Prose;

/// Target lengths of a grown text field: a short line, a paragraph, a long answer, and a
/// large tool output. Messages end up between roughly 100 B and 10 KB.
pub const TEXT_SIZES: [usize; 4] = [40, 700, 3_000, 9_000];

/// A JSON value whose object keys keep the order they were written in.
#[derive(Debug, Clone)]
pub enum J {
    Leaf(Value),
    Obj(Vec<(&'static str, J)>),
    Arr(Vec<J>),
}

impl J {
    /// Adds (or replaces) a member of an object.
    pub fn set(&mut self, key: &'static str, value: impl IntoJ) {
        let J::Obj(members) = self else {
            panic!("`{key}` set on a non-object");
        };
        let value = value.into_j();
        match members.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => members.push((key, value)),
        }
    }
}

impl Serialize for J {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            J::Leaf(v) => v.serialize(s),
            J::Obj(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            J::Arr(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
        }
    }
}

/// Anything that can stand as a value in [`obj!`] or [`arr!`].
pub trait IntoJ {
    fn into_j(self) -> J;
}

impl IntoJ for J {
    fn into_j(self) -> J {
        self
    }
}

impl IntoJ for Vec<J> {
    fn into_j(self) -> J {
        J::Arr(self)
    }
}

macro_rules! leaf {
    ($($t:ty),*) => {$(
        impl IntoJ for $t {
            fn into_j(self) -> J {
                J::Leaf(Value::from(self))
            }
        }
    )*};
}
leaf!(&str, String, bool, i64, u64, usize, f64, Value);

/// An object with its keys in the order written: `obj! { "a": 1i64, "b": "x" }`.
macro_rules! obj {
    ($($k:literal : $v:expr),* $(,)?) => {
        J::Obj(vec![$(($k, IntoJ::into_j($v))),*])
    };
}

/// An array: `arr!["a", obj! {..}]`.
macro_rules! arr {
    ($($v:expr),* $(,)?) => {
        J::Arr(vec![$(IntoJ::into_j($v)),*])
    };
}

/// One message of a corpus.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The role that sends it (as in the fixtures' `from`), which picks the union to decode.
    pub from: &'static str,
    /// For a JSON-RPC response, the method of the request it answers.
    pub response_to: Option<&'static str>,
    /// The message as sent: compact JSON text.
    pub json: String,
}

/// The messages of one protocol, benchmarked together as one batch.
#[derive(Debug, Clone)]
pub struct Corpus {
    pub protocol: &'static str,
    pub samples: Vec<Sample>,
}

impl Corpus {
    fn new(protocol: &'static str) -> Self {
        Corpus {
            protocol,
            samples: Vec::new(),
        }
    }

    fn push(&mut self, from: &'static str, message: J) {
        self.samples.push(Sample {
            from,
            response_to: None,
            json: serde_json::to_string(&message).expect("corpus messages serialize"),
        });
    }

    fn push_response(&mut self, method: &'static str, message: J) {
        self.push("server", message);
        if let Some(last) = self.samples.last_mut() {
            last.response_to = Some(method);
        }
    }

    /// Total size of the messages in bytes: the unit of the benchmark's throughput.
    pub fn bytes(&self) -> u64 {
        self.samples.iter().map(|s| s.json.len() as u64).sum()
    }

    /// Size of the smallest and the largest message.
    pub fn size_range(&self) -> (usize, usize) {
        let sizes = self.samples.iter().map(|s| s.json.len());
        (sizes.clone().min().unwrap_or(0), sizes.max().unwrap_or(0))
    }
}

/// Every corpus, in the order the benchmark runs them.
pub fn all() -> Vec<Corpus> {
    vec![helix_zed(), agentloop(), external_agents(), eca()]
}

const HELIX_SESSION: &str = "ses_01k6q8v3z9xwj4m2";
const ACP_THREAD: &str = "3f1c9a2e-7b4d-4e8a-9c1f-0d2b6e5a8c71";

/// helix_zed: chat turns from Helix; context, streamed snapshots and completion from Zed.
pub fn helix_zed() -> Corpus {
    let mut p = Prose::new(0x4e1f_2a0d);
    let mut c = Corpus::new("helix_zed");
    for (i, size) in TEXT_SIZES.into_iter().enumerate() {
        // The first message of a session carries a null thread id; follow-ups name it.
        let thread = if i == 0 {
            Value::Null
        } else {
            Value::from(ACP_THREAD)
        };
        c.push(
            "helix",
            obj! {
                "type": "chat_message",
                "data": obj! {
                    "helix_session_id": HELIX_SESSION,
                    "acp_thread_id": thread,
                    "message": p.text(size),
                    "request_id": format!("req_{i:04}"),
                },
            },
        );
    }
    c.push(
        "zed",
        obj! {
            "session_id": HELIX_SESSION,
            "event_type": "context_created",
            "data": obj! {"acp_thread_id": ACP_THREAD, "helix_session_id": HELIX_SESSION},
        },
    );
    // A streamed reply: each snapshot holds the whole text so far, so sizes grow.
    for (i, size) in [0, 120, 700, 3_000, 9_000].into_iter().enumerate() {
        let content = if size == 0 {
            String::new()
        } else {
            p.text(size)
        };
        c.push(
            "zed",
            obj! {
                "session_id": HELIX_SESSION,
                "event_type": "message_added",
                "data": obj! {
                    "acp_thread_id": ACP_THREAD,
                    "message_id": "msg_7",
                    "role": "assistant",
                    "content": content,
                    "timestamp": 1_735_689_600 + i as i64,
                },
            },
        );
    }
    c.push(
        "zed",
        obj! {
            "session_id": HELIX_SESSION,
            "event_type": "message_completed",
            "data": obj! {"acp_thread_id": ACP_THREAD, "message_id": "msg_7", "request_id": "req_0003"},
        },
    );
    c
}

/// agentloop: user turns, approvals and context requests from the client; response items
/// of every kind, loading state, approvals, statistics and errors from the server.
pub fn agentloop() -> Corpus {
    let mut p = Prose::new(0xa9e1_7700);
    let mut c = Corpus::new("agentloop");
    let mut frames = 0u32;
    let mut id = move || {
        frames += 1;
        format!("5b0c{frames:04}-0e1f-4a2b-8c3d-9e4f5a6b7c8d")
    };

    // client -> server
    for (i, size) in TEXT_SIZES.into_iter().enumerate() {
        let mut payload = obj! {
            "input": arr![obj! {
                "type": "message",
                "role": "user",
                "content": arr![obj! {"type": "input_text", "text": p.text(size)}],
            }],
        };
        if i % 2 == 1 {
            payload.set("previousResponseId", format!("resp_{i:06}"));
        }
        c.push(
            "client",
            obj! {"id": id(), "type": "user_input", "payload": payload},
        );
    }
    for (i, review) in ["yes", "no-exit", "no-continue", "always", "explain"]
        .into_iter()
        .enumerate()
    {
        let mut payload = obj! {"review": review};
        match i {
            0 => payload.set("applyPatch", obj! {"patch": patch(&mut p, 2_500)}),
            1 => payload.set("customDenyMessage", Value::Null),
            2 => payload.set("customDenyMessage", p.text(200)),
            4 => payload.set("explanation", p.text(400)),
            _ => {}
        }
        c.push(
            "client",
            obj! {"id": id(), "type": "approval_response", "payload": payload},
        );
    }
    c.push("client", obj! {"id": id(), "type": "get_context_info"});
    c.push(
        "client",
        obj! {"id": id(), "type": "get_context_info", "payload": obj! {}},
    );
    c.push("client", obj! {"id": id(), "type": "manual_compact"});

    // server -> client
    let item =
        |id: String, payload: J| obj! {"id": id, "type": "response_item", "payload": payload};
    c.push(
        "server",
        obj! {"id": id(), "type": "loading_state", "payload": obj! {"loading": true}},
    );
    for (i, size) in TEXT_SIZES.into_iter().enumerate() {
        let (role, part) = if i == 0 {
            ("system", "input_text")
        } else {
            ("assistant", "output_text")
        };
        let message = obj! {
            "id": format!("msg_{i:03}"),
            "type": "message",
            "role": role,
            "content": arr![obj! {"type": part, "text": p.text(size)}],
        };
        c.push("server", item(id(), message));
    }
    for (i, size) in TEXT_SIZES.into_iter().enumerate() {
        // Tool arguments and outputs are JSON documents carried inside a JSON string.
        let arguments = obj! {
            "command": arr!["bash", "-lc", p.text(size)],
            "workdir": "/home/dev/project",
            "timeout_ms": 120_000i64,
        };
        let call = obj! {
            "id": format!("fc_{i:03}"),
            "type": "function_call",
            "call_id": format!("call_{i:03}"),
            "name": "shell",
            "arguments": serde_json::to_string(&arguments).expect("serializes"),
        };
        c.push("server", item(id(), call));
        let output = obj! {
            "output": p.text(size),
            "metadata": obj! {"exit_code": i, "duration_seconds": 0.4 + i as f64},
        };
        let result = obj! {
            "id": format!("fco_{i:03}"),
            "type": "function_call_output",
            "call_id": format!("call_{i:03}"),
            "output": serde_json::to_string(&output).expect("serializes"),
        };
        c.push("server", item(id(), result));
    }
    for (i, status) in ["in_progress", "completed", "incomplete"]
        .into_iter()
        .enumerate()
    {
        let command = format!("cargo test -p {} -- --nocapture", p.word());
        let call = obj! {
            "id": format!("lsh_{i:03}"),
            "type": "local_shell_call",
            "action": obj! {"command": arr!["bash", "-lc", command]},
            "status": status,
        };
        c.push("server", item(id(), call));
    }
    for (i, size) in TEXT_SIZES.into_iter().enumerate() {
        let output = obj! {
            "output": p.text(size),
            "metadata": obj! {"exit_code": 0i64, "duration_seconds": 1.25},
        };
        let result = obj! {
            "id": format!("lsho_{i:03}"),
            "type": "local_shell_call_output",
            "output": serde_json::to_string(&output).expect("serializes"),
        };
        c.push("server", item(id(), result));
    }
    for (i, size) in TEXT_SIZES.into_iter().enumerate() {
        let mut reasoning = obj! {
            "id": format!("rs_{i:03}"),
            "type": "reasoning",
            "content": arr![
                obj! {"type": "output_text", "text": p.text(size / 2)},
                obj! {"type": "output_text", "text": p.text(size / 2)},
            ],
        };
        if i != 2 {
            reasoning.set("duration_ms", 1_200 + 310 * i);
        }
        c.push("server", item(id(), reasoning));
    }
    c.push(
        "server",
        obj! {"id": id(), "type": "approval_request", "payload": obj! {
            "command": arr!["rm", "-rf", "target/debug/incremental"],
        }},
    );
    c.push(
        "server",
        obj! {"id": id(), "type": "approval_request", "payload": obj! {
            "command": arr!["apply_patch"],
            "applyPatch": obj! {"patch": patch(&mut p, 6_000)},
        }},
    );
    c.push(
        "server",
        obj! {"id": id(), "type": "agent_finished", "payload": obj! {"responseId": "resp_000042"}},
    );
    c.push(
        "server",
        obj! {"id": id(), "type": "context_info", "payload": obj! {
            "tokenCount": 48_213i64,
            "usagePercent": 37.66,
            "transcriptLength": 57i64,
            "maxTokens": 128_000i64,
            "strategy": "sliding_window",
        }},
    );
    c.push(
        "server",
        obj! {"id": id(), "type": "context_compacted", "payload": obj! {
            "oldTokenCount": 120_344i64,
            "newTokenCount": 31_877i64,
            "reductionPercent": 73.51,
            "strategy": "summarize_oldest",
        }},
    );
    c.push(
        "server",
        obj! {"id": id(), "type": "error", "payload": obj! {"message": "API request failed: 529 overloaded"}},
    );
    c.push(
        "server",
        obj! {"id": id(), "type": "error", "payload": obj! {
            "message": p.text(300),
            "details": obj! {"status": 500i64, "body": p.text(1_500), "retryable": true},
        }},
    );
    c.push(
        "server",
        obj! {"id": id(), "type": "loading_state", "payload": obj! {"loading": false}},
    );
    c
}

/// A patch in apply_patch's envelope with about `len` bytes of changed lines.
fn patch(p: &mut Prose, len: usize) -> String {
    let mut out = String::from("*** Begin Patch\n*** Update File: src/app/core.clj\n@@\n");
    for line in p.text(len).lines() {
        out.push_str(if line.len() % 2 == 0 { "+" } else { "-" });
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("*** End Patch");
    out
}

const EXTERNAL_SESSION: &str = "proj-helix_2025-03-14_a9F3";

/// external_agents: hello and user messages from the web UI; session_ready, conversation
/// broadcasts and refusals from the agent server.
pub fn external_agents() -> Corpus {
    let mut p = Prose::new(0x0e47_a6e5);
    let mut c = Corpus::new("external_agents");
    c.push(
        "web_ui",
        obj! {"type": "hello", "sessionId": EXTERNAL_SESSION},
    );
    for size in TEXT_SIZES {
        c.push(
            "web_ui",
            obj! {"type": "user_message", "text": p.text(size)},
        );
    }
    c.push(
        "agent_server",
        obj! {"type": "session_ready", "sessionId": EXTERNAL_SESSION, "agentId": "helix-external"},
    );
    for (i, size) in TEXT_SIZES.into_iter().enumerate() {
        for role in ["user", "assistant"] {
            c.push(
                "agent_server",
                obj! {
                    "type": "message",
                    "sessionId": EXTERNAL_SESSION,
                    "role": role,
                    "text": p.text(size),
                    "createdAt": format!("2025-03-14T09:{:02}:53.589Z", 10 + i),
                },
            );
        }
    }
    c.push(
        "agent_server",
        obj! {
            "type": "message",
            "sessionId": EXTERNAL_SESSION,
            "role": "error",
            "text": "Forwarding to the external agent failed: connection refused (os error 111)",
            "createdAt": "2025-03-14T09:31:02+01:00",
        },
    );
    for code in [
        "invalid_message",
        "hello_required",
        "invalid_session_id",
        "session_not_found",
    ] {
        c.push(
            "agent_server",
            obj! {"type": "error", "code": code, "message": format!("refused: {code}")},
        );
    }
    c
}

/// A JSON-RPC request (with an id) or notification, members in the usual LSP order.
fn rpc(method: &str, id: Option<J>, params: Option<J>) -> J {
    let mut m = obj! {"jsonrpc": "2.0"};
    if let Some(id) = id {
        m.set("id", id);
    }
    m.set("method", method);
    if let Some(params) = params {
        m.set("params", params);
    }
    m
}

/// A successful JSON-RPC response.
fn ok(id: J, result: J) -> J {
    obj! {"jsonrpc": "2.0", "id": id, "result": result}
}

fn id(n: i64) -> Option<J> {
    Some(n.into_j())
}

/// One context of every kind, for prompts and context queries.
fn eca_contexts() -> J {
    arr![
        obj! {"type": "file", "path": "/home/dev/project/src/app/core.clj",
        "linesRange": obj! {"start": 10i64, "end": 42i64}},
        obj! {"type": "file", "path": "/home/dev/project/README.md"},
        obj! {"type": "directory", "path": "/home/dev/project/src"},
        obj! {"type": "web", "url": "https://example.com/docs/guide"},
        obj! {"type": "repoMap"},
        obj! {"type": "mcpResource", "uri": "file://foo/bar.clj", "name": "bar.clj",
        "description": "A Clojure source file", "mimeType": "text/x-clojure",
        "server": "filesystem"},
    ]
}

/// A tool as a tool server lists it, with a JSON Schema for its parameters.
fn eca_tool(name: &str, description: String, disabled: Option<bool>) -> J {
    let mut tool = obj! {
        "name": name,
        "description": description,
        "parameters": obj! {
            "type": "object",
            "properties": obj! {
                "path": obj! {"type": "string", "description": "Absolute path of the file"},
                "offset": obj! {"type": "integer", "minimum": 0i64},
                "limit": obj! {"type": "integer", "minimum": 1i64},
            },
            "required": arr!["path"],
        },
    };
    if let Some(disabled) = disabled {
        tool.set("disabled", disabled);
    }
    tool
}

/// A file-change detail whose diff is about `len` bytes.
fn eca_file_change(p: &mut Prose, len: usize) -> J {
    obj! {
        "type": "fileChange",
        "path": "src/app/core.clj",
        "diff": patch(p, len),
        "linesAdded": 7i64,
        "linesRemoved": 5i64,
    }
}

/// eca: every JSON-RPC method of both sides, and a response to every request.
pub fn eca() -> Corpus {
    let mut p = Prose::new(0x00ec_a0ec);
    let mut c = Corpus::new("eca");

    // client -> server
    c.push(
        "client",
        rpc(
            "initialize",
            id(1),
            Some(obj! {
                "processId": 4242i64,
                "clientInfo": obj! {"name": "emacs", "version": "29.4"},
                "initializationOptions": obj! {"chatBehavior": "agent"},
                "capabilities": obj! {"codeAssistant": obj! {
                    "chat": true, "doc": false, "edit": true, "fix": false,
                }},
                "workspaceFolders": arr![
                    obj! {"uri": "file:///home/dev/project", "name": "project"},
                    obj! {"uri": "file:///home/dev/libs/shared", "name": "shared"},
                ],
            }),
        ),
    );
    c.push("client", rpc("initialized", None, Some(obj! {})));
    for (i, size) in TEXT_SIZES.into_iter().enumerate() {
        let mut params = if i == 0 {
            obj! {}
        } else {
            obj! {"chatId": "chat-1"}
        };
        params.set("requestId", format!("req-{i}"));
        params.set("message", p.text(size));
        if i > 0 {
            params.set("model", "anthropic/claude-sonnet-4");
            params.set("behavior", if i % 2 == 0 { "agent" } else { "plan" });
            params.set("contexts", eca_contexts());
        }
        c.push(
            "client",
            rpc("chat/prompt", id(10 + i as i64), Some(params)),
        );
    }
    c.push(
        "client",
        rpc(
            "chat/queryContext",
            id(20),
            Some(obj! {"chatId": "chat-1", "query": "core", "contexts": eca_contexts()}),
        ),
    );
    c.push(
        "client",
        rpc("chat/queryCommands", id(21), Some(obj! {"query": ""})),
    );
    c.push(
        "client",
        rpc(
            "chat/toolCallApprove",
            None,
            Some(obj! {"chatId": "chat-1", "toolCallId": "call-1"}),
        ),
    );
    c.push(
        "client",
        rpc(
            "chat/toolCallReject",
            None,
            Some(obj! {"chatId": "chat-1", "toolCallId": "call-2"}),
        ),
    );
    c.push(
        "client",
        rpc("chat/promptStop", None, Some(obj! {"chatId": "chat-1"})),
    );
    c.push(
        "client",
        rpc("mcp/stopServer", None, Some(obj! {"name": "filesystem"})),
    );
    c.push(
        "client",
        rpc("mcp/startServer", None, Some(obj! {"name": "filesystem"})),
    );
    c.push(
        "client",
        rpc(
            "chat/delete",
            Some("del-1".into_j()),
            Some(obj! {"chatId": "chat-1"}),
        ),
    );
    c.push("client", rpc("shutdown", id(99), None));
    c.push("client", rpc("exit", None, None));

    // server -> client: notifications
    let content = |content: J, role: &str| {
        rpc(
            "chat/contentReceived",
            None,
            Some(obj! {"chatId": "chat-1", "content": content, "role": role}),
        )
    };
    for (i, size) in TEXT_SIZES.into_iter().enumerate() {
        let role = if i == 0 { "user" } else { "assistant" };
        c.push(
            "server",
            content(obj! {"type": "text", "text": p.text(size)}, role),
        );
    }
    c.push(
        "server",
        content(
            obj! {"type": "url", "title": "Clojure docs", "url": "https://clojure.org/reference/namespaces"},
            "assistant",
        ),
    );
    c.push(
        "server",
        content(
            obj! {"type": "progress", "state": "running", "text": "Waiting model"},
            "system",
        ),
    );
    c.push(
        "server",
        content(
            obj! {"type": "progress", "state": "finished", "text": "Done"},
            "system",
        ),
    );
    c.push(
        "server",
        content(
            obj! {"type": "usage", "messageInputTokens": 10_342i64, "messageOutputTokens": 811i64,
            "sessionTokens": 48_213i64, "messageCost": "$0.0412", "sessionCost": "$0.3317"},
            "system",
        ),
    );
    c.push(
        "server",
        content(
            obj! {"type": "usage", "messageInputTokens": 12i64, "messageOutputTokens": 3i64,
            "sessionTokens": 15i64},
            "system",
        ),
    );
    c.push(
        "server",
        content(
            obj! {"type": "reasonStarted", "id": "reason-1"},
            "assistant",
        ),
    );
    for size in &TEXT_SIZES[1..] {
        c.push(
            "server",
            content(
                obj! {"type": "reasonText", "id": "reason-1", "text": p.text(*size)},
                "assistant",
            ),
        );
    }
    c.push(
        "server",
        content(
            obj! {"type": "reasonFinished", "id": "reason-1"},
            "assistant",
        ),
    );
    for (i, size) in TEXT_SIZES.into_iter().enumerate() {
        let call_id = format!("call-{i}");
        let approval = i % 2 == 0;
        let arguments = obj! {"path": "src/app/core.clj", "content": p.text(size * 3 / 4)};
        // Prepare streams the arguments as raw text; cut it short like a partial chunk.
        let text = serde_json::to_string(&arguments).expect("serializes");
        let partial: String = text.chars().take(text.chars().count() * 3 / 4).collect();
        let mut prepare = obj! {
            "type": "toolCallPrepare", "origin": "native", "id": call_id.clone(),
            "name": "eca_write_file", "argumentsText": partial, "manualApproval": approval,
        };
        let mut run = obj! {
            "type": "toolCallRun", "origin": "native", "id": call_id.clone(),
            "name": "eca_write_file", "arguments": arguments, "manualApproval": approval,
        };
        let mut called = obj! {
            "type": "toolCalled", "origin": if i == 3 { "mcp" } else { "native" },
            "id": call_id, "name": "eca_write_file",
            "arguments": arr!["src/app/core.clj", p.text(size / 8)],
            "error": i == 2,
            "outputs": arr![
                obj! {"type": "text", "content": p.text(size * 2 / 3)},
                obj! {"type": "text", "content": "1 file changed."},
            ],
        };
        if i > 0 {
            let summary = format!("Writing file \"core.clj\" ({i})");
            prepare.set("summary", summary.clone());
            run.set("summary", summary.clone());
            called.set("summary", summary);
            run.set("details", eca_file_change(&mut p, size / 5));
            called.set("details", eca_file_change(&mut p, size / 5));
        }
        c.push("server", content(prepare, "assistant"));
        c.push("server", content(run, "assistant"));
        c.push("server", content(called, "assistant"));
    }
    c.push(
        "server",
        content(
            obj! {"type": "toolCallRejected", "origin": "mcp", "id": "call-9", "name": "shell",
            "arguments": obj! {"command": "rm -rf ~/.cache"}, "reason": "user"},
            "assistant",
        ),
    );
    c.push(
        "server",
        content(
            obj! {"type": "toolCallRejected", "origin": "native", "id": "call-10",
            "name": "eca_write_file",
            "arguments": obj! {"path": "src/app/core.clj", "content": p.text(700)},
            "reason": "user", "summary": "Writing file \"core.clj\"",
            "details": eca_file_change(&mut p, 600)},
            "assistant",
        ),
    );
    let native_tools: Vec<J> = [
        "eca_read_file",
        "eca_write_file",
        "eca_grep",
        "eca_shell_command",
        "eca_directory_tree",
    ]
    .into_iter()
    .enumerate()
    .map(|(i, name)| eca_tool(name, p.text(120 + 80 * i), (i == 3).then_some(true)))
    .collect();
    c.push(
        "server",
        rpc(
            "tool/serverUpdated",
            None,
            Some(
                obj! {"type": "native", "name": "ECA", "status": "running", "tools": native_tools},
            ),
        ),
    );
    for status in ["running", "starting", "stopped", "failed", "disabled"] {
        let mut params = obj! {
            "type": "mcp", "name": "filesystem", "command": "npx",
            "args": arr!["-y", "@modelcontextprotocol/server-filesystem", "/home/dev/project"],
            "status": status,
        };
        if status == "running" {
            params.set(
                "tools",
                arr![
                    eca_tool("read_text_file", p.text(200), None),
                    eca_tool("list_directory", p.text(150), Some(false)),
                ],
            );
        }
        c.push("server", rpc("tool/serverUpdated", None, Some(params)));
    }
    for (kind, size) in [("error", 300), ("warning", 120), ("info", 40)] {
        c.push(
            "server",
            rpc(
                "$/showMessage",
                None,
                Some(obj! {"type": kind, "message": p.text(size)}),
            ),
        );
    }

    // server -> client: responses to the client's requests
    c.push_response(
        "initialize",
        ok(
            1i64.into_j(),
            obj! {
                "models": arr!["openai/gpt-4.1", "anthropic/claude-sonnet-4", "ollama/qwen2.5-coder:14b"],
                "chatDefaultModel": "anthropic/claude-sonnet-4",
                "chatBehaviors": arr!["agent", "plan"],
                "chatDefaultBehavior": "agent",
                "chatWelcomeMessage": p.text(400),
            },
        ),
    );
    for i in 0..TEXT_SIZES.len() as i64 {
        c.push_response(
            "chat/prompt",
            ok(
                (10 + i).into_j(),
                obj! {"chatId": "chat-1", "model": "anthropic/claude-sonnet-4", "status": "success"},
            ),
        );
    }
    c.push_response(
        "chat/queryContext",
        ok(
            20i64.into_j(),
            obj! {"chatId": "chat-1", "contexts": eca_contexts()},
        ),
    );
    let commands: Vec<J> = (0..6)
        .map(|i| {
            let arguments: Vec<J> = (0..i % 3)
                .map(|j| {
                    obj! {"name": format!("arg{j}"), "description": "What to look at", "required": j == 0}
                })
                .collect();
            obj! {
                "name": p.word(),
                "description": p.text(90),
                "type": if i % 2 == 0 { "native" } else { "mcp-prompt" },
                "arguments": arguments,
            }
        })
        .collect();
    c.push_response(
        "chat/queryCommands",
        ok(
            21i64.into_j(),
            obj! {"chatId": "chat-1", "commands": commands},
        ),
    );
    c.push_response("chat/delete", ok("del-1".into_j(), obj! {}));
    c.push_response("shutdown", ok(99i64.into_j(), Value::Null.into_j()));
    c.push_response(
        "chat/prompt",
        obj! {"jsonrpc": "2.0", "id": 14i64, "error": obj! {
            "code": -32602i64,
            "message": "Invalid params: unknown model",
            "data": obj! {"model": "acme/unknown-1"},
        }},
    );
    c
}
