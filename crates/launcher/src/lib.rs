//! The native launcher's pure part: what it was asked, what it sees of the
//! command, and whether a recorded plan still applies. No rule of what
//! reaches what lives here: the Node launcher (`lib/run/`) makes every plan
//! and records it; this replays a record only while what the Node launcher
//! read to make it is unchanged (the command's file, by identity; the
//! variables the plan reads; the launcher's own files), and otherwise hands
//! the start to the Node launcher, which records the new plan.

use std::ffi::{OsStr, OsString};
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// The variables a plan reads besides PATH (which decides the file, itself
/// part of what is seen): the carriers and the marker of `lib/rule/marker.cjs`.
pub const PLAN_INPUTS: [&str; 4] = [
    "NODE_OPTIONS",
    "BUN_OPTIONS",
    "BUN_INSPECT_PRELOAD",
    "MCP_ORDERED_DISPATCH_RUN",
];

/// The variable that carries what a start saw to the Node launcher
/// (`run --plan-record=FILE`), which takes it out of its environment.
pub const PLAN_SEEN: &str = "MCP_ORDERED_DISPATCH_PLAN_SEEN";

/// The record format this launcher reads (`lib/run/record.cjs` writes it).
pub const RECORD_VERSION: u64 = 1;

/// The longest command name given a record of its own (its file name is the name in hex).
const MAX_COMMAND_BYTES: usize = 120;

/// What the launcher was asked: `--node=PATH --cli=PATH [--records=DIR] [--] COMMAND ARGS...`.
#[derive(Debug, PartialEq, Eq)]
pub struct Request {
    /// The Node that runs the Node launcher (setup's process.execPath).
    pub node: PathBuf,
    /// The Node launcher (this package's bin).
    pub cli: PathBuf,
    /// Where plans are recorded, or none (then every start goes through Node).
    pub records: Option<PathBuf>,
    pub command: OsString,
    pub args: Vec<OsString>,
}

/// The usage line, for a request this launcher cannot read.
pub const USAGE: &str = "usage: mcp-ordered-dispatch-launcher --node=PATH --cli=PATH [--records=DIR] -- COMMAND [ARGS...] (written by `mcp-ordered-dispatch setup`)";

/// Reads the launcher's arguments (without argv[0]).
pub fn parse_request(argv: impl IntoIterator<Item = OsString>) -> Result<Request, String> {
    let mut node = None;
    let mut cli = None;
    let mut records = None;
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
        let text = arg.to_string_lossy();
        if let Some(value) = text.strip_prefix("--node=") {
            node = Some(PathBuf::from(value));
        } else if let Some(value) = text.strip_prefix("--cli=") {
            cli = Some(PathBuf::from(value));
        } else if let Some(value) = text.strip_prefix("--records=") {
            records = Some(PathBuf::from(value));
        } else if text.starts_with("--") {
            return Err(format!("unknown option {text}; {USAGE}"));
        } else {
            break arg;
        }
    };
    Ok(Request {
        node: node.ok_or_else(|| format!("--node is missing; {USAGE}"))?,
        cli: cli.ok_or_else(|| format!("--cli is missing; {USAGE}"))?,
        records,
        command,
        args: rest.collect(),
    })
}

/// Whether `command` names a path (resolved from the working directory) rather than a name on PATH.
pub fn is_path(command: &OsStr) -> bool {
    let text = command.to_string_lossy();
    text.contains('/') || (cfg!(windows) && text.contains('\\'))
}

/// Whether `metadata` is a file this user can start (on Unix: with an execute bit set).
fn startable(metadata: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        metadata.is_file()
    }
}

/// `command` as a shell finds it (as `lib/run/plan.cjs` does): a path as
/// given, else the first startable file of that name on `path_var` (with
/// `pathext`'s extensions on Windows). None when not found.
pub fn resolve(
    command: &OsStr,
    path_var: Option<&OsStr>,
    pathext: Option<&OsStr>,
    cwd: &Path,
) -> Option<PathBuf> {
    if is_path(command) {
        return Some(normalized(&cwd.join(command)));
    }
    // On Windows PATHEXT's extensions, and the name as it is only when it has an
    // extension of its own (as lib/run/plan.cjs's resolveCommand, and cmd.exe).
    let exts: Vec<OsString> = if cfg!(windows) {
        let list = pathext
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|| ".EXE;.CMD;.BAT;.COM".into());
        let bare = Path::new(command).extension().is_some().then(OsString::new);
        bare.into_iter()
            .chain(
                list.split(';')
                    .filter(|e| !e.is_empty())
                    .map(|e| OsString::from(e.to_ascii_lowercase())),
            )
            .collect()
    } else {
        vec![OsString::new()]
    };
    for dir in std::env::split_paths(path_var?) {
        if dir.as_os_str().is_empty() {
            continue;
        }
        for ext in &exts {
            let mut name = command.to_os_string();
            name.push(ext);
            let file = cwd.join(&dir).join(name);
            if std::fs::metadata(&file).is_ok_and(|m| startable(&m)) {
                return Some(normalized(&file));
            }
        }
    }
    None
}

/// `path` with `.` and `..` taken out by their text (as Node's path.resolve() does).
pub fn normalized(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop(); // the root's parent is the root
            }
            _ => out.push(part),
        }
    }
    out
}

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

/// What a start sees, as one string (the record's key): every input of the
/// plan the Node launcher would make (which Node runs it is none). None when it cannot be said (a value
/// that is not Unicode, a file that cannot be read): such a start is never
/// replayed.
pub fn seen(
    request: &Request,
    file: &Path,
    cwd: &Path,
    var: impl Fn(&str) -> Option<OsString>,
) -> Option<String> {
    let command = request.command.to_str()?;
    let mut env = serde_json::Map::new();
    for name in PLAN_INPUTS {
        let value = match var(name) {
            Some(v) => serde_json::Value::String(v.into_string().ok()?),
            None => serde_json::Value::Null,
        };
        env.insert(name.to_string(), value);
    }
    // The working directory matters only to a command given as a path, and
    // to a preload of the user's named relatively (the plan chains it).
    let relative = is_path(&request.command) || var("BUN_INSPECT_PRELOAD").is_some();
    let value = serde_json::json!({
        "v": RECORD_VERSION,
        "command": command,
        "cwd": if relative { Some(cwd.to_str()?) } else { None },
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

/// The record file of `command` in `dir`: `run-<the name in hex>.json`; none for a name too long.
pub fn record_file(dir: &Path, command: &OsStr) -> Option<PathBuf> {
    let bytes = command.as_encoded_bytes();
    if bytes.is_empty() || bytes.len() > MAX_COMMAND_BYTES {
        return None;
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Some(dir.join(format!("run-{hex}.json")))
}

/// Whether `file` is a record only the user `euid` could have written: a
/// regular file (not a link) that they own and no one else can write, in a
/// directory that they own and no one else can write, every directory above
/// it owned by them or root, and writable by others only where it is sticky
/// (as /tmp is), so no one else can move anything below it.
#[cfg(unix)]
pub fn trusted_record(file: &Path, euid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    let private = |m: &Metadata| m.uid() == euid && m.mode() & 0o022 == 0;
    let Ok(metadata) = std::fs::symlink_metadata(file) else {
        return false;
    };
    if !metadata.is_file() || !private(&metadata) {
        return false;
    }
    let Some(dir) = file.parent().and_then(|d| std::fs::canonicalize(d).ok()) else {
        return false;
    };
    if !std::fs::metadata(&dir).is_ok_and(|m| m.is_dir() && private(&m)) {
        return false;
    }
    dir.ancestors().skip(1).all(|above| {
        std::fs::metadata(above).is_ok_and(|m| {
            (m.uid() == euid || m.uid() == 0) && (m.mode() & 0o022 == 0 || m.mode() & 0o1000 != 0)
        })
    })
}

/// A recorded plan, to replay: the file to start, its argv[0], the variables
/// to set (the user's arguments follow unchanged), and the one line for stderr.
#[derive(Debug, PartialEq, Eq)]
pub struct Replay {
    pub file: PathBuf,
    pub argv0: String,
    pub set: Vec<(String, String)>,
    pub notice: Option<String>,
}

/// The plan in `record` (a record file's text), when it was made for
/// exactly what this start sees; None otherwise (another start, another
/// format, a damaged file).
pub fn replay_of(record: &str, seen: &str) -> Option<Replay> {
    let value: serde_json::Value = serde_json::from_str(record).ok()?;
    if value.get("v")?.as_u64()? != RECORD_VERSION || value.get("seen")?.as_str()? != seen {
        return None;
    }
    // Only the fix's own variables: a record that sets anything else is not one the Node launcher wrote.
    let set = value
        .get("set")?
        .as_object()?
        .iter()
        .map(|(name, v)| {
            Some((
                PLAN_INPUTS.contains(&name.as_str()).then(|| name.clone())?,
                v.as_str()?.to_string(),
            ))
        })
        .collect::<Option<Vec<_>>>()?;
    let notice = match value.get("notice") {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => Some(v.as_str()?.to_string()),
    };
    Some(Replay {
        file: PathBuf::from(value.get("file")?.as_str()?),
        argv0: value.get("argv0")?.as_str()?.to_string(),
        set,
        notice,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(items: &[&str]) -> Vec<OsString> {
        items.iter().map(OsString::from).collect()
    }

    #[test]
    fn reads_a_request() {
        let r = parse_request(os(&[
            "--node=/n",
            "--cli=/c",
            "--records=/r",
            "--",
            "claude",
            "-p",
            "--x",
        ]))
        .unwrap();
        assert_eq!(r.node, PathBuf::from("/n"));
        assert_eq!(r.cli, PathBuf::from("/c"));
        assert_eq!(r.records, Some(PathBuf::from("/r")));
        assert_eq!(r.command, "claude");
        assert_eq!(r.args, os(&["-p", "--x"]));
        let r = parse_request(os(&["--node=/n", "--cli=/c", "claude", "--"])).unwrap();
        assert_eq!(
            (r.records, r.command, r.args),
            (None, OsString::from("claude"), os(&["--"]))
        );
    }

    #[test]
    fn refuses_a_request_it_cannot_read() {
        assert!(parse_request(os(&["--cli=/c", "--", "x"]))
            .unwrap_err()
            .contains("--node is missing"));
        assert!(parse_request(os(&["--node=/n", "--cli=/c", "--"]))
            .unwrap_err()
            .contains("no command after"));
        assert!(
            parse_request(os(&["--node=/n", "--cli=/c", "--report", "x"]))
                .unwrap_err()
                .contains("unknown option --report")
        );
    }

    #[test]
    fn names_records_by_command() {
        assert_eq!(
            record_file(Path::new("/r"), OsStr::new("claude")),
            Some(PathBuf::from("/r/run-636c61756465.json"))
        );
        assert_eq!(record_file(Path::new("/r"), OsStr::new("")), None);
        assert_eq!(
            record_file(Path::new("/r"), &OsString::from("x".repeat(121))),
            None
        );
    }

    #[test]
    fn replays_only_what_was_recorded_for_this_start() {
        let record = r#"{"v":1,"seen":"S","file":"/bin/host","argv0":"host","set":{"BUN_OPTIONS":"--preload=/p.mjs"},"notice":null}"#;
        let replay = replay_of(record, "S").unwrap();
        assert_eq!(replay.file, PathBuf::from("/bin/host"));
        assert_eq!(replay.argv0, "host");
        assert_eq!(
            replay.set,
            vec![("BUN_OPTIONS".to_string(), "--preload=/p.mjs".to_string())]
        );
        assert_eq!(replay.notice, None);
        assert_eq!(replay_of(record, "T"), None);
        assert_eq!(replay_of(&record.replace("\"v\":1", "\"v\":2"), "S"), None);
        assert_eq!(
            replay_of(&record.replace("\"--preload=/p.mjs\"", "3"), "S"),
            None
        );
        assert_eq!(replay_of("{", "S"), None);
        let noticed = record.replace("\"notice\":null", "\"notice\":\"one line\"");
        assert_eq!(
            replay_of(&noticed, "S").unwrap().notice.as_deref(),
            Some("one line")
        );
    }

    #[test]
    fn replays_no_variable_but_the_fix_s() {
        let record = r#"{"v":1,"seen":"S","file":"/bin/host","argv0":"host","set":{"LD_PRELOAD":"/evil.so"},"notice":null}"#;
        assert_eq!(replay_of(record, "S"), None);
    }

    #[cfg(unix)]
    #[test]
    fn trusts_only_a_record_its_user_alone_could_write() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let mode = |path: &Path, mode: u32| {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
        };
        let dir =
            std::env::temp_dir().join(format!("mcp-od-launcher-trust-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        mode(&dir, 0o700);
        let file = dir.join("run-68.json");
        std::fs::write(&file, "{}").unwrap();
        mode(&file, 0o600);
        let me = std::fs::metadata(&dir).unwrap().uid();
        assert!(trusted_record(&file, me));
        assert!(!trusted_record(&file, me + 1), "another user's record");
        mode(&file, 0o666);
        assert!(!trusted_record(&file, me), "a record others can write");
        mode(&file, 0o600);
        mode(&dir, 0o777);
        assert!(
            !trusted_record(&file, me),
            "in a directory others can write"
        );
        mode(&dir, 0o700);
        let link = dir.join("run-69.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(!trusted_record(&link, me), "a link");
        assert!(!trusted_record(&dir.join("none.json"), me));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn sees_what_the_plan_reads() {
        let dir = std::env::temp_dir().join(format!("mcp-od-launcher-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bin")).unwrap();
        let file = dir.join("host");
        std::fs::write(&file, "x").unwrap();
        let cli = dir.join("bin").join("cli.cjs");
        std::fs::write(&cli, "").unwrap();
        let manifest = dir.join("package.json");
        std::fs::write(&manifest, r#"{"version":"1.0.0"}"#).unwrap();
        let request = Request {
            node: "/n".into(),
            cli,
            records: None,
            command: "host".into(),
            args: vec![],
        };
        let none = |_: &str| None;
        let a = seen(&request, &file, &dir, none).unwrap();
        assert_eq!(a, seen(&request, &file, &dir, none).unwrap());
        let with = |name: &str| (name == "NODE_OPTIONS").then(|| OsString::from("--x"));
        assert_ne!(a, seen(&request, &file, &dir, with).unwrap());
        // Which Node runs the Node launcher is not an input.
        let other_node = Request {
            node: "/other".into(),
            cli: request.cli.clone(),
            command: "host".into(),
            records: None,
            args: vec![],
        };
        assert_eq!(a, seen(&other_node, &file, &dir, none).unwrap());
        // The working directory counts only for a command given as a path.
        assert_eq!(
            a,
            seen(&request, &file, Path::new("/elsewhere"), none).unwrap()
        );
        let by_path = Request {
            command: "./host".into(),
            cli: request.cli.clone(),
            node: "/n".into(),
            records: None,
            args: vec![],
        };
        assert_ne!(
            seen(&by_path, &file, &dir, none).unwrap(),
            seen(&by_path, &file, Path::new("/elsewhere"), none).unwrap()
        );
        // Another version of the package (its package.json rewritten, same size), then the host rewritten (another size, then the same size).
        std::fs::write(&manifest, r#"{"version":"1.0.1"}"#).unwrap();
        let b = seen(&request, &file, &dir, none).unwrap();
        assert_ne!(a, b);
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(&file, "xy").unwrap();
        let c = seen(&request, &file, &dir, none).unwrap();
        assert_ne!(b, c);
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::write(&file, "yz").unwrap();
        assert_ne!(c, seen(&request, &file, &dir, none).unwrap());
        // No package.json beside the bin: nothing to key on, never replayed.
        std::fs::remove_file(&manifest).unwrap();
        assert_eq!(seen(&request, &file, &dir, none), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn resolves_as_a_shell_does() {
        use std::os::unix::fs::PermissionsExt;
        let dir =
            std::env::temp_dir().join(format!("mcp-od-launcher-resolve-{}", std::process::id()));
        let (a, b) = (dir.join("a"), dir.join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(a.join("host"), "").unwrap(); // not executable: skipped
        std::fs::write(b.join("host"), "").unwrap();
        std::fs::set_permissions(b.join("host"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = std::env::join_paths([&a, &b]).unwrap();
        assert_eq!(
            resolve(OsStr::new("host"), Some(&path), None, &dir),
            Some(b.join("host"))
        );
        assert_eq!(resolve(OsStr::new("nope"), Some(&path), None, &dir), None);
        assert_eq!(
            resolve(OsStr::new("./x"), Some(&path), None, &dir),
            Some(dir.join("x"))
        );
        assert_eq!(
            resolve(OsStr::new("../b/host"), Some(&path), None, &a),
            Some(b.join("host"))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
