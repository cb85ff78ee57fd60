//! Not a subcommand: a game as the commands see it (`CommandBoard`: its
//! players, its board in the terminal; the game itself is
//! chosen once at the top, `sumito_game::GameKind::of`, and named by
//! `sumito_game::with_board!`); a `--fen` position of any game; the player
//! kinds of each game; and the one resolution of a game's rules against the
//! rules its models learned, for `arena`, `ladder` and `play` alike.

use anyhow::{Context, bail};
use sumito_arena::arena::MatchStart;
use sumito_arena::arena_board::ArenaBoard;
use sumito_arena::ladder::LADDER_MAX_PLIES;
use sumito_arena::match_start::learned_or_default_layouts;
use sumito_arena::player::{Entrant, PlayerRegistry};
use sumito_engine::general::{GeneralLayout, GeneralPosition};
use sumito_engine::rules_table::{RulesTable, Targets};
use sumito_engine::{Layout, Position, quote_position_text};
use sumito_game::Board;
use sumito_play::drawing::DrawBoard;
use sumito_play::svg::SvgBoard;

/// Each model of the general game among some specs, by spec, with the
/// `[rules]` table it learned under.
pub type TrainedTables = Vec<(String, RulesTable)>;

/// The kinds of player a command can seat, by game: `sumito` knows the
/// classical ones ([`CLASSICAL_PLAYERS`]); `sumito-torch` adds the
/// networks.
#[derive(Clone, Copy, Debug)]
pub struct PlayerKinds {
    /// The `[rules]` table of each model of the general game among the
    /// specs, read from its bundle with nothing loaded: such a model makes
    /// the game the general one before any player is prepared.
    pub general_models: fn(&[String]) -> anyhow::Result<TrainedTables>,
    /// The players of the two-player game.
    pub two_player: fn() -> anyhow::Result<PlayerRegistry<Position>>,
    /// The players of the general game.
    pub general: fn() -> anyhow::Result<PlayerRegistry<GeneralPosition>>,
}

/// The classical players of both games, and nothing else.
pub const CLASSICAL_PLAYERS: PlayerKinds = PlayerKinds {
    general_models: |_| Ok(Vec::new()),
    two_player: || Ok(Position::classical_players()),
    general: || Ok(GeneralPosition::classical_players()),
};

/// The kinds of player that are networks: `sumito-torch` registers them
/// (`network/arena.rs`), and a command with one of them runs there.
pub const NETWORK_PLAYER_KINDS: [&str; 2] = ["net", "bundle"];

/// A game as the commands see it: its players among the kinds a binary
/// knows (its classical players and ladder are its
/// [`ArenaBoard`]'s), its board in the terminal ([`DrawBoard`]) and as a
/// picture ([`SvgBoard`]), and what `perft`, `moves` and `render` ask of
/// its positions.
pub trait CommandBoard: ArenaBoard + DrawBoard + SvgBoard {
    /// The players of this game among `kinds`.
    fn registry(kinds: &PlayerKinds) -> anyhow::Result<PlayerRegistry<Self>>;

    /// The position of `text` given by `--fen` to `perft`, `moves` or
    /// `render`, under `table`; `rules_flag` says in errors where the table
    /// came from (` under --rules FILE`, or nothing).
    fn position_of_fen(text: &str, table: &RulesTable, rules_flag: &str) -> anyhow::Result<Self>;

    /// The leaves of the game tree `depth` plies below this position
    /// (perft), counted by the game's own engine.
    fn perft(&self, depth: u32) -> u64;

    /// How the game ended, as `sumito moves` says it (`None` while it goes
    /// on).
    fn game_over(&self) -> Option<String>;
}

impl CommandBoard for Position {
    fn registry(kinds: &PlayerKinds) -> anyhow::Result<PlayerRegistry<Position>> {
        (kinds.two_player)()
    }

    fn position_of_fen(text: &str, table: &RulesTable, _: &str) -> anyhow::Result<Position> {
        position_given(text, table)
    }

    fn perft(&self, depth: u32) -> u64 {
        sumito_engine::perft(self, depth)
    }

    fn game_over(&self) -> Option<String> {
        let sumito_engine::Ending { outcome, reason } = self.ending()?;
        let outcome = sumito_game::board::outcome_title(outcome).to_lowercase();
        Some(format!("{outcome}: {reason}"))
    }
}

impl CommandBoard for GeneralPosition {
    fn registry(kinds: &PlayerKinds) -> anyhow::Result<PlayerRegistry<GeneralPosition>> {
        (kinds.general)()
    }

    /// The text's own players decide the seating, and its cells with a role
    /// (obstacles, holes) and one colour count where the table sets none.
    fn position_of_fen(
        text: &str,
        table: &RulesTable,
        rules_flag: &str,
    ) -> anyhow::Result<GeneralPosition> {
        let context = || format!("reading the position given by --fen {text:?}{rules_flag}");
        let plain = match GeneralPosition::from_text(text, None) {
            Ok(position) => position,
            // Neither grammar: the two-player error is the one people know.
            Err(general) => {
                return match Position::from_fen(text) {
                    Err(err) => {
                        let quoted = quote_position_text(text, err.column);
                        Err(anyhow::Error::new(err)
                            .context(format!("reading the position given by --fen {quoted}")))
                    }
                    Ok(_) => Err(anyhow::Error::new(general).context(context())),
                };
            }
        };
        let mut rules = table
            .rules_for_text(plain.rules().seating.seats())
            .with_context(context)?;
        if table.obstacles.is_none() && table.holes.is_none() {
            rules.obstacles = plain.rules().obstacles;
            rules.holes = plain.rules().holes;
        }
        if table.one_colour.is_none() {
            rules.one_colour = plain.rules().one_colour;
        }
        GeneralPosition::from_text(text, Some(&rules)).with_context(context)
    }

    fn perft(&self, depth: u32) -> u64 {
        sumito_engine::general::general_perft(self, depth)
    }

    fn game_over(&self) -> Option<String> {
        self.describe_outcome()
    }
}

/// A position of game `B` given as text (`--fen`), read under `table` (a
/// model's rules); the error quotes the text, cut short around the
/// character at fault (it may be huge), and names what is wrong.
pub fn position_given<B: Board>(text: &str, table: &RulesTable) -> anyhow::Result<B> {
    B::position_from_text(text, table).map_err(|err| {
        let quoted = quote_position_text(text, err.column);
        anyhow::Error::new(err).context(format!("reading the position given by --fen {quoted}"))
    })
}

/// The rules of `table` in game `B`.
pub fn rules_of<B: Board>(table: &RulesTable) -> anyhow::Result<B::Rules> {
    B::rules_of_table(table).map_err(anyhow::Error::msg)
}

/// The match start of `layout` under `table` in game `B`.
pub fn match_start<B: Board>(
    layout: GeneralLayout,
    table: &RulesTable,
) -> anyhow::Result<MatchStart<B>> {
    MatchStart::of_table(layout, table).map_err(anyhow::Error::msg)
}

/// The entrants of `specs`, in order: each distinct spec prepared once (a
/// network loaded once, its games sharing it), and a name given twice
/// numbered `#2`, `#3`, … so that tables and the `result:` line tell them
/// apart.
pub fn prepare_players<B: CommandBoard>(
    registry: &PlayerRegistry<B>,
    specs: &[String],
) -> anyhow::Result<Vec<Entrant<B>>> {
    let mut prepared: Vec<(&String, Entrant<B>)> = Vec::new();
    let mut entrants: Vec<Entrant<B>> = Vec::new();
    for spec in specs {
        let mut entrant = match prepared.iter().find(|(known, _)| *known == spec) {
            Some((_, entrant)) => entrant.clone(),
            None => {
                let entrant = registry
                    .prepare_str(spec)
                    .with_context(|| format!("player {spec:?}"))?;
                prepared.push((spec, entrant.clone()));
                entrant
            }
        };
        let taken: Vec<&str> = entrants.iter().map(|e| e.name.as_str()).collect();
        entrant.name = distinct_name(&entrant.name, &taken);
        entrants.push(entrant);
    }
    Ok(entrants)
}

/// `name`, or `name#2`, `name#3`, … the first that is not `taken`.
fn distinct_name(name: &str, taken: &[&str]) -> String {
    let mut distinct = name.to_owned();
    let mut copy = 1;
    while taken.contains(&distinct.as_str()) {
        copy += 1;
        distinct = format!("{name}#{copy}");
    }
    distinct
}

/// The rules each model among `entrants` learned, by name, as tables.
pub fn trained_tables<B: CommandBoard>(entrants: &[Entrant<B>]) -> TrainedTables {
    entrants
        .iter()
        .filter_map(|entrant| {
            let rules = entrant.trained_rules.as_ref()?;
            Some((entrant.name.clone(), B::rules_table(rules)))
        })
        .collect()
}

/// The rules given beside a `[rules]` table, by flags.
#[derive(Clone, Copy, Debug, Default)]
pub struct RuleFlags {
    pub max_plies: Option<u32>,
    pub no_push_off_plies: Option<u32>,
    pub marbles_to_win: Option<u8>,
}

/// The rules and layout of a game with model seats (`trained`: each one's
/// table, by name), `None` without: the table they learned under (all must
/// share one) and a layout among those they learned (their first by
/// default, Standard if they name none); a key of `given` or a flag that
/// differs from theirs is refused.
pub fn model_rules(
    given: &RulesTable,
    flags: RuleFlags,
    layout: Option<GeneralLayout>,
    trained: &[(String, RulesTable)],
) -> anyhow::Result<Option<(RulesTable, GeneralLayout)>> {
    let Some((model, own)) = trained.first() else {
        return Ok(None);
    };
    let cannot = |what: String| {
        anyhow::anyhow!(
            "{what}: a model plays only under the rules it learned ({model} learned under {}); leave it out to play under them",
            own.describe()
        )
    };
    for (other, theirs) in &trained[1..] {
        if theirs != own {
            bail!(
                "{other} was trained under other rules ({}) than {model} ({}): a model plays only under the rules it learned, so these two cannot meet",
                theirs.describe(),
                own.describe()
            );
        }
    }
    if let Some((key, value, theirs)) = given.conflicts_with(own).into_iter().next() {
        return Err(cannot(format!(
            "--rules sets {key} = {value}, where the model's rules say {theirs}"
        )));
    }
    let limits = [
        ("--max-plies", flags.max_plies, own.max_plies),
        (
            "--no-push-off-plies",
            flags.no_push_off_plies,
            own.no_push_off_plies,
        ),
    ];
    for (flag, value, theirs) in limits {
        if let Some(value) = value.filter(|&value| Some(value) != theirs) {
            return Err(cannot(format!("{flag} {value}")));
        }
    }
    if let Some(n) = flags.marbles_to_win
        && own.marbles_to_win.as_ref() != Some(&Targets::All(n))
    {
        return Err(cannot(format!("--marbles-to-win {n}")));
    }
    let learned = learned_layouts(model, own)?;
    let layout = match (layout, learned.first()) {
        (Some(layout), _) if learned.is_empty() || learned.contains(&layout) => layout,
        (Some(layout), _) => bail!(
            "--layout {layout}: {model} learned only on {}; give one of those, or leave --layout out for the first",
            own.layouts.clone().unwrap_or_default().join(", ")
        ),
        (None, Some(first)) => *first,
        (None, None) => GeneralLayout::Two(Layout::Standard),
    };
    Ok(Some((own.clone(), layout)))
}

/// The layouts `model` learned on (its table's `layouts`, empty if it
/// names none).
pub fn learned_layouts(model: &str, table: &RulesTable) -> anyhow::Result<Vec<GeneralLayout>> {
    sumito_arena::match_start::learned_layouts(model, table).map_err(anyhow::Error::msg)
}

/// The first layout `model` learned on under `table`, Standard if it
/// names none.
pub fn first_layout(model: &str, table: &RulesTable) -> anyhow::Result<GeneralLayout> {
    let layouts = learned_or_default_layouts(model, table).map_err(anyhow::Error::msg)?;
    Ok(layouts[0])
}

/// The start position of `layout` under `table`.
pub fn start_of<B: CommandBoard>(layout: GeneralLayout, table: &RulesTable) -> anyhow::Result<B> {
    Ok(match_start::<B>(layout, table)?.position)
}

/// The table of a game without models: `given`, with the ladder's limits
/// (200 plies, 6 marbles) and the flags where it sets none.
pub fn table_without_models(given: &RulesTable, flags: RuleFlags) -> RulesTable {
    let mut table = given.clone();
    table.max_plies = table
        .max_plies
        .or(flags.max_plies)
        .or(Some(LADDER_MAX_PLIES));
    table.no_push_off_plies = table.no_push_off_plies.or(flags.no_push_off_plies);
    if table.marbles_to_win.is_none() {
        table.marbles_to_win = Some(Targets::All(flags.marbles_to_win.unwrap_or(6)));
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use sumito_engine::Rules;

    #[test]
    fn duplicate_players_are_prepared_once_and_numbered() {
        let specs = ["random", "random", "greedy", "random"].map(String::from);
        let names = |entrants: Vec<Entrant<Position>>| -> Vec<String> {
            entrants.into_iter().map(|e| e.name).collect()
        };
        let two = prepare_players(&Position::classical_players(), &specs).unwrap();
        assert_eq!(names(two), ["random", "random#2", "greedy", "random#3"]);
        let general = prepare_players(&GeneralPosition::classical_players(), &specs).unwrap();
        let general: Vec<String> = general.into_iter().map(|e| e.name).collect();
        assert_eq!(general, ["random", "random#2", "greedy", "random#3"]);
        let err = prepare_players(
            &GeneralPosition::classical_players(),
            &["alphabeta:depht=3".to_owned()],
        )
        .unwrap_err();
        assert!(format!("{err:#}").contains("depht"), "{err:#}");
    }

    #[test]
    fn a_model_of_either_game_brings_its_table_and_layouts() {
        let own = RulesTable::from_toml(
            "[rules]\nmax_plies = 240\nmarbles_to_win = 6\nlayouts = [\"three-player\", \"four-player\"]\n",
        )
        .unwrap();
        let trained = [("bundle:model=m".to_owned(), own.clone())];
        let none = RulesTable::default();
        let three = GeneralLayout::from_name("three-player").unwrap();
        let four = GeneralLayout::from_name("four-player").unwrap();
        // No model: nothing chosen here.
        assert!(
            model_rules(&none, RuleFlags::default(), None, &[])
                .unwrap()
                .is_none()
        );
        // Its table, and its first layout unless another it learned is given.
        let chosen = model_rules(&none, RuleFlags::default(), None, &trained).unwrap();
        assert_eq!(chosen, Some((own.clone(), three)));
        let chosen = model_rules(&none, RuleFlags::default(), Some(four), &trained).unwrap();
        assert_eq!(chosen, Some((own.clone(), four)));
        let standard = GeneralLayout::Two(Layout::Standard);
        let err = model_rules(&none, RuleFlags::default(), Some(standard), &trained)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("learned only on three-player, four-player"),
            "{err}"
        );
        // The same limits given: fine; others, by flag or by --rules: refused.
        let same = RuleFlags {
            max_plies: Some(240),
            marbles_to_win: Some(6),
            ..RuleFlags::default()
        };
        assert!(model_rules(&none, same, None, &trained).unwrap().is_some());
        let other = RuleFlags {
            max_plies: Some(400),
            ..RuleFlags::default()
        };
        let err = model_rules(&none, other, None, &trained)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--max-plies 400") && err.contains("max_plies = 240"),
            "{err}"
        );
        let holes = RulesTable::from_toml("[rules]\nholes = [\"E5\"]\n").unwrap();
        let err = model_rules(&holes, RuleFlags::default(), None, &trained)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--rules sets holes"), "{err}");
        // Two models of different tables cannot meet.
        let mut shorter = own.clone();
        shorter.max_plies = Some(100);
        let two = [trained[0].clone(), ("bundle:model=n".to_owned(), shorter)];
        let err = model_rules(&none, RuleFlags::default(), None, &two)
            .unwrap_err()
            .to_string();
        assert!(err.contains("cannot meet"), "{err}");
        // A two-player model's rules are a table too: no layouts of its own.
        let rules = Rules {
            max_plies: Some(150),
            ..Rules::default()
        };
        let trained = [("m".to_owned(), Position::rules_table(&rules))];
        let (table, layout) = model_rules(&none, RuleFlags::default(), None, &trained)
            .unwrap()
            .unwrap();
        assert_eq!(rules_of::<Position>(&table).unwrap(), rules);
        assert_eq!(layout, standard);
    }

    #[test]
    fn without_models_the_ladder_limits_fill_what_is_not_given() {
        let table = table_without_models(&RulesTable::default(), RuleFlags::default());
        assert_eq!(
            rules_of::<Position>(&table).unwrap(),
            sumito_arena::ladder::ladder_rules()
        );
        let flags = RuleFlags {
            max_plies: Some(80),
            marbles_to_win: Some(3),
            ..RuleFlags::default()
        };
        let rules =
            rules_of::<Position>(&table_without_models(&RulesTable::default(), flags)).unwrap();
        assert_eq!((rules.max_plies, rules.marbles_to_win), (Some(80), 3));
        // The table's own values win over the flags.
        let given = RulesTable::from_toml("[rules]\nmax_plies = 50\n").unwrap();
        assert_eq!(table_without_models(&given, flags).max_plies, Some(50));
    }
}
