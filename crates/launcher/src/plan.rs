//! A plan file: what `run` planned for a start (lib/run/plan-file.cjs writes it), read back.

use crate::contract::contract;
use std::ffi::OsStr;
use std::path::Path;

/// The longest command name given a plan file of its own (its file name is the name in hex).
const MAX_COMMAND_BYTES: usize = 120;

/// The plan file's name for `command`: `run-<the name in hex>.json`; none for a name too long.
pub fn plan_file_name(command: &OsStr) -> Option<String> {
    let bytes = command.as_encoded_bytes();
    if bytes.is_empty() || bytes.len() > MAX_COMMAND_BYTES {
        return None;
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("run-{hex}.json"))
}

/// What a plan file says of this start.
#[derive(Debug, PartialEq, Eq)]
pub enum Plan {
    /// Start the host directly, with these variables set.
    Direct(Direct),
    /// A plan no direct start reproduces (a `deno run` host, a preload of the user's chained): `run` starts it.
    ThroughRun,
}

/// A plan the launcher starts directly: the host's argv[0], the variables to set (the user's
/// arguments follow unchanged), and the one line for stderr. The file is
/// the one the launcher resolved, which the plan names too.
#[derive(Debug, PartialEq, Eq)]
pub struct Direct {
    pub argv0: String,
    pub set: Vec<(String, String)>,
    pub notice: Option<String>,
}

/// The plan in `text` (a plan file's), when it was made for exactly what this
/// start sees: `seen`, from `cwd` where the plan says the working directory
/// matters, for the `file` this launcher resolved. None otherwise (another
/// start, another format, a damaged file, a variable outside the contract's).
pub fn plan_of(text: &str, seen: &str, cwd: &Path, file: &Path) -> Option<Plan> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    if value.get("v")?.as_u64()? != contract().version || value.get("seen")?.as_str()? != seen {
        return None;
    }
    match value.get("cwd")? {
        serde_json::Value::Null => {}
        planned => {
            if Path::new(planned.as_str()?) != cwd {
                return None;
            }
        }
    }
    if !value.get("direct")?.as_bool()? {
        return Some(Plan::ThroughRun);
    }
    if Path::new(value.get("file")?.as_str()?) != file {
        return None;
    }
    let may_set = &contract().direct_may_set;
    let set = value
        .get("set")?
        .as_object()?
        .iter()
        .map(|(name, v)| {
            may_set.contains(name).then_some(())?;
            Some((name.clone(), v.as_str()?.to_string()))
        })
        .collect::<Option<Vec<_>>>()?;
    let notice = match value.get("notice") {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => Some(v.as_str()?.to_string()),
    };
    Some(Plan::Direct(Direct {
        argv0: value.get("argv0")?.as_str()?.to_string(),
        set,
        notice,
    }))
}
