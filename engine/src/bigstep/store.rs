//! The store of the big-step evaluator: the layout the revised rules give the store (a tensor
//! is a header cell `tensor(L, N)` followed by its `N` elements, sub-tensors allocated by
//! `alloc`/`fill`, aliases as copies of a header); the lexical scopes of Rev-12 are in `scope.rs`.
//! A cell holds a constant, a register or a slot of a buffer: the last two are what staging
//! records instead of computing (`stage.rs`).

use std::sync::Arc;

use knn_semantics::errors::ErrorKind;
use knn_semantics::inputs::TensorInput;
use knn_semantics::memory;
use knn_semantics::numeric::float_words;
use knn_semantics::rules::tensor_cells;
use knn_semantics::syntax::Span;
use rustc_hash::FxHashMap;

use super::ops::{BufId, Eval, FOperand, Reg, error};
use super::plan::Leaf;

/// The bytes a store cell is counted for by the memory budget: the cell, and the leaf and the
/// Float it becomes when a tensor result is read out.
const CELL_BYTES: usize = std::mem::size_of::<Cell>() + std::mem::size_of::<Leaf>() + std::mem::size_of::<f64>();

/// A store cell: a value, or a slot of a buffer (a Float known only when the plan runs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell {
    Float(f64),
    Int(i64),
    /// `tensor(L, N)`: element 0 at `loc`, `len` elements.
    Tensor {
        loc: usize,
        len: usize,
    },
    FReg(Reg),
    IReg(Reg),
    Slot {
        buf: BufId,
        at: usize,
    },
}

/// A value: a constant, a register, or a tensor header.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Float(f64),
    Int(i64),
    Tensor { loc: usize, len: usize },
    FReg(Reg),
    IReg(Reg),
}

impl Value {
    #[inline]
    pub(super) fn cell(self) -> Cell {
        match self {
            Value::Float(x) => Cell::Float(x),
            Value::Int(n) => Cell::Int(n),
            Value::Tensor { loc, len } => Cell::Tensor { loc, len },
            Value::FReg(r) => Cell::FReg(r),
            Value::IReg(r) => Cell::IReg(r),
        }
    }

    #[inline]
    pub(super) fn float_operand(self) -> Option<FOperand> {
        match self {
            Value::Float(x) => Some(FOperand::Const(x)),
            Value::FReg(r) => Some(FOperand::Reg(r)),
            _ => None,
        }
    }

    pub(super) fn describe(self) -> String {
        match self {
            Value::Float(x) => float_words(x),
            // As the reference words an Int operand: the value of one in a register is known
            // only when the program runs.
            Value::Int(_) => "an Int".to_string(),
            Value::Tensor { .. } => "a tensor".to_string(),
            Value::FReg(_) => "a Float".to_string(),
            Value::IReg(_) => "an Int".to_string(),
        }
    }
}

/// What an input binding holds.
#[derive(Clone, Debug)]
pub enum InputData {
    /// Known now: the evaluator computes with it.
    Concrete(Vec<f64>),
    /// Known when the plan runs: a buffer of the plan.
    Symbolic,
}

/// A tensor bound before the program, as `--input` binds it.
#[derive(Clone, Debug)]
pub struct Binding {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: InputData,
}

impl Binding {
    /// `input` bound to its values.
    pub fn concrete(input: &TensorInput) -> Binding {
        Binding { name: input.name.clone(), shape: input.shape.clone(), data: InputData::Concrete(input.data.clone()) }
    }

    /// `input`'s name and shape, its values read from the rows the plan runs on.
    pub fn symbolic(input: &TensorInput) -> Binding {
        Binding { name: input.name.clone(), shape: input.shape.clone(), data: InputData::Symbolic }
    }

    /// The bindings of a program compiled for one input left open: `fixed` with their values,
    /// then `open` of `shape`, read from the rows the plan runs on.
    pub fn with_open_input(fixed: &[TensorInput], open: &str, shape: Vec<usize>) -> Vec<Binding> {
        let mut bindings: Vec<Binding> = fixed.iter().map(Binding::concrete).collect();
        bindings.push(Binding { name: open.to_string(), shape, data: InputData::Symbolic });
        bindings
    }
}

/// The store: cell `L` is `store.get(L)`, locations are handed out in order (`<nextLoc>`).
///
/// The Float leaves of a tensor literal (Ext-2) are not cells: each leaf vector's elements stay
/// in the literal's shared array (a [`Block`] of locations), so a network's weights are held
/// once, by the program, not again as one cell each. A write to such a location is kept beside
/// it ([`Store::set`]).
#[derive(Default)]
pub(super) struct Store {
    /// Every location outside the blocks, in order.
    cells: Vec<Cell>,
    /// The literals' leaf vectors, in order of location.
    blocks: Vec<Block>,
    /// Cells written at locations of a block.
    written: FxHashMap<usize, Cell>,
    /// Where the last two lookups were (a count of blocks at or before them): reads walk
    /// tensors in order, `linear` on constants alternating between a row of weights and the
    /// input, so the next lookup is mostly at one of them or just after it.
    hints: std::cell::Cell<[usize; 2]>,
}

/// Locations `start .. start + len` hold `data[offset ..]`: a leaf vector of a tensor literal.
struct Block {
    start: usize,
    len: usize,
    data: Arc<[f64]>,
    offset: usize,
    /// The locations of the blocks before this one: `cells` skips them.
    skipped: usize,
}

/// Where a location is.
enum Place<'s> {
    Cell(usize),
    Block(&'s Block),
}

impl Store {
    /// The next location (`<nextLoc>`).
    fn next_loc(&self) -> usize {
        self.cells.len() + self.blocks.last().map_or(0, |b| b.skipped + b.len)
    }

    #[inline]
    fn place(&self, loc: usize) -> Place<'_> {
        // Before every block (an input bound first) or after the last (what the program
        // computes from the weights): no search.
        let (Some(first), Some(last)) = (self.blocks.first(), self.blocks.last()) else { return Place::Cell(loc) };
        if loc < first.start {
            return Place::Cell(loc);
        }
        if loc >= last.start + last.len {
            return Place::Cell(loc - last.skipped - last.len);
        }
        // `i`: how many blocks start at or before `loc` (at least one, by the test above);
        // tried at the hints and just after them, then searched.
        let is_count = |i: usize| {
            (1..=self.blocks.len()).contains(&i)
                && self.blocks[i - 1].start <= loc
                && (i == self.blocks.len() || self.blocks[i].start > loc)
        };
        let [near, far] = self.hints.get();
        let i = [near, near + 1, far, far + 1]
            .into_iter()
            .find(|&i| is_count(i))
            .unwrap_or_else(|| self.blocks.partition_point(|b| b.start <= loc));
        if i != near {
            self.hints.set([i, near]);
        }
        let b = &self.blocks[i - 1];
        if loc < b.start + b.len { Place::Block(b) } else { Place::Cell(loc - b.skipped - b.len) }
    }

    /// The cell at `loc`.
    #[inline]
    pub(super) fn get(&self, loc: usize) -> Cell {
        match self.place(loc) {
            Place::Cell(i) => self.cells[i],
            Place::Block(b) => {
                self.written.get(&loc).copied().unwrap_or(Cell::Float(b.data[b.offset + (loc - b.start)]))
            }
        }
    }

    /// Writes the cell at `loc`.
    #[inline]
    pub(super) fn set(&mut self, loc: usize, cell: Cell) {
        match self.place(loc) {
            Place::Cell(i) => self.cells[i] = cell,
            Place::Block(_) => {
                self.written.insert(loc, cell);
            }
        }
    }

    /// A fresh cell holding `cell`: its location.
    #[inline]
    pub(super) fn push(&mut self, cell: Cell) -> usize {
        let loc = self.next_loc();
        self.cells.push(cell);
        loc
    }

    /// The cells `from .. from + len`.
    pub(super) fn cells(&self, from: usize, len: usize) -> Vec<Cell> {
        (from..from + len).map(|loc| self.get(loc)).collect()
    }

    /// The elements of the leaf vector whose first element is at `loc`, `len` of them, when
    /// they are one block of a literal nothing has written to: the literal's own array.
    pub(super) fn literal_run(&self, loc: usize, len: usize) -> Option<&[f64]> {
        let Place::Block(b) = self.place(loc) else { return None };
        (b.start == loc && b.len == len && self.untouched(loc, len)).then(|| &b.data[b.offset..b.offset + len])
    }

    /// Whether nothing was written at `loc .. loc + len`.
    fn untouched(&self, loc: usize, len: usize) -> bool {
        self.written.is_empty() || (loc..loc + len).all(|l| !self.written.contains_key(&l))
    }

    /// The literal's array and the offset of the first row, when the leaf vectors at `rows`
    /// (each `cols` long) are consecutive rows of one tensor literal nothing has written to:
    /// a matrix can then be a view of the literal instead of a copy.
    pub(super) fn literal_rows(&self, rows: &[usize], cols: usize) -> Option<(Arc<[f64]>, usize)> {
        if cols == 0 {
            return None;
        }
        let &first = rows.first()?;
        let Place::Block(head) = self.place(first) else { return None };
        let whole_rows = rows.iter().enumerate().all(|(i, &loc)| match self.place(loc) {
            Place::Block(b) => {
                b.start == loc
                    && b.len == cols
                    && Arc::ptr_eq(&b.data, &head.data)
                    && b.offset == head.offset + i * cols
                    && self.untouched(loc, cols)
            }
            Place::Cell(_) => false,
        });
        whole_rows.then(|| (Arc::clone(&head.data), head.offset))
    }

    /// Refuses a tensor of `dims` whose `cells` new cells would grow the store past the memory
    /// budget.
    fn check_budget(&self, dims: &[usize], cells: Option<u64>, span: Span) -> Eval<()> {
        let total = cells.and_then(|c| c.checked_add(self.cells.len() as u64));
        memory::check(total.and_then(|c| memory::bytes_for(c, CELL_BYTES))).map_err(|too_large| {
            let shape: Vec<String> = dims.iter().map(usize::to_string).collect();
            error(ErrorKind::MemoryLimit, span, format!("a tensor of shape ({}) {too_large}", shape.join(", ")))
        })
    }

    /// `alloc(dims)` (Rev-4): each vector is its header then its elements, allocated before its
    /// sub-tensors, which are allocated in order. Returns the location of the root header; a
    /// `memory-limit` error at `span` when the store would grow past the memory budget.
    ///
    /// `rev-alloc-1d` and `rev-alloc-nd` lay out a header and its zeros (the elements
    /// `(L +Int 1) ... (L +Int N) |-> 0.0`, a map `range-map-cons` and `range-map-empty` build),
    /// `rev-fill-step` and `rev-fill-done` allocate the sub-tensors of every element in order,
    /// and `rev-write-at` writes each sub-tensor's header into its parent's element.
    pub(super) fn alloc(&mut self, dims: &[usize], span: Span) -> Eval<usize> {
        let cells = tensor_cells(dims.iter().map(|&d| i64::try_from(d).unwrap_or(i64::MAX)));
        self.check_budget(dims, cells, span)?;
        Ok(self.lay_out(dims, None))
    }

    /// `ext-let-tensor-literal`: the layout of `alloc(dims)`, each leaf vector a block of
    /// `data` (row-major, `size(dims)` Floats) instead of cells. Only the headers are counted
    /// against the memory budget: the elements are the program's.
    pub(super) fn alloc_literal(&mut self, dims: &[usize], data: &Arc<[f64]>, span: Span) -> Eval<usize> {
        let leaf_vectors: Option<u64> = dims[..dims.len() - 1].iter().try_fold(1u64, |n, &d| n.checked_mul(d as u64));
        let headers = tensor_cells(dims[..dims.len() - 1].iter().map(|&d| i64::try_from(d).unwrap_or(i64::MAX)));
        let cells = match dims.len() {
            1 => Some(1),
            _ => headers.zip(leaf_vectors).and_then(|(h, v)| h.checked_add(v)),
        };
        self.check_budget(dims, cells, span)?;
        Ok(self.lay_out(dims, Some(data)))
    }

    /// The layout of `alloc(dims)` at the next location; the leaves `0.0`, or blocks of
    /// `literal`.
    fn lay_out(&mut self, dims: &[usize], literal: Option<&Arc<[f64]>>) -> usize {
        let root = self.next_loc();
        let mut leaf_vectors = 0;
        // (the parent element that receives this vector's header, depth)
        let mut pending: Vec<(Option<usize>, usize)> = vec![(None, 0)];
        while let Some((parent, depth)) = pending.pop() {
            let n = dims[depth];
            let header = self.next_loc();
            let cell = Cell::Tensor { loc: header + 1, len: n };
            self.cells.push(cell);
            match literal {
                Some(data) if depth + 1 == dims.len() => {
                    let skipped = self.blocks.last().map_or(0, |b| b.skipped + b.len);
                    let block =
                        Block { start: header + 1, len: n, data: data.clone(), offset: leaf_vectors * n, skipped };
                    leaf_vectors += 1;
                    self.blocks.push(block);
                }
                _ => self.cells.extend(std::iter::repeat_n(Cell::Float(0.0), n)),
            }
            if let Some(parent) = parent {
                self.set(parent, cell);
            }
            if depth + 1 < dims.len() {
                pending.extend((0..n).rev().map(|i| (Some(header + 1 + i), depth + 1)));
            }
        }
        root
    }

    /// The locations of the leaves of the tensor whose header is at `root`, row-major, along
    /// `dims` (a freshly allocated, regular tensor).
    pub(super) fn leaves(&self, root: usize, dims: &[usize]) -> Vec<usize> {
        let mut level = vec![root];
        for _ in dims {
            let mut next = Vec::new();
            for header in level {
                if let Cell::Tensor { loc, len } = self.get(header) {
                    next.extend(loc..loc + len);
                }
            }
            level = next;
        }
        level
    }
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
