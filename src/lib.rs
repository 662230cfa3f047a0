//! `mcp-ordered-dispatch`: deliver inbound MCP JSON-RPC messages in wire order.
//!
//! * [`core`] — pure Rust: the classifier (mirroring the MCP SDK's zod
//!   schemas) and the re-entrancy-safe ordered queue. No N-API.
//! * [`boundary`] — the constants the binding and its JavaScript share.
//! * the binding (feature `napi`, on by default), the thin Node.js layer:
//!   `dispatcher_binding` (`Dispatcher`, `classify`), `framer_binding`
//!   (`StdioFramer`), `stdio_thread_binding` (`StdioThreadReader`, over
//!   `stdio_thread`: the off-thread reader's worker and pieces, no N-API),
//!   `tokens_binding` (`ProgressTokens`); `js_view`: the classifier's view
//!   of JavaScript values; `js_out`: the framers' result arrays and text
//!   strings (`transcode`: the text, no N-API); `napi_support`: the N-API
//!   helpers and the panic policy; `receiver`: the receiver checks of the
//!   classes' accessors.

pub mod boundary;
pub mod core;

#[cfg(feature = "napi")]
pub mod dispatcher_binding;

#[cfg(feature = "napi")]
mod js_view;

#[cfg(feature = "napi")]
mod napi_support;

#[cfg(feature = "napi")]
pub mod tokens_binding;

#[cfg(feature = "napi")]
pub mod framer_binding;

#[cfg(feature = "napi")]
pub mod receiver;

#[cfg(feature = "napi")]
pub mod stdio_thread;

#[cfg(feature = "napi")]
pub mod stdio_thread_binding;

#[cfg(feature = "napi")]
mod js_out;

#[cfg(feature = "napi")]
pub mod transcode;
