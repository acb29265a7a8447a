//! The parts of terms that are not terms: identifiers ([`Sym`]) and lists of Ints ([`Ints`]).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use smallvec::SmallVec;

/// An identifier (`Id` in K). Compared and ordered by name, as krun orders map keys.
#[derive(Clone)]
pub struct Sym(Rc<str>);

impl Sym {
    pub fn new(name: &str) -> Sym {
        Sym(Rc::from(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `syntax Id ::= "$1"` (k-nn.md L174): the global temporary of rank ≥ 2 allocation.
    pub fn dollar_one() -> Sym {
        Sym::new("$1")
    }
}

impl PartialEq for Sym {
    fn eq(&self, other: &Sym) -> bool {
        Rc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Eq for Sym {}

impl PartialOrd for Sym {
    fn partial_cmp(&self, other: &Sym) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Sym {
    fn cmp(&self, other: &Sym) -> std::cmp::Ordering {
        self.0.as_bytes().cmp(other.0.as_bytes())
    }
}

impl Hash for Sym {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A non-empty list of Ints (`Ints` in K): a shape or an index list.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Ints(SmallVec<[i64; 2]>);

impl Ints {
    /// `None` for an empty list: `Ints` has no empty element in K.
    pub fn new(values: &[i64]) -> Option<Ints> {
        (!values.is_empty()).then(|| Ints(SmallVec::from_slice(values)))
    }

    pub fn one(i: i64) -> Ints {
        Ints(smallvec::smallvec![i])
    }

    /// `I , Rest`.
    pub fn cons(first: i64, rest: &Ints) -> Ints {
        let mut v = SmallVec::with_capacity(rest.len() + 1);
        v.push(first);
        v.extend_from_slice(&rest.0);
        Ints(v)
    }

    pub fn as_slice(&self) -> &[i64] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }

    pub fn first(&self) -> i64 {
        self.0[0]
    }

    /// The list matched by the pattern `I:Int` (exactly one element).
    pub fn single(&self) -> Option<i64> {
        match self.0.as_slice() {
            [i] => Some(*i),
            _ => None,
        }
    }

    /// The split matched by the pattern `I:Int, Rest:Ints` (two or more elements).
    pub fn split_first(&self) -> Option<(i64, Ints)> {
        match self.0.as_slice() {
            [first, rest @ ..] if !rest.is_empty() => Some((*first, Ints(SmallVec::from_slice(rest)))),
            _ => None,
        }
    }
}

impl fmt::Debug for Ints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0.as_slice())
    }
}
