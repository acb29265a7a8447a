//! Identifiers for the program: model names (ONNX value names such as `input.1` or
//! `dense/BiasAdd:0`) made into K-NN identifiers, and the user's renames.

use knn_semantics::syntax::lexer::is_identifier;

use super::{ImportOptions, Network};

/// `name` as a K-NN identifier: every character outside `[A-Za-z0-9_]` becomes `_`, a leading
/// digit gets a `_` in front, and a keyword (`linear`, `in`, …) gets a `_` appended.
pub fn identifier(name: &str) -> String {
    let mut id: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    if !is_identifier(&id) {
        id.push('_');
    }
    id
}

/// Whether the emitter may use `name` for the input or output: an identifier that no
/// generated name (`W0`, `b0`, `z0`, `h0`, `t0`, …) can take.
pub fn is_free(name: &str) -> bool {
    let generated = name.len() > 1
        && matches!(name.as_bytes()[0], b'W' | b'b' | b'z' | b'h' | b't')
        && name[1..].bytes().all(|b| b.is_ascii_digit());
    is_identifier(name) && !generated
}

/// Applies `--input-name`/`--output-name`, and makes sure the two names are usable and
/// distinct.
pub fn rename(network: &mut Network, options: &ImportOptions) -> Result<(), String> {
    for (flag, name, target) in [
        ("--input-name", &options.input_name, &mut network.input),
        ("--output-name", &options.output_name, &mut network.output),
    ] {
        if let Some(name) = name {
            if !is_identifier(name) {
                return Err(format!("{flag} {name}: not a K-NN identifier (letters, digits, `_`; not a keyword)"));
            }
            *target = name.clone();
        }
        if !is_free(target) {
            return Err(format!(
                "the name `{target}` is taken by the program's own tensors (W0, b0, z0, h0, t0, …): choose another with {flag}"
            ));
        }
    }
    if network.input == network.output {
        return Err(format!(
            "the input and the output are both named `{}`: rename one with --input-name or --output-name",
            network.input
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_become_identifiers() {
        assert_eq!(identifier("input.1"), "input_1");
        assert_eq!(identifier("dense/BiasAdd:0"), "dense_BiasAdd_0");
        assert_eq!(identifier("0"), "_0");
        assert_eq!(identifier(""), "_");
        assert_eq!(identifier("linear"), "linear_");
        assert_eq!(identifier("X"), "X");
        assert!(is_free("x") && is_free("W") && is_free("W0a"));
        assert!(!is_free("W0") && !is_free("z12") && !is_free("in"));
    }
}
