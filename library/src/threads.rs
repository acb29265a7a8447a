//! The library's worker threads: how many a caller may ask for. They get the stack the platform
//! gives a thread nobody sized (2 MiB): nothing in knn recurses on the depth of a program.

/// The most worker threads a call may ask for (`--threads`, `threads=`): more than any machine
/// knn runs on has cores, and few enough that a pool starts at once.
pub const MAX_THREADS: usize = 4096;

/// Refuses a number of threads outside 1 to [`MAX_THREADS`]; the caller names the option.
///
/// ```
/// assert_eq!(knn::check_threads(0).unwrap_err(), "expected 1 to 4096");
/// assert!(knn::check_threads(2).is_ok());
/// ```
pub fn check_threads(threads: usize) -> Result<(), String> {
    if (1..=MAX_THREADS).contains(&threads) { Ok(()) } else { Err(format!("expected 1 to {MAX_THREADS}")) }
}
