//! The flags a Node of ours is started with, from the user's NODE_OPTIONS
//! (lib/run/launcher-contract.json's inspectorOff).

use mcp_ordered_dispatch_launcher::inspector_off;

#[test]
fn no_inspector_flag_adds_nothing() {
    assert!(inspector_off("").is_empty());
    assert!(inspector_off("--max-old-space-size=4096 --require=/x/register.cjs").is_empty());
    // The port alone opens nothing.
    assert!(inspector_off("--inspect-port=9229").is_empty());
    // Another flag that starts alike is not the flag.
    assert!(inspector_off("--inspect-publish-uid=http").is_empty());
}

#[test]
fn each_flag_alone_or_with_a_value_is_kept_shut() {
    assert_eq!(inspector_off("--inspect"), ["--no-inspect"]);
    assert_eq!(inspector_off("--inspect=127.0.0.1:9339"), ["--no-inspect"]);
    assert_eq!(
        inspector_off("--inspect-brk=9339"),
        ["--no-inspect", "--no-inspect-brk"]
    );
    assert_eq!(
        inspector_off("  --inspect-wait  "),
        ["--no-inspect", "--no-inspect-wait"]
    );
}

#[test]
fn several_flags_give_each_negation_once_in_order() {
    assert_eq!(
        inspector_off("--inspect-port=1 --inspect-wait --require x --inspect-brk --inspect"),
        ["--no-inspect", "--no-inspect-wait", "--no-inspect-brk"]
    );
}
