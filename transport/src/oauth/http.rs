//! The HTTP exchanges of both OAuth sides: no redirect is followed (a redirect would carry
//! the request, and any credential in it, elsewhere), the answer and each read of its body
//! have a deadline, and the body has a cap. The `oauth2` crate's requests go through
//! [`OAuthHttp`], so they keep the same limits.

use std::time::Duration;

/// A reqwest client that follows no redirect, with the deadline and cap its callers read by.
#[derive(Debug, Clone)]
pub(crate) struct Capped {
    pub(crate) http: reqwest::Client,
    /// Deadline for an answer's status and headers, and for each read of its body.
    pub(crate) timeout: Duration,
    /// Largest body read.
    pub(crate) max_bytes: usize,
}

impl Capped {
    pub(crate) fn new(timeout: Duration, max_bytes: usize) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(timeout)
            .build()
            .unwrap_or_default();
        Self {
            http,
            timeout,
            max_bytes,
        }
    }

    /// `response`'s body, read with a deadline on each read and refused past the cap.
    pub(crate) async fn read(&self, mut response: reqwest::Response) -> Result<Vec<u8>, String> {
        let mut body = Vec::new();
        loop {
            let chunk = tokio::time::timeout(self.timeout, response.chunk())
                .await
                .map_err(|_| "the body stalled".to_owned())?
                .map_err(|e| e.to_string())?;
            let Some(chunk) = chunk else { break };
            if body.len() + chunk.len() > self.max_bytes {
                return Err(format!(
                    "the document is over the {}-byte limit",
                    self.max_bytes
                ));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// Sends one of the `oauth2` crate's requests and reads its answer within the limits.
    pub(crate) async fn execute(
        &self,
        request: oauth2::HttpRequest,
    ) -> Result<oauth2::HttpResponse, FetchError> {
        let request = reqwest::Request::try_from(request).map_err(|e| FetchError(e.to_string()))?;
        let response = tokio::time::timeout(self.timeout, self.http.execute(request))
            .await
            .map_err(|_| FetchError("no answer in time".to_owned()))?
            .map_err(|e| FetchError(e.to_string()))?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = self.read(response).await.map_err(FetchError)?;
        let mut built = oauth2::http::Response::builder().status(status);
        for (name, value) in &headers {
            built = built.header(name, value);
        }
        built.body(body).map_err(|e| FetchError(e.to_string()))
    }
}

/// [`Capped::execute`] as the `oauth2` crate's HTTP client, its futures `Send`.
pub(crate) struct OAuthHttp<'f>(pub(crate) &'f Capped);

impl<'c> oauth2::AsyncHttpClient<'c> for OAuthHttp<'_> {
    type Error = FetchError;
    type Future = std::pin::Pin<
        Box<dyn Future<Output = Result<oauth2::HttpResponse, FetchError>> + Send + 'c>,
    >;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(self.0.execute(request))
    }
}

/// A failed exchange through [`OAuthHttp`].
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub(crate) struct FetchError(pub(crate) String);
