//! What a start sees: every input of the plan `run` would make, and nothing else.

use mcp_ordered_dispatch_launcher::{seen, Request};
use std::ffi::OsString;

#[test]
fn sees_what_the_plan_reads() {
    let dir = std::env::temp_dir().join(format!("mcp-od-launcher-seen-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    let file = dir.join("host");
    std::fs::write(&file, "x").unwrap();
    let cli = dir.join("bin").join("cli.cjs");
    std::fs::write(&cli, "").unwrap();
    let manifest = dir.join("package.json");
    std::fs::write(&manifest, r#"{"version":"1.0.0"}"#).unwrap();
    let request = |node: &str, command: &str| Request {
        node: node.into(),
        cli: cli.clone(),
        plans: None,
        command: command.into(),
        args: vec![],
    };
    let none = |_: &str| None;
    let a = seen(&request("/n", "host"), &file, none).unwrap();
    assert_eq!(a, seen(&request("/n", "host"), &file, none).unwrap());
    let with = |name: &str| (name == "NODE_OPTIONS").then(|| OsString::from("--x"));
    assert_ne!(a, seen(&request("/n", "host"), &file, with).unwrap());
    // Every variable the contract names is in the key, unset ones as null.
    let key: serde_json::Value = serde_json::from_str(&a).unwrap();
    let names: Vec<&String> = key["env"].as_object().unwrap().keys().collect();
    let mut expected: Vec<&String> = mcp_ordered_dispatch_launcher::contract()
        .plan_reads
        .iter()
        .collect();
    expected.sort();
    assert_eq!(names, expected);
    // Which Node runs `run` is not an input; the command is.
    assert_eq!(a, seen(&request("/other", "host"), &file, none).unwrap());
    assert_ne!(a, seen(&request("/n", "./host"), &file, none).unwrap());
    // Another version of the package (its package.json rewritten, same size), then the host rewritten.
    std::fs::write(&manifest, r#"{"version":"1.0.1"}"#).unwrap();
    let b = seen(&request("/n", "host"), &file, none).unwrap();
    assert_ne!(a, b);
    std::thread::sleep(std::time::Duration::from_millis(10));
    std::fs::write(&file, "xy").unwrap();
    let c = seen(&request("/n", "host"), &file, none).unwrap();
    assert_ne!(b, c);
    std::thread::sleep(std::time::Duration::from_millis(10));
    std::fs::write(&file, "yz").unwrap();
    assert_ne!(c, seen(&request("/n", "host"), &file, none).unwrap());
    // No package.json beside the bin: nothing to key on, never started directly.
    std::fs::remove_file(&manifest).unwrap();
    assert_eq!(seen(&request("/n", "host"), &file, none), None);
    std::fs::remove_dir_all(&dir).unwrap();
}
