//! Reading a plan file only this user could have written, opened once, with
//! no link followed where another user could have put one, and judged on the
//! open descriptors (nothing can be swapped between the check and the read).

use rustix::fd::OwnedFd;
use rustix::fs::{fstat, openat, statat, AtFlags, FileType, Mode, OFlags, Stat, CWD};
use rustix::io::Errno;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::ffi::OsStringExt;
use std::path::{Component, Path, PathBuf};

/// The most links followed on the way to the plans' folder (as the kernel's ELOOP).
const MAX_LINKS: usize = 40;

#[cfg(any(target_os = "linux", target_os = "android"))]
const DIR_FLAGS: OFlags = OFlags::PATH
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// A folder above the plans' is trusted when only `euid` or root can change
/// what is in it: owned by one of them, and writable by no one else unless
/// sticky (as /tmp is: no one moves another's entry there).
fn trusted_above(stat: &Stat, euid: u32) -> bool {
    (stat.st_uid == euid || stat.st_uid == 0)
        && (stat.st_mode & 0o022 == 0 || stat.st_mode & 0o1000 != 0)
}

/// A folder or file of `euid`'s own that no one else can write.
fn private(stat: &Stat, euid: u32) -> bool {
    stat.st_uid == euid && stat.st_mode & 0o022 == 0
}

/// The plans' folder `dir` (absolute), opened from the root one name at a
/// time with no link followed: a link above it is followed only where it sits
/// in a trusted folder and is `euid`'s or root's (so no one else could have
/// put it there); the folder itself must be `euid`'s, private, and no link.
fn open_plans_dir(dir: &Path, euid: u32) -> Option<OwnedFd> {
    let mut wanted = dir.to_path_buf();
    let mut links = 0;
    'walk: loop {
        if !wanted.is_absolute() {
            return None;
        }
        let names: Vec<_> = wanted
            .components()
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name.to_os_string()),
                _ => None,
            })
            .collect();
        if wanted.components().any(|c| c == Component::ParentDir) || names.is_empty() {
            return None;
        }
        let mut fd = openat(CWD, "/", DIR_FLAGS, Mode::empty()).ok()?;
        let mut walked = PathBuf::from("/");
        for (at, name) in names.iter().enumerate() {
            if !trusted_above(&fstat(&fd).ok()?, euid) {
                return None;
            }
            let last = at + 1 == names.len();
            match openat(&fd, name.as_os_str(), DIR_FLAGS, Mode::empty()) {
                Ok(next) => fd = next,
                Err(Errno::LOOP | Errno::NOTDIR) if !last => {
                    let link = statat(&fd, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW).ok()?;
                    links += 1;
                    if FileType::from_raw_mode(link.st_mode) != FileType::Symlink
                        || (link.st_uid != euid && link.st_uid != 0)
                        || links > MAX_LINKS
                    {
                        return None;
                    }
                    let target = rustix::fs::readlinkat(&fd, name.as_os_str(), Vec::new()).ok()?;
                    let target: OsString = OsStringExt::from_vec(target.into_bytes());
                    let mut next = walked.join(target);
                    for rest in &names[at + 1..] {
                        next.push(rest);
                    }
                    wanted = crate::resolve::normalized(&next);
                    continue 'walk;
                }
                Err(_) => return None,
            }
            walked.push(name);
        }
        let stat = fstat(&fd).ok()?;
        return (FileType::from_raw_mode(stat.st_mode) == FileType::Directory
            && private(&stat, euid))
        .then_some(fd);
    }
}

/// The text of plan file `name` in the folder `dir`, when only `euid` could
/// have written it: a regular file (not a link) that they own and no one
/// else can write, at most `max` bytes, in a folder that passes open_plans_dir().
pub fn read_plan(dir: &Path, name: &str, euid: u32, max: u64) -> Option<String> {
    let folder = open_plans_dir(dir, euid)?;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = openat(&folder, name, flags, Mode::empty()).ok()?;
    let stat = fstat(&fd).ok()?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile
        || !private(&stat, euid)
        || u64::try_from(stat.st_size).ok()? > max
    {
        return None;
    }
    let mut text = String::new();
    std::fs::File::from(fd)
        .take(max + 1)
        .read_to_string(&mut text)
        .ok()?;
    (text.len() as u64 <= max).then_some(text)
}
