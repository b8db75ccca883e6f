//! ProtoJSON both ways, from the profile's descriptors: a JSON value read as a message type
//! into protobuf bytes (either member spelling, unknown members refused), and protobuf bytes
//! written as ProtoJSON (lowerCamelCase members, enums by name, defaults left out); and
//! [`ProtoJson`], the writing half for messages sent outside an rpc (a webhook's body).

use bytes::Bytes;
use prost::Message;
use prost_reflect::{
    DescriptorPool, DeserializeOptions, DynamicMessage, MessageDescriptor, MethodDescriptor,
    SerializeOptions, ServiceDescriptor,
};
use serde_json::Value;

use super::ProfileError;

/// The service of a profile, with its descriptors.
#[derive(Debug, Clone)]
pub struct Schema {
    service: ServiceDescriptor,
    pool: DescriptorPool,
}

/// One rpc as a JSON binding serves it.
#[derive(Debug, Clone)]
pub struct Rpc {
    pub input: MessageDescriptor,
    pub output: MessageDescriptor,
    pub server_streaming: bool,
    /// `/package.Service/Method`.
    pub path: String,
}

impl Schema {
    /// The schema of the service named `service` in the encoded `FileDescriptorSet`
    /// `descriptors`.
    pub fn new(service: &str, descriptors: &[u8]) -> Result<Self, ProfileError> {
        let pool = DescriptorPool::decode(descriptors)
            .map_err(|e| ProfileError::Descriptors(e.to_string()))?;
        let service = pool
            .get_service_by_name(service)
            .ok_or_else(|| ProfileError::NoService(service.to_owned()))?;
        Ok(Schema { service, pool })
    }

    /// The rpc of that name, unless it streams client messages (a JSON binding carries one
    /// request).
    pub fn rpc(&self, method: &str) -> Option<Rpc> {
        let m: MethodDescriptor = self.service.methods().find(|m| m.name() == method)?;
        if m.is_client_streaming() {
            return None;
        }
        Some(Rpc {
            path: format!("/{}/{}", self.service.full_name(), m.name()),
            input: m.input(),
            output: m.output(),
            server_streaming: m.is_server_streaming(),
        })
    }

    /// The message type of `name`.
    pub fn message(&self, name: &str) -> Result<MessageDescriptor, ProfileError> {
        self.pool
            .get_message_by_name(name)
            .ok_or_else(|| ProfileError::NoMessage(name.to_owned()))
    }
}

/// `json` read as `ty`, as protobuf bytes; the error says what does not fit.
pub fn from_json(ty: &MessageDescriptor, json: Value) -> Result<Bytes, String> {
    let options = DeserializeOptions::new();
    let message = DynamicMessage::deserialize_with_options(ty.clone(), json, &options)
        .map_err(|e| e.to_string())?;
    Ok(message.encode_to_vec().into())
}

/// Protobuf `bytes` of `ty` written as ProtoJSON.
pub fn to_json(ty: &MessageDescriptor, bytes: &[u8]) -> Result<Value, String> {
    let message = DynamicMessage::decode(ty.clone(), bytes).map_err(|e| e.to_string())?;
    let options = SerializeOptions::new();
    message
        .serialize_with_options(serde_json::value::Serializer, &options)
        .map_err(|e| e.to_string())
}

/// Writes typed messages of a descriptor set as ProtoJSON, for bodies a binding sends
/// outside an rpc (a notification to a webhook) in the form its rpcs use.
#[derive(Debug, Clone)]
pub struct ProtoJson {
    pool: DescriptorPool,
}

impl ProtoJson {
    /// The writer of the messages in the encoded `FileDescriptorSet` `descriptors`.
    pub fn new(descriptors: &[u8]) -> Result<Self, ProfileError> {
        let pool = DescriptorPool::decode(descriptors)
            .map_err(|e| ProfileError::Descriptors(e.to_string()))?;
        Ok(ProtoJson { pool })
    }

    /// `message`, of the type named `type_name` (`package.Message`), as ProtoJSON.
    pub fn write(&self, type_name: &str, message: &impl Message) -> Result<Value, String> {
        let ty = self
            .pool
            .get_message_by_name(type_name)
            .ok_or_else(|| format!("no message type `{type_name}` in the descriptors"))?;
        to_json(&ty, &message.encode_to_vec())
    }
}
