//! Values that an event carries in full in the store but hides from some audiences (§11).

use serde::{Deserialize, Serialize};

/// A single value that may be hidden: serialised as the value, or as `null` when hidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum Secret<T> {
    /// The value, for an audience allowed to know it.
    Known(T),
    /// Hidden from this audience.
    Hidden,
}

impl<T> Secret<T> {
    /// The value, if known.
    pub fn known(&self) -> Option<&T> {
        match self {
            Secret::Known(v) => Some(v),
            Secret::Hidden => None,
        }
    }

    /// The value if `visible`, otherwise hidden.
    pub fn shown_if(&self, visible: bool) -> Secret<T>
    where
        T: Clone,
    {
        if visible {
            self.clone()
        } else {
            Secret::Hidden
        }
    }
}

/// A list of cards that may be hidden: serialised as the list, or as `{"count": n}` when only
/// its size may be known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum Pile<T> {
    /// The cards, in order (a pile lists its top card first).
    Known(Vec<T>),
    /// Only the number of cards.
    Hidden {
        /// How many cards.
        count: usize,
    },
}

impl<T: Clone> Pile<T> {
    /// The cards, if known; an empty slice when hidden.
    pub fn cards(&self) -> &[T] {
        match self {
            Pile::Known(v) => v,
            Pile::Hidden { .. } => &[],
        }
    }

    /// How many cards.
    pub fn len(&self) -> usize {
        match self {
            Pile::Known(v) => v.len(),
            Pile::Hidden { count } => *count,
        }
    }

    /// Whether there are no cards.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cards if `visible`, otherwise their count.
    pub fn shown_if(&self, visible: bool) -> Pile<T> {
        if visible {
            self.clone()
        } else {
            Pile::Hidden { count: self.len() }
        }
    }
}

impl<T> From<Vec<T>> for Pile<T> {
    fn from(v: Vec<T>) -> Self {
        Pile::Known(v)
    }
}
