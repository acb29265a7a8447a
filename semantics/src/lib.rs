//! knn-semantics: the K-NN language (`k-nn.md`) as a parser and a small-step rewriting engine
//! that mirrors the K definition rule by rule.

pub mod syntax;
