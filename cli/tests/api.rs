//! The library API (`knn::{load, Program, Report, KnnError}`): one loader for the
//! three formats, one report from either engine, one error type with its place, fault and exit
//! code — and the same answers and exit codes as the `knn` command.

use std::path::{Path, PathBuf};
use std::process::Command;

use knn::render::{config_text, report_json, value_text};
use knn::{
    Answer, EngineKind, Failure, Fault, KnnError, RunOptions, Semantics, load, load_source, load_with, parse_input,
};
use knn_semantics::engine::Observed;
use knn_semantics::errors::ErrorKind;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

fn on(engine: EngineKind) -> RunOptions {
    RunOptions { engine: Some(engine), ..RunOptions::default() }
}

fn knn(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_knn")).args(args).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn a_program_gives_the_same_value_on_both_engines_and_as_the_command_prints_it() {
    let path = repo("examples/mlp.knn");
    let net = load(&path).unwrap();
    for (x, class) in [("[1.0, -2.0, 0.5]", 0), ("[0.0, 1.0, 0.0]", 1)] {
        let input = parse_input(&format!("x={x}")).unwrap();
        let texts: Vec<String> = [EngineKind::SmallStep, EngineKind::BigStep]
            .into_iter()
            .map(|engine| {
                let report = net.run(std::slice::from_ref(&input), &on(engine)).unwrap();
                assert_eq!(report.engine, engine);
                assert!(matches!(report.answer, Answer::Value { value: Observed::Int(c), .. } if c == class));
                value_text(&report.answer).unwrap().unwrap()
            })
            .collect();
        assert_eq!(texts[0], texts[1]);
        let printed = knn(&["run", path.to_str().unwrap(), "--input", &format!("x={x}")]);
        assert_eq!(printed, (Some(0), texts[0].clone()));
    }
}

#[test]
fn networks_load_from_nnet_and_onnx_with_their_input() {
    for (file, width) in [("data/small/fc_2-2-3.nnet", 2), ("data/small/fc_2-2sigmoids-3.onnx", 2)] {
        let net = load(repo(file)).unwrap();
        let (name, len) = net.declared_input().unwrap();
        assert_eq!(len, width, "{file}");
        let input = parse_input(&format!("{name}=[0.25, -0.5]")).unwrap();
        let small = net.run(std::slice::from_ref(&input), &on(EngineKind::SmallStep)).unwrap();
        let big = net.run(&[input], &on(EngineKind::BigStep)).unwrap();
        let (small_verdict, big_verdict) = (small.answer.verdict(), big.answer.verdict());
        assert!(small_verdict.agrees_with(&big_verdict), "{file}: {small:?} / {big:?}");
        let Answer::Value { value: Observed::Tensor(t), .. } = &big.answer else { panic!("{file}: {big:?}") };
        assert_eq!(t.shape, vec![3], "{file}");
    }
}

#[test]
fn a_network_under_the_published_rules_is_refused_with_the_reason() {
    for file in ["data/small/fc_2-2-3.nnet", "data/small/fc_2-2sigmoids-3.onnx"] {
        let error = load_with(&repo(file), Semantics::Published, &Default::default()).unwrap_err();
        assert_eq!((error.failure, error.fault()), (Failure::Usage, Fault::Caller), "{file}");
        assert!(error.message.contains("revised semantics only"), "{file}: {}", error.message);
    }
}

#[test]
fn errors_say_what_where_and_whose_fault_with_the_commands_exit_codes() {
    let parse = load_source("bad.knn", "let x = in x", Semantics::Revised).unwrap_err();
    assert_eq!((parse.failure, parse.exit_code(), parse.fault()), (Failure::Parse, 2, Fault::Program));
    let place = parse.place.clone().unwrap();
    assert_eq!((place.file.as_str(), place.line, place.column), ("bad.knn", 1, 9));
    assert!(parse.render(false).contains("bad.knn:1:9"), "{}", parse.render(false));

    let unbound = load_source("u.knn", "1.0 +\n  y", Semantics::Revised).unwrap();
    let error = unbound.run(&[], &RunOptions::default()).unwrap_err();
    assert_eq!((error.failure, error.exit_code()), (Failure::Static, 2));
    assert_eq!(error.place.as_ref().map(|p| (p.line, p.column)), Some((2, 3)));

    let missing = load("no/such/file.knn").unwrap_err();
    assert_eq!((missing.failure, missing.exit_code(), missing.fault()), (Failure::Io, 1, Fault::Caller));

    let bad_input = parse_input("x=[1, 2").unwrap_err();
    assert_eq!((bad_input.failure, bad_input.exit_code()), (Failure::Usage, 1));
}

#[test]
fn a_run_time_error_is_an_answer_with_its_place_on_both_engines() {
    let text = "let t = initTensor(2) in\nt[5]";
    let program = load_source("oob.knn", text, Semantics::Revised).unwrap();
    for engine in [EngineKind::SmallStep, EngineKind::BigStep] {
        let report = program.run(&[], &on(engine)).unwrap();
        let Answer::Failed(error) = &report.answer else { panic!("{engine:?}: {:?}", report.answer) };
        assert_eq!(error.failure, Failure::Runtime(ErrorKind::IndexOutOfBounds), "{engine:?}");
        assert_eq!((report.exit_code(), error.fault()), (3, Fault::Program), "{engine:?}");
        assert_eq!(error.place.as_ref().map(|p| p.line), Some(2), "{engine:?}");
        let json = report_json(&report).unwrap();
        assert_eq!(json["status"], "error");
        assert_eq!(json["error"]["kind"], "index-out-of-bounds");
        assert_eq!(json["error"]["line"], 2);
    }
}

#[test]
fn both_engines_report_the_env_an_error_leaves_and_an_empty_one_after_a_value() {
    // By hand: `a` is a scalar (its cell is not a header), `t` was written at [1, 0] with
    // x[0], `h` is bound (`defineTensor`) before its helper fails at element 1 (relu of NaN),
    // so it holds its element 0 (2.5) and zeros; `x` is the input.
    let text = "let a = x[0] in\nlet t = initTensor(2, 2) in\nlet t[1, 0] = a in\nlet z = initTensor(3) in\n\
                let z[1] = x[1] in\nlet z[0] = 2.5 in\nlet h = reluTensor(z) in h";
    let program = load_source("env.knn", text, Semantics::Revised).unwrap();
    let input = parse_input("x=[1.5, NaN]").unwrap();
    let mut json = Vec::new();
    for engine in [EngineKind::SmallStep, EngineKind::BigStep] {
        let options = RunOptions { observables: true, ..on(engine) };
        let report = program.run(std::slice::from_ref(&input), &options).unwrap();
        assert!(
            matches!(&report.answer, Answer::Failed(e) if e.failure == Failure::Runtime(ErrorKind::InvalidOperands))
        );
        let env = report.observables.as_ref().unwrap_or_else(|| panic!("{engine:?}: no observables"));
        let names: Vec<&str> = env.iter().map(|(x, _)| x.as_str()).collect();
        assert_eq!(names, ["a", "h", "t", "x", "z"], "{engine:?}");
        let tensor = |name: &str| env.iter().find(|(x, _)| x == name).unwrap().1.clone();
        assert!(tensor("a").is_err(), "{engine:?}: a scalar's cell is not a tensor");
        let t = tensor("t").unwrap();
        assert_eq!((t.shape, t.data), (vec![2, 2], vec![0.0, 0.0, 1.5, 0.0]), "{engine:?}");
        let h = tensor("h").unwrap();
        assert_eq!((h.shape, h.data), (vec![3], vec![2.5, 0.0, 0.0]), "{engine:?}");
        let x = tensor("x").unwrap();
        assert!(x.data[0] == 1.5 && x.data[1].is_nan(), "{engine:?}");
        json.push(report_json(&report).unwrap()["observables"].clone());
        // A finished program has restored every scope (`rev-restore-scope`).
        let fine = program.run(&[parse_input("x=[1.5, 2.0]").unwrap()], &options).unwrap();
        assert!(matches!(fine.answer, Answer::Value { .. }), "{engine:?}");
        assert_eq!(fine.observables.map(|env| env.len()), Some(0), "{engine:?}");
    }
    assert_eq!(json[0], json[1], "the JSON reports' observables");
}

#[test]
fn a_tensor_that_is_not_dense_is_reported_in_the_same_words_by_both_engines() {
    // An Int written into a tensor (Rev-3 stores any value): the result and `<env>` after an
    // error both say where.
    let cases = [
        ("let t = initTensor(2) in let t[0] = 1 in t[5]", "location 1 holds \"the Int 1\""),
        ("let t = initTensor(2, 2) in let t[1] = 2.0 in t[0, 7]", "a level mixes Floats and sub-tensors"),
    ];
    for (text, why) in cases {
        let program = load_source("malformed.knn", text, Semantics::Revised).unwrap();
        let reports: Vec<serde_json::Value> = [EngineKind::SmallStep, EngineKind::BigStep]
            .into_iter()
            .map(|engine| {
                let options = RunOptions { observables: true, ..on(engine) };
                report_json(&program.run(&[], &options).unwrap()).unwrap()
            })
            .collect();
        assert_eq!(reports[0]["observables"]["t"]["malformed"], why, "{text}");
        assert_eq!(reports[0]["observables"], reports[1]["observables"], "{text}");
        assert_eq!(reports[0]["error"], reports[1]["error"], "{text}");
    }
}

#[test]
fn a_report_made_on_one_thread_is_rendered_on_another() {
    // A report holds no terms of the engine (they live on the thread that built them): the
    // configuration is kept as text, so the report can be handed back to the caller's thread.
    let path = repo("examples/linear.knn");
    let program = load(&path).unwrap();
    let options = RunOptions { config: true, observables: true, ..on(EngineKind::SmallStep) };
    let report = std::thread::spawn(move || program.run(&[], &options).unwrap()).join().unwrap();
    let printed = knn(&["run", path.to_str().unwrap(), "--engine", "small-step", "--output", "config"]);
    assert_eq!(printed, (Some(0), config_text(&report).unwrap().trim().to_string()));
    assert!(printed.1.starts_with("<T>") || printed.1.contains("<k>"), "{}", printed.1);
}

#[test]
fn limits_are_answers_whose_fault_is_the_bound() {
    let program =
        load_source("loop.knn", "let t = initTensor(50) in let u = reluTensor(t) in u", Semantics::Revised).unwrap();
    let options = RunOptions { max_steps: Some(5), observables: true, ..RunOptions::default() };
    let report = program.run(&[], &options).unwrap();
    assert_eq!(report.engine, EngineKind::SmallStep, "max_steps needs the rewriting engine");
    let Answer::Failed(error) = &report.answer else { panic!("{:?}", report.answer) };
    assert_eq!((error.fault(), report.exit_code()), (Fault::Limit, 4));
    assert_eq!(report.steps, Some(5));
    let json = report_json(&report).unwrap();
    assert_eq!((json["status"].as_str(), json["limit"]["value"].as_u64()), (Some("limit"), Some(5)));
    assert!(json["observables"].is_object());
}

#[test]
fn options_the_big_step_engine_cannot_honour_are_refused() {
    let program = load_source("one.knn", "1.0", Semantics::Published).unwrap();
    let refused: KnnError = program.run(&[], &on(EngineKind::BigStep)).unwrap_err();
    assert_eq!((refused.failure, refused.exit_code()), (Failure::Usage, 1));
    assert_eq!(refused.message, "--semantics published needs the small-step engine (--engine small-step)");
    let traced = load_source("one.knn", "1.0", Semantics::Revised).unwrap();
    let options = RunOptions { engine: Some(EngineKind::BigStep), trace: true, ..RunOptions::default() };
    let error = traced.run(&[], &options).unwrap_err();
    assert_eq!(error.failure, Failure::Usage);
    assert_eq!(error.message, "--trace, --coverage and --max-steps needs the small-step engine (--engine small-step)");
    let fused = RunOptions { engine: Some(EngineKind::SmallStep), fast_math: true, ..RunOptions::default() };
    let error = traced.run(&[], &fused).unwrap_err();
    assert_eq!(error.message, "--fast-math applies to the big-step engine (--engine big-step)");
    // Rule counts alone choose the rewriting engine.
    let counted = RunOptions { coverage: true, ..RunOptions::default() };
    assert_eq!(counted.engine_for(Semantics::Revised), EngineKind::SmallStep);
    // The command refuses the same, with the same words, before it reads the program.
    let out = Command::new(env!("CARGO_BIN_EXE_knn"))
        .args(["run", "no-such-file.knn", "--engine", "big-step", "--trace"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --trace, --coverage and --max-steps needs the small-step engine (--engine small-step)\n"
    );
}

#[test]
fn a_batch_says_what_is_wrong_with_its_rows_and_bindings() {
    let net = load(repo("examples/mlp.knn")).unwrap();
    let batch = net.batch("x", 3, &[]).unwrap();
    let ragged = batch.run(&[1.0, 2.0, 3.0, 4.0], false, |_| {}).unwrap_err();
    assert_eq!((ragged.failure, ragged.message.as_str()), (Failure::Usage, "4 numbers do not make rows of 3 elements"));
    let both = net.batch("x", 3, &[parse_input("x=[1, 2, 3]").unwrap()]).unwrap_err();
    assert_eq!(both.message, "`x` is both the batched input and a --bind");
    let published = load_source("one.knn", "1.0", Semantics::Published).unwrap();
    let error = published.batch("x", 3, &[]).unwrap_err();
    assert_eq!(error.message, "a batch runs the revised semantics (the big-step engine)");
    // Rows that fit: one class each, as `knn batch` prints them.
    let rows = batch.run(&[1.0, -2.0, 0.5, 0.0, 1.0, 0.0], false, |_| {}).unwrap();
    let texts: Vec<String> = rows.iter().map(|r| value_text(&batch.answer(r)).unwrap().unwrap()).collect();
    assert_eq!(texts, ["0", "1"]);
}

#[test]
fn search_reports_every_final_state() {
    // Under the published rules the tanh example has 48 final states, 8 of them values and 40
    // stuck paths krun never takes (docs/semantics.md §2.10); the command counts the same.
    let program = load_with(&repo("examples/tanh_rank2.knn"), Semantics::Published, &Default::default()).unwrap();
    let searched = program.search(&[], Default::default(), true, false).unwrap();
    assert_eq!(searched.finals.len(), 48);
    let values = searched.finals.iter().filter(|f| matches!(f.answer, Answer::Value { .. })).count();
    let stuck = searched.finals.iter().filter(|f| matches!(f.answer, Answer::Stuck(_))).count();
    assert_eq!((values, stuck), (8, 40));
    assert!(searched.finals.iter().all(|f| f.observables.is_some() && f.config.is_none()));
    assert!(searched.limit.is_none());
    let (code, printed) =
        knn(&["search", repo("examples/tanh_rank2.knn").to_str().unwrap(), "--semantics", "published"]);
    assert_eq!((code, printed.lines().count()), (Some(0), 48));
    // A bound on the states: a limit, said once, with the flag to raise.
    let example = repo("examples/tanh_rank2.knn");
    let args = ["search", example.to_str().unwrap(), "--semantics", "published", "--max-states", "10"];
    let out = Command::new(env!("CARGO_BIN_EXE_knn")).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(stderr.ends_with("limit: stopped after exploring 10 states (raise --max-states)\n"), "{stderr}");
}

/// A convolutional network loaded from ONNX runs on a rank-3 input (a `.npy` file or a nested
/// list) on both engines, bit for bit the fixture script's reference.
#[test]
fn a_conv_network_runs_on_a_rank_3_input() {
    let fixtures = repo("formats/tests/data/conv");
    let net = load(fixtures.join("conv_stride2_pads.onnx")).unwrap();
    let (name, len) = net.declared_input().unwrap();
    assert_eq!((name, len), ("input", 2 * 7 * 6));
    let file = fixtures.join("conv_stride2_pads.input.npy");
    let from_file = parse_input(&format!("input={}", file.display())).unwrap();
    assert_eq!(from_file.shape, vec![2, 7, 6]);
    let expected = knn_formats::npy::read_npy(&fixtures.join("conv_stride2_pads.expected.npy")).unwrap();
    // The same values written as a nested list, shortest round-trip decimals.
    let rows: Vec<String> = from_file
        .data
        .chunks(6)
        .map(|row| format!("[{}]", row.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(", ")))
        .collect();
    let channels: Vec<String> = rows.chunks(7).map(|c| format!("[{}]", c.join(", "))).collect();
    let from_list = parse_input(&format!("input=[{}]", channels.join(", "))).unwrap();
    assert_eq!(from_list, from_file);
    for engine in [EngineKind::SmallStep, EngineKind::BigStep] {
        let report = net.run(std::slice::from_ref(&from_file), &on(engine)).unwrap();
        let Answer::Value { value: Observed::Tensor(t), .. } = &report.answer else { panic!("{report:?}") };
        assert_eq!(t.shape, expected.shape, "{engine:?}");
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&t.data), bits(&expected.data), "{engine:?}");
    }
    // An input of the wrong rank is the program's shape error, located in it.
    let vector = parse_input("input=[1.0, 2.0]").unwrap();
    let report = net.run(&[vector], &on(EngineKind::BigStep)).unwrap();
    assert!(
        matches!(&report.answer, Answer::Failed(e) if e.failure == Failure::Runtime(ErrorKind::ShapeMismatch)),
        "{:?}",
        report.answer
    );
}
