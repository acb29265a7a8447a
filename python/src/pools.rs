//! Worker threads: rayon's global pool by default, or a pool of `threads` workers, built once
//! per size and kept (building one costs more than a small call).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use knn::KnnError;
use rayon::ThreadPool;

fn pools() -> &'static Mutex<HashMap<usize, Arc<ThreadPool>>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<ThreadPool>>>> = OnceLock::new();
    POOLS.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Refuses a number of threads outside the library's bound, in the words of `threads=`.
pub fn check_threads(threads: Option<usize>) -> Result<(), KnnError> {
    match threads {
        Some(n) => knn::check_threads(n).map_err(|e| KnnError::usage(format!("threads={n}: {e}"))),
        None => Ok(()),
    }
}

/// Runs `work` on the pool of `threads` workers (rayon's global pool when `None`).
pub fn in_pool<T: Send>(threads: Option<usize>, work: impl FnOnce() -> T + Send) -> Result<T, KnnError> {
    check_threads(threads)?;
    let Some(n) = threads else { return Ok(work()) };
    let pool = {
        let mut pools = pools().lock().unwrap_or_else(|e| e.into_inner());
        match pools.get(&n) {
            Some(pool) => pool.clone(),
            None => {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .build()
                    .map_err(|e| KnnError::usage(format!("cannot start {n} threads: {e}")))?;
                let pool = Arc::new(pool);
                pools.insert(n, pool.clone());
                pool
            }
        }
    };
    Ok(pool.install(work))
}
