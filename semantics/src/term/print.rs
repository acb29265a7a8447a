//! Terms as krun prints them: every terminal and argument separated by one space
//! (`tensor ( 1 , 4 )`, `t [ 1 , 2 ]`, `let x = 0.10000000000000000e1 in x`), Floats in K's
//! format, and parentheses `( … )` only where K's priorities require them (the same rules as
//! the source printer). Iterative, so 100,000-deep terms print.

use super::float_format::k_float;
use super::traverse::for_each_child;
use super::{FuncTerm, HelperArgs, Ints, Node, Term};
use crate::syntax::print::Level;
use crate::syntax::{Elements, Number};

fn level(node: &Node) -> Level {
    match node {
        Node::LetFunc { .. } => Level::LetFunc,
        Node::Let { .. } => Level::LetExp,
        Node::Add(..) | Node::Sub(..) => Level::Sum,
        Node::Mul(..) | Node::Div(..) => Level::Product,
        _ => Level::Atom,
    }
}

enum Piece {
    Text(String),
    Term(Term, Level),
}

fn text(s: impl Into<String>) -> Piece {
    Piece::Text(s.into())
}

/// `1 , 2 , 3`.
pub fn ints_text(ints: &Ints) -> String {
    ints.as_slice().iter().map(i64::to_string).collect::<Vec<_>>().join(" , ")
}

/// `0.50000000000000000e0 , 2 , …`: the elements of a tensor literal as the Floats and Ints
/// of a term print.
pub fn elements_text(elements: &Elements) -> String {
    let mut out = String::with_capacity(elements.len() * 24);
    for (k, n) in elements.iter().enumerate() {
        if k > 0 {
            out.push_str(" , ");
        }
        match n {
            Number::Int(i) => out.push_str(&i.to_string()),
            Number::Float(x) => out.push_str(&k_float(x)),
        }
    }
    out
}

/// `term` in krun's syntax.
pub fn term_to_string(term: &Term) -> String {
    let mut out = String::new();
    write_term(term, &mut out);
    out
}

pub fn write_term(term: &Term, out: &mut String) {
    let mut stack = vec![Piece::Term(term.clone(), Level::LetFunc)];
    while let Some(piece) = stack.pop() {
        match piece {
            Piece::Text(t) => out.push_str(&t),
            Piece::Term(t, needed) if level(t.node()) < needed => {
                stack.extend([text(" )"), Piece::Term(t, Level::LetFunc), text("( ")]);
            }
            Piece::Term(t, _) => {
                let mut pieces = pieces_of(&t);
                pieces.reverse();
                stack.append(&mut pieces);
            }
        }
    }
}

/// `name ( a , b , … )` where the arguments are already pieces.
fn call(name: &str, args: Vec<Piece>) -> Vec<Piece> {
    let mut out = vec![text(format!("{name} ( "))];
    for (k, arg) in args.into_iter().enumerate() {
        if k > 0 {
            out.push(text(" , "));
        }
        out.push(arg);
    }
    out.push(text(" )"));
    out
}

fn inner(t: &Term) -> Piece {
    Piece::Term(t.clone(), Level::LetFunc)
}

fn range(from: i64, to: i64) -> Piece {
    text(format!("{from} ... {to}"))
}

fn pieces_of(term: &Term) -> Vec<Piece> {
    let node = term.node();
    match node {
        Node::Float(x) => vec![text(k_float(*x))],
        Node::Int(n) => vec![text(n.to_string())],
        Node::Tensor { loc, len } => vec![text(format!("tensor ( {loc} , {len} )"))],
        Node::Id(x) => vec![text(x.as_str())],
        Node::Index { base, ints } => {
            vec![Piece::Term(base.clone(), Level::Atom), text(format!(" [ {} ]", ints_text(ints)))]
        }
        Node::Max(a, b) => call("max", vec![inner(a), inner(b)]),
        Node::Min(a, b) => call("min", vec![inner(a), inner(b)]),
        Node::ArgMax(a) => call("ArgMax", vec![inner(a)]),
        Node::Mul(a, b) => {
            vec![Piece::Term(a.clone(), Level::Product), text(" * "), Piece::Term(b.clone(), Level::Atom)]
        }
        Node::Add(a, b) => {
            vec![Piece::Term(a.clone(), Level::Sum), text(" + "), Piece::Term(b.clone(), Level::Product)]
        }
        Node::Sub(a, b) => {
            vec![Piece::Term(a.clone(), Level::Sum), text(" - "), Piece::Term(b.clone(), Level::Product)]
        }
        Node::Div(a, b) => {
            vec![Piece::Term(a.clone(), Level::Product), text(" / "), Piece::Term(b.clone(), Level::Atom)]
        }
        Node::Let { target, value, body } => vec![
            text("let "),
            inner(target),
            text(" = "),
            inner(value),
            text(" in "),
            Piece::Term(body.clone(), Level::LetExp),
        ],
        Node::LetFunc { target, func, body, .. } => {
            let mut v = vec![text("let "), inner(target), text(" = ")];
            v.extend(match func {
                FuncTerm::InitTensor(ints) => {
                    vec![text(format!("initTensor ( {} )", ints_text(ints)))]
                }
                FuncTerm::TensorLiteral(ints, elements) => {
                    vec![text(format!("initTensor ( {} ) [ {} ]", ints_text(ints), elements_text(elements)))]
                }
                FuncTerm::Apply(name, arg) => call(name.keyword(), vec![inner(arg)]),
                FuncTerm::Linear(w, x) => call("linear", vec![inner(w), inner(x)]),
                FuncTerm::AddTensor(y, z) => call("addTensor", vec![inner(y), inner(z)]),
                FuncTerm::TensorArith(op, y, z) => call(op.keyword(), vec![inner(y), inner(z)]),
                FuncTerm::Conv2d { x, w, b, attrs } => {
                    let mut args = vec![inner(x), inner(w)];
                    args.extend(b.iter().map(inner));
                    if !attrs.is_empty() {
                        args.push(text(attrs.k_text()));
                    }
                    call("conv2d", args)
                }
                FuncTerm::Pool2d { pool, x, attrs } => call(pool.keyword(), vec![inner(x), text(attrs.k_text())]),
                FuncTerm::Reshape { x, dims: Some(dims) } => call("reshape", vec![inner(x), text(ints_text(dims))]),
                FuncTerm::Reshape { x, dims: None } => call("flatten", vec![inner(x)]),
                FuncTerm::Transpose { x, perm } => call("transpose", vec![inner(x), text(ints_text(perm))]),
                FuncTerm::TensorMath { f, x, axes: Some(axes) } => {
                    call(f.keyword(), vec![inner(x), text(ints_text(axes))])
                }
                FuncTerm::TensorMath { f, x, axes: None } => call(f.keyword(), vec![inner(x)]),
                FuncTerm::Concat { xs, axis } => {
                    call("concat", xs.iter().map(inner).chain([text(axis.to_string())]).collect())
                }
                FuncTerm::Slice { x, ints } => call("slice", vec![inner(x), text(ints_text(ints))]),
                FuncTerm::Pad { x, value_bits, pads } => {
                    call("pad", vec![inner(x), text(k_float(f64::from_bits(*value_bits))), text(ints_text(pads))])
                }
                FuncTerm::Matmul(y, z) => call("matmul", vec![inner(y), inner(z)]),
                FuncTerm::BatchNorm { xs, epsilon_bits } => {
                    let epsilon = format!("epsilon = {}", k_float(f64::from_bits(*epsilon_bits)));
                    call("batchNorm", xs.iter().map(inner).chain([text(epsilon)]).collect())
                }
            });
            v.extend([text(" in "), inner(body)]);
            v
        }
        Node::DefineTensor { x, ints } => call("defineTensor", vec![inner(x), text(ints_text(ints))]),
        Node::DefineTensorHelper { x, from, to, rest } => {
            call("defineTensorHelper", vec![text(x.as_str()), range(*from, *to), text(ints_text(rest))])
        }
        Node::Lookup(loc) => call("lookup", vec![text(loc.to_string())]),
        Node::StoreVal { target, value } => call("storeVal", vec![inner(target), inner(value)]),
        Node::StoreAtVal { loc, value } => call("storeAtVal", vec![text(loc.to_string()), inner(value)]),
        Node::ActHelper { act, y, x, args } => {
            let mut v = vec![inner(y), inner(x)];
            match args {
                HelperArgs::Elem => {}
                HelperArgs::Dims(ints) => v.push(text(ints_text(ints))),
                HelperArgs::RangeDims { from, to, rest } => v.extend([range(*from, *to), text(ints_text(rest))]),
                HelperArgs::Range { from, to } => v.push(range(*from, *to)),
            }
            call(act.helper_name(), v)
        }
        Node::ActItem { act, arg } => call(act.item_name(), vec![inner(arg)]),
        Node::LinearHelper { y, i, j, w, x } => call(
            "linearHelper",
            vec![text(y.as_str()), text(i.to_string()), text(j.to_string()), text(w.as_str()), text(x.as_str())],
        ),
        Node::LinearRows { y, from, to, j, w, x } => call(
            "linearHelper",
            vec![text(y.as_str()), range(*from, *to), text(j.to_string()), text(w.as_str()), text(x.as_str())],
        ),
        Node::LinearCols { y, y_row, from, to, w, w_row, x } => call(
            "linearHelper",
            vec![
                text(format!("{y} [ {y_row} ]")),
                range(*from, *to),
                text(format!("{w} [ {w_row} ]")),
                text(x.as_str()),
            ],
        ),
        Node::LinearMac(a, b, c) => call("linearHelper", vec![inner(a), inner(b), inner(c)]),
        Node::ArgMaxHelper { x, from, to, max, index } => call(
            "ArgMaxHelper",
            vec![text(x.as_str()), range(*from, *to), text(k_float(*max)), text(index.to_string())],
        ),
        Node::AddTensorHelper { y, z, x, from, to, dims } => call(
            "addTensorHelper",
            vec![text(y.as_str()), text(z.as_str()), text(x.as_str()), range(*from, *to), text(ints_text(dims))],
        ),
        Node::BroadcastHelper(h) => call(
            "broadcastHelper",
            vec![
                text(h.op.symbol()),
                text(h.y.as_str()),
                text(h.z.as_str()),
                text(h.x.as_str()),
                range(h.from, h.to),
                text(format!("( {} )", ints_text(&h.y_dims))),
                text(format!("( {} )", ints_text(&h.z_dims))),
                text(format!("( {} )", ints_text(&h.dims))),
            ],
        ),
        Node::PadHelper(h) => call(
            "padHelper",
            vec![
                text(h.x.as_str()),
                text(h.y.as_str()),
                text(k_float(f64::from_bits(h.value_bits))),
                range(h.from, h.to),
                text(ints_text(&h.pads)),
            ],
        ),
        Node::Conv2dHelper(h) => {
            let bias = h.b.as_ref().map_or(".", |b| b.as_str());
            let mut args = vec![text(h.x.as_str()), text(h.w.as_str()), text(bias), text(h.y.as_str())];
            if !h.attrs.is_empty() {
                args.push(text(h.attrs.k_text()));
            }
            args.extend([range(h.from, h.to), text(ints_text(&h.dims))]);
            call("conv2dHelper", args)
        }
        Node::Pool2dHelper(h) => {
            let name = format!("{}Helper", h.pool.keyword());
            let args = vec![
                text(h.x.as_str()),
                text(h.y.as_str()),
                text(h.attrs.k_text()),
                range(h.from, h.to),
                text(ints_text(&h.dims)),
            ];
            call(&name, args)
        }
        Node::ReshapeHelper { x, y, from, to, dims } => {
            call("reshapeHelper", vec![text(x.as_str()), text(y.as_str()), range(*from, *to), text(ints_text(dims))])
        }
        Node::TransposeHelper { x, y, from, to, perm } => {
            call("transposeHelper", vec![text(x.as_str()), text(y.as_str()), range(*from, *to), text(ints_text(perm))])
        }
        Node::ConcatHelper { xs, y, axis, from, to, dims } => {
            let names: Vec<&str> = xs.iter().map(|x| x.as_str()).collect();
            let args = vec![
                text(format!("( {} )", names.join(" , "))),
                text(y.as_str()),
                text(axis.to_string()),
                range(*from, *to),
            ];
            call("concatHelper", args.into_iter().chain([text(ints_text(dims))]).collect())
        }
        Node::SliceHelper { x, y, axis, begin, step, from, to, dims } => {
            let ints = [axis, begin, step].map(|n| text(n.to_string()));
            let args = [text(x.as_str()), text(y.as_str())].into_iter().chain(ints);
            call("sliceHelper", args.chain([range(*from, *to), text(ints_text(dims))]).collect())
        }
        Node::MathItem { f, arg } => {
            let mut v = vec![inner(arg)];
            v.extend(f.carried().into_iter().map(|x| text(k_float(x))));
            call(f.item_name(), v)
        }
        Node::PoolMean { sum, count } => call("poolMean", vec![inner(sum), text(count.to_string())]),
        Node::Fun(a) => call("fun", vec![inner(a)]),
        Node::Skip => vec![text("#skip")],
        Node::Error { kind, .. } => call("knnError", vec![text(format!("\"{}\"", kind.k_message()))]),
        Node::LinearChecked { y, w, x, w_shape, x_shape, body } => call(
            "linearChecked",
            vec![
                text(y.as_str()),
                text(w.as_str()),
                text(x.as_str()),
                text(ints_text(w_shape)),
                text(ints_text(x_shape)),
                inner(body),
            ],
        ),
        Node::MatmulHelper(h) => call(
            "matmulHelper",
            vec![
                text(h.y.as_str()),
                text(h.z.as_str()),
                text(h.x.as_str()),
                range(h.from, h.to),
                text(h.inner.to_string()),
                text(format!("( {} )", ints_text(&h.y_dims))),
                text(format!("( {} )", ints_text(&h.z_dims))),
                text(format!("( {} )", ints_text(&h.dims))),
            ],
        ),
        Node::BatchNormHelper(h) => {
            let names = [&h.x, &h.s, &h.b, &h.m, &h.v, &h.y].map(|n| text(n.as_str()));
            let rest = [text(k_float(f64::from_bits(h.epsilon_bits))), range(h.from, h.to), text(ints_text(&h.dims))];
            call("batchNormHelper", names.into_iter().chain(rest).collect())
        }
        Node::Subst(_) => {
            // `node()` never returns a pending substitution; print the children defensively.
            let mut v = Vec::new();
            for_each_child(node, |c| v.push(inner(c)));
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Grammar, parse_program};
    use crate::term::term_of_program;

    fn krun(source: &str) -> String {
        term_to_string(&term_of_program(&parse_program(source, Grammar::K).unwrap()))
    }

    #[test]
    fn spacing_and_floats_as_krun_prints_them() {
        assert_eq!(krun("2.0*u[1,2]"), "0.20000000000000000e1 * u [ 1 , 2 ]");
        assert_eq!(krun("let x = relu(3.0) in x"), "let x = relu ( 0.30000000000000000e1 ) in x");
        assert_eq!(krun("let y = linear(W, x) in y[0]"), "let y = linear ( W , x ) in y [ 0 ]");
        assert_eq!(krun("let t = initTensor(2,3) in ArgMax(t)"), "let t = initTensor ( 2 , 3 ) in ArgMax ( t )");
    }

    #[test]
    fn brackets_follow_priorities() {
        assert_eq!(krun("a*(b+c)"), "a * ( b + c )");
        assert_eq!(krun("(a+b)[0]"), "( a + b ) [ 0 ]");
        assert_eq!(krun("1 + (let x = 1.0 in x)"), "1 + ( let x = 0.10000000000000000e1 in x )");
    }
}
