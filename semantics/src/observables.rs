//! What both engines must agree on: the final value, and for every identifier in `<env>` its
//! tensor's shape and elements, read through the store the way indexing reads it (a header
//! `tensor(T, N)` says element `i` is at `T + i`; sub-tensors are headers stored as elements).

use std::collections::BTreeMap;

use crate::config::{Config, Store};
use crate::memory;
use crate::term::Node;

/// A dense tensor read out of the store.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseTensor {
    pub shape: Vec<usize>,
    /// Row-major elements.
    pub data: Vec<f64>,
}

impl DenseTensor {
    /// Equality bit for bit, NaN compared as NaN (K's NaN has no payload); `0.0` differs from
    /// `-0.0`.
    pub fn same_bits(&self, other: &DenseTensor) -> bool {
        self.shape == other.shape
            && self.data.len() == other.data.len()
            && self.data.iter().zip(&other.data).all(|(x, y)| same_float(*x, *y))
    }
}

/// Two floats bit for bit, NaN as NaN.
pub fn same_float(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}

/// Why a header does not describe a dense tensor of Floats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Malformed(pub String);

/// The most levels of nesting followed before giving up (headers may refer to themselves,
/// docs/semantics.md §3(b)).
pub const MAX_RANK: usize = 16;

/// The number of elements of the tensor whose element 0 is at `loc`, were it dense: the product
/// of the lengths along its first sub-tensors (`None` when the product overflows). Cheap (one
/// cell per level), so that a reader can check the memory budget before reading the tensor.
pub fn tensor_size(store: &Store, loc: i64, len: i64) -> Option<u64> {
    let (mut size, mut at, mut n) = (1u64, loc, len);
    for _ in 0..MAX_RANK {
        size = size.checked_mul(u64::try_from(n).unwrap_or(0))?;
        match store.get(at).map(|t| t.node()) {
            Some(Node::Tensor { loc, len }) if n > 0 => (at, n) = (*loc, *len),
            _ => return Some(size),
        }
    }
    Some(size)
}

/// The tensor whose element 0 is at `loc` and which has `len` elements.
pub fn read_tensor(store: &Store, loc: i64, len: i64) -> Result<DenseTensor, Malformed> {
    // A header may be stored in its own elements (§3(b)): each level can then multiply the
    // cells to read. Every level is checked against the memory budget before it is read.
    let mut shape = Vec::new();
    // The headers of the current level, all of the same length.
    let mut level: Vec<(i64, i64)> = vec![(loc, len)];
    loop {
        let n = level[0].1;
        if n < 0 {
            return Err(Malformed(format!("a header has the negative length {n}")));
        }
        shape.push(n as usize);
        let cells = level.iter().try_fold(0u64, |sum, &(_, count)| sum.checked_add(u64::try_from(count).unwrap_or(0)));
        if let Err(too_large) = memory::check(cells.and_then(|c| memory::bytes_for(c, std::mem::size_of::<f64>()))) {
            return Err(Malformed(format!("reading it {too_large}")));
        }
        let mut floats = Vec::new();
        let mut headers = Vec::new();
        for &(start, count) in &level {
            for i in 0..count {
                match store.get(start + i).map(|t| t.node()) {
                    Some(Node::Float(x)) => floats.push(*x),
                    Some(Node::Tensor { loc, len }) => headers.push((*loc, *len)),
                    Some(other) => {
                        return Err(Malformed(format!("location {} holds {:?}", start + i, other_name(other))));
                    }
                    None => {
                        return Err(Malformed(format!("location {} is not in the store", start + i)));
                    }
                }
            }
        }
        match (floats.is_empty(), headers.is_empty()) {
            (_, true) => {
                return Ok(DenseTensor { shape, data: floats });
            }
            (true, false) if headers.iter().all(|h| h.1 == headers[0].1) => {
                if shape.len() >= MAX_RANK {
                    return Err(Malformed(format!("more than {MAX_RANK} levels of sub-tensors")));
                }
                level = headers;
            }
            (true, false) => return Err(Malformed("sub-tensors of different lengths".to_string())),
            (false, false) => {
                return Err(Malformed("a level mixes Floats and sub-tensors".to_string()));
            }
        }
    }
}

fn other_name(node: &Node) -> String {
    match node {
        Node::Int(n) => format!("the Int {n}"),
        _ => "an unevaluated term".to_string(),
    }
}

/// Every identifier of `<env>` with the tensor its header describes.
pub fn env_tensors(config: &Config) -> BTreeMap<String, Result<DenseTensor, Malformed>> {
    config
        .env
        .iter()
        .map(|(x, &l)| {
            let tensor = match config.store.get(l).map(|t| t.node()) {
                Some(Node::Tensor { loc, len }) => read_tensor(&config.store, *loc, *len),
                Some(_) => Err(Malformed(format!("the header cell {l} was overwritten"))),
                None => Err(Malformed(format!("location {l} is not in the store"))),
            };
            (x.to_string(), tensor)
        })
        .collect()
}
