//! A case: a program, a region written as `knn verify`'s flags or a VNN-LIB file writes it,
//! and what is asked. It prints as the commands that reproduce it, and its region's ends are
//! computed here exactly from the decimal texts (the oracle's side, not the verifier's).

use std::fmt;

use num_traits::Zero;

use super::exact::{Rational, decimal};

/// The region as written.
#[derive(Clone, Debug)]
pub enum Region {
    /// `--box 'x=lo:hi,…'`, or the input bounds of a VNN-LIB property: one range per element.
    Box { ranges: Vec<(String, String)> },
    /// `--around 'x=[c0, …]' --eps e [--clip lo:hi]`.
    Around { centre: Vec<String>, eps: String, clip: Option<(String, String)> },
}

/// A claim about the class (`--claim`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassClaim {
    Is(usize),
    IsNot(usize),
    Stable,
}

impl fmt::Display for ClassClaim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClassClaim::Is(k) => write!(f, "argmax={k}"),
            ClassClaim::IsNot(k) => write!(f, "argmax!={k}"),
            ClassClaim::Stable => write!(f, "argmax-stable"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Le,
    Lt,
    Ge,
    Gt,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Le => "<=",
            Op::Lt => "<",
            Op::Ge => ">=",
            Op::Gt => ">",
        }
    }
}

/// A term of a VNN-LIB constraint on the outputs.
#[derive(Clone, Debug)]
pub enum Expr {
    Output(usize),
    Number(String),
    /// `(* c Y_i)`.
    Scaled(String, usize),
    /// `(+ a b …)`.
    Sum(Vec<Expr>),
}

impl Expr {
    fn text(&self) -> String {
        match self {
            Expr::Output(i) => format!("Y_{i}"),
            Expr::Number(c) => c.clone(),
            Expr::Scaled(c, i) => format!("(* {c} Y_{i})"),
            Expr::Sum(parts) => format!("(+ {})", parts.iter().map(Expr::text).collect::<Vec<_>>().join(" ")),
        }
    }

    /// `(coefficient, output)` terms and the constant, exactly, with `sign` applied.
    pub fn linear(&self, sign: i32, terms: &mut Vec<(Rational, usize)>, constant: &mut Rational) {
        let signed = |r: Rational| if sign < 0 { -r } else { r };
        match self {
            Expr::Output(i) => terms.push((signed(Rational::from_integer(1.into())), *i)),
            Expr::Number(c) => *constant += signed(number(c)),
            Expr::Scaled(c, i) => terms.push((signed(number(c)), *i)),
            Expr::Sum(parts) => parts.iter().for_each(|p| p.linear(sign, terms, constant)),
        }
    }
}

fn number(text: &str) -> Rational {
    decimal(text).unwrap_or_else(|| panic!("the generator writes decimals, not `{text}`"))
}

/// `(op left right)`.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub op: Op,
    pub left: Expr,
    pub right: Expr,
}

impl Comparison {
    fn text(&self) -> String {
        format!("({} {} {})", self.op.text(), self.left.text(), self.right.text())
    }

    /// As `Σ c·Y + k ≤ 0` (or `< 0`, with the flag): the terms, `k`, and strictness.
    pub fn normal_form(&self) -> (Vec<(Rational, usize)>, Rational, bool) {
        let (mut terms, mut constant) = (Vec::new(), Rational::zero());
        let (smaller, larger) = match self.op {
            Op::Le | Op::Lt => (&self.left, &self.right),
            Op::Ge | Op::Gt => (&self.right, &self.left),
        };
        smaller.linear(1, &mut terms, &mut constant);
        larger.linear(-1, &mut terms, &mut constant);
        (terms, constant, matches!(self.op, Op::Lt | Op::Gt))
    }
}

/// What is asked.
#[derive(Clone, Debug)]
pub enum Ask {
    Class(ClassClaim),
    /// A VNN-LIB property: unsafe when one of the conjunctions holds.
    Property(Vec<Vec<Comparison>>),
}

#[derive(Clone, Debug)]
pub struct Case {
    /// The program: its free input `x` is the vector the region ranges over.
    pub program: String,
    /// The number of scores `Y` (before any `ArgMax`).
    pub outputs: usize,
    pub region: Region,
    pub ask: Ask,
}

impl Case {
    /// `knn verify`'s flags for a class claim (none for a VNN-LIB property: its file says it).
    pub fn flags(&self) -> Vec<String> {
        let Ask::Class(claim) = self.ask else { return vec!["--vnnlib".into(), "case.vnnlib".into()] };
        let mut flags = match &self.region {
            Region::Box { ranges } => {
                let ranges: Vec<String> = ranges.iter().map(|(lo, hi)| format!("{lo}:{hi}")).collect();
                vec!["--box".into(), format!("x={}", ranges.join(","))]
            }
            Region::Around { centre, eps, clip } => {
                let mut flags =
                    vec!["--around".into(), format!("x=[{}]", centre.join(", ")), "--eps".into(), eps.clone()];
                if let Some((lo, hi)) = clip {
                    flags.extend(["--clip".into(), format!("{lo}:{hi}")]);
                }
                flags
            }
        };
        flags.extend(["--claim".into(), claim.to_string()]);
        flags
    }

    /// The VNN-LIB text of a property (input bounds from the box, then the unsafe outputs).
    pub fn vnnlib(&self) -> Option<String> {
        let (Ask::Property(unsafe_when), Region::Box { ranges }) = (&self.ask, &self.region) else { return None };
        let mut out = String::new();
        for i in 0..ranges.len() {
            out.push_str(&format!("(declare-const X_{i} Real)\n"));
        }
        for i in 0..self.outputs {
            out.push_str(&format!("(declare-const Y_{i} Real)\n"));
        }
        for (i, (lo, hi)) in ranges.iter().enumerate() {
            out.push_str(&format!("(assert (>= X_{i} {lo}))\n(assert (<= X_{i} {hi}))\n"));
        }
        match unsafe_when.as_slice() {
            [one] => one.iter().for_each(|c| out.push_str(&format!("(assert {})\n", c.text()))),
            many => {
                let ands: Vec<String> = many
                    .iter()
                    .map(|c| format!("(and {})", c.iter().map(Comparison::text).collect::<Vec<_>>().join(" ")))
                    .collect();
                out.push_str(&format!("(assert (or {}))\n", ands.join(" ")));
            }
        }
        Some(out)
    }

    /// The region's ends as reals, exactly: `[lo_i, hi_i]` per element.
    pub fn ends(&self) -> Vec<(Rational, Rational)> {
        self.region.ends()
    }
}

impl Region {
    /// The ends as reals, exactly from the texts: `[lo_i, hi_i]` per element (`c ± eps` cut
    /// to the clip range for a ball).
    pub fn ends(&self) -> Vec<(Rational, Rational)> {
        match self {
            Region::Box { ranges } => ranges.iter().map(|(lo, hi)| (number(lo), number(hi))).collect(),
            Region::Around { centre, eps, clip } => {
                let eps = number(eps);
                centre
                    .iter()
                    .map(|c| {
                        let c = number(c);
                        let (mut lo, mut hi) = (&c - &eps, &c + &eps);
                        if let Some((low, high)) = clip {
                            lo = lo.max(number(low));
                            hi = hi.min(number(high));
                        }
                        (lo, hi)
                    })
                    .collect()
            }
        }
    }
}

/// The commands that reproduce the case.
impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let newline = if self.program.ends_with('\n') { "" } else { "\n" };
        writeln!(f, "cat > case.knn <<'EOF'\n{}{newline}EOF", self.program)?;
        if let Some(vnnlib) = self.vnnlib() {
            writeln!(f, "cat > case.vnnlib <<'EOF'\n{vnnlib}EOF")?;
        }
        let quoted: Vec<String> = self.flags().iter().map(|a| format!("'{a}'")).collect();
        write!(f, "knn verify case.knn {}", quoted.join(" "))
    }
}
