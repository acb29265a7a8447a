//! verivital's two MNIST CNNs themselves (VNN-COMP 2021; `data/verivital/Convnet_maxpool.onnx`
//! and `Convnet_avgpool.onnx`), not the look-alikes of [`crate::cnn`]: conv 32×2×2, relu, a
//! 4×4 pool of stride 4 (max, or a zero `Pad` then average), flatten, `Gemm` 1152 → 10. They
//! are imported through the library's import API (`knn import`'s), which widens the float32
//! weights to float64 exactly and drops the all-zero `Pad` (docs/importing.md); the input is
//! renamed `x` so that [`crate::cnn::compile_cnn`] and the benches' reference check apply
//! unchanged, and `ArgMax` of the logits ends the program, as the look-alikes end.
//! `benches/peers/cnn.py` builds onnxruntime's float64 twin from the same files.

use std::path::Path;

use knn::{ImportOptions, import_model};

use super::data_path;

/// The name the imported program gives the logits (the ONNX graph's `output`, renamed so the
/// `ArgMax` appended below reads a name this module chose).
const LOGITS: &str = "logits";

/// One of verivital's two networks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verivital {
    MaxPool,
    AvgPool,
}

impl Verivital {
    pub const ALL: [Verivital; 2] = [Verivital::MaxPool, Verivital::AvgPool];

    /// The model's name in the benches' output (and `cnn_throughput`'s `MODEL` argument).
    pub fn name(self) -> &'static str {
        match self {
            Verivital::MaxPool => "verivital-max",
            Verivital::AvgPool => "verivital-avg",
        }
    }

    /// The model file, in the repository's `data/` folder.
    pub fn file(self) -> &'static str {
        match self {
            Verivital::MaxPool => "verivital/Convnet_maxpool.onnx",
            Verivital::AvgPool => "verivital/Convnet_avgpool.onnx",
        }
    }

    /// The network as the K-NN program `knn import` writes, its input `x` (1×28×28) and its
    /// result the class: `ArgMax` of the logits. A model that does not import is an error
    /// naming the file.
    pub fn program(self) -> Result<String, String> {
        program_of(&data_path(self.file()))
    }
}

/// The imported program of the model at `path`, ending in the class instead of the logits.
fn program_of(path: &Path) -> Result<String, String> {
    let options =
        ImportOptions { input_name: Some("x".into()), output_name: Some(LOGITS.into()), ..ImportOptions::default() };
    let imported = import_model(path, None, &options).map_err(|e| format!("{}: {}", path.display(), e.message))?;
    let mut text = Vec::new();
    imported.write_program(&mut text).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8(text).map_err(|e| format!("{}: {e}", path.display()))?;
    // The program's last expression is the logits' name alone (docs/importing.md): the class
    // replaces it, so the plan ends as the look-alikes' do (`Op::ArgMaxBuffer`).
    let body = text
        .trim_end()
        .strip_suffix(LOGITS)
        .ok_or_else(|| format!("{}: the imported program does not end in `{LOGITS}`", path.display()))?;
    Ok(format!("{body}ArgMax({LOGITS})\n"))
}

#[cfg(test)]
mod tests {
    use knn_engine::bigstep::{ExecOptions, run_rows};
    use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
    use knn_semantics::inputs::TensorInput;

    use super::Verivital;
    use crate::cnn::{IMAGE, compile_cnn, images};
    use crate::{parse_mlp, rows};

    /// The classes onnxruntime 1.32 gives images 0..64 of `images(64, 2029)` with verivital's
    /// float32 files as they are and with their float64 twins (`benches/peers/cnn.py`; the
    /// four runs print the same lists): an independent computation of the same networks.
    const ONNXRUNTIME_MAX: &str = "8228888888228282282838888282822282882882282288288882288282888828";
    const ONNXRUNTIME_AVG: &str = "8888888888888888888888888882888882888888888888888888888888888888";

    #[test]
    fn the_imported_networks_give_onnxruntimes_classes_and_the_references() {
        let images = images(64, 2029);
        for (net, expected) in [(Verivital::MaxPool, ONNXRUNTIME_MAX), (Verivital::AvgPool, ONNXRUNTIME_AVG)] {
            let source = net.program().unwrap();
            let pool = if net == Verivital::MaxPool { "maxPool2d(" } else { "avgPool2d(" };
            assert_eq!((source.matches("conv2d(").count(), source.matches(pool).count()), (1, 1), "{}", net.name());
            assert!(source.trim_end().ends_with("ArgMax(logits)"));
            let program = parse_mlp(&source);
            let plan = compile_cnn(&program);
            let classes: String = run_rows(&plan, &rows(&images), ExecOptions::default())
                .into_iter()
                .map(|r| match r {
                    Ok(Observed::Int(k)) => k.to_string(),
                    other => panic!("{other:?}"),
                })
                .collect();
            assert_eq!(classes, expected, "{}", net.name());
            // The small-step reference on the first image: the plan's class, by the rules.
            let input = TensorInput { name: "x".into(), shape: IMAGE.to_vec(), data: images[0].clone() };
            let reference = SmallStep::revised().evaluate(&program, &[input]).expect("the image binds");
            let first = i64::from(classes.as_bytes()[0] - b'0');
            assert!(matches!(reference, Verdict::Value(Observed::Int(c)) if c == first), "{reference}");
        }
    }
}
