//! A small MNIST CNN (issue 29, point 2): `conv2d` of a 1×28×28 image with 32 kernels of 2×2 at
//! stride 1 and a bias (32×27×27), `reluTensor`, a 4×4 pool of stride 4 (`maxPool2d`, or
//! `avgPool2d` for the variant: 32×6×6), `flatten` (1152), `linear` 1152 → 10 with a bias, and
//! the class (`ArgMax`). The weights come from one seeded stream in a fixed order, which
//! `benches/peers/cnn.py` reproduces to build the same float64 model for onnxruntime.

use std::fmt::Write;

use knn_engine::bigstep::{Binding, InputData, Plan, compile};
use knn_semantics::syntax::Exp;

use super::Weights;

/// The image: channels, rows, columns.
pub const IMAGE: [usize; 3] = [1, 28, 28];
/// Output channels of the convolution, and its kernel's side.
pub const KERNELS: usize = 32;
pub const KERNEL_SIDE: usize = 2;
/// The pool's window and stride.
pub const POOL: usize = 4;
/// The pooled features (32 × 6 × 6) and the classes.
pub const FEATURES: usize = 1152;
pub const CLASSES: usize = 10;

/// The pool of the CNN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CnnPool {
    Max,
    Avg,
}

impl CnnPool {
    pub fn keyword(self) -> &'static str {
        match self {
            CnnPool::Max => "maxPool2d",
            CnnPool::Avg => "avgPool2d",
        }
    }
}

/// The weights, in the order the stream gives them: the kernels `32×1×2×2` (scale 1/2), their
/// bias (scale 1/10), the dense weights `10×1152` row-major (scale 1/√1152), its bias (1/10).
pub struct Cnn {
    pub seed: u64,
    pub kernels: Vec<f64>,
    pub kernel_bias: Vec<f64>,
    pub dense: Vec<f64>,
    pub dense_bias: Vec<f64>,
}

impl Cnn {
    pub fn seeded(seed: u64) -> Cnn {
        let mut stream = Weights { state: seed, scale: 0.5 };
        let mut take = |n: usize, scale: f64| {
            stream.scale = scale;
            (0..n).map(|_| stream.next()).collect::<Vec<f64>>()
        };
        let kernels = take(KERNELS * KERNEL_SIDE * KERNEL_SIDE, 0.5);
        let kernel_bias = take(KERNELS, 0.1);
        let dense = take(CLASSES * FEATURES, 1.0 / (FEATURES as f64).sqrt());
        let dense_bias = take(CLASSES, 0.1);
        Cnn { seed, kernels, kernel_bias, dense, dense_bias }
    }

    /// The K-NN program over the input `x` (1×28×28): the weights as tensor literals, the dense
    /// bias as element `let`s (fused into the product), ending in `tail` (`ArgMax(z)`, `z`).
    pub fn program(&self, pool: CnnPool, tail: &str) -> String {
        let list = |values: &[f64]| values.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", ");
        let mut s = String::new();
        let k = KERNEL_SIDE;
        write!(s, "let w = initTensor({KERNELS}, 1, {k}, {k})[{}] in ", list(&self.kernels)).unwrap();
        write!(s, "let b = initTensor({KERNELS})[{}] in ", list(&self.kernel_bias)).unwrap();
        write!(s, "let W = initTensor({CLASSES}, {FEATURES})[{}] in ", list(&self.dense)).unwrap();
        write!(s, "let y = conv2d(x, w, b) in let r = reluTensor(y) in ").unwrap();
        write!(s, "let p = {}(r, kernel = [{POOL}, {POOL}], strides = [{POOL}, {POOL}]) in ", pool.keyword()).unwrap();
        write!(s, "let f = flatten(p) in let z = linear(W, f) in ").unwrap();
        for (i, v) in self.dense_bias.iter().enumerate() {
            write!(s, "let z[{i}] = z[{i}] + {v:?} in ").unwrap();
        }
        s + tail
    }
}

/// The plan of a CNN program for one symbolic image `x`.
pub fn compile_cnn(program: &Exp) -> Plan {
    compile(program, &[Binding { name: "x".into(), shape: IMAGE.to_vec(), data: InputData::Symbolic }])
}

/// `count` images, seeded, in `[0, 1)` (pixel intensities), row-major.
pub fn images(count: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut stream = Weights { state: seed, scale: 1.0 };
    let n: usize = IMAGE.iter().product();
    (0..count).map(|_| (0..n).map(|_| (stream.next() + 1.0) * 0.5).collect()).collect()
}
