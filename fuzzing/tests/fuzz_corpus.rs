//! The fuzz targets' seeds (`fuzz/corpus/TARGET/`) and every input that once crashed a target
//! (`fuzz/artifacts-kept/TARGET/`), replayed through the same entry functions the targets call
//! (`knn_fuzzing`): CI keeps them fixed without a nightly toolchain
//! (docs/testing.md, "Fuzzing").

use std::path::{Path, PathBuf};

use knn_fuzzing as fuzzing;
use knn_fuzzing::Handled;

/// Each target of `fuzz/Cargo.toml`, its entry function, and the seeds that must be accepted
/// (the others may be refused: some seeds are bad input on purpose).
/// A target's entry function.
type Entry = fn(&[u8]) -> Handled;

const TARGETS: &[(&str, Entry, &[&str])] = &[
    (
        "parse_and_check",
        fuzzing::parse_and_check,
        &["examples_mlp.knn", "examples_linear.knn", "examples_argmax.knn", "examples_tanh_rank2.knn"],
    ),
    ("run_engines", fuzzing::run_engines, &["examples_mlp.knn", "examples_linear.knn", "examples_argmax.knn"]),
    (
        "npy",
        fuzzing::read_npy,
        &[
            "examples_inputs.npy",
            "f64_vector.npy",
            "f32_matrix.npy",
            "f64_empty_rows.npy",
            "f64_scalar.npy",
            "f64_v2.npy",
        ],
    ),
    ("nnet", fuzzing::import_nnet, &["data_small_fc_2-2-3.nnet"]),
    ("onnx", fuzzing::import_onnx, &["data_small_fc_2-2sigmoids-3.onnx"]),
    ("vnnlib", fuzzing::vnnlib, &["data_acasxu_vnnlib_prop_1.vnnlib", "data_acasxu_vnnlib_prop_6.vnnlib"]),
    ("cli_input", fuzzing::cli_input, &["input_0.txt", "input_1.txt", "input_2.txt", "input_6.txt"]),
    // Each seed is a case the verifier once answered wrongly (seeds of the integration test
    // `verify_exhaustive.rs`, kept as the bytes that make them): accepted means decided
    // rightly; a wrong answer panics.
    (
        "verify_exhaustive",
        fuzzing::verify_exhaustive,
        &[
            "ball_around_zero_seed148.bin",
            "ball_clip_near_max_seed56.bin",
            "ball_infinite_weight_nan_at_relu_seed20.bin",
            "ball_stable_class_boundary_seed352.bin",
            "ball_stable_huge_weights_seed24.bin",
            "box_subnormals_seed1.bin",
            "property_nan_output_seed285.bin",
            "property_seed0.bin",
        ],
    ),
];

/// Targets for which any bytes make an input (a case chosen by them): there is no garbage to
/// refuse, and `Refused` means the verifier answered `unknown`.
const EVERY_INPUT_IS_A_CASE: &[&str] = &["verify_exhaustive"];

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The files of a directory, sorted; none when it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
    paths.sort();
    paths
}

#[test]
fn every_seed_replays_and_the_good_ones_are_accepted() {
    for &(target, entry, good) in TARGETS {
        let seeds = files(&fuzz_dir().join("corpus").join(target));
        assert!(seeds.len() >= good.len().max(1), "{target}: {} seeds", seeds.len());
        let mut accepted = Vec::new();
        for seed in &seeds {
            let bytes = std::fs::read(seed).unwrap();
            if entry(&bytes) == Handled::Accepted {
                accepted.push(seed.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
        for name in good {
            assert!(
                accepted.iter().any(|a| a == name),
                "{target}: the seed {name} is refused (accepted: {accepted:?})"
            );
        }
    }
}

/// Every input a target once crashed on now gets an answer; each was bad input, so the answer
/// is an error.
#[test]
fn every_kept_crash_is_now_an_error() {
    for &(target, entry, _) in TARGETS {
        for crash in files(&fuzz_dir().join("artifacts-kept").join(target)) {
            let bytes = std::fs::read(&crash).unwrap();
            assert_eq!(entry(&bytes), Handled::Refused, "{target}: {}", crash.display());
        }
    }
}

/// The targets here are the targets cargo-fuzz builds: a target added to `fuzz/Cargo.toml`
/// without an entry here would have its corpus replayed by nothing.
#[test]
fn the_replayed_targets_are_the_fuzz_targets() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    let mut built: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.strip_prefix("name = \"")?.strip_suffix('"'))
        .filter(|name| *name != "knn-fuzz")
        .collect();
    built.sort_unstable();
    let mut replayed: Vec<&str> = TARGETS.iter().map(|t| t.0).collect();
    replayed.sort_unstable();
    assert_eq!(built, replayed);
    for target in replayed {
        let body = std::fs::read_to_string(fuzz_dir().join("fuzz_targets").join(format!("{target}.rs"))).unwrap();
        assert!(body.contains("knn_fuzzing::"), "{target}: {body}");
    }
}

/// The entries refuse what is not their format: the replay above could not pass by accepting
/// everything.
#[test]
fn the_entries_refuse_garbage() {
    for &(target, entry, _) in TARGETS.iter().filter(|t| !EVERY_INPUT_IS_A_CASE.contains(&t.0)) {
        assert_eq!(entry(b"\x00\xff garbage ((("), Handled::Refused, "{target}");
    }
}
