//! Client sides: a plain HTTP post that returns status and body, and a WebSocket client of
//! JSON text frames; both can present a server's shared token (`Guard::token`) as
//! `Authorization: Bearer <token>`.

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Why a client call failed before a well-formed answer arrived.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("http: {0}")]
    Http(#[from] reqwest::Error),
    #[error("websocket: {0}")]
    WebSocket(#[from] tokio_tungstenite::tungstenite::Error),
    #[error("the peer sent an invalid message: {0}")]
    Invalid(#[from] agentwire_runtime::Invalid),
    #[error("sequence violation: {0}")]
    Violation(#[from] agentwire_runtime::machine::Violation),
    #[error("unexpected answer HTTP {status}: {body}")]
    Unexpected { status: u16, body: String },
    /// The token has a byte no HTTP header may carry (a control character, say).
    #[error("the token cannot be sent in an Authorization header")]
    Token,
}

/// `Authorization: Bearer <token>`, marked sensitive so it is never logged.
fn bearer(token: &str) -> Result<reqwest::header::HeaderValue, ClientError> {
    let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| ClientError::Token)?;
    value.set_sensitive(true);
    Ok(value)
}

/// An HTTP client that presents `token` on every request, for a server whose guard demands
/// one.
pub fn bearer_client(token: &str) -> Result<reqwest::Client, ClientError> {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(reqwest::header::AUTHORIZATION, bearer(token)?);
    Ok(reqwest::Client::builder()
        .default_headers(headers)
        .build()?)
}

/// An HTTP answer: status and body text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpReply {
    pub status: u16,
    pub body: String,
}

/// Posts `body` with `content_type` and returns whatever the server answered.
pub async fn post(
    client: &reqwest::Client,
    url: &str,
    content_type: &str,
    body: String,
) -> Result<HttpReply, ClientError> {
    request(client, "POST", url, content_type, body).await
}

/// Sends `body` with `method` (as the spec writes it) and returns whatever the server
/// answered.
pub async fn request(
    client: &reqwest::Client,
    method: &str,
    url: &str,
    content_type: &str,
    body: String,
) -> Result<HttpReply, ClientError> {
    let method = reqwest::Method::from_bytes(method.to_ascii_uppercase().as_bytes())
        .unwrap_or(reqwest::Method::POST);
    let resp = client
        .request(method, url)
        .header("content-type", content_type)
        .body(body)
        .send()
        .await?;
    let status = resp.status().as_u16();
    let body = resp.text().await?;
    Ok(HttpReply { status, body })
}

/// A WebSocket connection that sends and receives text frames.
#[derive(Debug)]
pub struct WsClient {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
}

impl WsClient {
    pub async fn connect(url: &str) -> Result<Self, ClientError> {
        Self::connect_with_token(url, None).await
    }

    /// Connects presenting `token` (when given) in the upgrade request's `Authorization`
    /// header; a server demanding another answers 401 and the connect fails.
    pub async fn connect_with_token(url: &str, token: Option<&str>) -> Result<Self, ClientError> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
        let mut request = url.into_client_request()?;
        if let Some(token) = token {
            request
                .headers_mut()
                .insert(reqwest::header::AUTHORIZATION, bearer(token)?);
        }
        let (ws, _) = tokio_tungstenite::connect_async(request).await?;
        Ok(Self { ws })
    }

    pub async fn send_text(&mut self, text: String) -> Result<(), ClientError> {
        self.ws.send(Message::text(text)).await?;
        Ok(())
    }

    /// The next text frame; `None` once the server closed the connection.
    pub async fn next_text(&mut self) -> Option<Result<String, ClientError>> {
        loop {
            match self.ws.next().await? {
                Ok(Message::Text(t)) => return Some(Ok(t.as_str().to_owned())),
                Ok(Message::Close(_)) => return None,
                Ok(_) => continue,
                Err(e) => return Some(Err(e.into())),
            }
        }
    }

    /// Sends a close frame.
    pub async fn close(&mut self) -> Result<(), ClientError> {
        self.ws.close(None).await?;
        Ok(())
    }
}
