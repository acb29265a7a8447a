//! A window front for the generated networks: the input vector reshaped into a tiny image
//! (`reshape`, Ext-5), then `conv2d` (Ext-3) with weights that include the extremes, an
//! optional relu, an optional `maxPool2d` or `avgPool2d` (Ext-4), and `flatten`, before the
//! dense layers. The plain evaluation uses the engine's own per-row definitions
//! (`window_ops`), which only steer the generator; the oracle runs the reference.

use std::fmt::Write;

use knn_engine::bigstep::window_ops::{ConvKernel, pool_apply, pool_taps};
use knn_semantics::syntax::Pool;
use knn_semantics::syntax::print::float_literal;
use knn_semantics::window::{Conv2dGeometry, Pool2dGeometry, WindowAttrs};

use super::choices::Choices;

/// `conv2d(img, K, B, …)`: the kernel `M × C/G × KH × KW` row-major, the bias if any.
#[derive(Clone, Debug)]
pub struct Conv {
    pub geometry: Conv2dGeometry,
    pub weights: Vec<f64>,
    pub bias: Option<Vec<f64>>,
}

#[derive(Clone, Debug)]
pub struct PoolLayer {
    pub pool: Pool,
    pub geometry: Pool2dGeometry,
}

/// The front: the image's shape, then each stage if present.
#[derive(Clone, Debug)]
pub struct Front {
    pub image: [i64; 3],
    pub conv: Option<Conv>,
    pub relu: bool,
    pub pool: Option<PoolLayer>,
}

/// The shapes a front takes: at most four inputs, so that regions stay enumerable.
const IMAGES: [[i64; 3]; 7] = [[1, 1, 2], [1, 2, 2], [1, 1, 3], [2, 1, 2], [1, 2, 1], [1, 1, 4], [2, 1, 1]];

fn attrs(c: &mut Choices, kernel: [i64; 2], may_dilate: bool) -> WindowAttrs {
    let strides = [1 + i64::from(c.chance(1, 4)), 1 + i64::from(c.chance(1, 4))];
    // Pads stay below the window, as ONNX has them for pools.
    let pads = [kernel[0], kernel[1], kernel[0], kernel[1]].map(|k| if k > 1 && c.chance(1, 3) { 1 } else { 0 });
    let dilations = if may_dilate { [1 + i64::from(c.chance(1, 5)), 1 + i64::from(c.chance(1, 5))] } else { [1, 1] };
    WindowAttrs { strides, pads, dilations, group: 1, kernel, count_pad: 0 }
}

/// The plain attributes that always fit: a 1×1 window, no padding, strides 1.
fn plain(kernel: [i64; 2]) -> WindowAttrs {
    WindowAttrs { strides: [1, 1], pads: [0; 4], dilations: [1, 1], group: 1, kernel, count_pad: 0 }
}

/// A front, its weights drawn by `parameter` (ordinary values, or extremes).
pub fn draw(c: &mut Choices, mut parameter: impl FnMut(&mut Choices) -> f64) -> Front {
    let image = c.pick(&IMAGES);
    let mut shape = image;
    let conv = c.chance(3, 4).then(|| {
        let group = if image[0] == 2 && c.chance(1, 2) { 2 } else { 1 };
        let m = group * (1 + c.below(2) as i64);
        let kernel = [1 + c.below(2) as i64, 1 + c.below(2) as i64];
        let w = [m, image[0] / group, kernel[0], kernel[1]];
        let chosen = WindowAttrs { group, ..attrs(c, kernel, true) };
        let geometry = Conv2dGeometry::check(("img", "K", None), &image, &w, None, chosen)
            .or_else(|_| {
                Conv2dGeometry::check(
                    ("img", "K", None),
                    &image,
                    &[m, image[0] / group, 1, 1],
                    None,
                    WindowAttrs { group, ..plain([1, 1]) },
                )
            })
            .expect("a 1×1 kernel fits every image");
        let weights = (0..geometry.kernel.iter().product::<i64>()).map(|_| parameter(c)).collect();
        let bias = c.chance(1, 2).then(|| (0..m).map(|_| parameter(c)).collect());
        shape = geometry.output;
        Conv { geometry, weights, bias }
    });
    let relu = conv.is_some() && c.chance(2, 3);
    let pool = (conv.is_none() || c.chance(1, 2)).then(|| {
        let pool = if c.chance(1, 2) { Pool::Max } else { Pool::Avg };
        let kernel = [1 + c.below(2) as i64, 1 + c.below(2) as i64];
        let chosen = WindowAttrs { count_pad: i64::from(c.chance(1, 2)), ..attrs(c, kernel, pool == Pool::Max) };
        let check = |a| Pool2dGeometry::check("pool", "h", &shape, a).ok();
        // A window wholly in the padding (a maximum of nothing, a mean of 0/0) is refused by
        // the verifier: drawn the plain way instead.
        let fits = |g: &Pool2dGeometry| {
            let outputs = g.output.iter().product::<i64>() as usize;
            (0..outputs).all(|k| pool_taps(g, k).next().is_some())
        };
        let geometry = check(chosen).filter(fits).unwrap_or_else(|| check(plain([1, 1])).expect("a 1×1 window fits"));
        PoolLayer { pool, geometry }
    });
    Front { image, conv, relu, pool }
}

fn dims(d: &[i64]) -> String {
    d.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
}

fn window_attrs(a: &WindowAttrs, dilations: bool) -> String {
    let mut text = format!("strides = [{}], pads = [{}]", dims(&a.strides), dims(&a.pads));
    if dilations {
        write!(text, ", dilations = [{}]", dims(&a.dilations)).unwrap();
    }
    text
}

impl Front {
    pub fn input_len(&self) -> usize {
        self.image.iter().product::<i64>() as usize
    }

    /// The length of the flattened output.
    pub fn output_len(&self) -> usize {
        let shape = match (&self.pool, &self.conv) {
            (Some(p), _) => p.geometry.output,
            (None, Some(c)) => c.geometry.output,
            (None, None) => self.image,
        };
        shape.iter().product::<i64>() as usize
    }

    /// The program text up to `let f = flatten(…) in`, on the input vector `x`; the name of
    /// the vector it ends with.
    pub fn source(&self, out: &mut String) -> &'static str {
        writeln!(out, "let img = reshape(x, {}) in", dims(&self.image)).unwrap();
        let mut current = "img";
        if let Some(conv) = &self.conv {
            let g = &conv.geometry;
            writeln!(out, "let K = initTensor({}) in", dims(&g.kernel)).unwrap();
            let [m, cg, kh, kw] = g.kernel;
            for (k, w) in conv.weights.iter().enumerate() {
                let k = k as i64;
                let (o, ch, i, j) = (k / (cg * kh * kw), (k / (kh * kw)) % cg, (k / kw) % kh, k % kw);
                write!(out, "let K[{o}, {ch}, {i}, {j}] = {} in ", float_literal(*w)).unwrap();
            }
            out.push('\n');
            let bias = match &conv.bias {
                Some(b) => {
                    writeln!(out, "let B = initTensor({m}) in").unwrap();
                    for (o, v) in b.iter().enumerate() {
                        write!(out, "let B[{o}] = {} in ", float_literal(*v)).unwrap();
                    }
                    out.push('\n');
                    ", B"
                }
                None => "",
            };
            let attrs = window_attrs(&g.attrs, true);
            writeln!(out, "let cv = conv2d(img, K{bias}, {attrs}, group = {}) in", g.attrs.group).unwrap();
            current = "cv";
            if self.relu {
                writeln!(out, "let cr = reluTensor(cv) in").unwrap();
                current = "cr";
            }
        }
        if let Some(p) = &self.pool {
            let a = &p.geometry.attrs;
            let attrs = window_attrs(a, p.pool == Pool::Max);
            let count = if p.pool == Pool::Avg { format!(", countPad = {}", a.count_pad) } else { String::new() };
            let kernel = dims(&a.kernel);
            writeln!(out, "let pl = {}({current}, kernel = [{kernel}], {attrs}{count}) in", p.pool.keyword()).unwrap();
            current = "pl";
        }
        writeln!(out, "let f = flatten({current}) in").unwrap();
        "f"
    }

    /// The flattened output at `x` by the engine's per-row definitions, and whether `max` met
    /// a NaN (relu's NaN is reported by the caller's check of the output, as for dense layers).
    pub fn approximate(&self, x: &[f64]) -> (Vec<f64>, bool) {
        let (mut v, mut nan_error) = (x.to_vec(), false);
        if let Some(conv) = &self.conv {
            let kernel = ConvKernel {
                geometry: conv.geometry,
                weights: conv.weights.clone().into(),
                bias: conv.bias.clone().map(Into::into),
            };
            let mut out = vec![0.0; kernel.output_len()];
            kernel.apply(&v, &mut out);
            if self.relu {
                nan_error |= out.iter().any(|e| e.is_nan());
                out.iter_mut().for_each(|e| *e = e.max(0.0));
            }
            v = out;
        }
        if let Some(p) = &self.pool {
            let mut out = vec![0.0; p.geometry.output.iter().product::<i64>() as usize];
            nan_error |= pool_apply(p.pool, &p.geometry, &v, &mut out).is_err();
            v = out;
        }
        (v, nan_error)
    }
}

#[cfg(test)]
mod tests {
    use knn_engine::bigstep::ops::Op;
    use knn_semantics::syntax::{Grammar, parse_program};
    use knn_verify::Target;

    use crate::verify_exhaustive::window_case_of_seed;

    /// The window cases reach the verifier's window layers: their plans hold the fused
    /// `Conv2d` and `Pool2d` of both kinds, which the verifier reads (a front element by
    /// element would be refused, and the search would test nothing of them).
    #[test]
    fn window_cases_compile_to_the_fused_operations_the_verifier_reads() {
        let (mut convs, mut maxes, mut averages) = (0, 0, 0);
        for seed in 0..200 {
            let case = window_case_of_seed(seed);
            let program = parse_program(&case.program, Grammar::Relaxed).expect("the generated program parses");
            let inputs = case.program.split("reshape(x, ").nth(1).expect("a front").split(')').next().unwrap();
            let len: usize = inputs.split(", ").map(|d| d.parse::<usize>().unwrap()).product();
            let target = Target::new(program, "x", vec![len], Vec::new())
                .unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{}", case.program));
            for op in &target.plan.ops {
                match op {
                    Op::Conv2d { .. } => convs += 1,
                    Op::Pool2d { pool: knn_semantics::syntax::Pool::Max, .. } => maxes += 1,
                    Op::Pool2d { .. } => averages += 1,
                    _ => {}
                }
            }
        }
        assert!(
            convs > 100 && maxes > 30 && averages > 30,
            "{convs} conv2d, {maxes} max pools, {averages} average pools"
        );
    }
}
