//! The native launcher's resolver against test/run/resolver-cases.json, the
//! cases run's resolver is tested against too (test/run/resolver.test.mjs).

use mcp_ordered_dispatch_launcher::{normalized, resolve, Platform};
use std::ffi::OsString;
use std::path::Path;

const CASES: &str = include_str!("../../../test/run/resolver-cases.json");

fn make(root: &Path, case: &serde_json::Value) {
    for dir in case
        .get("dirs")
        .and_then(|d| d.as_array())
        .into_iter()
        .flatten()
    {
        std::fs::create_dir_all(root.join(dir.as_str().unwrap())).unwrap();
    }
    for (file, mode) in case
        .get("files")
        .and_then(|f| f.as_object())
        .into_iter()
        .flatten()
    {
        let file = root.join(file);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "").unwrap();
        let mode = u32::from_str_radix(mode.as_str().unwrap(), 8).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        #[cfg(not(unix))]
        let _ = mode;
    }
}

#[test]
fn finds_each_command_as_the_cases_say() {
    let cases: serde_json::Value = serde_json::from_str(CASES).unwrap();
    let cases = cases["cases"].as_array().unwrap();
    assert!(cases.len() >= 15);
    for (at, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        let platform = Platform::named(case["platform"].as_str().unwrap());
        if cfg!(windows) && platform == Platform::Unix {
            continue; // execute bits are Unix's
        }
        let root =
            std::env::temp_dir().join(format!("mcp-od-resolver-{}-{at}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        make(&root, case);
        let separator = if platform == Platform::Windows {
            ";"
        } else {
            ":"
        };
        let path = case["path"].as_array().map(|entries| {
            let texts: Vec<&str> = entries.iter().map(|e| e.as_str().unwrap()).collect();
            OsString::from(texts.join(separator))
        });
        let pathext = case
            .get("pathext")
            .and_then(|p| p.as_str())
            .map(OsString::from);
        let cwd = root.join(case.get("cwd").and_then(|c| c.as_str()).unwrap_or("."));
        let command = OsString::from(case["command"].as_str().unwrap());
        let got = resolve(
            &command,
            path.as_deref(),
            pathext.as_deref(),
            &cwd,
            platform,
        );
        let expected = case["found"].as_str().map(|f| normalized(&root.join(f)));
        assert_eq!(got, expected, "{name}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
