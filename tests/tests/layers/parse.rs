//! Reading Rust source for paths: tokens without comments and literals, `mod x;`
//! declarations, every leaf of every `use` declaration, and every other path.

use std::collections::BTreeSet;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Punct,
}

fn skip_string(s: &[char], mut i: usize) -> usize {
    while i < s.len() {
        match s[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

fn skip_raw_string(s: &[char], mut i: usize, hashes: usize) -> usize {
    while i < s.len() {
        if s[i] == '"' && (1..=hashes).all(|k| s.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

/// Past a character literal starting at `s[i] == '\''`; past the quote only for a lifetime.
fn skip_quote(s: &[char], i: usize) -> usize {
    if s.get(i + 1) == Some(&'\\') {
        let mut k = i + 3;
        while k < s.len() && s[k] != '\'' {
            k += 1;
        }
        k + 1
    } else if s.get(i + 2) == Some(&'\'') {
        i + 3
    } else {
        i + 1
    }
}

/// The tokens of Rust source that matter for paths; comments and literals are dropped.
pub fn tokens(text: &str) -> Vec<Tok> {
    let s: Vec<char> = text.chars().collect();
    let at = |k: usize| s.get(k).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&s, i + 1);
        } else if c == '\'' {
            i = skip_quote(&s, i);
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
                i += 1;
            }
            let word: String = s[start..i].iter().collect();
            let hashes = (i..).take_while(|k| at(*k) == '#').count();
            if matches!(word.as_str(), "r" | "br" | "cr") && at(i + hashes) == '"' {
                i = skip_raw_string(&s, i + hashes + 1, hashes);
            } else if word == "r" && hashes == 1 {
                i += 1; // a raw identifier: its name is the next token
            } else if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                i = skip_string(&s, i + 1);
            } else if word == "b" && at(i) == '\'' {
                i = skip_quote(&s, i);
            } else {
                out.push(Tok::Ident(word));
            }
        } else if c.is_ascii_digit() {
            while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
                i += 1;
            }
        } else {
            let (tok, len) = match c {
                ':' if at(i + 1) == ':' => (Tok::PathSep, 2),
                '{' => (Tok::Open, 1),
                '}' => (Tok::Close, 1),
                ',' => (Tok::Comma, 1),
                ';' => (Tok::Semi, 1),
                '*' => (Tok::Star, 1),
                _ => (Tok::Punct, 1),
            };
            out.push(tok);
            i += len;
        }
    }
    out
}

/// One name a `use` declaration brings in (`name: None` for a glob), with the depth of inline
/// modules (`mod tests { … }`) it is declared in.
#[derive(Debug, Clone)]
pub struct Import {
    pub path: Vec<String>,
    pub name: Option<String>,
    pub depth: usize,
}

/// What a file declares and names.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Its child modules in files (`mod x;`).
    pub children: BTreeSet<String>,
    /// Every leaf of every `use` declaration.
    pub imports: Vec<Import>,
    /// Every other path of two segments or more, with its inline-module depth.
    pub paths: Vec<(Vec<String>, usize)>,
}

/// Reads one use tree (`a::b::{c, d as e, f::*}`) from `t[*i]` on.
fn use_tree(t: &[Tok], i: &mut usize, prefix: &[String], depth: usize, out: &mut Vec<Import>) {
    let mut path = prefix.to_vec();
    if t.get(*i) == Some(&Tok::PathSep) {
        *i += 1;
    }
    loop {
        match t.get(*i) {
            Some(Tok::Ident(w)) => {
                path.push(w.clone());
                *i += 1;
                if t.get(*i) == Some(&Tok::PathSep) {
                    *i += 1;
                    continue;
                }
                if path.last().is_some_and(|l| l == "self") {
                    path.pop();
                }
                let mut name = path.last().cloned();
                if t.get(*i) == Some(&Tok::Ident("as".into())) {
                    if let Some(Tok::Ident(alias)) = t.get(*i + 1) {
                        name = Some(alias.clone());
                    }
                    *i += 2;
                }
                if name.is_some() {
                    out.push(Import { path, name, depth });
                }
                return;
            }
            Some(Tok::Star) => {
                *i += 1;
                out.push(Import {
                    path,
                    name: None,
                    depth,
                });
                return;
            }
            Some(Tok::Open) => {
                *i += 1;
                while let Some(tok) = t.get(*i) {
                    match tok {
                        Tok::Close => break,
                        Tok::Comma => *i += 1,
                        _ => {
                            let before = *i;
                            use_tree(t, i, &path, depth, out);
                            if *i == before {
                                *i += 1;
                            }
                        }
                    }
                }
                *i += 1;
                return;
            }
            _ => return,
        }
    }
}

/// What a file declares and names, from its text.
pub fn parse(text: &str) -> Parsed {
    let t = tokens(text);
    let mut p = Parsed::default();
    let (mut braces, mut inline) = (0usize, Vec::<usize>::new());
    let mut i = 0;
    while i < t.len() {
        let word = match &t[i] {
            Tok::Ident(w) => w.as_str(),
            Tok::Open => {
                braces += 1;
                i += 1;
                continue;
            }
            Tok::Close => {
                braces = braces.saturating_sub(1);
                if inline.last() == Some(&braces) {
                    inline.pop();
                }
                i += 1;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        if word == "mod"
            && let Some(Tok::Ident(name)) = t.get(i + 1)
        {
            match t.get(i + 2) {
                Some(Tok::Semi) if inline.is_empty() => {
                    p.children.insert(name.clone());
                }
                Some(Tok::Open) => {
                    inline.push(braces);
                    braces += 1;
                }
                _ => {}
            }
            i += 3;
        } else if word == "use" {
            i += 1;
            use_tree(&t, &mut i, &[], inline.len(), &mut p.imports);
            while i < t.len() && t[i] != Tok::Semi {
                i += 1;
            }
        } else if t.get(i + 1) == Some(&Tok::PathSep) && (i == 0 || t[i - 1] != Tok::PathSep) {
            let mut segments = vec![word.to_string()];
            while let (Some(Tok::PathSep), Some(Tok::Ident(w))) = (t.get(i + 1), t.get(i + 2)) {
                segments.push(w.clone());
                i += 2;
            }
            if segments.len() > 1 {
                p.paths.push((segments, inline.len()));
            }
            i += 1;
        } else {
            i += 1;
        }
    }
    p
}
