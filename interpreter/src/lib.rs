//! knn-interpreter: data formats and the `knn` command-line tool. The big-step evaluator and
//! its tensor core arrive with their own issue.

pub mod cli;
pub mod data;
