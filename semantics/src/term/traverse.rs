//! Generic walks over terms with an explicit stack: children, drop, equality and hashing.
//! None of them recurses on the depth of a term.

use std::hash::{Hash, Hasher};
use std::mem;
use std::rc::Rc;

use super::{FuncTerm, Node, Term};

/// Calls `f` on each direct child of `node`, left to right.
pub fn for_each_child(node: &Node, mut f: impl FnMut(&Term)) {
    match node {
        Node::Float(_)
        | Node::Int(_)
        | Node::Tensor { .. }
        | Node::Id(_)
        | Node::Lookup(_)
        | Node::DefineTensorHelper { .. }
        | Node::LinearHelper { .. }
        | Node::LinearRows { .. }
        | Node::LinearCols { .. }
        | Node::ArgMaxHelper { .. }
        | Node::AddTensorHelper { .. }
        | Node::Conv2dHelper(_)
        | Node::BroadcastHelper(_)
        | Node::Pool2dHelper(_)
        | Node::ReshapeHelper { .. }
        | Node::TransposeHelper { .. }
        | Node::ConcatHelper { .. }
        | Node::SliceHelper { .. }
        | Node::PadHelper(_)
        | Node::Skip
        | Node::Error { .. }
        | Node::MatmulHelper(_)
        | Node::BatchNormHelper(_) => {}
        Node::Index { base: a, .. }
        | Node::ArgMax(a)
        | Node::LinearChecked { body: a, .. }
        | Node::DefineTensor { x: a, .. }
        | Node::StoreAtVal { value: a, .. }
        | Node::ActItem { arg: a, .. }
        | Node::PoolMean { sum: a, .. }
        | Node::MathItem { arg: a, .. }
        | Node::Fun(a) => f(a),
        Node::Max(a, b)
        | Node::Min(a, b)
        | Node::Mul(a, b)
        | Node::Add(a, b)
        | Node::Sub(a, b)
        | Node::Div(a, b)
        | Node::StoreVal { target: a, value: b }
        | Node::ActHelper { y: a, x: b, .. } => {
            f(a);
            f(b);
        }
        Node::Let { target, value, body } => {
            f(target);
            f(value);
            f(body);
        }
        Node::LinearMac(a, b, c) => {
            f(a);
            f(b);
            f(c);
        }
        Node::LetFunc { target, func, body, .. } => {
            f(target);
            match func {
                FuncTerm::InitTensor(_) | FuncTerm::TensorLiteral(..) => {}
                FuncTerm::Apply(_, arg) => f(arg),
                FuncTerm::Linear(w, x)
                | FuncTerm::AddTensor(w, x)
                | FuncTerm::TensorArith(_, w, x)
                | FuncTerm::Matmul(w, x) => {
                    f(w);
                    f(x);
                }
                FuncTerm::Conv2d { x, w, b, .. } => {
                    f(x);
                    f(w);
                    if let Some(b) = b {
                        f(b);
                    }
                }
                FuncTerm::Pool2d { x, .. }
                | FuncTerm::Reshape { x, .. }
                | FuncTerm::Transpose { x, .. }
                | FuncTerm::TensorMath { x, .. }
                | FuncTerm::Slice { x, .. }
                | FuncTerm::Pad { x, .. } => f(x),
                FuncTerm::Concat { xs, .. } | FuncTerm::BatchNorm { xs, .. } => xs.iter().for_each(&mut f),
            }
            f(body);
        }
        Node::Subst(lazy) => f(lazy.forced()),
    }
}

/// Drops `node`'s subtree without recursion. The children are cloned onto a stack before the
/// node is cleared, so a child the node owned alone is owned by the stack alone and is taken
/// apart there, one level at a time.
pub fn drop_iteratively(node: &mut Node) {
    if matches!(node, Node::Float(_) | Node::Int(_) | Node::Id(_) | Node::Lookup(_) | Node::Tensor { .. }) {
        return;
    }
    let mut stack = Vec::new();
    push_raw_children(node, &mut stack);
    *node = Node::Int(0);
    while let Some(term) = stack.pop() {
        if let Ok(mut data) = Rc::try_unwrap(term.0) {
            push_raw_children(&data.node, &mut stack);
            data.node = Node::Int(0);
        }
    }
}

/// The children as stored: a pending substitution's body and cached result, never forcing it.
fn push_raw_children(node: &Node, stack: &mut Vec<Term>) {
    match node {
        Node::Subst(lazy) => lazy.raw_terms(stack),
        _ => for_each_child(node, |c| stack.push(c.clone())),
    }
}

/// Whether two nodes agree on everything but their children.
fn shallow_eq(a: &Node, b: &Node) -> bool {
    use Node as N;
    match (a, b) {
        (N::Float(x), N::Float(y)) => x.to_bits() == y.to_bits(),
        (N::Int(x), N::Int(y)) => x == y,
        (N::Tensor { loc: l1, len: n1 }, N::Tensor { loc: l2, len: n2 }) => l1 == l2 && n1 == n2,
        (N::Id(x), N::Id(y)) => x == y,
        (N::Index { ints: i, .. }, N::Index { ints: j, .. }) => i == j,
        (N::DefineTensor { ints: i, .. }, N::DefineTensor { ints: j, .. }) => i == j,
        (N::Lookup(x), N::Lookup(y)) => x == y,
        (N::StoreAtVal { loc: x, .. }, N::StoreAtVal { loc: y, .. }) => x == y,
        (N::ActHelper { act: a1, args: r1, .. }, N::ActHelper { act: a2, args: r2, .. }) => a1 == a2 && r1 == r2,
        (N::ActItem { act: a1, .. }, N::ActItem { act: a2, .. }) => a1 == a2,
        (N::MathItem { f: f1, .. }, N::MathItem { f: f2, .. }) => f1 == f2,
        (N::Error { kind: k1, detail: d1 }, N::Error { kind: k2, detail: d2 }) => k1 == k2 && d1 == d2,
        (
            N::LinearChecked { y, w, x, w_shape, x_shape, .. },
            N::LinearChecked { y: y2, w: w2, x: x2, w_shape: ws2, x_shape: xs2, .. },
        ) => (y, w, x, w_shape, x_shape) == (y2, w2, x2, ws2, xs2),
        (N::LetFunc { func: f, .. }, N::LetFunc { func: g, .. }) => match (f, g) {
            (FuncTerm::InitTensor(i), FuncTerm::InitTensor(j)) => i == j,
            (FuncTerm::TensorLiteral(i, u), FuncTerm::TensorLiteral(j, v)) => i == j && u == v,
            (FuncTerm::Apply(m, _), FuncTerm::Apply(n, _)) => m == n,
            (FuncTerm::Linear(..), FuncTerm::Linear(..)) | (FuncTerm::AddTensor(..), FuncTerm::AddTensor(..)) => true,
            (FuncTerm::Conv2d { b: b1, attrs: a1, .. }, FuncTerm::Conv2d { b: b2, attrs: a2, .. }) => {
                b1.is_some() == b2.is_some() && a1 == a2
            }
            (FuncTerm::Pool2d { pool: p1, attrs: a1, .. }, FuncTerm::Pool2d { pool: p2, attrs: a2, .. }) => {
                p1 == p2 && a1 == a2
            }
            (FuncTerm::Reshape { dims: d1, .. }, FuncTerm::Reshape { dims: d2, .. }) => d1 == d2,
            (FuncTerm::Transpose { perm: p1, .. }, FuncTerm::Transpose { perm: p2, .. }) => p1 == p2,
            (FuncTerm::TensorArith(o1, ..), FuncTerm::TensorArith(o2, ..)) => o1 == o2,
            (FuncTerm::TensorMath { f: f1, axes: a1, .. }, FuncTerm::TensorMath { f: f2, axes: a2, .. }) => {
                f1 == f2 && a1 == a2
            }
            (FuncTerm::Pad { value_bits: v1, pads: p1, .. }, FuncTerm::Pad { value_bits: v2, pads: p2, .. }) => {
                v1 == v2 && p1 == p2
            }
            (FuncTerm::Matmul(..), FuncTerm::Matmul(..)) => true,
            (FuncTerm::BatchNorm { xs: x1, epsilon_bits: e1 }, FuncTerm::BatchNorm { xs: x2, epsilon_bits: e2 }) => {
                x1.len() == x2.len() && e1 == e2
            }
            _ => false,
        },
        (N::DefineTensorHelper { x, from, to, rest }, N::DefineTensorHelper { x: x2, from: f2, to: t2, rest: r2 }) => {
            x == x2 && from == f2 && to == t2 && rest == r2
        }
        (N::LinearHelper { y, i, j, w, x }, N::LinearHelper { y: y2, i: i2, j: j2, w: w2, x: x2 }) => {
            (y, i, j, w, x) == (y2, i2, j2, w2, x2)
        }
        (N::LinearRows { y, from, to, j, w, x }, N::LinearRows { y: y2, from: f2, to: t2, j: j2, w: w2, x: x2 }) => {
            (y, from, to, j, w, x) == (y2, f2, t2, j2, w2, x2)
        }
        (
            N::LinearCols { y, y_row, from, to, w, w_row, x },
            N::LinearCols { y: y2, y_row: yr2, from: f2, to: t2, w: w2, w_row: wr2, x: x2 },
        ) => (y, y_row, from, to, w, w_row, x) == (y2, yr2, f2, t2, w2, wr2, x2),
        (
            N::AddTensorHelper { y, z, x, from, to, dims },
            N::AddTensorHelper { y: y2, z: z2, x: x2, from: f2, to: t2, dims: d2 },
        ) => (y, z, x, from, to, dims) == (y2, z2, x2, f2, t2, d2),
        (N::Conv2dHelper(h1), N::Conv2dHelper(h2)) => h1 == h2,
        (N::BroadcastHelper(h1), N::BroadcastHelper(h2)) => h1 == h2,
        (N::PadHelper(h1), N::PadHelper(h2)) => h1 == h2,
        (N::Pool2dHelper(h1), N::Pool2dHelper(h2)) => h1 == h2,
        (N::PoolMean { count: c1, .. }, N::PoolMean { count: c2, .. }) => c1 == c2,
        (N::ReshapeHelper { x, y, from, to, dims }, N::ReshapeHelper { x: x2, y: y2, from: f2, to: t2, dims: d2 }) => {
            (x, y, from, to, dims) == (x2, y2, f2, t2, d2)
        }
        (
            N::TransposeHelper { x, y, from, to, perm },
            N::TransposeHelper { x: x2, y: y2, from: f2, to: t2, perm: p2 },
        ) => (x, y, from, to, perm) == (x2, y2, f2, t2, p2),
        (
            N::ConcatHelper { xs, y, axis, from, to, dims },
            N::ConcatHelper { xs: x2, y: y2, axis: a2, from: f2, to: t2, dims: d2 },
        ) => (xs, y, axis, from, to, dims) == (x2, y2, a2, f2, t2, d2),
        (
            N::SliceHelper { x, y, axis, begin, step, from, to, dims },
            N::SliceHelper { x: x2, y: y2, axis: a2, begin: b2, step: s2, from: f2, to: t2, dims: d2 },
        ) => (x, y, axis, begin, step, from, to, dims) == (x2, y2, a2, b2, s2, f2, t2, d2),
        (
            N::ArgMaxHelper { x, from, to, max, index },
            N::ArgMaxHelper { x: x2, from: f2, to: t2, max: m2, index: i2 },
        ) => (x, from, to, index) == (x2, f2, t2, i2) && max.to_bits() == m2.to_bits(),
        (N::MatmulHelper(h1), N::MatmulHelper(h2)) => h1 == h2,
        (N::BatchNormHelper(h1), N::BatchNormHelper(h2)) => h1 == h2,
        _ => mem::discriminant(a) == mem::discriminant(b),
    }
}

fn shallow_hash<H: Hasher>(node: &Node, state: &mut H) {
    mem::discriminant(node).hash(state);
    match node {
        Node::Float(x) => x.to_bits().hash(state),
        Node::Int(n) | Node::Lookup(n) | Node::StoreAtVal { loc: n, .. } => n.hash(state),
        Node::Tensor { loc, len } => (loc, len).hash(state),
        Node::Id(x) => x.hash(state),
        Node::Index { ints, .. } | Node::DefineTensor { ints, .. } => ints.hash(state),
        Node::ActHelper { act, args, .. } => (act, args).hash(state),
        Node::ActItem { act, .. } => act.hash(state),
        Node::Error { kind, detail } => (kind, detail).hash(state),
        Node::LinearChecked { y, w, x, w_shape, x_shape, .. } => (y, w, x, w_shape, x_shape).hash(state),
        Node::LetFunc { func, .. } => match func {
            FuncTerm::InitTensor(ints) => ints.hash(state),
            FuncTerm::TensorLiteral(ints, elements) => (ints, elements).hash(state),
            FuncTerm::Apply(name, _) => name.hash(state),
            FuncTerm::Linear(..) => 0u8.hash(state),
            FuncTerm::AddTensor(..) => 1u8.hash(state),
            FuncTerm::Conv2d { b, attrs, .. } => (2u8, b.is_some(), attrs).hash(state),
            FuncTerm::Pool2d { pool, attrs, .. } => (3u8, pool, attrs).hash(state),
            FuncTerm::Reshape { dims, .. } => (4u8, dims).hash(state),
            FuncTerm::Transpose { perm, .. } => (5u8, perm).hash(state),
            FuncTerm::TensorArith(op, ..) => (6u8, op).hash(state),
            FuncTerm::TensorMath { f, axes, .. } => (6u8, f, axes).hash(state),
            FuncTerm::Concat { xs, axis } => (7u8, xs.len(), axis).hash(state),
            FuncTerm::Slice { ints, .. } => (8u8, ints).hash(state),
            FuncTerm::Pad { value_bits, pads, .. } => (7u8, value_bits, pads).hash(state),
            FuncTerm::Matmul(..) => 7u8.hash(state),
            FuncTerm::BatchNorm { xs, epsilon_bits } => (9u8, xs.len(), epsilon_bits).hash(state),
        },
        Node::DefineTensorHelper { x, from, to, rest } => (x, from, to, rest).hash(state),
        Node::LinearHelper { y, i, j, w, x } => (y, i, j, w, x).hash(state),
        Node::LinearRows { y, from, to, j, w, x } => (y, from, to, j, w, x).hash(state),
        Node::LinearCols { y, y_row, from, to, w, w_row, x } => (y, y_row, from, to, w, w_row, x).hash(state),
        Node::ArgMaxHelper { x, from, to, max, index } => (x, from, to, max.to_bits(), index).hash(state),
        Node::AddTensorHelper { y, z, x, from, to, dims } => (y, z, x, from, to, dims).hash(state),
        Node::Conv2dHelper(h) => h.hash(state),
        Node::BroadcastHelper(h) => h.hash(state),
        Node::PadHelper(h) => h.hash(state),
        Node::Pool2dHelper(h) => h.hash(state),
        Node::PoolMean { count, .. } => count.hash(state),
        Node::MathItem { f, .. } => f.hash(state),
        Node::ReshapeHelper { x, y, from, to, dims } => (x, y, from, to, dims).hash(state),
        Node::TransposeHelper { x, y, from, to, perm } => (x, y, from, to, perm).hash(state),
        Node::ConcatHelper { xs, y, axis, from, to, dims } => (xs, y, axis, from, to, dims).hash(state),
        Node::SliceHelper { x, y, axis, begin, step, from, to, dims } => {
            (x, y, axis, begin, step, from, to, dims).hash(state)
        }
        Node::MatmulHelper(h) => h.hash(state),
        Node::BatchNormHelper(h) => h.hash(state),
        _ => {}
    }
}

pub fn structurally_equal(a: &Term, b: &Term) -> bool {
    // The common case when two forks of a configuration are compared: the same term, shared.
    if a.ptr_eq(b) {
        return true;
    }
    let mut stack = vec![(a.clone(), b.clone())];
    let mut left = Vec::new();
    let mut right = Vec::new();
    while let Some((a, b)) = stack.pop() {
        if a.ptr_eq(&b) {
            continue;
        }
        let (na, nb) = (a.node(), b.node());
        if !shallow_eq(na, nb) {
            return false;
        }
        left.clear();
        right.clear();
        for_each_child(na, |c| left.push(c.clone()));
        for_each_child(nb, |c| right.push(c.clone()));
        if left.len() != right.len() {
            return false;
        }
        stack.extend(left.drain(..).zip(right.drain(..)));
    }
    true
}

pub fn hash_structure<H: Hasher>(term: &Term, state: &mut H) {
    let mut stack = vec![term.clone()];
    while let Some(t) = stack.pop() {
        let node = t.node();
        shallow_hash(node, state);
        for_each_child(node, |c| stack.push(c.clone()));
    }
}

/// A copy of `node` whose children, left to right, are taken from `children`
/// (the inverse of [`for_each_child`]).
pub fn rebuild(node: &Node, children: &mut impl Iterator<Item = Term>) -> Node {
    let mut next = || children.next().expect("rebuild: one new child per old child");
    match node {
        Node::Float(_)
        | Node::Int(_)
        | Node::Tensor { .. }
        | Node::Id(_)
        | Node::Lookup(_)
        | Node::DefineTensorHelper { .. }
        | Node::LinearHelper { .. }
        | Node::LinearRows { .. }
        | Node::LinearCols { .. }
        | Node::ArgMaxHelper { .. }
        | Node::AddTensorHelper { .. }
        | Node::Conv2dHelper(_)
        | Node::BroadcastHelper(_)
        | Node::Pool2dHelper(_)
        | Node::ReshapeHelper { .. }
        | Node::TransposeHelper { .. }
        | Node::ConcatHelper { .. }
        | Node::SliceHelper { .. }
        | Node::PadHelper(_)
        | Node::Skip
        | Node::Error { .. }
        | Node::MatmulHelper(_)
        | Node::BatchNormHelper(_)
        | Node::Subst(_) => node.clone(),
        Node::PoolMean { count, .. } => Node::PoolMean { sum: next(), count: *count },
        Node::MathItem { f, .. } => Node::MathItem { f: *f, arg: next() },
        Node::Index { ints, .. } => Node::Index { base: next(), ints: ints.clone() },
        Node::ArgMax(_) => Node::ArgMax(next()),
        Node::DefineTensor { ints, .. } => Node::DefineTensor { x: next(), ints: ints.clone() },
        Node::StoreAtVal { loc, .. } => Node::StoreAtVal { loc: *loc, value: next() },
        Node::ActItem { act, .. } => Node::ActItem { act: *act, arg: next() },
        Node::Fun(_) => Node::Fun(next()),
        Node::LinearChecked { y, w, x, w_shape, x_shape, .. } => Node::LinearChecked {
            y: y.clone(),
            w: w.clone(),
            x: x.clone(),
            w_shape: w_shape.clone(),
            x_shape: x_shape.clone(),
            body: next(),
        },
        Node::Max(..) => Node::Max(next(), next()),
        Node::Min(..) => Node::Min(next(), next()),
        Node::Mul(..) => Node::Mul(next(), next()),
        Node::Add(..) => Node::Add(next(), next()),
        Node::Sub(..) => Node::Sub(next(), next()),
        Node::Div(..) => Node::Div(next(), next()),
        Node::StoreVal { .. } => Node::StoreVal { target: next(), value: next() },
        Node::ActHelper { act, args, .. } => Node::ActHelper { act: *act, y: next(), x: next(), args: args.clone() },
        Node::Let { .. } => Node::Let { target: next(), value: next(), body: next() },
        Node::LinearMac(..) => Node::LinearMac(next(), next(), next()),
        Node::LetFunc { func, func_span, .. } => {
            let target = next();
            let func = match func {
                FuncTerm::InitTensor(ints) => FuncTerm::InitTensor(ints.clone()),
                FuncTerm::TensorLiteral(ints, elements) => FuncTerm::TensorLiteral(ints.clone(), elements.clone()),
                FuncTerm::Apply(name, _) => FuncTerm::Apply(*name, next()),
                FuncTerm::Linear(..) => FuncTerm::Linear(next(), next()),
                FuncTerm::AddTensor(..) => FuncTerm::AddTensor(next(), next()),
                FuncTerm::TensorArith(op, ..) => FuncTerm::TensorArith(*op, next(), next()),
                FuncTerm::Conv2d { b, attrs, .. } => {
                    let (x, w) = (next(), next());
                    FuncTerm::Conv2d { x, w, b: b.as_ref().map(|_| next()), attrs: attrs.clone() }
                }
                FuncTerm::Pool2d { pool, attrs, .. } => {
                    FuncTerm::Pool2d { pool: *pool, x: next(), attrs: attrs.clone() }
                }
                FuncTerm::Reshape { dims, .. } => FuncTerm::Reshape { x: next(), dims: dims.clone() },
                FuncTerm::Transpose { perm, .. } => FuncTerm::Transpose { x: next(), perm: perm.clone() },
                FuncTerm::TensorMath { f, axes, .. } => FuncTerm::TensorMath { f: *f, x: next(), axes: axes.clone() },
                FuncTerm::Concat { xs, axis } => {
                    FuncTerm::Concat { xs: xs.iter().map(|_| next()).collect(), axis: *axis }
                }
                FuncTerm::Slice { ints, .. } => FuncTerm::Slice { x: next(), ints: ints.clone() },
                FuncTerm::Pad { value_bits, pads, .. } => {
                    FuncTerm::Pad { x: next(), value_bits: *value_bits, pads: pads.clone() }
                }
                FuncTerm::Matmul(..) => FuncTerm::Matmul(next(), next()),
                FuncTerm::BatchNorm { xs, epsilon_bits } => {
                    FuncTerm::BatchNorm { xs: xs.iter().map(|_| next()).collect(), epsilon_bits: *epsilon_bits }
                }
            };
            Node::LetFunc { target, func, func_span: *func_span, body: next() }
        }
    }
}
