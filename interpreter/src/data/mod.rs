//! Data formats users bring: `.npy` arrays.

pub mod npy;
