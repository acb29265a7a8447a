//! The speed of one bound (issue 28): one CROWN pass and one α step of the verifier on
//! `mnist-net_256x6` and the first case of `prop_0_0.03`, on any number of subdomains. The
//! criterion bench `crown` times them; `--example crown_data` writes the same network, box,
//! bounds and subdomains for the numpy peer (`benches/peers/crown_numpy.py`).

use knn_formats::import::{ImportOptions, emit::emit, import_file};
use knn_semantics::syntax::{Grammar, parse_program};
use knn_verify::Target;
use knn_verify::alpha::{RowOnPart, Steps, optimise_parts, optimise_row_from};
use knn_verify::deadline::Deadline;
use knn_verify::float::Interval;
use knn_verify::interval::{Bounds, network_bounds};
use knn_verify::linear::{LowerBound, PartRows, back_substitute, back_substitute_batch};
use knn_verify::network::Network;
use knn_verify::prepare::PreparedLayers;
use knn_verify::relax::LowerSlope;
use knn_verify::tighten::{Slopes, tighten};
use knn_verify::vnnlib::parse_vnnlib;

use crate::data_path;

/// The network and property the bench measures (files of `data/`).
pub const NETWORK: &str = "mnist_fc/onnx/mnist-net_256x6.onnx";
pub const PROPERTY: &str = "mnist_fc/vnnlib/prop_0_0.03.vnnlib";

/// What a pass starts from: the network, the root box's bounds (interval bounds tightened once
/// with fixed slopes), the atoms' rows over the last layer's vector, and the unstable relus of
/// the first relu layer (what the subdomains fix).
pub struct CrownCase {
    pub net: Network,
    pub root: Bounds,
    /// Row-major, `width` entries a row: one row per atom of the case's unsafe region.
    pub rows: Vec<f64>,
    pub width: usize,
    /// The index of the first relu layer.
    pub first_relu: usize,
    /// The elements of the first relu layer's input that can have both signs on the root box.
    pub unstable: Vec<usize>,
}

/// Loads the network and the first case of the property and bounds its box (not timed).
pub fn mnist_case() -> Result<CrownCase, String> {
    let path = data_path(NETWORK);
    let imported = import_file(&path, None, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let program = parse_program(&emit(&imported), Grammar::Relaxed).map_err(|e| e.message)?;
    let target = Target::new(program, &imported.input, vec![imported.input_len], vec![]).map_err(|u| u.what)?;
    let text = std::fs::read_to_string(data_path(PROPERTY)).map_err(|e| e.to_string())?;
    let property = parse_vnnlib(&text).map_err(|e| e.message)?;
    let case = property.cases.first().ok_or("the property has no case")?;
    let net = target.net;
    let input = case.input.outer();
    let layers = network_bounds(&net.layers, &input).ok_or("the interval bounds are NaN")?;
    let mut root = Bounds { input, layers };
    let mut prepared = PreparedLayers::new(net.layers.len());
    tighten(&net.layers, &mut root, &mut prepared, Slopes::Fixed, Deadline::NEVER)
        .map_err(|e| format!("no bounds: {e:?}"))?;
    let width = root.layers.last().map_or(0, Vec::len);
    let mut rows = Vec::new();
    for conjunction in &case.unsafe_when {
        for atom in &conjunction.atoms {
            let (coefficients, _) = atom.dense(net.outputs.len()).ok_or("an atom is not dense")?;
            let mut row = vec![0.0; width];
            for (&c, &at) in coefficients.iter().zip(&net.outputs) {
                row[at] += c;
            }
            rows.extend(row);
        }
    }
    let first_relu = net.layers.iter().position(|l| l.splits_at_zero()).ok_or("no relu layer")?;
    let unstable =
        (0..root.input_of(first_relu).len()).filter(|&i| is_unstable(root.input_of(first_relu)[i])).collect();
    Ok(CrownCase { net, root, rows, width, first_relu, unstable })
}

fn is_unstable(z: Interval) -> bool {
    z.lo < 0.0 && z.hi > 0.0
}

impl CrownCase {
    /// Which relu subdomain `j` fixes, and to which sign (`true`: `z ≥ 0`): the unstable relus
    /// of the first relu layer in turn, positive first, then all negative, then again with a
    /// second relu fixed as well, so that up to `2·u·u` subdomains differ.
    pub fn fixes(&self, j: usize) -> Vec<(usize, bool)> {
        let u = self.unstable.len();
        let mut fixes = vec![(self.unstable[j % u], (j / u).is_multiple_of(2))];
        let round = j / (2 * u);
        if round > 0 {
            let second = self.unstable[(j % u + round) % u];
            fixes.push((second, round % 2 == 1));
        }
        fixes
    }

    /// The bounds of subdomain `j`: the root's, with the relus of [`CrownCase::fixes`] cut to
    /// their sign (their inputs and outputs).
    pub fn subdomain(&self, j: usize) -> Bounds {
        let mut bounds = self.root.clone();
        let k = self.first_relu;
        for (i, positive) in self.fixes(j) {
            let z = bounds.input_of(k)[i];
            let (input, output) = if positive {
                (Interval::new(0.0, z.hi), Interval::new(0.0, z.hi))
            } else {
                (Interval::new(z.lo, 0.0), Interval::new(0.0, 0.0))
            };
            if k == 0 {
                bounds.input[i] = input;
            } else {
                bounds.layers[k - 1][i] = input;
            }
            bounds.layers[k][i] = output;
        }
        bounds
    }

    /// The first `n` subdomains.
    pub fn subdomains(&self, n: usize) -> Vec<Bounds> {
        (0..n).map(|j| self.subdomain(j)).collect()
    }

    /// One CROWN pass on `bounds`: the layers prepared on them (rounding charges and relu
    /// lines), then every row carried back from the last layer to the input with both lower
    /// slopes, the better bound per row (what the verifier does for a box's atoms).
    pub fn pass(&self, bounds: &Bounds) -> Vec<LowerBound> {
        let mut prepared = PreparedLayers::new(self.net.layers.len());
        self.pass_prepared(bounds, &mut prepared)
    }

    /// [`CrownCase::pass`] with the layers prepared in `prepared` (or prepared there).
    pub fn pass_prepared(&self, bounds: &Bounds, prepared: &mut PreparedLayers) -> Vec<LowerBound> {
        let last = self.net.layers.len() - 1;
        back_substitute(&self.net.layers, bounds, prepared, last, self.rows.clone(), self.width)
    }

    /// [`CrownCase::pass`] on every subdomain of `subdomains` in one batched pass: each
    /// prepared on its own bounds, their rows stacked into one product per dense layer
    /// (`back_substitute_batch`), each row's bound the bits of its subdomain's pass alone.
    pub fn batch_pass(&self, subdomains: &[Bounds]) -> Vec<LowerBound> {
        let (layers, last) = (&self.net.layers, self.net.layers.len() - 1);
        let mut prepared: Vec<PreparedLayers> = subdomains.iter().map(|_| PreparedLayers::new(layers.len())).collect();
        let count = self.rows.len() / self.width;
        let mut parts: Vec<PartRows<'_>> = subdomains
            .iter()
            .zip(&mut prepared)
            .map(|(bounds, prepared)| PartRows { bounds, prepared, count })
            .collect();
        back_substitute_batch(layers, &mut parts, last, self.rows.repeat(subdomains.len()), self.width)
    }

    /// [`CrownCase::alpha_step`] on every subdomain of `started` in one batch
    /// (`optimise_parts`): each with its own bounds and lines, the products shared.
    pub fn batch_alpha_step(&self, started: &mut [(&Bounds, (PreparedLayers, LowerBound))]) -> Vec<LowerBound> {
        let (layers, last) = (&self.net.layers, self.net.layers.len() - 1);
        let row = &self.rows[..self.width];
        let mut parts: Vec<RowOnPart<'_>> = started
            .iter_mut()
            .map(|(bounds, (prepared, start))| RowOnPart {
                bounds,
                prepared,
                row,
                start_bound: start.clone(),
                signs: &[],
                warm: None,
            })
            .collect();
        let steps = Steps { count: 1, first: 0.1 };
        optimise_parts(layers, &mut parts, last, LowerSlope::Chord, f64::INFINITY, steps)
            .into_iter()
            .map(|(b, _)| b)
            .collect()
    }

    /// What an α step starts from on `bounds`: the prepared layers and the first row's bound
    /// with fixed slopes (not timed).
    pub fn alpha_start(&self, bounds: &Bounds) -> (PreparedLayers, LowerBound) {
        let mut prepared = PreparedLayers::new(self.net.layers.len());
        let first = self.pass_prepared(bounds, &mut prepared).swap_remove(0);
        (prepared, first)
    }

    /// One α step on the first row: one back-substitution with the lines of the chord slopes,
    /// recording the coefficients, and one gradient pass from the input up that moves the
    /// slopes (`optimise_row_from` with one step).
    pub fn alpha_step(&self, bounds: &Bounds, prepared: &mut PreparedLayers, start: &LowerBound) -> LowerBound {
        let last = self.net.layers.len() - 1;
        let row = &self.rows[..self.width];
        let steps = Steps { count: 1, first: 0.1 };
        let layers = &self.net.layers;
        let (found, _) = optimise_row_from(
            layers,
            bounds,
            prepared,
            last,
            row,
            LowerSlope::Chord,
            start.clone(),
            f64::INFINITY,
            &[],
            None,
            steps,
        );
        found
    }
}
