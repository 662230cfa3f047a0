//! A plan file read back: started directly only for the start it was made for, with none but the contract's variables.

use mcp_ordered_dispatch_launcher::{contract, plan_file_name, plan_of, Direct, Plan};
use std::ffi::{OsStr, OsString};
use std::path::Path;

fn plan_text(extra: &str) -> String {
    format!(
        r#"{{"v":{},"seen":"S","cwd":null,"direct":true,"file":"/bin/host","argv0":"host","set":{{"BUN_OPTIONS":"--preload=/p.mjs"}},"notice":null{extra}}}"#,
        contract().version
    )
}

fn of(text: &str) -> Option<Plan> {
    plan_of(text, "S", Path::new("/w"), Path::new("/bin/host"))
}

#[test]
fn names_plan_files_by_command() {
    assert_eq!(
        plan_file_name(OsStr::new("claude")).as_deref(),
        Some("run-636c61756465.json")
    );
    assert_eq!(plan_file_name(OsStr::new("")), None);
    assert_eq!(plan_file_name(&OsString::from("x".repeat(121))), None);
}

#[test]
fn starts_directly_only_what_was_planned_for_this_start() {
    let text = plan_text("");
    assert_eq!(
        of(&text),
        Some(Plan::Direct(Direct {
            argv0: "host".into(),
            set: vec![("BUN_OPTIONS".into(), "--preload=/p.mjs".into())],
            notice: None,
        }))
    );
    assert_eq!(
        plan_of(&text, "T", Path::new("/w"), Path::new("/bin/host")),
        None
    );
    let other_version = text.replace(&format!("\"v\":{}", contract().version), "\"v\":1");
    assert_eq!(of(&other_version), None);
    assert_eq!(of(&text.replace("\"--preload=/p.mjs\"", "3")), None);
    assert_eq!(of("{"), None);
    let noticed = text.replace("\"notice\":null", "\"notice\":\"one line\"");
    let Some(Plan::Direct(direct)) = of(&noticed) else {
        panic!("not started directly")
    };
    assert_eq!(direct.notice.as_deref(), Some("one line"));
}

#[test]
fn starts_directly_only_the_file_it_resolved() {
    let text = plan_text("");
    assert_eq!(of(&text.replace("/bin/host", "/tmp/other")), None);
}

#[test]
fn sets_no_variable_outside_the_contract() {
    let text = plan_text("").replace("BUN_OPTIONS", "LD_PRELOAD");
    assert_eq!(of(&text), None);
    for name in &contract().direct_may_set {
        assert!(
            of(&plan_text("").replace("BUN_OPTIONS", name)).is_some(),
            "{name}"
        );
    }
}

#[test]
fn the_working_directory_counts_where_the_plan_says_so() {
    let text = plan_text("").replace("\"cwd\":null", "\"cwd\":\"/w\"");
    assert!(of(&text).is_some());
    assert_eq!(
        plan_of(&text, "S", Path::new("/elsewhere"), Path::new("/bin/host")),
        None
    );
    assert!(plan_of(
        &plan_text(""),
        "S",
        Path::new("/elsewhere"),
        Path::new("/bin/host")
    )
    .is_some());
}

#[test]
fn a_plan_no_direct_start_reproduces_goes_through_run() {
    let text = format!(
        r#"{{"v":{},"seen":"S","cwd":null,"direct":false}}"#,
        contract().version
    );
    assert_eq!(of(&text), Some(Plan::ThroughRun));
}

#[test]
fn the_contract_is_whole() {
    let c = contract();
    assert!(c.plan_reads.contains(&"NODE_OPTIONS".to_string()));
    assert!(c
        .direct_may_set
        .iter()
        .all(|name| c.plan_reads.contains(name)));
    assert!(c.seen_variable.starts_with("MCP_ORDERED_DISPATCH_"));
    assert!(c.max_plan_bytes >= 65536);
}
