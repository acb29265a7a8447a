//! The cactus plot as SVG, drawn by plotters: x the number of instances decided, y the time of
//! the k-th fastest decided instance on a log scale, one line per tool. SVG text is `<text>`
//! that the browser sets, so no font file is read (plotters' naive metrics place it).

use plotters::coord::combinators::IntoLogRange;
use plotters::prelude::*;

use super::compare::CactusLine;
use crate::error::{Failure, KnnError};

/// The plot's size in pixels.
pub const PLOT_SIZE: (u32, u32) = (900, 480);

/// Times are drawn no lower than this (a log scale has no 0): knn writes milliseconds.
pub const FLOOR_SECONDS: f64 = 1e-3;

/// The tools' colours, in order (knn first), as `#RRGGBB`: matplotlib's first ten, which
/// readers of cactus plots know; past ten they repeat.
const PALETTE: [(u8, u8, u8); 10] = [
    (0x1F, 0x77, 0xB4),
    (0xD6, 0x27, 0x28),
    (0x2C, 0xA0, 0x2C),
    (0xFF, 0x7F, 0x0E),
    (0x94, 0x67, 0xBD),
    (0x8C, 0x56, 0x4B),
    (0xE3, 0x77, 0xC2),
    (0x7F, 0x7F, 0x7F),
    (0xBC, 0xBD, 0x22),
    (0x17, 0xBE, 0xCF),
];

/// The colour of the tool at `index` (knn is 0), as the SVG writes it: `#RRGGBB`.
pub fn tool_colour(index: usize) -> String {
    let (r, g, b) = PALETTE[index % PALETTE.len()];
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// The `(x, y)` points of a line: the k-th decided instance at `(k, its seconds)`, from 1.
pub fn cactus_points(line: &CactusLine) -> Vec<(f64, f64)> {
    line.seconds.iter().enumerate().map(|(k, s)| ((k + 1) as f64, s.max(FLOOR_SECONDS))).collect()
}

/// The plot of `lines` over a run of `instances` instances, as an `<svg>` element. Tool names
/// are passed through `label` (the page shows control characters visibly).
pub fn cactus_svg(lines: &[CactusLine], instances: usize, label: impl Fn(&str) -> String) -> Result<String, KnnError> {
    let mut svg = String::new();
    draw(&mut svg, lines, instances, &label)
        .map_err(|e| KnnError::new(Failure::Io, format!("cannot draw the cactus plot: {e}")))?;
    Ok(svg)
}

/// Decades around the times: 10^⌊log t_min⌋ … 10^⌈log t_max⌉, at least one decade wide.
fn time_range(lines: &[CactusLine]) -> (f64, f64) {
    let times = lines.iter().flat_map(|l| l.seconds.iter()).map(|s| s.max(FLOOR_SECONDS));
    let (lo, hi) = times.fold((f64::INFINITY, 0.0f64), |(lo, hi), t| (lo.min(t), hi.max(t)));
    if !lo.is_finite() {
        return (0.01, 1.0);
    }
    let lo = 10f64.powf(lo.log10().floor());
    let hi = 10f64.powf(hi.log10().ceil()).max(lo * 10.0);
    // A hair beyond the decades, so that plotters' ticks (10^⌈log lo⌉ … ≤ hi, computed in
    // floating point) include both ends.
    (lo * 0.999, hi * 1.001)
}

fn draw(
    svg: &mut String,
    lines: &[CactusLine],
    instances: usize,
    label: &dyn Fn(&str) -> String,
) -> Result<(), String> {
    let error = |e: &dyn std::fmt::Display| e.to_string();
    let root = SVGBackend::with_string(svg, PLOT_SIZE).into_drawing_area();
    root.fill(&WHITE).map_err(|e| error(&e))?;
    let (lo, hi) = time_range(lines);
    let x_max = instances.max(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..x_max, (lo..hi).log_scale())
        .map_err(|e| error(&e))?;
    chart
        .configure_mesh()
        .x_desc("instances decided (holds or violated)")
        .y_desc("seconds (log scale)")
        .y_label_formatter(&|v| format_seconds(*v))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .light_line_style(RGBColor(0xEE, 0xEE, 0xEE))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(|e| error(&e))?;
    for (index, line) in lines.iter().enumerate() {
        let (r, g, b) = PALETTE[index % PALETTE.len()];
        let colour = RGBColor(r, g, b);
        let style = colour.stroke_width(2);
        chart
            .draw_series(LineSeries::new(cactus_points(line), style).point_size(2))
            .map_err(|e| error(&e))?
            .label(format!("{} ({} decided)", label(&line.tool), line.seconds.len()))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| error(&e))?;
    root.present().map_err(|e| error(&e))?;
    Ok(())
}

/// A tick of the time axis, to its first significant digit below 1: `0.001`, `0.02`, `10`.
fn format_seconds(v: f64) -> String {
    if v >= 1.0 || v <= 0.0 {
        return format!("{v:.0}");
    }
    let decimals = (-v.log10().floor()) as usize;
    format!("{v:.decimals$}")
}
