//! The accepting role's engine: one task per stream does the handshake (hello first, id
//! unique, the handler's accept or refusal), routes responses to the caller of the request
//! in flight, hands every other kind to the handler, enforces limits and idle time, and on
//! shutdown sends the protocol's shutdown message and waits, bounded, for each peer to close.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tonic::{Status, Streaming};

use super::binding::{Binding, Up};
use super::inbound::{Next, idle_status, next_inbound};
use super::peer::Peer;
use super::unregistered::{StreamBudget, Unregistered};
use super::{BoxStream, ClaimError, GrpcLimits, Link, Registry, admit_inbound, outbound_stream};
use crate::budget::{Budget, ClientKey, Exhausted, Lease};
use crate::check::{CheckMode, Gate};

/// What the generated gateway binds: the protocol and the user's handler.
pub trait GatewaySide: Send + Sync + 'static {
    type B: Binding;

    /// Accept or refuse a hello. Runs after the engine checked that its id is present and
    /// not connected already.
    fn decide(
        &self,
        hello: &<Self::B as Binding>::Hello,
    ) -> impl Future<Output = Result<<Self::B as Binding>::Accept, <Self::B as Binding>::Refuse>> + Send;

    /// A peer was accepted; `peer` stays usable until it disconnects.
    fn connected(&self, peer: Peer<Self::B>) -> impl Future<Output = ()> + Send;

    /// An accepted peer's stream ended.
    fn disconnected(&self, peer_id: &str) -> impl Future<Output = ()> + Send;

    /// Any other kind a registered peer sent (the handler's methods).
    fn dispatch(
        &self,
        peer: &Peer<Self::B>,
        msg: <Self::B as Binding>::Up,
    ) -> impl Future<Output = ()> + Send;
}

/// How a gateway runs.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    /// What the sequence checker does with a violation, in both directions.
    pub mode: CheckMode,
    /// Message size, connected peers, idle timeout.
    pub limits: GrpcLimits,
    /// After a shutdown, how long each peer may stay quiet while it finishes its request
    /// and closes its half of the stream.
    pub shutdown_grace: Duration,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        Self {
            mode: CheckMode::default(),
            limits: GrpcLimits::default(),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

struct Inner<S: GatewaySide> {
    side: S,
    config: GatewayConfig,
    peers: Registry<Peer<S::B>>,
    /// Streams that have not said hello and registered ones have separate budgets, so
    /// streams that never register cannot take a registered peer's place.
    streams: StreamBudget,
    /// Each client's share of the streams (the global caps are in `streams`).
    shares: Budget,
    shutdown: CancellationToken,
}

/// The accepting engine; clones share state.
pub struct Gateway<S: GatewaySide> {
    inner: Arc<Inner<S>>,
}

impl<S: GatewaySide> Clone for Gateway<S> {
    fn clone(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
        }
    }
}

/// The checked link on which the accepting side writes to one peer.
type DownLink<B> = Link<<B as Binding>::Down, <B as Binding>::Checker>;

impl<S: GatewaySide> Gateway<S> {
    pub fn new(side: S, config: GatewayConfig) -> Self {
        let inner = Inner {
            side,
            peers: Registry::new(config.limits.max_streams),
            streams: StreamBudget::new(config.limits.max_streams, config.limits.max_unregistered),
            shares: Budget::new(usize::MAX, config.limits.max_streams_per_client),
            config,
            shutdown: CancellationToken::new(),
        };
        Self {
            inner: Arc::new(inner),
        }
    }

    pub fn side(&self) -> &S {
        &self.inner.side
    }

    pub fn config(&self) -> &GatewayConfig {
        &self.inner.config
    }

    /// The connected peer registered as `id`.
    pub fn peer(&self, id: &str) -> Option<Peer<S::B>> {
        self.inner.peers.get(id)
    }

    /// Every connected peer, by id.
    pub fn peers(&self) -> Vec<Peer<S::B>> {
        self.inner.peers.all()
    }

    /// Stops the gateway: every peer gets the shutdown message and its stream ends.
    pub fn shutdown(&self) {
        self.inner.shutdown.cancel();
    }

    /// Resolves once the gateway was shut down and every stream has ended (or the grace
    /// period is over): the signal for tonic's own graceful stop, so no stream is cut off
    /// mid-request.
    pub fn drained(&self) -> impl Future<Output = ()> + Send + 'static {
        let inner = Arc::clone(&self.inner);
        async move {
            inner.shutdown.cancelled().await;
            let bound = inner.config.shutdown_grace + Duration::from_secs(1);
            let streams = inner.streams.clone();
            if tokio::time::timeout(bound, streams.emptied())
                .await
                .is_err()
            {
                tracing::warn!("streams still open after the shutdown grace period; closing them");
            }
        }
    }

    /// Takes one new stream from the peer at `remote` (tonic's `Request::remote_addr`;
    /// `None`, unknown, counts against the global caps only): the body of the tonic
    /// service method.
    pub fn open(
        &self,
        remote: Option<SocketAddr>,
        inbound: Streaming<<S::B as Binding>::Up>,
    ) -> Result<BoxStream<<S::B as Binding>::Down>, Status> {
        let inner = &self.inner;
        if inner.shutdown.is_cancelled() {
            return Err(Status::unavailable("the gateway is shutting down"));
        }
        let client = remote.map(|addr| ClientKey::of(addr.ip()));
        let share = inner.shares.try_take(client).map_err(|e| match e {
            Exhausted::Client(n) => Status::resource_exhausted(format!(
                "this client already holds its share of {n} streams (max_streams_per_client)"
            )),
            Exhausted::Total(n) => {
                Status::resource_exhausted(format!("the limit of {n} streams is reached"))
            }
        })?;
        let (tx, rx) = mpsc::channel(inner.config.limits.outbound_buffer.max(1));
        let close = CancellationToken::new();
        let pending = inner.streams.open();
        let gate = Gate::new(inner.config.mode, S::B::checker());
        let link = Link::new(tx, Arc::new(tokio::sync::Mutex::new(gate)));
        let stream = Stream {
            inner: Arc::clone(inner),
            link,
            close: close.clone(),
        };
        tokio::spawn(stream.run(inbound, pending, share));
        Ok(outbound_stream(rx, close))
    }
}

/// One stream from its first message to its end.
struct Stream<S: GatewaySide> {
    inner: Arc<Inner<S>>,
    link: DownLink<S::B>,
    close: CancellationToken,
}

impl<S: GatewaySide> Stream<S> {
    /// The stream's slot and its peer id are free again before the final status leaves, so
    /// a peer that saw the status can reconnect at once.
    async fn run(
        self,
        mut inbound: Streaming<<S::B as Binding>::Up>,
        pending: Unregistered,
        share: Lease,
    ) {
        let outcome = self.registered(&mut inbound, pending).await;
        drop(share);
        if let Some(status) = outcome {
            crate::info_throttled!(code = ?status.code(), status = %status.message(), "stream ended with an error status");
            self.link.fail(status).await;
        }
        self.close.cancel();
        // The request half is dropped last, after the final message or status is queued.
        drop(inbound);
    }

    /// The handshake, then the registered peer's messages; `Some(status)` when the stream
    /// has to end with an error status.
    async fn registered(
        &self,
        inbound: &mut Streaming<<S::B as Binding>::Up>,
        pending: Unregistered,
    ) -> Option<Status> {
        let inner = &self.inner;
        // A stream that has not said hello holds a place of the small unregistered budget,
        // and only for the register timeout.
        let wait = Some(inner.config.limits.register_timeout);
        let next = tokio::select! {
            next = next_inbound(inbound, &self.close, Some(&inner.shutdown), wait) => next,
            () = pending.displaced() => return Some(pending.displaced_status()),
        };
        let first = match next {
            Next::Message(m) => m,
            Next::Fail(status) => return Some(status),
            Next::Idle(limit) => {
                return Some(Status::deadline_exceeded(format!(
                    "no hello within {} ms of opening the stream",
                    limit.as_millis()
                )));
            }
            Next::End | Next::Closed | Next::Stopping => return None,
        };
        // The engine needs the peer's identity before anything else, whatever the mode.
        let Some(hello) = S::B::as_hello(&first).cloned() else {
            return Some(Status::failed_precondition(
                "the first message of the stream must be the hello",
            ));
        };
        if let Err(status) = admit_inbound(
            S::B::INVALID_STATUS,
            self.link.gate(),
            &first,
            S::B::observe_up,
        )
        .await
        {
            return Some(status);
        }
        // Held until the stream ends; freed before its final status leaves, so a peer that
        // saw the status can reconnect at once.
        let _slot = match pending.register() {
            Ok(slot) => slot,
            Err(status) => return Some(status),
        };
        let peer = Peer::<S::B>::new(hello, self.link.clone(), self.close.clone());
        let peer_id = peer.peer_id().to_owned();
        let claim = match inner.peers.claim(&peer_id, peer.clone()) {
            Ok(claim) => claim,
            Err(e @ ClaimError::AlreadyExists(_)) => {
                return Some(Status::new(S::B::TAKEN_STATUS, e.to_string()));
            }
            Err(e) => return Some(e.into()),
        };
        if let Err(status) = self.handshake(&peer).await {
            return status;
        }
        crate::info_throttled!(peer_id = %peer_id, "peer registered");
        inner.side.connected(peer.clone()).await;
        let outcome = self.serve(inbound, &peer).await;
        if let Some(request_id) = peer.abandon() {
            crate::warn_throttled!(peer_id = %peer_id, request_id = %request_id, "stream ended with a request in flight");
        }
        drop(claim);
        inner.side.disconnected(&peer_id).await;
        crate::info_throttled!(peer_id = %peer_id, "peer disconnected");
        outcome
    }

    /// Asks the side to decide and sends its answer. `Err(outcome)` ends the stream: a
    /// refusal is the stream's last message and it then ends with status OK.
    async fn handshake(&self, peer: &Peer<S::B>) -> Result<(), Option<Status>> {
        let inner = &self.inner;
        // A handler that never decides must not hold the stream's slot forever: it gets the
        // idle limit, and gives way to a shutdown.
        let deciding = async {
            match inner.config.limits.idle_timeout {
                Some(limit) => tokio::time::timeout(limit, inner.side.decide(peer.hello()))
                    .await
                    .ok(),
                None => Some(inner.side.decide(peer.hello()).await),
            }
        };
        let decision = tokio::select! {
            biased;
            () = inner.shutdown.cancelled() => {
                return Err(Some(Status::unavailable("the gateway is shutting down")));
            }
            d = deciding => d.ok_or_else(|| {
                Some(Status::deadline_exceeded("the registration was not decided in time"))
            })?,
        };
        match decision {
            Ok(accept) => {
                let msg = S::B::wrap_accept(accept, peer.peer_id());
                if let Err(e) = self.link.send(msg, S::B::observe_down).await {
                    return Err(Some(Status::internal(format!("accept not sent: {e}"))));
                }
                Ok(())
            }
            Err(refusal) => {
                let msg = S::B::wrap_refuse(refusal);
                if let Err(e) = self.link.send(msg, S::B::observe_down).await {
                    crate::warn_throttled!(peer_id = %peer.peer_id(), error = %e, "refusal not sent");
                }
                Err(None)
            }
        }
    }

    /// Reads a registered peer's messages until the stream ends.
    async fn serve(
        &self,
        inbound: &mut Streaming<<S::B as Binding>::Up>,
        peer: &Peer<S::B>,
    ) -> Option<Status> {
        let inner = &self.inner;
        // Until the gateway stops: its shutdown token and the idle limit. Then: no token,
        // and the grace period as the limit, so the peer can finish its request.
        let mut stop = Some(&inner.shutdown);
        let mut limit = inner.config.limits.idle_timeout;
        loop {
            let msg = match next_inbound(inbound, &self.close, stop, limit).await {
                Next::Message(m) => m,
                Next::End | Next::Closed => return None,
                Next::Fail(status) => return Some(status),
                Next::Idle(_) if stop.is_none() => return None,
                Next::Idle(limit) => return Some(idle_status(limit)),
                Next::Stopping => {
                    if let Some(bye) = S::B::shutdown("the gateway is shutting down")
                        && let Err(e) = peer.send(bye).await
                    {
                        tracing::debug!(error = %e, "no shutdown message on a closing stream");
                    }
                    stop = None;
                    limit = Some(inner.config.shutdown_grace);
                    continue;
                }
            };
            if let Err(status) = admit_inbound(
                S::B::INVALID_STATUS,
                self.link.gate(),
                &msg,
                S::B::observe_up,
            )
            .await
            {
                return Some(status);
            }
            match S::B::classify_up(msg) {
                Up::Response(r) => peer.route(r).await,
                Up::Other(m) => inner.side.dispatch(peer, m).await,
                Up::Hello => {
                    return Some(Status::failed_precondition(
                        "the peer is registered already",
                    ));
                }
                Up::Empty => return Some(Status::invalid_argument("a message without payload")),
            }
        }
    }
}
