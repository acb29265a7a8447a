//! Which grammar a program is parsed with: K's published `KNN-SYNTAX`, or the relaxed one of
//! the revised profile. Its own module because both the lexer (which keywords a grammar has)
//! and the parser (which priorities it applies) read it.

/// Which grammar to accept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Grammar {
    /// Exactly what K parses with the published `KNN-SYNTAX`.
    #[default]
    K,
    /// Two documented relaxations for the revised profile: a let-Func may be the body of a
    /// let-Exp without parentheses, and `1.0+2.0` is an addition; and the extensions' syntax
    /// (`addTensor(E, E)`, Ext-1).
    Relaxed,
}
