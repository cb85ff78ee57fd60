//! The one scaffold of the program's SVG charts (a run's learning curve, a
//! game review's expected score): a white page with a title, a plot area
//! with its frame, grid lines with their labels, axis titles, and the
//! mapping from data to the page. What each chart draws inside it (lines,
//! bands, marks, legends) it adds as elements of its own.
//!
//! The document is plain SVG 1.1 with no scripts or external references.

use std::fmt::Write as _;

/// Where the plot area sits on the page, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// The page's size.
    pub width: f64,
    pub height: f64,
    /// The plot area's distance from the page's left and top edges, and
    /// its size.
    pub left: f64,
    pub top: f64,
    pub plot_width: f64,
    pub plot_height: f64,
}

/// An SVG chart being drawn: data `x` from `x_range` and `y` from
/// `y_range` map onto the plot area (`y` upwards).
#[derive(Debug)]
pub struct Chart {
    frame: Frame,
    x_range: (f64, f64),
    y_range: (f64, f64),
    svg: String,
}

impl Chart {
    /// A page of `frame`'s size with a white background and `title` (at
    /// `title_y` from the top) written.
    pub fn new(
        frame: Frame,
        x_range: (f64, f64),
        y_range: (f64, f64),
        title: &str,
        title_y: f64,
    ) -> Chart {
        let Frame { width, height, .. } = frame;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
        );
        svg.push_str("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{title_y}" font-size="15" text-anchor="middle">{}</text>"#,
            width / 2.0,
            escape(title)
        );
        Chart {
            frame,
            x_range,
            y_range,
            svg,
        }
    }

    pub fn frame(&self) -> Frame {
        self.frame
    }

    /// The page's horizontal position of data `x`.
    pub fn x(&self, x: f64) -> f64 {
        let (low, high) = self.x_range;
        self.frame.left + self.frame.plot_width * (x - low) / (high - low).max(1e-9)
    }

    /// The page's vertical position of data `y`.
    pub fn y(&self, y: f64) -> f64 {
        let (low, high) = self.y_range;
        self.frame.top + self.frame.plot_height * (1.0 - (y - low) / (high - low).max(1e-9))
    }

    /// A horizontal grid line at data `y` in `stroke`, labelled `label`
    /// left of the plot.
    pub fn horizontal_line(&mut self, y: f64, label: &str, stroke: &str) {
        let Frame {
            left, plot_width, ..
        } = self.frame;
        let page_y = self.y(y);
        let _ = writeln!(
            self.svg,
            r#"<line x1="{left}" y1="{page_y:.1}" x2="{:.1}" y2="{page_y:.1}" stroke="{stroke}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left + plot_width,
            left - 6.0,
            page_y + 4.0,
            escape(label)
        );
    }

    /// A vertical grid line at data `x` in `stroke`, labelled `label`
    /// below the plot.
    pub fn vertical_line(&mut self, x: f64, label: &str, stroke: &str) {
        let Frame {
            top, plot_height, ..
        } = self.frame;
        let page_x = self.x(x);
        let _ = writeln!(
            self.svg,
            r#"<line x1="{page_x:.1}" y1="{top}" x2="{page_x:.1}" y2="{:.1}" stroke="{stroke}"/><text x="{page_x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            top + plot_height,
            top + plot_height + 16.0,
            escape(label)
        );
    }

    /// A dashed divider across the plot at data `x` in `stroke`, its
    /// `label` written along its top inside the plot (a phase of a game, an
    /// event of a run).
    pub fn divider(&mut self, x: f64, label: &str, stroke: &str) {
        let Frame {
            top, plot_height, ..
        } = self.frame;
        let page_x = self.x(x);
        let _ = writeln!(
            self.svg,
            r#"<line class="divider" x1="{page_x:.1}" y1="{top}" x2="{page_x:.1}" y2="{:.1}" stroke="{stroke}" stroke-dasharray="5 4"/><text x="{:.1}" y="{:.1}" fill="{stroke}">{}</text>"#,
            top + plot_height,
            page_x + 4.0,
            top + 13.0,
            escape(label)
        );
    }

    /// A shaded band across the plot from data `x` `from` to `to` in
    /// `fill` (a stretch of the x axis that is set apart).
    pub fn band(&mut self, from: f64, to: f64, fill: &str) {
        let Frame {
            top, plot_height, ..
        } = self.frame;
        let (x1, x2) = (self.x(from), self.x(to));
        let _ = writeln!(
            self.svg,
            r#"<rect class="band" x="{x1:.1}" y="{top}" width="{:.1}" height="{plot_height}" fill="{fill}"/>"#,
            (x2 - x1).max(0.0)
        );
    }

    /// The axes' titles: `x_title` under the plot at `x_title_y` from the
    /// top, `y_title` turned up its left side at `y_title_x`.
    pub fn axis_titles(&mut self, x_title: &str, x_title_y: f64, y_title: &str, y_title_x: f64) {
        let Frame {
            left,
            top,
            plot_width,
            plot_height,
            ..
        } = self.frame;
        let _ = writeln!(
            self.svg,
            r#"<text x="{:.1}" y="{x_title_y:.1}" text-anchor="middle">{}</text>"#,
            left + plot_width / 2.0,
            escape(x_title)
        );
        let middle = top + plot_height / 2.0;
        let _ = writeln!(
            self.svg,
            r#"<text x="{y_title_x}" y="{middle:.1}" text-anchor="middle" transform="rotate(-90 {y_title_x} {middle:.1})">{}</text>"#,
            escape(y_title)
        );
    }

    /// The plot area's border.
    pub fn border(&mut self) {
        let Frame {
            left,
            top,
            plot_width,
            plot_height,
            ..
        } = self.frame;
        let _ = writeln!(
            self.svg,
            r##"<rect x="{left}" y="{top}" width="{plot_width}" height="{plot_height}" fill="none" stroke="#888888"/>"##
        );
    }

    /// The data points joined by a line of class `class` in `colour`.
    pub fn polyline(&mut self, class: &str, points: &[(f64, f64)], colour: &str) {
        let points: Vec<String> = points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", self.x(x), self.y(y)))
            .collect();
        let _ = writeln!(
            self.svg,
            r#"<polyline class="{class}" points="{}" fill="none" stroke="{colour}" stroke-width="2"/>"#,
            points.join(" ")
        );
    }

    /// Adds one element the chart draws itself (its text escaped by the
    /// caller with [`escape`]).
    pub fn element(&mut self, element: &str) {
        self.svg.push_str(element);
        self.svg.push('\n');
    }

    /// The finished document.
    pub fn finish(mut self) -> String {
        self.svg.push_str("</svg>\n");
        self.svg
    }
}

/// Round tick values covering `low..=high`: a step of 1, 2 or 5 times a
/// power of ten, about six ticks.
pub fn ticks(low: f64, high: f64) -> Vec<f64> {
    let span = (high - low).max(1e-9);
    let raw = span / 6.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|step| *step >= raw)
        .unwrap_or(10.0 * magnitude);
    let first = (low / step).floor() as i64;
    let last = (high / step).ceil() as i64;
    (first..=last.max(first + 1))
        .map(|i| {
            let value = i as f64 * step;
            // Rounded to the step's own precision, so labels print cleanly.
            (value / step).round() * step
        })
        .collect()
}

/// A tick's label, with as many decimals as the ticks' step needs.
pub fn tick_label(value: f64, ticks: &[f64]) -> String {
    let step = match ticks {
        [a, b, ..] => (b - a).abs(),
        _ => 1.0,
    };
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    format!("{value:.decimals$}")
}

/// Escapes text for SVG text content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // XML 1.0 forbids most control characters even when escaped.
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let unit = ticks(0.0, 1.0);
        let labels: Vec<String> = unit.iter().map(|&t| tick_label(t, &unit)).collect();
        assert_eq!(labels, ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        let elo = ticks(-120.0, 1480.0);
        assert!(elo[0] <= -120.0 && *elo.last().unwrap() >= 1480.0);
        assert!(elo.windows(2).all(|pair| pair[1] - pair[0] == 500.0));
        assert_eq!(tick_label(1000.0, &elo), "1000");
    }

    #[test]
    fn a_chart_maps_its_data_onto_the_plot_and_escapes_its_text() {
        let frame = Frame {
            width: 300.0,
            height: 200.0,
            left: 50.0,
            top: 20.0,
            plot_width: 200.0,
            plot_height: 100.0,
        };
        let mut chart = Chart::new(frame, (0.0, 10.0), (0.0, 1.0), "a <run>", 15.0);
        assert_eq!((chart.x(0.0), chart.x(10.0)), (50.0, 250.0));
        assert_eq!((chart.y(0.0), chart.y(1.0)), (120.0, 20.0));
        chart.horizontal_line(0.5, "50%", "#999999");
        chart.vertical_line(5.0, "5", "#e0e0e0");
        chart.axis_titles("hours", 190.0, "Elo & more\u{7}", 16.0);
        chart.border();
        chart.band(0.0, 2.5, "#eeeeee");
        chart.divider(5.0, "middle <game>", "#777777");
        chart.polyline("elo", &[(0.0, 0.0), (10.0, 1.0)], "#3060b0");
        let svg = chart.finish();
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("a &lt;run&gt;") && svg.contains("Elo &amp; more\u{FFFD}"));
        assert!(svg.contains(r#"points="50.0,120.0 250.0,20.0""#), "{svg}");
        assert!(svg.contains(r#"y1="70.0""#) && svg.contains(r#"x1="150.0""#));
        assert!(svg.contains(r#"<rect class="band" x="50.0" y="20" width="50.0" height="100""#));
        assert!(
            svg.contains(r#"class="divider" x1="150.0""#)
                && svg.contains(">middle &lt;game&gt;</text>")
        );
    }
}
