//! The learning curve of a run as a picture: the Elo of every generation
//! (with its 95 % interval) against the hours the run had trained (or its
//! core-hours, or the generation), beside the fixed opponents' Elo as
//! labelled level lines, fitted over every evaluation game
//! of the run (`ratings::fit_table`, on the one Elo scale). Written as a
//! self-contained SVG by `sumito curve`.

use sumito_arena::chart::{Chart, Frame, escape, tick_label, ticks};

use sumito_game::GameKind;

use crate::ratings::{EloEntry, EvaluationRecord, fit_table, generation_of, model_name};

/// One generation on the curve.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePoint {
    pub generation: u32,
    /// Hours the run had trained when it was written, if recorded.
    pub hours: Option<f64>,
    /// Core-hours (CPU time of every thread) by then, if recorded.
    pub core_hours: Option<f64>,
    pub elo: f64,
    pub low: f64,
    pub high: f64,
    /// Whether it became the best model.
    pub promoted: bool,
}

/// What the horizontal axis of a curve counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Axis {
    /// Wall-clock hours of `sumito train`.
    #[default]
    Hours,
    /// CPU time of all its threads, in hours.
    CoreHours,
    Generations,
}

impl Axis {
    /// The axis's title in the picture.
    pub fn label(self) -> &'static str {
        match self {
            Axis::Hours => "hours of training",
            Axis::CoreHours => "core-hours of training",
            Axis::Generations => "generation",
        }
    }

    fn value(self, point: &CurvePoint) -> Option<f64> {
        match self {
            Axis::Hours => point.hours,
            Axis::CoreHours => point.core_hours,
            Axis::Generations => Some(f64::from(point.generation)),
        }
    }
}

/// A run's learning curve.
#[derive(Clone, Debug, PartialEq)]
pub struct LearningCurve {
    /// By generation.
    pub points: Vec<CurvePoint>,
    /// The fixed opponents and their Elo.
    pub opponents: Vec<(String, f64)>,
    /// The axis asked for ([`LearningCurve::axis`] says which is drawn).
    pub wanted: Axis,
}

impl LearningCurve {
    /// The curve of the evaluation records of a run of `game`; `None`
    /// before any game.
    pub fn from_records(
        game: GameKind,
        records: &[EvaluationRecord],
    ) -> Result<Option<LearningCurve>, String> {
        let Some(table) = fit_table(game, records)? else {
            return Ok(None);
        };
        let find = |name: &str| table.iter().find(|entry| entry.player == name);
        let mut points: Vec<CurvePoint> = records
            .iter()
            .filter_map(|record| {
                let EloEntry { elo, low, high, .. } = *find(&model_name(record.generation))?;
                Some(CurvePoint {
                    generation: record.generation,
                    hours: record.run_hours,
                    core_hours: record.run_core_hours,
                    elo,
                    low,
                    high,
                    promoted: record.promoted,
                })
            })
            .collect();
        points.sort_by_key(|point| point.generation);
        let opponents = table
            .iter()
            .filter(|entry| !is_generation(&entry.player))
            .map(|entry| (entry.player.clone(), entry.elo))
            .collect();
        Ok(Some(LearningCurve {
            points,
            opponents,
            wanted: Axis::default(),
        }))
    }

    /// The same curve drawn along `axis`.
    pub fn along(self, axis: Axis) -> LearningCurve {
        LearningCurve {
            wanted: axis,
            ..self
        }
    }

    /// The axis drawn: the one asked for where every point knows its value
    /// (runs of the separate roles, and older runs, keep no time), else the
    /// generation.
    pub fn axis(&self) -> Axis {
        let known = !self.points.is_empty()
            && self
                .points
                .iter()
                .all(|point| self.wanted.value(point).is_some());
        if known {
            self.wanted
        } else {
            Axis::Generations
        }
    }

    /// A point's place along `axis` (the curve's [`LearningCurve::axis`],
    /// found once per picture).
    fn x_of(axis: Axis, point: &CurvePoint) -> f64 {
        axis.value(point).unwrap_or(f64::from(point.generation))
    }

    /// The curve as an SVG picture titled `title`.
    pub fn svg(&self, title: &str) -> String {
        const HEIGHT: f64 = 440.0;
        const LEFT: f64 = 70.0;
        const PLOT_W: f64 = 540.0;
        const TOP: f64 = 50.0;
        const BOTTOM: f64 = 60.0;
        let labels: Vec<String> = self
            .opponents
            .iter()
            .map(|(name, elo)| format!("{name} ({elo:.0})"))
            .collect();
        // The opponents' labels sit right of the plot: the picture is as
        // wide as the longest needs (about 7 px a character at 12 px sans).
        let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let right = (16.0 + 7.0 * longest as f64).max(150.0);
        let width = LEFT + PLOT_W + right;
        let axis = self.axis();
        let xs: Vec<f64> = self.points.iter().map(|p| Self::x_of(axis, p)).collect();
        let x_max = xs.iter().copied().fold(0.0, f64::max).max(1e-9);
        let ys = self
            .points
            .iter()
            .flat_map(|p| [p.low, p.high])
            .chain(self.opponents.iter().map(|(_, elo)| *elo));
        let (y_min, y_max) = ys.fold((0.0f64, 0.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
        let y_ticks = ticks(y_min, y_max);
        let x_ticks = ticks(0.0, x_max);
        let (y_lo, y_hi) = (y_ticks[0], *y_ticks.last().expect("ticks"));
        let x_hi = *x_ticks.last().expect("ticks");
        let frame = Frame {
            width,
            height: HEIGHT,
            left: LEFT,
            top: TOP,
            plot_width: PLOT_W,
            plot_height: HEIGHT - TOP - BOTTOM,
        };
        let mut chart = Chart::new(frame, (0.0, x_hi), (y_lo, y_hi), title, 24.0);
        for &y in &y_ticks {
            chart.horizontal_line(y, &tick_label(y, &y_ticks), "#e0e0e0");
        }
        for &x in &x_ticks {
            chart.vertical_line(x, &tick_label(x, &x_ticks), "#e0e0e0");
        }
        chart.axis_titles(
            axis.label(),
            HEIGHT - 18.0,
            "Elo (one scale: random = 0)",
            18.0,
        );
        chart.border();
        // The fixed opponents as level lines, named at the right.
        for ((_, elo), label) in self.opponents.iter().zip(&labels) {
            chart.element(&format!(
                r##"<line class="opponent" x1="{LEFT}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}" stroke="#b03030" stroke-dasharray="5 4"/><text x="{2:.1}" y="{3:.1}" fill="#b03030">{4}</text>"##,
                chart.y(*elo),
                LEFT + PLOT_W,
                LEFT + PLOT_W + 6.0,
                chart.y(*elo) + 4.0,
                escape(label),
            ));
        }
        if !self.points.is_empty() {
            // The 95 % band: along the highs, back along the lows.
            let band: Vec<String> = self
                .points
                .iter()
                .map(|p| (Self::x_of(axis, p), p.high))
                .chain(
                    self.points
                        .iter()
                        .rev()
                        .map(|p| (Self::x_of(axis, p), p.low)),
                )
                .map(|(x, y)| format!("{:.1},{:.1}", chart.x(x), chart.y(y)))
                .collect();
            chart.element(&format!(
                r##"<polygon class="interval" points="{}" fill="#3060b0" fill-opacity="0.15" stroke="none"/>"##,
                band.join(" ")
            ));
            let line: Vec<(f64, f64)> = self
                .points
                .iter()
                .map(|p| (Self::x_of(axis, p), p.elo))
                .collect();
            chart.polyline("elo", &line, "#3060b0");
            for p in &self.points {
                chart.element(&format!(
                    r##"<circle class="generation" cx="{:.1}" cy="{:.1}" r="3" fill="{}" stroke="#3060b0"><title>generation {}: Elo {:.0} [{:.0}, {:.0}]{}</title></circle>"##,
                    chart.x(Self::x_of(axis, p)),
                    chart.y(p.elo),
                    if p.promoted { "#3060b0" } else { "#ffffff" },
                    p.generation,
                    p.elo,
                    p.low,
                    p.high,
                    if p.promoted { ", promoted" } else { "" }
                ));
            }
        }
        chart.finish()
    }
}

/// Whether an Elo table's player is a generation of the run (`gen-N`).
fn is_generation(player: &str) -> bool {
    generation_of(player).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ratings::tests::game;
    use std::collections::BTreeMap;

    /// Generation `n` winning `wins` of 6 games against random and drawing
    /// greedy twice, trained until `hours`.
    fn record(generation: u32, wins: usize, hours: Option<f64>) -> EvaluationRecord {
        let name = model_name(generation);
        let mut games = Vec::new();
        for i in 0..6 {
            let winner = if i < wins { "black" } else { "white" };
            games.push(game(&name, "random", winner));
        }
        games.push(game(&name, "greedy", "draw"));
        games.push(game("greedy", &name, "draw"));
        EvaluationRecord {
            generation,
            promoted: generation != 2,
            gating: None,
            opponent_scores: BTreeMap::new(),
            games,
            run_hours: hours,
            run_core_hours: hours.map(|h| 2.0 * h),
        }
    }

    #[test]
    fn the_curve_follows_the_generations_against_the_hours() {
        let records = [
            record(1, 1, Some(0.2)),
            record(2, 3, Some(0.5)),
            record(3, 5, Some(0.9)),
        ];
        let curve = LearningCurve::from_records(GameKind::TwoPlayer, &records)
            .unwrap()
            .unwrap();
        assert_eq!(curve.axis(), Axis::Hours);
        assert_eq!(curve.points.len(), 3);
        assert!(
            curve.points[0].elo < curve.points[2].elo,
            "{:?}",
            curve.points
        );
        let names: Vec<&str> = curve.opponents.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names.len(), 2);
        assert!(names.contains(&"random") && names.contains(&"greedy"));
        let svg = curve.svg("a test run");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches(r#"class="generation""#).count(), 3);
        assert_eq!(svg.matches(r#"class="opponent""#).count(), 2);
        assert!(svg.contains(">hours of training<") && svg.contains("a test run"));
        // Each fixed opponent is a labelled level line at its Elo.
        for (name, elo) in &curve.opponents {
            assert!(svg.contains(&format!(">{name} ({elo:.0})<")), "{name}");
        }
        // Along the core-hours: the records' CPU time.
        let cores = curve.clone().along(Axis::CoreHours);
        assert_eq!(cores.axis(), Axis::CoreHours);
        assert!(cores.svg("x").contains(">core-hours of training<"));
        assert!(
            svg.contains(r#"width="760""#),
            "short labels: the usual width"
        );
        // A long opponent name widens the picture so that its label fits.
        let mut long = curve.clone();
        long.opponents[0].0 = "alphabeta:depth=2,time=1000ms".to_string();
        let wide = long.svg("a test run");
        let label = format!("{} ({:.0})", long.opponents[0].0, long.opponents[0].1);
        let width: f64 = wide
            .split("width=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            width >= 70.0 + 540.0 + 6.0 + 7.0 * label.len() as f64,
            "{width}"
        );
        // One point without its time: the axis is the generation.
        let mixed = [record(1, 1, None), record(2, 4, Some(1.0))];
        let curve = LearningCurve::from_records(GameKind::TwoPlayer, &mixed)
            .unwrap()
            .unwrap();
        assert_eq!(curve.axis(), Axis::Generations);
        assert!(curve.svg("x").contains(">generation<"));
        assert_eq!(
            LearningCurve::from_records(GameKind::TwoPlayer, &[]).unwrap(),
            None
        );
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 2.0), [0.0, 0.5, 1.0, 1.5, 2.0]);
        let t = ticks(-130.0, 820.0);
        assert!(t[0] <= -130.0 && *t.last().unwrap() >= 820.0, "{t:?}");
        assert!(
            t.windows(2).all(|w| (w[1] - w[0] - 200.0).abs() < 1e-9),
            "{t:?}"
        );
        let small = ticks(0.0, 0.0007);
        assert_eq!(tick_label(small[3], &small), "0.0006");
        assert_eq!(tick_label(200.0, &t), "200");
        assert!(is_generation("gen-12") && !is_generation("greedy") && !is_generation("gen-"));
    }
}
