//! Reading a POST body under a size cap and a deadline, refusing a declared length over the
//! cap before reading anything.

use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, header};
use futures_util::StreamExt;

/// Why a body could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BodyError {
    TooLarge(usize),
    Timeout(Duration),
    Broken(String),
    NotUtf8,
}

/// The whole body as text, at most `max` bytes, within `timeout`.
pub(crate) async fn read(
    headers: &HeaderMap,
    body: Body,
    max: usize,
    timeout: Duration,
) -> Result<String, BodyError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(BodyError::TooLarge(max));
    }
    let mut buf = Vec::with_capacity(declared.map_or(0, |n| n as usize));
    let mut chunks = body.into_data_stream();
    let collect = async {
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(|e| BodyError::Broken(e.to_string()))?;
            if buf.len() + chunk.len() > max {
                return Err(BodyError::TooLarge(max));
            }
            buf.extend_from_slice(&chunk);
        }
        Ok(())
    };
    tokio::time::timeout(timeout, collect)
        .await
        .map_err(|_| BodyError::Timeout(timeout))??;
    String::from_utf8(buf).map_err(|_| BodyError::NotUtf8)
}
