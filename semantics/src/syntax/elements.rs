//! The elements of a tensor literal `initTensor(Is)[V, …]` (Ext-2): numbers in row-major order,
//! held as data. A network's weights are one literal a layer, so this is where its parameters
//! live from the parser (or an importer) to the engines: shared (`Arc`), so that cloning a
//! program or turning it into a term never copies them, and 8 bytes an element when every
//! element is a Float (what `knn import` writes).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// One element as written: an Int literal or a Float literal (`-1.5`, `NaN`, `-Infinity`).
#[derive(Clone, Copy, Debug)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    /// Equality of what is written: Floats by their bits, so `NaN == NaN` and `0.0 != -0.0`.
    pub fn same(self, other: Number) -> bool {
        match (self, other) {
            (Number::Int(a), Number::Int(b)) => a == b,
            (Number::Float(a), Number::Float(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

/// Bitwise ([`Number::same`]).
impl PartialEq for Number {
    fn eq(&self, other: &Number) -> bool {
        self.same(*other)
    }
}

/// The elements of one literal.
#[derive(Clone)]
pub enum Elements {
    /// Every element a Float.
    Floats(Arc<[f64]>),
    /// At least one Int element (16 bytes an element).
    Numbers(Arc<[Number]>),
}

impl Elements {
    /// The compact form when every element is a Float.
    pub fn new(numbers: Vec<Number>) -> Elements {
        if numbers.iter().all(|n| matches!(n, Number::Float(_))) {
            let floats: Vec<f64> = numbers.iter().map(|n| if let Number::Float(x) = n { *x } else { 0.0 }).collect();
            Elements::Floats(floats.into())
        } else {
            Elements::Numbers(numbers.into())
        }
    }

    pub fn floats(values: impl Into<Arc<[f64]>>) -> Elements {
        Elements::Floats(values.into())
    }

    pub fn len(&self) -> usize {
        match self {
            Elements::Floats(v) => v.len(),
            Elements::Numbers(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `k` in row-major order.
    pub fn get(&self, k: usize) -> Option<Number> {
        match self {
            Elements::Floats(v) => v.get(k).map(|&x| Number::Float(x)),
            Elements::Numbers(v) => v.get(k).copied(),
        }
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = Number> + '_ {
        (0..self.len()).map(|k| self.get(k).expect("k < len"))
    }

    /// Every element as a Float, when no element is an Int.
    pub fn as_floats(&self) -> Option<&[f64]> {
        match self {
            Elements::Floats(v) => Some(v),
            Elements::Numbers(_) => None,
        }
    }
}

/// Bitwise, element by element (see [`Number::same`]).
impl PartialEq for Elements {
    fn eq(&self, other: &Elements) -> bool {
        match (self, other) {
            (Elements::Floats(a), Elements::Floats(b)) => {
                Arc::ptr_eq(a, b)
                    || (a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.to_bits() == y.to_bits()))
            }
            _ => self.len() == other.len() && self.iter().zip(other.iter()).all(|(x, y)| x.same(y)),
        }
    }
}

/// The length and the first elements only: equal literals hash equal, and hashing a
/// configuration that holds a network's weights stays cheap.
impl Hash for Elements {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        for n in self.iter().take(8) {
            match n {
                Number::Int(i) => (0u8, i).hash(state),
                Number::Float(x) => (1u8, x.to_bits()).hash(state),
            }
        }
    }
}

/// The length and the first elements (a literal can hold millions).
impl fmt::Debug for Elements {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head: Vec<Number> = self.iter().take(4).collect();
        write!(f, "Elements({} elements: {head:?}{})", self.len(), if self.len() > 4 { ", …" } else { "" })
    }
}
