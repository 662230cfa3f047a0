//! The native launcher's parts (how it starts a host: src/main.rs): what it
//! was asked, finding the command, what a start sees, and a plan file read
//! back. No rule of what reaches what lives here: `run` (lib/run/) makes
//! every plan, and lib/run/launcher-contract.json is what both halves agree on.

pub mod contract;
pub mod plan;
pub mod request;
pub mod resolve;
pub mod seen;
#[cfg(unix)]
pub mod trusted;

pub use contract::{contract, inspector_off};
pub use plan::{plan_file_name, plan_of, Direct, Plan};
pub use request::{parse_request, Ask, Request, USAGE};
pub use resolve::{can_start, is_path, normalized, resolve, Platform};
pub use seen::{identity, seen};
