//! What a role owes its peer, by the machines: the request or notification a machine waits
//! for from that role, so that a player of the role (`agentwire mock`) sends it unprompted.
//! Only transitions that leave a state for another count (wildcard `from: *` transitions
//! aside, which may happen anywhere). A role owes
//! - the opening of a per-connection machine: in its initial state, when every such
//!   transition is on a call that role sends (a client's first `initialize`);
//! - in a state that is not accepting (the session cannot end there): its first call among
//!   such transitions, unless one of them is an answer of the other role (then the other
//!   role owes that answer, and this one waits).
//!
//! Responses are never owed here: a player answers requests anyway. Whose turn it is after
//! a message is the player's to ask: it asks after each message of its peer.

use super::checker::Checker;
use super::{Root, Spec};

/// One message a role owes: the machine and instance waiting for it, and what to send.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Owed {
    pub machine: &'static str,
    pub key: String,
    pub state: &'static str,
    /// The method's name.
    pub method: String,
    pub request: bool,
    /// The params type, when the method has params it may not omit.
    pub params: Option<String>,
}

impl Checker {
    /// What `role` owes now, one message per waiting instance, in machine order.
    pub fn owed(&self, role: &str) -> Vec<Owed> {
        let spec = self.spec();
        let mut out = Vec::new();
        for (i, machine) in spec.machines.iter().enumerate() {
            let live = self.live(i);
            let mut states: Vec<(String, usize)> = live
                .sorted()
                .into_iter()
                .map(|(k, inst)| (k.to_owned(), inst.state))
                .collect();
            // A per-connection machine is in its initial state before the first message.
            if machine.keys.is_none() && states.is_empty() {
                states.push(("connection".to_owned(), machine.initial));
            }
            for (key, state) in states {
                let opening = machine.keys.is_none() && state == machine.initial;
                if machine.accepting[state] && !opening {
                    continue;
                }
                if let Some(kind) = waited_for(spec, machine, state, role) {
                    out.push(owed(spec, machine.name, key, machine.states[state], kind));
                }
            }
        }
        out
    }
}

/// The first call of `role` that moves `machine` out of `state`, if it owes one there.
fn waited_for(
    spec: &Spec,
    machine: &super::machine::Compiled,
    state: usize,
    role: &str,
) -> Option<usize> {
    let moving: Vec<usize> = machine
        .transitions
        .iter()
        .filter(|s| s.from.as_ref().is_some_and(|f| f.contains(&state)))
        .filter(|s| s.to.is_some_and(|to| to != state))
        .flat_map(|s| s.kinds.iter().map(|k| k.0))
        .collect();
    let ours =
        |k: &usize| spec.role_of(*k) == role && matches!(spec.roots[*k], Root::RpcCall { .. });
    let answered_by_peer =
        |k: &usize| spec.role_of(*k) != role && matches!(spec.roots[*k], Root::RpcResponse);
    let first = moving.iter().copied().find(ours)?;
    if machine.accepting[state] {
        // Only the opening (the caller checked it is one): every way on is this role's.
        return moving.iter().all(ours).then_some(first);
    }
    (!moving.iter().any(answered_by_peer)).then_some(first)
}

fn owed(spec: &Spec, machine: &'static str, key: String, state: &'static str, kind: usize) -> Owed {
    let (method, request) = match &spec.roots[kind] {
        Root::RpcCall {
            method, request, ..
        } => (*method, *request),
        _ => (0, false),
    };
    let m = &spec.types.protocol.methods[method];
    Owed {
        machine,
        key,
        state,
        method: m.name.clone(),
        request,
        // Params a sender may omit are left out.
        params: m.params.clone().filter(|_| !m.params_optional),
    }
}
