//! One error type from source to output: [`KnnError`]. Every way knn can fail to give a value
//! — a file it cannot read, a flag or input it cannot use, a program that does not parse or
//! check, a run-time error of the program, a limit — is one `KnnError`, which says what went
//! wrong ([`Failure`]), where ([`Place`], and the source spans behind it), and whose fault it is
//! ([`Fault`]); the exit code follows from the failure (docs/cli.md, "Exit codes").

use std::fmt;
use std::io::IsTerminal;
use std::sync::Arc;

use knn_semantics::engine::Limit;
use knn_semantics::errors::ErrorKind;
use knn_semantics::memory::TooLarge;
use knn_semantics::syntax::Span;
use knn_semantics::syntax::diagnostic::{escape_controls, render_report};

use super::exit::Exit;
use super::source::{Place, Source};

/// Static errors rendered in full; the rest are counted (a program with thousands of mistakes
/// gets a screenful, not a report per mistake).
pub const MAX_DIAGNOSTICS: usize = 50;

/// The bytes of diagnostics printed for one error: reports are added while they fit, the rest
/// counted. With the windows and clipped texts of `render_report` (a report takes at most a
/// few kilobytes), the whole of standard error stays under 64 KiB whatever the program
/// (docs/cli.md, "Errors").
pub const DIAGNOSTIC_BYTES: usize = 48 * 1024;

/// The characters of a one-line error message shown (it may quote an argument or a file's
/// text of any length).
const MAX_MESSAGE_CHARS: usize = 4096;

/// `message` cut to [`MAX_MESSAGE_CHARS`] characters, ending with `…` when cut.
fn clip_message(message: &str) -> std::borrow::Cow<'_, str> {
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => std::borrow::Cow::Borrowed(message),
        Some((at, _)) => std::borrow::Cow::Owned(format!("{}…", &message[..at])),
    }
}

/// What went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A file could not be read or written.
    Io,
    /// A flag, an argument or an input that knn cannot use as given.
    Usage,
    /// A network file that is not a model knn can import.
    Import,
    /// The program does not parse.
    Parse,
    /// The program parses but fails the static checks.
    Static,
    /// The program's run-time error: a `knnError(…)` of the revised rules.
    Runtime(ErrorKind),
    /// krun would abort (published rules only).
    Aborted,
    /// A bound was reached: steps, states or memory on the small-step engine (which one, when
    /// known), the memory budget elsewhere, time.
    Limit(Option<Limit>),
}

/// Whose fault a failure is. (knn's own faults are bugs: a panic, never a [`KnnError`].)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Whoever called knn: a missing file, a malformed flag or input.
    Caller,
    /// The program (or network) itself: a syntax, static or run-time error.
    Program,
    /// A bound, set by the user or by default, was reached: more steps, memory or time might
    /// give an answer.
    Limit,
}

/// One located message inside a source text, rendered like a compiler's.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub span: Span,
    pub message: String,
    /// What is under the marker (`expected an expression`, the K error string).
    pub label: String,
    pub hint: Option<String>,
}

/// Any failure of knn, with what, where and whose fault: an [`ErrorData`] behind a box, so
/// that a `Result` carrying one stays two words wide on the happy path.
#[derive(Clone, Debug)]
pub struct KnnError(Box<ErrorData>);

impl std::ops::Deref for KnnError {
    type Target = ErrorData;
    fn deref(&self) -> &ErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for KnnError {
    fn deref_mut(&mut self) -> &mut ErrorData {
        &mut self.0
    }
}

/// What a [`KnnError`] says.
#[derive(Clone, Debug)]
pub struct ErrorData {
    pub failure: Failure,
    /// One line, without `error:`.
    pub message: String,
    /// Where, when the failure has a place: the first diagnostic's.
    pub place: Option<Place>,
    /// The located messages (a parse error has one, a static check as many as it found, up to
    /// [`MAX_DIAGNOSTICS`]).
    pub diagnostics: Vec<Diagnostic>,
    /// How many diagnostics there were in all (more than are kept when capped).
    pub diagnostic_count: usize,
    /// The memory that was asked for, for a memory limit.
    pub too_large: Option<TooLarge>,
    source: Option<Arc<Source>>,
}

impl KnnError {
    /// A failure without a place.
    pub fn new(failure: Failure, message: impl Into<String>) -> KnnError {
        KnnError(Box::new(ErrorData {
            failure,
            message: message.into(),
            place: None,
            diagnostics: Vec::new(),
            diagnostic_count: 0,
            too_large: None,
            source: None,
        }))
    }

    pub fn usage(message: impl Into<String>) -> KnnError {
        KnnError::new(Failure::Usage, message)
    }

    /// A memory budget exceeded by `what` (`the JSON report`).
    pub fn memory(what: &str, too_large: TooLarge) -> KnnError {
        let mut error = KnnError::new(Failure::Limit(Some(Limit::Memory(too_large))), format!("{what} {too_large}"));
        error.too_large = Some(too_large);
        error
    }

    /// A failure located in `source` by diagnostics (at least one); the place is the first's.
    pub fn located(failure: Failure, source: &Arc<Source>, diagnostics: Vec<Diagnostic>, count: usize) -> KnnError {
        let first = diagnostics.first().map(|d| (d.message.clone(), d.span));
        let mut error = KnnError::new(failure, first.as_ref().map(|(m, _)| m.clone()).unwrap_or_default());
        if let Some((_, span)) = first {
            error.place = Some(source.place(span));
        }
        error.diagnostics = diagnostics;
        error.diagnostic_count = count;
        error.source = Some(source.clone());
        error
    }

    /// The program's run-time error `kind` at `span` of `source`.
    pub fn runtime(kind: ErrorKind, detail: &str, span: Span, source: &Arc<Source>) -> KnnError {
        let diagnostic =
            Diagnostic { span, message: format!("{detail} [{kind}]"), label: kind.k_message().to_string(), hint: None };
        let mut error = KnnError::located(Failure::Runtime(kind), source, vec![diagnostic], 1);
        error.message = detail.to_string();
        error
    }

    /// Whose fault it is.
    pub fn fault(&self) -> Fault {
        match self.failure {
            Failure::Io | Failure::Usage => Fault::Caller,
            // The big-step engine meets the memory budget where it allocates, as a run-time
            // error; it is knn's bound all the same.
            Failure::Runtime(ErrorKind::MemoryLimit) | Failure::Limit(_) => Fault::Limit,
            Failure::Import | Failure::Parse | Failure::Static | Failure::Runtime(_) | Failure::Aborted => {
                Fault::Program
            }
        }
    }

    /// The exit code (docs/cli.md): 1 usage or I/O, 2 parse or static, 3 a run-time error, 4 a
    /// limit.
    pub fn exit_code(&self) -> u8 {
        self.exit().code()
    }

    /// The exit ([`Exit`]) whose code [`KnnError::exit_code`] gives.
    pub fn exit(&self) -> Exit {
        match self.failure {
            Failure::Io | Failure::Usage | Failure::Import => Exit::Usage,
            Failure::Parse | Failure::Static => Exit::Parse,
            Failure::Runtime(ErrorKind::MemoryLimit) | Failure::Limit(_) => Exit::Limit,
            Failure::Runtime(_) | Failure::Aborted => Exit::NoValue,
        }
    }

    /// The source the diagnostics point into.
    pub fn source(&self) -> Option<&Source> {
        self.source.as_deref()
    }

    /// The error as knn prints it on standard error, ending with a newline: every diagnostic
    /// with its source line (`color` for a terminal), then a count of those not kept; or one
    /// line, `error: …` (`limit: …` for a limit).
    pub fn render(&self, color: bool) -> String {
        match &self.source {
            Some(source) if !self.diagnostics.is_empty() => {
                let mut out = String::new();
                let mut shown = 0;
                for d in &self.diagnostics {
                    let report = render_report(
                        &source.name,
                        &source.text,
                        d.span,
                        &d.message,
                        &d.label,
                        d.hint.as_deref(),
                        color,
                    );
                    // The first is always shown; the others while they fit.
                    if shown > 0 && out.len() + report.len() > DIAGNOSTIC_BYTES {
                        break;
                    }
                    out.push_str(&report);
                    shown += 1;
                }
                let count = self.diagnostic_count.max(self.diagnostics.len());
                if count > shown {
                    out.push_str(&format!("… and {} more errors ({count} in all)\n", count - shown));
                }
                out
            }
            _ => {
                let level = if matches!(self.failure, Failure::Limit(_)) { "limit" } else { "error" };
                format!("{level}: {}\n", clip_message(&escape_controls(&self.message)))
            }
        }
    }

    /// [`KnnError::render`] for standard error: in colour when it is a terminal.
    pub fn render_for_stderr(&self) -> String {
        self.render(std::io::stderr().is_terminal())
    }
}

impl fmt::Display for KnnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.place {
            Some(place) => write!(f, "{place}: {}", self.message),
            None => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for KnnError {}
