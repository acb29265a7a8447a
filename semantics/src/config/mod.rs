//! The configuration `<T> <k/> <env/> <store/> <nextLoc/> <shape/> </T>` (k-nn.md L116–122).
//!
//! Cells are persistent (`imbl`) so that a configuration clones in constant time apart from
//! the `<k>` stack, and `search` can fork it freely.

mod math_steps;
mod print;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use crate::syntax::Span;
use crate::term::{Act, ArithHole, Ints, MathFn, Node, Sym, Term};

pub use math_steps::{MathStep, Wait};
pub use print::{config_to_string, kitem_to_string};

/// An item of the `<k>` cell: a term, or a frozen context waiting for the value of its hole
/// (the freezers that K generates for strictness attributes and `context` declarations).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum KItem {
    Term(Term),
    Frozen(Freezer),
    /// `alloc(Ints)` (Rev-4): allocate a tensor of this shape, leaving its header on `<k>`.
    Alloc(Ints),
    /// `fill(H, I, N, Rest)` (Rev-4): allocate sub-tensors `I..N` of the tensor whose header is
    /// at `H`.
    Fill {
        header: i64,
        i: i64,
        n: i64,
        rest: Ints,
    },
    /// `writeAt(Loc)` (Rev-4): store the value on top of `<k>` at `Loc`.
    WriteAt(i64),
    /// `bindTo(X)` (Rev-4): bind `X` to the header on top of `<k>`.
    BindTo(Sym),
    /// `restoreScope(Env, SH)` (Rev-12): restore `<env>` and `<shape>` when a binding's body is
    /// a value.
    RestoreScope {
        env: Env,
        shape: ShapeMap,
    },
    /// The helpers and continuations of Ext-9 and Ext-10 (`softmaxHelper(…)`, `softmaxMax(…)`,
    /// `reduceSumHelper(…)`, …).
    TensorMath(Box<MathStep>),
}

/// A frozen context `C[□]` with the span of the construct it was cut from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Freezer {
    pub context: Context,
    pub span: Span,
}

/// The evaluation contexts of K-NN: one per strict argument position and `context`
/// declaration (docs/semantics.md §1.1).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Context {
    /// `□ [ Is ]` — `Exp "[" Ints "]" [strict(1)]`.
    IndexBase {
        ints: Ints,
    },
    /// `max(□, B)` / `max(A, □)` — `strict`.
    MaxLeft(Term),
    MaxRight(Term),
    MinLeft(Term),
    MinRight(Term),
    /// `□ * B` / `A * □` — `strict`.
    MulLeft(Term),
    MulRight(Term),
    AddLeft(Term),
    AddRight(Term),
    /// `let T = □ in B` — `strict(2)`.
    LetValue {
        target: Term,
        body: Term,
    },
    /// `storeVal(T, □)` — `context storeVal(_, HOLE)`.
    StoreValValue {
        target: Term,
    },
    /// `storeVal(□ [ I , Rest ], V)` — `context storeVal(HOLE[_:Int, _:Ints], _)`.
    StoreValBase {
        ints: Ints,
        value: Term,
    },
    /// `tanhItem(□)` / `sigmoidItem(□)` — `context tanhItem(HOLE)`, `context sigmoidItem(HOLE)`.
    ActItem(Act),
    /// `poolMean(□, N)` (Ext-4): `poolMean` is strict in the sum.
    PoolMean(i64),
    SubDiv(ArithHole),
    /// `expItem(□)`, `softmaxItem(□, M, S)`, … (Ext-9): strict in the operand.
    MathItem(MathFn),
}

impl Context {
    /// The context with the hole filled by `hole`, built as is (no `[anywhere]` rule applied).
    pub fn plug_raw(&self, hole: Term, span: Span) -> Term {
        let node = match self {
            Context::IndexBase { ints } => Node::Index { base: hole, ints: ints.clone() },
            Context::MaxLeft(b) => Node::Max(hole, b.clone()),
            Context::MaxRight(a) => Node::Max(a.clone(), hole),
            Context::MinLeft(b) => Node::Min(hole, b.clone()),
            Context::MinRight(a) => Node::Min(a.clone(), hole),
            Context::MulLeft(b) => Node::Mul(hole, b.clone()),
            Context::MulRight(a) => Node::Mul(a.clone(), hole),
            Context::AddLeft(b) => Node::Add(hole, b.clone()),
            Context::AddRight(a) => Node::Add(a.clone(), hole),
            Context::LetValue { target, body } => Node::Let { target: target.clone(), value: hole, body: body.clone() },
            Context::StoreValValue { target } => Node::StoreVal { target: target.clone(), value: hole },
            Context::StoreValBase { ints, value } => Node::StoreVal {
                target: Term::new(Node::Index { base: hole, ints: ints.clone() }, span),
                value: value.clone(),
            },
            Context::ActItem(act) => Node::ActItem { act: *act, arg: hole },
            Context::PoolMean(count) => Node::PoolMean { sum: hole, count: *count },
            Context::SubDiv(h) => h.plug(hole),
            Context::MathItem(f) => Node::MathItem { f: *f, arg: hole },
        };
        Term::new(node, span)
    }

    /// The frozen term with `□` in the hole, for printing.
    pub fn with_hole(&self, span: Span) -> Term {
        self.plug_raw(Term::id(&Sym::new("□"), span), span)
    }
}

/// `<env>`: identifier ↦ location of the tensor header.
pub type Env = imbl::OrdMap<Sym, i64>;

/// `<shape>`: key ↦ dimensions. Keys are identifiers except in degenerate programs (after a
/// substitution `let 5.0 = initTensor(2) in …` records the key `5.0`, §3(i)).
pub type ShapeMap = imbl::OrdMap<MapKey, Ints>;

/// A map key ordered as krun prints maps: by the printed key, byte by byte.
#[derive(Clone, Debug)]
pub struct MapKey(pub Term);

impl MapKey {
    pub fn id(x: &Sym) -> MapKey {
        MapKey(Term::id(x, Span::default()))
    }

    fn text(&self) -> std::borrow::Cow<'_, str> {
        match self.0.node() {
            Node::Id(x) => std::borrow::Cow::Borrowed(x.as_str()),
            _ => std::borrow::Cow::Owned(self.0.to_string()),
        }
    }
}

impl PartialEq for MapKey {
    fn eq(&self, other: &MapKey) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for MapKey {}

impl PartialOrd for MapKey {
    fn partial_cmp(&self, other: &MapKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for MapKey {
    fn cmp(&self, other: &MapKey) -> Ordering {
        self.text().as_bytes().cmp(other.text().as_bytes())
    }
}

impl Hash for MapKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.text().hash(state);
    }
}

/// `<store>`: location ↦ value. Every rule allocates at `<nextLoc>` and nothing is freed, so the
/// keys are always exactly `0 .. nextLoc`: a vector indexed by location.
///
/// `search` hashes every configuration it meets; hashing a store cell by cell would cost the
/// whole store per state (milliseconds on a large one). The store keeps instead a digest, the
/// wrapping sum of one hash per cell (location and value), which a write updates by taking out
/// the old cell's hash and adding the new one: hashing costs what the step changed.
#[derive(Clone, Default)]
pub struct Store {
    cells: imbl::Vector<Term>,
    digest: u64,
}

/// The hash of one cell: its location and its value, mixed so that a sum of them does not
/// cancel out (FxHash alone is nearly linear in its input).
fn cell_digest(loc: usize, value: &Term) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    loc.hash(&mut hasher);
    value.hash(&mut hasher);
    // The finaliser of MurmurHash3: every bit of the hash depends on every bit of the input.
    let mut h = hasher.finish();
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

impl PartialEq for Store {
    fn eq(&self, other: &Store) -> bool {
        // Different digests are different stores; equal ones are compared cell by cell (cells
        // shared between two forks of a configuration compare by pointer).
        self.digest == other.digest && self.cells == other.cells
    }
}

impl Eq for Store {}

impl Hash for Store {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.digest);
        state.write_usize(self.cells.len());
    }
}

impl Store {
    /// The bytes a cell is counted for by the memory budget: its pointer in the persistent
    /// vector, and as much again for the vector's nodes and for the dense copy a result is read
    /// into (`observables::read_tensor`). Elements share one `0.0` until they are written.
    pub const CELL_BYTES: usize = 2 * std::mem::size_of::<Term>();

    /// `<nextLoc>`.
    pub fn next_loc(&self) -> i64 {
        self.cells.len() as i64
    }

    /// The value at `loc`, if `loc` is a key.
    pub fn get(&self, loc: i64) -> Option<&Term> {
        usize::try_from(loc).ok().and_then(|i| self.cells.get(i))
    }

    /// `loc |-> (_ => value)`: overwrites an existing key; `false` if `loc` is not a key.
    pub fn set(&mut self, loc: i64, value: Term) -> bool {
        let Some(i) = usize::try_from(loc).ok().filter(|&i| i < self.cells.len()) else {
            return false;
        };
        let new = cell_digest(i, &value);
        let cell = &mut self.cells[i];
        self.digest = self.digest.wrapping_sub(cell_digest(i, cell)).wrapping_add(new);
        *cell = value;
        true
    }

    /// Adds a new key at `<nextLoc>`.
    pub fn push(&mut self, value: Term) {
        self.digest = self.digest.wrapping_add(cell_digest(self.cells.len(), &value));
        self.cells.push_back(value);
    }

    pub fn iter(&self) -> impl Iterator<Item = (i64, &Term)> {
        self.cells.iter().enumerate().map(|(i, t)| (i as i64, t))
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A K-NN configuration. The top of `<k>` is the last element of `k`.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Config {
    pub k: Vec<KItem>,
    pub env: Env,
    pub store: Store,
    pub shape: ShapeMap,
}

impl Config {
    /// The initial configuration: `<k> $PGM </k>`, empty maps, `<nextLoc> 0 </nextLoc>`.
    pub fn initial(program: Term) -> Config {
        Config { k: vec![KItem::Term(program)], ..Config::default() }
    }

    /// The first item of `<k>`.
    pub fn top(&self) -> Option<&KItem> {
        self.k.last()
    }

    /// The second item of `<k>`.
    pub fn second(&self) -> Option<&KItem> {
        self.k.len().checked_sub(2).map(|i| &self.k[i])
    }

    pub fn top_term(&self) -> Option<&Term> {
        match self.top() {
            Some(KItem::Term(t)) => Some(t),
            _ => None,
        }
    }

    /// `<k> X => Y1 ~> Y2 ~> … ...</k>`: replaces the top item with `items` (first item first).
    pub fn replace_top<I>(&mut self, items: I)
    where
        I: IntoIterator<Item = KItem>,
        I::IntoIter: DoubleEndedIterator,
    {
        self.k.pop();
        self.k.extend(items.into_iter().rev());
    }

    /// `<k> X => T ...</k>`.
    pub fn replace_top_term(&mut self, term: Term) {
        self.k.pop();
        self.k.push(KItem::Term(term));
    }

    /// `<k> X => . ...</k>`.
    pub fn pop_top(&mut self) -> Option<KItem> {
        self.k.pop()
    }

    /// Pushes an item in front of the current top (heating).
    pub fn push(&mut self, item: KItem) {
        self.k.push(item);
    }

    /// The value of the tensor header that `<env>` binds `x` to, as `(element 0, length)`.
    pub fn header_of(&self, x: &Sym) -> Option<(i64, i64)> {
        let loc = *self.env.get(x)?;
        match self.store.get(loc)?.node() {
            Node::Tensor { loc, len } => Some((*loc, *len)),
            _ => None,
        }
    }

    pub fn shape_of(&self, x: &Sym) -> Option<&Ints> {
        self.shape.get(&MapKey::id(x))
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&config_to_string(self))
    }
}

#[cfg(test)]
mod tests;
