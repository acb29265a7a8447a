//! The store's literal blocks against the same tensors as cells.

use super::*;

/// The same tensors laid out twice: literals as blocks, and as `alloc` then element writes.
fn both(shapes: &[(&[usize], bool)]) -> (Store, Store) {
    let (mut blocks, mut cells) = (Store::default(), Store::default());
    let mut next = 0.5;
    for &(dims, literal) in shapes {
        if literal {
            let data: Arc<[f64]> = (0..dims.iter().product::<usize>()).map(|k| next + k as f64).collect();
            next += 1000.0;
            let a = blocks.alloc_literal(dims, &data, Span::default()).unwrap();
            let b = cells.alloc(dims, Span::default()).unwrap();
            assert_eq!(a, b, "the same locations");
            for (k, loc) in cells.leaves(b, dims).into_iter().enumerate() {
                cells.set(loc, Cell::Float(data[k]));
            }
        } else {
            assert_eq!(blocks.alloc(dims, Span::default()).unwrap(), cells.alloc(dims, Span::default()).unwrap());
        }
        assert_eq!(blocks.push(Cell::Int(7)), cells.push(Cell::Int(7)));
    }
    (blocks, cells)
}

#[test]
fn blocks_read_and_write_like_cells_in_any_order() {
    let shapes: &[(&[usize], bool)] = &[
        (&[3], false),
        (&[3, 4], true),
        (&[2], false),
        (&[2, 0], true),
        (&[0], true),
        (&[5], true),
        (&[2, 2, 3], true),
        (&[4], false),
    ];
    let (mut blocks, mut cells) = both(shapes);
    let end = cells.next_loc();
    assert_eq!(blocks.next_loc(), end);
    // Forwards, backwards, and strided (alternating between tensors, as `linear` reads).
    let mut order: Vec<usize> = (0..end).chain((0..end).rev()).collect();
    order.extend((0..end).flat_map(|k| [k, end - 1 - k, (k * 7) % end]));
    for &loc in &order {
        assert_eq!(blocks.get(loc), cells.get(loc), "location {loc}");
    }
    // Writes anywhere, blocks included, then every location again.
    for (n, &loc) in order.iter().enumerate().step_by(5) {
        blocks.set(loc, Cell::Float(-(n as f64)));
        cells.set(loc, Cell::Float(-(n as f64)));
    }
    for loc in 0..end {
        assert_eq!(blocks.get(loc), cells.get(loc), "location {loc} after the writes");
    }
    assert!(blocks.cells.len() < cells.cells.len(), "the literals' leaves are not cells");
}

#[test]
fn a_literal_row_is_its_array_until_written() {
    let (mut blocks, _) = both(&[(&[2, 3], true)]);
    // Root at 0 (header and two slots), row 0 at 3 (header, leaves 4..7), row 1 at 7.
    assert_eq!(blocks.literal_run(4, 3), Some(&[0.5, 1.5, 2.5][..]));
    assert_eq!(blocks.literal_run(8, 3), Some(&[3.5, 4.5, 5.5][..]));
    assert_eq!(blocks.literal_run(5, 2), None, "not a whole row");
    blocks.set(9, Cell::Float(0.0));
    assert_eq!(blocks.literal_run(8, 3), None, "a written row is read cell by cell");
    assert_eq!(blocks.literal_run(4, 3), Some(&[0.5, 1.5, 2.5][..]));
}

#[test]
fn the_rows_of_one_literal_are_its_array_and_others_are_not() {
    let (mut blocks, _) = both(&[(&[2, 3], true), (&[3], true)]);
    // As above, row 0's leaves at 4..7 and row 1's at 8..11; the push is at 11, the second
    // literal's header at 12 and its leaves at 13..16.
    let (data, offset) = blocks.literal_rows(&[4, 8], 3).expect("two rows of one literal");
    assert_eq!((&data[offset..offset + 6], offset), (&[0.5, 1.5, 2.5, 3.5, 4.5, 5.5][..], 0));
    let (data, offset) = blocks.literal_rows(&[8], 3).expect("the second row alone");
    assert_eq!(&data[offset..offset + 3], &[3.5, 4.5, 5.5]);
    assert!(blocks.literal_rows(&[8, 4], 3).is_none(), "rows out of order are not a view");
    assert!(blocks.literal_rows(&[4, 4], 3).is_none(), "a row twice is not a view");
    assert!(blocks.literal_rows(&[4, 13], 3).is_none(), "rows of two literals are not one array");
    assert!(blocks.literal_rows(&[5, 9], 2).is_none(), "parts of rows are not rows");
    assert!(blocks.literal_rows(&[], 3).is_none());
    blocks.set(10, Cell::Float(0.0));
    assert!(blocks.literal_rows(&[4, 8], 3).is_none(), "a written row is not the literal's any more");
    assert!(blocks.literal_rows(&[4], 3).is_some(), "the unwritten row still is");
}
