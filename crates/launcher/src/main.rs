//! `mcp-ordered-dispatch-launcher`: what `mcp-ordered-dispatch setup`'s shell
//! functions start a host with, and the one place its direct start is told
//! (the other files point here). It finds the host as a shell would; when a
//! plan file that `run` wrote for exactly this start is there (its key: what
//! the start sees, src/seen.rs) and only this user could have written it
//! (src/trusted.rs), it becomes that host with the plan's variables and no
//! Node start: its own argument and environment bytes, every signal
//! disposition the shell gave it. Otherwise it asks `run` for the plan alone
//! (`run --plan-file=FILE --plan-only`, a child that writes it and starts
//! nothing), then starts it directly. A plan no direct start reproduces, or
//! none at all, goes through `run` itself. On Unix it becomes the host
//! (execve); elsewhere the host is its child and it exits as the host did.
//! What reaches what is decided in lib/run/, never here.

// Under `cargo test --all-targets` the harness brings its own main (and runs
// no test: they are in tests/), so the C main and what only it calls stand aside.
#![cfg_attr(all(unix, not(test)), no_main)]
#![cfg_attr(test, allow(dead_code, unused_imports))]

use mcp_ordered_dispatch_launcher::{
    contract, inspector_off, parse_request, plan_file_name, plan_of, resolve, seen, Ask, Direct,
    Plan, Platform, Request,
};
use std::ffi::{OsStr, OsString};
use std::io::{Error, ErrorKind};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One line on stderr, as `run` writes its own.
fn say(line: &str) {
    eprintln!("mcp-ordered-dispatch run: {line}");
}

/// The one place a start that failed ends, as a shell ends: one line naming
/// the cause, and 127 when there is no such file, else 126.
fn cannot_start(name: &OsStr, error: &Error) -> i32 {
    say(&format!("{}: {error}", name.to_string_lossy()));
    if error.kind() == ErrorKind::NotFound {
        127
    } else {
        126
    }
}

/// No `fn main` of std's on Unix: its runtime would set SIGPIPE to ignored
/// before this code runs, and the shell's own disposition would be lost.
#[cfg(all(unix, not(test)))]
#[no_mangle]
extern "C" fn main(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    use std::os::unix::ffi::OsStringExt;
    let count = usize::try_from(argc).unwrap_or(0);
    let args = (1..count)
        .map(|i| {
            // SAFETY: the C runtime hands main `argc` NUL-terminated strings in `argv`.
            let arg = unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) };
            OsString::from_vec(arg.to_bytes().to_vec())
        })
        .collect();
    launch(args)
}

#[cfg(all(not(unix), not(test)))]
fn main() {
    std::process::exit(launch(std::env::args_os().skip(1).collect()));
}

fn launch(args: Vec<OsString>) -> i32 {
    let request = match parse_request(args) {
        Ok(Ask::Start(request)) => request,
        Ok(Ask::Exec { file, argv }) => {
            let name = argv.first().cloned().unwrap_or_else(|| file.clone().into());
            let error = start(&Start::new(file, argv));
            return cannot_start(&name, &error);
        }
        Err(message) => {
            say(&message);
            return 2;
        }
    };
    let cwd = std::env::current_dir().ok();
    let file = cwd.as_deref().and_then(|cwd| found(&request.command, cwd));
    if let (Some(dir), Some(file), Some(cwd)) = (&request.plans, &file, &cwd) {
        let keyed = plan_file_name(&request.command)
            .zip(seen(&request, file, |name| std::env::var_os(name)))
            .map(|(name, seen)| Keyed {
                dir,
                name,
                seen,
                file,
                cwd,
            });
        if let Some(keyed) = keyed {
            let plan = keyed.read().or_else(|| {
                plan_through_node(&request, &keyed)
                    .then(|| keyed.read())
                    .flatten()
            });
            if let Some(Plan::Direct(direct)) = plan {
                if let Some(notice) = &direct.notice {
                    say(notice);
                }
                let error = start(&direct_start(&direct, file, &request.args));
                return cannot_start(&request.command, &error);
            }
        }
    }
    through_run(&request, file, cwd.as_deref())
}

/// `command` as a shell finds it, on this platform, from this process's PATH.
fn found(command: &OsStr, cwd: &Path) -> Option<PathBuf> {
    let var = std::env::var_os;
    resolve(
        command,
        var("PATH").as_deref(),
        var("PATHEXT").as_deref(),
        cwd,
        Platform::HOST,
    )
}

/// Where this start's plan is, and what the start sees.
struct Keyed<'a> {
    dir: &'a Path,
    name: String,
    seen: String,
    file: &'a Path,
    cwd: &'a Path,
}

impl Keyed<'_> {
    /// The plan file's plan for this start, when there is one to trust.
    fn read(&self) -> Option<Plan> {
        let max = contract().max_plan_bytes;
        #[cfg(unix)]
        let text = {
            let euid = rustix::process::geteuid().as_raw();
            mcp_ordered_dispatch_launcher::trusted::read_plan(self.dir, &self.name, euid, max)?
        };
        #[cfg(not(unix))]
        let text = {
            let file = self.dir.join(&self.name);
            if std::fs::metadata(&file).ok()?.len() > max {
                return None;
            }
            std::fs::read_to_string(file).ok()?
        };
        plan_of(&text, &self.seen, self.cwd, self.file)
    }
}

/// The plan of this start, written by `run` (a child: it starts nothing), with what was seen in the contract's variable.
fn plan_through_node(request: &Request, keyed: &Keyed) -> bool {
    let mut option = OsString::from("--plan-file=");
    option.push(keyed.dir.join(&keyed.name));
    let ask = |node: &Path| {
        Command::new(node)
            .args(own_node_flags())
            .arg(&request.cli)
            .args([
                OsStr::new("run"),
                &option,
                OsStr::new("--plan-only"),
                OsStr::new("--"),
            ])
            .arg(&request.command)
            .args(&request.args)
            .env(&contract().seen_variable, &keyed.seen)
            .stdin(Stdio::null())
            .status()
    };
    let status = ask(&request.node).or_else(|_| ask(Path::new("node")));
    status.is_ok_and(|s| s.success())
}

/// The host as the plan says, from the file this launcher resolved: argv[0], the variables, the user's arguments.
fn direct_start(direct: &Direct, file: &Path, args: &[OsString]) -> Start {
    let argv = std::iter::once(OsString::from(&direct.argv0))
        .chain(args.iter().cloned())
        .collect();
    let mut start = Start::new(file.to_path_buf(), argv);
    start.set = direct
        .set
        .iter()
        .map(|(name, value)| (name.into(), value.into()))
        .collect();
    start
}

/// What a Node of ours is started with before `run`'s file: the flags that keep
/// shut the inspector the user's NODE_OPTIONS opens, so that the host alone
/// opens it (its port, its stderr lines) and no Node of ours waits for a debugger.
fn own_node_flags() -> Vec<String> {
    std::env::var("NODE_OPTIONS")
        .map(|value| inspector_off(&value))
        .unwrap_or_default()
}

/// The start through `run` (Node's launcher, which plans, applies and starts),
/// else the plain host with one line saying it has no fix.
fn through_run(request: &Request, file: Option<PathBuf>, cwd: Option<&Path>) -> i32 {
    let run = |node: PathBuf| {
        let argv = std::iter::once(node.clone().into_os_string())
            .chain(own_node_flags().into_iter().map(OsString::from))
            .chain(
                [request.cli.as_os_str(), OsStr::new("run"), OsStr::new("--")]
                    .into_iter()
                    .map(OsString::from),
            )
            .chain(std::iter::once(request.command.clone()))
            .chain(request.args.iter().cloned())
            .collect();
        start(&Start::new(node, argv))
    };
    let mut error = run(request.node.clone());
    if !request.node.exists() {
        // The Node that made `setup` is gone (moved, upgraded): the one on PATH.
        if let Some(node) = cwd.and_then(|cwd| found(OsStr::new("node"), cwd)) {
            error = run(node);
        }
    }
    say(&format!(
        "cannot start `run` ({}: {error}), so {} starts without the fix; run `npx mcp-ordered-dispatch setup` again",
        request.node.display(),
        request.command.to_string_lossy()
    ));
    let Some(file) = file else {
        return cannot_start(
            &request.command,
            &Error::new(ErrorKind::NotFound, "command not found"),
        );
    };
    let argv = std::iter::once(request.command.clone())
        .chain(request.args.iter().cloned())
        .collect();
    cannot_start(&request.command, &start(&Start::new(file, argv)))
}

/// A program to start in this one's place: its file, its argv (argv[0]
/// first), the variables set over this process's, and the contract's
/// seen-variable taken out (it is for `run` alone).
struct Start {
    file: PathBuf,
    argv: Vec<OsString>,
    set: Vec<(OsString, OsString)>,
}

impl Start {
    fn new(file: PathBuf, argv: Vec<OsString>) -> Start {
        Start {
            file,
            argv,
            set: Vec::new(),
        }
    }

    /// The environment it starts with: this process's, byte for byte, but for what it sets and takes out.
    fn env(&self) -> Vec<(OsString, OsString)> {
        let seen = OsStr::new(&contract().seen_variable);
        let replaced = |name: &OsStr| name == seen || self.set.iter().any(|(n, _)| n == name);
        std::env::vars_os()
            .filter(|(name, _)| !replaced(name))
            .chain(self.set.iter().cloned())
            .collect()
    }
}

/// Starts `start` in this process's place with execve, which keeps every
/// signal disposition and the mask as this process got them (std's exec
/// resets SIGPIPE). Returns only on failure.
#[cfg(unix)]
fn start(start: &Start) -> Error {
    use std::ffi::{c_char, CString};
    use std::os::unix::ffi::OsStrExt;
    let c = |s: &OsStr| CString::new(s.as_bytes()).ok();
    let pair = |(name, value): (OsString, OsString)| {
        let mut entry = name;
        entry.push("=");
        entry.push(value);
        c(&entry)
    };
    let file = c(start.file.as_os_str());
    let argv: Option<Vec<CString>> = start.argv.iter().map(|a| c(a)).collect();
    let env: Option<Vec<CString>> = start.env().into_iter().map(pair).collect();
    let (Some(file), Some(argv), Some(env)) = (file, argv, env) else {
        return Error::new(
            ErrorKind::InvalidInput,
            "a NUL byte in an argument or variable",
        );
    };
    let pointers = |strings: &[CString]| -> Vec<*const c_char> {
        strings
            .iter()
            .map(|s| s.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect()
    };
    let (argv_p, env_p) = (pointers(&argv), pointers(&env));
    // SAFETY: every pointer is to a NUL-terminated string alive here, and both arrays end with a null.
    unsafe { libc::execve(file.as_ptr(), argv_p.as_ptr(), env_p.as_ptr()) };
    Error::last_os_error()
}

/// Starts `start` as a child and ends as it ended (no execve here).
#[cfg(not(unix))]
fn start(start: &Start) -> Error {
    let mut command = Command::new(&start.file);
    command
        .args(start.argv.iter().skip(1))
        .env_clear()
        .envs(start.env());
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
