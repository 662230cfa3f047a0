//! A plan file is read only when this user alone could have written it, with no link followed another user could have put there.
#![cfg(unix)]

use mcp_ordered_dispatch_launcher::trusted::read_plan;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

const MAX: u64 = 1 << 20;

fn mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
}

/// A private folder under the temp directory, holding `plans/run-68.json`.
fn folder(name: &str) -> (PathBuf, PathBuf, u32) {
    let top = std::env::temp_dir().join(format!("mcp-od-trust-{name}-{}", std::process::id()));
    let plans = top.join("plans");
    std::fs::create_dir_all(&plans).unwrap();
    mode(&top, 0o700);
    mode(&plans, 0o700);
    std::fs::write(plans.join("run-68.json"), "{}").unwrap();
    mode(&plans.join("run-68.json"), 0o600);
    let me = std::fs::metadata(&plans).unwrap().uid();
    (top, plans, me)
}

#[test]
fn reads_only_a_plan_its_user_alone_could_write() {
    let (top, plans, me) = folder("own");
    let file = plans.join("run-68.json");
    assert_eq!(
        read_plan(&plans, "run-68.json", me, MAX).as_deref(),
        Some("{}")
    );
    let refused = |uid: u32, why: &str| {
        assert_eq!(read_plan(&plans, "run-68.json", uid, MAX), None, "{why}");
    };
    refused(me + 1, "another user's");
    let writable = [
        (&file, 0o666, 0o600, "writable by others"),
        (&plans, 0o777, 0o700, "in a folder others can write"),
        (&top, 0o777, 0o700, "below a folder others can write"),
    ];
    for (path, open, private, why) in writable {
        mode(path, open);
        refused(me, why);
        mode(path, private);
    }
    mode(&top, 0o1777);
    assert!(
        read_plan(&plans, "run-68.json", me, MAX).is_some(),
        "below a sticky folder (as /tmp)"
    );
    mode(&top, 0o700);
    std::os::unix::fs::symlink(&file, plans.join("run-69.json")).unwrap();
    assert_eq!(read_plan(&plans, "run-69.json", me, MAX), None, "a link");
    assert_eq!(read_plan(&plans, "none.json", me, MAX), None);
    assert_eq!(
        read_plan(Path::new("plans"), "run-68.json", me, MAX),
        None,
        "a relative folder"
    );
    std::fs::write(&file, "x".repeat(11)).unwrap();
    assert_eq!(
        read_plan(&plans, "run-68.json", me, 10),
        None,
        "larger than the cap"
    );
    assert!(read_plan(&plans, "run-68.json", me, 11).is_some());
    std::fs::remove_dir_all(&top).unwrap();
}

#[test]
fn follows_no_link_to_the_plans_folder_but_its_users_own_above_it() {
    let (top, plans, me) = folder("link");
    let linked = top.join("linked");
    std::os::unix::fs::symlink(&plans, &linked).unwrap();
    assert_eq!(
        read_plan(&linked, "run-68.json", me, MAX),
        None,
        "the plans' folder a link"
    );
    // A link above it, in a folder only its user can change, is theirs: followed.
    let up = top.join("up");
    std::os::unix::fs::symlink(&top, &up).unwrap();
    assert!(
        read_plan(&up.join("plans"), "run-68.json", me, MAX).is_some(),
        "a link of the user's above"
    );
    // The same link in a folder others can write (not sticky) is not followed.
    mode(&top, 0o777);
    assert_eq!(read_plan(&up.join("plans"), "run-68.json", me, MAX), None);
    mode(&top, 0o700);
    std::fs::remove_dir_all(&top).unwrap();
}
