//! Text from clients (names, reasons): the same rules on every backend — a length, no control
//! characters (a NUL among them), no bidirectional overrides that would make a name read as
//! something else.

use crate::error::ApiError;

/// The longest display name, in characters.
pub const NAME_MAX: usize = 40;
/// The longest rollback reason, in characters.
pub const REASON_MAX: usize = 500;

/// `what`, trimmed, checked: 1 to `max` characters, none of them forbidden
/// ([`saboteur_domain::online::forbidden_char`]: control characters, bidi controls).
pub(crate) fn checked(text: &str, what: &str, max: usize) -> Result<String, ApiError> {
    let text = text.trim();
    let len = text.chars().count();
    if len == 0 || len > max {
        return Err(ApiError::BadRequest(format!(
            "{what} has 1 to {max} characters, not only spaces"
        )));
    }
    if let Some(c) = saboteur_domain::online::forbidden_char(text) {
        return Err(ApiError::BadRequest(format!(
            "{what} may not hold the control character U+{:04X}",
            u32::from(c)
        )));
    }
    Ok(text.to_string())
}

/// A display name.
pub(crate) fn name(text: &str) -> Result<String, ApiError> {
    checked(text, "a name", NAME_MAX)
}

/// A rollback's reason.
pub(crate) fn reason(text: &str) -> Result<String, ApiError> {
    checked(text, "a reason", REASON_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_alike_everywhere() {
        assert_eq!(name("  Ada ").ok().as_deref(), Some("Ada"));
        assert!(name("").is_err());
        assert!(name("   ").is_err());
        assert!(name(&"x".repeat(41)).is_err());
        assert!(name(&"é".repeat(40)).is_ok());
        assert!(name("Ad\u{0}a").is_err());
        assert!(name("Ada\u{7}").is_err());
        assert!(name("evil\u{202E}txt.exe").is_err());
        assert!(name("a\u{2066}b").is_err());
        assert!(reason("a dispute about the map").is_ok());
        assert!(reason(&"r".repeat(501)).is_err());
    }
}
