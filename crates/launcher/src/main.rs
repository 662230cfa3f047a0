//! `mcp-ordered-dispatch-launcher`: what `mcp-ordered-dispatch setup`'s shell
//! functions start a host with. It starts the host with the plan the Node
//! launcher (`mcp-ordered-dispatch run`) recorded for it, while nothing that
//! plan was made from has changed, with no Node start in front: on Unix it
//! becomes the host (execve), elsewhere the host is its child and it exits
//! as the host did. Any other start (the first, one after the host's update,
//! one it cannot judge) is handed to the Node launcher, which makes the plan,
//! records it, and starts the host. Nothing is decided here.

use mcp_ordered_dispatch_launcher::{
    parse_request, record_file, replay_of, resolve, seen, Replay, Request, PLAN_SEEN,
};
use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// One line on stderr, as the Node launcher writes its own.
fn say(line: &str) {
    eprintln!("mcp-ordered-dispatch run: {line}");
}

fn main() {
    let request = match parse_request(std::env::args_os().skip(1)) {
        Ok(request) => request,
        Err(message) => {
            say(&message);
            std::process::exit(2);
        }
    };
    let cwd = std::env::current_dir().ok();
    let file = cwd.as_deref().and_then(|cwd| {
        resolve(
            &request.command,
            std::env::var_os("PATH").as_deref(),
            std::env::var_os("PATHEXT").as_deref(),
            cwd,
        )
    });
    // What this start sees, and where its plan is recorded: both, or no record at all.
    let keyed = match (&request.records, &file, &cwd) {
        (Some(dir), Some(file), Some(cwd)) => {
            record_file(dir, &request.command)
                .zip(seen(&request, file, cwd, |name| std::env::var_os(name)))
        }
        _ => None,
    };
    if let Some((record, seen)) = &keyed {
        if let Some(replay) = read_record(record).and_then(|text| replay_of(&text, seen)) {
            if let Some(notice) = &replay.notice {
                say(notice);
            }
            // Not started (the file went away since): the Node launcher says why.
            let _ = start(replayed(&replay, &request.args));
        }
    }
    let error = start(through_node(&request, &request.node, keyed.as_ref()));
    // The Node that made `setup` is gone (moved, upgraded): the one on PATH.
    let error = if request.node.exists() {
        error
    } else {
        start(through_node(&request, Path::new("node"), keyed.as_ref()))
    };
    say(&format!(
        "cannot start the Node launcher ({}: {error}), so {} starts without the fix; run `npx mcp-ordered-dispatch setup` again",
        request.node.display(),
        request.command.to_string_lossy()
    ));
    let mut plain = Command::new(&request.command);
    plain.args(&request.args);
    let error = start(plain);
    say(&format!("{}: {error}", request.command.to_string_lossy()));
    std::process::exit(if error.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    });
}

/// The host as the record says: its file, argv[0] and variables, the user's arguments.
fn replayed(replay: &Replay, args: &[OsString]) -> Command {
    let mut command = Command::new(&replay.file);
    #[cfg(unix)]
    std::os::unix::process::CommandExt::arg0(&mut command, &replay.argv0);
    command
        .args(args)
        .envs(replay.set.iter().map(|(k, v)| (k, v)));
    command
}

/// The Node launcher for this start, told where to record its plan and what this start saw.
fn through_node(
    request: &Request,
    node: &Path,
    keyed: Option<&(std::path::PathBuf, String)>,
) -> Command {
    let mut command = Command::new(node);
    command.arg(&request.cli).arg("run");
    if let Some((record, seen)) = keyed {
        // What was seen goes by the environment, which only this user can
        // read (argv is anyone's); `run` takes it out before it plans.
        let mut option = OsString::from("--plan-record=");
        option.push(record);
        command.arg(option).env(PLAN_SEEN, seen);
    }
    command.arg("--").arg(&request.command).args(&request.args);
    command
}

/// A record's text, when the file is one only this user could have written.
fn read_record(file: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        // SAFETY: geteuid() cannot fail and touches no memory of ours.
        let euid = unsafe { libc::geteuid() };
        if !mcp_ordered_dispatch_launcher::trusted_record(file, euid) {
            return None;
        }
    }
    std::fs::read_to_string(file).ok()
}

/// Starts `command` in this process's place (Unix: execve; it returns only on failure).
#[cfg(unix)]
fn start(mut command: Command) -> std::io::Error {
    std::os::unix::process::CommandExt::exec(&mut command)
}

/// Starts `command` as a child and ends as it ended (no execve here).
#[cfg(not(unix))]
fn start(mut command: Command) -> std::io::Error {
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => return error,
    };
    #[cfg(windows)]
    console::ignore_interrupts();
    match child.wait() {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(error) => error,
    }
}

/// The console's Ctrl-C and Ctrl-Break reach every process attached to it,
/// the host included: while the host runs, this launcher waits for it to
/// end instead of ending first (and handing the prompt back under it).
#[cfg(windows)]
mod console {
    type Handler = unsafe extern "system" fn(u32) -> i32;

    #[link(name = "kernel32")]
    extern "system" {
        fn SetConsoleCtrlHandler(handler: Option<Handler>, add: i32) -> i32;
    }

    /// Handled (ignored) here; the host handles its own.
    unsafe extern "system" fn handled(_event: u32) -> i32 {
        1
    }

    pub fn ignore_interrupts() {
        // SAFETY: registers a handler that touches nothing; a handler routine,
        // unlike ignoring with a null one, is not inherited by the host.
        unsafe {
            SetConsoleCtrlHandler(Some(handled), 1);
        }
    }
}
