//! Where each buffer of a plan lives in a frame. A buffer is live from the operation that
//! first names it (inputs: from the start) to the last one (the result's: to the end); buffers
//! whose lives do not overlap share space, so a deep network needs two or three layers' worth
//! of memory per row, not one per layer, and a group of rows stays in cache.

use super::combine::operand_buffer;
use super::ops::{BufId, Op};
use super::plan::{Layout, Leaf, PlanInput, ResultSpec};

/// The buffers `op` names, read or written.
pub fn buffers_of(op: &Op) -> Vec<BufId> {
    match op {
        Op::Read { buf, .. }
        | Op::Write { buf, .. }
        | Op::AddBias { buf, .. }
        | Op::Elementwise { buf, .. }
        | Op::ArgMaxBuffer { buf, .. } => {
            vec![*buf]
        }
        Op::MatVec { out, x, relu, .. } => [Some(*out), Some(*x), relu.map(|r| r.out)].into_iter().flatten().collect(),
        Op::Activate { input, out, .. } => vec![*input, *out],
        Op::Conv2d { out, x, .. }
        | Op::Pool2d { out, x, .. }
        | Op::Copy { out, x, .. }
        | Op::Permute { out, x, .. }
        | Op::Softmax { out, x, .. }
        | Op::Reduce { out, x, .. }
        | Op::Pad { out, x, .. } => vec![*x, *out],
        Op::Combine { a, b, out, .. } => {
            [operand_buffer(a), operand_buffer(b), Some(*out)].into_iter().flatten().collect()
        }
        Op::MatMul { out, a, b, .. } => [Some(*out), a.buffer(), b.buffer()].into_iter().flatten().collect(),
        Op::Float { .. }
        | Op::Int { .. }
        | Op::Widen { .. }
        | Op::Item { .. }
        | Op::ArgMaxOperands { .. }
        | Op::Raise { .. } => Vec::new(),
        Op::Gather { out, from } => {
            let mut bufs: Vec<BufId> = from.iter().map(|&(buf, _)| buf).collect();
            bufs.sort_unstable();
            bufs.dedup();
            bufs.push(*out);
            bufs
        }
    }
}

/// Assigns space to `buffers` (their lengths) for `ops`, first fit over the freed space.
pub fn layout(ops: &[Op], inputs: &[PlanInput], result: &ResultSpec, buffers: &[usize]) -> Layout {
    const NEVER: usize = usize::MAX;
    let end = ops.len();
    let (mut first, mut last) = (vec![NEVER; buffers.len()], vec![0; buffers.len()]);
    let mut name = |b: BufId, at: usize| {
        let b = b as usize;
        first[b] = first[b].min(at);
        last[b] = last[b].max(at);
    };
    for input in inputs {
        name(input.buf, 0);
    }
    for (k, op) in ops.iter().enumerate() {
        buffers_of(op).into_iter().for_each(|b| name(b, k));
    }
    if let ResultSpec::Tensor { leaves, .. } = result {
        for leaf in leaves {
            if let Leaf::Slot(b, _) = leaf {
                name(*b, end);
            }
        }
    }

    let mut space = FreeSpace::default();
    let mut offsets = vec![0; buffers.len()];
    let mut born: Vec<Vec<usize>> = vec![Vec::new(); end + 1];
    let mut dies: Vec<Vec<usize>> = vec![Vec::new(); end + 1];
    for b in (0..buffers.len()).filter(|&b| first[b] != NEVER) {
        born[first[b]].push(b);
        dies[last[b]].push(b);
    }
    for k in 0..=end {
        // Outputs of operation k get space before its inputs are freed: the two never overlap.
        for &b in &born[k] {
            offsets[b] = space.take(buffers[b]);
        }
        for &b in &dies[k] {
            space.give_back(offsets[b], buffers[b]);
        }
    }
    Layout { offsets, len: space.end }
}

/// Free intervals `(start, len)` below `end`, sorted and merged.
#[derive(Default)]
struct FreeSpace {
    free: Vec<(usize, usize)>,
    end: usize,
}

impl FreeSpace {
    fn take(&mut self, len: usize) -> usize {
        if let Some(k) = self.free.iter().position(|&(_, l)| l >= len) {
            let (start, l) = self.free[k];
            if l == len {
                self.free.remove(k);
            } else {
                self.free[k] = (start + len, l - len);
            }
            return start;
        }
        // Grow, reusing a free interval that ends at `end`.
        let start = match self.free.last() {
            Some(&(s, l)) if s + l == self.end => {
                self.free.pop();
                s
            }
            _ => self.end,
        };
        self.end = start + len;
        start
    }

    fn give_back(&mut self, start: usize, len: usize) {
        if len == 0 {
            return;
        }
        let k = self.free.partition_point(|&(s, _)| s < start);
        self.free.insert(k, (start, len));
        if k + 1 < self.free.len() && start + len == self.free[k + 1].0 {
            self.free[k].1 += self.free.remove(k + 1).1;
        }
        if k > 0 && self.free[k - 1].0 + self.free[k - 1].1 == start {
            self.free[k - 1].1 += self.free.remove(k).1;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use knn_semantics::syntax::Span;

    use super::*;
    use crate::bigstep::ops::{Activation, ReluInto};
    use crate::tensor::Matrix;

    fn matvec(x: BufId, out: BufId, rows: usize, cols: usize) -> Op {
        let w = Arc::new(Matrix::new(rows, cols, vec![1.0; rows * cols]));
        Op::MatVec { out, w, x, x_at: 0, bias: None, relu: None }
    }

    /// No two buffers that are live at once overlap.
    fn assert_disjoint_while_live(ops: &[Op], inputs: &[PlanInput], buffers: &[usize], layout: &Layout) {
        let live: Vec<(usize, usize)> = (0..buffers.len())
            .map(|b| {
                let uses: Vec<usize> =
                    (0..ops.len()).filter(|&k| buffers_of(&ops[k]).contains(&(b as BufId))).collect();
                let from = if inputs.iter().any(|i| i.buf as usize == b) { 0 } else { uses[0] };
                (from, *uses.last().expect("every buffer of the test is used"))
            })
            .collect();
        for a in 0..buffers.len() {
            for b in a + 1..buffers.len() {
                let overlap_in_time = live[a].0 <= live[b].1 && live[b].0 <= live[a].1;
                let (ra, rb) = (
                    layout.offsets[a]..layout.offsets[a] + buffers[a],
                    layout.offsets[b]..layout.offsets[b] + buffers[b],
                );
                let overlap_in_space = ra.start < rb.end && rb.start < ra.end;
                assert!(!(overlap_in_time && overlap_in_space), "buffers {a} and {b} share space while both live");
                assert!(ra.end <= layout.len && rb.end <= layout.len);
            }
        }
    }

    #[test]
    fn growing_the_frame_takes_in_the_free_space_at_its_end() {
        let mut space = FreeSpace::default();
        let a = space.take(4);
        let b = space.take(2);
        assert_eq!((a, b, space.end), (0, 4, 6));
        space.give_back(b, 2);
        // Nothing free holds 6, but the 2 free at the end do: the frame grows by 4, not 6.
        assert_eq!(space.take(6), 4);
        assert_eq!(space.end, 10);
        // Neighbours given back merge into one interval that a larger buffer can take, whether
        // the right one comes back first or the left one.
        space.give_back(4, 6);
        space.give_back(0, 4);
        assert_eq!(space.take(10), 0);
        assert_eq!(space.end, 10);
        space.give_back(0, 4);
        space.give_back(4, 6);
        assert_eq!(space.take(10), 0);
        assert_eq!(space.end, 10);
    }

    #[test]
    fn a_deep_network_reuses_the_space_of_dead_layers() {
        // x(5) -> z0(50) -> h0(50) -> z1(50) -> h1(50) -> ... -> z6(5), ArgMax
        let mut ops = vec![matvec(0, 1, 50, 5)];
        let mut buffers = vec![5, 50];
        let mut current = 1;
        for layer in 0..6 {
            let h = buffers.len() as BufId;
            buffers.push(50);
            ops.push(Op::Activate {
                activation: Activation::Relu,
                input: current,
                in_at: 0,
                out: h,
                len: 50,
                span: Span::default(),
            });
            let z = buffers.len() as BufId;
            buffers.push(if layer == 5 { 5 } else { 50 });
            ops.push(matvec(h, z, buffers[z as usize], 50));
            current = z;
        }
        ops.push(Op::ArgMaxBuffer { buf: current, at: 0, len: 5, out: 0 });
        let inputs = [PlanInput { name: "x".into(), buf: 0, len: 5 }];
        let layout = layout(&ops, &inputs, &ResultSpec::Failed, &buffers);
        assert_disjoint_while_live(&ops, &inputs, &buffers, &layout);
        assert!(layout.len <= 5 + 2 * 50 + 5, "two layers' worth, not thirteen: {}", layout.len);
    }

    #[test]
    fn buffers_in_the_result_live_to_the_end_and_fused_outputs_do_not_overlap() {
        let mut fused = matvec(0, 1, 4, 3);
        if let Op::MatVec { relu, .. } = &mut fused {
            *relu = Some(ReluInto { out: 2, span: Span::default() });
        }
        let ops = vec![fused, matvec(2, 3, 4, 4)];
        let buffers = [3, 4, 4, 4];
        let inputs = [PlanInput { name: "x".into(), buf: 0, len: 3 }];
        let result = ResultSpec::Tensor { shape: vec![4], leaves: (0..4).map(|k| Leaf::Slot(1, k)).collect() };
        let layout = layout(&ops, &inputs, &result, &buffers);
        assert_disjoint_while_live(&ops, &inputs, &buffers, &layout);
        let (z, out) = (layout.offsets[1], layout.offsets[3]);
        assert!(z + 4 <= out || out + 4 <= z, "z is in the result: buffer 3 cannot take its space");
    }
}
