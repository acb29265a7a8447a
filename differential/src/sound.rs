//! Programs in the fragment where the published rules are sound (docs/semantics.md §3 lists what
//! falls outside): there the published and the revised rules must compute the same value.
//!
//! Inside the fragment: vectors and matrices with no zero dimension, written and read with
//! in-range comma indices; Float arithmetic (`+`, `*`, `max`, `min`) on moderate finite values;
//! scalar `let`s, nested ones included; `linear` of a written matrix and a written vector of
//! the matching length, its output read element by element and biased; `reluTensor` on
//! matrices (§3(a): rank 1 is a copy), `sigmoidTensor` on vectors and matrices; `ArgMax` over a vector whose published helper neither ties nor
//! returns 0 (§3(d)). Names are never reused (§3(i)) and tensors never aliased (§3(l)); layers
//! are not chained (§3(m)); no Int arithmetic (§3(f)), no scalar `relu`/`tanh`/`sigmoid`
//! (§3(g)), no `tanhTensor`: the revised `tanh` uses an overflow-free formula
//! (`docs/semantics.md`, Rev-13) whose last bit can differ from the published one.

use crate::generate::Rng;
use crate::program::{Act, BinOp, Final, Input, Program, Scalar, Stmt};

/// A tensor in scope, and whether its elements may be read by index (every tensor here) and
/// used as the input of `linear` (only a written vector: the published `linear` needs
/// nothing of `x`, the revised one its shape).
#[derive(Clone)]
struct Tensor {
    name: String,
    dims: Vec<usize>,
    written: bool,
}

struct Gen {
    rng: Rng,
    tensors: Vec<Tensor>,
    scalars: Vec<String>,
    stmts: Vec<Stmt>,
    fresh: usize,
}

/// The program of `seed`, inside the fragment.
pub fn program(seed: u64) -> Program {
    let mut g = Gen { rng: Rng::new(seed), tensors: Vec::new(), scalars: Vec::new(), stmts: Vec::new(), fresh: 0 };
    let input = g.rng.chance(30).then(|| {
        let shape =
            if g.rng.chance(60) { vec![1 + g.rng.below(4)] } else { vec![1 + g.rng.below(3), 1 + g.rng.below(3)] };
        let n: usize = shape.iter().product();
        let row = (0..n).map(|_| g.value()).collect();
        Input { name: "x".into(), shape, rows: vec![row] }
    });
    if let Some(input) = &input {
        g.tensors.push(Tensor { name: input.name.clone(), dims: input.shape.clone(), written: true });
    }
    for _ in 0..1 + g.rng.below(8) {
        g.statement();
    }
    let result = if g.rng.chance(35) { g.argmax() } else { Final::Scalar(g.scalar(3)) };
    Program { seed, input, stmts: g.stmts, result }
}

impl Gen {
    fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    /// A moderate Float with two decimals: sums and products of a few stay finite and exact
    /// enough to be interesting, ties and zeros happen.
    fn value(&mut self) -> f64 {
        (self.rng.below(2001) as f64 - 1000.0) / 100.0
    }

    fn index(&mut self, dims: &[usize]) -> Vec<i64> {
        dims.iter().map(|&d| self.rng.below(d) as i64).collect()
    }

    fn scalar(&mut self, depth: usize) -> Scalar {
        if depth == 0 || self.rng.chance(45) {
            return match self.rng.weighted(&[40, 20, 40]) {
                1 if !self.scalars.is_empty() => Scalar::Var(self.rng.pick(&self.scalars).clone()),
                2 if !self.tensors.is_empty() => {
                    let t = self.rng.pick(&self.tensors).clone();
                    Scalar::Read(t.name, self.index(&t.dims))
                }
                _ => Scalar::Float(self.value()),
            };
        }
        if self.rng.chance(8) {
            let name = self.fresh("n");
            let value = self.scalar(depth - 1);
            self.scalars.push(name.clone());
            let body = self.scalar(depth - 1);
            self.scalars.pop();
            return Scalar::Nested(name, Box::new(value), Box::new(body));
        }
        let op = *self.rng.pick(&[BinOp::Add, BinOp::Mul, BinOp::Max, BinOp::Min]);
        Scalar::Bin(op, Box::new(self.scalar(depth - 1)), Box::new(self.scalar(depth - 1)))
    }

    fn alloc(&mut self, dims: Vec<usize>, written: bool) -> String {
        let name = self.fresh("t");
        self.stmts.push(Stmt::Alloc { name: name.clone(), dims: dims.clone() });
        self.tensors.push(Tensor { name: name.clone(), dims, written });
        name
    }

    fn statement(&mut self) {
        match self.rng.weighted(&[15, 30, 12, 15, 15, 8]) {
            0 => {
                let dims = if self.rng.chance(50) {
                    vec![1 + self.rng.below(4)]
                } else {
                    vec![1 + self.rng.below(3), 1 + self.rng.below(3)]
                };
                self.alloc(dims, true);
            }
            1 => {
                let writable: Vec<Tensor> = self.tensors.iter().filter(|t| t.written).cloned().collect();
                if let Some(t) = (!writable.is_empty()).then(|| self.rng.pick(&writable).clone()) {
                    let index = self.index(&t.dims);
                    let value = self.scalar(2);
                    self.stmts.push(Stmt::Write { tensor: t.name, index, value });
                }
            }
            2 => {
                let value = self.scalar(2);
                let name = self.fresh("s");
                self.stmts.push(Stmt::Let { name: name.clone(), value });
                self.scalars.push(name);
            }
            3 => self.layer(),
            4 => self.activate(),
            _ => {
                let outputs: Vec<Tensor> =
                    self.tensors.iter().filter(|t| !t.written && t.dims.len() == 1).cloned().collect();
                if !outputs.is_empty() {
                    let t = self.rng.pick(&outputs).clone();
                    let index = self.rng.below(t.dims[0]) as i64;
                    let add = self.value();
                    self.stmts.push(Stmt::Bias { tensor: t.name, index, add });
                }
            }
        }
    }

    /// `linear` of a new matrix and a written vector of matching length (a new one if none).
    fn layer(&mut self) {
        let vectors: Vec<Tensor> = self.tensors.iter().filter(|t| t.written && t.dims.len() == 1).cloned().collect();
        let (x, cols) = match vectors.last() {
            Some(t) if self.rng.chance(70) => (t.name.clone(), t.dims[0]),
            _ => {
                let n = 1 + self.rng.below(4);
                let x = self.alloc(vec![n], true);
                for i in 0..n {
                    let value = Scalar::Float(self.value());
                    self.stmts.push(Stmt::Write { tensor: x.clone(), index: vec![i as i64], value });
                }
                (x, n)
            }
        };
        let rows = 1 + self.rng.below(4);
        let w = self.alloc(vec![rows, cols], true);
        for i in 0..rows {
            for j in 0..cols {
                if self.rng.chance(80) {
                    let value = Scalar::Float(self.value());
                    self.stmts.push(Stmt::Write { tensor: w.clone(), index: vec![i as i64, j as i64], value });
                }
            }
        }
        let out = self.fresh("z");
        self.stmts.push(Stmt::Linear { out: out.clone(), w, x });
        self.tensors.push(Tensor { name: out, dims: vec![rows], written: false });
    }

    fn activate(&mut self) {
        // relu on written matrices, sigmoid on vectors and matrices.
        let act = *self.rng.pick(&[Act::Relu, Act::Sigmoid]);
        let fits = |t: &Tensor| {
            t.written
                && match act {
                    Act::Relu => t.dims.len() == 2,
                    Act::Tanh => false,
                    Act::Sigmoid => true,
                }
        };
        let candidates: Vec<Tensor> = self.tensors.iter().filter(|t| fits(t)).cloned().collect();
        if candidates.is_empty() {
            return;
        }
        let t = self.rng.pick(&candidates).clone();
        let out = self.fresh("h");
        self.stmts.push(Stmt::Activate { out: out.clone(), act, arg: Scalar::Var(t.name) });
        self.tensors.push(Tensor { name: out, dims: t.dims, written: false });
    }

    /// A new vector written with literals the published `ArgMax` helper can go through: from
    /// running maximum 0.0 at index 0, every element strictly above or below the running
    /// maximum, and the answer not 0 (`drop-int-zero` would erase it).
    fn argmax(&mut self) -> Final {
        let n = 2 + self.rng.below(3);
        let values: Vec<f64> = loop {
            let candidate: Vec<f64> = (0..n).map(|_| self.value()).collect();
            if published_argmax(&candidate).is_some_and(|i| i != 0) {
                break candidate;
            }
        };
        let v = self.alloc(vec![n], false);
        for (i, value) in values.into_iter().enumerate() {
            self.stmts.push(Stmt::Write { tensor: v.clone(), index: vec![i as i64], value: Scalar::Float(value) });
        }
        Final::ArgMax(v)
    }
}

/// The published `ArgMax` helper (§3(d)): `None` where it gets stuck (a tie with the running
/// maximum, which starts at 0.0).
fn published_argmax(values: &[f64]) -> Option<usize> {
    let (mut best, mut index) = (0.0, 0);
    for (i, &v) in values.iter().enumerate() {
        if v > best {
            (best, index) = (v, i);
        } else if v.partial_cmp(&best) != Some(std::cmp::Ordering::Less) {
            return None;
        }
    }
    Some(index)
}
