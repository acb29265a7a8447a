//! `knn verify`'s flags read as the command reads them, for code outside the command that must
//! mean by a region what a user's command line means (`fuzzing::verify_exhaustive` holds the
//! verifier's answers to the region the flags describe).

use clap::Parser;

use super::verify::VerifyArgs;
use super::verify_flags::question_of;
use crate::verify::Question;

/// `knn verify NET` with the flags, as clap parses them.
#[derive(Parser)]
struct Command {
    #[command(flatten)]
    verify: VerifyArgs,
}

/// The question that `knn verify NET FLAGS…` asks (`--box`, `--around`, `--eps`, `--clip`,
/// `--claim`, …), read by the command's own parser, and the input the flags name. Flags the
/// command refuses are an error; its message is on standard error, as the command prints it.
pub fn question_from_flags(flags: &[String]) -> Result<(Question, Option<String>), String> {
    let words = ["knn-verify", "NET.knn"].into_iter().map(String::from).chain(flags.iter().cloned());
    let command = Command::try_parse_from(words).map_err(|e| e.to_string())?;
    let asked = question_of(&command.verify.question)
        .map_err(|exit| format!("knn verify refuses {flags:?} (exit code {})", exit as u8))?;
    Ok((asked.question, asked.input_name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_become_the_question_the_command_asks() {
        let flags: Vec<String> = ["--box", "x=0:1,-0.5:0.5", "--claim", "argmax!=1"].map(String::from).to_vec();
        let (question, name) = question_from_flags(&flags).unwrap();
        assert_eq!(name.as_deref(), Some("x"));
        let Question::Class { region, claim } = question else { panic!("a class claim") };
        assert_eq!(region.len(), 2);
        assert_eq!(claim, crate::verify::claim::Claim::ArgmaxIsNot(1));
        assert!(question_from_flags(&["--claim".into(), "argmax=0".into()]).is_err(), "no region");
        assert!(question_from_flags(&["--bogus".into()]).unwrap_err().contains("--bogus"));
    }
}
