//! What a run shows while it works: progress bars, the lines it prints
//! (one summary line per generation), and where a generation's time went.

use std::sync::atomic::Ordering;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::open::RunOptions;
use crate::evaluation::EvaluationSummary;
use crate::ratings::model_name;
use crate::replay::store::RefreshReport;
use crate::selfplay::SelfPlayStats;
use crate::trainer::TrainerRole;

pub(super) struct Ui {
    bars: MultiProgress,
    options: RunOptions,
}

impl Ui {
    pub(super) fn new(options: &RunOptions) -> Ui {
        let target = if options.progress {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        Ui {
            bars: MultiProgress::with_draw_target(target),
            options: options.clone(),
        }
    }

    pub(super) fn bar(&self, length: u64, prefix: &str, unit: &str) -> ProgressBar {
        let style = ProgressStyle::with_template(&format!(
            "{{prefix:>10}} [{{bar:30}}] {{pos}}/{{len}} {unit} {{msg}} (ETA {{eta}})"
        ))
        .expect("valid template")
        .progress_chars("=> ");
        let bar = self.bars.add(
            ProgressBar::new(length)
                .with_style(style)
                .with_prefix(prefix.to_owned()),
        );
        bar.enable_steady_tick(Duration::from_millis(500));
        bar
    }

    pub(super) fn say(&self, line: &str) {
        if !self.options.print {
            return;
        }
        // Above the bars when they are drawn; plain stdout otherwise (a
        // hidden MultiProgress prints nothing).
        if self.bars.is_hidden() {
            println!("{line}");
        } else {
            let _ = self.bars.println(line);
        }
    }

    pub(super) fn stopping(&self) -> bool {
        self.options.stop.load(Ordering::Relaxed)
    }
}

pub(super) fn say_skipped(report: &RefreshReport, ui: &Ui) {
    for (name, why) in &report.skipped {
        ui.say(&format!("warning: skipped replay file {name}: {why}"));
    }
}

/// Where one generation of `sumito train` spent its wall-clock time.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct GenerationTimes {
    pub(super) selfplay: Duration,
    pub(super) training: Duration,
    pub(super) evaluation: Duration,
    /// The generation's own time: the parts' sum in turns; overlapped, less
    /// (self-play beside the trainer's training and evaluation).
    pub(super) wall: Duration,
    pub(super) overlapped: bool,
}

impl GenerationTimes {
    pub(super) fn parts(&self) -> [(&'static str, Duration); 3] {
        [
            ("selfplay", self.selfplay),
            ("training", self.training),
            ("evaluation", self.evaluation),
        ]
    }

    /// `part`'s share of the generation's time (overlapped, the shares add
    /// up to more than one).
    pub(super) fn share(&self, part: Duration) -> f64 {
        part.as_secs_f64() / self.wall.as_secs_f64().max(1e-9)
    }

    pub(super) fn scalars(&self) -> Vec<(String, f64)> {
        let mut scalars = Vec::new();
        for (name, part) in self.parts() {
            scalars.push((format!("time/{name}_seconds"), part.as_secs_f64()));
            scalars.push((format!("time/{name}_share"), self.share(part)));
        }
        scalars.push((
            "time/generation_seconds".to_owned(),
            self.wall.as_secs_f64(),
        ));
        scalars.push((
            "time/overlapped".to_owned(),
            if self.overlapped { 1.0 } else { 0.0 },
        ));
        scalars
    }

    /// `time 41s = 58% self-play, 25% training, 17% evaluation, alternating`;
    /// `time 30s = 93% self-play beside 67% training + 10% evaluation, overlapped`.
    pub(super) fn describe(&self) -> String {
        let percent = |part: Duration| 100.0 * self.share(part);
        format!(
            "time {:.0}s = {:.0}% self-play{} {:.0}% training{} {:.0}% evaluation, {}",
            self.wall.as_secs_f64(),
            percent(self.selfplay),
            if self.overlapped { " beside" } else { "," },
            percent(self.training),
            if self.overlapped { " +" } else { "," },
            percent(self.evaluation),
            if self.overlapped {
                "overlapped"
            } else {
                "alternating"
            }
        )
    }
}

pub(super) fn summary_line(
    generation: u32,
    selfplay: Option<&(SelfPlayStats, Duration)>,
    training: Option<&sumito_net::TrainMetrics>,
    evaluation: Option<&EvaluationSummary>,
) -> String {
    let mut line = format!("gen {generation}:");
    if let Some((stats, elapsed)) = selfplay {
        line.push_str(&format!(
            " {} games ({:.1} positions/s, {:.0} plies, {:.0}% decisive) |",
            stats.games,
            stats.positions as f64 / elapsed.as_secs_f64().max(1e-9),
            stats.positions as f64 / stats.games.max(1) as f64,
            100.0 * stats.decisive as f64 / stats.games.max(1) as f64
        ));
    }
    if let Some(metrics) = training {
        line.push_str(&format!(
            " step {} loss {:.3} |",
            metrics.step + 1,
            metrics.loss
        ));
    }
    let Some(evaluation) = evaluation else {
        line.push_str(" promoted (not rated this generation)");
        return line;
    };
    let record = &evaluation.record;
    if let Some(gating) = &record.gating {
        line.push_str(&format!(
            " vs gen-{} +{}={}-{}",
            gating.opponent, gating.wins, gating.draws, gating.losses
        ));
    }
    line.push_str(if record.promoted {
        " promoted"
    } else {
        " rejected"
    });
    for (opponent, score) in &record.opponent_scores {
        line.push_str(&format!(" | {opponent} {:.0}%", score * 100.0));
    }
    if let Some(table) = &evaluation.elo
        && let Some(entry) = table.iter().find(|e| e.player == model_name(generation))
    {
        line.push_str(&format!(
            " | Elo {:.0} ±{:.0}",
            entry.elo,
            (entry.high - entry.low) / 2.0
        ));
        // Every line refits the whole table over the games so far, so the
        // fixed opponents' ratings move as the run adds games (every
        // candidate beats `random`, the anchor, 10-0, which pins little): a
        // candidate's Elo is readable only beside the strongest fixed
        // opponent's in the same fit.
        if let Some(reference) = table
            .iter()
            .filter(|e| record.opponent_scores.contains_key(&e.player))
            .max_by(|a, b| a.elo.total_cmp(&b.elo))
        {
            line.push_str(&format!(" ({} {:.0})", reference.player, reference.elo));
        }
    }
    line
}

/// What the trainer read and how long it waited on storage, and what the
/// background threads did meanwhile.
pub(super) fn trainer_time_line(trainer: &TrainerRole) -> String {
    let (storage, total) = trainer.storage_time();
    let share = |part: Duration, whole: Duration| {
        100.0 * part.as_secs_f64() / whole.as_secs_f64().max(1e-9)
    };
    let mut line = format!(
        "read {} games; waited on storage for {:.1} s of {:.1} s ({:.2} %: reading games, uploading checkpoints and candidates)",
        trainer.store().total_games(),
        storage.as_secs_f64(),
        total.as_secs_f64(),
        share(storage, total)
    );
    if let Some((games, startup)) = trainer.startup_read() {
        let (after, whole_after) = (
            storage.saturating_sub(startup),
            total.saturating_sub(startup),
        );
        line += &format!(
            ", of which {:.1} s reading the {games} games there at start; after that {:.1} s of {:.1} s ({:.2} %)",
            startup.as_secs_f64(),
            after.as_secs_f64(),
            whole_after.as_secs_f64(),
            share(after, whole_after)
        );
    }
    let (uploads, upload_time) = trainer.uploads_done();
    line += &format!(
        "; in the background: {uploads} uploads in {:.1} s",
        upload_time.as_secs_f64()
    );
    if let Some((files, read_time)) = trainer.store().background_work() {
        line += &format!(
            ", {files} replay files listed and read in {:.1} s",
            read_time.as_secs_f64()
        );
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generations_time_says_whether_self_play_ran_beside_the_training() {
        let seconds = Duration::from_secs;
        let in_turns = GenerationTimes {
            selfplay: seconds(20),
            training: seconds(16),
            evaluation: seconds(4),
            wall: seconds(40),
            overlapped: false,
        };
        assert_eq!(
            in_turns.describe(),
            "time 40s = 50% self-play, 40% training, 10% evaluation, alternating"
        );
        let overlapped = GenerationTimes {
            selfplay: seconds(28),
            training: seconds(20),
            evaluation: seconds(3),
            wall: seconds(30),
            overlapped: true,
        };
        assert_eq!(
            overlapped.describe(),
            "time 30s = 93% self-play beside 67% training + 10% evaluation, overlapped"
        );
        let scalars = overlapped.scalars();
        for (tag, value) in [
            ("time/generation_seconds", 30.0),
            ("time/overlapped", 1.0),
            ("time/selfplay_seconds", 28.0),
            ("time/training_share", 20.0 / 30.0),
        ] {
            assert!(
                scalars.contains(&(tag.to_owned(), value)),
                "{tag} {value}: {scalars:?}"
            );
        }
    }
}
