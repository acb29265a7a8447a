//! ONNX `Transpose` as K-NN's `transpose` (Ext-6). Axes of size 1 move no element, so only the
//! order of the others matters: when it is kept (a batch or a single channel moved), the
//! transpose is a reshape (`Graph::reshaped`); otherwise the current tensor is first given the
//! value's dimensions other than 1 (a `reshape` when it does not have them already), then
//! transposed with their permutation, then given the result's usual K-NN shape. Channels-last
//! images, `(1, H, W, C)` transposed to `(1, C, H, W)` before a `Conv` and back before a
//! `Flatten`, are one `transpose` each.

use super::*;

/// ONNX `Transpose(perm)`: `perm` reversed axes when absent.
pub(super) fn transpose(graph: &mut Graph, node: &NodeProto) -> Result<Value, String> {
    let [input] = inputs::<1>(graph, node)?;
    let shape = graph.vector(&input, node)?;
    let rank = shape.len();
    let perm: Vec<usize> = match attribute(node, "perm") {
        None => (0..rank).rev().collect(),
        Some(a) => {
            let perm: Vec<usize> = a.ints.iter().map(|&p| usize::try_from(p).unwrap_or(usize::MAX)).collect();
            let mut sorted = perm.clone();
            sorted.sort_unstable();
            if sorted != (0..rank).collect::<Vec<_>>() {
                return Err(format!("perm = {:?} is not a permutation of the {rank} axes of {shape:?}", a.ints));
            }
            perm
        }
    };
    let output: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    // The axes other than 1, in the input's order, and the order the output puts them in.
    let moving: Vec<usize> = (0..rank).filter(|&a| shape[a] != 1).collect();
    let order: Vec<usize> = perm
        .iter()
        .filter(|&&p| shape[p] != 1)
        .map(|p| moving.iter().position(|a| a == p).expect("an axis other than 1"))
        .collect();
    if order.iter().enumerate().all(|(i, &p)| i == p) {
        return graph.reshaped(output);
    }
    let squeezed: Vec<usize> = moving.iter().map(|&a| shape[a]).collect();
    if graph.tensor != squeezed {
        graph.steps.push(Step::Reshape(squeezed.clone()));
    }
    let transposed: Vec<usize> = order.iter().map(|&p| squeezed[p]).collect();
    graph.steps.push(Step::Transpose { perm: order, output: transposed.clone() });
    graph.tensor = transposed;
    graph.advance();
    graph.reshaped(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::onnx::proto::AttributeProto;
    use std::collections::HashMap;

    fn node(perm: Option<&[i64]>) -> NodeProto {
        let attribute = perm
            .map(|p| AttributeProto { name: "perm".into(), ints: p.to_vec(), ..Default::default() })
            .into_iter()
            .collect();
        NodeProto {
            input: vec!["x".into()],
            output: vec!["y".into()],
            op_type: "Transpose".into(),
            attribute,
            ..Default::default()
        }
    }

    fn graph(tensor: Vec<usize>, shape: Vec<usize>) -> Graph {
        let mut values = HashMap::new();
        values.insert("x".to_string(), Value::Vector { generation: 0, shape });
        Graph::new(values, tensor)
    }

    #[test]
    fn channels_last_to_first_is_one_transpose() {
        let mut g = graph(vec![4, 5, 3], vec![1, 4, 5, 3]);
        let Value::Vector { shape, .. } = transpose(&mut g, &node(Some(&[0, 3, 1, 2]))).unwrap() else { panic!() };
        assert_eq!(shape, [1, 3, 4, 5]);
        assert_eq!(g.steps, [Step::Transpose { perm: vec![2, 0, 1], output: vec![3, 4, 5] }]);
        assert_eq!(g.tensor, [3, 4, 5]);
    }

    #[test]
    fn moving_axes_of_one_is_a_reshape_or_nothing() {
        // (1, 4, 5, 1) to (1, 1, 4, 5): the same order, a channel axis of 1 moved.
        let mut g = graph(vec![4, 5, 1], vec![1, 4, 5, 1]);
        transpose(&mut g, &node(Some(&[0, 3, 1, 2]))).unwrap();
        assert_eq!(g.steps, [Step::Reshape(vec![1, 4, 5])]);
        let mut g = graph(vec![6], vec![1, 6]);
        transpose(&mut g, &node(Some(&[1, 0]))).unwrap();
        assert!(g.steps.is_empty(), "a vector stays the vector: {:?}", g.steps);
    }

    #[test]
    fn a_vector_is_shaped_before_it_is_transposed_and_perm_defaults_to_reversed() {
        let mut g = graph(vec![6], vec![2, 3]);
        let Value::Vector { shape, .. } = transpose(&mut g, &node(None)).unwrap() else { panic!() };
        assert_eq!(shape, [3, 2]);
        assert_eq!(g.steps, [Step::Reshape(vec![2, 3]), Step::Transpose { perm: vec![1, 0], output: vec![3, 2] }]);
    }

    #[test]
    fn perm_must_be_a_permutation() {
        for perm in [&[0, 0][..], &[0, 2], &[0], &[1, 0, 2]] {
            let mut g = graph(vec![2, 3], vec![2, 3]);
            let message = transpose(&mut g, &node(Some(perm))).unwrap_err();
            assert!(message.contains("is not a permutation of the 2 axes"), "{perm:?}: {message}");
        }
    }
}
