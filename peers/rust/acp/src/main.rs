//! ACP interop peer on the official Rust SDK (`agent-client-protocol`), through its public API:
//! `acp-sdk-peer client AGENT [ARGS...]` drives the agent it starts and prints what it saw as
//! one JSON object; `acp-sdk-peer agent REPORT` serves one client on stdio and writes what it
//! saw to REPORT when its input ends. The scenario and the report are those of
//! peers/python/acp_peer.py, so one expectation holds for every SDK.

mod agent;
mod client;

use std::time::Duration;

use agent_client_protocol::Error;
use serde_json::Value;

/// The longest any one run may take.
const LIMIT: Duration = Duration::from_secs(60);

/// A typed SDK value from the JSON it travels as.
fn typed<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, Error> {
    serde_json::from_value(v).map_err(Error::into_internal_error)
}

/// An SDK value as the JSON it travels as.
fn plain<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or_default()
}

/// The normal form of one session update: kind, then tool call id and status if any (a new
/// tool call's status defaults to `pending`, which the SDK's types leave out when writing).
fn update_line(update: &Value) -> String {
    let kind = update["sessionUpdate"].as_str().unwrap_or("?");
    let mut parts = vec![kind.to_owned()];
    if let Some(id) = update["toolCallId"].as_str() {
        parts.push(id.to_owned());
    }
    match update["status"].as_str() {
        Some(status) => parts.push(status.to_owned()),
        None if kind == "tool_call" => parts.push("pending".to_owned()),
        None => {}
    }
    parts.join(" ")
}

/// The error code of an SDK error.
fn code(e: &Error) -> i64 {
    i64::from(i32::from(e.code))
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = async {
        match args.as_slice() {
            [mode, agent @ ..] if mode == "client" && !agent.is_empty() => {
                let report = client::run(agent).await?;
                println!("{report}");
                Ok(())
            }
            [mode, report] if mode == "agent" => agent::run(report).await,
            _ => Err(Error::invalid_params()
                .data("usage: acp-sdk-peer client AGENT [ARGS...] | agent REPORT")),
        }
    };
    match tokio::time::timeout(LIMIT, run).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            eprintln!("acp-sdk-peer: {e:?}");
            std::process::exit(1);
        }
        Err(_) => {
            eprintln!("acp-sdk-peer: over the time limit");
            std::process::exit(3);
        }
    }
}
