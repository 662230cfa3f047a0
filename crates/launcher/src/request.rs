//! What the native launcher was asked, from its arguments.

use std::ffi::OsString;
use std::path::PathBuf;

/// A start as setup's shell function asks for it: `--node=PATH --cli=PATH [--plans=DIR] [--] COMMAND ARGS...`.
#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    /// The Node that runs `run` (setup's process.execPath).
    pub node: PathBuf,
    /// `run`'s bin (this package's).
    pub cli: PathBuf,
    /// The folder of plan files, or none (then every start goes through Node).
    pub plans: Option<PathBuf>,
    pub command: OsString,
    pub args: Vec<OsString>,
}

/// What the native launcher is asked to do.
#[derive(Debug, PartialEq, Eq)]
pub enum Ask {
    /// A host started for setup's shell function.
    Start(Request),
    /// `--exec=FILE -- ARGV0 ARGS...`: FILE started as it is (`run` on a Node
    /// whose process.execve() aborts the process when it fails), ending as a shell does when it cannot.
    Exec { file: PathBuf, argv: Vec<OsString> },
}

/// The usage line, for a request this launcher cannot read.
pub const USAGE: &str = "usage: mcp-ordered-dispatch-launcher --node=PATH --cli=PATH [--plans=DIR] -- COMMAND [ARGS...] (written by `mcp-ordered-dispatch setup`)";

/// Reads the launcher's arguments (without argv[0]).
pub fn parse_request(argv: impl IntoIterator<Item = OsString>) -> Result<Ask, String> {
    let mut node = None;
    let mut cli = None;
    let mut plans = None;
    let mut exec = None;
    let mut rest = argv.into_iter();
    let command = loop {
        let Some(arg) = rest.next() else {
            return Err(format!("no command given; {USAGE}"));
        };
        if arg == "--" {
            break rest
                .next()
                .ok_or_else(|| format!("no command after `--`; {USAGE}"))?;
        }
        // setup writes these from Node's strings: Unicode.
        let Some(text) = arg.to_str() else {
            break arg;
        };
        if let Some(value) = text.strip_prefix("--node=") {
            node = Some(PathBuf::from(value));
        } else if let Some(value) = text.strip_prefix("--cli=") {
            cli = Some(PathBuf::from(value));
        } else if let Some(value) = text.strip_prefix("--plans=") {
            plans = Some(PathBuf::from(value));
        } else if let Some(value) = text.strip_prefix("--exec=") {
            exec = Some(PathBuf::from(value));
        } else if text.starts_with("--") {
            return Err(format!("unknown option {text}; {USAGE}"));
        } else {
            break arg;
        }
    };
    if let Some(file) = exec {
        return Ok(Ask::Exec {
            file,
            argv: std::iter::once(command).chain(rest).collect(),
        });
    }
    Ok(Ask::Start(Request {
        node: node.ok_or_else(|| format!("--node is missing; {USAGE}"))?,
        cli: cli.ok_or_else(|| format!("--cli is missing; {USAGE}"))?,
        plans,
        command,
        args: rest.collect(),
    }))
}
