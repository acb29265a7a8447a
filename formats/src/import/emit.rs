//! A [`Network`] as revised K-NN source text.
//!
//! A layer is its weights as one tensor literal (`let W0 = initTensor(rows, cols)[…] in`,
//! Ext-2: the weights are data, one `let` a layer), `linear`, the bias added element by element
//! in place, a tensor activation. [`Style::ElementLets`] writes the weights the way
//! examples/mlp.knn does, one `let` per non-zero weight (the form before Ext-2). Runs of element-wise steps are fused into one write per element, in the steps'
//! order, so the program computes exactly what the steps say, operation by operation.
//!
//! Writes that cannot change a bit are left out: a weight of `+0.0` written by a `let`
//! (`initTensor` already holds it), `+ -0.0` and `* 1.0` (identities on every float), and
//! `+ 0.0` on an element that cannot be `-0.0` (a `linear` sum starts at `0.0`, and a sum is
//! `-0.0` only when both terms are).

use std::fmt::Write;
use std::io;

use knn_semantics::syntax::Elements;
use knn_semantics::syntax::print::float_literal;

use super::{Conv, Network, Step};

/// Element writes, or literal elements, per source line.
const WRITES_PER_LINE: usize = 8;

/// How a layer's weights are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Style {
    /// One tensor literal a layer (Ext-2, the revised grammar).
    #[default]
    Literals,
    /// One element `let` per non-zero weight (any grammar).
    ElementLets,
    /// A tensor literal a layer with its elements elided, `initTensor(rows, cols)[…]`: the
    /// text of a program built in memory ([`skeleton`]).
    Skeleton,
}

/// A network as a program without its weights as text: the program text with every layer's
/// literal written `[…]`, and the layers' weights, moved out of `network`, in the order of
/// the literals (`knn_semantics::syntax::parse_program_with_elements` reads the two). A
/// network of P parameters takes P·20 bytes of text otherwise, and its parse a token per
/// number.
pub fn skeleton(mut network: Network) -> (String, Vec<Elements>) {
    let text = emit_with(&network, Style::Skeleton);
    let elements = network
        .steps
        .iter_mut()
        .flat_map(|step| match step {
            Step::Linear { weights, .. } => vec![Elements::Floats(std::mem::take(weights))],
            Step::Conv(conv) => {
                let mut literals = vec![Elements::Floats(std::mem::take(&mut conv.weights))];
                literals.extend(conv.bias.as_mut().map(|b| Elements::Floats(std::mem::take(b))));
                literals
            }
            Step::Literal { values, .. } => vec![Elements::Floats(std::mem::take(values))],
            _ => Vec::new(),
        })
        .collect();
    (text, elements)
}

/// The program text, its weights as tensor literals.
pub fn emit(network: &Network) -> String {
    emit_with(network, Style::Literals)
}

/// The program text, its weights written in `style`.
pub fn emit_with(network: &Network, style: Style) -> String {
    let per_weight = match style {
        Style::Literals => 24,
        Style::ElementLets => 40,
        Style::Skeleton => 0,
    };
    let mut out = String::with_capacity(per_weight * network.parameter_count() + 1024);
    write_program(network, style, &mut out);
    out
}

/// The program text written to `writer` as it is made, never held whole (a network of P
/// parameters is about 20·P bytes of text): what `knn import -o` writes.
pub fn emit_to(network: &Network, style: Style, writer: &mut dyn io::Write) -> io::Result<()> {
    let mut sink = IoSink { writer, failed: None };
    write_program(network, style, &mut sink);
    sink.failed.map_or(Ok(()), Err)
}

/// `fmt::Write` onto an `io::Write`, keeping the first error; every write after it fails at
/// once, so the emitter (which goes on) writes nothing more.
struct IoSink<'w> {
    writer: &'w mut dyn io::Write,
    failed: Option<io::Error>,
}

impl Write for IoSink<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.failed.is_some() {
            return Err(std::fmt::Error);
        }
        self.writer.write_all(s.as_bytes()).map_err(|e| {
            self.failed = Some(e);
            std::fmt::Error
        })
    }
}

/// The program onto `out`. A `String` never fails to take text and an [`IoSink`] keeps its
/// error, so the results of the writes below are not looked at.
fn write_program(network: &Network, style: Style, out: &mut dyn Write) {
    header(network, out);
    let mut emitter = Emitter {
        out,
        style,
        current: network.input.clone(),
        shape: network.input_shape.clone(),
        linears: 0,
        copies: 0,
        kept: Vec::new(),
        protected: vec![network.input.clone()],
    };
    // Where the last tensor-producing step is: it takes the output's name (unless a branch is
    // taken up after it: the output is then a copy, `must_copy`).
    let last_producer = network
        .steps
        .iter()
        .rposition(|step| is_tensor_step(step) || matches!(step, Step::Resume(_)))
        .filter(|&index| is_tensor_step(&network.steps[index]));
    let mut pending: Vec<&Step> = Vec::new();
    let mut not_negative_zero = vec![false; network.input_len];
    for (index, step) in network.steps.iter().enumerate() {
        let name_as_output = Some(index) == last_producer;
        match step {
            Step::Keep(_)
            | Step::Resume(_)
            | Step::AddKept { .. }
            | Step::ConcatKept { .. }
            | Step::MatmulKept { .. }
            | Step::ArithKept { .. } => {
                emitter.elementwise(network, &pending, &not_negative_zero, false);
                let flags = branch::flags_after(&pending, not_negative_zero);
                pending.clear();
                not_negative_zero = emitter.branch_step(network, step, name_as_output, flags);
            }
            step if is_tensor_step(step) => {
                emitter.elementwise(network, &pending, &not_negative_zero, false);
                pending.clear();
                not_negative_zero = emitter.tensor_step(network, step, name_as_output);
            }
            _ => pending.push(step),
        }
    }
    let must_copy = last_producer.is_none();
    emitter.elementwise(network, &pending, &not_negative_zero, must_copy);
    let _ = writeln!(emitter.out, "\n{}", network.output);
}

/// Whether a step makes a fresh tensor (the others are written element by element).
fn is_tensor_step(step: &Step) -> bool {
    matches!(
        step,
        Step::Linear { .. }
            | Step::Activation(_)
            | Step::Conv(_)
            | Step::Pool(_)
            | Step::Reshape(_)
            | Step::Transpose { .. }
            | Step::AddKept { .. }
            | Step::ConcatKept { .. }
            | Step::Softmax { .. }
            | Step::Reduce { .. }
            | Step::Slice { .. }
            | Step::Pad { .. }
            | Step::MatmulKept { .. }
            | Step::ArithKept { .. }
            | Step::Literal { .. }
    )
}

struct Emitter<'o> {
    out: &'o mut dyn Write,
    style: Style,
    /// The tensor that holds the current vector.
    current: String,
    /// Its shape.
    shape: Vec<usize>,
    linears: usize,
    copies: usize,
    /// The kept values (`Step::Keep`): slot, tensor, shape, and which elements are known not
    /// to be `-0.0`.
    kept: Vec<(usize, String, Vec<usize>, Vec<bool>)>,
    /// The tensors never written in place: the input (which stays as the user bound it) and the
    /// kept values (which a later step reads again).
    protected: Vec<String>,
}

impl Emitter<'_> {
    /// `linear` or an activation into a fresh tensor; returns which elements of the result are
    /// known not to be `-0.0`.
    fn tensor_step(&mut self, network: &Network, step: &Step, name_as_output: bool) -> Vec<bool> {
        let out = &mut *self.out;
        match step {
            Step::Linear { rows, cols, weights } => {
                let k = self.linears;
                self.linears += 1;
                let w = format!("W{k}");
                let target = if name_as_output { network.output.clone() } else { format!("z{k}") };
                let _ = writeln!(out, "\n// Layer {k}: {cols} -> {rows}");
                if self.style != Style::ElementLets {
                    if self.style == Style::Skeleton {
                        let _ = writeln!(out, "let {w} = initTensor({rows}, {cols})[…] in");
                    } else {
                        literal(out, &w, &[*rows, *cols], *cols, weights);
                    }
                    let _ = writeln!(out, "let {target} = linear({w}, {}) in", self.current);
                    self.current = target;
                    self.shape = vec![*rows];
                    return vec![true; *rows];
                }
                let _ = writeln!(out, "let {w} = initTensor({rows}, {cols}) in");
                for (i, row) in weights.chunks(*cols).enumerate() {
                    let mut written = 0;
                    for (j, &weight) in row.iter().enumerate() {
                        if weight.to_bits() == 0f64.to_bits() {
                            continue;
                        }
                        if written > 0 {
                            let _ = out.write_str(if written % WRITES_PER_LINE == 0 { "\n" } else { " " });
                        }
                        let _ = write!(out, "let {w}[{i}, {j}] = {} in", float_literal(weight));
                        written += 1;
                    }
                    if written > 0 {
                        let _ = out.write_char('\n');
                    }
                }
                let _ = writeln!(out, "let {target} = linear({w}, {}) in", self.current);
                self.current = target;
                self.shape = vec![*rows];
                vec![true; *rows]
            }
            Step::Conv(conv) => self.conv(network, conv, name_as_output),
            Step::Pool(pool) => self.pool(network, pool, name_as_output),
            Step::Reshape(shape) => self.reshape(network, shape, name_as_output),
            Step::Transpose { perm, output } => self.transpose(network, perm, output, name_as_output),
            Step::Softmax { axis, log } => self.softmax(network, *axis, *log, name_as_output),
            Step::Reduce { kind, axes, output } => self.reduce(network, *kind, axes, output, name_as_output),
            Step::Slice { axis, begin, end, step, output } => {
                self.slice(network, [*axis, *begin, *end, *step], output, name_as_output)
            }
            Step::Pad { value, pads, output } => self.pad(network, *value, pads, output, name_as_output),
            Step::Literal { dims, values } => self.constant(dims, values),
            Step::Activation(activation) => {
                let target = if name_as_output { network.output.clone() } else { format!("h{}", self.copies) };
                self.copies += 1;
                let _ = writeln!(out, "let {target} = {}({}) in", activation.tensor_function(), self.current);
                self.current = target;
                vec![false; self.shape.iter().product()]
            }
            _ => unreachable!("element-wise steps are fused by `elementwise`, branch steps written by `branch_step`"),
        }
    }

    /// One write per element for a run of element-wise steps: in place, or into a fresh tensor
    /// when the current vector is the program's input (which stays as the user bound it) or
    /// when `must_copy` (the output needs a tensor of its own).
    fn elementwise(&mut self, network: &Network, steps: &[&Step], not_negative_zero: &[bool], must_copy: bool) {
        let len: usize = self.shape.iter().product();
        let expressions: Vec<Option<String>> =
            (0..len).map(|i| element(&self.current, &self.index(i), i, steps, not_negative_zero[i])).collect();
        let copy = must_copy || (self.protected.contains(&self.current) && expressions.iter().any(Option::is_some));
        if !copy && expressions.iter().all(Option::is_none) {
            return;
        }
        let source = self.current.clone();
        // A copy as Ext-5's `reshape` to the same shape (`flatten` of a vector), then the
        // element writes in place, so that each element's chain reads and writes one tensor,
        // which the engine fuses into one operation and the verifier reads as layers; in the
        // style for any grammar, a fresh tensor written element by element.
        let in_place = copy && self.style != Style::ElementLets;
        if copy {
            let target = if must_copy { network.output.clone() } else { format!("t{}", self.copies) };
            self.copies += 1;
            let dims = self.shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
            let copy = match &self.shape[..] {
                _ if !in_place => format!("initTensor({dims})"),
                [_] => format!("flatten({source})"),
                _ => format!("reshape({source}, {dims})"),
            };
            let _ = writeln!(self.out, "\nlet {target} = {copy} in");
            self.current = target;
        } else {
            let _ = self.out.write_char('\n');
        }
        for (i, expression) in expressions.into_iter().enumerate() {
            let index = self.index(i);
            let value = match expression {
                // In the copy the element holds the same bits as in `source`.
                Some(_) if in_place => element(&self.current, &index, i, steps, not_negative_zero[i]).expect("changed"),
                Some(e) => e,
                None if copy && !in_place => format!("{source}[{index}]"),
                None => continue,
            };
            let _ = writeln!(self.out, "let {}[{index}] = {value} in", self.current);
        }
    }

    /// The index of element `flat` of the current tensor, as written between brackets:
    /// `3` for a vector, `1, 0, 2` for a rank-3 tensor (row-major).
    fn index(&self, flat: usize) -> String {
        if let [_] = self.shape[..] {
            return flat.to_string();
        }
        let mut index = vec![0; self.shape.len()];
        let mut rest = flat;
        for (slot, &d) in index.iter_mut().zip(&self.shape).rev() {
            *slot = rest % d.max(1);
            rest /= d.max(1);
        }
        index.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
    }

    /// `conv2d` into a fresh tensor: its weights (and bias) as literals, the attributes that
    /// differ from the defaults.
    fn conv(&mut self, network: &Network, conv: &Conv, name_as_output: bool) -> Vec<bool> {
        let k = self.linears;
        self.linears += 1;
        let (w, b) = (format!("W{k}"), format!("b{k}"));
        let target = if name_as_output { network.output.clone() } else { format!("z{k}") };
        let output = conv.output_shape();
        let out = &mut *self.out;
        let _ = writeln!(out, "\n// Layer {k}: conv2d {} -> {}", shape_words(&conv.input), shape_words(&output));
        let [m, cg, kh, kw] = conv.kernel;
        if self.style == Style::Skeleton {
            let _ = writeln!(out, "let {w} = initTensor({m}, {cg}, {kh}, {kw})[…] in");
            if conv.bias.is_some() {
                let _ = writeln!(out, "let {b} = initTensor({m})[…] in");
            }
        } else {
            // One output channel's kernel a row.
            literal(out, &w, &[m, cg, kh, kw], cg * kh * kw, &conv.weights);
            if let Some(bias) = &conv.bias {
                literal(out, &b, &[m], m, bias);
            }
        }
        let mut operands = format!("{}, {w}", self.current);
        if conv.bias.is_some() {
            let _ = write!(operands, ", {b}");
        }
        if conv.strides != [1, 1] {
            let _ = write!(operands, ", strides = [{}, {}]", conv.strides[0], conv.strides[1]);
        }
        if conv.pads != [0; 4] {
            let [t, l, bottom, r] = conv.pads;
            let _ = write!(operands, ", pads = [{t}, {l}, {bottom}, {r}]");
        }
        if conv.dilations != [1, 1] {
            let _ = write!(operands, ", dilations = [{}, {}]", conv.dilations[0], conv.dilations[1]);
        }
        if conv.group != 1 {
            let _ = write!(operands, ", group = {}", conv.group);
        }
        let _ = writeln!(out, "let {target} = conv2d({operands}) in");
        self.current = target;
        self.shape = output;
        // Every sum starts at `0.0` and is never `-0.0`; the bias is added to it.
        vec![true; self.shape.iter().product()]
    }
}

/// `let W = initTensor(dims)[…] in`: each row of `row` elements from a new line,
/// `WRITES_PER_LINE` elements a line.
fn literal(out: &mut dyn Write, w: &str, dims: &[usize], cols: usize, weights: &[f64]) {
    let dims = dims.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
    let _ = write!(out, "let {w} = initTensor({dims})[");
    for (k, &weight) in weights.iter().enumerate() {
        if k > 0 {
            let _ = out.write_char(',');
        }
        // A row starts a line (column 0 is a multiple of the line length).
        let _ = out.write_str(if (k % cols).is_multiple_of(WRITES_PER_LINE) { "\n  " } else { " " });
        let _ = out.write_str(&float_literal(weight));
    }
    let _ = out.write_str("\n] in\n");
}

#[path = "emit_branch.rs"]
mod branch;
#[path = "emit_header.rs"]
mod header;
use header::{header, shape_words};
#[path = "emit_element.rs"]
mod element;
#[path = "emit_pool.rs"]
mod pool;
use element::element;

#[cfg(test)]
#[path = "emit_tests.rs"]
mod tests;
