//! knn-formats: the files knn reads and writes besides programs: trained networks (`.nnet`,
//! ONNX MLPs) imported as K-NN programs ([`import`], docs/importing.md), and NumPy `.npy`
//! arrays ([`npy`]).

pub mod import;
pub mod npy;
