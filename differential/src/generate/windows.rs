//! The window operators of a generated program: `conv2d` (Ext-3), `maxPool2d` and `avgPool2d`
//! (Ext-4), `reshape`, `flatten` (Ext-5), `transpose` (Ext-6), Ext-9's and Ext-10's
//! functions of one tensor along axes, `concat` (Ext-11) and `slice` (Ext-12), drawn so that they usually fit their operands and
//! sometimes do not.

use knn_semantics::revisions::axes::reduced_shape;
use knn_semantics::syntax::{Attr, AttrName, Attrs, Axes, Pool, TensorMath};

use super::{Binding, Gen};
use crate::program::{Scalar, Stmt};

impl Gen {
    /// One of the window operators: `conv2d`, a pool, `reshape`/`flatten`, `transpose`, Ext-9's
    /// and Ext-10's functions, `concat`, `slice`.
    pub(super) fn window(&mut self) {
        match self.rng.below(3) {
            0 => self.conv2d(),
            1 => self.pool2d(),
            // `transpose` drawn where `reshape` was, so that earlier draws keep their programs.
            _ if self.rng.chance(40) => self.transpose(),
            // Ext-9 and Ext-10 drawn where `reshape` was.
            _ if self.rng.chance(40) => self.tensor_math(),
            // Ext-11 drawn where `reshape` was.
            // Ext-11 drawn where `reshape` was, Ext-12 where Ext-11 was (so that `reshape`
            // keeps its share and its programs).
            _ if self.rng.chance(50) => {
                if self.rng.chance(35) {
                    self.slice()
                } else {
                    self.concat()
                }
            }
            // Ext-13's `pad` drawn where `reshape` was (`pad.rs`).
            _ if self.rng.chance(30) => self.pad(),
            // Ext-15 drawn where `reshape` was.
            _ if self.rng.chance(30) => self.matmul(),
            // Ext-14 drawn where `reshape` was (`batch_norm.rs`).
            _ if self.rng.chance(20) => self.batch_norm_in_scope(),
            _ => self.reshape(),
        }
    }

    /// `let y = conv2d(x, w, b, …) in` (Ext-3): an input of shape `C×H×W` (a rank-3 tensor in
    /// scope, or a new literal), a kernel literal that fits it (`M×C/G×KH×KW`), a bias literal
    /// half the time, strides, pads, dilations and groups within what fits; in programs that
    /// may fail, sometimes a kernel with a channel too many (`shape-mismatch`), a stride of 0
    /// (`invalid-attribute`) or a scalar kernel (`unknown-tensor`).
    pub(super) fn conv2d(&mut self) {
        let group = if self.rng.chance(25) { 2 } else { 1 };
        let in_scope: Vec<(String, Vec<usize>)> = self
            .tensors()
            .into_iter()
            .filter(|(_, d)| d.len() == 3 && d.iter().all(|&n| n > 0) && d[0] % group == 0)
            .collect();
        let (x, dims) = if !in_scope.is_empty() && self.rng.chance(self.in_scope_percent()) {
            self.pick_image(&in_scope)
        } else {
            let dims = vec![group * (1 + self.rng.below(2)), 1 + self.rng.below(4), 1 + self.rng.below(4)];
            self.literal(Some(dims.clone()));
            (self.defined(), dims)
        };
        let (c, h, wd) = (dims[0], dims[1], dims[2]);
        let mut attrs = Vec::new();
        let mut attr =
            |name, values: &[usize]| attrs.push(Attr::new(name, &values.iter().map(|&v| v as i64).collect::<Vec<_>>()));
        let pads: Vec<usize> =
            if self.rng.chance(40) { (0..4).map(|_| self.rng.below(2)).collect() } else { vec![0; 4] };
        if pads.iter().any(|&p| p > 0) {
            attr(AttrName::Pads, &pads);
        }
        let strides = [1 + usize::from(self.rng.chance(30)), 1 + usize::from(self.rng.chance(30))];
        let dilations = [1 + usize::from(self.rng.chance(20)), 1 + usize::from(self.rng.chance(20))];
        // The longest kernel whose dilated span fits in the padded input, at most 3.
        let fits = |n: usize, a: usize, z: usize, d: usize| ((n + a + z - 1) / d + 1).min(3);
        let kh = 1 + self.rng.below(fits(h, pads[0], pads[2], dilations[0]));
        let kw = 1 + self.rng.below(fits(wd, pads[1], pads[3], dilations[1]));
        let mistake = if self.moderate || !self.rng.chance(15) { None } else { Some(self.rng.below(3)) };
        match (mistake, strides) {
            (Some(1), _) => attr(AttrName::Strides, &[0, 1]),
            (_, [1, 1]) => {}
            _ => attr(AttrName::Strides, &strides),
        }
        if dilations != [1, 1] {
            attr(AttrName::Dilations, &dilations);
        }
        if group != 1 || self.rng.chance(10) {
            attr(AttrName::Group, &[group]);
        }
        let m = group * (1 + self.rng.below(2));
        let per_group = c / group + usize::from(mistake == Some(0));
        let w = if mistake == Some(2) {
            self.scalar(1)
        } else {
            self.literal(Some(vec![m, per_group, kh, kw]));
            Scalar::Var(self.defined())
        };
        let b = self.rng.chance(50).then(|| {
            self.literal(Some(vec![m]));
            Scalar::Var(self.defined())
        });
        let extent =
            |n: usize, a: usize, z: usize, k: usize, d: usize, s: usize| (n + a + z - (d * (k - 1) + 1)) / s + 1;
        let out_dims = vec![
            m,
            extent(h, pads[0], pads[2], kh, dilations[0], strides[0]),
            extent(wd, pads[1], pads[3], kw, dilations[1], strides[1]),
        ];
        let out = self.name("y");
        self.stmts.push(Stmt::Conv2d { out: out.clone(), x: Scalar::Var(x), w, b, attrs: Attrs(attrs) });
        self.bind(out, Binding::Tensor(out_dims));
    }

    /// `let y = maxPool2d(x, …) in` or `avgPool2d` (Ext-4): an input of shape `C×H×W` (a rank-3
    /// tensor in scope, or a new literal), a window that fits it with its padding, strides,
    /// dilations (max) or `countPad` (average); in programs that may fail, sometimes a window
    /// too large (`shape-mismatch`), a kernel of 0 (`invalid-attribute`) or a scalar input
    /// (`unknown-tensor`).
    pub(super) fn pool2d(&mut self) {
        let pool = if self.rng.chance(50) { Pool::Max } else { Pool::Avg };
        let in_scope: Vec<(String, Vec<usize>)> =
            self.tensors().into_iter().filter(|(_, d)| d.len() == 3 && d.iter().all(|&n| n > 0)).collect();
        let mistake = if self.moderate || !self.rng.chance(25) { None } else { Some(self.rng.below(3)) };
        let (x, dims) = if !in_scope.is_empty() && self.rng.chance(self.in_scope_percent()) {
            self.pick_image(&in_scope)
        } else {
            let dims = vec![1 + self.rng.below(2), 1 + self.rng.below(4), 1 + self.rng.below(4)];
            self.literal(Some(dims.clone()));
            (self.defined(), dims)
        };
        let (c, h, wd) = (dims[0], dims[1], dims[2]);
        let mut attrs = Vec::new();
        let mut attr =
            |name, values: &[usize]| attrs.push(Attr::new(name, &values.iter().map(|&v| v as i64).collect::<Vec<_>>()));
        let pads: Vec<usize> =
            if self.rng.chance(40) { (0..4).map(|_| self.rng.below(2)).collect() } else { vec![0; 4] };
        let strides = [1 + usize::from(self.rng.chance(30)), 1 + usize::from(self.rng.chance(30))];
        let dilations = match pool {
            Pool::Max => [1 + usize::from(self.rng.chance(20)), 1 + usize::from(self.rng.chance(20))],
            Pool::Avg => [1, 1],
        };
        let fits = |n: usize, a: usize, z: usize, d: usize| ((n + a + z - 1) / d + 1).min(3);
        let kh = 1 + self.rng.below(fits(h, pads[0], pads[2], dilations[0]));
        let kw = 1 + self.rng.below(fits(wd, pads[1], pads[3], dilations[1]));
        match mistake {
            Some(0) => attr(AttrName::Kernel, &[h + pads[0] + pads[2] + 1, kw]),
            Some(1) => attr(AttrName::Kernel, &[kh, 0]),
            _ => attr(AttrName::Kernel, &[kh, kw]),
        }
        if pads.iter().any(|&p| p > 0) {
            attr(AttrName::Pads, &pads);
        }
        if strides != [1, 1] {
            attr(AttrName::Strides, &strides);
        }
        if dilations != [1, 1] {
            attr(AttrName::Dilations, &dilations);
        }
        if pool == Pool::Avg && self.rng.chance(40) {
            attr(AttrName::CountPad, &[self.rng.below(2)]);
        }
        let x = if mistake == Some(2) { self.scalar(1) } else { Scalar::Var(x) };
        let extent =
            |n: usize, a: usize, z: usize, k: usize, d: usize, s: usize| (n + a + z - (d * (k - 1) + 1)) / s + 1;
        let out_dims = vec![
            c,
            extent(h, pads[0], pads[2], kh, dilations[0], strides[0]),
            extent(wd, pads[1], pads[3], kw, dilations[1], strides[1]),
        ];
        let out = self.name("y");
        self.stmts.push(Stmt::Pool2d { out: out.clone(), pool, x, attrs: Attrs(attrs) });
        self.bind(out, Binding::Tensor(out_dims));
    }

    /// `let y = reshape(x, dims) in` or `flatten(x)` (Ext-5): a tensor in scope (or a new
    /// literal) and, for `reshape`, its size split into one to three dimensions; in programs
    /// that may fail, sometimes one element too many (`shape-mismatch`) or a scalar input
    /// (`unknown-tensor`).
    pub(super) fn reshape(&mut self) {
        let in_scope = self.tensors();
        let (x, dims) = if !in_scope.is_empty() && self.rng.chance(60) {
            self.rng.pick(&in_scope).clone()
        } else {
            let dims = vec![1 + self.rng.below(3), 1 + self.rng.below(4)];
            self.literal(Some(dims.clone()));
            (self.defined(), dims)
        };
        let n: usize = dims.iter().product();
        let mistake = if self.moderate || !self.rng.chance(35) { None } else { Some(self.rng.below(2)) };
        // n = a · b · c, a and b drawn among the divisors (n may be 0: then a = b = 1).
        let divisors = |n: usize| -> Vec<usize> { (1..=n.max(1)).filter(|&d| n.is_multiple_of(d)).collect() };
        let a = *self.rng.pick(&divisors(n));
        let rest = n / a;
        let b = *self.rng.pick(&divisors(rest));
        let out_dims = match self.rng.below(3) {
            0 => vec![n],
            1 => vec![a, rest],
            _ => vec![a, b, rest / b],
        };
        let flatten = out_dims.len() == 1 && self.rng.chance(50) && mistake != Some(0);
        let mut written: Vec<i64> = out_dims.iter().map(|&d| d as i64).collect();
        if mistake == Some(0) {
            written[0] += 1;
        }
        let x = if mistake == Some(1) { self.scalar(1) } else { Scalar::Var(x) };
        let out = self.name("y");
        self.stmts.push(Stmt::Reshape { out: out.clone(), x, dims: (!flatten).then_some(written) });
        self.bind(out, Binding::Tensor(out_dims));
    }

    /// `let y = transpose(x, Ps) in` (Ext-6): a tensor in scope (or a new literal of rank 2 or
    /// 3) and a permutation of its axes; in programs that may fail, sometimes an axis repeated
    /// or one too many (`invalid-attribute`) or a scalar input (`unknown-tensor`).
    pub(super) fn transpose(&mut self) {
        let in_scope = self.tensors();
        let (x, dims) = if !in_scope.is_empty() && self.rng.chance(self.in_scope_percent()) {
            self.pick_image(&in_scope)
        } else {
            let dims: Vec<usize> = (0..2 + self.rng.below(2)).map(|_| 1 + self.rng.below(3)).collect();
            self.literal(Some(dims.clone()));
            (self.defined(), dims)
        };
        let rank = dims.len();
        // A uniform permutation (Fisher–Yates).
        let mut perm: Vec<usize> = (0..rank).collect();
        for i in (1..rank).rev() {
            let j = self.rng.below(i + 1);
            perm.swap(i, j);
        }
        let out_dims: Vec<usize> = perm.iter().map(|&p| dims[p]).collect();
        let mut written: Vec<i64> = perm.iter().map(|&p| p as i64).collect();
        let mistake = if self.moderate || !self.rng.chance(15) { None } else { Some(self.rng.below(3)) };
        match mistake {
            // An axis twice (for a vector, `0, 0`).
            Some(0) if rank > 1 => written[0] = written[rank - 1],
            Some(0) => written.push(0),
            Some(1) => written.push(rank as i64),
            _ => {}
        }
        let x = if mistake == Some(2) { self.scalar(1) } else { Scalar::Var(x) };
        let out = self.name("y");
        self.stmts.push(Stmt::Transpose { out: out.clone(), x, perm: written });
        self.bind(out, Binding::Tensor(out_dims));
    }

    /// `let y = f(x, axes) in` (Ext-9, Ext-10): a tensor in scope (or a new literal of rank 1 to
    /// 3), one of the eight functions, its axes fitting the rank (the reductions' a nonempty
    /// subset in any order); in programs that may fail, sometimes an axis out of range or
    /// repeated (`invalid-attribute`) or a scalar input (`unknown-tensor`).
    pub(super) fn tensor_math(&mut self) {
        let in_scope = self.tensors();
        let (x, dims) = if !in_scope.is_empty() && self.rng.chance(self.in_scope_percent()) {
            self.pick_image(&in_scope)
        } else {
            let dims: Vec<usize> = (0..1 + self.rng.below(3)).map(|_| 1 + self.rng.below(3)).collect();
            self.literal(Some(dims.clone()));
            (self.defined(), dims)
        };
        let rank = dims.len();
        let f = *self.rng.pick(&TensorMath::ALL);
        let mut axes: Vec<i64> = match f.axes() {
            Axes::None => Vec::new(),
            Axes::One => vec![self.rng.below(rank) as i64],
            Axes::Some => {
                let mut all: Vec<i64> = (0..rank as i64).collect();
                for i in (1..rank).rev() {
                    let j = self.rng.below(i + 1);
                    all.swap(i, j);
                }
                all.truncate(1 + self.rng.below(rank));
                all
            }
        };
        let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let out_dims: Vec<usize> = match f.axes() {
            Axes::Some => reduced_shape(&shape, &axes).into_iter().map(|d| d as usize).collect(),
            _ => dims.clone(),
        };
        let mistake = if self.moderate || !self.rng.chance(15) { None } else { Some(self.rng.below(3)) };
        match (mistake, f.axes()) {
            (Some(0), Axes::One) => axes[0] = rank as i64,
            (Some(0), Axes::Some) => axes.push(rank as i64),
            (Some(1), Axes::Some) => axes.push(axes[0]),
            _ => {}
        }
        let x = if mistake == Some(2) { self.scalar(1) } else { Scalar::Var(x) };
        let out = self.name("y");
        self.stmts.push(Stmt::TensorMath { out: out.clone(), f, x, axes });
        self.bind(out, Binding::Tensor(out_dims));
    }

    /// `let y = concat(x, …, A) in` (Ext-11): a tensor in scope (or a new literal of rank 1 to
    /// 3), an axis below its rank, and one or two more operands: the same tensor, or a literal of
    /// its shape but along the axis (an extent of 0 to 2); in programs that may fail, sometimes
    /// the axis at the rank (`invalid-attribute`), a literal one longer on another axis or of
    /// one more rank (`shape-mismatch`) or a scalar operand (`unknown-tensor`).
    pub(super) fn concat(&mut self) {
        let in_scope = self.tensors();
        let (x, dims) = if !in_scope.is_empty() && self.rng.chance(self.in_scope_percent()) {
            self.pick_image(&in_scope)
        } else {
            let dims: Vec<usize> = (0..1 + self.rng.below(3)).map(|_| 1 + self.rng.below(3)).collect();
            self.literal(Some(dims.clone()));
            (self.defined(), dims)
        };
        let rank = dims.len();
        let axis = self.rng.below(rank);
        // 0 and 4: the axis; 1 and 3: the shapes; 2: a scalar operand.
        let mistake = if self.moderate || !self.rng.chance(60) { None } else { Some(self.rng.below(5)) };
        let mut xs = vec![Scalar::Var(x.clone())];
        let mut out_dims = dims.clone();
        let mismatch = matches!(mistake, Some(1 | 3));
        for _ in 0..1 + usize::from(self.rng.chance(30)) {
            if !mismatch && self.rng.chance(30) {
                xs.push(Scalar::Var(x.clone()));
                out_dims[axis] += dims[axis];
                continue;
            }
            let mut other = dims.clone();
            other[axis] = self.rng.below(3);
            out_dims[axis] += other[axis];
            match mistake {
                // Another extent on an axis other than `axis` (or another rank, for a vector).
                Some(1) if rank > 1 => other[(axis + 1) % rank] += 1,
                Some(1 | 3) => other.push(1),
                _ => {}
            }
            self.literal(Some(other));
            xs.push(Scalar::Var(self.defined()));
        }
        if mistake == Some(2) {
            xs.insert(1, self.scalar(1));
        }
        let axis = if matches!(mistake, Some(0 | 4)) { rank as i64 } else { axis as i64 };
        let out = self.name("y");
        self.stmts.push(Stmt::Concat { out: out.clone(), xs, axis });
        self.bind(out, Binding::Tensor(out_dims));
    }

    /// `let y = slice(x, A, B, E[, S]) in` (Ext-12): a tensor in scope (or a new literal of rank
    /// 1 to 3), an axis below its rank, `0 <= B <= E <=` its extent and a step of 1 to 3 (not
    /// written half the time it is 1); in programs that may fail, sometimes the axis at the rank,
    /// an end one past the extent or a step of 0 (`invalid-attribute`), or a scalar input
    /// (`unknown-tensor`).
    pub(super) fn slice(&mut self) {
        let in_scope = self.tensors();
        let (x, dims) = if !in_scope.is_empty() && self.rng.chance(self.in_scope_percent()) {
            self.pick_image(&in_scope)
        } else {
            let dims: Vec<usize> = (0..1 + self.rng.below(3)).map(|_| 1 + self.rng.below(3)).collect();
            self.literal(Some(dims.clone()));
            (self.defined(), dims)
        };
        let axis = self.rng.below(dims.len());
        let extent = dims[axis];
        // Mostly a nonempty range; an empty one (`B = E`) a tenth of the time, or when the
        // extent is 0 (a tensor in scope may have one).
        let begin = if extent == 0 { 0 } else { self.rng.below(extent) };
        let end = if extent == 0 || self.rng.chance(10) { begin } else { begin + 1 + self.rng.below(extent - begin) };
        let step = 1 + self.rng.below(3);
        let mut out_dims = dims.clone();
        out_dims[axis] = if end == begin { 0 } else { (end - begin - 1) / step + 1 };
        let mut ints: Vec<i64> = [axis, begin, end, step].iter().map(|&n| n as i64).collect();
        if step == 1 && self.rng.chance(50) {
            ints.pop();
        }
        let mistake = if self.moderate || !self.rng.chance(40) { None } else { Some(self.rng.below(4)) };
        match mistake {
            Some(0) => ints[0] = dims.len() as i64,
            Some(1) => ints[2] = extent as i64 + 1,
            Some(2) if ints.len() == 4 => ints[3] = 0,
            Some(2) => ints.push(0),
            _ => {}
        }
        let x = if mistake == Some(3) { self.scalar(1) } else { Scalar::Var(x) };
        let out = self.name("y");
        self.stmts.push(Stmt::Slice { out: out.clone(), x, ints });
        self.bind(out, Binding::Tensor(out_dims));
    }

    /// How often a window operator takes a rank-3 tensor in scope rather than a new literal:
    /// most of the time when the input is an image, so that the fused operations of the plan
    /// see images computed from the input.
    fn in_scope_percent(&self) -> u32 {
        if self.image { 85 } else { 40 }
    }

    /// One of the tensors in scope (of rank 3 for the window operators), the latest (usually computed from the input, or the
    /// input itself) half the time when the input is an image.
    fn pick_image(&mut self, in_scope: &[(String, Vec<usize>)]) -> (String, Vec<usize>) {
        if self.image && self.rng.chance(50) {
            return in_scope[0].clone();
        }
        self.rng.pick(in_scope).clone()
    }

    /// The name the last statement bound.
    fn defined(&self) -> String {
        self.stmts.last().and_then(Stmt::defines).expect("the last statement binds a name").to_string()
    }
}
