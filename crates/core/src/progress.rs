//! The progress fast path's check, in the pure core.
//!
//! The SDK validates every `notifications/progress` with zod before its own
//! progress logic sees it (1.x `ProgressNotificationSchema`, 2.x the era
//! codec). For the plain shape every real server sends — params with exactly
//! `progressToken`, `progress` and optionally `total` and `message`, nothing
//! else — the result of that parse is fully determined: the same values, with
//! `jsonrpc` stripped. A notification that passes [`plain_progress`] can
//! therefore go straight to the progress logic; anything else (a `_meta`, an
//! extra key, an odd type) takes the SDK's own path.

use super::view::{is_safe_integer, JsonView, Kind};

/// True if `message` (already classified as a notification) is a
/// `notifications/progress` whose params have the plain shape.
pub fn plain_progress<V: JsonView>(message: &V) -> bool {
    check(message).unwrap_or(false)
}

fn finite(v: &impl JsonView) -> bool {
    matches!(v.as_number(), Some(n) if n.is_finite())
}

fn check<V: JsonView>(message: &V) -> Option<bool> {
    if message
        .get("method")
        .ok()?
        .string_eq("notifications/progress")
        != Some(true)
    {
        return Some(false);
    }
    let params = message.get("params").ok()?;
    if params.kind() != Kind::Object {
        return Some(false);
    }
    let mut plain = true;
    let (mut token, mut progress) = (false, false);
    params
        .for_each_key(|key, value| {
            let v = value()?;
            let ok = match key {
                "progressToken" => {
                    token = true;
                    v.is_string() || matches!(v.as_number(), Some(n) if is_safe_integer(n))
                }
                "progress" => {
                    progress = true;
                    finite(&v)
                }
                "total" => finite(&v),
                "message" => v.is_string(),
                _ => false,
            };
            plain &= ok;
            Ok(ok)
        })
        .ok()?;
    Some(plain && token && progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::SerdeView;
    use serde_json::json;

    fn plain(v: serde_json::Value) -> bool {
        plain_progress(&SerdeView::new(&v))
    }

    #[test]
    fn the_plain_shape_passes() {
        assert!(plain(
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}})
        ));
        assert!(plain(
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2,"total":3,"message":"m"}})
        ));
    }

    #[test]
    fn anything_unusual_takes_the_sdk_path() {
        for v in [
            json!({"jsonrpc":"2.0","method":"notifications/message","params":{"progressToken":1,"progress":1}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress"}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1.5,"progress":1}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":null,"progress":1}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":"1"}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"total":"3"}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"message":3}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"_meta":{}}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1,"extra":true}}),
            json!({"jsonrpc":"2.0","method":"notifications/progress","params":[1]}),
        ] {
            assert!(!plain(v.clone()), "{v}");
        }
    }
}
