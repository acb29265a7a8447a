//! The attributes of the window operators (Ext-3 `conv2d`, Ext-4 `maxPool2d`, `avgPool2d`): `strides = [2, 2]`, `group = 2`,
//! named as ONNX names them, so that an importer maps one to one. Attributes follow the tensor
//! operands, each at most once, in any order; they are kept in the order written, so the source
//! printer writes them back as they were (`parse(print(p)) == p`).
//!
//! The names are not keywords: a name followed by `=` inside the parentheses of a window
//! operator is an attribute, anywhere else an identifier (`let group = 2 in group` is a
//! program). Values are Int literals, unsigned as every Int literal of K-NN; whether a value
//! is allowed (a stride of 0) is the rules' question, not the grammar's.

use std::fmt;

use smallvec::SmallVec;

/// The name of an attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AttrName {
    /// `strides = [SH, SW]`: the step between two windows, rows then columns (default 1, 1).
    Strides,
    /// `pads = [TOP, LEFT, BOTTOM, RIGHT]`: rows and columns of padding (ONNX's order: the
    /// starts, then the ends; default 0s).
    Pads,
    /// `dilations = [DH, DW]`: the step between two kernel taps (default 1, 1).
    Dilations,
    /// `group = G`: channel groups of `conv2d` (default 1).
    Group,
    /// `kernel = [KH, KW]`: the window of a pooling operator (Ext-4), required.
    Kernel,
    /// `countPad = 0 | 1`: whether `avgPool2d` divides by the whole window, padding included
    /// (1), or by its taps inside the input (0, the default) (Ext-4).
    CountPad,
}

impl AttrName {
    pub const ALL: [AttrName; 6] =
        [AttrName::Strides, AttrName::Pads, AttrName::Dilations, AttrName::Group, AttrName::Kernel, AttrName::CountPad];

    pub fn text(self) -> &'static str {
        match self {
            AttrName::Strides => "strides",
            AttrName::Pads => "pads",
            AttrName::Dilations => "dilations",
            AttrName::Group => "group",
            AttrName::Kernel => "kernel",
            AttrName::CountPad => "countPad",
        }
    }

    pub fn from_text(text: &str) -> Option<AttrName> {
        AttrName::ALL.into_iter().find(|a| a.text() == text)
    }

    /// How many Ints the attribute has; an attribute of one is written without brackets.
    pub fn arity(self) -> usize {
        match self {
            AttrName::Strides | AttrName::Dilations | AttrName::Kernel => 2,
            AttrName::Pads => 4,
            AttrName::Group | AttrName::CountPad => 1,
        }
    }
}

/// Which pooling (Ext-4): the largest tap (`maxPool2d`) or the mean of the taps (`avgPool2d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pool {
    Max,
    Avg,
}

impl Pool {
    pub fn keyword(self) -> &'static str {
        match self {
            Pool::Max => "maxPool2d",
            Pool::Avg => "avgPool2d",
        }
    }
}

/// One attribute as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Attr {
    pub name: AttrName,
    pub values: SmallVec<[i64; 4]>,
}

impl Attr {
    pub fn new(name: AttrName, values: &[i64]) -> Attr {
        Attr { name, values: SmallVec::from_slice(values) }
    }
}

/// The attributes of one call, in the order written, each name at most once (the parser
/// refuses a repeated one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Attrs(pub Vec<Attr>);

impl Attrs {
    /// The values of `name`, if written.
    pub fn get(&self, name: AttrName) -> Option<&[i64]> {
        self.0.iter().find(|a| a.name == name).map(|a| &a.values[..])
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The attributes as krun prints terms: `strides = [ 2 , 2 ] , group = 2`.
    pub fn k_text(&self) -> String {
        self.joined(" , ", " , ", |values| format!("[ {values} ]"))
    }

    fn joined(&self, between: &str, inside: &str, bracket: impl Fn(String) -> String) -> String {
        let attr = |a: &Attr| {
            let values = a.values.iter().map(i64::to_string).collect::<Vec<_>>().join(inside);
            let values = if a.name.arity() == 1 { values } else { bracket(values) };
            format!("{} = {values}", a.name.text())
        };
        self.0.iter().map(attr).collect::<Vec<_>>().join(between)
    }
}

/// The attributes as source text: `strides = [2, 2], group = 2`.
impl fmt::Display for Attrs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.joined(", ", ", ", |values| format!("[{values}]")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_print_in_both_forms() {
        for name in AttrName::ALL {
            assert_eq!(AttrName::from_text(name.text()), Some(name));
        }
        let attrs = Attrs(vec![
            Attr { name: AttrName::Strides, values: SmallVec::from_slice(&[2, 1]) },
            Attr { name: AttrName::Group, values: SmallVec::from_slice(&[3]) },
        ]);
        assert_eq!(attrs.to_string(), "strides = [2, 1], group = 3");
        assert_eq!(attrs.k_text(), "strides = [ 2 , 1 ] , group = 3");
        assert_eq!(attrs.get(AttrName::Group), Some(&[3][..]));
        assert_eq!(attrs.get(AttrName::Pads), None);
    }
}
