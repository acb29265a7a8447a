use knn_interpreter::bigstep::{Binding, InputData, compile};
use knn_interpreter::import::{ImportOptions, emit::emit, import_file};
use knn_interpreter::verify::bab::{CaseOutcome, CaseSearch};
use knn_interpreter::verify::network::Network;
use knn_interpreter::verify::property::*;
use knn_semantics::syntax::{Grammar, parse_program};
use std::path::Path;
use std::time::Instant;

fn c(x: f64) -> Constant {
    Constant::exact(x)
}
fn bx(lo: &[f64], hi: &[f64]) -> InputBox {
    InputBox { lower: lo.iter().map(|&x| c(x)).collect(), upper: hi.iter().map(|&x| c(x)).collect() }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let net_path = &args[1];
    let prop: usize = args[2].parse().unwrap();
    let imported = import_file(Path::new(net_path), None, &ImportOptions::default()).unwrap();
    let source = emit(&imported);
    let program = parse_program(&source, Grammar::Relaxed).unwrap();
    let plan = compile(&program, &[Binding { name: "x".into(), shape: vec![5], data: InputData::Symbolic }]);
    let net = Network::from_plan(&plan).unwrap();
    let p1 = bx(&[0.6, -0.5, -0.5, 0.45, -0.5], &[0.679857769, 0.5, 0.5, 0.5, -0.45]);
    let p3 = bx(&[-0.303531156, -0.009549297, 0.493380324, 0.3, 0.3], &[-0.298552812, 0.009549297, 0.5, 0.5, 0.5]);
    let p4 = bx(
        &[-0.303531156, -0.009549297, 0.0, 0.318181818, 0.083333333],
        &[-0.298552812, 0.009549297, 0.0, 0.5, 0.166666667],
    );
    let case = match prop {
        1 => Case {
            input: p1,
            unsafe_when: vec![Conjunction {
                atoms: vec![Atom {
                    terms: vec![(0, c(-1.0))],
                    constants: vec![c(3.991125645861615)],
                    strict: false,
                    span: None,
                }],
            }],
        },
        2 => Case {
            input: p1,
            unsafe_when: vec![Conjunction { atoms: (1..5).map(|i| Atom::difference(i, 0, false)).collect() }],
        },
        3 => Case {
            input: p3,
            unsafe_when: vec![Conjunction { atoms: (1..5).map(|i| Atom::difference(0, i, false)).collect() }],
        },
        _ => Case {
            input: p4,
            unsafe_when: vec![Conjunction { atoms: (1..5).map(|i| Atom::difference(0, i, false)).collect() }],
        },
    };
    let search = CaseSearch::new(&net, &case).unwrap();
    let t = Instant::now();
    let mut last = Default::default();
    let out = search.run(Some(t + std::time::Duration::from_secs(60)), 64, &|_| true, &mut |p| last = p);
    println!(
        "{net_path} p{prop}: {:?} in {:?}, {} boxes, proved {:.4}",
        match out {
            CaseOutcome::Candidate(_) => "violated".to_string(),
            o => format!("{o:?}"),
        },
        t.elapsed(),
        last.boxes,
        last.proved_share
    );
}
