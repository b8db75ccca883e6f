//! The TCP proxy, for JSON-RPC over a socket in the spec's framing (a message per line, or
//! `Content-Length` frames): listens on `--listen`, and for each connection opens one to
//! `--upstream` (`tcp://HOST:PORT`) and relays both directions with the same pumps the
//! stdio proxy uses. Connections are served side by side on one task; a peer that
//! misbehaves (garbage, a stalled frame, a full socket) ends its own connection only. Each
//! connection is a stream of its own (named by its number, in the order they came), checked
//! apart from the others and ended when the connection closes.

use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;

use super::pump::{Ends, pump};
use super::rules::Rules;
use super::stdio::Sides;

/// How long connecting to the upstream may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one side may stay open once the other closed.
const GRACE: Duration = Duration::from_secs(5);
/// Connections relayed at once, at most; one more is closed on accept.
const MAX_CONNECTIONS: usize = 256;

/// Listens on `listen` and relays each connection to `upstream` until Ctrl-C or SIGTERM.
pub async fn run(
    rules: Rules<'_>,
    sides: Sides<'_>,
    listen: &str,
    upstream: &str,
) -> Result<(), String> {
    let target = upstream
        .strip_prefix("tcp://")
        .ok_or_else(|| format!("--upstream {upstream} is no tcp://HOST:PORT address"))?
        .trim_end_matches('/')
        .to_owned();
    let listener = TcpListener::bind(listen)
        .await
        .map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    eprintln!("agentwire proxy: listening on tcp://{addr}, relaying to tcp://{target}");
    let mut live = FuturesUnordered::new();
    let mut accepted_so_far = 0u64;
    let stop = super::signal::stop();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            Some(()) = live.next(), if !live.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((socket, _)) if live.len() < MAX_CONNECTIONS => {
                    accepted_so_far += 1;
                    let stream = accepted_so_far.to_string();
                    live.push(connection(rules, &sides, socket, &target, stream));
                }
                Ok(_) => {}
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            },
        }
    }
    Ok(())
}

/// One client connection, relayed to a fresh upstream connection until either side is done.
async fn connection(
    rules: Rules<'_>,
    sides: &Sides<'_>,
    client: TcpStream,
    target: &str,
    stream: String,
) {
    let rules = Rules {
        stream: Some(&stream),
        ..rules
    };
    relay(rules, sides, client, target).await;
    rules.session.end(&stream);
}

/// Relays one connection's two directions.
async fn relay(rules: Rules<'_>, sides: &Sides<'_>, client: TcpStream, target: &str) {
    let server = match tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(target)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return eprintln!("agentwire proxy: cannot reach {target}: {e}"),
        Err(_) => return eprintln!("agentwire proxy: {target} did not accept in time"),
    };
    let _ = (client.set_nodelay(true), server.set_nodelay(true));
    let (client_in, client_out) = client.into_split();
    let (server_in, server_out) = server.into_split();
    let (client_out, server_out) = (Mutex::new(client_out), Mutex::new(server_out));
    let up = pump(
        rules,
        sides.client,
        client_in,
        Ends {
            onward: &server_out,
            back: &client_out,
        },
    );
    let down = pump(
        rules,
        sides.server,
        server_in,
        Ends {
            onward: &client_out,
            back: &server_out,
        },
    );
    tokio::pin!(up, down);
    // Whichever side ends first, the other gets a grace period to finish.
    tokio::select! {
        _ = &mut up => { let _ = tokio::time::timeout(GRACE, down).await; }
        _ = &mut down => { let _ = tokio::time::timeout(GRACE, up).await; }
    }
}
