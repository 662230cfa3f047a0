//! Finding a command as a shell does, as `resolveCommand` in lib/native/can-start.cjs
//! does (test/run/resolver-cases.json holds the cases both are tested against).

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// Whose rules a command is found by: the platform is passed in, so a
/// Windows case is tested on Linux too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    Unix,
    Windows,
}

impl Platform {
    /// The platform this launcher runs on.
    pub const HOST: Platform = if cfg!(windows) {
        Platform::Windows
    } else {
        Platform::Unix
    };

    /// By Node's `process.platform` name.
    pub fn named(name: &str) -> Platform {
        if name == "win32" {
            Platform::Windows
        } else {
            Platform::Unix
        }
    }

    fn list_separator(self) -> u8 {
        match self {
            Platform::Unix => b':',
            Platform::Windows => b';',
        }
    }
}

/// Whether `command` names a path (resolved from the working directory) rather than a name on PATH.
pub fn is_path(command: &OsStr, platform: Platform) -> bool {
    let bytes = command.as_encoded_bytes();
    bytes.contains(&b'/') || (platform == Platform::Windows && bytes.contains(&b'\\'))
}

/// Whether `file` can be started: a regular file, and on Unix one this user may execute.
pub fn can_start(file: &Path, platform: Platform) -> bool {
    if !std::fs::metadata(file).is_ok_and(|m| m.is_file()) {
        return false;
    }
    match platform {
        Platform::Windows => true,
        #[cfg(unix)]
        Platform::Unix => rustix::fs::access(file, rustix::fs::Access::EXEC_OK).is_ok(),
        #[cfg(not(unix))]
        Platform::Unix => true,
    }
}

/// `command` as a shell finds it: a path as given, else the first file of
/// that name on `path_var` that can start (with `pathext`'s extensions on
/// Windows, and the name as it is only when it has an extension of its own,
/// as cmd.exe). None when not found.
pub fn resolve(
    command: &OsStr,
    path_var: Option<&OsStr>,
    pathext: Option<&OsStr>,
    cwd: &Path,
    platform: Platform,
) -> Option<PathBuf> {
    if is_path(command, platform) {
        return Some(normalized(&cwd.join(command)));
    }
    let exts: Vec<OsString> = match platform {
        Platform::Unix => vec![OsString::new()],
        Platform::Windows => {
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
        }
    };
    for dir in split_list(path_var?, platform.list_separator()) {
        if dir.is_empty() {
            continue;
        }
        for ext in &exts {
            let mut name = command.to_os_string();
            name.push(ext);
            let file = cwd.join(&dir).join(name);
            if can_start(&file, platform) {
                return Some(normalized(&file));
            }
        }
    }
    None
}

/// A list variable's entries (PATH), split on `separator`, byte for byte.
fn split_list(value: &OsStr, separator: u8) -> Vec<OsString> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        value
            .as_bytes()
            .split(|b| *b == separator)
            .map(|part| OsStr::from_bytes(part).to_os_string())
            .collect()
    }
    #[cfg(windows)]
    {
        use std::os::windows::ffi::{OsStrExt, OsStringExt};
        let units: Vec<u16> = value.encode_wide().collect();
        units
            .split(|u| *u == u16::from(separator))
            .map(OsString::from_wide)
            .collect()
    }
}

/// `path` with `.` and `..` taken out by their text (as Node's path.resolve() does).
pub fn normalized(path: &Path) -> PathBuf {
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
