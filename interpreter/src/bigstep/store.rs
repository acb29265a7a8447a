//! The store and the scopes of the big-step evaluator: the layout the revised rules give the
//! store (a tensor is a header cell `tensor(L, N)` followed by its `N` elements, sub-tensors
//! allocated by `alloc`/`fill`, aliases as copies of a header) and the lexical scopes of Rev-12.
//! A cell holds a constant, a register or a slot of a buffer: the last two are what staging
//! records instead of computing (`stage.rs`).

use std::ops::{Index, IndexMut};
use std::rc::Rc;

use imbl::GenericHashMap;
use imbl::shared_ptr::DefaultSharedPtr;
use knn_semantics::errors::ErrorKind;
use knn_semantics::inputs::TensorInput;
use knn_semantics::memory;
use knn_semantics::numeric::float_words;
use knn_semantics::rules::tensor_cells;
use knn_semantics::syntax::Span;
use rustc_hash::FxBuildHasher;

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

/// Names in scope (Rev-12): `<env>` and `<shape>`. A body is evaluated in a scope of its own,
/// so the enclosing one is what the tasks after it see: `rev-restore-scope` without a step.
#[derive(Clone, Default)]
pub(super) struct Scope {
    pub(super) env: Names<usize>,
    pub(super) shape: Names<Rc<[usize]>>,
}

/// A persistent map from the names in scope. Every identifier the program reads is looked up
/// here (ten thousand times in compiling ACAS Xu), so the hash is FxHash: SipHash was a sixth of
/// the compile, and its resistance to flooding buys nothing against names from the program
/// itself. Nothing iterates it in hash order (`<env>` is read sorted by name).
pub(super) type Names<V> = GenericHashMap<Rc<str>, V, FxBuildHasher, DefaultSharedPtr>;

impl Scope {
    /// Where `x` is bound; unbound, `rev-unbound-identifier`.
    #[inline]
    pub(super) fn lookup(&self, x: &str, span: Span) -> Eval<usize> {
        self.env
            .get(x)
            .copied()
            .ok_or_else(|| error(ErrorKind::UnboundIdentifier, span, format!("`{x}` is not bound here")))
    }

    /// The scope of a `let`'s body when `name` is bound to the fresh cell `loc`
    /// (`rev-let-value`): the name's shape entry is dropped.
    pub(super) fn with_value(&self, name: &str, loc: usize) -> Rc<Scope> {
        let name: Rc<str> = Rc::from(name);
        let mut inner = self.clone();
        inner.shape.remove(&name);
        inner.env.insert(name, loc);
        Rc::new(inner)
    }

    /// The scope of a binding's body: the name bound to a tensor header (`bindTo`,
    /// `rev-bind-to`, after `rev-define-tensor` allocated it), its shape recorded (Rev-7).
    pub(super) fn with_tensor(&self, name: &str, root: usize, dims: &[usize]) -> Rc<Scope> {
        let name: Rc<str> = Rc::from(name);
        let mut inner = self.clone();
        inner.env.insert(name.clone(), root);
        inner.shape.insert(name, Rc::from(dims));
        Rc::new(inner)
    }
}

/// The store: cell `L` is `store[L]`, locations are handed out in order (`<nextLoc>`).
#[derive(Default)]
pub(super) struct Store {
    cells: Vec<Cell>,
}

impl Index<usize> for Store {
    type Output = Cell;

    #[inline]
    fn index(&self, loc: usize) -> &Cell {
        &self.cells[loc]
    }
}

impl IndexMut<usize> for Store {
    #[inline]
    fn index_mut(&mut self, loc: usize) -> &mut Cell {
        &mut self.cells[loc]
    }
}

impl Store {
    /// A fresh cell holding `cell`: its location.
    #[inline]
    pub(super) fn push(&mut self, cell: Cell) -> usize {
        self.cells.push(cell);
        self.cells.len() - 1
    }

    /// The cells `from .. from + len`.
    pub(super) fn cells(&self, from: usize, len: usize) -> &[Cell] {
        &self.cells[from..from + len]
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
        let cells = tensor_cells(dims.iter().map(|&d| i64::try_from(d).unwrap_or(i64::MAX)))
            .and_then(|c| c.checked_add(self.cells.len() as u64));
        if let Err(too_large) = memory::check(cells.and_then(|c| memory::bytes_for(c, CELL_BYTES))) {
            let shape: Vec<String> = dims.iter().map(usize::to_string).collect();
            return Err(error(
                ErrorKind::MemoryLimit,
                span,
                format!("a tensor of shape ({}) {too_large}", shape.join(", ")),
            ));
        }
        let root = self.cells.len();
        // (the parent element that receives this vector's header, depth)
        let mut pending: Vec<(Option<usize>, usize)> = vec![(None, 0)];
        while let Some((parent, depth)) = pending.pop() {
            let n = dims[depth];
            let header = self.cells.len();
            let cell = Cell::Tensor { loc: header + 1, len: n };
            self.cells.push(cell);
            self.cells.extend(std::iter::repeat_n(Cell::Float(0.0), n));
            if let Some(parent) = parent {
                self.cells[parent] = cell;
            }
            if depth + 1 < dims.len() {
                pending.extend((0..n).rev().map(|i| (Some(header + 1 + i), depth + 1)));
            }
        }
        Ok(root)
    }

    /// The locations of the leaves of the tensor whose header is at `root`, row-major, along
    /// `dims` (a freshly allocated, regular tensor).
    pub(super) fn leaves(&self, root: usize, dims: &[usize]) -> Vec<usize> {
        let mut level = vec![root];
        for _ in dims {
            let mut next = Vec::new();
            for header in level {
                if let Cell::Tensor { loc, len } = self.cells[header] {
                    next.extend(loc..loc + len);
                }
            }
            level = next;
        }
        level
    }
}
