//! Validating tonic codecs: prost's wire format, with the spec's validators run on every
//! message a generated gRPC service or client encodes or decodes, so no handler ever sees,
//! and no peer is ever sent, a message that breaks its spec. The side (server or client)
//! decides the status a failure becomes, as gRPC's status code table has it.

use std::marker::PhantomData;

use agentwire_runtime::Invalid;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic_prost::{ProstDecoder, ProstEncoder};

/// A message the codecs can check: every generated message type (through its `Validate`
/// impl, see [`checked!`](crate::checked)) and the well-known types, which carry no
/// constraints.
pub trait Checked {
    /// Every failure, or `Ok(())`.
    fn check(&self) -> Result<(), Invalid>;
}

/// Implements [`Checked`] through `agentwire_runtime::Validate` for each type named.
#[macro_export]
macro_rules! checked {
    ($($ty:ty),* $(,)?) => {$(
        impl $crate::grpc::Checked for $ty {
            fn check(&self) -> ::core::result::Result<(), $crate::agentwire_runtime::Invalid> {
                $crate::agentwire_runtime::Validate::validate(self)
            }
        }
    )*};
}

macro_rules! unconstrained {
    ($($ty:ty),* $(,)?) => {$(
        impl Checked for $ty {
            fn check(&self) -> Result<(), Invalid> {
                Ok(())
            }
        }
    )*};
}

// The well-known types an rpc may take or return directly; a spec puts no constraint on them.
unconstrained!(
    pbjson_types::Empty,
    pbjson_types::Timestamp,
    pbjson_types::Duration,
    pbjson_types::Struct,
    pbjson_types::Value,
    pbjson_types::ListValue,
    pbjson_types::Any,
    pbjson_types::FieldMask,
    pbjson_types::BoolValue,
    pbjson_types::StringValue,
    pbjson_types::BytesValue,
    pbjson_types::Int32Value,
    pbjson_types::UInt32Value,
    pbjson_types::Int64Value,
    pbjson_types::UInt64Value,
    pbjson_types::FloatValue,
    pbjson_types::DoubleValue,
);

/// Which end of a call a codec serves: it decides what a failed check becomes.
pub trait Side: Send + Sync + 'static {
    /// The status of an outbound message that fails its check (it is not sent).
    fn outbound(e: &Invalid) -> Status;
    /// The status of an inbound message that fails its check (it is not delivered).
    fn inbound(e: &Invalid) -> Status;
}

/// The serving end: a bad request is the caller's `INVALID_ARGUMENT`; a bad reply is the
/// server's own fault, `INTERNAL`, and never leaves it.
#[derive(Debug)]
pub enum ServerSide {}

impl Side for ServerSide {
    fn outbound(e: &Invalid) -> Status {
        Status::internal(format!("invalid reply, not sent: {e}"))
    }
    fn inbound(e: &Invalid) -> Status {
        super::invalid_status(tonic::Code::InvalidArgument, e)
    }
}

/// The calling end: a bad request is refused before it leaves with `INVALID_ARGUMENT`; a bad
/// reply is `INTERNAL` (gRPC's code for a response the client cannot take).
#[derive(Debug)]
pub enum ClientSide {}

impl Side for ClientSide {
    fn outbound(e: &Invalid) -> Status {
        Status::invalid_argument(format!("invalid message, not sent: {e}"))
    }
    fn inbound(e: &Invalid) -> Status {
        Status::internal(format!("invalid reply from the server: {e}"))
    }
}

/// prost's codec with a check of every message, for side `S`.
#[derive(Debug)]
pub struct CheckedCodec<T, U, S> {
    _types: PhantomData<fn() -> (T, U)>,
    _side: PhantomData<fn() -> S>,
}

/// The codec generated servers name.
pub type ServerCodec<T, U> = CheckedCodec<T, U, ServerSide>;
/// The codec generated clients name.
pub type ClientCodec<T, U> = CheckedCodec<T, U, ClientSide>;

/// The codec of the rpc a handshake layer runs on (both ends): prost's, with no check,
/// because the layer's gate checks every message in the mode the application chose
/// ([`CheckMode`](crate::CheckMode)); a codec that refused would take `Warn` and `Off` away.
pub use tonic_prost::ProstCodec as LayerCodec;

impl<T, U, S> Default for CheckedCodec<T, U, S> {
    fn default() -> Self {
        Self {
            _types: PhantomData,
            _side: PhantomData,
        }
    }
}

impl<T, U, S> Codec for CheckedCodec<T, U, S>
where
    T: prost::Message + Checked + Send + 'static,
    U: prost::Message + Default + Checked + Send + 'static,
    S: Side,
{
    type Encode = T;
    type Decode = U;
    type Encoder = CheckedEncoder<T, S>;
    type Decoder = CheckedDecoder<U, S>;

    fn encoder(&mut self) -> Self::Encoder {
        CheckedEncoder {
            inner: ProstEncoder::default(),
            _side: PhantomData,
        }
    }

    fn decoder(&mut self) -> Self::Decoder {
        CheckedDecoder {
            inner: ProstDecoder::default(),
            _side: PhantomData,
        }
    }
}

/// Checks, then encodes with prost.
#[derive(Debug)]
pub struct CheckedEncoder<T, S> {
    inner: ProstEncoder<T>,
    _side: PhantomData<fn() -> S>,
}

impl<T: prost::Message + Checked, S: Side> Encoder for CheckedEncoder<T, S> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        item.check().map_err(|e| {
            let status = S::outbound(&e);
            // On a client the failed encode resets the HTTP/2 stream and the caller's status
            // no longer carries the reason (tonic reports the reset): the log does.
            tracing::warn!(reason = status.message(), "gRPC message not sent");
            status
        })?;
        self.inner.encode(item, dst)
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.inner.buffer_settings()
    }
}

/// Decodes with prost, then checks.
#[derive(Debug)]
pub struct CheckedDecoder<U, S> {
    inner: ProstDecoder<U>,
    _side: PhantomData<fn() -> S>,
}

impl<U: prost::Message + Default + Checked, S: Side> Decoder for CheckedDecoder<U, S> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        let item = self.inner.decode(src)?;
        if let Some(m) = &item {
            m.check().map_err(|e| S::inbound(&e))?;
        }
        Ok(item)
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.inner.buffer_settings()
    }
}
