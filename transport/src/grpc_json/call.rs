//! A call made in process on the tonic service that serves gRPC: the binding's transcoded
//! request (its HTTP headers as metadata, less those about the HTTP exchange) through the
//! service's own codecs, answered with the reply's protobuf bytes or the failing status.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use bytes::Bytes;
use futures_util::future::BoxFuture;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::codegen::{Body as HttpBody, Service, StdError, http};
use tonic::metadata::MetadataMap;
use tonic::{Status, Streaming};

use super::codec::RawCodec;
use super::schema::Rpc;

/// The largest request body read, in bytes (gRPC's default message limit).
const MAX_BODY: usize = 4 * 1024 * 1024;
/// How long a peer may take to send its request body.
const READ_LIMIT: Duration = Duration::from_secs(30);
/// HTTP headers that describe the HTTP exchange itself, not the call: not passed on as
/// metadata (gRPC sets its own), nor are `grpc-` headers or binary (`-bin`) ones.
const NOT_METADATA: &[&str] = &[
    "content-type",
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "host",
    "te",
    "accept",
    "accept-encoding",
    "expect",
];

/// A tonic service the JSON bindings call in process: every generated server (behind its
/// interceptors) is one.
pub trait InProcess: Send + Sync + 'static {
    /// The unary rpc at `path` with `request`: the reply's bytes.
    fn unary(
        &self,
        path: PathAndQuery,
        request: tonic::Request<Bytes>,
    ) -> BoxFuture<'static, Result<Bytes, Status>>;
    /// The server-streaming rpc at `path` with `request`: its replies' bytes.
    fn server_streaming(
        &self,
        path: PathAndQuery,
        request: tonic::Request<Bytes>,
    ) -> BoxFuture<'static, Result<Streaming<Bytes>, Status>>;
}

impl<S, B> InProcess for S
where
    S: Service<http::Request<tonic::body::Body>, Response = http::Response<B>, Error = Infallible>
        + Clone
        + Send
        + Sync
        + 'static,
    S::Future: Send,
    B: HttpBody<Data = Bytes> + Send + 'static,
    B::Error: Into<StdError> + Send,
{
    fn unary(
        &self,
        path: PathAndQuery,
        request: tonic::Request<Bytes>,
    ) -> BoxFuture<'static, Result<Bytes, Status>> {
        let mut grpc = tonic::client::Grpc::new(self.clone());
        Box::pin(async move {
            let reply = grpc.unary(request, path, RawCodec).await?;
            Ok(reply.into_inner())
        })
    }

    fn server_streaming(
        &self,
        path: PathAndQuery,
        request: tonic::Request<Bytes>,
    ) -> BoxFuture<'static, Result<Streaming<Bytes>, Status>> {
        let mut grpc = tonic::client::Grpc::new(self.clone());
        Box::pin(async move {
            let reply = grpc.server_streaming(request, path, RawCodec).await?;
            Ok(reply.into_inner())
        })
    }
}

impl Rpc {
    /// The path tonic's client takes for this rpc.
    pub fn grpc_path(&self) -> Result<PathAndQuery, Status> {
        PathAndQuery::try_from(self.path.as_str())
            .map_err(|e| Status::internal(format!("rpc path `{}`: {e}", self.path)))
    }
}

/// The call's request: `message` with its HTTP headers as metadata, less those about the
/// HTTP exchange.
pub fn grpc_request(message: Bytes, mut headers: HeaderMap) -> tonic::Request<Bytes> {
    let names: Vec<_> = headers.keys().cloned().collect();
    for name in names {
        let n = name.as_str();
        if NOT_METADATA.contains(&n) || n.starts_with("grpc-") || n.ends_with("-bin") {
            headers.remove(&name);
        }
    }
    let mut request = tonic::Request::new(message);
    *request.metadata_mut() = MetadataMap::from_headers(headers);
    request
}

/// A request body within the size and time limits, or the HTTP status and reason refusing it.
pub async fn read_body(body: Body) -> Result<Bytes, (StatusCode, String)> {
    match tokio::time::timeout(READ_LIMIT, axum::body::to_bytes(body, MAX_BODY)).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err((
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body could not be read (at most {MAX_BODY} bytes): {e}"),
        )),
        Err(_) => Err((
            StatusCode::REQUEST_TIMEOUT,
            "the request body came too slowly".to_owned(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_about_the_http_exchange_are_not_metadata() {
        let mut headers = HeaderMap::new();
        for (k, v) in [
            ("content-type", "application/json"),
            ("demo-version", "1.0"),
            ("grpc-timeout", "1S"),
            ("x-bin", "AA=="),
            ("authorization", "Bearer t"),
        ] {
            headers.insert(k, v.parse().unwrap());
        }
        let request = grpc_request(Bytes::new(), headers);
        let mut kept: Vec<_> = request
            .metadata()
            .clone()
            .into_headers()
            .keys()
            .map(|k| k.to_string())
            .collect();
        kept.sort();
        assert_eq!(kept, ["authorization", "demo-version"]);
    }
}
