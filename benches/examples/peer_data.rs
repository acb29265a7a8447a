//! Writes the benchmark networks and inputs as `.npy` files for the peer harness
//! (`benches/peers/compare.py`): for each network (the seeded ones, and the real ACAS Xu 1_1
//! of `data/acasxu/`) `NET/W{layer}.npy` (fan-out × fan-in),
//! `NET/b{layer}.npy`, `NET/inputs.npy` (4096 rows) and `NET/classes.npy`, the classes the
//! big-step engine computes for those inputs, so the harness can check the peer agrees.
//!
//! Usage: `cargo run --release -p knn-benches --example peer_data -- DIR`

use std::io::Write;
use std::path::{Path, PathBuf};

use knn_benches::{bench_networks, compile_mlp, parse_mlp, rows};
use knn_engine::bigstep::{ExecOptions, run_rows};
use knn_formats::npy::{write_npy_f64, write_npy_i64};
use knn_semantics::engine::Observed;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: peer_data DIR")?);
    for net in bench_networks(4096) {
        let (mlp, xs, sizes) = (&net.mlp, &net.inputs, &net.mlp.sizes);
        let out = dir.join(net.name);
        std::fs::create_dir_all(&out)?;
        for (index, layer) in mlp.layers.iter().enumerate() {
            let shape = [layer.fan_out, layer.fan_in];
            create(&out.join(format!("W{index}.npy")), |w| write_npy_f64(w, &shape, &layer.weights))?;
            create(&out.join(format!("b{index}.npy")), |w| write_npy_f64(w, &[layer.fan_out], &layer.bias))?;
        }
        create(&out.join("inputs.npy"), |w| write_npy_f64(w, &[xs.len(), sizes[0]], &xs.concat()))?;

        let plan = compile_mlp(&parse_mlp(&mlp.program()), sizes[0]);
        let rows = rows(xs);
        let classes = run_rows(&plan, &rows, ExecOptions::default())
            .into_iter()
            .map(|row| match row {
                Ok(Observed::Int(class)) => Ok(class),
                other => Err(format!("the network gave {other:?}, not a class")),
            })
            .collect::<Result<Vec<i64>, String>>()?;
        create(&out.join("classes.npy"), |w| write_npy_i64(w, &[classes.len()], &classes))?;
    }
    Ok(())
}

/// Writes a file through `write` (the `.npy` writers take any writer).
fn create(path: &Path, write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    write(&mut file)?;
    file.flush()
}
