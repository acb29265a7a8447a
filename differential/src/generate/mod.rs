//! Random revised programs, weighted so that every construct and every revised rule is
//! reached: tensors of rank 1–3 with small shapes (0 and 1 included), element writes and reads
//! in and out of range, `linear` with matching and mismatching shapes, the three activations at
//! every rank, chained layers (`linear` → bias `let`s → activation → …), `ArgMax` over ties,
//! negative and zero vectors, scalar arithmetic on Ints, Floats and both, scalar activations,
//! shadowing and aliasing, values large enough to saturate or overflow, NaN literals rarely.
//!
//! Generation is a function of a seed: a failing case is reproduced from the seed it prints.

mod batch_norm;
mod matmul;
mod pad;
mod rng;
mod shape;
mod statements;
mod windows;

use crate::program::{BinOp, Final, Input, Program, Scalar, Stmt};

pub use rng::Rng;
pub use shape::Shape;

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
    /// Whether the input `x` is an image `C×H×W`: the window operators then take it, or
    /// tensors computed from it, more often (`windows.rs`).
    image: bool,
    scope: Vec<(String, Binding)>,
    stmts: Vec<Stmt>,
    fresh: usize,
}

/// The program of `seed`.
pub fn program(seed: u64, shape: Shape) -> Program {
    let mut g = Gen {
        rng: Rng::new(seed),
        max_rank: shape.max_rank,
        moderate: shape.moderate,
        extensions: shape.extensions,
        image: false,
        scope: Vec::new(),
        stmts: Vec::new(),
        fresh: 0,
    };
    let input = g.rng.chance(shape.input_percent).then(|| g.input(shape.vector_input));
    if let Some(input) = &input {
        g.scope.push((input.name.clone(), Binding::Tensor(input.shape.clone())));
    }
    // An image input goes through a window operator first, most of the time, so that the
    // plan's fused `Conv2d`, `Pool2d` and `Copy` run on it before anything fails.
    if g.image && g.rng.chance(60) {
        g.window();
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

    /// The input `x`: a vector mostly, else a matrix or, where the extensions and rank 3 are
    /// allowed, an image `C×H×W` (small), so that the window operators of the plan
    /// (`Op::Conv2d`, `Op::Pool2d`, `Op::Copy`, fused when their image is one buffer computed
    /// from the input) meet the reference in `engines_agree` and `batch_equals_rows`.
    fn input(&mut self, vector: bool) -> Input {
        let shape = if vector || self.rng.chance(75) {
            vec![1 + self.rng.below(5)]
        } else if self.extensions && self.max_rank >= 3 && self.rng.chance(50) {
            self.image = true;
            vec![*self.rng.pick(&[1, 2, 2, 4]), 1 + self.rng.below(4), 1 + self.rng.below(4)]
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
        // Ext-7's `-` and `/` take one of the two draws of `+` and `*` (a draw no more, so a seed
        // keeps its program's shape); moderate programs do not divide (a quotient by a small
        // value would magnify fast math's rounding beyond its tolerance).
        let ops = match (self.extensions, self.moderate) {
            (true, false) => [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Div, BinOp::Max, BinOp::Min],
            (true, true) => [BinOp::Add, BinOp::Sub, BinOp::Mul, BinOp::Mul, BinOp::Max, BinOp::Min],
            (false, _) => [BinOp::Add, BinOp::Add, BinOp::Mul, BinOp::Mul, BinOp::Max, BinOp::Min],
        };
        let op = *self.rng.pick(&ops);
        Scalar::Bin(op, Box::new(self.scalar(depth - 1)), Box::new(self.scalar(depth - 1)))
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
