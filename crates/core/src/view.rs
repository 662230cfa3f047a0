//! A minimal read-only view of a JSON-ish value.
//!
//! The classifier is written against [`JsonView`] so that the same code runs
//! on a parsed `serde_json::Value` (unit tests, and the text framer to come)
//! and on a live JavaScript value behind N-API (the binding). Every method is
//! meant to cost at most one or two engine calls on the JavaScript side, so the
//! classifier asks narrow questions ("is this the string `2.0`?") rather than
//! materialising values.

use std::fmt;

/// The JavaScript type of a value, as far as the classifier cares.
///
/// `Object` is what zod 4's `isObject` accepts: `typeof v === "object"`, not
/// `null`, not an array. Functions are *not* objects here.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Undefined,
    Null,
    Bool,
    Number(f64),
    String,
    Array,
    Object,
    Function,
    /// symbol, bigint, external
    Other,
}

impl Kind {
    /// Human-readable name used in invalid-message reasons.
    pub fn describe(&self) -> &'static str {
        match self {
            Kind::Undefined => "undefined",
            Kind::Null => "null",
            Kind::Bool => "a boolean",
            Kind::Number(_) => "a number",
            Kind::String => "a string",
            Kind::Array => "an array",
            Kind::Object => "an object",
            Kind::Function => "a function",
            Kind::Other => "a non-JSON value",
        }
    }
}

/// Reading a value failed (e.g. a JavaScript getter or proxy trap threw).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewError(pub String);

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Read access to a JSON-like value.
///
/// Implementations must treat "absent" and "undefined" the same way in
/// [`JsonView::get`] (both give a view whose kind is [`Kind::Undefined`]); the
/// only place where the difference matters, strict key sets, goes through
/// [`JsonView::for_each_key`], which reports every enumerable key whatever its
/// value.
pub trait JsonView: Sized {
    /// The kind of this value.
    fn kind(&self) -> Kind;

    /// `Some(n)` if this is a number, else `None`. Cheaper than [`Self::kind`]
    /// on the JavaScript side.
    fn as_number(&self) -> Option<f64> {
        match self.kind() {
            Kind::Number(n) => Some(n),
            _ => None,
        }
    }

    /// Whether this is a string.
    fn is_string(&self) -> bool {
        self.kind() == Kind::String
    }

    /// `Some(true)` if this is a string equal to `expected`, `Some(false)` if
    /// it is a different string, `None` if it is not a string.
    fn string_eq(&self, expected: &str) -> Option<bool>;

    /// Property lookup on an object (own or inherited, like `obj[key]` in
    /// JavaScript). Absent keys give an `Undefined` view. Only called on values
    /// whose kind is [`Kind::Object`].
    fn get(&self, key: &str) -> Result<Self, ViewError>;

    /// Calls `f(key, value)` for every enumerable string key, in `for...in`
    /// order (which is what zod's `.strict()` inspects). `value` is produced
    /// lazily: the classifier only reads the keys it knows. `f` returns `false`
    /// to stop early. Only called on values whose kind is [`Kind::Object`].
    fn for_each_key<F>(&self, f: F) -> Result<(), ViewError>
    where
        F: FnMut(&str, &dyn Fn() -> Result<Self, ViewError>) -> Result<bool, ViewError>;
}

/// [`JsonView`] over `serde_json`. `None` stands for "undefined" (absent).
#[derive(Debug, Clone, Copy)]
pub struct SerdeView<'a>(pub Option<&'a serde_json::Value>);

impl<'a> SerdeView<'a> {
    pub fn new(value: &'a serde_json::Value) -> Self {
        SerdeView(Some(value))
    }
}

impl JsonView for SerdeView<'_> {
    fn kind(&self) -> Kind {
        use serde_json::Value;
        match self.0 {
            None => Kind::Undefined,
            Some(Value::Null) => Kind::Null,
            Some(Value::Bool(_)) => Kind::Bool,
            // Like `JSON.parse`: every JSON number becomes an f64.
            Some(Value::Number(n)) => Kind::Number(n.as_f64().unwrap_or(f64::NAN)),
            Some(Value::String(_)) => Kind::String,
            Some(Value::Array(_)) => Kind::Array,
            Some(Value::Object(_)) => Kind::Object,
        }
    }

    fn string_eq(&self, expected: &str) -> Option<bool> {
        match self.0 {
            Some(serde_json::Value::String(s)) => Some(s == expected),
            _ => None,
        }
    }

    fn get(&self, key: &str) -> Result<Self, ViewError> {
        Ok(SerdeView(self.0.and_then(|v| v.get(key))))
    }

    fn for_each_key<F>(&self, mut f: F) -> Result<(), ViewError>
    where
        F: FnMut(&str, &dyn Fn() -> Result<Self, ViewError>) -> Result<bool, ViewError>,
    {
        if let Some(serde_json::Value::Object(map)) = self.0 {
            for (k, v) in map {
                let value = || Ok(SerdeView(Some(v)));
                if !f(k, &value)? {
                    break;
                }
            }
        }
        Ok(())
    }
}

/// Whether `n` passes zod 4's `z.number().int()`: finite, integral and within
/// `Number.MIN_SAFE_INTEGER..=Number.MAX_SAFE_INTEGER` (zod 4 requires a safe
/// integer).
pub fn is_safe_integer(n: f64) -> bool {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    n.is_finite() && n.trunc() == n && n.abs() <= MAX_SAFE
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn safe_integers() {
        assert!(is_safe_integer(0.0));
        assert!(is_safe_integer(-0.0));
        assert!(is_safe_integer(1.0));
        assert!(is_safe_integer(-42.0));
        assert!(is_safe_integer(9_007_199_254_740_991.0));
        assert!(is_safe_integer(-9_007_199_254_740_991.0));
        assert!(!is_safe_integer(9_007_199_254_740_992.0));
        assert!(!is_safe_integer(-9_007_199_254_740_992.0));
        assert!(!is_safe_integer(1.5));
        assert!(!is_safe_integer(f64::NAN));
        assert!(!is_safe_integer(f64::INFINITY));
        assert!(!is_safe_integer(f64::NEG_INFINITY));
    }

    #[test]
    fn serde_view_kinds() {
        let v = json!({"a": null, "b": true, "c": 1, "d": "x", "e": [], "f": {}});
        let view = SerdeView::new(&v);
        assert_eq!(view.kind(), Kind::Object);
        assert_eq!(view.get("a").unwrap().kind(), Kind::Null);
        assert_eq!(view.get("b").unwrap().kind(), Kind::Bool);
        assert_eq!(view.get("c").unwrap().kind(), Kind::Number(1.0));
        assert_eq!(view.get("c").unwrap().as_number(), Some(1.0));
        assert_eq!(view.get("d").unwrap().kind(), Kind::String);
        assert!(view.get("d").unwrap().is_string());
        assert_eq!(view.get("d").unwrap().string_eq("x"), Some(true));
        assert_eq!(view.get("d").unwrap().string_eq("y"), Some(false));
        assert_eq!(view.get("c").unwrap().string_eq("1"), None);
        assert_eq!(view.get("e").unwrap().kind(), Kind::Array);
        assert_eq!(view.get("f").unwrap().kind(), Kind::Object);
        assert_eq!(view.get("zz").unwrap().kind(), Kind::Undefined);
    }

    #[test]
    fn serde_view_keys_and_early_stop() {
        let v = json!({"a": 1, "b": 2, "c": 3});
        let view = SerdeView::new(&v);
        let mut seen = Vec::new();
        view.for_each_key(|k, val| {
            seen.push((k.to_owned(), val().unwrap().as_number().unwrap()));
            Ok(seen.len() < 2)
        })
        .unwrap();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].0, "a");
        assert_eq!(seen[1].1, 2.0);
    }

    #[test]
    fn large_integers_as_f64() {
        let v: serde_json::Value = serde_json::from_str("18446744073709551615").unwrap();
        let n = SerdeView::new(&v).as_number().unwrap();
        assert!(!is_safe_integer(n));
        let v: serde_json::Value = serde_json::from_str("1.0").unwrap();
        assert!(is_safe_integer(SerdeView::new(&v).as_number().unwrap()));
    }
}
