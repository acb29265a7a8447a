//! Imported real networks compute exactly what the files say: every ACAS Xu network on both
//! engines against a dense evaluation written here (bit for bit), every weight read back from
//! the program text with the same bits, the `.nnet` normalisation, the ONNX copy of 1_1, and
//! the MNIST networks; the data folder's ACAS Xu instance list.

mod import_support;

use import_support::{Reference, Stream, acas_paths, data, import, import_with_lets, matrix_writes};
use knn_engine::bigstep::{Binding, ExecOptions, InputData, compile, run_rows};
use knn_formats::import::ImportOptions;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::Exp;

/// The program's result on each row with the big-step engine (exact mode), as vectors.
fn big_step(program: &Exp, input: &str, rows: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let width = rows[0].len();
    let plan = compile(program, &[Binding { name: input.into(), shape: vec![width], data: InputData::Symbolic }]);
    let refs: Vec<Vec<&[f64]>> = rows.iter().map(|r| vec![r.as_slice()]).collect();
    run_rows(&plan, &refs, ExecOptions::default())
        .into_iter()
        .map(|result| match result {
            Ok(Observed::Tensor(t)) => {
                assert_eq!(t.shape, vec![t.data.len()], "the result is a vector");
                t.data
            }
            other => panic!("expected a vector, got {other:?}"),
        })
        .collect()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn every_acas_xu_network_runs_bit_for_bit_like_the_dense_evaluation() {
    let paths = acas_paths();
    assert_eq!(paths.len(), 45);
    for (n, path) in paths.iter().enumerate() {
        let reference = Reference::read(path);
        let (network, _, program) = import(path, &ImportOptions::default());
        assert_eq!(network.layer_sizes(), vec![5, 50, 50, 50, 50, 50, 50, 5], "{}", path.display());
        let mut stream = Stream(1000 + n as u64);
        let rows: Vec<Vec<f64>> = (0..100).map(|_| reference.normalise(&reference.raw_input(&mut stream))).collect();
        let got = big_step(&program, "x", &rows);
        for (row, result) in rows.iter().zip(&got) {
            assert_eq!(bits(result), bits(&reference.dense(row)), "{} on {row:?}", path.display());
        }
    }
}

#[test]
fn every_weight_reads_back_with_the_same_bits() {
    for path in acas_paths().iter().chain(&[data("mnist/mnist20x40.nnet")]) {
        let reference = Reference::read(path);
        let (_, _, literals) = import(path, &ImportOptions::default());
        let lets = import_with_lets(path);
        for (program, style) in [(&literals, "literals"), (&lets, "element lets")] {
            let writes = matrix_writes(program);
            let mut expected = Vec::new();
            for (k, rows) in reference.weights.iter().enumerate() {
                for (i, row) in rows.iter().enumerate() {
                    for (j, &w) in row.iter().enumerate() {
                        // A literal lists every weight; initTensor holds 0.0 already, so element
                        // `let`s write only the others.
                        if style == "literals" || w.to_bits() != 0 {
                            expected.push((format!("W{k}"), i, j, w.to_bits()));
                        }
                    }
                }
            }
            let got: Vec<(String, usize, usize, u64)> =
                writes.into_iter().map(|(name, i, j, w)| (name, i, j, w.to_bits())).collect();
            assert_eq!(got.len(), expected.len(), "{} ({style})", path.display());
            assert!(got == expected, "{} ({style}): a weight differs", path.display());
        }
    }
}

#[test]
fn the_small_step_reference_agrees_on_three_networks() {
    for (n, name) in ["1_1", "3_5", "5_9"].iter().enumerate() {
        let path = data(&format!("acasxu/ACASXU_experimental_v2a_{name}.nnet"));
        let reference = Reference::read(&path);
        let (_, _, program) = import(&path, &ImportOptions::default());
        let mut stream = Stream(77 + n as u64);
        let rows: Vec<Vec<f64>> = (0..5).map(|_| reference.normalise(&reference.raw_input(&mut stream))).collect();
        let fast = big_step(&program, "x", &rows);
        for (row, fast) in rows.iter().zip(fast) {
            let input = TensorInput { name: "x".into(), shape: vec![5], data: row.clone() };
            let verdict = SmallStep::revised().evaluate(&program, &[input]).unwrap();
            let Verdict::Value(Observed::Tensor(t)) = verdict else { panic!("{name}: {verdict}") };
            assert_eq!(bits(&t.data), bits(&fast), "{name} on {row:?}");
            assert_eq!(bits(&t.data), bits(&reference.dense(row)), "{name} on {row:?}");
        }
    }
}

#[test]
fn normalize_takes_raw_inputs_through_the_nnet_scaling() {
    let options = ImportOptions { normalize: true, ..ImportOptions::default() };
    for name in ["1_1", "2_7", "4_3"] {
        let path = data(&format!("acasxu/ACASXU_experimental_v2a_{name}.nnet"));
        let reference = Reference::read(&path);
        let (_, text, program) = import(&path, &options);
        assert!(text.contains("max(min(t0[0], 60760.0), 0.0)"), "the input is clipped to the file's box: {text}");
        let mut stream = Stream(5);
        let mut rows: Vec<Vec<f64>> = (0..50).map(|_| reference.raw_input(&mut stream)).collect();
        // Outside the box: clipped to it, as the .nnet reference evaluator does.
        rows.push(vec![1e6, -10.0, 10.0, 0.0, 5000.0]);
        let got = big_step(&program, "x", &rows);
        for (row, result) in rows.iter().zip(&got) {
            assert_eq!(bits(result), bits(&reference.dense_normalised(row)), "{name} on {row:?}");
            // NNet's own formula divides by the range; the program multiplies by its reciprocal.
            let clipped: Vec<f64> =
                row.iter().enumerate().map(|(i, x)| x.clamp(reference.mins[i], reference.maxes[i])).collect();
            let outputs = reference.dense(&reference.normalise(&clipped));
            for (y, raw) in result.iter().zip(outputs) {
                let expected = raw * reference.ranges[5] + reference.means[5];
                assert!((y - expected).abs() <= 1e-9 * expected.abs().max(1.0), "{name}: {y} vs {expected}");
            }
        }
    }
}

#[test]
fn the_onnx_copy_of_1_1_agrees_with_the_nnet_file_within_float32_rounding() {
    let nnet = data("acasxu/ACASXU_experimental_v2a_1_1.nnet");
    let reference = Reference::read(&nnet);
    let (from_nnet, _, nnet_program) = import(&nnet, &ImportOptions::default());
    let (from_onnx, _, onnx_program) =
        import(&data("acasxu/ACASXU_experimental_v2a_1_1.onnx"), &ImportOptions::default());
    assert_eq!(from_onnx.layer_sizes(), from_nnet.layer_sizes());
    let mut stream = Stream(11);
    let rows: Vec<Vec<f64>> = (0..100).map(|_| reference.normalise(&reference.raw_input(&mut stream))).collect();
    let a = big_step(&nnet_program, "x", &rows);
    let b = big_step(&onnx_program, &from_onnx.input, &rows);
    let mut worst: f64 = 0.0;
    for (x, y) in a.iter().flatten().zip(b.iter().flatten()) {
        worst = worst.max((x - y).abs());
    }
    assert!(worst <= 1e-6, "largest difference {worst}");
    assert!(worst > 0.0, "the ONNX weights are float32 roundings: some difference is expected");
}

#[test]
fn the_mnist_networks_run() {
    for name in ["mnist10x10", "mnist10x20", "mnist20x20", "mnist20x40"] {
        let path = data(&format!("mnist/{name}.nnet"));
        let reference = Reference::read(&path);
        let (network, _, program) = import(&path, &ImportOptions::default());
        assert_eq!(network.input_len, 784);
        let mut stream = Stream(3);
        let rows: Vec<Vec<f64>> = (0..3).map(|_| (0..784).map(|_| stream.unit()).collect()).collect();
        for (row, result) in rows.iter().zip(big_step(&program, "x", &rows)) {
            assert_eq!(result.len(), 10);
            assert_eq!(bits(&result), bits(&reference.dense(row)), "{name}");
        }
    }
}

#[test]
#[should_panic(expected = "test data missing: ")]
fn a_missing_data_file_fails_with_its_path() {
    data("acasxu/ACASXU_experimental_v2a_9_9.nnet");
}

/// `data/acasxu/instances.csv` (data/README.md): the 186 VNN-COMP instances, each line
/// `NETWORK,PROPERTY,TIMEOUT` with paths relative to the CSV's folder, naming files that exist.
#[test]
fn the_acas_xu_instances_name_files_of_the_data_folder() {
    let csv = String::from_utf8(import_support::read_data("acasxu/instances.csv")).expect("instances.csv is text");
    let folder = data("acasxu/instances.csv").parent().expect("a file has a folder").to_path_buf();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 186);
    let mut properties = std::collections::BTreeSet::new();
    for line in &lines {
        let fields: Vec<&str> = line.split(',').collect();
        let [network, property, timeout] = fields[..] else { panic!("three fields: {line}") };
        assert!(network.ends_with(".nnet") && folder.join(network).is_file(), "{line}");
        assert!(property.starts_with("vnnlib/prop_") && folder.join(property).is_file(), "{line}");
        assert!(timeout.parse::<u32>().is_ok_and(|t| t > 0), "{line}");
        properties.insert(property);
    }
    assert_eq!(properties.len(), 10, "properties 1-10 all appear");
    assert_eq!(lines[0], "ACASXU_experimental_v2a_1_1.nnet,vnnlib/prop_1.vnnlib,116");
}

#[test]
fn a_network_built_in_memory_is_the_program_its_text_reads_as() {
    use knn_formats::import::emit::{emit, skeleton};
    use knn_formats::import::import_file;
    use knn_semantics::Profile;
    use knn_semantics::syntax::{parse_program, parse_program_with_elements};
    for path in [
        data("acasxu/ACASXU_experimental_v2a_1_1.nnet"),
        data("mnist/mnist10x20.nnet"),
        data("small/fc_2-2sigmoids-3.onnx"),
        data("mnist_fc/onnx/mnist-net_256x2.onnx"),
    ] {
        let network = import_file(&path, None, &ImportOptions::default()).unwrap();
        let grammar = Profile::revised().grammar;
        let from_text = parse_program(&emit(&network), grammar).unwrap();
        let (text, elements) = skeleton(network);
        assert!(text.len() < 64_000, "{}: the weights are not in the text ({} bytes)", path.display(), text.len());
        assert!(text.contains("[…] in"), "{text}");
        let in_memory = parse_program_with_elements(&text, grammar, elements).unwrap();
        assert!(in_memory == from_text, "{}: the two programs differ", path.display());
    }
}
