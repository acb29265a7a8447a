//! knn-engine: the big-step evaluator ([`bigstep`]: a program compiled once into a plan of
//! dense operations, run on one input or a batch) and its tensor core ([`tensor`]: the kernels
//! on every instruction set), bit for bit equal to the small-step reference of `knn-semantics`
//! (docs/big-step.md).

pub mod bigstep;
pub mod tensor;
