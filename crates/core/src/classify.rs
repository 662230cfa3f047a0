//! JSON-RPC 2.0 message classification mirroring the MCP TypeScript SDK.
//!
//! The SDK (1.x `types.js`, 2.x `@modelcontextprotocol/core` `schemas`) routes
//! an inbound message with four zod schemas, tested in this order:
//!
//! 1. `JSONRPCResultResponseSchema` — `.strict()` `{jsonrpc, id, result}`
//! 2. `JSONRPCErrorResponseSchema` — `.strict()` `{jsonrpc, id?, error}`
//! 3. `JSONRPCRequestSchema` — `.strict()` `{jsonrpc, id, method, params?}`
//! 4. `JSONRPCNotificationSchema` — `.strict()` `{jsonrpc, method, params?}`
//!
//! and treats anything else as an unknown message. Details replicated here:
//!
//! * "object" means zod 4's `isObject`: `typeof v === "object"`, not `null`,
//!   not an array (so functions are rejected);
//! * `jsonrpc` is `z.literal("2.0")` (a primitive string, compared exactly);
//! * `id` (and `progressToken`, `error.code`) is `z.string()` or
//!   `z.number().int()`, which in zod 4 means a *safe* integer;
//! * `.strict()` rejects any enumerable string key (own or inherited, as
//!   `for...in` sees them) outside the schema, *whatever its value*, while an
//!   optional field whose value is `undefined` counts as absent;
//! * `params` is a loose object whose optional `_meta` is a loose object with
//!   optional `progressToken` (string | integer) and optional
//!   `"io.modelcontextprotocol/related-task"` (`{ taskId: string }`);
//! * `result` is a loose object with optional `_meta`: in SDK 1.x that `_meta`
//!   has the same checks as `params._meta`; in 2.x it only has to be an object
//!   (its one typed key, `serverInfo`, is wrapped in `.catch()` and never
//!   fails). Select with [`Profile`];
//! * `error` is a (non-strict) object with integer `code`, string `message`
//!   and optional `data` of any type.
//!
//! Because every schema is strict and the discriminating keys are required,
//! at most one schema can match; the precedence only matters for choosing the
//! reason reported for an invalid message.

use super::view::{is_safe_integer, JsonView, Kind, ViewError};

/// The `_meta` key that links a message to a task.
pub const RELATED_TASK_META_KEY: &str = "io.modelcontextprotocol/related-task";

/// What an inbound message is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classification {
    /// A result response (`JSONRPCResultResponse`).
    Result,
    /// An error response (`JSONRPCErrorResponse`).
    Error,
    /// A request (`JSONRPCRequest`).
    Request,
    /// A notification (`JSONRPCNotification`).
    Notification,
    /// Not a valid JSON-RPC 2.0 message; the reason says why.
    Invalid(String),
}

impl Classification {
    /// The name used by the JavaScript `classify()` function.
    pub fn name(&self) -> &'static str {
        match self {
            Classification::Result => "result",
            Classification::Error => "error",
            Classification::Request => "request",
            Classification::Notification => "notification",
            Classification::Invalid(_) => "invalid",
        }
    }
}

/// Which SDK's schema variant to mirror where 1.x and 2.x differ (only the
/// checks on `result._meta`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// `@modelcontextprotocol/sdk` 1.x: `result._meta` is a `RequestMeta`
    /// (`progressToken` and related-task are type-checked).
    #[default]
    V1,
    /// `@modelcontextprotocol/core` 2.x: `result._meta` only has to be an object.
    V2,
}

/// Classifies a message. Never panics on any input.
pub fn classify<V: JsonView>(message: &V, profile: Profile) -> Classification {
    match classify_inner(message, profile) {
        Ok(c) => c,
        Err(bad) => Classification::Invalid(bad.into_reason()),
    }
}

/// Why a schema did not match. Formatted only if it ends up being reported:
/// a valid notification, for instance, first fails the request schema, and
/// that must not cost an allocation.
enum Bad {
    /// `"field" must be WHAT (got KIND)`, or `missing "field"` when undefined.
    MustBe {
        field: &'static str,
        what: &'static str,
        got: Kind,
    },
    /// A number that is not a (safe) integer.
    NotInteger {
        field: &'static str,
        what: &'static str,
        n: f64,
    },
    Static(&'static str),
    Text(String),
}

impl Bad {
    fn into_reason(self) -> String {
        match self {
            Bad::MustBe { field, what, got } => must_be(field, what, got),
            Bad::NotInteger { field, what, n } => bad_integer(field, what, n),
            Bad::Static(s) => s.to_owned(),
            Bad::Text(s) => s,
        }
    }
}

impl From<ViewError> for Bad {
    fn from(e: ViewError) -> Self {
        Bad::Text(format!("could not read the message: {e}"))
    }
}

type Check<T = ()> = Result<T, Bad>;

fn bad<T>(reason: impl Into<String>) -> Check<T> {
    Err(Bad::Text(reason.into()))
}

fn bad_static<T>(reason: &'static str) -> Check<T> {
    Err(Bad::Static(reason))
}

fn must<T>(field: &'static str, what: &'static str, got: Kind) -> Check<T> {
    Err(Bad::MustBe { field, what, got })
}

fn not_integer<T>(field: &'static str, what: &'static str, n: f64) -> Check<T> {
    Err(Bad::NotInteger { field, what, n })
}

const JSONRPC: usize = 0;
const ID: usize = 1;
const RESULT: usize = 2;
const ERROR: usize = 3;
const METHOD: usize = 4;
const PARAMS: usize = 5;
const NAMES: [&str; 6] = ["jsonrpc", "id", "result", "error", "method", "params"];

const fn bit(i: usize) -> u8 {
    1 << i
}

/// The key set of each `.strict()` schema.
const RESULT_KEYS: u8 = bit(JSONRPC) | bit(ID) | bit(RESULT);
const ERROR_KEYS: u8 = bit(JSONRPC) | bit(ID) | bit(ERROR);
const REQUEST_KEYS: u8 = bit(JSONRPC) | bit(ID) | bit(METHOD) | bit(PARAMS);
const NOTIFICATION_KEYS: u8 = bit(JSONRPC) | bit(METHOD) | bit(PARAMS);

/// The top-level fields of a message.
///
/// zod reads a schema field as `input[key]` (own or inherited, enumerable or
/// not), while `.strict()` looks at the `for...in` keys. So: `keys` records the
/// known keys that `for...in` yields (their values are read during the same
/// pass), `unexpected` the first unknown one, and a field that `for...in` did
/// not yield is looked up with [`JsonView::get`] only if a schema needs it.
struct Fields<'m, V> {
    message: &'m V,
    values: [Option<V>; 6],
    keys: u8,
    unexpected: Option<String>,
}

impl<V: JsonView> Fields<'_, V> {
    fn has(&self, field: usize) -> bool {
        self.keys & bit(field) != 0
    }

    fn value(&mut self, field: usize) -> Check<&V> {
        if self.values[field].is_none() {
            self.values[field] = Some(self.message.get(NAMES[field])?);
        }
        Ok(self.values[field].as_ref().expect("just filled"))
    }
}

fn collect<V: JsonView>(message: &V) -> Check<Fields<'_, V>> {
    let mut fields = Fields {
        message,
        values: [None, None, None, None, None, None],
        keys: 0,
        unexpected: None,
    };
    message.for_each_key(|key, value| {
        let field = match key {
            "jsonrpc" => JSONRPC,
            "id" => ID,
            "result" => RESULT,
            "error" => ERROR,
            "method" => METHOD,
            "params" => PARAMS,
            other => {
                if fields.unexpected.is_none() {
                    fields.unexpected = Some(other.to_owned());
                }
                return Ok(true);
            }
        };
        fields.keys |= bit(field);
        fields.values[field] = Some(value()?);
        Ok(true)
    })?;
    Ok(fields)
}

fn classify_inner<V: JsonView>(message: &V, profile: Profile) -> Check<Classification> {
    let kind = message.kind();
    if kind != Kind::Object {
        return bad(format!(
            "a JSON-RPC message must be an object (got {})",
            describe(kind)
        ));
    }
    let mut f = collect(message)?;

    // Common to all four schemas.
    let jsonrpc = f.value(JSONRPC)?;
    match jsonrpc.string_eq("2.0") {
        Some(true) => {}
        _ => {
            let kind = jsonrpc.kind();
            return if kind == Kind::Undefined {
                bad_static("missing \"jsonrpc\": \"2.0\"")
            } else {
                bad(format!(
                    "\"jsonrpc\" must be \"2.0\" (got {})",
                    describe(kind)
                ))
            };
        }
    }
    if let Some(key) = &f.unexpected {
        return bad(format!("unexpected key {}", quote(key)));
    }

    // The SDK's order. A schema whose key set does not contain every key that
    // is present cannot match (`.strict()`), so it is skipped unread.
    let keys = f.keys;
    let viable = |schema_keys: u8| keys & !schema_keys == 0;
    let mut reasons: [Option<Bad>; 4] = [None, None, None, None];
    if viable(RESULT_KEYS) {
        match check_result_response(&mut f, profile) {
            Ok(()) => return Ok(Classification::Result),
            Err(r) => reasons[0] = Some(r),
        }
    }
    if viable(ERROR_KEYS) {
        match check_error_response(&mut f) {
            Ok(()) => return Ok(Classification::Error),
            Err(r) => reasons[1] = Some(r),
        }
    }
    if viable(REQUEST_KEYS) {
        match check_request(&mut f) {
            Ok(()) => return Ok(Classification::Request),
            Err(r) => reasons[2] = Some(r),
        }
    }
    if viable(NOTIFICATION_KEYS) {
        match check_notification(&mut f) {
            Ok(()) => return Ok(Classification::Notification),
            Err(r) => reasons[3] = Some(r),
        }
    }
    Err(choose_reason(&f, reasons))
}

/// Picks the reason of the schema the message most plausibly meant to match
/// (by the keys it has).
fn choose_reason<V: JsonView>(f: &Fields<'_, V>, reasons: [Option<Bad>; 4]) -> Bad {
    let [result, error, request, notification] = reasons;
    let picked = if f.has(RESULT) || f.has(ERROR) {
        if f.has(RESULT) && f.has(ERROR) {
            Some(Bad::Static(
                "a response cannot have both \"result\" and \"error\"",
            ))
        } else if f.has(METHOD) {
            Some(Bad::Static(if f.has(RESULT) {
                "a message cannot have both \"method\" and \"result\""
            } else {
                "a message cannot have both \"method\" and \"error\""
            }))
        } else if f.has(PARAMS) {
            Some(Bad::Static("unexpected key \"params\" in a response"))
        } else if f.has(RESULT) {
            result
        } else {
            error
        }
    } else if f.has(METHOD) {
        if f.has(ID) {
            request
        } else {
            notification
        }
    } else {
        None
    };
    picked.unwrap_or(Bad::Static(
        "missing \"method\" (request or notification) or \"result\"/\"error\" (response)",
    ))
}

/// `JSONRPCResultResponseSchema` (after `jsonrpc` and the key set).
fn check_result_response<V: JsonView>(f: &mut Fields<'_, V>, profile: Profile) -> Check {
    check_id(f.value(ID)?, true)?;
    check_result(f.value(RESULT)?, profile)
}

/// `JSONRPCErrorResponseSchema` (after `jsonrpc` and the key set).
fn check_error_response<V: JsonView>(f: &mut Fields<'_, V>) -> Check {
    check_id(f.value(ID)?, false)?;
    check_error(f.value(ERROR)?)
}

/// `JSONRPCRequestSchema` (after `jsonrpc` and the key set).
fn check_request<V: JsonView>(f: &mut Fields<'_, V>) -> Check {
    check_id(f.value(ID)?, true)?;
    check_notification(f)
}

/// `JSONRPCNotificationSchema` (after `jsonrpc` and the key set); also the
/// `method`/`params` part of a request.
fn check_notification<V: JsonView>(f: &mut Fields<'_, V>) -> Check {
    let method = f.value(METHOD)?;
    if !method.is_string() {
        return must("method", "a string", method.kind());
    }
    check_params(f.value(PARAMS)?)
}

/// `RequestIdSchema`: string or safe integer; `required` false means
/// `.optional()` (undefined passes).
fn check_id<V: JsonView>(id: &V, required: bool) -> Check {
    if let Some(n) = id.as_number() {
        return if is_safe_integer(n) {
            Ok(())
        } else {
            not_integer("id", "a string or an integer", n)
        };
    }
    if id.is_string() {
        return Ok(());
    }
    let kind = id.kind();
    if kind == Kind::Undefined && !required {
        return Ok(());
    }
    must("id", "a string or an integer", kind)
}

fn check_result<V: JsonView>(result: &V, profile: Profile) -> Check {
    let kind = result.kind();
    if kind != Kind::Object {
        return must("result", "an object", kind);
    }
    match profile {
        Profile::V1 => check_request_meta(result, &RESULT_META),
        Profile::V2 => {
            let meta = result.get("_meta")?;
            match meta.kind() {
                Kind::Undefined | Kind::Object => Ok(()),
                other => must("result._meta", "an object", other),
            }
        }
    }
}

fn check_error<V: JsonView>(error: &V) -> Check {
    let kind = error.kind();
    if kind != Kind::Object {
        return must("error", "an object", kind);
    }
    let code = error.get("code")?;
    match code.as_number() {
        Some(n) if is_safe_integer(n) => {}
        Some(n) => return not_integer("error.code", "an integer", n),
        None => return must("error.code", "an integer", code.kind()),
    }
    let message = error.get("message")?;
    if !message.is_string() {
        return must("error.message", "a string", message.kind());
    }
    // `data` is `z.unknown().optional()`: anything goes.
    Ok(())
}

/// `params`: `BaseRequestParamsSchema.loose().optional()` (requests) or
/// `NotificationsParamsSchema.loose().optional()` (notifications); both are
/// `{ _meta?: RequestMeta }`.
fn check_params<V: JsonView>(params: &V) -> Check {
    match params.kind() {
        Kind::Object => check_request_meta(params, &PARAMS_META),
        Kind::Undefined => Ok(()),
        other => must("params", "an object", other),
    }
}

/// The field paths used in reasons about a `_meta` (static, so that a failed
/// check allocates nothing until it is reported).
struct MetaPaths {
    meta: &'static str,
    token: &'static str,
    task: &'static str,
    task_id: &'static str,
}

const RESULT_META: MetaPaths = MetaPaths {
    meta: "result._meta",
    token: "result._meta.progressToken",
    task: "result._meta[\"io.modelcontextprotocol/related-task\"]",
    task_id: "result._meta[\"io.modelcontextprotocol/related-task\"].taskId",
};

const PARAMS_META: MetaPaths = MetaPaths {
    meta: "params._meta",
    token: "params._meta.progressToken",
    task: "params._meta[\"io.modelcontextprotocol/related-task\"]",
    task_id: "params._meta[\"io.modelcontextprotocol/related-task\"].taskId",
};

/// `parent._meta`, if present, must be a `RequestMetaSchema` (loose object,
/// optional `progressToken`, optional related-task `{ taskId: string }`).
fn check_request_meta<V: JsonView>(parent: &V, paths: &MetaPaths) -> Check {
    let meta = parent.get("_meta")?;
    match meta.kind() {
        Kind::Undefined => return Ok(()),
        Kind::Object => {}
        other => return must(paths.meta, "an object", other),
    }
    let token = meta.get("progressToken")?;
    if let Some(n) = token.as_number() {
        if !is_safe_integer(n) {
            return not_integer(paths.token, "a string or an integer", n);
        }
    } else if !token.is_string() {
        let kind = token.kind();
        if kind != Kind::Undefined {
            return must(paths.token, "a string or an integer", kind);
        }
    }
    // TODO: deeper `_meta` checks if the SDK schemas grow more typed keys.
    let related = meta.get(RELATED_TASK_META_KEY)?;
    match related.kind() {
        Kind::Undefined => Ok(()),
        Kind::Object => {
            let task_id = related.get("taskId")?;
            if task_id.is_string() {
                Ok(())
            } else {
                must(paths.task_id, "a string", task_id.kind())
            }
        }
        other => must(paths.task, "an object", other),
    }
}

/// `"field" must be WHAT (got KIND)`, or `missing "field"` when undefined.
fn must_be(field: &str, what: &str, got: Kind) -> String {
    if got == Kind::Undefined {
        format!("missing \"{field}\"")
    } else {
        format!("\"{field}\" must be {what} (got {})", describe(got))
    }
}

fn bad_integer(field: &str, what: &str, n: f64) -> String {
    if n.is_finite() && n.trunc() == n {
        format!(
            "\"{field}\" must be {what} (got {}, outside the safe integer range)",
            js_number(n)
        )
    } else {
        format!("\"{field}\" must be {what} (got {})", js_number(n))
    }
}

fn describe(kind: Kind) -> String {
    match kind {
        Kind::Number(n) => format!("the number {}", js_number(n)),
        other => other.describe().to_owned(),
    }
}

/// Formats a number roughly as JavaScript's `String(n)` would.
fn js_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".to_owned()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if n.trunc() == n && n.abs() < 1e21 {
        format!("{n:.0}")
    } else {
        format!("{n}")
    }
}

/// Quotes a key for a reason string, shortening absurdly long ones.
fn quote(key: &str) -> String {
    const MAX: usize = 64;
    if key.len() <= MAX {
        format!("{key:?}")
    } else {
        let mut end = MAX;
        while !key.is_char_boundary(end) {
            end -= 1;
        }
        format!("{:?}…", &key[..end])
    }
}

#[cfg(test)]
mod tests {
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
            c(
                json!({"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {"name": "n"}})
            ),
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
            invalid(
                json!({"jsonrpc": "2.0", "id": 1, "result": {"_meta": {"progressToken": 1.5}}})
            ),
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
        let m =
            json!({"jsonrpc": "2.0", "method": "m", "params": {"_meta": {"progressToken": false}}});
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
}
