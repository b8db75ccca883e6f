//! One direction of a proxied byte stream: reads what one side sends, forwards it to the
//! other, and hands every frame to the session to record and check. Without `--enforce` the
//! bytes are forwarded as they arrive, unchanged, once the frames they complete are recorded;
//! with it each frame is forwarded (its bytes
//! unchanged) only once its check passed, and a refused one is answered in the protocol's
//! error form. A frame left unfinished past the frame deadline is given up, and a side that
//! stops reading costs its session after the write deadline, not the proxy's memory.

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::Mutex;

use super::rules::Rules;
use super::split::{Chunk, Framing, Piece, Splitter};
use super::verdict::{Verdict, judge};

/// Bytes read at a time.
const CHUNK: usize = 64 * 1024;

/// The two writers of a direction: onward to the receiver, and back to the sender (for
/// `--enforce`'s answers). Each is shared with the opposite direction, under a lock so a
/// frame is never cut by another.
pub struct Ends<'a, W, B> {
    pub onward: &'a Mutex<W>,
    pub back: &'a Mutex<B>,
}

/// Why a direction stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The sender closed its side.
    Ended,
    /// Reading failed.
    ReadFailed(String),
    /// A side did not take what was written to it in time, or is gone.
    WriteFailed(String),
}

/// Relays `from`'s stream until it ends; then shuts the onward writer down.
pub async fn pump<R, W, B>(
    rules: Rules<'_>,
    from: &str,
    mut reader: R,
    ends: Ends<'_, W, B>,
) -> Stop
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
    B: AsyncWrite + Unpin,
{
    let mut splitter = Splitter::new(rules.framing, rules.max_frame_size);
    let mut buf = vec![0u8; CHUNK];
    let mut pieces = Vec::new();
    let stop = loop {
        let n = match splitter
            .read(&mut reader, &mut buf, rules.frame_timeout)
            .await
        {
            Chunk::Bytes(n) => n,
            Chunk::Stalled => {
                let why = format!(
                    "no more of a started frame within {} s: its start is dropped",
                    rules.frame_timeout.as_secs()
                );
                pieces.push(Piece::Broken(why));
                if let Err(stop) = handle(rules, from, &mut pieces, &ends).await {
                    break stop;
                }
                continue;
            }
            Chunk::End => {
                pieces.extend(splitter.finish());
                break handle(rules, from, &mut pieces, &ends)
                    .await
                    .err()
                    .unwrap_or(Stop::Ended);
            }
            Chunk::Failed(e) => break Stop::ReadFailed(e.to_string()),
        };
        let chunk = &buf[..n];
        splitter.push(chunk, &mut pieces);
        // Each frame the chunk completes is recorded before the chunk goes on: the receiver
        // cannot answer a frame before it is recorded, so the recording keeps cause before
        // effect (an answer recorded ahead of its request was a false sequence finding).
        if let Err(stop) = handle(rules, from, &mut pieces, &ends).await {
            break stop;
        }
        if !rules.enforce
            && let Err(stop) = write(rules, ends.onward, chunk).await
        {
            break stop;
        }
    };
    let mut onward = ends.onward.lock().await;
    let _ = tokio::time::timeout(rules.write_timeout, onward.shutdown()).await;
    stop
}

/// Records, checks and (with `--enforce`) forwards or answers each piece.
async fn handle<W, B>(
    rules: Rules<'_>,
    from: &str,
    pieces: &mut Vec<Piece>,
    ends: &Ends<'_, W, B>,
) -> Result<(), Stop>
where
    W: AsyncWrite + Unpin,
    B: AsyncWrite + Unpin,
{
    for piece in pieces.drain(..) {
        let (verdict, raw) = match piece {
            Piece::Frame { body, raw } => (judge(rules, from, Ok(&body)), raw),
            Piece::Broken(why) => (judge(rules, from, Err(&why)), Vec::new()),
        };
        if !rules.enforce {
            continue;
        }
        match verdict {
            Verdict::Forward => write(rules, ends.onward, &raw).await?,
            Verdict::Back(text) => write(rules, ends.back, &frame(rules.framing, &text)).await?,
            Verdict::On(text) => write(rules, ends.onward, &frame(rules.framing, &text)).await?,
            Verdict::Drop => {}
        }
    }
    Ok(())
}

/// `text` framed for the wire.
fn frame(framing: Framing, text: &str) -> Vec<u8> {
    match framing {
        Framing::Lines => format!("{text}\n").into_bytes(),
        Framing::ContentLength => agentwire_runtime::framing::encode(text),
    }
}

async fn write<W: AsyncWrite + Unpin>(
    rules: Rules<'_>,
    to: &Mutex<W>,
    bytes: &[u8],
) -> Result<(), Stop> {
    let mut to = to.lock().await;
    let done = async {
        to.write_all(bytes).await?;
        to.flush().await
    };
    match tokio::time::timeout(rules.write_timeout, done).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(Stop::WriteFailed(e.to_string())),
        Err(_) => Err(Stop::WriteFailed(format!(
            "the receiver took nothing for {} s",
            rules.write_timeout.as_secs()
        ))),
    }
}
