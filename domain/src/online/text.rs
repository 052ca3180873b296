//! The texts a player sends: the one check of names, messages and reasons.

/// The first character a text from a player may not hold, if any: a control character (a NUL
/// among them) or a bidirectional embedding, override or isolate (U+202A–U+202E,
/// U+2066–U+2069), which could make a name or a message read as something else. The one rule
/// for every text a client sends: names and reasons in the API, messages and spectators' names
/// here.
pub fn forbidden_char(text: &str) -> Option<char> {
    text.chars()
        .find(|&c| c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
}

/// Whether a text may be posted: not blank, at most `most` characters, no control characters
/// and no bidirectional overrides (which could make a message read as something else). The
/// error says why not (the table refuses with it as `TableError::BadText`).
pub fn check_text(what: &str, text: &str, most: usize) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err(format!("the {what} is empty"));
    }
    let chars = text.chars().count();
    if chars > most {
        return Err(format!("the {what} has {chars} characters: at most {most}"));
    }
    if let Some(c) = forbidden_char(text) {
        return Err(format!(
            "the {what} holds the control character U+{:04X}",
            u32::from(c)
        ));
    }
    Ok(())
}
