//! The geometry of the window operators (Ext-3 `conv2d`, Ext-4 `maxPool2d` and `avgPool2d`):
//! the K functions their rules use (`validAttrs`, `convShape`, `poolShape`, the input position
//! of a kernel tap), and the details of their errors. Both engines read shapes and attributes through these, as they share the details of
//! `errors.rs`; each computes the elements in its own code.
//!
//! For `X: (C, H, Wd)`, `W: (M, C/G, KH, KW)` and the attributes `strides = [SH, SW]`,
//! `pads = [TOP, LEFT, BOTTOM, RIGHT]`, `dilations = [DH, DW]`, `group = G`:
//!
//! ```k
//! rule convShape((C, H, Wd), (M, CG, KH, KW), As)
//!   => (M, (H +Int TOP +Int BOTTOM -Int (DH *Int (KH -Int 1) +Int 1)) /Int SH +Int 1,
//!          (Wd +Int LEFT +Int RIGHT -Int (DW *Int (KW -Int 1) +Int 1)) /Int SW +Int 1)
//! ```
//!
//! Output `(O, I, J)`'s tap `(KI, KJ)` reads row `I *Int SH -Int TOP +Int KI *Int DH` and
//! column `J *Int SW -Int LEFT +Int KJ *Int DW` of `X`: a padding position when it is outside
//! `0 .. H` or `0 .. Wd`. Output channel `O` belongs to group `O /Int (M /Int G)` and reads the
//! input channels `g *Int CG … g *Int CG +Int CG -Int 1` of that group.
//!
//! A pool's window `kernel = [KH, KW]` plays the kernel's part: `poolShape((C, H, Wd), As)` is
//! `(C, OH, OW)` with `OH`, `OW` as above, and output `(O, I, J)` reads channel `O` only.

use crate::errors::shape_text;
use crate::syntax::{AttrName, Attrs};

/// A window operator's attributes with their defaults: what `validAttrs` checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowAttrs {
    pub strides: [i64; 2],
    /// `[TOP, LEFT, BOTTOM, RIGHT]`.
    pub pads: [i64; 4],
    pub dilations: [i64; 2],
    pub group: i64,
    /// A pool's window `[KH, KW]` (Ext-4; no default, the parser requires it; `[1, 1]` for
    /// `conv2d`, which has no such attribute).
    pub kernel: [i64; 2],
    /// `avgPool2d`'s `countPad` (default 0).
    pub count_pad: i64,
}

impl WindowAttrs {
    /// The attributes as written, the defaults for the others (strides and dilations 1, pads 0,
    /// group 1).
    pub fn of(attrs: &Attrs) -> WindowAttrs {
        let two = |name, default: [i64; 2]| attrs.get(name).and_then(|v| v.try_into().ok()).unwrap_or(default);
        WindowAttrs {
            strides: two(AttrName::Strides, [1, 1]),
            pads: attrs.get(AttrName::Pads).and_then(|v| v.try_into().ok()).unwrap_or([0; 4]),
            dilations: two(AttrName::Dilations, [1, 1]),
            group: attrs.get(AttrName::Group).and_then(|v| v.first().copied()).unwrap_or(1),
            kernel: two(AttrName::Kernel, [1, 1]),
            count_pad: attrs.get(AttrName::CountPad).and_then(|v| v.first().copied()).unwrap_or(0),
        }
    }

    /// `validAttrs(As)`: the detail of the first attribute no rule accepts (`invalid-attribute`),
    /// in the order kernel, strides, dilations, group, countPad. Int literals are unsigned, so
    /// 0 is the one value refused, but for `countPad`, which is 0 or 1.
    pub fn invalid(&self, keyword: &str) -> Option<String> {
        let zero = |name: &str, values: &[i64]| {
            values.contains(&0).then(|| format!("{keyword}: `{name}` must be at least 1, and it is {values:?}"))
        };
        zero("kernel", &self.kernel)
            .or_else(|| zero("strides", &self.strides))
            .or_else(|| zero("dilations", &self.dilations))
            .or_else(|| zero("group", &[self.group]))
            .or_else(|| {
                (self.count_pad > 1)
                    .then(|| format!("{keyword}: `countPad` must be 0 or 1, and it is {}", self.count_pad))
            })
    }
}

/// What `conv2d` computes, its shapes checked: the extents of the operands and the result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv2dGeometry {
    pub attrs: WindowAttrs,
    /// `C, H, Wd`.
    pub input: [i64; 3],
    /// `M, C/G, KH, KW`.
    pub kernel: [i64; 4],
    /// `M, OH, OW`: `convShape`.
    pub output: [i64; 3],
}

impl Conv2dGeometry {
    /// The shapes of `conv2d(x, w, b, …)` checked (`shape-mismatch` with its detail otherwise),
    /// in this order: the ranks of `X`, `W`, `B`; the channels (`C = C/G · G`, `G` divides
    /// `M`); the bias length `M`; a kernel of at least one tap; the dilated kernel within the
    /// padded input. The attributes must be valid ([`WindowAttrs::invalid`]).
    pub fn check(
        names: (&str, &str, Option<&str>),
        x: &[i64],
        w: &[i64],
        b: Option<&[i64]>,
        attrs: WindowAttrs,
    ) -> Result<Conv2dGeometry, String> {
        let (xn, wn, bn) = names;
        let call = match bn {
            Some(bn) => format!("conv2d({xn}, {wn}, {bn})"),
            None => format!("conv2d({xn}, {wn})"),
        };
        let &[c, h, wd] = x else {
            return Err(format!("{call}: the input {xn} must be C×H×W, but it is {}", shape_text(x)));
        };
        let &[m, cg, kh, kw] = w else {
            return Err(format!("{call}: the kernel {wn} must be M×C×KH×KW, but it is {}", shape_text(w)));
        };
        if let (Some(bn), Some(b)) = (bn, b)
            && b.len() != 1
        {
            return Err(format!("{call}: the bias {bn} must be a vector, but it is {}", shape_text(b)));
        }
        let g = attrs.group;
        if i128::from(cg) * i128::from(g) != i128::from(c) {
            return Err(format!(
                "{call}: {xn} has {c} channels but the kernel {wn} takes {cg} per group, in {g} group{}",
                if g == 1 { "" } else { "s" }
            ));
        }
        if m % g != 0 {
            return Err(format!("{call}: the kernel {wn} has {m} output channels, not a multiple of group = {g}"));
        }
        if let (Some(bn), Some(&[n])) = (bn, b)
            && n != m
        {
            return Err(format!("{call}: the bias {bn} has {n} elements for {m} output channels"));
        }
        if kh == 0 || kw == 0 {
            return Err(format!("{call}: the kernel {wn} is {kh}×{kw}: it has no tap"));
        }
        let [sh, sw] = attrs.strides;
        let [dh, dw] = attrs.dilations;
        let [top, left, bottom, right] = attrs.pads;
        let oh = extent(h, top, bottom, kh, dh, sh);
        let ow = extent(wd, left, right, kw, dw, sw);
        let (Some(oh), Some(ow)) = (oh, ow) else {
            let span = |k: i64, d: i64| i128::from(d) * i128::from(k - 1) + 1;
            let padded = |n: i64, a: i64, z: i64| i128::from(n) + i128::from(a) + i128::from(z);
            return Err(format!(
                "{call}: the kernel {wn} spans {}×{} (dilated) but {xn} is {}×{} with its padding",
                span(kh, dh),
                span(kw, dw),
                padded(h, top, bottom),
                padded(wd, left, right)
            ));
        };
        Ok(Conv2dGeometry { attrs, input: [c, h, wd], kernel: [m, cg, kh, kw], output: [m, oh, ow] })
    }

    /// The input channel that the `c`-th channel of output channel `o`'s group is.
    pub fn input_channel(&self, o: i64, c: i64) -> i64 {
        let per_group = self.kernel[0] / self.attrs.group;
        (o / per_group) * self.kernel[1] + c
    }

    /// The position of `X` that tap `(ki, kj)` of output position `(i, j)` reads, or `None`
    /// for a padding position.
    pub fn input_position(&self, i: i64, j: i64, ki: i64, kj: i64) -> Option<(i64, i64)> {
        tap(&self.attrs, self.input, (i, j), (ki, kj))
    }
}

/// The position of `X: (C, H, Wd)` that tap `(ki, kj)` of output position `(i, j)` reads, or
/// `None` for a padding position.
fn tap(attrs: &WindowAttrs, input: [i64; 3], (i, j): (i64, i64), (ki, kj): (i64, i64)) -> Option<(i64, i64)> {
    let [sh, sw] = attrs.strides;
    let [dh, dw] = attrs.dilations;
    let [top, left, ..] = attrs.pads;
    let at = |o: i64, s: i64, pad: i64, k: i64, d: i64, n: i64| {
        let p = i128::from(o) * i128::from(s) - i128::from(pad) + i128::from(k) * i128::from(d);
        (0..i128::from(n)).contains(&p).then_some(p as i64)
    };
    Some((at(i, sh, top, ki, dh, input[1])?, at(j, sw, left, kj, dw, input[2])?))
}

/// What a pool (`maxPool2d`, `avgPool2d`, Ext-4) computes, its shape checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pool2dGeometry {
    pub attrs: WindowAttrs,
    /// `C, H, Wd`.
    pub input: [i64; 3],
    /// `C, OH, OW`: `poolShape`.
    pub output: [i64; 3],
}

impl Pool2dGeometry {
    /// The shape of `keyword(x, …)` checked (`shape-mismatch` with its detail otherwise): `X`
    /// of rank 3, the dilated window within the padded input. The attributes must be valid
    /// ([`WindowAttrs::invalid`]).
    pub fn check(keyword: &str, xn: &str, x: &[i64], attrs: WindowAttrs) -> Result<Pool2dGeometry, String> {
        let call = format!("{keyword}({xn})");
        let &[c, h, wd] = x else {
            return Err(format!("{call}: the input {xn} must be C×H×W, but it is {}", shape_text(x)));
        };
        let [kh, kw] = attrs.kernel;
        let [sh, sw] = attrs.strides;
        let [dh, dw] = attrs.dilations;
        let [top, left, bottom, right] = attrs.pads;
        let (Some(oh), Some(ow)) = (extent(h, top, bottom, kh, dh, sh), extent(wd, left, right, kw, dw, sw)) else {
            let span = |k: i64, d: i64| i128::from(d) * i128::from(k - 1) + 1;
            let padded = |n: i64, a: i64, z: i64| i128::from(n) + i128::from(a) + i128::from(z);
            return Err(format!(
                "{call}: the window spans {}×{} (dilated) but {xn} is {}×{} with its padding",
                span(kh, dh),
                span(kw, dw),
                padded(h, top, bottom),
                padded(wd, left, right)
            ));
        };
        Ok(Pool2dGeometry { attrs, input: [c, h, wd], output: [c, oh, ow] })
    }

    /// The position of `X` that tap `(ki, kj)` of output position `(i, j)` reads, or `None`
    /// for a padding position.
    pub fn input_position(&self, i: i64, j: i64, ki: i64, kj: i64) -> Option<(i64, i64)> {
        tap(&self.attrs, self.input, (i, j), (ki, kj))
    }

    /// The taps of output position `(i, j)` in row-major window order: `Some` input position,
    /// `None` for padding.
    pub fn taps(&self, i: i64, j: i64) -> impl Iterator<Item = Option<(i64, i64)>> + '_ {
        let [kh, kw] = self.attrs.kernel;
        (0..kh).flat_map(move |ki| (0..kw).map(move |kj| self.input_position(i, j, ki, kj)))
    }

    /// What `avgPool2d` divides output `(i, j)`'s sum by: `KH·KW` with `countPad = 1`, the taps
    /// inside the input otherwise.
    pub fn count(&self, i: i64, j: i64) -> i64 {
        if self.attrs.count_pad == 1 {
            self.attrs.kernel[0] * self.attrs.kernel[1]
        } else {
            self.taps(i, j).filter(Option::is_some).count() as i64
        }
    }
}

/// `(N + A + Z − (D·(K − 1) + 1)) / S + 1` output positions along one axis, or `None` when
/// the dilated kernel is longer than the padded input (a negative numerator).
fn extent(n: i64, a: i64, z: i64, k: i64, d: i64, s: i64) -> Option<i64> {
    let numerator = i128::from(n) + i128::from(a) + i128::from(z) - (i128::from(d) * i128::from(k - 1) + 1);
    (numerator >= 0).then(|| i64::try_from(numerator / i128::from(s) + 1).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(strides: [i64; 2], pads: [i64; 4], dilations: [i64; 2], group: i64) -> WindowAttrs {
        WindowAttrs { strides, pads, dilations, group, kernel: [1, 1], count_pad: 0 }
    }

    #[test]
    fn pools_keep_the_channels_and_count_the_taps_inside() {
        let pool = WindowAttrs { kernel: [2, 2], ..attrs([2, 2], [1, 1, 0, 0], [1, 1], 1) };
        // 1 + 3 + 0 = 4 rows with padding: (4 - 2) / 2 + 1 = 2 windows each way.
        let g = Pool2dGeometry::check("maxPool2d", "x", &[3, 3, 3], pool).unwrap();
        assert_eq!(g.output, [3, 2, 2]);
        // Window (0, 0) covers rows -1, 0 and columns -1, 0: one tap inside, at (0, 0).
        assert_eq!(g.taps(0, 0).collect::<Vec<_>>(), [None, None, None, Some((0, 0))]);
        assert_eq!((g.count(0, 0), g.count(1, 1)), (1, 4));
        let g = Pool2dGeometry::check("avgPool2d", "x", &[3, 3, 3], WindowAttrs { count_pad: 1, ..pool });
        assert_eq!(g.unwrap().count(0, 0), 4);
        let err = Pool2dGeometry::check("maxPool2d", "x", &[3, 3], pool).unwrap_err();
        assert!(err.contains("must be C×H×W"), "{err}");
        let big = WindowAttrs { kernel: [5, 1], ..pool };
        let err = Pool2dGeometry::check("maxPool2d", "x", &[1, 3, 3], big).unwrap_err();
        assert!(err.contains("spans 5×1") && err.contains("4×4"), "{err}");
        assert!(WindowAttrs { kernel: [0, 2], ..pool }.invalid("maxPool2d").unwrap().contains("kernel"));
        assert!(WindowAttrs { count_pad: 2, ..pool }.invalid("avgPool2d").unwrap().contains("0 or 1"));
    }

    const NAMES: (&str, &str, Option<&str>) = ("x", "w", None);

    #[test]
    fn output_extents_follow_the_onnx_formula() {
        // 3×3 input, 2×2 kernel: 2×2 outputs; stride 2: 1×1; pads 1 all round: 4×4.
        let g = Conv2dGeometry::check(NAMES, &[1, 3, 3], &[1, 1, 2, 2], None, attrs([1, 1], [0; 4], [1, 1], 1));
        assert_eq!(g.unwrap().output, [1, 2, 2]);
        let g = Conv2dGeometry::check(NAMES, &[1, 3, 3], &[1, 1, 2, 2], None, attrs([2, 2], [0; 4], [1, 1], 1));
        assert_eq!(g.unwrap().output, [1, 1, 1]);
        let g = Conv2dGeometry::check(NAMES, &[1, 3, 3], &[1, 1, 2, 2], None, attrs([1, 1], [1; 4], [1, 1], 1));
        assert_eq!(g.unwrap().output, [1, 4, 4]);
        // Dilation 2 makes a 2×2 kernel span 3×3: one output of a 3×3 input.
        let g = Conv2dGeometry::check(NAMES, &[1, 3, 3], &[1, 1, 2, 2], None, attrs([1, 1], [0; 4], [2, 2], 1));
        assert_eq!(g.unwrap().output, [1, 1, 1]);
        let g = Conv2dGeometry::check(NAMES, &[1, 2, 2], &[1, 1, 2, 2], None, attrs([1, 1], [0; 4], [2, 2], 1));
        assert!(g.unwrap_err().contains("spans 3×3"));
    }

    #[test]
    fn taps_read_the_padded_input_and_groups_their_channels() {
        let g = Conv2dGeometry::check(NAMES, &[4, 3, 3], &[6, 2, 2, 2], None, attrs([2, 1], [1, 0, 0, 0], [1, 1], 2))
            .unwrap();
        assert_eq!(g.output, [6, 2, 2]);
        assert_eq!(g.input_position(0, 0, 0, 0), None);
        assert_eq!(g.input_position(0, 1, 1, 1), Some((0, 2)));
        assert_eq!(g.input_position(1, 0, 1, 0), Some((2, 0)));
        // Outputs 0–2 are group 0 (inputs 0, 1), outputs 3–5 group 1 (inputs 2, 3).
        assert_eq!((g.input_channel(2, 1), g.input_channel(3, 0)), (1, 2));
    }

    #[test]
    fn zero_attributes_are_invalid_and_shapes_are_checked_in_order() {
        assert!(attrs([1, 0], [0; 4], [1, 1], 1).invalid("conv2d").unwrap().contains("strides"));
        assert!(attrs([1, 1], [0; 4], [1, 1], 0).invalid("conv2d").unwrap().contains("group"));
        assert_eq!(attrs([1, 1], [3; 4], [2, 1], 2).invalid("conv2d"), None);
        let ok = attrs([1, 1], [0; 4], [1, 1], 1);
        let err = |x: &[i64], w: &[i64], b: Option<&[i64]>, a| {
            Conv2dGeometry::check(("x", "w", b.map(|_| "b")), x, w, b, a).unwrap_err()
        };
        assert!(err(&[3, 3], &[1, 1, 2, 2], None, ok).contains("must be C×H×W"));
        assert!(err(&[1, 3, 3], &[1, 2, 2], None, ok).contains("must be M×C×KH×KW"));
        assert!(err(&[2, 3, 3], &[1, 1, 2, 2], None, ok).contains("2 channels"));
        assert!(err(&[2, 3, 3], &[3, 1, 2, 2], None, attrs([1, 1], [0; 4], [1, 1], 2)).contains("not a multiple"));
        assert!(err(&[1, 3, 3], &[2, 1, 2, 2], Some(&[3]), ok).contains("3 elements for 2"));
        assert!(err(&[1, 3, 3], &[2, 1, 0, 2], None, ok).contains("no tap"));
    }
}
