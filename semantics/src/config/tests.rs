//! Unit tests of the configuration (`config/mod.rs`), in a file of their own to keep it short.

use super::*;

fn hash_of(store: &Store) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    store.hash(&mut hasher);
    hasher.finish()
}

#[test]
fn a_store_hashes_by_its_cells_however_they_were_written() {
    let span = Span::default();
    let mut a = Store::default();
    let mut b = Store::default();
    for k in 0..100 {
        a.push(Term::float(k as f64, span));
        b.push(Term::float(0.0, span));
    }
    for k in 0..100 {
        b.set(k, Term::float(k as f64, span));
    }
    assert!(a == b && hash_of(&a) == hash_of(&b));
    let before = hash_of(&a);
    a.set(7, Term::float(-1.0, span));
    assert!(a != b && hash_of(&a) != before);
    a.set(7, Term::float(7.0, span));
    assert!(a == b && hash_of(&a) == before, "a write undone restores the digest");
    // The same values at other places are another store.
    let mut swapped = b.clone();
    swapped.set(0, Term::float(1.0, span));
    swapped.set(1, Term::float(0.0, span));
    assert!(swapped != b && hash_of(&swapped) != hash_of(&b));
}

#[test]
fn hashing_a_store_does_not_read_its_cells() {
    // `search` hashes a configuration per state: on a store of a million cells, reading
    // every cell took milliseconds per hash (402 s for one search, issue 15).
    let mut store = Store::default();
    for k in 0..1_000_000 {
        store.push(Term::float(k as f64, Span::default()));
    }
    let started = std::time::Instant::now();
    let mut sum = 0u64;
    for _ in 0..10_000 {
        sum = sum.wrapping_add(hash_of(&store));
    }
    assert_ne!(sum, 0);
    assert!(started.elapsed().as_secs_f64() < 1.0, "10,000 hashes took {:?}", started.elapsed());
}
