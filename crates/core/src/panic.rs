//! The text of a caught panic: what the binding's panic policy puts into the
//! JavaScript error it throws, and what the off-thread reader's worker keeps
//! of a panic of its framer to report on the next call.

use std::any::Any;

/// The message a panic was raised with (`panic!("...")`'s text).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic payload".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_of_str_string_and_other_payloads() {
        let text = |f: fn()| panic_message(&*std::panic::catch_unwind(f).unwrap_err());
        assert_eq!(text(|| panic!("plain")), "plain");
        assert_eq!(text(|| panic!("formatted {}", 1)), "formatted 1");
        assert_eq!(text(|| std::panic::panic_any(7u8)), "unknown panic payload");
    }
}
