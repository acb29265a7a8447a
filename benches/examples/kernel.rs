use knn_interpreter::tensor::{Matrix, Precision, matmul_lanes};
use std::time::Instant;
fn main() {
    for (rows, cols) in [(50usize, 50usize), (256, 256)] {
        let w = Matrix::new(rows, cols, (0..rows * cols).map(|k| (k % 13) as f64 * 0.1).collect());
        let lanes = 256;
        let x: Vec<f64> = (0..cols * lanes).map(|k| (k % 7) as f64).collect();
        let mut out = vec![0.0; rows * lanes];
        let reps = 2000;
        let t = Instant::now();
        for _ in 0..reps {
            matmul_lanes(&w, &x, &mut out, lanes, Precision::Exact);
            std::hint::black_box(&out);
        }
        let el = t.elapsed().as_secs_f64();
        let macs = (rows * cols * lanes * reps) as f64;
        println!("{rows}x{cols} lanes {lanes}: {:.2} GMAC/s", macs / el / 1e9);
    }
}
