//! The statements of a generated program: allocations and element writes, scalar `let`s,
//! `linear`, activations, `addTensor`, `conv2d`, the pools, `reshape` and `transpose` (`windows.rs`), whole layers, aliases and
//! deliberate mistakes.

use super::{Binding, Gen, UNBOUND};
use knn_semantics::broadcast::broadcast;
use knn_semantics::syntax::{Number, TensorOp};

use crate::program::{Act, BinOp, Scalar, Stmt};

impl Gen {
    pub(super) fn statement(&mut self) {
        // Moderate programs are for comparing values: more layers, no deliberate mistakes.
        let mut weights =
            if self.moderate { [14, 22, 8, 5, 30, 4, 10, 5, 6, 0, 6] } else { [14, 22, 8, 5, 12, 4, 10, 5, 6, 2, 6] };
        if self.image {
            weights[10] = 30;
        }
        if !self.extensions {
            weights[10] = 0;
        }
        match self.rng.weighted(&weights) {
            0 if self.extensions && self.rng.chance(30) => self.literal(None),
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
            // With an image input, mostly the window operators (on it or on what came of it).
            10 if self.rng.chance(if self.image { 85 } else { 40 }) => self.window(),
            // Ext-15 drawn where `addTensor` was.
            10 if self.extensions && self.rng.chance(35) => self.matmul(),
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

    /// `let t = initTensor(dims)[…] in` (Ext-2): Floats mostly, some Ints, the generator's
    /// special values among them.
    pub(super) fn literal(&mut self, dims: Option<Vec<usize>>) {
        let dims = dims.unwrap_or_else(|| self.dims());
        let values =
            (0..dims.iter().product::<usize>())
                .map(|_| {
                    if self.rng.chance(15) {
                        Number::Int(self.rng.below(5) as i64)
                    } else {
                        Number::Float(self.float())
                    }
                })
                .collect();
        let name = self.name("t");
        self.stmts.push(Stmt::Literal { name: name.clone(), dims: dims.clone(), values });
        self.bind(name, Binding::Tensor(dims));
    }

    /// `rows × cols` weights: a literal (Ext-2), or `initTensor` and element writes of most.
    fn weights(&mut self, rows: usize, cols: usize) -> String {
        if self.extensions && self.rng.chance(40) {
            let values = (0..rows * cols).map(|_| Number::Float(self.float())).collect();
            let name = self.name("t");
            self.stmts.push(Stmt::Literal { name: name.clone(), dims: vec![rows, cols], values });
            self.bind(name.clone(), Binding::Tensor(vec![rows, cols]));
            return name;
        }
        let w = self.alloc(Some(vec![rows, cols]));
        for i in 0..rows {
            for j in 0..cols {
                if self.rng.chance(85) {
                    let value = Scalar::Float(self.float());
                    self.stmts.push(Stmt::Write { tensor: w.clone(), index: vec![i as i64, j as i64], value });
                }
            }
        }
        w
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
    /// twice, when it is the only one of its shape), sometimes of two shapes (`shape-mismatch`,
    /// or a broadcast since Ext-8) or a scalar operand (`unknown-tensor`); only the first in
    /// moderate programs. With the extensions, half the time (not in moderate programs)
    /// `subTensor`, `mulTensor` or `divTensor` (Ext-8), with a third choice of operand: a fresh
    /// tensor of a shape that broadcasts with `a`'s (its dimensions from the right, some 1).
    fn add_tensors(&mut self) {
        let tensors = self.tensors();
        if tensors.is_empty() {
            return;
        }
        let (a, dims) = self.rng.pick(&tensors).clone();
        let same: Vec<String> = tensors.iter().filter(|(_, d)| *d == dims).map(|(n, _)| n.clone()).collect();
        let choice = if self.moderate { 0 } else { self.rng.weighted(&[75, 17, 8]) };
        let broadcasting = self.extensions && !self.moderate;
        let b = match choice {
            0 if broadcasting && self.rng.chance(30) => Scalar::Var(self.broadcast_partner(&dims, &tensors)),
            0 => Scalar::Var(self.rng.pick(&same).clone()),
            1 => Scalar::Var(self.rng.pick(&tensors).0.clone()),
            _ => self.scalar(1),
        };
        let op = if broadcasting && self.rng.chance(50) {
            Some(*self.rng.pick(&[TensorOp::Sub, TensorOp::Mul, TensorOp::Div]))
        } else {
            None
        };
        let b_dims = match &b {
            Scalar::Var(name) => tensors.iter().chain(&self.tensors()).find(|(n, _)| n == name).map(|(_, d)| d.clone()),
            _ => None,
        };
        let (a, b) = if self.rng.chance(50) { (Scalar::Var(a), b) } else { (b, Scalar::Var(a)) };
        // The result's shape, when the operands broadcast (the generator's view of it).
        let as_i64 = |d: &[usize]| d.iter().map(|&n| n as i64).collect::<Vec<i64>>();
        let out_dims = b_dims
            .and_then(|b| broadcast(&as_i64(&dims), &as_i64(&b)))
            .map_or(dims, |o| o.into_iter().map(|n| n as usize).collect());
        let out = self.name("z");
        self.stmts.push(Stmt::AddTensor { out: out.clone(), a, b, op });
        self.bind(out, Binding::Tensor(out_dims));
    }

    /// A tensor whose shape broadcasts with `dims`: half the time one in scope (of another
    /// shape that broadcasts to `dims`, when there is one: the engine then reads it through a
    /// gather), else a fresh zero tensor of its last dimensions, each sometimes 1.
    fn broadcast_partner(&mut self, dims: &[usize], tensors: &[(String, Vec<usize>)]) -> String {
        let as_i64 = |d: &[usize]| d.iter().map(|&n| n as i64).collect::<Vec<i64>>();
        let smaller: Vec<String> = tensors
            .iter()
            .filter(|(_, d)| d != dims && broadcast(&as_i64(dims), &as_i64(d)) == Some(as_i64(dims)))
            .map(|(n, _)| n.clone())
            .collect();
        if !smaller.is_empty() && self.rng.chance(50) {
            return self.rng.pick(&smaller).clone();
        }
        let rank = 1 + self.rng.below(dims.len());
        let partner: Vec<usize> =
            dims[dims.len() - rank..].iter().map(|&d| if self.rng.chance(40) { 1 } else { d }).collect();
        self.alloc(Some(partner))
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
        let w = self.weights(rows, w_cols);
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
            self.stmts.push(Stmt::AddTensor { out: out.clone(), a: Scalar::Var(z), b: Scalar::Var(b), op: None });
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
        // An imported batch normalisation or scaling: `z[i] * a (+ b)` on most elements; or
        // (Ext-14) a `batchNorm` of the vector, its rows channels of one element.
        if self.rng.chance(20) {
            if self.extensions && self.rng.chance(30) {
                z = self.batch_norm(z, &[rows]);
            } else {
                // Or (Ext-7) a normalisation `(z[i] - m) / s`, its scale zero at times.
                let normalise = self.extensions && !self.moderate && self.rng.chance(30);
                for i in 0..rows {
                    if self.rng.chance(80) {
                        let factor = self.float();
                        let add = self.rng.chance(60).then(|| self.float());
                        let index = i as i64;
                        self.stmts.push(match add {
                            Some(shift) if normalise => {
                                Stmt::Normalise { tensor: z.clone(), index, shift, scale: factor }
                            }
                            _ => Stmt::Scale { tensor: z.clone(), index, factor, add },
                        });
                    }
                }
            }
        }
        if self.rng.chance(80) {
            let act = *self.rng.pick(&[Act::Relu, Act::Relu, Act::Tanh, Act::Sigmoid]);
            let h = self.name("h");
            self.stmts.push(Stmt::Activate { out: h.clone(), act, arg: Scalar::Var(z.clone()) });
            self.bind(h.clone(), Binding::Tensor(vec![rows]));
            if self.extensions && !self.moderate && self.rng.chance(25) {
                self.residual(h, z, rows);
            }
        }
    }

    /// A residual connection after a layer: its activation's output `h` plus (or minus) the
    /// product `z` before it, or a `[1]` computed from `h` and broadcast against it (two
    /// tensors computed from the input: the engine's `Combine` of two runs, or a run and a
    /// gather).
    fn residual(&mut self, h: String, z: String, rows: usize) {
        let skip = if self.rng.chance(50) {
            z
        } else {
            let w = self.weights(1, rows);
            let tensors = self.tensors();
            self.linear(w, h.clone(), &tensors);
            self.stmts.last().and_then(Stmt::defines).expect("linear binds its output").to_string()
        };
        let op = *self.rng.pick(&[None, Some(TensorOp::Sub)]);
        let out = self.name("z");
        self.stmts.push(Stmt::AddTensor { out: out.clone(), a: Scalar::Var(h), b: Scalar::Var(skip), op });
        self.bind(out, Binding::Tensor(vec![rows]));
    }
}
