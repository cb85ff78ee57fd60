//! Search configuration, readable from (and writable to) TOML.
//!
//! Every field has a default, so a TOML table only names what it changes.
//! The optional parts (Dirichlet noise, the Gumbel root, playout cap
//! randomization) are switched on by the presence of their sub-table, which
//! may be empty to take its defaults:
//!
//! ```toml
//! simulations = 800
//! c_puct = 1.25
//! fpu_reduction = 0.25
//! temperature = 1.0
//! temperature_plies = 30
//! final_temperature = 0.0
//! virtual_loss_batch = 1
//! tree_reuse = true
//!
//! [dirichlet]            # PUCT self-play: noise at the root
//! total_alpha = 10.0
//! weight = 0.25
//!
//! [playout_cap]          # KataGo's playout cap randomization
//! full_search_probability = 0.25
//! reduced_simulations = 100
//! ```
//!
//! or, for the Gumbel root instead of PUCT-with-noise:
//!
//! ```toml
//! simulations = 32
//! [gumbel]
//! considered_actions = 16
//! ```

use serde::{Deserialize, Serialize};

/// How one [`crate::Search`] searches and picks its moves.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Simulations per move (a full search under playout cap randomization).
    /// The evaluation of a fresh root is not counted. With tree reuse these are
    /// added to the visits the root already has.
    pub simulations: u32,
    /// PUCT exploration constant (`c_init` of the AlphaZero schedule).
    pub c_puct: f32,
    /// When set, exploration grows with the parent's visit count `N` as in
    /// AlphaZero: `c(N) = c_puct + ln((1 + N + c_puct_base) / c_puct_base)`.
    pub c_puct_base: Option<f32>,
    /// First-play urgency below the root: an unvisited child is valued at the
    /// parent's value minus `fpu_reduction * sqrt(prior mass of visited children)`
    /// (as in Leela Chess Zero). PUCT only.
    pub fpu_reduction: f32,
    /// The same reduction at the root, usually smaller so that the root explores.
    pub fpu_reduction_root: f32,
    /// Dirichlet noise on the root priors (PUCT only; exclusive with `gumbel`).
    pub dirichlet: Option<DirichletConfig>,
    /// Use the Gumbel root (sequential halving) and Gumbel interior selection
    /// instead of PUCT.
    pub gumbel: Option<GumbelConfig>,
    /// Temperature for choosing the played move during the first
    /// `temperature_plies` moves of the game (counted from the position the
    /// search was created with). PUCT samples from `visits^(1/T)`; Gumbel
    /// samples from `improved_policy^(1/T)`. 0 plays the best move: the most
    /// visited one (PUCT) or the sequential halving winner (Gumbel).
    pub temperature: f32,
    pub temperature_plies: u32,
    /// Temperature after the first `temperature_plies` moves.
    pub final_temperature: f32,
    /// KataGo's playout cap randomization: most moves get a cheap search that
    /// is not used as a policy target.
    pub playout_cap: Option<PlayoutCapConfig>,
    /// How many leaves one tree puts into each evaluator call, using virtual
    /// loss to spread them. 1 for self-play with many games; 8 to 32 for a
    /// single game (play, analysis).
    pub virtual_loss_batch: u32,
    /// Keep the subtree of the played move for the next search.
    pub tree_reuse: bool,
}

impl Default for SearchConfig {
    /// Strong deterministic-leaning play: PUCT, no noise, best move, tree reuse.
    fn default() -> Self {
        SearchConfig {
            simulations: 800,
            c_puct: 1.25,
            c_puct_base: None,
            fpu_reduction: 0.25,
            fpu_reduction_root: 0.0,
            dirichlet: None,
            gumbel: None,
            temperature: 1.0,
            temperature_plies: 0,
            final_temperature: 0.0,
            playout_cap: None,
            virtual_loss_batch: 1,
            tree_reuse: true,
        }
    }
}

/// Dirichlet noise mixed into the root priors: `(1 - weight) * p + weight * eta`
/// with `eta ~ Dirichlet(total_alpha / n_legal, ...)` (KataGo's "total alpha",
/// so the noise has the same shape whatever the number of legal moves).
#[derive(Clone, Copy, PartialEq, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DirichletConfig {
    pub total_alpha: f32,
    pub weight: f32,
}

impl Default for DirichletConfig {
    fn default() -> Self {
        DirichletConfig {
            total_alpha: 10.0,
            weight: 0.25,
        }
    }
}

/// The Gumbel root of Danihelka et al. (2022).
#[derive(Clone, Copy, PartialEq, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GumbelConfig {
    /// `m`: how many actions Gumbel-top-k sampling considers at the root.
    pub considered_actions: u32,
    /// `c_visit` of the transform `sigma(q) = (c_visit + max_b N(b)) * c_scale * q`.
    pub c_visit: f32,
    /// `c_scale` of the same transform.
    pub c_scale: f32,
    /// Scale of the Gumbel noise; 0 makes the search deterministic (for play).
    pub gumbel_scale: f32,
    /// How completed Q-values are brought to `[0, 1]` before `sigma`: `false`
    /// maps the value range `[-1, 1]` linearly (the paper's board-game setting);
    /// `true` min-max normalises over the node's children (as mctx does).
    pub rescale_q: bool,
}

impl Default for GumbelConfig {
    fn default() -> Self {
        GumbelConfig {
            considered_actions: 16,
            c_visit: 50.0,
            c_scale: 1.0,
            gumbel_scale: 1.0,
            rescale_q: false,
        }
    }
}

/// Playout cap randomization (Wu, 2019): with probability
/// `full_search_probability` a move gets the full `simulations` and its policy
/// target is marked for training; otherwise it gets `reduced_simulations`, no
/// Dirichlet noise, and is marked not to be used as a policy target.
#[derive(Clone, Copy, PartialEq, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlayoutCapConfig {
    pub full_search_probability: f32,
    pub reduced_simulations: u32,
}

impl Default for PlayoutCapConfig {
    fn default() -> Self {
        PlayoutCapConfig {
            full_search_probability: 0.25,
            reduced_simulations: 100,
        }
    }
}

/// A configuration value outside its meaningful range.
#[derive(Clone, PartialEq, Debug, thiserror::Error)]
#[error("search config: `{field}` {problem}")]
pub struct SearchConfigError {
    pub field: &'static str,
    pub problem: String,
}

fn invalid(field: &'static str, problem: impl Into<String>) -> SearchConfigError {
    SearchConfigError {
        field,
        problem: problem.into(),
    }
}

fn require(ok: bool, field: &'static str, problem: &str) -> Result<(), SearchConfigError> {
    if ok {
        Ok(())
    } else {
        Err(invalid(field, problem))
    }
}

fn positive(value: f32, field: &'static str) -> Result<(), SearchConfigError> {
    require(
        value.is_finite() && value > 0.0,
        field,
        &format!("must be positive and finite, not {value}"),
    )
}

fn non_negative(value: f32, field: &'static str) -> Result<(), SearchConfigError> {
    require(
        value.is_finite() && value >= 0.0,
        field,
        &format!("must be zero or positive and finite, not {value}"),
    )
}

fn probability(value: f32, field: &'static str) -> Result<(), SearchConfigError> {
    require(
        (0.0..=1.0).contains(&value),
        field,
        &format!("must be within [0, 1], not {value}"),
    )
}

impl SearchConfig {
    /// Checks every field; [`crate::Search::new`] calls this.
    pub fn validate(&self) -> Result<(), SearchConfigError> {
        require(self.simulations >= 1, "simulations", "must be at least 1")?;
        positive(self.c_puct, "c_puct")?;
        if let Some(base) = self.c_puct_base {
            positive(base, "c_puct_base")?;
        }
        non_negative(self.fpu_reduction, "fpu_reduction")?;
        non_negative(self.fpu_reduction_root, "fpu_reduction_root")?;
        if let Some(dirichlet) = &self.dirichlet {
            positive(dirichlet.total_alpha, "dirichlet.total_alpha")?;
            probability(dirichlet.weight, "dirichlet.weight")?;
        }
        if let Some(gumbel) = &self.gumbel {
            require(
                self.dirichlet.is_none(),
                "gumbel",
                "cannot be combined with `dirichlet`: the Gumbel root explores by its own sampling",
            )?;
            require(
                gumbel.considered_actions >= 1,
                "gumbel.considered_actions",
                "must be at least 1",
            )?;
            non_negative(gumbel.c_visit, "gumbel.c_visit")?;
            positive(gumbel.c_scale, "gumbel.c_scale")?;
            non_negative(gumbel.gumbel_scale, "gumbel.gumbel_scale")?;
        }
        non_negative(self.temperature, "temperature")?;
        non_negative(self.final_temperature, "final_temperature")?;
        if let Some(cap) = &self.playout_cap {
            probability(
                cap.full_search_probability,
                "playout_cap.full_search_probability",
            )?;
            require(
                (1..=self.simulations).contains(&cap.reduced_simulations),
                "playout_cap.reduced_simulations",
                &format!(
                    "must be between 1 and `simulations` ({}), not {}",
                    self.simulations, cap.reduced_simulations
                ),
            )?;
        }
        require(
            self.virtual_loss_batch >= 1,
            "virtual_loss_batch",
            "must be at least 1",
        )?;
        Ok(())
    }

    /// The temperature for choosing the move after `moves_played` moves.
    pub fn temperature_after(&self, moves_played: u32) -> f32 {
        if moves_played < self.temperature_plies {
            self.temperature
        } else {
            self.final_temperature
        }
    }

    /// The PUCT exploration constant at a node with `parent_visits` visits.
    pub(crate) fn exploration(&self, parent_visits: f32) -> f32 {
        match self.c_puct_base {
            None => self.c_puct,
            Some(base) => self.c_puct + ((1.0 + parent_visits + base) / base).ln(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid() {
        SearchConfig::default().validate().unwrap();
    }

    #[test]
    fn toml_tables_switch_features_on_with_their_defaults() {
        let config: SearchConfig = toml::from_str(
            "simulations = 32\ntemperature_plies = 20\n[gumbel]\nconsidered_actions = 8\n[playout_cap]\nreduced_simulations = 8\n",
        )
        .unwrap();
        assert_eq!(config.simulations, 32);
        assert_eq!(config.temperature_plies, 20);
        assert_eq!(
            config.gumbel,
            Some(GumbelConfig {
                considered_actions: 8,
                ..GumbelConfig::default()
            })
        );
        assert_eq!(
            config.playout_cap,
            Some(PlayoutCapConfig {
                reduced_simulations: 8,
                ..PlayoutCapConfig::default()
            })
        );
        assert_eq!(config.dirichlet, None);
        config.validate().unwrap();
    }

    #[test]
    fn toml_round_trip() {
        let config = SearchConfig {
            c_puct_base: Some(19652.0),
            dirichlet: Some(DirichletConfig::default()),
            playout_cap: Some(PlayoutCapConfig::default()),
            ..SearchConfig::default()
        };
        let text = toml::to_string(&config).unwrap();
        assert_eq!(toml::from_str::<SearchConfig>(&text).unwrap(), config);
    }

    #[test]
    fn unknown_fields_are_rejected_by_name() {
        let err = toml::from_str::<SearchConfig>("simulation = 3").unwrap_err();
        assert!(err.to_string().contains("simulation"), "{err}");
        let err = toml::from_str::<SearchConfig>("[gumbel]\nm = 3").unwrap_err();
        assert!(err.to_string().contains('m'), "{err}");
    }

    #[test]
    fn validation_names_the_field() {
        let bad = |config: SearchConfig| config.validate().unwrap_err().field;
        let base = SearchConfig::default();
        assert_eq!(
            bad(SearchConfig {
                simulations: 0,
                ..base.clone()
            }),
            "simulations"
        );
        assert_eq!(
            bad(SearchConfig {
                c_puct: -1.0,
                ..base.clone()
            }),
            "c_puct"
        );
        assert_eq!(
            bad(SearchConfig {
                temperature: f32::NAN,
                ..base.clone()
            }),
            "temperature"
        );
        assert_eq!(
            bad(SearchConfig {
                dirichlet: Some(DirichletConfig {
                    weight: 1.5,
                    ..Default::default()
                }),
                ..base.clone()
            }),
            "dirichlet.weight"
        );
        assert_eq!(
            bad(SearchConfig {
                dirichlet: Some(DirichletConfig::default()),
                gumbel: Some(GumbelConfig::default()),
                ..base.clone()
            }),
            "gumbel"
        );
        assert_eq!(
            bad(SearchConfig {
                playout_cap: Some(PlayoutCapConfig {
                    reduced_simulations: 900,
                    ..Default::default()
                }),
                ..base.clone()
            }),
            "playout_cap.reduced_simulations"
        );
        assert_eq!(
            bad(SearchConfig {
                virtual_loss_batch: 0,
                ..base
            }),
            "virtual_loss_batch"
        );
    }

    #[test]
    fn alphazero_schedule_grows_with_visits() {
        let config = SearchConfig {
            c_puct_base: Some(19652.0),
            ..SearchConfig::default()
        };
        assert!((config.exploration(0.0) - 1.25).abs() < 1e-4);
        assert!(config.exploration(100_000.0) > 3.0);
        assert_eq!(SearchConfig::default().exploration(1e6), 1.25);
    }
}
