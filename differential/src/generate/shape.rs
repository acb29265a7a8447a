//! How programs are drawn: the [`Shape`] of the programs of each property.

/// How programs are drawn.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Statements drawn (a layer counts as one and expands to several).
    pub max_stmts: usize,
    /// Percent of programs with an input `x`.
    pub input_percent: u32,
    /// Whether the input is always a vector (for batches).
    pub vector_input: bool,
    /// The highest rank `initTensor` gets (the published rules' rank-3 allocation is broken,
    /// and `search` over it explores tens of thousands of states).
    pub max_rank: usize,
    /// Only moderate Floats ([`Rng::moderate_float`](super::Rng::moderate_float)) and small
    /// Ints, indices in range, no deliberate mistakes, no `ArgMax` result: programs whose values
    /// can be compared.
    pub moderate: bool,
    /// Whether programs may use the extensions' constructs (Ext-1 `addTensor`), which only the
    /// revised profile has.
    pub extensions: bool,
}

impl Default for Shape {
    fn default() -> Shape {
        Shape { max_stmts: 10, input_percent: 40, vector_input: false, max_rank: 3, moderate: false, extensions: true }
    }
}

/// The shapes of the properties, named once so that the quickcheck tests and the seed scanner
/// draw the same programs.
impl Shape {
    /// Always an input `x` (the batch properties give it several rows).
    pub fn batched() -> Shape {
        Shape { input_percent: 100, ..Shape::default() }
    }

    /// Always an input, moderate values only: the programs of the fast-math tolerance.
    pub fn moderate_values() -> Shape {
        Shape { input_percent: 100, moderate: true, ..Shape::default() }
    }

    /// Up to 4 statements, rank 2 at most, no extensions: programs for `search` under the
    /// published rules (which have no extensions). `search` explores every state a run passes
    /// through and hashes each configuration, so its cost grows faster than the program.
    pub fn short() -> Shape {
        Shape { max_stmts: 4, max_rank: 2, extensions: false, ..Shape::default() }
    }
}
