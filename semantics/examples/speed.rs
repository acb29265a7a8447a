use knn_semantics::syntax::parse_program;
use knn_semantics::term::term_of_program;
use knn_semantics::{Config, Profile, RunOptions, run};
use std::fmt::Write;
fn main() {
    let n = 50;
    let mut s = String::new();
    write!(
        s,
        "let x = initTensor({n}) in let W = initTensor({n}, {n}) in "
    )
    .unwrap();
    for i in 0..n {
        write!(s, "let x[{i}] = {}.5 in ", i).unwrap();
    }
    for i in 0..n {
        for j in 0..n {
            write!(s, "let W[{i}, {j}] = {}.25 in ", (i * j) % 7).unwrap();
        }
    }
    s.push_str("(let y = linear(W, x) in y[0])");
    let p = Profile::published();
    let prog = parse_program(&s, p.grammar).unwrap();
    let t = std::time::Instant::now();
    let r = run(
        p,
        Config::initial(term_of_program(&prog)),
        RunOptions::default(),
    );
    let el = t.elapsed();
    println!(
        "{:?} steps={} {:?} {:.2} M steps/s",
        r.outcome,
        r.steps,
        el,
        r.steps as f64 / el.as_secs_f64() / 1e6
    );
}
