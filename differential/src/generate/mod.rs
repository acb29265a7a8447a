//! Random revised programs, weighted so that every construct and every revised rule is
//! reached: tensors of rank 1–3 with small shapes (0 and 1 included), element writes and reads
//! in and out of range, `linear` with matching and mismatching shapes, the three activations at
//! every rank, chained layers (`linear` → bias `let`s → activation → …), `ArgMax` over ties,
//! negative and zero vectors, scalar arithmetic on Ints, Floats and both, scalar activations,
//! shadowing and aliasing, values large enough to saturate or overflow, NaN literals rarely.
//!
//! Generation is a function of a seed: a failing case is reproduced from the seed it prints.

use crate::program::{Act, BinOp, Final, Input, Program, Scalar, Stmt};
use knn_interpreter::verify::falsify::SplitMix;

/// SplitMix64 (the verifier's generator): small, fast, and the same sequence everywhere for a
/// seed.
pub struct Rng(SplitMix);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(SplitMix::new(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`%.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// An index into `weights`, chosen with those weights.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut at = self.below(total as usize) as u32;
        for (k, w) in weights.iter().enumerate() {
            if at < *w {
                return k;
            }
            at -= w;
        }
        weights.len() - 1
    }

    /// A Float worth testing: small values with ties likely, signed zeros, integers, values
    /// large enough for tanh/sigmoid saturation and overflow, rarely NaN or an infinity.
    pub fn float(&mut self) -> f64 {
        match self.weighted(&[30, 25, 8, 8, 6, 6, 3, 2, 2]) {
            0 => *self.pick(&[0.0, 1.0, -1.0, 2.5, -2.5, 0.5]),
            1 => (self.below(801) as f64 - 400.0) / 100.0,
            2 => *self.pick(&[0.0, -0.0]),
            3 => self.below(10) as f64 - 5.0,
            4 => *self.pick(&[400.0, -400.0, 710.0, -745.0, 30.0]),
            5 => *self.pick(&[1e308, -1e308, 1.7e308, 1e300, -1e300]),
            6 => *self.pick(&[5e-324, -2.2e-308, 1e-300]),
            7 => *self.pick(&[f64::INFINITY, f64::NEG_INFINITY]),
            _ => f64::NAN,
        }
    }

    /// A Float of moderate size with two decimals (ties and zeros likely): no overflow, no
    /// NaN, no subnormal.
    pub fn moderate_float(&mut self) -> f64 {
        match self.weighted(&[30, 60, 10]) {
            0 => *self.pick(&[0.0, 1.0, -1.0, 2.5, -2.5, 0.5]),
            1 => (self.below(2001) as f64 - 1000.0) / 100.0,
            _ => -0.0,
        }
    }

    /// A non-negative Int literal; rarely one whose product overflows 64 bits.
    pub fn int(&mut self) -> i64 {
        match self.weighted(&[70, 20, 10]) {
            0 => self.below(4) as i64,
            1 => self.below(100) as i64,
            // The largest literal the parser accepts (2^62 - 1): `+` and `*` of two overflow.
            _ => knn_semantics::syntax::lexer::MAX_INT_LITERAL,
        }
    }
}

/// A name no program binds: reading or writing it is an error.
pub const UNBOUND: &str = "nowhere";

/// What the generator knows about a name in scope.
#[derive(Clone, Debug)]
enum Binding {
    Tensor(Vec<usize>),
    Scalar,
}

struct Gen {
    rng: Rng,
    max_rank: usize,
    moderate: bool,
    extensions: bool,
    scope: Vec<(String, Binding)>,
    stmts: Vec<Stmt>,
    fresh: usize,
}

/// How programs are drawn.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Statements drawn (a layer counts as one and expands to several).
    pub max_stmts: usize,
    /// Percent of programs with an input `x`.
    pub input_percent: u32,
    /// Whether the input is always a vector (for batches).
    pub vector_input: bool,
    /// The highest rank `initTensor` gets (the published rules' rank-3 allocation is broken,
    /// and `search` over it explores tens of thousands of states).
    pub max_rank: usize,
    /// Only moderate Floats ([`Rng::moderate_float`]) and small Ints, indices in range, no
    /// deliberate mistakes, no `ArgMax` result: programs whose values can be compared.
    pub moderate: bool,
    /// Whether programs may use the extensions' constructs (Ext-1 `addTensor`), which only the
    /// revised profile has.
    pub extensions: bool,
}

impl Default for Shape {
    fn default() -> Shape {
        Shape { max_stmts: 10, input_percent: 40, vector_input: false, max_rank: 3, moderate: false, extensions: true }
    }
}

/// The shapes of the properties, named once so that the quickcheck tests and the seed scanner
/// draw the same programs.
impl Shape {
    /// Always an input `x` (the batch properties give it several rows).
    pub fn batched() -> Shape {
        Shape { input_percent: 100, ..Shape::default() }
    }

    /// Always an input, moderate values only: the programs of the fast-math tolerance.
    pub fn moderate_values() -> Shape {
        Shape { input_percent: 100, moderate: true, ..Shape::default() }
    }

    /// Up to 4 statements, rank 2 at most, no extensions: programs for `search` under the
    /// published rules (which have no extensions). `search` explores every state a run passes
    /// through and hashes each configuration, so its cost grows faster than the program.
    pub fn short() -> Shape {
        Shape { max_stmts: 4, max_rank: 2, extensions: false, ..Shape::default() }
    }
}

/// The program of `seed`.
pub fn program(seed: u64, shape: Shape) -> Program {
    let mut g = Gen {
        rng: Rng::new(seed),
        max_rank: shape.max_rank,
        moderate: shape.moderate,
        extensions: shape.extensions,
        scope: Vec::new(),
        stmts: Vec::new(),
        fresh: 0,
    };
    let input = g.rng.chance(shape.input_percent).then(|| g.input(shape.vector_input));
    if let Some(input) = &input {
        g.scope.push((input.name.clone(), Binding::Tensor(input.shape.clone())));
    }
    let count = 1 + g.rng.below(shape.max_stmts);
    for _ in 0..count {
        g.statement();
    }
    let result = g.result();
    Program { seed, input, stmts: g.stmts, result }
}

impl Gen {
    fn float(&mut self) -> f64 {
        if self.moderate { self.rng.moderate_float() } else { self.rng.float() }
    }

    fn int(&mut self) -> i64 {
        if self.moderate { self.rng.below(10) as i64 } else { self.rng.int() }
    }

    fn input(&mut self, vector: bool) -> Input {
        let shape = if vector || self.rng.chance(75) {
            vec![1 + self.rng.below(5)]
        } else {
            vec![1 + self.rng.below(3), 1 + self.rng.below(3)]
        };
        let n: usize = shape.iter().product();
        let count = 1 + self.rng.below(24);
        let rows = (0..count).map(|_| (0..n).map(|_| self.float()).collect()).collect();
        Input { name: "x".into(), shape, rows }
    }

    /// A new name, or (sometimes) one already in scope: shadowing.
    fn name(&mut self, prefix: &str) -> String {
        if self.rng.chance(8) && !self.scope.is_empty() {
            return self.scope[self.rng.below(self.scope.len())].0.clone();
        }
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn bind(&mut self, name: String, binding: Binding) {
        self.scope.push((name, binding));
    }

    /// The latest binding of each name in scope, latest first.
    fn visible(&self) -> Vec<(String, Binding)> {
        let mut out: Vec<(String, Binding)> = Vec::new();
        for (name, binding) in self.scope.iter().rev() {
            if !out.iter().any(|(n, _)| n == name) {
                out.push((name.clone(), binding.clone()));
            }
        }
        out
    }

    /// The tensors in scope, with their shapes.
    fn tensors(&self) -> Vec<(String, Vec<usize>)> {
        self.visible()
            .into_iter()
            .filter_map(|(name, b)| match b {
                Binding::Tensor(dims) => Some((name, dims)),
                Binding::Scalar => None,
            })
            .collect()
    }

    fn scalars(&self) -> Vec<String> {
        self.visible().into_iter().filter(|(_, b)| matches!(b, Binding::Scalar)).map(|(n, _)| n).collect()
    }

    fn dims(&mut self) -> Vec<usize> {
        let rank = 1 + self.rng.weighted(&[50, 35, 15][..self.max_rank.clamp(1, 3)]);
        (0..rank).map(|_| *self.rng.pick(&[0, 1, 1, 2, 2, 3, 3, 4, 2, 3, 4, 1, 2, 3, 4, 2, 3, 4, 3, 2])).collect()
    }

    /// Indices into `dims`: in range mostly, sometimes past the end, sometimes too few or too many.
    fn index(&mut self, dims: &[usize]) -> Vec<i64> {
        if self.moderate && dims.iter().all(|&d| d > 0) {
            // Values to compare, not errors: in range, every dimension.
            return dims.iter().map(|&d| self.rng.below(d) as i64).collect();
        }
        let mut ints: Vec<i64> = dims
            .iter()
            .map(|&d| match self.rng.weighted(&[90, 10]) {
                0 if d > 0 => self.rng.below(d) as i64,
                _ => (d + self.rng.below(2)) as i64,
            })
            .collect();
        match self.rng.weighted(&[90, 6, 4]) {
            1 if ints.len() > 1 => {
                ints.pop();
            }
            2 => ints.push(0),
            _ => {}
        }
        ints
    }

    fn scalar(&mut self, depth: usize) -> Scalar {
        let leaf = depth == 0 || self.rng.chance(45);
        if leaf {
            let tensors = self.tensors();
            let scalars = self.scalars();
            return match self.rng.weighted(&[35, 12, 18, 35, 1]) {
                1 => Scalar::Int(self.int()),
                4 => Scalar::Var(UNBOUND.into()),
                2 if !scalars.is_empty() => Scalar::Var(self.rng.pick(&scalars).clone()),
                3 if !tensors.is_empty() => {
                    let (name, dims) = self.rng.pick(&tensors).clone();
                    Scalar::Read(name, self.index(&dims))
                }
                _ => Scalar::Float(self.float()),
            };
        }
        if self.rng.chance(6) {
            self.fresh += 1;
            let name = format!("n{}", self.fresh);
            let value = self.scalar(depth - 1);
            self.scope.push((name.clone(), Binding::Scalar));
            let body = self.scalar(depth - 1);
            self.scope.pop();
            return Scalar::Nested(name, Box::new(value), Box::new(body));
        }
        let op = *self.rng.pick(&[BinOp::Add, BinOp::Add, BinOp::Mul, BinOp::Mul, BinOp::Max, BinOp::Min]);
        Scalar::Bin(op, Box::new(self.scalar(depth - 1)), Box::new(self.scalar(depth - 1)))
    }

    fn statement(&mut self) {
        // Moderate programs are for comparing values: more layers, no deliberate mistakes.
        let mut weights =
            if self.moderate { [14, 22, 8, 5, 30, 4, 10, 5, 6, 0, 6] } else { [14, 22, 8, 5, 12, 4, 10, 5, 6, 2, 6] };
        if !self.extensions {
            weights[10] = 0;
        }
        match self.rng.weighted(&weights) {
            0 => {
                self.alloc(None);
            }
            1 => self.write(),
            2 => {
                let value = self.scalar(2);
                let name = self.name("s");
                self.stmts.push(Stmt::Let { name: name.clone(), value });
                self.bind(name, Binding::Scalar);
            }
            3 => {
                let arg = self.scalar(2);
                let name = self.name("s");
                self.stmts.push(Stmt::ScalarFn { name: name.clone(), act: *self.rng.pick(&Act::ALL), arg });
                self.bind(name, Binding::Scalar);
            }
            4 => self.layer(),
            5 => {
                let tensors = self.tensors();
                if tensors.len() >= 2 {
                    let (w, x) = (self.rng.pick(&tensors).0.clone(), self.rng.pick(&tensors).0.clone());
                    self.linear(w, x, &tensors);
                }
            }
            6 => self.activate(),
            7 => {
                // Aliasing: `let u = t in`, a scalar or a tensor.
                if let Some((name, binding)) =
                    self.scope.last().cloned().filter(|_| self.rng.chance(50)).or_else(|| {
                        let tensors = self.tensors();
                        (!tensors.is_empty()).then(|| {
                            let (n, d) = self.rng.pick(&tensors).clone();
                            (n, Binding::Tensor(d))
                        })
                    })
                {
                    let alias = self.name("a");
                    self.stmts.push(Stmt::Let { name: alias.clone(), value: Scalar::Var(name) });
                    self.bind(alias, binding);
                }
            }
            9 => self.mistake(),
            10 => self.add_tensors(),
            _ => {
                let vectors: Vec<(String, Vec<usize>)> =
                    self.tensors().into_iter().filter(|(_, d)| d.len() == 1).collect();
                if !vectors.is_empty() {
                    let (tensor, dims) = self.rng.pick(&vectors).clone();
                    let index = self.index(&dims)[0];
                    let add = self.float();
                    self.stmts.push(Stmt::Bias { tensor, index, add });
                }
            }
        }
    }

    /// A statement that is an error at run time: an element write to a scalar or to an
    /// unbound name, or a `let` whose target is an expression.
    fn mistake(&mut self) {
        let value = self.scalar(1);
        match self.rng.below(3) {
            0 if !self.scalars().is_empty() => {
                let tensor = self.rng.pick(&self.scalars()).clone();
                self.stmts.push(Stmt::Write { tensor, index: vec![0], value });
            }
            1 => self.stmts.push(Stmt::Write { tensor: UNBOUND.into(), index: vec![0], value }),
            _ => {
                let target = self.scalar(1);
                let target = match target {
                    Scalar::Read(name, ints) if self.rng.chance(50) => {
                        Scalar::Bin(BinOp::Add, Box::new(Scalar::Read(name, ints)), Box::new(Scalar::Float(1.0)))
                    }
                    Scalar::Var(_) | Scalar::Read(..) => Scalar::Float(1.0),
                    other => other,
                };
                self.stmts.push(Stmt::BadTarget { target, value });
            }
        }
    }

    fn alloc(&mut self, dims: Option<Vec<usize>>) -> String {
        let dims = dims.unwrap_or_else(|| self.dims());
        let name = self.name("t");
        self.stmts.push(Stmt::Alloc { name: name.clone(), dims: dims.clone() });
        self.bind(name.clone(), Binding::Tensor(dims));
        name
    }

    fn write(&mut self) {
        let tensors = self.tensors();
        if tensors.is_empty() {
            self.alloc(None);
            return;
        }
        let (tensor, dims) = self.rng.pick(&tensors).clone();
        let index = self.index(&dims);
        let value = if self.rng.chance(3) { Scalar::Var(tensor.clone()) } else { self.scalar(2) };
        self.stmts.push(Stmt::Write { tensor, index, value });
    }

    fn linear(&mut self, w: String, x: String, tensors: &[(String, Vec<usize>)]) {
        let out = self.name("z");
        self.stmts.push(Stmt::Linear { out: out.clone(), w: w.clone(), x });
        let rows = tensors.iter().find(|(n, _)| *n == w).map_or(1, |(_, d)| d[0]);
        self.bind(out, Binding::Tensor(vec![rows]));
    }

    fn activate(&mut self) {
        let tensors = self.tensors();
        let act = *self.rng.pick(&Act::ALL);
        let out = self.name("h");
        let (arg, dims) = if tensors.is_empty() || self.rng.chance(4) {
            (self.scalar(1), vec![1])
        } else {
            let (name, dims) = self.rng.pick(&tensors).clone();
            (Scalar::Var(name), dims)
        };
        self.stmts.push(Stmt::Activate { out: out.clone(), act, arg });
        self.bind(out, Binding::Tensor(dims));
    }

    /// `let z = addTensor(a, b) in`: mostly two tensors of one shape (often the same tensor
    /// twice, when it is the only one of its shape), sometimes of two shapes (`shape-mismatch`)
    /// or a scalar operand (`unknown-tensor`); only the first in moderate programs.
    fn add_tensors(&mut self) {
        let tensors = self.tensors();
        if tensors.is_empty() {
            return;
        }
        let (a, dims) = self.rng.pick(&tensors).clone();
        let same: Vec<String> = tensors.iter().filter(|(_, d)| *d == dims).map(|(n, _)| n.clone()).collect();
        let choice = if self.moderate { 0 } else { self.rng.weighted(&[75, 17, 8]) };
        let b = match choice {
            0 => Scalar::Var(self.rng.pick(&same).clone()),
            1 => Scalar::Var(self.rng.pick(&tensors).0.clone()),
            _ => self.scalar(1),
        };
        let (a, b) = if self.rng.chance(50) { (Scalar::Var(a), b) } else { (b, Scalar::Var(a)) };
        let out = self.name("z");
        self.stmts.push(Stmt::AddTensor { out: out.clone(), a, b });
        self.bind(out, Binding::Tensor(dims));
    }

    /// A network layer: weights written element by element, `linear`, bias `let`s, and an
    /// activation, on a vector in scope (or a new one); the shapes match except sometimes.
    fn layer(&mut self) {
        let vectors: Vec<(String, Vec<usize>)> = self.tensors().into_iter().filter(|(_, d)| d.len() == 1).collect();
        let (x, cols) = match vectors.last() {
            Some((name, dims)) if self.rng.chance(80) => (name.clone(), dims[0]),
            _ => {
                let n = 1 + self.rng.below(4);
                let x = self.alloc(Some(vec![n]));
                for i in 0..n {
                    let value = Scalar::Float(self.float());
                    self.stmts.push(Stmt::Write { tensor: x.clone(), index: vec![i as i64], value });
                }
                (x, n)
            }
        };
        let rows = 1 + self.rng.below(4);
        let w_cols = if self.rng.chance(10) { cols + 1 } else { cols };
        let w = self.alloc(Some(vec![rows, w_cols]));
        for i in 0..rows {
            for j in 0..w_cols {
                if self.rng.chance(85) {
                    let value = Scalar::Float(self.float());
                    self.stmts.push(Stmt::Write { tensor: w.clone(), index: vec![i as i64, j as i64], value });
                }
            }
        }
        let tensors = self.tensors();
        self.linear(w, x, &tensors);
        let mut z = self.stmts.last().and_then(Stmt::defines).expect("linear binds its output").to_string();
        if self.extensions && self.rng.chance(35) {
            // The bias as a vector and one `addTensor` (Ext-1); sometimes one element short.
            let len = if !self.moderate && self.rng.chance(10) { rows + 1 } else { rows };
            let b = self.alloc(Some(vec![len]));
            for i in 0..len {
                if self.rng.chance(85) {
                    let value = Scalar::Float(self.float());
                    self.stmts.push(Stmt::Write { tensor: b.clone(), index: vec![i as i64], value });
                }
            }
            let out = self.name("z");
            self.stmts.push(Stmt::AddTensor { out: out.clone(), a: Scalar::Var(z), b: Scalar::Var(b) });
            self.bind(out.clone(), Binding::Tensor(vec![rows]));
            z = out;
        } else {
            for i in 0..rows {
                if self.rng.chance(70) {
                    let add = self.float();
                    self.stmts.push(Stmt::Bias { tensor: z.clone(), index: i as i64, add });
                }
            }
        }
        if self.rng.chance(80) {
            let act = *self.rng.pick(&[Act::Relu, Act::Relu, Act::Tanh, Act::Sigmoid]);
            let h = self.name("h");
            self.stmts.push(Stmt::Activate { out: h.clone(), act, arg: Scalar::Var(z) });
            self.bind(h, Binding::Tensor(vec![rows]));
        }
    }

    fn result(&mut self) -> Final {
        let tensors = self.tensors();
        // Moderate programs end in values to compare, not in an `ArgMax`.
        let weights = if self.moderate { [35, 0, 40, 15] } else { [35, 30, 20, 15] };
        match self.rng.weighted(&weights) {
            1 if !tensors.is_empty() => {
                let vectors: Vec<&(String, Vec<usize>)> = tensors.iter().filter(|(_, d)| d.len() == 1).collect();
                let name = match vectors.last() {
                    Some((name, _)) if self.rng.chance(90) => name.clone(),
                    _ => self.rng.pick(&tensors).0.clone(),
                };
                Final::ArgMax(name)
            }
            2 if !tensors.is_empty() => Final::Scalar(Scalar::Var(tensors[0].0.clone())),
            3 if !tensors.is_empty() => {
                let (name, dims) = tensors[0].clone();
                Final::Scalar(Scalar::Read(name, self.index(&dims)))
            }
            _ => Final::Scalar(self.scalar(3)),
        }
    }
}
