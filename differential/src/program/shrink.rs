//! Shrinking: programs one step simpler than a failing one, kept well-formed, so that a failure
//! is reported on a small program.

use super::{Final, Input, Program, Scalar, Stmt};

impl Scalar {
    /// Simpler expressions of the same kind of value, for shrinking.
    pub fn shrink(&self) -> Vec<Scalar> {
        match self {
            Scalar::Float(x) => {
                // Toward 0.0, well-founded: 0.0 has no simpler form, 1.0 only 0.0, and an
                // integer-valued or larger value gets simpler by truncation and magnitude.
                let mut out = Vec::new();
                if x.to_bits() != 0.0f64.to_bits() {
                    out.push(Scalar::Float(0.0));
                }
                if x.abs() > 1.0 || x.is_nan() {
                    out.push(Scalar::Float(1.0));
                }
                if x.is_finite() && x.trunc() != *x && x.trunc().abs() >= 1.0 {
                    out.push(Scalar::Float(x.trunc()));
                }
                out
            }
            Scalar::Int(n) if *n > 1 => vec![Scalar::Int(0), Scalar::Int(1), Scalar::Int(n / 2)],
            Scalar::Int(_) | Scalar::Var(_) => Vec::new(),
            Scalar::Read(..) => vec![Scalar::Float(0.0)],
            Scalar::Bin(op, a, b) => {
                let mut out = vec![(**a).clone(), (**b).clone()];
                out.extend(a.shrink().into_iter().map(|a| Scalar::Bin(*op, Box::new(a), b.clone())));
                out.extend(b.shrink().into_iter().map(|b| Scalar::Bin(*op, a.clone(), Box::new(b))));
                out
            }
            Scalar::Nested(name, value, body) => {
                let mut out = vec![(**value).clone()];
                out.extend(value.shrink().into_iter().map(|v| Scalar::Nested(name.clone(), Box::new(v), body.clone())));
                out
            }
        }
    }
}

impl Program {
    /// Programs one step simpler: a statement removed (with the statements and result that
    /// then read an unbound name), the input dropped, an expression simplified.
    pub fn shrink_candidates(&self) -> Vec<Program> {
        let mut out = Vec::new();
        for k in (0..self.stmts.len()).rev() {
            let mut smaller = self.clone();
            smaller.stmts.remove(k);
            out.push(smaller.well_formed());
        }
        if self.input.is_some() {
            out.push(Program { input: None, ..self.clone() }.well_formed());
        }
        if let Some(input) = &self.input
            && input.rows.len() > 1
        {
            let one = Input { rows: input.rows[..1].to_vec(), ..input.clone() };
            out.push(Program { input: Some(one), ..self.clone() });
        }
        if let Final::Scalar(s) = &self.result {
            for simpler in s.shrink() {
                out.push(Program { result: Final::Scalar(simpler), ..self.clone() }.well_formed());
            }
        }
        for (k, stmt) in self.stmts.iter().enumerate() {
            let simpler: Vec<Stmt> = match stmt {
                Stmt::Write { tensor, index, value } => value
                    .shrink()
                    .into_iter()
                    .map(|v| Stmt::Write { tensor: tensor.clone(), index: index.clone(), value: v })
                    .collect(),
                Stmt::Let { name, value } => {
                    value.shrink().into_iter().map(|v| Stmt::Let { name: name.clone(), value: v }).collect()
                }
                _ => Vec::new(),
            };
            for s in simpler {
                let mut p = self.clone();
                p.stmts[k] = s;
                out.push(p.well_formed());
            }
        }
        out.retain(|p| p != self);
        out
    }

    /// Drops statements that read a name nothing binds (after a shrink removed its binder) and
    /// replaces such a result with `0.0`: shrinking keeps programs well-formed.
    fn well_formed(mut self) -> Program {
        let mut bound: Vec<String> = self.input.iter().map(|i| i.name.clone()).collect();
        self.stmts.retain(|stmt| {
            let ok = stmt.uses().iter().all(|n| bound.contains(n));
            if ok && let Some(name) = stmt.defines() {
                bound.push(name.to_string());
            }
            ok
        });
        if !self.result.uses().iter().all(|n| bound.contains(n)) {
            self.result = Final::Scalar(Scalar::Float(0.0));
        }
        self
    }
}
