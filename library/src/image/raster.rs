//! The panel as pixels: images side by side on white, each zoomed by a whole factor, a label
//! above and a caption below in an 8×8 font drawn twice its size; encoded as an 8-bit RGB PNG.
//!
//! The layout is fixed (docs/verification.md, "Counterexamples as images"), so that a test,
//! or a script, can find a pixel of an image by arithmetic: a margin of [`MARGIN`] pixels
//! around and between the columns, the label's line of [`LINE`] pixels, a gap of [`GAP`],
//! the image, a gap, the caption's line, the margin.

use std::io;

use font8x8::{BASIC_FONTS, UnicodeFonts};
use knn_semantics::memory;

use super::ImageShape;
use crate::error::KnnError;

/// Pixels around the panel and between its columns.
pub const MARGIN: usize = 16;
/// The height of a line of text: the 8×8 glyphs drawn 2×2 a dot, so that a label is legible
/// beside an image zoomed 8×.
pub const LINE: usize = 16;
/// Pixels between a line of text and the image.
pub const GAP: usize = 8;
/// Images are zoomed by the largest whole factor that keeps them within this many pixels
/// (8× for 28×28, 7× for 32×32), and never shrunk.
pub const TARGET: usize = 224;

const WHITE: [u8; 3] = [255, 255, 255];
const INK: [u8; 3] = [0, 0, 0];
/// A frame one pixel outside each image, so that an image as white as the page has edges.
const FRAME: [u8; 3] = [160, 160, 160];

/// One column of a panel: a label, an image (its pixels row by row) and a caption.
pub(super) struct Column {
    pub label: String,
    pub pixels: Vec<[u8; 3]>,
    pub caption: String,
}

/// A picture: 8-bit RGB pixels, row by row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picture {
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

impl Picture {
    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// The pixel at column `x` and row `y` (0, 0 at the top left), `None` outside.
    pub fn pixel(&self, x: usize, y: usize) -> Option<[u8; 3]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let at = 3 * (y * self.width + x);
        Some([self.rgb[at], self.rgb[at + 1], self.rgb[at + 2]])
    }

    /// The zoom factor of an image of `shape` in a panel.
    pub fn zoom(shape: ImageShape) -> usize {
        (TARGET / shape.height.max(shape.width)).max(1)
    }

    /// Writes the picture as a PNG (8-bit RGB, no metadata beyond the format's own).
    pub fn write_png(&self, out: &mut dyn io::Write) -> io::Result<()> {
        let too_wide = |_| io::Error::other(format!("a PNG cannot be {}×{} pixels", self.width, self.height));
        let width = u32::try_from(self.width).map_err(too_wide)?;
        let height = u32::try_from(self.height).map_err(too_wide)?;
        let mut encoder = png::Encoder::new(out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(io::Error::other)?;
        writer.write_image_data(&self.rgb).map_err(io::Error::other)?;
        writer.finish().map_err(io::Error::other)
    }

    /// The panel of `columns`, images of `shape`, left to right. A panel larger than the
    /// memory budget, or than a PNG can be (2^31 − 1 pixels a side), is refused.
    pub(super) fn compose(shape: ImageShape, columns: &[Column]) -> Result<Picture, KnnError> {
        let zoom = Picture::zoom(shape);
        let too_large = || KnnError::usage(format!("a picture of {shape} images is larger than a PNG can be"));
        let (image_width, image_height) = (
            shape.width.checked_mul(zoom).ok_or_else(too_large)?,
            shape.height.checked_mul(zoom).ok_or_else(too_large)?,
        );
        let widths: Vec<usize> =
            columns.iter().map(|c| image_width.max(text_width(&c.label)).max(text_width(&c.caption))).collect();
        let width = widths.iter().try_fold(MARGIN, |w, c| w.checked_add(c + MARGIN)).ok_or_else(too_large)?;
        let image_top = MARGIN + LINE + GAP;
        let height = image_height.checked_add(image_top + GAP + LINE + MARGIN).ok_or_else(too_large)?;
        if width > i32::MAX as usize || height > i32::MAX as usize {
            return Err(too_large());
        }
        let bytes = (width as u64).checked_mul(height as u64).and_then(|n| memory::bytes_for(n, 3));
        memory::check(bytes).map_err(|e| KnnError::memory("the picture", e))?;
        let mut picture = Picture { width, height, rgb: WHITE.repeat(width * height) };
        let mut left = MARGIN;
        for (column, column_width) in columns.iter().zip(&widths) {
            picture.text(left, MARGIN, &column.label);
            picture.frame(left - 1, image_top - 1, image_width + 2, image_height + 2);
            for (p, colour) in column.pixels.iter().enumerate() {
                let (row, col) = (p / shape.width, p % shape.width);
                picture.fill(left + col * zoom, image_top + row * zoom, zoom, *colour);
            }
            picture.text(left, image_top + image_height + GAP, &column.caption);
            left += column_width + MARGIN;
        }
        Ok(picture)
    }

    /// Fills the `size`×`size` square whose top left corner is (`x`, `y`).
    fn fill(&mut self, x: usize, y: usize, size: usize, colour: [u8; 3]) {
        for row in y..y + size {
            let start = 3 * (row * self.width + x);
            for pixel in self.rgb[start..start + 3 * size].chunks_exact_mut(3) {
                pixel.copy_from_slice(&colour);
            }
        }
    }

    /// Draws the outline of the `width`×`height` rectangle whose top left corner is (`x`, `y`).
    fn frame(&mut self, x: usize, y: usize, width: usize, height: usize) {
        for (col, row) in (x..x + width).flat_map(|col| [(col, y), (col, y + height - 1)]) {
            self.fill(col, row, 1, FRAME);
        }
        for (col, row) in (y..y + height).flat_map(|row| [(x, row), (x + width - 1, row)]) {
            self.fill(col, row, 1, FRAME);
        }
    }

    /// Writes `text` from (`x`, `y`), its top left corner; a character the font lacks is a `?`.
    fn text(&mut self, x: usize, y: usize, text: &str) {
        let dot = LINE / 8;
        for (k, ch) in text.chars().enumerate() {
            let glyph = BASIC_FONTS.get(ch).or_else(|| BASIC_FONTS.get('?')).unwrap_or_default();
            for (row, bits) in glyph.iter().enumerate() {
                // Bit 0 is the glyph's leftmost dot.
                for col in (0..8).filter(|col| bits & (1 << col) != 0) {
                    self.fill(x + k * LINE + col * dot, y + row * dot, dot, INK);
                }
            }
        }
    }
}

/// The width of `text` in pixels.
fn text_width(text: &str) -> usize {
    text.chars().count() * LINE
}
