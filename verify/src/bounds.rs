//! How a region's bounds are read (`--bounds`), and what is said of a region that holds no
//! binary64 point (docs/verification.md, "Constants as written").

use super::Question;
use super::property::{self, InputBox, Property};

/// How a region's bounds are read: as written (the default: the binary64 points between the
/// decimals as real numbers), or each as the binary64 number nearest it, as VNN-COMP's tools
/// read VNN-LIB files (docs/verification.md, "Constants as written").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Bounds {
    #[default]
    AsWritten,
    Nearest,
}

impl Question {
    /// The question with its region's bounds read as `bounds` says.
    pub fn with_bounds(&self, bounds: Bounds) -> Question {
        match (bounds, self) {
            (Bounds::AsWritten, _) => self.clone(),
            (Bounds::Nearest, Question::Class { region, claim }) => {
                Question::Class { region: region.nearest(), claim: *claim }
            }
            (Bounds::Nearest, Question::Property(p)) => {
                let cases = p.cases.iter().map(|c| property::Case { input: c.input.nearest(), ..c.clone() }).collect();
                Question::Property(Property { cases, ..p.clone() })
            }
        }
    }
}

/// Why `region` holds no binary64 point: its first element whose range, as written, holds none.
pub(crate) fn empty_region(region: &InputBox) -> String {
    let element = region.first_empty_element().unwrap_or(0);
    format!(
        "the region holds no binary64 point: no binary64 number lies in element {element}'s range as written \
         (knn takes bounds as written; take them as the nearest binary64 numbers to verify that point)"
    )
}
