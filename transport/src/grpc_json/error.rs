//! Why a profile cannot be served or called.

/// The profile does not fit its descriptors (a generator bug, or hand-written constants).
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The descriptor set does not decode.
    #[error("the profile's descriptor set does not decode: {0}")]
    Descriptors(String),
    /// The descriptors hold no service of the profile's name.
    #[error("the descriptors hold no service `{0}`")]
    NoService(String),
    /// The descriptors hold no message of the discovery document's type.
    #[error("the descriptors hold no message `{0}`")]
    NoMessage(String),
    /// The discovery document does not decode as its type.
    #[error("the discovery document is not a `{0}`: {1}")]
    Document(String, String),
    /// An HTTP rule does not fit the service: an unknown rpc or field, a bad template.
    #[error("HTTP rule of `{0}`: {1}")]
    Rule(String, String),
}
