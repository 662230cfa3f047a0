//! `mcp-ordered-dispatch`: deliver inbound MCP JSON-RPC messages in wire order.
//!
//! * [`core`] — pure Rust: the classifier (mirroring the MCP SDK's zod
//!   schemas) and the re-entrancy-safe ordered queue. No N-API.
//! * `binding` (feature `napi`, on by default) — the thin Node.js layer;
//!   `receiver`: the receiver checks of its classes' accessors.

pub mod boundary;
pub mod core;

#[cfg(feature = "napi")]
pub mod binding;

#[cfg(feature = "napi")]
pub mod tokens_binding;

#[cfg(feature = "napi")]
pub mod framer_binding;

#[cfg(feature = "napi")]
pub mod receiver;
