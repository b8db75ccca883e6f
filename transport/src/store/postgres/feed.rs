//! The listener behind [`super::PgSessionStore`]'s feed: one connection that LISTENs on the
//! append channel and reports each notification; after every (re)connection it reports a
//! resync first, since notifications sent while it was away are gone and readers must
//! catch up from the log.

use std::time::Duration;

use tokio::sync::{broadcast, mpsc};
use tokio_postgres::{AsyncMessage, NoTls, Notification};

use super::CHANNEL;
use crate::store::FeedEvent;

/// How long the listener waits before reconnecting after losing the database.
const RETRY: Duration = Duration::from_millis(200);

/// Listens until the I/O runtime stops (the store is dropped).
pub(super) async fn listen(url: String, tx: broadcast::Sender<FeedEvent>) {
    loop {
        match tokio_postgres::connect(&url, NoTls).await {
            Ok((client, mut connection)) => {
                let (ntx, mut nrx) = mpsc::unbounded_channel::<Notification>();
                // The connection is polled here (notifications arrive on it) rather than by
                // a plain driver task, which would drop them.
                let driver = tokio::spawn(async move {
                    loop {
                        match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                            Some(Ok(AsyncMessage::Notification(n))) => {
                                if ntx.send(n).is_err() {
                                    return;
                                }
                            }
                            Some(Ok(_)) => {}
                            Some(Err(e)) => {
                                tracing::warn!(error = %e, "postgres listener connection lost");
                                return;
                            }
                            None => return,
                        }
                    }
                });
                match client.batch_execute(&format!("LISTEN {CHANNEL}")).await {
                    Ok(()) => {
                        let _ = tx.send(FeedEvent::Resync);
                        while let Some(n) = nrx.recv().await {
                            if let Some(event) = parse(n.payload()) {
                                let _ = tx.send(event);
                            }
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "postgres LISTEN failed"),
                }
                driver.abort();
            }
            Err(e) => tracing::warn!(error = %e, "postgres listener cannot connect"),
        }
        tokio::time::sleep(RETRY).await;
    }
}

/// Reads a `seq:session_id` payload.
fn parse(payload: &str) -> Option<FeedEvent> {
    let (seq, session_id) = payload.split_once(':')?;
    Some(FeedEvent::Appended {
        session_id: session_id.to_owned(),
        seq: seq.parse().ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_split_at_the_first_colon() {
        assert_eq!(
            parse("12:ses:with:colons"),
            Some(FeedEvent::Appended {
                session_id: "ses:with:colons".into(),
                seq: 12
            })
        );
        assert_eq!(parse("x:s"), None);
        assert_eq!(parse("no colon"), None);
    }
}
