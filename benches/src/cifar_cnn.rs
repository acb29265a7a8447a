//! A CIFAR-sized CNN (issue 29, point 2), the shape of ERAN's `ConvSmall` for CIFAR-10 that
//! VNN-COMP's CIFAR benchmarks grew from: a 3×32×32 image, `conv2d` by 16 kernels of 4×4 at
//! stride 2 with a bias (16×15×15), `reluTensor`, `conv2d` by 32 kernels of 4×4 at stride 2 with
//! a bias (32×6×6), `reluTensor`, `flatten` (1,152), `linear` 1,152 → 100 with a bias,
//! `reluTensor`, `linear` 100 → 10 with a bias, the class (`ArgMax`). About 0.5 million
//! multiply-adds per image, five times the small MNIST CNN's ([`crate::cnn`]). The weights come
//! from one seeded stream in a fixed order, which `benches/peers/cnn.py` reproduces.

use std::fmt::Write;

use knn_engine::bigstep::{Binding, InputData, Plan, compile};
use knn_semantics::syntax::Exp;

use super::Weights;

/// The image: channels, rows, columns.
pub const IMAGE: [usize; 3] = [3, 32, 32];
/// The two convolutions: output channels, input channels, kernel side; both at stride 2.
pub const CONVS: [(usize, usize, usize); 2] = [(16, 3, 4), (32, 16, 4)];
pub const STRIDE: usize = 2;
/// The dense layers: the flattened 32×6×6 features, the hidden width, the classes.
pub const FEATURES: usize = 1152;
pub const HIDDEN: usize = 100;
pub const CLASSES: usize = 10;

/// The weights in the order the stream gives them: each convolution's kernels `M×C×K×K`
/// (scale 1/√(C·K·K)) then its bias (1/10); then each dense layer's weights, row-major (scale
/// 1/√inputs), then its bias (1/10).
pub struct CifarCnn {
    pub kernels: [Vec<f64>; 2],
    pub kernel_bias: [Vec<f64>; 2],
    pub dense: [Vec<f64>; 2],
    pub dense_bias: [Vec<f64>; 2],
}

impl CifarCnn {
    pub fn seeded(seed: u64) -> CifarCnn {
        let mut stream = Weights { state: seed, scale: 1.0 };
        let mut take = |n: usize, scale: f64| {
            stream.scale = scale;
            (0..n).map(|_| stream.next()).collect::<Vec<f64>>()
        };
        let mut conv = |(m, c, k): (usize, usize, usize)| {
            let kernels = take(m * c * k * k, 1.0 / ((c * k * k) as f64).sqrt());
            (kernels, take(m, 0.1))
        };
        let ((k0, b0), (k1, b1)) = (conv(CONVS[0]), conv(CONVS[1]));
        let mut dense = |(rows, cols): (usize, usize)| (take(rows * cols, 1.0 / (cols as f64).sqrt()), take(rows, 0.1));
        let ((d0, c0), (d1, c1)) = (dense((HIDDEN, FEATURES)), dense((CLASSES, HIDDEN)));
        CifarCnn { kernels: [k0, k1], kernel_bias: [b0, b1], dense: [d0, d1], dense_bias: [c0, c1] }
    }

    /// The K-NN program over the input `x` (3×32×32): the weights as tensor literals, the dense
    /// biases as element `let`s (fused into the products), ending in `tail` (`ArgMax(z)`, `z`).
    pub fn program(&self, tail: &str) -> String {
        let list = |values: &[f64]| values.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", ");
        let mut s = String::new();
        for (n, &(m, c, k)) in CONVS.iter().enumerate() {
            write!(s, "let k{n} = initTensor({m}, {c}, {k}, {k})[{}] in ", list(&self.kernels[n])).unwrap();
            write!(s, "let b{n} = initTensor({m})[{}] in ", list(&self.kernel_bias[n])).unwrap();
        }
        write!(s, "let W0 = initTensor({HIDDEN}, {FEATURES})[{}] in ", list(&self.dense[0])).unwrap();
        write!(s, "let W1 = initTensor({CLASSES}, {HIDDEN})[{}] in ", list(&self.dense[1])).unwrap();
        let strides = format!("strides = [{STRIDE}, {STRIDE}]");
        write!(s, "let c0 = conv2d(x, k0, b0, {strides}) in let r0 = reluTensor(c0) in ").unwrap();
        write!(s, "let c1 = conv2d(r0, k1, b1, {strides}) in let r1 = reluTensor(c1) in ").unwrap();
        write!(s, "let f = flatten(r1) in let h = linear(W0, f) in ").unwrap();
        for (i, v) in self.dense_bias[0].iter().enumerate() {
            write!(s, "let h[{i}] = h[{i}] + {v:?} in ").unwrap();
        }
        write!(s, "let a = reluTensor(h) in let z = linear(W1, a) in ").unwrap();
        for (i, v) in self.dense_bias[1].iter().enumerate() {
            write!(s, "let z[{i}] = z[{i}] + {v:?} in ").unwrap();
        }
        s + tail
    }
}

/// The plan of the program for one symbolic image `x`.
pub fn compile_cifar_cnn(program: &Exp) -> Plan {
    compile(program, &[Binding { name: "x".into(), shape: IMAGE.to_vec(), data: InputData::Symbolic }])
}

/// `count` images, seeded, in `[0, 1)`, row-major (channel, row, column).
pub fn images(count: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut stream = Weights { state: seed, scale: 1.0 };
    let n: usize = IMAGE.iter().product();
    (0..count).map(|_| (0..n).map(|_| (stream.next() + 1.0) * 0.5).collect()).collect()
}
