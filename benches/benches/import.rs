//! Issue 7's import targets: importing, parsing and one small-step run of an ACAS Xu network
//! under a second, and importing the largest MNIST network (20×40) under a second. Each stage
//! is measured alone and end to end; the networks are the ones in the repository's `data/`.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use knn_benches::data_path as data;
use knn_formats::import::emit::emit;
use knn_formats::import::{ImportOptions, import_file};
use knn_semantics::Profile;
use knn_semantics::engine::{Engine, Observed, SmallStep, Verdict};
use knn_semantics::inputs::TensorInput;
use knn_semantics::syntax::parse_program;

/// Model file → program text.
fn import_text(path: &Path) -> String {
    emit(&import_file(path, None, &ImportOptions::default()).expect("the sample network imports"))
}

/// Model file → program text → syntax tree → one small-step run (revised rules) on `input`.
fn import_and_run(path: &Path, input: &[f64]) -> Vec<f64> {
    let text = import_text(path);
    let program = parse_program(&text, Profile::revised().grammar).expect("the imported program parses");
    let x = TensorInput { name: "x".into(), shape: vec![input.len()], data: input.to_vec() };
    match SmallStep::revised().evaluate(&program, &[x]) {
        Ok(Verdict::Value(Observed::Tensor(t))) => t.data,
        other => panic!("the imported network did not give a vector: {other:?}"),
    }
}

fn import(c: &mut Criterion) {
    let acas = data("acasxu/ACASXU_experimental_v2a_1_1.nnet");
    let mnist = data("mnist/mnist20x40.nnet");
    let point = [0.2, -0.1, 0.3, 0.25, -0.4];
    assert_eq!(import_and_run(&acas, &point).len(), 5);

    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    group.bench_function("acas-1_1/import", |b| b.iter(|| import_text(&acas).len()));
    let acas_text = import_text(&acas);
    group.bench_function("acas-1_1/parse", |b| {
        b.iter(|| parse_program(&acas_text, Profile::revised().grammar).map(|e| e.size()))
    });
    group.bench_function("acas-1_1/import+parse+small-step-run", |b| b.iter(|| import_and_run(&acas, &point)));
    group.bench_function("mnist-20x40/import", |b| b.iter(|| import_text(&mnist).len()));
    let mnist_text = import_text(&mnist);
    group.bench_function("mnist-20x40/import+parse", |b| {
        b.iter(|| parse_program(&import_text(&mnist), Profile::revised().grammar).map(|e| e.size()))
    });
    group.finish();
    eprintln!("program text: ACAS Xu 1_1 {} bytes, MNIST 20x40 {} bytes", acas_text.len(), mnist_text.len());
}

criterion_group!(benches, import);
criterion_main!(benches);
