//! Reading a plan whose tensors branch and meet again (a residual connection: `addTensor` of
//! two tensors computed from the input) as a chain of layers on one vector. The vector holds,
//! side by side, every tensor computed from the input that a later operation still reads (a
//! *segment* each); a layer of one of them is lifted ([`Lift`]: the others kept unchanged), a
//! tensor read again later is copied first, and the sum of two is a sparse layer over both
//! (`combine.rs`). The chain then computes, element for element, the values the engine
//! computes, so every analysis of a chain applies unchanged (docs/verification.md, "Branches").
//!
//! Activations act on the whole vector. Across a relu, a kept tensor is left as it is when it
//! cannot be negative (a relu's output, or one moved or max-pooled from it); otherwise it is
//! carried as the pair `(relu(s), relu(−s))`, whose difference is `s` exactly (one of the two
//! is 0), and the pair is summed back before it is read. Only relu is read across branches.

use std::collections::HashMap;

use knn_engine::bigstep::Plan;
use knn_engine::bigstep::ops::{BufId, CombineOperand, Op};
use knn_engine::bigstep::plan::{Leaf, ResultSpec};

use crate::operator::{Chain, Layer, Lift, Partial, Sparse};
use crate::unsupported::Unsupported;

/// What is known of a segment's sign, for carrying it across a relu.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Sign {
    Any,
    /// Never negative (a relu's output: a NaN would have failed there).
    NonNegative,
    /// Held as `(relu(s), relu(−s))`: `2·len` elements.
    Pair,
}

/// One tensor of the vector: the buffer of the plan that holds it, its length, its sign.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Segment {
    pub buf: BufId,
    pub len: usize,
    pub sign: Sign,
}

impl Segment {
    fn width(&self) -> usize {
        if self.sign == Sign::Pair { 2 * self.len } else { self.len }
    }
}

/// The layers read so far, and the tensors on the vector the last of them computes.
pub struct Branches {
    pub layers: Vec<Layer>,
    pub(crate) segments: Vec<Segment>,
    /// The index of the last operation that reads each buffer (`usize::MAX`: the result's).
    last_read: HashMap<BufId, usize>,
}

impl Branches {
    /// Nothing read yet: the vector is the input `input` of `len` elements.
    pub fn new(plan: &Plan, input: BufId, len: usize) -> Branches {
        let mut last_read = HashMap::new();
        for (k, op) in plan.ops.iter().enumerate() {
            for buf in reads(op) {
                last_read.insert(buf, k);
            }
        }
        if let ResultSpec::Tensor { leaves, .. } = &plan.result {
            for leaf in leaves {
                if let Leaf::Slot(buf, _) = leaf {
                    last_read.insert(*buf, usize::MAX);
                }
            }
        }
        Branches { layers: Vec::new(), segments: vec![Segment { buf: input, len, sign: Sign::Any }], last_read }
    }

    /// Where segment `j` starts on the vector.
    pub(crate) fn offset(&self, j: usize) -> usize {
        self.segments[..j].iter().map(Segment::width).sum()
    }

    pub(crate) fn width(&self) -> usize {
        self.segments.iter().map(Segment::width).sum()
    }

    pub(crate) fn find(&self, buf: BufId) -> Option<usize> {
        self.segments.iter().position(|s| s.buf == buf)
    }

    /// Whether a buffer is read by an operation after the `k`-th, or by the result.
    pub(crate) fn read_after(&self, buf: BufId, k: usize) -> bool {
        self.last_read.get(&buf).is_some_and(|&last| last > k)
    }

    /// The positions on the vector of `len` elements of `buf` from `at`, if they are on it.
    pub fn positions(&mut self, buf: BufId, at: usize, len: usize) -> Option<Vec<usize>> {
        let j = self.settle(self.find(buf)?);
        let offset = self.offset(j);
        (at + len <= self.segments[j].len).then(|| (offset + at..offset + at + len).collect())
    }

    /// Which segments are read after the `k`-th operation, but for segment `except`.
    pub(crate) fn live(&self, k: usize, except: Option<usize>) -> Vec<bool> {
        self.segments.iter().enumerate().map(|(i, t)| Some(i) != except && self.read_after(t.buf, k)).collect()
    }

    /// The positions of the segments `keep` marks, and those segments, in order.
    pub(crate) fn kept(&self, keep: &[bool]) -> (Vec<usize>, Vec<Segment>) {
        let (mut positions, mut segments) = (Vec::new(), Vec::new());
        for (i, s) in self.segments.iter().enumerate() {
            if keep[i] {
                let at = self.offset(i);
                positions.extend(at..at + s.width());
                segments.push(*s);
            }
        }
        (positions, segments)
    }

    /// Pushes `inner` (`None`: a copy) on segment `j`, keeping the segments `keep` before its
    /// output `new`. The new segment's index.
    fn lift(&mut self, inner: Option<Layer>, j: usize, keep: &[bool], new: Segment) -> usize {
        let start = self.offset(j);
        let input = start..start + self.segments[j].width();
        let (positions, kept) = self.kept(keep);
        self.push(Lift::new(inner, input, positions), kept, new)
    }

    /// Pushes `lift`, whose output is the segments `kept` then `new`. The new segment's index.
    pub(crate) fn push(&mut self, lift: Lift, mut kept: Vec<Segment>, new: Segment) -> usize {
        self.layers.push(Layer::lift(lift));
        kept.push(new);
        self.segments = kept;
        self.segments.len() - 1
    }

    /// Segment `j` as its values (a pair summed back: `relu(s) − relu(−s)`, one term 0, so the
    /// sparse layer's `p + (−1)·n`, from its first term, is `s`, a zero's sign included:
    /// `relu(−0) = −0`, and `−0 − (+0) = −0`). Its index after.
    pub(crate) fn settle(&mut self, j: usize) -> usize {
        let s = self.segments[j];
        if s.sign != Sign::Pair {
            return j;
        }
        let rows = (0..s.len).map(|i| vec![(i, 1.0), (s.len + i, -1.0)]).collect();
        let merge = Layer::sparse(Sparse::exact_rows("relu(s) - relu(-s)", 2 * s.len, rows));
        let others = self.all_but(j);
        self.lift(Some(merge), j, &others, Segment { sign: Sign::Any, ..s })
    }

    fn all_but(&self, j: usize) -> Vec<bool> {
        (0..self.segments.len()).map(|i| i != j).collect()
    }

    /// Segment `j` as `(s, −s)`, a pair after the next relu (negation is exact).
    fn split_signs(&mut self, j: usize) {
        let s = self.segments[j];
        let rows = (0..s.len).map(|i| vec![(i, 1.0)]).chain((0..s.len).map(|i| vec![(i, -1.0)])).collect();
        let mirror = Layer::sparse(Sparse::exact_rows("(s, -s)", s.len, rows));
        let others = self.all_but(j);
        self.lift(Some(mirror), j, &others, Segment { sign: Sign::Pair, ..s });
    }

    /// The `k`-th operation of the plan, which reads the tensor in `input` and which `read` (an
    /// operator's reading) reads onto a chain of its own, on the segments.
    pub fn read(
        &mut self,
        k: usize,
        input: BufId,
        read: impl FnOnce(&mut Chain) -> Result<(), Unsupported>,
    ) -> Result<(), Unsupported> {
        let Some(j) = self.find(input) else {
            // Not on the vector: the operator's own reading refuses it, saying what it is.
            return read(&mut Chain { layers: Vec::new(), current: BufId::MAX, len: 0 });
        };
        let j = self.settle(j);
        let s = self.segments[j];
        let mut chain = Chain { layers: Vec::new(), current: s.buf, len: s.len };
        read(&mut chain)?;
        let in_place = chain.current == s.buf;
        let sign = chain.layers.iter().fold(s.sign, |sign, layer| match layer.keeps_non_negative() {
            true if layer.is_activation() => Sign::NonNegative,
            true => sign,
            false => Sign::Any,
        });
        if self.segments.len() == 1 && (in_place || !self.read_after(s.buf, k)) {
            // A chain so far: its layers as they are.
            self.layers.extend(chain.layers);
            self.segments[0] = Segment { buf: chain.current, len: chain.len, sign };
            return Ok(());
        }
        // The segment the layers act on, named by the buffer they write (a new one, or `s`'s).
        let acting = chain.current;
        let mut j = j;
        if !in_place && self.read_after(s.buf, k) {
            let live = self.live(k, None);
            j = self.lift(None, j, &live, Segment { buf: acting, ..s });
        } else {
            self.segments[j].buf = acting;
        }
        for layer in chain.layers {
            if layer.is_activation() {
                j = self.activate(layer, acting, k)?;
            } else {
                let from = self.segments[j];
                let new = Segment { buf: acting, len: layer.output_len(from.len), sign: Sign::Any };
                let live = self.live(k, Some(j));
                j = self.lift(Some(layer), j, &live, new);
            }
        }
        self.segments[j] = Segment { buf: acting, len: chain.len, sign };
        Ok(())
    }

    /// An activation on the whole vector, for the segment of `acting`: every other segment
    /// still read must pass through it unchanged. Its index after.
    fn activate(&mut self, layer: Layer, acting: BufId, k: usize) -> Result<usize, Unsupported> {
        // Drop what is no longer read, so that nothing is split or carried for nothing.
        let j = self.find(acting).expect("the acting segment is on the vector");
        let live = self.live(k, Some(j));
        if live.iter().enumerate().any(|(i, &read)| i != j && !read) {
            self.lift(None, j, &live, self.segments[j]);
        }
        if self.segments.len() > 1 && !layer.splits_at_zero() {
            // A monotone activation acts on its segment only, the kept ones pass unchanged.
            let j = self.find(acting).expect("the acting segment is on the vector");
            let start: usize = self.segments[..j].iter().map(|t| t.len).sum();
            let acting_range = start..start + self.segments[j].len;
            self.layers.push(Layer::partial(Partial::new(layer, acting_range)));
            return Ok(j);
        }
        while let Some(i) = self.segments.iter().position(|t| t.buf != acting && t.sign == Sign::Any) {
            self.split_signs(i);
        }
        self.layers.push(layer);
        Ok(self.find(acting).expect("the acting segment is on the vector"))
    }
}

/// The buffers `op` reads.
fn reads(op: &Op) -> Vec<BufId> {
    match op {
        Op::MatVec { x, .. }
        | Op::Conv2d { x, .. }
        | Op::Pool2d { x, .. }
        | Op::Copy { x, .. }
        | Op::Permute { x, .. }
        | Op::Softmax { x, .. }
        | Op::Reduce { x, .. }
        | Op::Pad { x, .. } => vec![*x],
        Op::AddBias { buf, .. } | Op::Elementwise { buf, .. } | Op::Read { buf, .. } | Op::ArgMaxBuffer { buf, .. } => {
            vec![*buf]
        }
        Op::Activate { input, .. } => vec![*input],
        Op::Combine { a, b, .. } => [a, b].into_iter().filter_map(computed).collect(),
        Op::Gather { from, .. } => from.iter().map(|&(buf, _)| buf).collect(),
        Op::MatMul { a, b, .. } => [a.buffer(), b.buffer()].into_iter().flatten().collect(),
        Op::Write { .. }
        | Op::Float { .. }
        | Op::Int { .. }
        | Op::Widen { .. }
        | Op::Item { .. }
        | Op::ArgMaxOperands { .. }
        | Op::Raise { .. } => Vec::new(),
    }
}

/// The buffer a `Combine` operand reads, unless it is constant.
pub(crate) fn computed(operand: &CombineOperand) -> Option<BufId> {
    match operand {
        CombineOperand::Run { buf, .. } | CombineOperand::Gather { buf, .. } => Some(*buf),
        CombineOperand::Constants(_) => None,
    }
}
