//! A client of the echo agent on whichever binding the agent's card offers first among those
//! it speaks (8.3.2): the generated gRPC client, the JSON-RPC binding's client, or the
//! HTTP+JSON binding's. All answer with the same generated types; a refusal is an A2A error
//! reason on each.

use agentwire_protocols::a2a::{
    AgentCard, CancelTaskRequest, GetExtendedAgentCardRequest, ListTasksRequest, ListTasksResponse,
    SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task,
};
use agentwire_protocols::skeletons::a2a::a2_a_service_client::A2AServiceClient;
use agentwire_protocols::skeletons::a2a::{HTTP_JSON, JSONRPC_HTTP};
use agentwire_transport::grpc_jsonrpc::{self, CallError, Updates};
use agentwire_transport::grpc_rest;
use agentwire_transport::reqwest::header::{HeaderName, HeaderValue};
use agentwire_transport::tonic::transport::Channel;
use agentwire_transport::tonic::{Status, Streaming};

use super::{VERSION, VERSION_KEY, reason_of, status::DOMAIN, versioned};

/// The bindings this client speaks, as an Agent Card names them (`protocolBinding`).
pub const BINDINGS: &[&str] = &["JSONRPC", "GRPC", "HTTP+JSON"];

/// A failed call: its A2A error reason when it has one, else what went wrong.
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

impl From<Status> for Refused {
    fn from(s: Status) -> Self {
        Refused(reason_of(&s).unwrap_or_else(|| format!("{:?}: {}", s.code(), s.message())))
    }
}

impl From<CallError> for Refused {
    fn from(e: CallError) -> Self {
        Refused(e.reason(DOMAIN).unwrap_or_else(|| e.to_string()))
    }
}

/// A client on one binding.
pub enum A2aClient {
    Grpc(A2AServiceClient<Channel>),
    JsonRpc(grpc_jsonrpc::Client),
    Rest(grpc_rest::Client),
}

/// A stream of updates on one binding.
pub enum UpdateStream {
    Grpc(Streaming<StreamResponse>),
    JsonRpc(Updates<StreamResponse>),
    Rest(grpc_rest::Updates<StreamResponse>),
}

impl UpdateStream {
    /// The next update, `None` at the end.
    pub async fn next(&mut self) -> Result<Option<StreamResponse>, Refused> {
        match self {
            UpdateStream::Grpc(s) => Ok(s.message().await?),
            UpdateStream::JsonRpc(s) => s.next().await.transpose().map_err(Refused::from),
            UpdateStream::Rest(s) => s.next().await.transpose().map_err(Refused::from),
        }
    }
}

/// The agent's card, from the well-known path of `base` (8.2).
pub async fn fetch_card(base: &str) -> Result<AgentCard, Refused> {
    Ok(grpc_jsonrpc::discover(base, &JSONRPC_HTTP).await?)
}

/// The first interface of `card` whose binding this client speaks and `only` allows.
pub fn pick<'a>(card: &'a AgentCard, only: Option<&str>) -> Option<(&'a str, &'a str)> {
    card.supported_interfaces
        .iter()
        .filter(|i| BINDINGS.contains(&i.protocol_binding.as_str()))
        .find(|i| only.is_none_or(|o| o.eq_ignore_ascii_case(&i.protocol_binding)))
        .map(|i| (i.protocol_binding.as_str(), i.url.as_str()))
}

impl A2aClient {
    /// A client of the interface at `url` on `binding`.
    pub async fn connect(binding: &str, url: &str) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(match binding {
            "GRPC" => A2aClient::Grpc(A2AServiceClient::connect(url.to_owned()).await?),
            // The version is a header on this binding (11.2).
            "HTTP+JSON" => A2aClient::Rest(grpc_rest::Client::new(url, &HTTP_JSON)?.with_header(
                HeaderName::from_static(VERSION_KEY),
                Some(HeaderValue::from_static(VERSION)),
            )),
            _ => A2aClient::JsonRpc(grpc_jsonrpc::Client::new(url, &JSONRPC_HTTP)?),
        })
    }

    pub async fn extended_card(&mut self) -> Result<AgentCard, Refused> {
        let request = GetExtendedAgentCardRequest::default();
        match self {
            A2aClient::Grpc(c) => Ok(c
                .get_extended_agent_card(versioned(request))
                .await?
                .into_inner()),
            A2aClient::JsonRpc(c) => Ok(c.call("GetExtendedAgentCard", &request).await?),
            A2aClient::Rest(c) => Ok(c.call("GetExtendedAgentCard", &request).await?),
        }
    }

    pub async fn send(
        &mut self,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse, Refused> {
        match self {
            A2aClient::Grpc(c) => Ok(c.send_message(versioned(request)).await?.into_inner()),
            A2aClient::JsonRpc(c) => Ok(c.call("SendMessage", &request).await?),
            A2aClient::Rest(c) => Ok(c.call("SendMessage", &request).await?),
        }
    }

    pub async fn stream(&mut self, request: SendMessageRequest) -> Result<UpdateStream, Refused> {
        match self {
            A2aClient::Grpc(c) => Ok(UpdateStream::Grpc(
                c.send_streaming_message(versioned(request))
                    .await?
                    .into_inner(),
            )),
            A2aClient::JsonRpc(c) => Ok(UpdateStream::JsonRpc(
                c.stream("SendStreamingMessage", &request).await?,
            )),
            A2aClient::Rest(c) => Ok(UpdateStream::Rest(
                c.stream("SendStreamingMessage", &request).await?,
            )),
        }
    }

    pub async fn subscribe(&mut self, id: &str) -> Result<UpdateStream, Refused> {
        let request = SubscribeToTaskRequest {
            id: id.to_owned(),
            ..Default::default()
        };
        match self {
            A2aClient::Grpc(c) => Ok(UpdateStream::Grpc(
                c.subscribe_to_task(versioned(request)).await?.into_inner(),
            )),
            A2aClient::JsonRpc(c) => Ok(UpdateStream::JsonRpc(
                c.stream("SubscribeToTask", &request).await?,
            )),
            A2aClient::Rest(c) => Ok(UpdateStream::Rest(
                c.stream("SubscribeToTask", &request).await?,
            )),
        }
    }

    pub async fn cancel(&mut self, id: &str) -> Result<Task, Refused> {
        let request = CancelTaskRequest {
            id: id.to_owned(),
            ..Default::default()
        };
        match self {
            A2aClient::Grpc(c) => Ok(c.cancel_task(versioned(request)).await?.into_inner()),
            A2aClient::JsonRpc(c) => Ok(c.call("CancelTask", &request).await?),
            A2aClient::Rest(c) => Ok(c.call("CancelTask", &request).await?),
        }
    }

    pub async fn list(&mut self) -> Result<ListTasksResponse, Refused> {
        let request = ListTasksRequest::default();
        match self {
            A2aClient::Grpc(c) => Ok(c.list_tasks(versioned(request)).await?.into_inner()),
            A2aClient::JsonRpc(c) => Ok(c.call("ListTasks", &request).await?),
            A2aClient::Rest(c) => Ok(c.call("ListTasks", &request).await?),
        }
    }
}
