//! Route (b)'s types: what a user would write by hand with `#[derive(Deserialize)]` for each
//! protocol, following the shapes in `spec/<module>/messages.ts`. Unions are serde's own
//! internally tagged enums (`#[serde(tag = "...")]`); nothing is validated beyond the shape.

pub mod agentloop;
pub mod eca;
pub mod external_agents;
pub mod helix_zed;
