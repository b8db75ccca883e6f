//! An ACP client on the generated skeleton: starts an agent as a subprocess and speaks
//! newline-delimited JSON-RPC on its stdio. It initializes (declaring that it reads and writes
//! text files and runs terminals, which it then does for the agent), opens a session in the
//! current directory, runs one prompt turn printing every update as it arrives and allowing
//! what the agent asks, then a second turn that it cancels while the agent waits for
//! permission, and checks that turn ends with `cancelled` and every terminal was released.
//!
//! It offers version 2 (ACP's draft) and speaks the version the agent's answer agrees on. In
//! version 2 the prompt's answer only acknowledges it and the turn's end comes as a
//! `state_update` update, so each turn runs until that update; version 2 has no files or
//! terminals for the agent. `--v1` offers version 1 alone, declaring files and terminals (an
//! agent answering a version 2 offer with version 1 reads it without them).
//!
//! `cargo run --example acp_client` starts the `acp_agent` example found next to its own
//! executable (building it first if it is not there); `-- [--v1] COMMAND [ARGS...]` starts
//! any ACP agent instead.

mod v2;

use std::sync::Arc;
use std::time::Duration;

use agentwire_examples::Failure;
use agentwire_examples::acp::{
    ClientAnswers, PROTOCOL_VERSION, Permission, blocks_text, client_capabilities,
};
use agentwire_protocols::acp::v1::AgentNotification;
use agentwire_protocols::skeletons::acp::{
    AgentNotifications, Client, ClientHandlers, NegotiatedClient,
};
use agentwire_transport::jsonrpc::{Config, VersionError};
use serde_json::{Value, json};

type Boxed = Box<dyn std::error::Error + Send + Sync>;

fn typed<T: agentwire_runtime::serde::de::DeserializeOwned>(v: Value) -> Result<T, Boxed> {
    Ok(serde_json::from_value(v)?)
}

/// One line for an update (ACP's `SessionUpdate` as JSON).
fn update_line(update: &Value) -> String {
    let kind = update["sessionUpdate"].as_str().unwrap_or("?");
    match kind {
        "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk" => {
            let content = Value::Array(vec![update["content"].clone()]);
            format!("{kind}: {}", blocks_text(&content))
        }
        "tool_call" => format!(
            "tool_call {} {:?} ({})",
            update["toolCallId"].as_str().unwrap_or("?"),
            update["title"].as_str().unwrap_or_default(),
            update["status"].as_str().unwrap_or("pending")
        ),
        "tool_call_update" => {
            let status = update["status"].as_str().unwrap_or("unchanged");
            format!(
                "tool_call_update {} {status}",
                update["toolCallId"].as_str().unwrap_or("?")
            )
        }
        "state_update" => match update["stopReason"].as_str() {
            Some(stop) => format!(
                "state_update {} ({stop})",
                update["state"].as_str().unwrap_or("?")
            ),
            None => format!("state_update {}", update["state"].as_str().unwrap_or("?")),
        },
        "user_message" => {
            let content = &update["content"];
            format!("user_message: {}", blocks_text(content))
        }
        other => other.to_owned(),
    }
}

fn print_note(note: &AgentNotification) {
    match note {
        AgentNotification::SessionUpdate(u) => {
            let update = serde_json::to_value(&u.update).unwrap_or_default();
            println!("  {}", update_line(&update));
        }
        other => println!("  {}", serde_json::to_value(other).unwrap_or_default()),
    }
}

/// Sends one prompt and prints the session's updates as they arrive; returns the stop reason.
async fn turn(
    client: &Client,
    notes: &mut AgentNotifications,
    session: &str,
    text: &str,
) -> Result<String, Boxed> {
    println!("prompt: {text}");
    let params = typed(json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]}))?;
    let prompt = client.session_prompt(params);
    tokio::pin!(prompt);
    let done = loop {
        tokio::select! {
            done = &mut prompt => break done?,
            Some(note) = notes.recv() => print_note(&note),
        }
    };
    // The turn's updates came before its answer; any still queued are printed now.
    while let Ok(Some(note)) = tokio::time::timeout(Duration::from_millis(20), notes.recv()).await {
        print_note(&note);
    }
    let stop = serde_json::to_value(done.stop_reason)?;
    Ok(stop.as_str().unwrap_or("?").to_owned())
}

/// Starts the agent offering version 1 alone, declaring files and terminals, and runs the
/// version 1 demo.
async fn demo_v1(program: &str, args: &[String]) -> Result<(), Boxed> {
    let answers = Arc::new(ClientAnswers::new(true));
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args);
    let (client, notes, _connection, child) =
        Client::spawn_with(Arc::clone(&answers), cmd, Config::default())
            .map_err(|e| Failure(format!("cannot start `{program}`: {e}")))?;
    let init = client
        .initialize(typed(json!({
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": client_capabilities(),
            "clientInfo": {"name": "agentwire-acp-client", "version": env!("CARGO_PKG_VERSION")}
        }))?)
        .await
        .map_err(|e| Failure(format!("`{program}` did not initialize: {e}")))?;
    print_initialized(&serde_json::to_value(&init)?, "agentInfo");
    turns_v1(client, notes, child, &answers).await
}

/// Starts the agent offering version 2 and runs the demo of the version it agrees on.
async fn demo(program: &str, args: &[String]) -> Result<(), Boxed> {
    let answers = Arc::new(ClientAnswers::new(true));
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args);
    let handlers = ClientHandlers {
        v2: Arc::clone(&answers),
        v1: Arc::clone(&answers),
    };
    let (negotiated, _connection, child) = handlers
        .spawn(cmd, v2::offer()?, Config::default())
        .await
        .map_err(|e| match e {
            VersionError::Io(e) => Failure(format!("cannot start `{program}`: {e}")),
            e => Failure(format!("`{program}` did not initialize: {e}")),
        })?;
    match negotiated {
        NegotiatedClient::V2(opened) => {
            print_initialized(&serde_json::to_value(&opened.result)?, "info");
            v2::turns(opened.handle, opened.notifications, child, &answers).await
        }
        NegotiatedClient::V1(opened) => {
            print_initialized(&serde_json::to_value(&opened.result)?, "agentInfo");
            turns_v1(opened.handle, opened.notifications, child, &answers).await
        }
    }
}

/// "initialized: NAME speaking ACP version N", from an initialize result whose
/// implementation is under `info`.
fn print_initialized(init: &Value, info: &str) {
    println!(
        "initialized: {} speaking ACP version {}",
        init[info]["name"].as_str().unwrap_or("an agent"),
        init["protocolVersion"]
    );
}

/// The version 1 demo once initialized: a session, a turn allowing everything, a turn the
/// user cancels while asked for permission, every terminal released, then the agent's exit.
async fn turns_v1(
    client: Client,
    mut notes: AgentNotifications,
    child: tokio::process::Child,
    answers: &ClientAnswers,
) -> Result<(), Boxed> {
    let cwd = std::env::current_dir()?.to_string_lossy().into_owned();
    let session = client
        .session_new(typed(json!({"cwd": cwd, "mcpServers": []}))?)
        .await?
        .session_id;
    println!("session {session} in {cwd}");

    let stop = turn(&client, &mut notes, &session, "What does the README say?").await?;
    println!("turn ended: {stop}");

    answers.set_permission(Permission::CancelTurn);
    let stop = turn(&client, &mut notes, &session, "Read it again.").await?;
    println!("turn ended: {stop}");
    if stop != "cancelled" || !answers.take_cancelled() {
        return Err(Failure(format!("the cancelled turn ended with {stop}")).into());
    }
    let live = answers.live_terminals();
    if live > 0 {
        return Err(Failure(format!("the agent left {live} terminal(s) unreleased")).into());
    }
    client.close();
    wait_exit(child).await
}

/// Waits for the agent to exit at the end of its input (killing it after 5 s).
async fn wait_exit(mut child: tokio::process::Child) -> Result<(), Boxed> {
    match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
        Ok(status) => println!("agent exited: {}", status?),
        Err(_) => {
            child.kill().await?;
            println!("agent did not exit at the end of its input; killed");
        }
    }
    Ok(())
}

/// The `acp_agent` example beside this executable, built first when missing (over the whole
/// workspace, as `cargo run` resolves its features; see `mcp_client`).
fn sibling_agent() -> Result<String, Boxed> {
    let me = std::env::current_exe()?;
    let agent = me.with_file_name(format!("acp_agent{}", std::env::consts::EXE_SUFFIX));
    if !agent.exists() {
        eprintln!("acp_client: building the acp_agent example first");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "--quiet", "--workspace", "--example", "acp_agent"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()?;
        if !status.success() || !agent.exists() {
            return Err(Failure(format!(
                "no acp_agent at {}; build it with `cargo build --example acp_agent`, or pass \
                 an agent command",
                agent.display()
            ))
            .into());
        }
    }
    Ok(agent.to_string_lossy().into_owned())
}

async fn run(args: Vec<String>) -> Result<(), Boxed> {
    let (v1, args) = match args.split_first() {
        Some((flag, rest)) if flag == "--v1" => (true, rest),
        _ => (false, args.as_slice()),
    };
    let (program, rest) = match args {
        [flag, ..] if flag.starts_with("--") => {
            return Err(Failure(
                "usage: acp_client [--v1] [COMMAND [ARGS...]] (no command: the acp_agent example)"
                    .into(),
            )
            .into());
        }
        [] => (sibling_agent()?, &[][..]),
        [program, rest @ ..] => (program.clone(), rest),
    };
    if v1 {
        demo_v1(&program, rest).await
    } else {
        demo(&program, rest).await
    }
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("acp_client", run(std::env::args().skip(1).collect()).await);
}
