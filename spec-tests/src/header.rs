//! The header of a corpus program: the `//` comment lines before its first line of code.
//!
//! A line `// KEY: VALUE` whose key is one of the directives below is a directive; any other
//! comment line is prose (a misspelt `// expect…:` is an error). Directives:
//!
//! | directive | meaning |
//! | --- | --- |
//! | `// input: NAME=VALUE` | binds a tensor before the program runs (`knn run --input` syntax: `x=[1.0, 2.0]`, `W=[[1, 2], [3, 4]]`); repeatable |
//! | `// semantics: published` | runs the program under that profile only (`published` or `revised`); default both |
//! | `// case: §3(a)` | the case of docs/semantics.md §3's table the program shows (a §3 quirk or its §4 effect); repeatable, comma-separated |
//! | `// expect: V` | the outcome under both profiles |
//! | `// expect published: V`, `// expect revised: V` | the outcome under one profile |
//! | `// max-states: N` | the state budget of `search` (default [`DEFAULT_MAX_STATES`]) |
//! | `// note: …` | prose |
//!
//! An expected outcome `V` is written as [`crate::run::summary`] prints outcomes: a value
//! (`-2.0`, `1`, `tensor ( 1 , 2 ) [0.0, 1.5]`), `empty`, `stuck` or `stuck TERM` (krun syntax), `error KIND`,
//! `aborted`, or `parse-error`. It is derived by hand from the rules, not from the engine: the
//! test fails when the engine disagrees.
//!
//! `differential/tests/regressions.rs` reads the `// input:` lines of `regressions/` with the
//! same syntax.

/// The default state budget of `search`.
pub const DEFAULT_MAX_STATES: usize = 3_000;

/// Which profiles run the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Only {
    Both,
    Published,
    Revised,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// `NAME=VALUE`, as written.
    pub inputs: Vec<String>,
    pub only: Only,
    pub cases: Vec<String>,
    pub expect_published: Option<String>,
    pub expect_revised: Option<String>,
    pub max_states: usize,
}

impl Header {
    pub fn parse(source: &str) -> Result<Header, String> {
        let mut header = Header {
            inputs: Vec::new(),
            only: Only::Both,
            cases: Vec::new(),
            expect_published: None,
            expect_revised: None,
            max_states: DEFAULT_MAX_STATES,
        };
        for line in source.lines().map(str::trim).take_while(|l| l.starts_with("//")) {
            let Some((key, value)) = directive(line) else {
                continue;
            };
            let value = value.trim().to_string();
            match key {
                "input" => header.inputs.push(value),
                "semantics" => {
                    header.only = match value.as_str() {
                        "published" => Only::Published,
                        "revised" => Only::Revised,
                        other => return Err(format!("`// semantics: {other}`: expected published or revised")),
                    }
                }
                "case" => header.cases.extend(value.split(',').map(|c| c.trim().to_string())),
                "expect" => {
                    header.expect_published = Some(value.clone());
                    header.expect_revised = Some(value);
                }
                "expect published" => header.expect_published = Some(value),
                "expect revised" => header.expect_revised = Some(value),
                "max-states" => {
                    header.max_states = value.parse().map_err(|_| format!("`// max-states: {value}`: not a number"))?
                }
                "note" => {}
                other if other.starts_with("expect") => {
                    return Err(format!("unknown header directive `// {other}:`"));
                }
                _ => {}
            }
        }
        Ok(header)
    }

    /// Whether the program runs under the profile named `profile`.
    pub fn runs_under(&self, profile: &str) -> bool {
        match self.only {
            Only::Both => true,
            Only::Published => profile == "published",
            Only::Revised => profile == "revised",
        }
    }

    /// The expected outcome under the profile named `profile`, if the header states one.
    pub fn expectation(&self, profile: &str) -> Option<&str> {
        match profile {
            "published" => self.expect_published.as_deref(),
            _ => self.expect_revised.as_deref(),
        }
    }
}

/// `// KEY: VALUE` with KEY one or two words of lower-case letters and dashes.
fn directive(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_prefix("//")?.trim_start();
    let (key, value) = rest.split_once(':')?;
    let words: Vec<&str> = key.split(' ').collect();
    let is_word = |w: &&str| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '-');
    (words.len() <= 2 && words.iter().all(is_word)).then_some((key, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_and_prose() {
        let source = "// Found by the differential tests (seed 5):\n// note: anything\n\
                      // input: x=[1.0, 2.0]\n// input: W=[[1, 2]]\n// case: §3(a), §4(a)\n\
                      // expect published: -2.0\n// expect revised: 0.0\n// max-states: 10\nx[0]\n// input: y=[1]\n";
        let header = Header::parse(source).unwrap();
        assert_eq!(header.inputs, vec!["x=[1.0, 2.0]", "W=[[1, 2]]"]);
        assert_eq!(header.cases, vec!["§3(a)", "§4(a)"]);
        assert_eq!(header.expectation("published"), Some("-2.0"));
        assert_eq!(header.expectation("revised"), Some("0.0"));
        assert_eq!(header.max_states, 10);
        assert!(header.runs_under("published") && header.runs_under("revised"));
    }

    #[test]
    fn one_profile_and_errors() {
        let header = Header::parse("// semantics: published\n// expect: empty\n0").unwrap();
        assert!(header.runs_under("published") && !header.runs_under("revised"));
        assert_eq!(header.expectation("revised"), Some("empty"));
        assert!(Header::parse("// semantics: both\n0").unwrap_err().contains("published or revised"));
        assert!(Header::parse("// expected: 1.0\n0").unwrap_err().contains("unknown header directive"));
        assert_eq!(Header::parse("// max-left: the rule\n0").unwrap().expectation("published"), None);
        assert!(Header::parse("// max-states: many\n0").is_err());
    }
}
