//! The `.nnet` format (Kyle Julian's, used for ACAS Xu and by Marabou and Reluplex).
//!
//! Lines starting with `//` are comments. Then one record per line, values separated by commas
//! (a trailing comma is usual): `numLayers,inputSize,outputSize,maxLayerSize`; the layer sizes,
//! input first; a flag (unused); the input minimums; the input maximums; the means (inputs, then
//! one for the outputs); the ranges (same). Then for each layer one line of weights per output
//! neuron, then one line with the bias per output neuron. Hidden layers apply ReLU; the last
//! layer is linear. The reference evaluator clips raw inputs to `[min, max]`, normalises them to
//! `(x - mean) / range`, and scales outputs back by `y * range_out + mean_out`.

use std::path::Path;

use super::{Activation, ImportError, Network, Step};

/// A parsed `.nnet` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Nnet {
    /// Layer widths, input first.
    pub sizes: Vec<usize>,
    pub mins: Vec<f64>,
    pub maxes: Vec<f64>,
    /// Input means, then the output mean.
    pub means: Vec<f64>,
    /// Input ranges, then the output range.
    pub ranges: Vec<f64>,
    /// Per layer: weights row-major `(sizes[k + 1], sizes[k])`, then the bias.
    pub layers: Vec<(Vec<f64>, Vec<f64>)>,
}

/// One non-comment line: its 1-based number, and each value's text with its 1-based column.
struct Record<'a> {
    line: usize,
    values: Vec<(usize, &'a str)>,
}

struct Reader<'a> {
    path: &'a Path,
    records: std::vec::IntoIter<Record<'a>>,
    last_line: usize,
}

impl<'a> Reader<'a> {
    fn new(path: &'a Path, text: &'a str) -> Reader<'a> {
        let mut records = Vec::new();
        let mut last_line = 0;
        for (index, line) in text.lines().enumerate() {
            last_line = index + 1;
            let trimmed = line.trim_start();
            if trimmed.is_empty() || trimmed.starts_with("//") {
                continue;
            }
            let mut values = Vec::new();
            let mut column = 1;
            for piece in line.split(',') {
                let start = piece.len() - piece.trim_start().len();
                let value = piece.trim();
                if !value.is_empty() {
                    values.push((column + start, value));
                }
                column += piece.chars().count() + 1;
            }
            records.push(Record { line: index + 1, values });
        }
        Reader { path, records: records.into_iter(), last_line }
    }

    fn error(&self, line: usize, column: usize, message: impl Into<String>) -> ImportError {
        ImportError::new(self.path, format!("{line}:{column}"), message)
    }

    /// The next record, which must hold exactly `count` values (`what` says what they are).
    fn record(&mut self, count: usize, what: &str) -> Result<Record<'a>, ImportError> {
        let Some(record) = self.records.next() else {
            return Err(self.error(
                self.last_line.max(1),
                1,
                format!("the file ends where {what} should follow (is it truncated?)"),
            ));
        };
        if record.values.len() != count {
            let column = record.values.get(count.min(record.values.len().saturating_sub(1))).map_or(1, |v| v.0);
            return Err(self.error(
                record.line,
                column,
                format!("expected {count} value{} ({what}), found {}", plural(count), record.values.len()),
            ));
        }
        Ok(record)
    }

    fn floats(&mut self, count: usize, what: &str) -> Result<Vec<f64>, ImportError> {
        let record = self.record(count, what)?;
        record
            .values
            .iter()
            .map(|&(column, text)| {
                text.parse::<f64>()
                    .map_err(|_| self.error(record.line, column, format!("`{text}` is not a number ({what})")))
            })
            .collect()
    }

    /// A header record of non-negative integers: exactly `count` of them, if given.
    fn sizes(&mut self, count: Option<usize>, what: &str) -> Result<(usize, Vec<usize>), ImportError> {
        let record = match count {
            Some(count) => self.record(count, what)?,
            None => {
                self.records.next().ok_or_else(|| self.error(self.last_line.max(1), 1, "the file has no header"))?
            }
        };
        let sizes = record
            .values
            .iter()
            .map(|&(column, text)| {
                text.parse::<usize>().map_err(|_| {
                    self.error(record.line, column, format!("`{text}` is not a non-negative integer ({what})"))
                })
            })
            .collect::<Result<Vec<usize>, ImportError>>()?;
        Ok((record.line, sizes))
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Parses a `.nnet` file; errors carry `line:column`.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Nnet, ImportError> {
    let text = String::from_utf8_lossy(bytes);
    let mut reader = Reader::new(path, &text);
    let (line, header) = reader.sizes(None, "numLayers, inputSize, outputSize, maxLayerSize")?;
    let [layer_count, input_size, output_size, _, ..] = header[..] else {
        return Err(reader.error(
            line,
            1,
            format!("the header needs numLayers, inputSize, outputSize, maxLayerSize; found {} values", header.len()),
        ));
    };
    if layer_count == 0 {
        return Err(reader.error(line, 1, "the network has no layers (numLayers is 0)"));
    }
    let (line, sizes) = reader.sizes(Some(layer_count + 1), "the layer sizes, input first")?;
    if sizes[0] != input_size || sizes[layer_count] != output_size {
        return Err(reader.error(
            line,
            1,
            format!(
                "the layer sizes {sizes:?} do not start with inputSize {input_size} and end with outputSize {output_size}"
            ),
        ));
    }
    if let Some(k) = sizes.iter().position(|&s| s == 0) {
        return Err(reader.error(line, 1, format!("layer size {k} is 0")));
    }
    reader.record(1, "the flag line")?;
    let mins = reader.floats(input_size, "the input minimums")?;
    let maxes = reader.floats(input_size, "the input maximums")?;
    let means = reader.floats(input_size + 1, "the input means, then the output mean")?;
    let ranges = reader.floats(input_size + 1, "the input ranges, then the output range")?;
    let mut layers = Vec::with_capacity(layer_count);
    for (k, pair) in sizes.windows(2).enumerate() {
        let (fan_in, fan_out) = (pair[0], pair[1]);
        let mut weights = Vec::new();
        for neuron in 0..fan_out {
            weights.extend(reader.floats(fan_in, &format!("the weights of layer {k}, neuron {neuron}"))?);
        }
        let mut bias = Vec::new();
        for neuron in 0..fan_out {
            bias.extend(reader.floats(1, &format!("the bias of layer {k}, neuron {neuron}"))?);
        }
        layers.push((weights, bias));
    }
    if let Some(extra) = reader.records.next() {
        let column = extra.values.first().map_or(1, |v| v.0);
        return Err(reader.error(extra.line, column, "unexpected values after the last layer's biases"));
    }
    Ok(Nnet { sizes, mins, maxes, means, ranges, layers })
}

impl Nnet {
    /// The network as steps: `linear`, bias, ReLU on hidden layers. With `normalize`, the raw
    /// input is first clipped to `[min, max]` and scaled to `(x - mean) * (1 / range)`, and the
    /// output scaled back to `y * range_out + mean_out`. K-NN has no division: multiplying by the
    /// reciprocal may differ from the reference's `/ range` in the last bit.
    pub fn network(&self, path: &Path, normalize: bool) -> Network {
        let n = self.sizes[0];
        let mut steps = Vec::new();
        if normalize {
            steps.push(Step::Clip { low: self.mins.clone(), high: self.maxes.clone() });
            steps.push(Step::Add(self.means[..n].iter().map(|m| -m).collect()));
            steps.push(Step::Mul(self.ranges[..n].iter().map(|r| 1.0 / r).collect()));
        }
        let last = self.layers.len() - 1;
        for (k, (weights, bias)) in self.layers.iter().enumerate() {
            let (cols, rows) = (self.sizes[k], self.sizes[k + 1]);
            steps.push(Step::Linear { rows, cols, weights: weights.as_slice().into() });
            steps.push(Step::Add(bias.clone()));
            if k < last {
                steps.push(Step::Activation(Activation::Relu));
            }
        }
        let outputs = self.sizes[self.layers.len()];
        let mut notes = Vec::new();
        if normalize {
            steps.push(Step::Mul(vec![self.ranges[n]; outputs]));
            steps.push(Step::Add(vec![self.means[n]; outputs]));
            notes.push(
                "Normalised: x is the raw input, clipped to the file's [min, max] and scaled to (x - mean) / range;"
                    .into(),
            );
            notes.push("y is the raw output, y * range_out + mean_out.".into());
        } else {
            notes.push("Raw network: x is the input as the network sees it (already normalised), y its output;".into());
            notes.push(
                "`knn import --normalize` adds the file's input clipping and scaling and the output scaling.".into(),
            );
        }
        Network {
            source: path.display().to_string(),
            format: ".nnet",
            input: "x".into(),
            input_len: n,
            input_shape: vec![n],
            output: "y".into(),
            steps,
            notes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "// a comment\n2,2,3,3,\n2,2,3,\n0,\n-1.0,-2.0,\n1.0,2.0,\n0.0,0.5,1.0,\n1.0,2.0,4.0,\n\
                         1.0,1.0,\n-1.0,-1.0,\n0.5,\n0.0,\n2.0,-1.0,\n-1.0,1.0,\n1.0,-1.0,\n0.0,\n0.25,\n0.0,\n";

    fn parse_text(text: &str) -> Result<Nnet, ImportError> {
        parse(Path::new("t.nnet"), text.as_bytes())
    }

    #[test]
    fn a_small_file_parses_into_layers() {
        let nnet = parse_text(SMALL).unwrap();
        assert_eq!(nnet.sizes, vec![2, 2, 3]);
        assert_eq!(nnet.means, vec![0.0, 0.5, 1.0]);
        assert_eq!(nnet.layers[0], (vec![1.0, 1.0, -1.0, -1.0], vec![0.5, 0.0]));
        assert_eq!(nnet.layers[1].1, vec![0.0, 0.25, 0.0]);
    }

    #[test]
    fn errors_point_at_line_and_column() {
        let bad = SMALL.replace("2.0,-1.0,", "2.0,oops,");
        let e = parse_text(&bad).unwrap_err();
        assert_eq!(e.location, "13:5");
        assert!(e.message.contains("`oops` is not a number (the weights of layer 1, neuron 0)"), "{e}");

        let short = SMALL.replace("-1.0,1.0,\n", "-1.0,\n");
        let e = parse_text(&short).unwrap_err();
        assert_eq!(e.location, "14:1");
        assert!(e.message.contains("expected 2 values"), "{e}");

        let truncated = &SMALL[..SMALL.find("1.0,-1.0,\n0.0").unwrap()];
        let e = parse_text(truncated).unwrap_err();
        assert!(e.message.contains("the file ends where the weights of layer 1, neuron 2"), "{e}");

        let e = parse_text(&SMALL.replace("2,2,3,\n", "3,2,3,\n")).unwrap_err();
        assert_eq!(e.location, "3:1");
        assert!(e.message.contains("do not start with inputSize 2"), "{e}");

        let e = parse_text(&format!("{SMALL}1.0,\n")).unwrap_err();
        assert!(e.message.contains("after the last layer"), "{e}");
        assert!(parse_text("").unwrap_err().message.contains("no header"));
        assert!(parse_text("\u{0}\u{1}garbage").is_err());
    }

    #[test]
    fn normalisation_adds_clip_scale_and_output_scaling() {
        let nnet = parse_text(SMALL).unwrap();
        let raw = nnet.network(Path::new("t.nnet"), false);
        assert_eq!(raw.steps.len(), 5, "linear, bias, relu, linear, bias");
        let scaled = nnet.network(Path::new("t.nnet"), true);
        assert_eq!(scaled.steps[0], Step::Clip { low: vec![-1.0, -2.0], high: vec![1.0, 2.0] });
        assert_eq!(scaled.steps[1], Step::Add(vec![-0.0, -0.5]));
        assert_eq!(scaled.steps[2], Step::Mul(vec![1.0, 0.5]));
        assert_eq!(scaled.steps[scaled.steps.len() - 2], Step::Mul(vec![4.0; 3]));
        assert_eq!(scaled.steps[scaled.steps.len() - 1], Step::Add(vec![1.0; 3]));
    }
}
