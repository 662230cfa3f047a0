//! What the native launcher reads of its arguments.

use mcp_ordered_dispatch_launcher::{parse_request, Ask, Request};
use std::ffi::OsString;
use std::path::PathBuf;

fn os(items: &[&str]) -> Vec<OsString> {
    items.iter().map(OsString::from).collect()
}

fn start(argv: &[&str]) -> Request {
    match parse_request(os(argv)).unwrap() {
        Ask::Start(request) => request,
        other => panic!("not a start: {other:?}"),
    }
}

#[test]
fn reads_a_request() {
    let r = start(&[
        "--node=/n",
        "--cli=/c",
        "--plans=/r",
        "--",
        "claude",
        "-p",
        "--x",
    ]);
    assert_eq!(r.node, PathBuf::from("/n"));
    assert_eq!(r.cli, PathBuf::from("/c"));
    assert_eq!(r.plans, Some(PathBuf::from("/r")));
    assert_eq!(r.command, "claude");
    assert_eq!(r.args, os(&["-p", "--x"]));
    let r = start(&["--node=/n", "--cli=/c", "claude", "--"]);
    assert_eq!(
        (r.plans, r.command, r.args),
        (None, OsString::from("claude"), os(&["--"]))
    );
}

#[test]
fn reads_an_exec() {
    assert_eq!(
        parse_request(os(&["--exec=/bin/host", "--", "host", "a", "--b"])).unwrap(),
        Ask::Exec {
            file: PathBuf::from("/bin/host"),
            argv: os(&["host", "a", "--b"])
        }
    );
}

#[cfg(unix)]
#[test]
fn keeps_the_bytes_of_a_command_and_its_arguments() {
    use std::os::unix::ffi::OsStringExt;
    let bytes = OsString::from_vec(vec![0xff, 0xfe]);
    let argv = vec![
        OsString::from("--node=/n"),
        OsString::from("--cli=/c"),
        bytes.clone(),
        bytes.clone(),
    ];
    let Ask::Start(r) = parse_request(argv).unwrap() else {
        panic!("not a start")
    };
    assert_eq!((r.command, r.args), (bytes.clone(), vec![bytes]));
}

#[test]
fn refuses_a_request_it_cannot_read() {
    let error = |argv: &[&str]| parse_request(os(argv)).unwrap_err();
    assert!(error(&["--cli=/c", "--", "x"]).contains("--node is missing"));
    assert!(error(&["--node=/n", "--cli=/c", "--"]).contains("no command after"));
    assert!(error(&["--node=/n", "--cli=/c", "--report", "x"]).contains("unknown option --report"));
}
