//! `--input NAME=[1.0,2.0]`, `--input NAME=[[1.0,2.0],[3.0,4.0]]`, `--input NAME=FILE.npy`.

use std::path::Path;

use knn_semantics::inputs::TensorInput;
use knn_semantics::memory::MEMORY_LIMIT_HINT;

use super::error::{Failure, KnnError};
use knn_formats::npy::read_npy;

/// Parses one `--input` argument: `NAME=[1.0, 2.0]`, `NAME=[[1, 2], [3, 4]]` or
/// `NAME=FILE.npy`. A malformed argument is a usage error; a well-formed file too large for the
/// memory budget is a limit.
///
/// ```
/// let x = knn::parse_input("x=[[1, 2], [3, 4]]").unwrap();
/// assert_eq!((x.shape, x.data), (vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]));
/// assert_eq!(knn::parse_input("x=1.0").unwrap_err().exit_code(), 1);
/// ```
pub fn parse_input(argument: &str) -> Result<TensorInput, KnnError> {
    parse_input_text(argument).map_err(|e| {
        let failure = if e.contains(MEMORY_LIMIT_HINT) { Failure::Limit(None) } else { Failure::Usage };
        KnnError::new(failure, e)
    })
}

fn parse_input_text(argument: &str) -> Result<TensorInput, String> {
    let Some((name, value)) = argument.split_once('=') else {
        return Err(format!("`--input {argument}`: expected NAME=[v, …], NAME=[[…], …] or NAME=FILE.npy"));
    };
    let name = name.trim().to_string();
    let value = value.trim();
    let (shape, data) = if value.starts_with('[') {
        parse_inline(value).map_err(|e| format!("`--input {argument}`: {e}"))?
    } else if let Some(hint) = not_a_file(value) {
        return Err(format!("`--input {argument}`: {hint}"));
    } else {
        let array = read_npy(Path::new(value)).map_err(|e| format!("`--input {argument}`: {e}"))?;
        (array.shape, array.data)
    };
    let input = TensorInput { name, shape, data };
    input.validate().map_err(|e| format!("`--input {argument}`: {e}"))?;
    Ok(input)
}

/// Why a value that is neither a bracketed list nor an existing file is neither, in the words
/// of the two forms it could have taken: `x=1.0` is not a misspelt path but a missing `[…]`.
fn not_a_file(value: &str) -> Option<String> {
    if Path::new(value).exists() {
        return None;
    }
    const FORMS: &str = "a value is a list in brackets (`[1.0, 2.0]`, `[[1, 2], [3, 4]]`) or the path of a .npy file";
    let numbers = value.trim().is_empty() || value.split(',').all(|item| parse_number(item.trim()).is_ok());
    Some(if numbers {
        format!("{FORMS}; inputs are tensors, so a single number is written `[{value}]`")
    } else {
        format!("{FORMS}, and there is no file `{value}`")
    })
}

/// `[1.0, 2]`, `[[1, 2], [3, 4]]`, `[[[1, 2]], [[3, 4]]]`, …: the shape and the row-major
/// data. Lists nest to any depth (a convolution's input has rank 3); the lists at one depth
/// must all have the same length. Numbers are anything Rust reads as an f64 (`1`, `-2.5e3`,
/// `NaN`, `inf`) or K's `Infinity`.
pub fn parse_inline(text: &str) -> Result<(Vec<usize>, Vec<f64>), String> {
    let (shape, items) = parse_nested_texts(text)?;
    Ok((shape, items.into_iter().map(parse_number).collect::<Result<_, _>>()?))
}

/// The nested lists of [`parse_inline`] with their elements left as written (trimmed): the
/// shape and the row-major texts, for callers that read the numbers their own way (a
/// region's centre, kept as decimals).
pub fn parse_nested_texts(text: &str) -> Result<(Vec<usize>, Vec<&str>), String> {
    let mut shape = None;
    let mut data = Vec::new();
    parse_nested(text, 0, &mut Vec::new(), &mut shape, &mut data)?;
    Ok((shape.unwrap_or_default(), data))
}

/// One bracketed list at `depth`: its elements appended to `data`, or its sub-lists read in
/// turn. `path` holds the lengths of the lists around it; the first innermost list fixes the
/// shape, and every other list must agree with it.
fn parse_nested<'t>(
    text: &'t str,
    depth: usize,
    path: &mut Vec<usize>,
    shape: &mut Option<Vec<usize>>,
    data: &mut Vec<&'t str>,
) -> Result<(), String> {
    const DEPTH: usize = knn_semantics::inputs::MAX_INPUT_RANK;
    let inner = strip_brackets(text).ok_or(if depth == 0 {
        "a list must be written in brackets"
    } else {
        "each row must be written in brackets"
    })?;
    if inner.trim_start().starts_with('[') {
        if depth + 1 >= DEPTH {
            return Err(format!("inputs have rank 1 to {DEPTH}"));
        }
        let rows = split_rows(inner)?;
        path.push(rows.len());
        for row in &rows {
            parse_nested(row, depth + 1, path, shape, data)?;
        }
        path.pop();
        return Ok(());
    }
    let values: Vec<&str> =
        if inner.trim().is_empty() { Vec::new() } else { inner.split(',').map(str::trim).collect() };
    let len = values.len();
    data.extend(values);
    let mut here = path.clone();
    here.push(len);
    match shape {
        None => *shape = Some(here),
        Some(s) if s.len() != here.len() => {
            return Err(format!("lists nest to different depths ({} and {})", s.len(), here.len()));
        }
        Some(s) => {
            if let Some(axis) = (0..s.len()).find(|&a| s[a] != here[a]) {
                let what = if axis + 1 == s.len() { "rows" } else { "lists" };
                return Err(format!("{what} have different lengths ({} and {})", s[axis], here[axis]));
            }
        }
    }
    Ok(())
}

fn strip_brackets(text: &str) -> Option<&str> {
    text.trim().strip_prefix('[')?.strip_suffix(']')
}

/// The bracketed items of a list, split at top-level commas.
fn split_rows(inner: &str) -> Result<Vec<&str>, String> {
    let mut rows = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth == 0 => return Err("unbalanced `]`".into()),
            ']' => depth -= 1,
            ',' if depth == 0 => {
                rows.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("unbalanced `[`".into());
    }
    rows.push(inner[start..].trim());
    Ok(rows)
}

fn parse_number(item: &str) -> Result<f64, String> {
    match item {
        "Infinity" | "+Infinity" => Ok(f64::INFINITY),
        "-Infinity" => Ok(f64::NEG_INFINITY),
        _ => item.parse::<f64>().map_err(|_| format!("`{item}` is not a number")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_and_matrices() {
        assert_eq!(parse_inline("[1.0, 2]").unwrap(), (vec![2], vec![1.0, 2.0]));
        assert_eq!(parse_inline("[[1,2],[3,4],[5,6]]").unwrap(), (vec![3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
        assert_eq!(parse_inline("[]").unwrap(), (vec![0], vec![]));
        assert_eq!(
            parse_inline("[[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]").unwrap(),
            (vec![2, 3, 2], (1..=12).map(f64::from).collect())
        );
        let (_, nan) = parse_inline("[NaN, -Infinity]").unwrap();
        assert!(nan[0].is_nan() && nan[1] == f64::NEG_INFINITY);
    }

    #[test]
    fn malformed_lists_are_refused_with_a_reason() {
        assert!(parse_inline("[[1,2],[3]]").unwrap_err().contains("different lengths"));
        assert!(parse_inline("[1, x]").unwrap_err().contains("`x` is not a number"));
        assert!(parse_inline("[[[1, 2]], [[3]]]").unwrap_err().contains("rows have different lengths (2 and 1)"));
        assert!(parse_inline("[[[1]], [[2], [3]]]").unwrap_err().contains("lists have different lengths (1 and 2)"));
        assert!(parse_inline("[[[1]], [2]]").unwrap_err().contains("different depths"));
        assert!(parse_inline("[[[[[[[[[1]]]]]]]]]").unwrap_err().contains("rank 1 to 8"));
        assert!(parse_inline("[1, 2").is_err());
        assert!(parse_input("x").unwrap_err().message.contains("expected NAME="));
        assert!(parse_input("let=[1]").unwrap_err().message.contains("not an identifier"));
    }

    #[test]
    fn a_value_that_is_neither_a_list_nor_a_file_says_what_a_value_is() {
        let number = parse_input("x=1.0").unwrap_err().message.clone();
        assert!(number.starts_with("`--input x=1.0`: a value is a list in brackets"), "{number}");
        assert!(number.contains("or the path of a .npy file"), "{number}");
        assert!(number.ends_with("a single number is written `[1.0]`"), "{number}");
        assert!(!number.contains("cannot read the file"), "{number}");
        let missing = parse_input("x=no-such-inputs.npy").unwrap_err().message.clone();
        assert!(missing.contains("or the path of a .npy file, and there is no file `no-such-inputs.npy`"), "{missing}");
    }
}
