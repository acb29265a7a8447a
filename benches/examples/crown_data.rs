//! Writes what the numpy peer of the `crown` bench (`benches/peers/crown_numpy.py`) needs, as
//! `.npy` files in DIR: the network `mnist-net_256x6` (`W{k}.npy`, fan-out × fan-in, and
//! `b{k}.npy`), the box of `prop_0_0.03`'s first case (`lo.npy`, `hi.npy`), the bounds of each
//! relu layer's input on it after one tightening with fixed slopes (`pre{k}_lo.npy`,
//! `pre{k}_hi.npy`), the atoms' rows over the last layer (`rows.npy`), the relus each of the
//! 1,024 subdomains fixes (`fix_index.npy`, `fix_positive.npy`, −1 and 0 where a subdomain
//! fixes fewer) and knn's bounds on the first 64 subdomains (`knn_bounds.npy`), which the peer
//! checks its own against.
//!
//! Usage: `cargo run --release -p knn-benches --example crown_data -- DIR`

use std::io::Write;
use std::path::{Path, PathBuf};

use knn_benches::crown::{NETWORK, mnist_case};
use knn_benches::{Mlp, data_path};
use knn_formats::import::{ImportOptions, import_file};
use knn_formats::npy::{write_npy_f64, write_npy_i64};

/// The subdomains the bench and the peer measure at most.
const SUBDOMAINS: usize = 1024;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(std::env::args().nth(1).ok_or("usage: crown_data DIR")?);
    std::fs::create_dir_all(&dir)?;
    let imported = import_file(&data_path(NETWORK), None, &ImportOptions::default())?;
    let mlp = Mlp::from_network(&imported).ok_or("not a chain of linear, bias and relu layers")?;
    for (index, layer) in mlp.layers.iter().enumerate() {
        let shape = [layer.fan_out, layer.fan_in];
        create(&dir.join(format!("W{index}.npy")), |w| write_npy_f64(w, &shape, &layer.weights))?;
        create(&dir.join(format!("b{index}.npy")), |w| write_npy_f64(w, &[layer.fan_out], &layer.bias))?;
    }
    let case = mnist_case()?;
    let ends = |v: &[knn_verify::float::Interval]| -> (Vec<f64>, Vec<f64>) {
        (v.iter().map(|x| x.lo).collect(), v.iter().map(|x| x.hi).collect())
    };
    let (lo, hi) = ends(&case.root.input);
    create(&dir.join("lo.npy"), |w| write_npy_f64(w, &[lo.len()], &lo))?;
    create(&dir.join("hi.npy"), |w| write_npy_f64(w, &[hi.len()], &hi))?;
    let relus: Vec<usize> = (0..case.net.layers.len()).filter(|&k| case.net.layers[k].splits_at_zero()).collect();
    if relus.len() + 1 != mlp.layers.len() || relus[0] != case.first_relu {
        return Err("the verifier's layers are not the network's relu layers".into());
    }
    for (r, &k) in relus.iter().enumerate() {
        let (lo, hi) = ends(case.root.input_of(k));
        create(&dir.join(format!("pre{r}_lo.npy")), |w| write_npy_f64(w, &[lo.len()], &lo))?;
        create(&dir.join(format!("pre{r}_hi.npy")), |w| write_npy_f64(w, &[hi.len()], &hi))?;
    }
    let count = case.rows.len() / case.width;
    create(&dir.join("rows.npy"), |w| write_npy_f64(w, &[count, case.width], &case.rows))?;
    let (mut index, mut positive) = (Vec::new(), Vec::new());
    for j in 0..SUBDOMAINS {
        let fixes = case.fixes(j);
        for f in 0..2 {
            index.push(fixes.get(f).map_or(-1, |&(i, _)| i as i64));
            positive.push(fixes.get(f).map_or(0, |&(_, p)| i64::from(p)));
        }
    }
    create(&dir.join("fix_index.npy"), |w| write_npy_i64(w, &[SUBDOMAINS, 2], &index))?;
    create(&dir.join("fix_positive.npy"), |w| write_npy_i64(w, &[SUBDOMAINS, 2], &positive))?;
    let checked = 64;
    let values: Vec<f64> =
        (0..checked).flat_map(|j| case.pass(&case.subdomain(j)).into_iter().map(|b| b.value)).collect();
    create(&dir.join("knn_bounds.npy"), |w| write_npy_f64(w, &[checked, count], &values))?;
    println!(
        "{}: {} relu layers, {} unstable relus in the first, {count} rows; root bounds {:?}",
        dir.display(),
        relus.len(),
        case.unstable.len(),
        &values[..count]
    );
    Ok(())
}

/// Writes a file through `write` (the `.npy` writers take any writer).
fn create(path: &Path, write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> std::io::Result<()> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    write(&mut file)?;
    file.flush()
}
