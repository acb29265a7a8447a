//! Compiling a program into a plan: bind the inputs in the store, evaluate the program
//! (`interpret.rs`, which stages what depends on the inputs), then fuse the recorded operations
//! (`fuse.rs`), lay the buffers out in a frame (`layout.rs`) and number the registers densely
//! (`registers.rs`).

use std::rc::Rc;

use knn_semantics::engine::EnvTensors;
use knn_semantics::syntax::{Exp, Span};

use super::fuse::fuse_recorded;
use super::interpret::Interpreter;
use super::layout::layout;
use super::ops::Op;
use super::plan::{Plan, PlanInput, ResultSpec};
use super::registers::compact_registers;
use super::scope::Scope;
use super::stage::{Recording, Stage};
use super::store::{Binding, Cell, InputData};

/// Compiles `program` with `bindings` bound: the plan computes the program's result for any
/// values of the symbolic inputs (and is a constant when there are none).
pub fn compile(program: &Exp, bindings: &[Binding]) -> Plan {
    // `<env>` at an error is read only when every input is known: with a symbolic one, a row
    // may fail at an operation of the plan before the error staging stopped at.
    let concrete = bindings.iter().all(|b| matches!(b.data, InputData::Concrete(_)));
    let mut stage = Stage::default();
    let mut scope = Scope::default();
    let mut inputs = Vec::new();
    for binding in bindings {
        let root = match stage.store.alloc(&binding.shape, Span::default()) {
            Ok(root) => root,
            Err(error) => {
                let recording = Recording { ops: vec![Op::Raise { error }], fregs: 0, iregs: 0, buffers: Vec::new() };
                // The inputs are bound one by one (`let`s before the program): those bound
                // before this one are in `<env>`.
                let env = if concrete { stage.env_tensors(&scope) } else { None };
                return finish(recording, Vec::new(), ResultSpec::Failed, env);
            }
        };
        let leaves = stage.store.leaves(root, &binding.shape);
        match &binding.data {
            InputData::Concrete(values) => {
                for (loc, &v) in leaves.iter().zip(values) {
                    stage.store.set(*loc, Cell::Float(v));
                }
            }
            InputData::Symbolic => {
                let buf = stage.new_buffer(leaves.len());
                for (at, loc) in leaves.iter().enumerate() {
                    stage.store.set(*loc, Cell::Slot { buf, at });
                }
                inputs.push(PlanInput { name: binding.name.clone(), buf, len: leaves.len() });
            }
        }
        let name: Rc<str> = Rc::from(binding.name.as_str());
        scope.env.insert(name.clone(), root);
        scope.shape.insert(name, Rc::from(binding.shape.as_slice()));
    }
    let mut interpreter = Interpreter::new(&mut stage);
    let value = interpreter.run(program, scope);
    let failed_in = interpreter.failed_in.take();
    let (result, env) = match value {
        Ok(value) => (stage.result_spec(value), None),
        // An error ends the evaluation, the rest of the program discarded (`rev-error-abort`):
        // every row fails with it, after the operations recorded before it.
        Err(e) => {
            stage.record(Op::Raise { error: e });
            let env = failed_in.filter(|_| concrete).and_then(|scope| stage.env_tensors(&scope));
            (ResultSpec::Failed, env)
        }
    };
    finish(stage.into_recording(), inputs, result, env)
}

/// The plan of what staging recorded: fused, laid out, its registers numbered densely.
fn finish(
    recording: Recording,
    inputs: Vec<PlanInput>,
    result: ResultSpec,
    env_at_failure: Option<EnvTensors>,
) -> Plan {
    let Recording { ops, fregs, iregs, buffers } = recording;
    let ops = fuse_recorded(ops, &result);
    let layout = layout(&ops, &inputs, &result, &buffers);
    let mut plan = Plan { ops, fregs, iregs, buffers, layout, inputs, result, env_at_failure };
    compact_registers(&mut plan);
    plan
}
