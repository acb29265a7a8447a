//! Constant tensors of an ONNX graph: initializers, `Constant` nodes, and the broadcasting of
//! a constant against the graph's vector.

use std::sync::Arc;

use super::proto::{AttributeProto, TensorProto, data_type};

/// A constant's values, widened exactly to f64 (floats) or kept as integers (shapes). Floats
/// are shared: a weight matrix goes from here to the program's literal without a copy.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Float(Arc<[f64]>),
    Int(Vec<i64>),
}

/// A constant tensor, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    pub dims: Vec<usize>,
    pub values: Values,
}

/// Tensors larger than this are refused before anything is allocated: a corrupt file must
/// not ask for terabytes.
const MAX_ELEMENTS: usize = 1 << 31;

/// The number of elements of `dims`, if it is a sane size.
pub fn element_count(dims: &[usize]) -> Option<usize> {
    dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).filter(|&n| n <= MAX_ELEMENTS)
}

impl Constant {
    pub fn len(&self) -> usize {
        match &self.values {
            Values::Float(v) => v.len(),
            Values::Int(v) => v.len(),
        }
    }

    /// The values as floats (integers converted), for arithmetic constants: shared, not copied.
    pub fn floats(&self) -> Arc<[f64]> {
        match &self.values {
            Values::Float(v) => Arc::clone(v),
            Values::Int(v) => v.iter().map(|&i| i as f64).collect(),
        }
    }

    /// Decodes a `TensorProto`: FLOAT, DOUBLE, INT32 or INT64, in `raw_data` (little-endian)
    /// or in the typed field.
    pub fn from_proto(tensor: &TensorProto) -> Result<Constant, String> {
        if tensor.data_location == 1 {
            return Err("its data is stored in an external file, which knn does not read; save the model with the weights inside".into());
        }
        let dims = tensor
            .dims
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| format!("negative dimension {d} in {:?}", tensor.dims)))
            .collect::<Result<Vec<usize>, String>>()?;
        let count = element_count(&dims).ok_or_else(|| format!("the dimensions {dims:?} are too large"))?;
        let raw = &tensor.raw_data;
        let values = match tensor.data_type {
            data_type::FLOAT if !raw.is_empty() => {
                Values::Float(raw_values::<4>(raw, count)?.map(|b| f64::from(f32::from_le_bytes(b))).collect())
            }
            data_type::FLOAT => Values::Float(tensor.float_data.iter().map(|&x| f64::from(x)).collect()),
            data_type::DOUBLE if !raw.is_empty() => {
                Values::Float(raw_values::<8>(raw, count)?.map(f64::from_le_bytes).collect())
            }
            data_type::DOUBLE => Values::Float(tensor.double_data.as_slice().into()),
            data_type::INT64 if !raw.is_empty() => {
                Values::Int(raw_values::<8>(raw, count)?.map(i64::from_le_bytes).collect())
            }
            data_type::INT64 => Values::Int(tensor.int64_data.clone()),
            data_type::INT32 if !raw.is_empty() => {
                Values::Int(raw_values::<4>(raw, count)?.map(|b| i64::from(i32::from_le_bytes(b))).collect())
            }
            data_type::INT32 => Values::Int(tensor.int32_data.iter().map(|&x| i64::from(x)).collect()),
            other => {
                return Err(format!(
                    "its element type is {} ({other}); knn imports float, double, int32 and int64 tensors",
                    type_name(other)
                ));
            }
        };
        let constant = Constant { dims, values };
        if constant.len() != count {
            return Err(format!(
                "it holds {} values but its dimensions {:?} need {count}",
                constant.len(),
                constant.dims
            ));
        }
        Ok(constant)
    }

    /// The value of a `Constant` node's attribute (`value`, `value_float(s)`, `value_int(s)`).
    pub fn from_attribute(attribute: &AttributeProto) -> Result<Constant, String> {
        match attribute.name.as_str() {
            "value" => Constant::from_proto(attribute.t.as_ref().ok_or("the `value` attribute holds no tensor")?),
            "value_float" => Ok(Constant { dims: vec![], values: Values::Float(Arc::new([f64::from(attribute.f)])) }),
            "value_floats" => Ok(Constant {
                dims: vec![attribute.floats.len()],
                values: Values::Float(attribute.floats.iter().map(|&x| f64::from(x)).collect()),
            }),
            "value_int" => Ok(Constant { dims: vec![], values: Values::Int(vec![attribute.i]) }),
            "value_ints" => {
                Ok(Constant { dims: vec![attribute.ints.len()], values: Values::Int(attribute.ints.clone()) })
            }
            other => Err(format!(
                "a Constant given by `{other}` is not supported (only value, value_float(s), value_int(s))"
            )),
        }
    }
}

/// `count` little-endian elements of `width` bytes, or an error if `raw` has another length.
fn raw_values<const W: usize>(raw: &[u8], count: usize) -> Result<impl Iterator<Item = [u8; W]> + '_, String> {
    if raw.len() != count * W {
        return Err(format!(
            "its raw data has {} bytes, but {count} elements of {W} bytes need {}",
            raw.len(),
            count * W
        ));
    }
    Ok(raw.chunks_exact(W).map(|c| c.try_into().expect("chunks_exact gives W bytes")))
}

fn type_name(data_type: i32) -> &'static str {
    match data_type {
        0 => "UNDEFINED",
        2 => "UINT8",
        3 => "INT8",
        4 => "UINT16",
        5 => "INT16",
        8 => "STRING",
        9 => "BOOL",
        10 => "FLOAT16",
        12 => "UINT32",
        13 => "UINT64",
        14 => "COMPLEX64",
        15 => "COMPLEX128",
        16 => "BFLOAT16",
        _ => "an unknown type",
    }
}

/// The constant's values for each element of a tensor of shape `target`, by NumPy
/// broadcasting; `None` when `dims` does not broadcast to `target` without growing it.
pub fn broadcast(values: &[f64], dims: &[usize], target: &[usize]) -> Option<Vec<f64>> {
    if dims.len() > target.len() {
        // Extra leading dimensions must all be 1.
        let extra = dims.len() - target.len();
        if dims[..extra].iter().any(|&d| d != 1) {
            return None;
        }
        return broadcast(values, &dims[extra..], target);
    }
    let offset = target.len() - dims.len();
    if dims.iter().zip(&target[offset..]).any(|(&d, &t)| d != 1 && d != t) {
        return None;
    }
    let count = element_count(target)?;
    let mut out = Vec::with_capacity(count);
    let mut index = vec![0usize; target.len()];
    for _ in 0..count {
        let mut flat = 0;
        for (axis, &d) in dims.iter().enumerate() {
            flat = flat * d + if d == 1 { 0 } else { index[offset + axis] };
        }
        out.push(values[flat]);
        for axis in (0..target.len()).rev() {
            index[axis] += 1;
            if index[axis] < target[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting_follows_numpy_without_growing_the_vector() {
        assert_eq!(broadcast(&[1.0, 2.0], &[2], &[1, 2]), Some(vec![1.0, 2.0]));
        assert_eq!(broadcast(&[5.0], &[], &[1, 3]), Some(vec![5.0; 3]));
        assert_eq!(broadcast(&[5.0], &[1, 1], &[3]), Some(vec![5.0; 3]));
        assert_eq!(broadcast(&[1.0, 2.0], &[1, 2], &[2]), Some(vec![1.0, 2.0]));
        assert_eq!(broadcast(&[1.0, 2.0], &[2, 1], &[1, 2]), None, "would grow to (2, 2)");
        assert_eq!(broadcast(&[1.0, 2.0, 3.0], &[3], &[2]), None);
    }

    #[test]
    fn tensors_decode_from_raw_and_typed_fields() {
        let raw = TensorProto {
            dims: vec![2],
            data_type: data_type::FLOAT,
            raw_data: [1.5f32, -0.1].iter().flat_map(|x| x.to_le_bytes()).collect(),
            ..Default::default()
        };
        assert_eq!(Constant::from_proto(&raw).unwrap().values, Values::Float(Arc::new([1.5, f64::from(-0.1f32)])));
        let typed = TensorProto {
            dims: vec![1, 2],
            data_type: data_type::FLOAT,
            float_data: vec![2.0, 3.0],
            ..Default::default()
        };
        assert_eq!(Constant::from_proto(&typed).unwrap().dims, vec![1, 2]);
        let short = TensorProto { raw_data: vec![0; 7].into(), ..raw.clone() };
        assert!(Constant::from_proto(&short).unwrap_err().contains("raw data has 7 bytes"));
        let missing = TensorProto { float_data: vec![2.0], ..typed };
        assert!(Constant::from_proto(&missing).unwrap_err().contains("holds 1 values"));
        let half = TensorProto { data_type: 10, ..raw.clone() };
        assert!(Constant::from_proto(&half).unwrap_err().contains("FLOAT16"));
        let external = TensorProto { data_location: 1, ..raw };
        assert!(Constant::from_proto(&external).unwrap_err().contains("external file"));
        let huge = TensorProto { dims: vec![1 << 40, 1 << 40], data_type: data_type::FLOAT, ..Default::default() };
        assert!(Constant::from_proto(&huge).unwrap_err().contains("too large"));
    }
}
