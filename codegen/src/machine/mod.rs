//! Sequence-state machines: the message model they are compiled against and the lint that
//! checks them before any code is emitted.

pub mod lint;
pub mod model;
