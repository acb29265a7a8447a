//! The memory budget (`knn --max-memory BYTES`, docs/cli.md): every allocation whose size a
//! program or an input file controls (a tensor, a store, a report, a model's weights) is
//! checked against it *before* it is made, so that a size too large for the machine is an error
//! naming the size asked for (exit code 4), never an abort of the process by the allocator.
//!
//! The budget is process-wide, like a resource limit (`ulimit -v`): it is set once by the command
//! line and read by every engine and reader, which would otherwise each need it threaded through.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// 0 until the command line sets a budget: then [`default_budget`] applies.
static BUDGET: AtomicU64 = AtomicU64::new(0);

/// How every memory-limit message ends: callers that only see the message text (an `--input`
/// error) recognise a limit by it.
pub const MEMORY_LIMIT_HINT: &str = "raise it with --max-memory BYTES";

/// The budget when `/proc/meminfo` cannot be read (not Linux, or a sandbox): 4 GiB.
pub const FALLBACK_BUDGET: u64 = 4 << 30;

/// Sets the process's budget in bytes (0 restores the default).
pub fn set_budget(bytes: u64) {
    BUDGET.store(bytes, Ordering::Relaxed);
}

/// The process's budget in bytes.
pub fn budget() -> u64 {
    match BUDGET.load(Ordering::Relaxed) {
        0 => default_budget(),
        bytes => bytes,
    }
}

/// Half of the memory knn may have, read once: the physical memory (`MemTotal` of
/// `/proc/meminfo`), or less when the process is held to less: its address-space limit
/// (`ulimit -v`, `/proc/self/limits`) or its control group's (`memory.max`). Half, because knn
/// shares the machine, and an estimate of a size is not the size: the allocator's overhead and
/// the program's other data come on top. [`FALLBACK_BUDGET`] when none can be read.
pub fn default_budget() -> u64 {
    static DEFAULT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *DEFAULT.get_or_init(|| {
        let read = |path: &str| std::fs::read_to_string(path).ok();
        let limits = [
            read("/proc/meminfo").and_then(|t| mem_total(&t)),
            read("/proc/self/limits").and_then(|t| address_space_limit(&t)),
            read("/sys/fs/cgroup/memory.max").and_then(|t| t.trim().parse::<u64>().ok()),
        ];
        limits.into_iter().flatten().min().map_or(FALLBACK_BUDGET, |b| b / 2)
    })
}

/// `Max address space  2048000000  2048000000  bytes`: the soft limit, `None` when unlimited.
fn address_space_limit(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..].split_whitespace().next()?.parse().ok()
}

/// `MemTotal:  24684092 kB` in bytes.
fn mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line["MemTotal:".len()..].split_whitespace();
    let amount: u64 = words.next()?.parse().ok()?;
    let unit = match words.next() {
        Some("kB") => 1024,
        None => 1,
        Some(_) => return None,
    };
    amount.checked_mul(unit).filter(|&b| b > 0)
}

/// A size over the budget: what was asked for (`None`: more than 2^64 bytes) and the budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    pub asked: Option<u64>,
    pub budget: u64,
    /// What needs it (`the store`, `the trace`), when the checker knows; else empty.
    pub what: &'static str,
}

impl TooLarge {
    /// The same, saying what needs the memory.
    pub fn of(self, what: &'static str) -> TooLarge {
        TooLarge { what, ..self }
    }
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.what.is_empty() {
            write!(f, "{} ", self.what)?;
        }
        match self.asked {
            Some(bytes) => write!(f, "needs {} of memory", size_text(bytes))?,
            None => f.write_str("needs more than 2^64 bytes of memory")?,
        }
        write!(f, ", over the limit of {} ({MEMORY_LIMIT_HINT})", size_text(self.budget))
    }
}

/// `123 bytes`, `800000008 bytes (763 MiB)`: the exact figure, and a readable one when large.
pub fn size_text(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    match UNITS.iter().find(|(unit, _)| bytes >= *unit) {
        Some((unit, name)) => format!("{bytes} bytes ({:.1} {name})", bytes as f64 / *unit as f64),
        None => format!("{bytes} bytes"),
    }
}

/// `count × each` bytes, `None` when it overflows 64 bits (a user-controlled count).
pub fn bytes_for(count: u64, each: usize) -> Option<u64> {
    count.checked_mul(each as u64)
}

/// Checks a size against the process's budget.
pub fn check(asked: Option<u64>) -> Result<(), TooLarge> {
    check_against(asked, budget())
}

/// Checks a size against `budget` (`None`: the size overflowed while it was computed).
pub fn check_against(asked: Option<u64>, budget: u64) -> Result<(), TooLarge> {
    match asked {
        Some(bytes) if bytes <= budget => Ok(()),
        _ => Err(TooLarge { asked, budget, what: "" }),
    }
}

/// Parses `--max-memory`: a number of bytes, optionally with a binary suffix `K`, `M`, `G`, `T`
/// (`KiB`… and `KB`… are read the same: powers of 1024).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits);
    let shift = match suffix.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => return Err(format!("`{text}` is not a size: write a number of bytes, or one with K, M, G or T (`512M`)")),
    };
    let n: u64 = number.parse().map_err(|_| format!("`{text}` is not a size: it must start with a whole number"))?;
    let bytes = n.checked_mul(1 << shift).ok_or_else(|| format!("`{text}` is more than 2^64 bytes"))?;
    if bytes == 0 {
        return Err("the memory limit must be more than 0 bytes".to_string());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("512M"), Ok(512 * 1024 * 1024));
        assert_eq!(parse_size("2GiB"), Ok(2 * 1024 * 1024 * 1024));
        assert_eq!(parse_size("3k"), Ok(3072));
        assert!(parse_size("0").unwrap_err().contains("more than 0"));
        assert!(parse_size("1.5G").unwrap_err().contains("not a size"));
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
        assert!(parse_size("M").unwrap_err().contains("whole number"));
        assert!(parse_size("99999999999T").unwrap_err().contains("2^64"));
    }

    #[test]
    fn meminfo_total_is_read_in_bytes() {
        let text = "MemTotal:       24684092 kB\nMemFree:        21549504 kB\n";
        assert_eq!(mem_total(text), Some(24_684_092 * 1024));
        assert_eq!(mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(mem_total("MemTotal: lots kB\n"), None);
    }

    #[test]
    fn the_address_space_limit_is_read_when_there_is_one() {
        let limited = "Max stack size            8388608              unlimited            bytes\n\
                       Max address space         2048000000           2048000000           bytes\n";
        assert_eq!(address_space_limit(limited), Some(2_048_000_000));
        let unlimited = "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(address_space_limit(unlimited), None);
    }

    #[test]
    fn a_size_over_the_budget_says_how_much_was_asked() {
        assert_eq!(check_against(Some(100), 100), Ok(()));
        let over = check_against(Some(101), 100).unwrap_err();
        assert_eq!(over, TooLarge { asked: Some(101), budget: 100, what: "" });
        assert!(over.of("the store").to_string().starts_with("the store needs 101 bytes"));
        assert_eq!(
            over.to_string(),
            "needs 101 bytes of memory, over the limit of 100 bytes (raise it with --max-memory BYTES)"
        );
        let overflow = check_against(bytes_for(u64::MAX, 8), u64::MAX).unwrap_err();
        assert!(overflow.to_string().starts_with("needs more than 2^64 bytes"), "{overflow}");
        assert_eq!(size_text(800_000_008), "800000008 bytes (762.9 MiB)");
    }
}
