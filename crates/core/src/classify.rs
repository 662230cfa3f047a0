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

#[cfg(test)]
mod tests;

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
