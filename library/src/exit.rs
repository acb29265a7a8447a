//! The exit codes of docs/cli.md, defined once: the library's answers and errors give them,
//! the `knn` command exits with them, and the Python package reports them.

/// How a question ended, as a process exit code (docs/cli.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Exit {
    /// A result was reached (a value, or an empty `<k>`); `knn verify`: the claim holds.
    Result = 0,
    /// Usage or I/O error.
    Usage = 1,
    /// Parse or static error.
    Parse = 2,
    /// No value: stuck, or a run-time error.
    NoValue = 3,
    /// A resource limit was hit.
    Limit = 4,
    /// `knn verify`: the property is violated (a counterexample, confirmed on both engines).
    Violated = 10,
    /// `knn verify`: not decided (timeout, limit, unsupported construct).
    Unknown = 11,
    /// Interrupted (SIGINT, SIGTERM): 128 + SIGINT, as an interrupted command exits.
    Interrupted = 130,
}

impl Exit {
    /// The number the process exits with.
    pub fn code(self) -> u8 {
        self as u8
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> std::process::ExitCode {
        std::process::ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::Exit;

    /// The codes of docs/cli.md's table "Exit codes", in order.
    fn documented() -> Vec<u8> {
        let docs = include_str!("../../docs/cli.md");
        let table = docs.split("\n## Exit codes").nth(1).expect("docs/cli.md has a section \"Exit codes\"");
        table.lines().filter_map(|line| line.strip_prefix("| ")?.split(' ').next()?.parse::<u8>().ok()).collect()
    }

    #[test]
    fn every_exit_is_documented_and_every_documented_code_is_an_exit() {
        let all = [
            Exit::Result,
            Exit::Usage,
            Exit::Parse,
            Exit::NoValue,
            Exit::Limit,
            Exit::Violated,
            Exit::Unknown,
            Exit::Interrupted,
        ];
        let codes: Vec<u8> = all.iter().map(|e| e.code()).collect();
        assert_eq!(codes, documented());
    }
}
