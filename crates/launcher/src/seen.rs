//! What a start sees, as one string: the key of its plan file.

use crate::contract::contract;
use crate::request::Request;
use std::ffi::OsString;
use std::fs::Metadata;
use std::path::Path;

/// A file's identity: what changes when it is replaced or rewritten (a host's update).
pub fn identity(metadata: &Metadata) -> serde_json::Value {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        serde_json::json!([
            metadata.dev(),
            metadata.ino(),
            metadata.size(),
            metadata.mtime(),
            metadata.mtime_nsec(),
            metadata.ctime(),
            metadata.ctime_nsec()
        ])
    }
    #[cfg(not(unix))]
    {
        let modified = metadata
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos().to_string());
        serde_json::json!([metadata.len(), modified])
    }
}

/// What a start sees: the command and the file it resolved to (by identity),
/// every variable the contract says a plan reads, and this package's bin and
/// version (which Node runs `run` is none). `run` says in the plan when the
/// working directory matters. None when it cannot be said (a value that is
/// not Unicode, a file that cannot be read): such a start is never started directly.
pub fn seen(
    request: &Request,
    file: &Path,
    var: impl Fn(&str) -> Option<OsString>,
) -> Option<String> {
    let contract = contract();
    let mut env = serde_json::Map::new();
    for name in &contract.plan_reads {
        let value = match var(name) {
            Some(v) => serde_json::Value::String(v.into_string().ok()?),
            None => serde_json::Value::Null,
        };
        env.insert(name.clone(), value);
    }
    let value = serde_json::json!({
        "v": contract.version,
        "command": request.command.to_str()?,
        "file": file.to_str()?,
        "id": identity(&std::fs::metadata(file).ok()?),
        "env": env,
        "cli": request.cli.to_str()?,
        "cliId": identity(&std::fs::metadata(&request.cli).ok()?),
        "package": package_of(&request.cli)?,
    });
    Some(value.to_string())
}

/// This package as the bin `cli` belongs to it: its package.json's identity
/// and version (an upgrade changes the version where it keeps every file's
/// size and time, as npm's fixed mtimes can on Windows).
fn package_of(cli: &Path) -> Option<serde_json::Value> {
    let manifest = cli.parent()?.parent()?.join("package.json");
    let text = std::fs::read_to_string(&manifest).ok()?;
    let version = serde_json::from_str::<serde_json::Value>(&text)
        .ok()?
        .get("version")?
        .as_str()?
        .to_string();
    Some(
        serde_json::json!({ "id": identity(&std::fs::metadata(&manifest).ok()?), "version": version }),
    )
}
