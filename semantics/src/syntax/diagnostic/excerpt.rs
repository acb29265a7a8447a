//! How much of the source a diagnostic shows. A report shows the lines its span starts and ends
//! on; a line of an ordinary program is shown whole, as ariadne prints it. A line longer than
//! [`MAX_LINE_CHARS`] (a generated or minified program: 4,000 names on one line, a 10 MB line)
//! is cut to a window of [`WINDOW_CHARS`] characters around the column, with `…` where text was
//! left out, so that a report stays a few hundred bytes whatever the input (docs/cli.md,
//! "Errors"). Messages, labels and hints that quote the input (a name of a million characters)
//! are cut to [`MAX_TEXT_CHARS`].

use std::borrow::Cow;
use std::ops::Range;

/// Lines up to this many characters are shown whole, so the reports of ordinary programs are
/// ariadne's, unchanged: the longest line of the examples and the spec corpus has 266.
pub const MAX_LINE_CHARS: usize = 300;

/// The characters of a longer line shown around the column (the marker's start): with the
/// margin, a wide terminal's line.
pub const WINDOW_CHARS: usize = 160;

/// Of the window, the characters before the column: enough to see the expression the marked
/// text belongs to.
const BEFORE_CHARS: usize = 60;

/// Messages, labels and hints longer than this (in characters) are cut, with `…` at the end.
pub const MAX_TEXT_CHARS: usize = 300;

/// The mark of text left out.
pub const ELLIPSIS: &str = "…";

/// What ariadne reads as line breaks (besides the control characters, which are blanked before
/// rendering): a window is taken inside one of its lines and numbered as it numbers them.
fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// A stand-in source for a report on a long line: the lines before it as empty lines (ariadne
/// numbers the line and sizes the margin as in the whole source), then the window of the line.
pub struct Window {
    pub source: String,
    /// The marked text, in `source`.
    pub range: Range<usize>,
    /// 1-based line and column ariadne would give the span's start in the whole source, and the
    /// column it gives it in the window (its header `path:line:col` is put right with them).
    pub line: usize,
    pub column: usize,
    pub window_column: usize,
}

/// The window to show for `range` of `source` (control characters already blanked), or `None`
/// when the lines shown are short enough to show whole.
pub fn window(source: &str, range: Range<usize>) -> Option<Window> {
    let (start, end) = (range.start, range.end);
    let first = line_around(source, start);
    // The line of the last marked character (of the start, for an empty span).
    let last_char = source[..end].char_indices().next_back().map_or(0, |(b, _)| b).max(start);
    let last = line_around(source, last_char);
    if !is_long(&source[first.clone()]) && !is_long(&source[last]) {
        return None;
    }
    let line = &source[first.clone()];
    let before = &source[first.start..start];
    let column = before.chars().count();
    let marked_end = column + source[start..end.min(first.end).max(start)].chars().count();
    let length = line.chars().count();
    let (from, to) = if length <= MAX_LINE_CHARS {
        // The span ends on a long line; its first line is short and shown whole.
        (0, length)
    } else {
        let to = (column.saturating_sub(BEFORE_CHARS) + WINDOW_CHARS).min(length);
        (to.saturating_sub(WINDOW_CHARS), to)
    };
    let byte = |k: usize| line.char_indices().nth(k).map_or(line.len(), |(b, _)| b);
    let index = line_index(source, first.start);
    let mut text = "\n".repeat(index);
    if from > 0 {
        text.push_str(ELLIPSIS);
    }
    let shown_start = text.len();
    text.push_str(&line[byte(from)..byte(to)]);
    if to < length {
        text.push_str(ELLIPSIS);
    }
    let mark = shown_start + byte(column.min(to)) - byte(from)..shown_start + byte(marked_end.min(to)) - byte(from);
    Some(Window {
        source: text,
        range: mark,
        line: index + 1,
        column: column + 1,
        window_column: usize::from(from > 0) + column.min(to) - from + 1,
    })
}

/// Whether a line is longer than [`MAX_LINE_CHARS`] characters (counted only when its bytes
/// leave a doubt).
fn is_long(line: &str) -> bool {
    line.len() > MAX_LINE_CHARS && (line.len() > 4 * MAX_LINE_CHARS || line.chars().count() > MAX_LINE_CHARS)
}

/// The byte range of the line holding byte `at`, without its line break.
fn line_around(source: &str, at: usize) -> Range<usize> {
    let start = source[..at].rfind(is_break).map_or(0, |b| b + source[b..].chars().next().map_or(1, char::len_utf8));
    let end = source[at..].find(is_break).map_or(source.len(), |b| at + b);
    start..end
}

/// The 0-based index of the line starting at byte `line_start`, as ariadne counts lines (`\r\n`
/// is one break).
fn line_index(source: &str, line_start: usize) -> usize {
    let before = &source[..line_start];
    before.matches(is_break).count() - before.matches("\r\n").count()
}

/// `text` cut to [`MAX_TEXT_CHARS`] characters, ending with `…` when cut.
pub fn clip(text: Cow<'_, str>) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        None => text,
        Some(_) => {
            let keep = text.char_indices().nth(MAX_TEXT_CHARS - 1).map_or(text.len(), |(b, _)| b);
            Cow::Owned(format!("{}{ELLIPSIS}", &text[..keep]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_shown_whole() {
        assert!(window("let x = 1.0 in\ny", 15..16).is_none());
        let long = "a + ".repeat(100);
        // A span on a short line that ends on a long one is windowed.
        let source = format!("(b +\n{long}c)");
        assert!(window(&source, 0..source.len()).is_some());
    }

    #[test]
    fn a_long_line_is_cut_around_the_column() {
        let line: String = (0..4000).map(|k| format!("a{k}")).collect::<Vec<_>>().join(" + ");
        let source = format!("// header\n{line}\n");
        let at = source.find("a2000").unwrap();
        let w = window(&source, at..at + 5).unwrap();
        assert_eq!(&w.source[w.range.clone()], "a2000");
        assert_eq!(w.line, 2);
        assert_eq!(w.column, line.find("a2000").unwrap() + 1);
        assert_eq!(w.window_column, 1 + BEFORE_CHARS + 1);
        let shown = w.source.trim_start_matches('\n');
        assert!(shown.starts_with(ELLIPSIS) && shown.ends_with(ELLIPSIS), "{shown}");
        assert_eq!(shown.chars().count(), WINDOW_CHARS + 2);
        assert_eq!(w.source.len() - shown.len(), 1, "one empty line stands for the line before");
    }

    #[test]
    fn the_ends_of_a_long_line_are_cut_on_one_side_only() {
        let line = "x".repeat(1000);
        let w = window(&line, 0..1).unwrap();
        assert!(!w.source.starts_with(ELLIPSIS) && w.source.ends_with(ELLIPSIS));
        assert_eq!((w.column, w.window_column), (1, 1));
        let w = window(&line, 1000..1000).unwrap();
        assert!(w.source.starts_with(ELLIPSIS) && !w.source.ends_with(ELLIPSIS));
        assert_eq!(w.range, w.source.len()..w.source.len());
        assert_eq!((w.column, w.window_column), (1001, WINDOW_CHARS + 2));
    }

    #[test]
    fn lines_are_counted_as_ariadne_counts_them() {
        let source = format!("a\r\nb\rc\u{2028}d\n{}", "é".repeat(500));
        let at = source.len() - 2;
        let w = window(&source, at..at + 2).unwrap();
        assert_eq!(w.line, 5);
        assert_eq!(w.column, 500);
        assert_eq!(&w.source[w.range.clone()], "é");
    }

    #[test]
    fn long_texts_are_clipped() {
        assert_eq!(clip(Cow::Borrowed("short")), "short");
        let long = "n".repeat(10_000);
        let clipped = clip(Cow::Borrowed(&long));
        assert_eq!(clipped.chars().count(), MAX_TEXT_CHARS);
        assert!(clipped.ends_with(ELLIPSIS));
    }
}
