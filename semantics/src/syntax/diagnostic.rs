//! Syntax errors with a source span, rendered like a compiler's: `file:line:col`, the line,
//! a caret under the offending text, what was expected, and a hint where one helps.

use std::fmt;

use ariadne::{CharSet, Config, IndexType, Label, Report, ReportKind, Source};

use super::ast::Span;

mod excerpt;
use excerpt::clip;
pub use excerpt::{ELLIPSIS, MAX_LINE_CHARS, MAX_TEXT_CHARS, WINDOW_CHARS};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub span: Span,
    pub message: String,
    /// What the parser would have accepted here (`` `in` ``, "an expression", …).
    pub expected: Vec<String>,
    pub hint: Option<String>,
}

impl SyntaxError {
    pub fn new(span: Span, message: impl Into<String>) -> SyntaxError {
        SyntaxError { span, message: message.into(), expected: Vec::new(), hint: None }
    }

    pub fn expected<I, S>(mut self, what: I) -> SyntaxError
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.expected = what.into_iter().map(Into::into).collect();
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> SyntaxError {
        self.hint = Some(hint.into());
        self
    }

    /// `expected a or b`, or the empty string.
    pub fn expected_text(&self) -> String {
        match self.expected.as_slice() {
            [] => String::new(),
            [one] => format!("expected {one}"),
            [init @ .., last] => format!("expected {} or {last}", init.join(", ")),
        }
    }

    /// 1-based line and column (in characters) of the start of the span.
    pub fn line_col(&self, source: &str) -> (usize, usize) {
        line_col(source, self.span.start as usize)
    }

    /// The error as a compiler-style report for a terminal (`color`) or a file.
    pub fn render(&self, path: &str, source: &str, color: bool) -> String {
        let label = match self.expected_text() {
            e if !e.is_empty() => e,
            _ => "here".to_string(),
        };
        render_report(path, source, self.span, &self.message, &label, self.hint.as_deref(), color)
    }
}

/// A report `path:line:col: message` with the source line, a marker under `span` labelled
/// `label`, and an optional help line (syntax errors and run-time errors alike).
pub fn render_report(
    path: &str,
    source: &str,
    span: Span,
    message: &str,
    label: &str,
    hint: Option<&str>,
    color: bool,
) -> String {
    let (line, col) = line_col(source, span.start as usize);
    // Text from the input is shown as text: an escape sequence in a program (or its name) must
    // not drive the reader's terminal. What quotes the input is cut to a bounded length.
    let path = &*escape_controls(path);
    let (message, label) = (clip(escape_controls(message)), clip(escape_controls(label)));
    let hint = hint.map(|hint| clip(escape_controls(hint)));
    let source = &*blank_controls(source);
    let range = clamp_range(span, source);
    let message = format!("{path}:{line}:{col}: {message}");
    let window = excerpt::window(source, range.clone());
    let (shown, range) = match &window {
        Some(window) => (window.source.as_str(), window.range.clone()),
        None => (source, range),
    };
    let mut report = Report::build(ReportKind::Error, (path, range.clone()))
        .with_config(
            Config::default()
                .with_color(color)
                .with_char_set(if color { CharSet::Unicode } else { CharSet::Ascii })
                .with_index_type(IndexType::Byte),
        )
        .with_message(&message)
        .with_label(Label::new((path, range)).with_message(label));
    if let Some(hint) = &hint {
        report = report.with_help(hint);
    }
    let mut out = Vec::new();
    // Writing into a Vec cannot fail; an error here would be a bug in ariadne.
    if report.finish().write((path, Source::from(shown)), &mut out).is_err() {
        return format!("error: {message}\n");
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    match window {
        Some(window) => put_column_right(text, &message, path, &window),
        None => text,
    }
}

/// A windowed report with the column of its header (`,-[ path:line:col ]`, after the message)
/// the column in the whole line, not in the window.
fn put_column_right(text: String, message: &str, path: &str, window: &excerpt::Window) -> String {
    let shown = format!(" {path}:{}:{} ", window.line, window.window_column);
    let after_message = text.find(message).map_or(0, |at| at + message.len());
    match text[after_message..].find(&shown) {
        Some(at) => {
            let at = after_message + at;
            let right = format!(" {path}:{}:{} ", window.line, window.column);
            format!("{}{right}{}", &text[..at], &text[at + shown.len()..])
        }
        None => text,
    }
}

/// Whether a character would act on a terminal instead of showing: C0 and C1 controls and DEL,
/// but for the line breaks and tabs that text is made of.
fn is_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// `text` with every control character written as an escape (`\u{1b}`): for messages and names
/// taken from input files.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars().map(|c| if is_control(c) { c.escape_unicode().to_string() } else { c.to_string() }).collect(),
    )
}

/// `source` with every control character replaced by `?` bytes, one per byte: the byte offsets
/// of spans stay valid, and the shown line cannot drive the terminal.
fn blank_controls(source: &str) -> std::borrow::Cow<'_, str> {
    if !source.chars().any(is_control) {
        return std::borrow::Cow::Borrowed(source);
    }
    std::borrow::Cow::Owned(
        // `\r` stays: ariadne reads `\r\n` as a line break.
        source
            .chars()
            .map(|c| if is_control(c) && c != '\r' { "?".repeat(c.len_utf8()) } else { c.to_string() })
            .collect(),
    )
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message)?;
        let expected = self.expected_text();
        if !expected.is_empty() {
            write!(f, " ({expected})")?;
        }
        Ok(())
    }
}

impl std::error::Error for SyntaxError {}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..floor_char_boundary(source, offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// An end-of-input error points just past the text; ariadne wants a range inside it.
fn clamp_range(span: Span, source: &str) -> std::ops::Range<usize> {
    let start = floor_char_boundary(source, (span.start as usize).min(source.len()));
    let end = floor_char_boundary(source, (span.end as usize).min(source.len())).max(start);
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("ab\ncd", 99), (2, 3));
    }

    #[test]
    fn rendering_names_file_line_column_and_expectation() {
        let source = "let x = 1.0\nx";
        let err = SyntaxError::new(Span::new(12, 13), "unexpected identifier")
            .expected(["`in`"])
            .hint("a let needs `in` before its body");
        let text = err.render("prog.knn", source, false);
        assert!(text.contains("prog.knn:2:1: unexpected identifier"), "{text}");
        assert!(text.contains("expected `in`"), "{text}");
        assert!(text.contains("a let needs `in`"), "{text}");
        assert!(text.contains("^") || text.contains("|"), "{text}");
    }
}
