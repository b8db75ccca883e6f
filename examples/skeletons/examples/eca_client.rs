//! A minimal ECA editor on the generated client: initializes, sends one prompt, approves the
//! tool call it brings (if any), prints the streamed chat content, then shuts the server down.
//!
//! `cargo run --example eca_client` starts the `eca_server` example found next to its own
//! executable (building it with cargo first if it is not there) and talks to it over its
//! stdio; `-- tcp 127.0.0.1:7777` connects to a listening server instead; `-- spawn COMMAND
//! [ARGS...]` starts any server speaking on its stdio. An optional `--prompt TEXT` before the
//! mode sets the message (default: "hello, please use a tool").

use agentwire_protocols::eca::{
    ChatContent, ChatPromptParams, ChatToolCallApproveParams, InitializeParams, InitializedParams,
    ProgressContentState, ServerNotification,
};
use agentwire_protocols::skeletons::eca::{Client, ServerNotifications};
use agentwire_transport::jsonrpc::{Config, Connection};

type Boxed = Box<dyn std::error::Error + Send + Sync>;

async fn open(
    args: &[String],
) -> Result<
    (
        Client,
        ServerNotifications,
        Connection,
        Option<tokio::process::Child>,
    ),
    Boxed,
> {
    match args {
        [] => {
            let server = sibling_server()?;
            let cmd = tokio::process::Command::new(&server);
            let (c, n, conn, child) = Client::spawn(cmd, Config::default())
                .map_err(|e| format!("cannot start {}: {e}", server.display()))?;
            Ok((c, n, conn, Some(child)))
        }
        [mode, addr] if mode == "tcp" => {
            let (c, n, conn) = Client::connect_tcp(addr.as_str(), Config::default())
                .await
                .map_err(|e| {
                    agentwire_examples::connect_error(addr, "eca_server -- --tcp ADDR", &e)
                })?;
            Ok((c, n, conn, None))
        }
        [mode, program, rest @ ..] if mode == "spawn" => {
            let mut cmd = tokio::process::Command::new(program);
            cmd.args(rest);
            let (c, n, conn, child) = Client::spawn(cmd, Config::default())?;
            Ok((c, n, conn, Some(child)))
        }
        _ => Err("usage: eca_client [--prompt TEXT] [tcp ADDR | spawn COMMAND [ARGS...]]".into()),
    }
}

/// The `eca_server` example beside this executable (cargo builds examples into one folder,
/// wherever `CARGO_TARGET_DIR` puts it). `cargo run --example eca_client` builds only the
/// client, so a missing server is built the same way first: over the whole workspace, whose
/// features `cargo run` in it resolves (`-p agentwire-examples` alone would resolve fewer and
/// compile the generated protocols crate a second time).
fn sibling_server() -> Result<std::path::PathBuf, Boxed> {
    let me = std::env::current_exe()?;
    let server = me.with_file_name(format!("eca_server{}", std::env::consts::EXE_SUFFIX));
    if server.exists() {
        return Ok(server);
    }
    eprintln!("eca_client: building the eca_server example first");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args(["build", "--quiet", "--workspace", "--example", "eca_server"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()?;
    if !status.success() || !server.exists() {
        return Err(format!(
            "no eca_server at {}; build it with `cargo build --example eca_server`, or pass \
             `spawn COMMAND` or `tcp ADDR`",
            server.display()
        )
        .into());
    }
    Ok(server)
}

async fn run(args: Vec<String>) -> Result<(), Boxed> {
    let (message, args) = match args.as_slice() {
        [flag, text, rest @ ..] if flag == "--prompt" => (text.clone(), rest.to_vec()),
        _ => ("hello, please use a tool".to_owned(), args),
    };
    let (client, mut notes, connection, child) = open(&args).await?;
    let params: InitializeParams = agentwire_runtime::decode_json(
        r#"{"processId": null, "clientInfo": {"name": "agentwire eca_client"},
            "capabilities": {"codeAssistant": {"chat": true}}, "workspaceFolders": []}"#,
    )?;
    let init = client.initialize(params).await?;
    println!(
        "server models: {:?}; welcome: {}",
        init.models, init.chat_welcome_message
    );
    client.initialized(InitializedParams {}).await?;

    let response = client
        .chat_prompt(ChatPromptParams {
            chat_id: None,
            request_id: "1".to_owned(),
            message,
            model: None,
            behavior: None,
            contexts: None,
        })
        .await?;
    println!("chat {} opened", response.chat_id);
    while let Some(note) = notes.recv().await {
        let p = match note {
            ServerNotification::ChatContentReceived(p) => p,
            ServerNotification::ShowMessage(m) => {
                println!("[{}] {}", m.r#type.as_str(), m.message);
                continue;
            }
            ServerNotification::ToolServerUpdated(_) => continue,
        };
        match &p.content {
            ChatContent::Text(t) => println!("{}", t.text),
            ChatContent::ToolCallRun(run) if run.manual_approval => {
                println!("approving tool call {} ({})", run.id, run.name);
                client
                    .chat_tool_call_approve(ChatToolCallApproveParams {
                        chat_id: p.chat_id.clone(),
                        tool_call_id: run.id.clone(),
                    })
                    .await?;
            }
            ChatContent::Progress(pr) if pr.state == ProgressContentState::Finished => break,
            other => println!("({})", other.kind()),
        }
    }
    client.shutdown().await?;
    client.exit().await?;
    if let Some(mut child) = child {
        let status = child.wait().await?;
        println!("server exited: {status}");
    }
    client.close();
    connection.join().await?;
    Ok(())
}

#[tokio::main]
async fn main() {
    agentwire_examples::init_logging();
    agentwire_examples::exit_on_error("eca_client", run(std::env::args().skip(1).collect()).await);
}
