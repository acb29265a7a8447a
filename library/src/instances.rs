//! VNN-COMP instance lists: `network,property,timeout` per line (paths relative to the list's
//! folder, or a root given), blank lines and `#` comments skipped. Read by `knn verify
//! --instances` and by the Python package's `knn.dask.verify_instances`.

use std::path::Path;
use std::time::{Duration, Instant};

use super::error::{Failure, KnnError};
use super::program::load;
use super::verify::{VerifyOptions, read_property};
use knn_verify::Bounds;
use knn_verify::Question;

/// One line of an instance list.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// The network's path, as written (relative to the root).
    pub network: String,
    /// The VNN-LIB property's path, as written.
    pub property: String,
    pub timeout: Duration,
}

/// Reads an instance list; a malformed line is a usage error naming `file:line`.
pub fn read_instances(list: &Path) -> Result<Vec<Instance>, KnnError> {
    let text = std::fs::read_to_string(list)
        .map_err(|e| KnnError::new(Failure::Io, format!("cannot read {}: {e}", list.display())))?;
    let mut instances = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = format!("{}:{}", list.display(), number + 1);
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [network, property, timeout] = fields.as_slice() else {
            return Err(KnnError::usage(format!("{at}: expected network,property,timeout")));
        };
        let seconds: f64 = timeout
            .parse()
            .ok()
            .filter(|t: &f64| *t > 0.0 && *t <= 1e9)
            .ok_or_else(|| KnnError::usage(format!("{at}: `{timeout}` is not a timeout in seconds")))?;
        instances.push(Instance {
            network: network.to_string(),
            property: property.to_string(),
            timeout: Duration::from_secs_f64(seconds),
        });
    }
    Ok(instances)
}

impl Instance {
    /// Verifies the instance, its paths taken relative to `root`, within `timeout` (the
    /// list's own when `None`) on `threads` workers: the report, or why it could not be run.
    pub fn verify(
        &self,
        root: &Path,
        timeout: Option<Duration>,
        threads: Option<usize>,
    ) -> Result<super::Verification, KnnError> {
        self.verify_with(root, timeout, threads, Bounds::AsWritten)
    }

    /// [`Instance::verify`], the property's bounds read as `bounds` says (`--bounds`).
    pub fn verify_with(
        &self,
        root: &Path,
        timeout: Option<Duration>,
        threads: Option<usize>,
        bounds: Bounds,
    ) -> Result<super::Verification, KnnError> {
        // The timeout counts reading the property and loading the network (as a VNN-COMP
        // harness counts them).
        let started = Instant::now();
        let property = read_property(&root.join(&self.property))?;
        let program = load(root.join(&self.network))?;
        let options = VerifyOptions { started: Some(started), bounds, ..self.options(timeout, threads) };
        program.verify(&Question::Property(property), options)
    }

    /// The options [`Instance::verify`] verifies with: `timeout`, or the list's own.
    pub fn options(&self, timeout: Option<Duration>, threads: Option<usize>) -> VerifyOptions<'static> {
        VerifyOptions { timeout: Some(timeout.unwrap_or(self.timeout)), threads, ..VerifyOptions::default() }
    }
}
