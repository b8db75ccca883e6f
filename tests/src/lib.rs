//! Integration tests live in `tests/`; this library holds what several of them share.

pub mod examples;
pub mod fixtures;
pub mod fold;
pub mod instances;
pub mod peers;
pub mod postgres;
pub mod published;
pub mod schema_compare;
pub mod shape_compare;
pub mod traces;
