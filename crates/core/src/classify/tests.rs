//! The classifier's unit tests.

use super::*;
use crate::view::SerdeView;
use serde_json::{json, Value};

fn c(v: Value) -> Classification {
    classify(&SerdeView::new(&v), Profile::V1)
}

fn c2(v: Value) -> Classification {
    classify(&SerdeView::new(&v), Profile::V2)
}

#[track_caller]
fn invalid(v: Value) -> String {
    match c(v.clone()) {
        Classification::Invalid(r) => r,
        other => panic!("expected invalid for {v}, got {other:?}"),
    }
}

#[test]
fn valid_messages() {
    assert_eq!(
        c(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
        Classification::Result
    );
    assert_eq!(
        c(json!({"jsonrpc": "2.0", "id": "a", "result": {"x": [1]}})),
        Classification::Result
    );
    assert_eq!(
        c(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "m"}})),
        Classification::Error
    );
    assert_eq!(
        c(json!({"jsonrpc": "2.0", "error": {"code": 1, "message": "", "data": null}})),
        Classification::Error
    );
    assert_eq!(
        c(json!({"jsonrpc": "2.0", "id": 0, "method": "ping"})),
        Classification::Request
    );
    assert_eq!(
        c(json!({"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "n"}})),
        Classification::Request
    );
    assert_eq!(
        c(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
        Classification::Notification
    );
    assert_eq!(
        c(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                 "params": {"progressToken": 1.5, "progress": 1}})),
        Classification::Notification
    );
}

#[test]
fn names() {
    assert_eq!(Classification::Result.name(), "result");
    assert_eq!(Classification::Error.name(), "error");
    assert_eq!(Classification::Request.name(), "request");
    assert_eq!(Classification::Notification.name(), "notification");
    assert_eq!(Classification::Invalid(String::new()).name(), "invalid");
}

#[test]
fn non_objects() {
    for v in [
        json!(null),
        json!([]),
        json!([{"jsonrpc": "2.0", "method": "x"}]),
        json!("s"),
        json!(1),
        json!(true),
    ] {
        let r = invalid(v);
        assert!(r.starts_with("a JSON-RPC message must be an object"), "{r}");
    }
    assert_eq!(
        invalid(json!(null)),
        "a JSON-RPC message must be an object (got null)"
    );
    assert_eq!(
        invalid(json!([])),
        "a JSON-RPC message must be an object (got an array)"
    );
    let r = classify(&SerdeView(None), Profile::V1);
    assert_eq!(
        r,
        Classification::Invalid("a JSON-RPC message must be an object (got undefined)".into())
    );
}

#[test]
fn jsonrpc_version() {
    assert_eq!(
        invalid(json!({"id": 1, "method": "x"})),
        "missing \"jsonrpc\": \"2.0\""
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "1.0", "id": 1, "method": "x"})),
        "\"jsonrpc\" must be \"2.0\" (got a string)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": 2.0, "id": 1, "method": "x"})),
        "\"jsonrpc\" must be \"2.0\" (got the number 2)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": null, "method": "x"})),
        "\"jsonrpc\" must be \"2.0\" (got null)"
    );
    // jsonrpc is checked before unexpected keys
    assert_eq!(invalid(json!({"foo": 1})), "missing \"jsonrpc\": \"2.0\"");
    assert_eq!(invalid(json!({})), "missing \"jsonrpc\": \"2.0\"");
}

#[test]
fn strict_keys() {
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "method": "x", "foo": 1})),
        "unexpected key \"foo\""
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "result": {}, "extra": null})),
        "unexpected key \"extra\""
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "error": {"code": 1, "message": "m"}, "x": 1})),
        "unexpected key \"x\""
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "method": "m", "__proto__": {}})),
        "unexpected key \"__proto__\""
    );
    let long = "k".repeat(200);
    let r = invalid(json!({"jsonrpc": "2.0", "method": "m", long: 1}));
    assert!(
        r.starts_with("unexpected key \"kkk") && r.ends_with('…'),
        "{r}"
    );
    assert!(r.len() < 100);
}

#[test]
fn mixed_shapes() {
    assert_eq!(
        invalid(
            json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}})
        ),
        "a response cannot have both \"result\" and \"error\""
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "result": {}, "method": "x"})),
        "a message cannot have both \"method\" and \"result\""
    );
    assert_eq!(
        invalid(
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m"}, "method": "x"})
        ),
        "a message cannot have both \"method\" and \"error\""
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "result": {}, "params": {}})),
        "unexpected key \"params\" in a response"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1})),
        "missing \"method\" (request or notification) or \"result\"/\"error\" (response)"
    );
}

#[test]
fn ids() {
    for id in [
        json!(0),
        json!(-1),
        json!(9007199254740991i64),
        json!(""),
        json!("abc"),
        json!(1.0),
    ] {
        assert_eq!(
            c(json!({"jsonrpc": "2.0", "id": id, "method": "x"})),
            Classification::Request,
            "{id}"
        );
        assert_eq!(
            c(json!({"jsonrpc": "2.0", "id": id, "result": {}})),
            Classification::Result,
            "{id}"
        );
        assert_eq!(
            c(json!({"jsonrpc": "2.0", "id": id, "error": {"code": 0, "message": ""}})),
            Classification::Error,
            "{id}"
        );
    }
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1.5, "method": "x"})),
        "\"id\" must be a string or an integer (got 1.5)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 9007199254740992i64, "method": "x"})),
        "\"id\" must be a string or an integer (got 9007199254740992, outside the safe integer range)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": null, "method": "x"})),
        "\"id\" must be a string or an integer (got null)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": {}, "result": {}})),
        "\"id\" must be a string or an integer (got an object)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": [1], "result": {}})),
        "\"id\" must be a string or an integer (got an array)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": true, "error": {"code": 1, "message": "m"}})),
        "\"id\" must be a string or an integer (got a boolean)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "result": {}})),
        "missing \"id\""
    );
    // a null id is not allowed on error responses either (zod: optional, not nullable)
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": null, "error": {"code": 1, "message": "m"}})),
        "\"id\" must be a string or an integer (got null)"
    );
}

#[test]
fn results() {
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "result": null})),
        "\"result\" must be an object (got null)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "result": []})),
        "\"result\" must be an object (got an array)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "result": "ok"})),
        "\"result\" must be an object (got a string)"
    );
    assert_eq!(
        c(json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": {}}})),
        Classification::Result
    );
    assert_eq!(
        c(
            json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": {"progressToken": "t", "other": 1}}})
        ),
        Classification::Result
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": 1}})),
        "\"result._meta\" must be an object (got the number 1)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": {"progressToken": 1.5}}})),
        "\"result._meta.progressToken\" must be a string or an integer (got 1.5)"
    );
}

#[test]
fn result_meta_profiles() {
    let m = json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": {"progressToken": null}}});
    assert!(matches!(c(m.clone()), Classification::Invalid(_)));
    assert_eq!(c2(m), Classification::Result);
    let m = json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": {RELATED_TASK_META_KEY: 1}}});
    assert!(matches!(c(m.clone()), Classification::Invalid(_)));
    assert_eq!(c2(m), Classification::Result);
    let m = json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": []}});
    assert_eq!(
        c2(m),
        Classification::Invalid("\"result._meta\" must be an object (got an array)".into())
    );
    let m = json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": {"serverInfo": 5}}});
    assert_eq!(c2(m.clone()), Classification::Result);
    assert_eq!(c(m), Classification::Result);
    // params._meta is checked the same way under both profiles
    let m = json!({"jsonrpc": "2.0", "method": "m", "params": {"_meta": {"progressToken": false}}});
    assert!(matches!(c2(m), Classification::Invalid(_)));
}

#[test]
fn errors() {
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "error": null})),
        "\"error\" must be an object (got null)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "error": {"message": "m"}})),
        "missing \"error.code\""
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "1", "message": "m"}})),
        "\"error.code\" must be an integer (got a string)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1.5, "message": "m"}})),
        "\"error.code\" must be an integer (got 1.5)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1}})),
        "missing \"error.message\""
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": 2}})),
        "\"error.message\" must be a string (got the number 2)"
    );
    // error is not strict: extra keys are fine, data can be anything
    assert_eq!(
        c(
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m", "data": [1], "x": 2}})
        ),
        Classification::Error
    );
}

#[test]
fn methods_and_params() {
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "method": 1})),
        "\"method\" must be a string (got the number 1)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "method": null})),
        "\"method\" must be a string (got null)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "method": "m", "params": []})),
        "\"params\" must be an object (got an array)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 2, "method": "m", "params": null})),
        "\"params\" must be an object (got null)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "method": "m", "params": "p"})),
        "\"params\" must be an object (got a string)"
    );
    assert_eq!(
        c(
            json!({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"_meta": {"progressToken": 7}}})
        ),
        Classification::Request
    );
    assert_eq!(
        c(
            json!({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"_meta": {"progressToken": "t", "x": {}}}})
        ),
        Classification::Request
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"_meta": null}})),
        "\"params._meta\" must be an object (got null)"
    );
    assert_eq!(
        invalid(
            json!({"jsonrpc": "2.0", "method": "m", "params": {"_meta": {"progressToken": 1.25}}})
        ),
        "\"params._meta.progressToken\" must be a string or an integer (got 1.25)"
    );
    assert_eq!(
        invalid(
            json!({"jsonrpc": "2.0", "method": "m", "params": {"_meta": {"progressToken": {}}}})
        ),
        "\"params._meta.progressToken\" must be a string or an integer (got an object)"
    );
    assert_eq!(
        c(
            json!({"jsonrpc": "2.0", "method": "m", "params": {"_meta": {RELATED_TASK_META_KEY: {"taskId": "t", "x": 1}}}})
        ),
        Classification::Notification
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "method": "m", "params": {"_meta": {RELATED_TASK_META_KEY: {"taskId": 1}}}})),
        "\"params._meta[\"io.modelcontextprotocol/related-task\"].taskId\" must be a string (got the number 1)"
    );
    assert_eq!(
        invalid(json!({"jsonrpc": "2.0", "method": "m", "params": {"_meta": {RELATED_TASK_META_KEY: "t"}}})),
        "\"params._meta[\"io.modelcontextprotocol/related-task\"]\" must be an object (got a string)"
    );
    assert_eq!(
        invalid(
            json!({"jsonrpc": "2.0", "method": "m", "params": {"_meta": {RELATED_TASK_META_KEY: {}}}})
        ),
        "missing \"params._meta[\"io.modelcontextprotocol/related-task\"].taskId\""
    );
}

#[test]
fn js_number_format() {
    assert_eq!(js_number(1.0), "1");
    assert_eq!(js_number(-0.0), "-0");
    assert_eq!(js_number(1.5), "1.5");
    assert_eq!(js_number(f64::NAN), "NaN");
    assert_eq!(js_number(f64::INFINITY), "Infinity");
    assert_eq!(js_number(f64::NEG_INFINITY), "-Infinity");
    assert_eq!(js_number(9007199254740992.0), "9007199254740992");
}

/// A scripted view to exercise what serde_json cannot express:
/// `undefined` values, non-JSON kinds and read failures.
#[derive(Clone, Debug)]
enum Fake {
    Undef,
    Num(f64),
    Str(&'static str),
    Func,
    Obj(Vec<(&'static str, Fake)>),
    /// An object whose keys and properties cannot be read.
    Throws,
    /// A value whose read from its parent throws (a throwing getter).
    Unreadable,
    /// An object with enumerable entries and non-enumerable (or inherited
    /// non-enumerable) ones that only `get` sees.
    Hidden(Vec<(&'static str, Fake)>, Vec<(&'static str, Fake)>),
}

impl JsonView for Fake {
    fn kind(&self) -> Kind {
        match self {
            Fake::Undef => Kind::Undefined,
            Fake::Num(n) => Kind::Number(*n),
            Fake::Str(_) => Kind::String,
            Fake::Func => Kind::Function,
            Fake::Obj(_) | Fake::Throws | Fake::Unreadable | Fake::Hidden(..) => Kind::Object,
        }
    }
    fn string_eq(&self, expected: &str) -> Option<bool> {
        match self {
            Fake::Str(s) => Some(*s == expected),
            _ => None,
        }
    }
    fn get(&self, key: &str) -> Result<Self, ViewError> {
        match self {
            Fake::Obj(entries) => Ok(entries
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone())
                .unwrap_or(Fake::Undef)),
            Fake::Throws => Err(ViewError("getter threw".into())),
            Fake::Hidden(visible, hidden) => Ok(visible
                .iter()
                .chain(hidden.iter())
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.clone())
                .unwrap_or(Fake::Undef)),
            _ => Ok(Fake::Undef),
        }
    }
    fn for_each_key<F>(&self, mut f: F) -> Result<(), ViewError>
    where
        F: FnMut(&str, &dyn Fn() -> Result<Self, ViewError>) -> Result<bool, ViewError>,
    {
        match self {
            Fake::Obj(entries) | Fake::Hidden(entries, _) => {
                for (k, v) in entries {
                    let get = || match v {
                        Fake::Unreadable => Err(ViewError(format!("reading {k:?} threw"))),
                        other => Ok(other.clone()),
                    };
                    if !f(k, &get)? {
                        break;
                    }
                }
                Ok(())
            }
            Fake::Throws => Err(ViewError("ownKeys trap threw".into())),
            _ => Ok(()),
        }
    }
}

fn fc(f: Fake) -> Classification {
    classify(&f, Profile::V1)
}

const V: (&str, Fake) = ("jsonrpc", Fake::Str("2.0"));

#[test]
fn undefined_optional_fields_count_as_absent() {
    use Fake::*;
    // params: undefined
    assert_eq!(
        fc(Obj(vec![
            V,
            ("id", Num(1.0)),
            ("method", Str("m")),
            ("params", Undef)
        ])),
        Classification::Request
    );
    assert_eq!(
        fc(Obj(vec![V, ("method", Str("m")), ("params", Undef)])),
        Classification::Notification
    );
    // error response with id: undefined
    assert_eq!(
        fc(Obj(vec![
            V,
            ("id", Undef),
            (
                "error",
                Obj(vec![
                    ("code", Num(1.0)),
                    ("message", Str("m")),
                    ("data", Undef)
                ])
            )
        ])),
        Classification::Error
    );
    // _meta / progressToken undefined
    assert_eq!(
        fc(Obj(vec![
            V,
            ("method", Str("m")),
            (
                "params",
                Obj(vec![("_meta", Obj(vec![("progressToken", Undef)]))])
            )
        ])),
        Classification::Notification
    );
    assert_eq!(
        fc(Obj(vec![
            V,
            ("id", Num(1.0)),
            ("result", Obj(vec![("_meta", Undef)]))
        ])),
        Classification::Result
    );
}

#[test]
fn undefined_required_fields_and_strict_keys() {
    use Fake::*;
    // a key with value undefined is still a key for .strict()
    assert_eq!(
        fc(Obj(vec![V, ("method", Str("m")), ("foo", Undef)])),
        Classification::Invalid("unexpected key \"foo\"".into())
    );
    // id: undefined on a request: the request schema needs an id, and the
    // notification schema has no "id" key.
    assert_eq!(
        fc(Obj(vec![V, ("id", Undef), ("method", Str("m"))])),
        Classification::Invalid("missing \"id\"".into())
    );
    assert_eq!(
        fc(Obj(vec![V, ("id", Undef), ("result", Obj(vec![]))])),
        Classification::Invalid("missing \"id\"".into())
    );
    assert_eq!(
        fc(Obj(vec![V, ("id", Num(1.0)), ("result", Undef)])),
        Classification::Invalid("missing \"result\"".into())
    );
    assert_eq!(
        fc(Obj(vec![
            V,
            ("id", Num(1.0)),
            ("result", Obj(vec![])),
            ("error", Undef)
        ])),
        Classification::Invalid("a response cannot have both \"result\" and \"error\"".into())
    );
    assert_eq!(
        fc(Obj(vec![V, ("error", Undef)])),
        Classification::Invalid("missing \"error\"".into())
    );
    assert_eq!(
        fc(Obj(vec![V, ("method", Undef)])),
        Classification::Invalid("missing \"method\"".into())
    );
    assert_eq!(
        fc(Obj(vec![("jsonrpc", Undef), ("method", Str("m"))])),
        Classification::Invalid("missing \"jsonrpc\": \"2.0\"".into())
    );
    // params present (even undefined) is not allowed on a response
    assert_eq!(
        fc(Obj(vec![
            V,
            ("id", Num(1.0)),
            ("result", Obj(vec![])),
            ("params", Undef)
        ])),
        Classification::Invalid("unexpected key \"params\" in a response".into())
    );
}

#[test]
fn functions_are_not_objects() {
    use Fake::*;
    assert_eq!(
        fc(Func),
        Classification::Invalid("a JSON-RPC message must be an object (got a function)".into())
    );
    assert_eq!(
        fc(Obj(vec![V, ("id", Num(1.0)), ("result", Func)])),
        Classification::Invalid("\"result\" must be an object (got a function)".into())
    );
    assert_eq!(
        fc(Obj(vec![V, ("method", Str("m")), ("params", Func)])),
        Classification::Invalid("\"params\" must be an object (got a function)".into())
    );
}

#[test]
fn non_finite_numbers() {
    use Fake::*;
    assert_eq!(
        fc(Obj(vec![V, ("id", Num(f64::NAN)), ("method", Str("m"))])),
        Classification::Invalid("\"id\" must be a string or an integer (got NaN)".into())
    );
    assert_eq!(
        fc(Obj(vec![
            V,
            ("id", Num(f64::INFINITY)),
            ("method", Str("m"))
        ])),
        Classification::Invalid("\"id\" must be a string or an integer (got Infinity)".into())
    );
}

#[test]
fn read_failures_are_invalid() {
    use Fake::*;
    assert_eq!(
        fc(Throws),
        Classification::Invalid("could not read the message: ownKeys trap threw".into())
    );
    assert_eq!(
        fc(Obj(vec![V, ("method", Unreadable)])),
        Classification::Invalid("could not read the message: reading \"method\" threw".into())
    );
    assert_eq!(
        fc(Obj(vec![V, ("method", Str("m")), ("params", Throws)])),
        Classification::Invalid("could not read the message: getter threw".into())
    );
}

#[test]
fn fields_are_read_like_zod_keys_are_listed_like_for_in() {
    use Fake::*;
    // zod reads `input.jsonrpc` even when it is not enumerable
    assert_eq!(
        fc(Hidden(
            vec![("method", Str("m"))],
            vec![("jsonrpc", Str("2.0"))]
        )),
        Classification::Notification
    );
    // a non-enumerable id makes it a request (the request schema is tried
    // first and reads `input.id`), not a notification
    assert_eq!(
        fc(Hidden(
            vec![V, ("method", Str("m"))],
            vec![("id", Num(5.0))]
        )),
        Classification::Request
    );
    // ... and an invalid non-enumerable id does not spoil the notification
    assert_eq!(
        fc(Hidden(
            vec![V, ("method", Str("m"))],
            vec![("id", Num(1.5))]
        )),
        Classification::Notification
    );
    // non-enumerable params are still validated
    assert_eq!(
        fc(Hidden(
            vec![V, ("method", Str("m"))],
            vec![("params", Str("x"))]
        )),
        Classification::Invalid("\"params\" must be an object (got a string)".into())
    );
    // non-enumerable keys outside the schema are invisible to .strict()
    assert_eq!(
        fc(Hidden(
            vec![V, ("id", Num(1.0)), ("result", Obj(vec![]))],
            vec![("error", Num(1.0)), ("foo", Num(1.0))]
        )),
        Classification::Result
    );
    // a non-enumerable result with only jsonrpc and id enumerable
    assert_eq!(
        fc(Hidden(
            vec![V, ("id", Num(1.0))],
            vec![("result", Obj(vec![]))]
        )),
        Classification::Result
    );
    assert_eq!(
        fc(Hidden(vec![V, ("id", Num(1.0))], vec![])),
        Classification::Invalid(
            "missing \"method\" (request or notification) or \"result\"/\"error\" (response)"
                .into()
        )
    );
}
