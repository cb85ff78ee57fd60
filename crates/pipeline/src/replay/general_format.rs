//! The replay file of one finished self-play game of the general game
//! (variants, 3 to 6 players): versioned and checksummed like the
//! two-player file ([`super::format`]), but storing the start and the moves,
//! from which every position is replayed and checked when it is read.
//! Little-endian throughout:
//!
//! ```text
//! magic            8  b"SUMITOV\0"
//! version          2  GENERAL_REPLAY_VERSION
//! model generation 4  the model that played it
//! rules            4 + n  length, then the `[rules]` table as JSON
//! start            2 + n  length, then the start as a general position text
//! outcome          2  kind (0 a side won, 1 a draw among all, 2 a tie), then the side or the mask of sides
//! end              1  (version 2) 0 played to its end by the rules, 1 every other side
//!                     resigned (the outcome is the winner's win)
//! final scores     6  marbles each seat had pushed off at the end
//! position count   4
//! positions        …  one record per position (below)
//! crc32c           4  of every byte before it
//! ```
//!
//! Version 1 (before resignation in the general game) has no end byte: its
//! games were all played to their end; it still reads.
//!
//! A position record:
//!
//! ```text
//! played move      2  GeneralMove::index of the move played from here
//! flags            1  bit 0: has a policy target (a full search)
//! sides            1  number of side values that follow
//! side values      2 × sides  the search's value for each side, × 32767
//! legal count      2  number of legal moves (checked at load)
//! policy           n  only with a policy target: one byte per legal move,
//!                     in GeneralPosition::legal_moves() order, probability × 255
//! ```
//!
//! Version 3 stored before the policy the search's policy surprise (2
//! bytes, as the two-player file of version 2) for the since removed
//! `[training] policy_surprise_weight`; it still reads, the field skipped.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sumito_engine::general::symmetry::kept_symmetries;
use sumito_engine::general::{GeneralMove, GeneralPosition, MAX_SEATS};
use sumito_game::Board;
use sumito_mcts::SearchResult;

use super::container;
use sumito_engine::rules_table::RulesTable;
use sumito_engine::{EndReason, Outcome};
use sumito_game::GameKind;
use sumito_mcts::MAX_SIDES;

use super::error::FormatError;
use super::format::{Cursor, SURPRISE_LEN, dequantize_policy, quantize_policy};
use super::replay_game::{FinishedGame, GameTally, ReplayGame};
use crate::config::Config;
use crate::crc::crc32c;
use sumito_net::GeneralTrainingSample;

/// One searched position of a general-game self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneralPositionRecord {
    pub position: GeneralPosition,
    /// The move played from here.
    pub played: GeneralMove,
    /// The search's values by side at the root.
    pub side_values: Vec<f32>,
    /// The search's policy over legal moves, for a full search (playout cap
    /// randomisation leaves cheap searches without one).
    pub policy: Option<Vec<(GeneralMove, f32)>>,
}

/// A finished general-game self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneralGameRecord {
    /// Who the game went to; why is [`Self::resigned`], or else the rules
    /// (the last position's [`sumito_engine::Ending`]).
    pub outcome: Outcome,
    /// Every side but the winner resigned: the game ended before its rules
    /// ended it.
    pub resigned: bool,
    /// The side the game would have been conceded to first, in a game played
    /// out with resignation off (to check the threshold): the worker's
    /// bookkeeping, not stored in the file (`None` when read).
    pub would_have_been_conceded_to: Option<usize>,
    /// Marbles each seat had pushed off at the end.
    pub final_scores: [u8; MAX_SEATS],
    pub positions: Vec<GeneralPositionRecord>,
}

impl GeneralGameRecord {
    /// A training sample for every position with a policy target.
    pub fn training_samples(&self) -> Vec<GeneralTrainingSample> {
        self.positions
            .iter()
            .filter_map(|record| {
                let policy = record.policy.clone()?;
                Some(GeneralTrainingSample::from_game(
                    record.position,
                    policy,
                    self.outcome,
                    self.final_scores,
                ))
            })
            .collect()
    }
}

pub const GENERAL_MAGIC: [u8; 8] = *b"SUMITOV\0";
pub use sumito_game::formats::{
    GENERAL_REPLAY_VERSION, GENERAL_REPLAY_VERSION_1, GENERAL_REPLAY_VERSION_2,
    GENERAL_REPLAY_VERSION_3,
};

/// A general-game replay file's contents.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneralReplay {
    /// The rules the game was played under.
    pub rules: RulesTable,
    pub model_generation: u32,
    pub game: GeneralGameRecord,
}

/// The stored outcome of a game of `sides` sides: a draw among every side
/// has a code of its own (1), a draw among some is a tie (2).
fn outcome_code(outcome: Outcome, sides: usize) -> [u8; 2] {
    match outcome {
        Outcome::Win(side) => [0, side as u8],
        Outcome::Draw(_) if outcome == Outcome::draw_of_all(sides) => [1, 0],
        Outcome::Draw(mask) => [2, mask],
    }
}

/// The bytes of a replay file holding `replay`: its encoding in the replay
/// container ([`super::container`]). The first position of the game is its
/// start.
pub fn encode_general_game(replay: &GeneralReplay) -> Vec<u8> {
    container::wrap(GameKind::General, &encode_general_body(replay))
}

/// The game's own encoding (the layout above): what the container holds,
/// and all a file written before the container held.
pub(crate) fn encode_general_body(replay: &GeneralReplay) -> Vec<u8> {
    let game = &replay.game;
    let mut out = Vec::new();
    out.extend_from_slice(&GENERAL_MAGIC);
    out.extend_from_slice(&GENERAL_REPLAY_VERSION.to_le_bytes());
    out.extend_from_slice(&replay.model_generation.to_le_bytes());
    let rules = serde_json::to_vec(&replay.rules).expect("a rules table serialises");
    out.extend_from_slice(&(rules.len() as u32).to_le_bytes());
    out.extend_from_slice(&rules);
    let start = game
        .positions
        .first()
        .map(|record| record.position.to_string())
        .unwrap_or_default();
    out.extend_from_slice(&(start.len() as u16).to_le_bytes());
    out.extend_from_slice(start.as_bytes());
    let sides = game
        .positions
        .first()
        .map_or(0, |record| record.position.rules().seating.sides());
    out.extend_from_slice(&outcome_code(game.outcome, sides));
    out.push(u8::from(game.resigned));
    out.extend_from_slice(&game.final_scores);
    out.extend_from_slice(&(game.positions.len() as u32).to_le_bytes());
    for record in &game.positions {
        out.extend_from_slice(&(record.played.index() as u16).to_le_bytes());
        out.push(u8::from(record.policy.is_some()));
        out.push(record.side_values.len() as u8);
        for value in &record.side_values {
            out.extend_from_slice(
                &((value.clamp(-1.0, 1.0) * 32767.0).round() as i16).to_le_bytes(),
            );
        }
        let legal = record.position.legal_moves();
        out.extend_from_slice(&(legal.len() as u16).to_le_bytes());
        if let Some(policy) = &record.policy {
            let by_move = |mv: &GeneralMove| {
                policy
                    .iter()
                    .find(|(candidate, _)| candidate == mv)
                    .map_or(0.0, |&(_, p)| p)
            };
            out.extend_from_slice(&quantize_policy(legal.iter().map(by_move)));
        }
    }
    let crc = crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Reads a replay file's bytes, checking the checksum and every field, and
/// replaying the moves from the start under the stored rules: a move that is
/// not legal where it is played, or a game that did not end where the file
/// says, is an error naming the position.
pub fn decode_general_game(bytes: &[u8]) -> Result<GeneralReplay, FormatError> {
    decode_general_body(container::unwrap(GameKind::General, bytes)?)
}

fn decode_general_body(bytes: &[u8]) -> Result<GeneralReplay, FormatError> {
    if bytes.len() < 8 || bytes[..8] != GENERAL_MAGIC {
        return Err(FormatError::BadMagic);
    }
    let minimum = 8 + 2 + 4 + 4 + 2 + 2 + MAX_SEATS + 4 + 4;
    if bytes.len() < minimum {
        return Err(FormatError::Truncated {
            length: bytes.len(),
            needed: minimum,
        });
    }
    let (body, stored) = bytes.split_at(bytes.len() - 4);
    let mut cursor = Cursor { bytes: body, at: 8 };
    let version = cursor.u16()?;
    if !(GENERAL_REPLAY_VERSION_1..=GENERAL_REPLAY_VERSION).contains(&version) {
        return Err(FormatError::UnsupportedVersion {
            found: version,
            supported: GENERAL_REPLAY_VERSION,
        });
    }
    let stored = u32::from_le_bytes(stored.try_into().expect("4 bytes"));
    let computed = crc32c(body);
    if stored != computed {
        return Err(FormatError::Checksum { stored, computed });
    }
    let model_generation = cursor.u32()?;
    let length = cursor.u32()? as usize;
    let rules: RulesTable = serde_json::from_slice(cursor.take(length)?)
        .map_err(|err| FormatError::BadHeader(format!("the rules table is not valid: {err}")))?;
    let length = usize::from(cursor.u16()?);
    let start_text = std::str::from_utf8(cursor.take(length)?)
        .map_err(|_| FormatError::BadHeader("the start is not UTF-8 text".to_owned()))?;
    let start = start_position(&rules, start_text)?;
    let sides = start.rules().seating.sides();
    let [kind, detail] = [cursor.u8()?, cursor.u8()?];
    let outcome = match kind {
        0 if usize::from(detail) < sides => Outcome::Win(usize::from(detail)),
        1 => Outcome::draw_of_all(sides),
        2 if detail != 0 && u32::from(detail) < (1 << sides) => Outcome::Draw(detail),
        _ => {
            return Err(FormatError::BadHeader(format!(
                "outcome code {kind}/{detail} is not an outcome of {sides} sides"
            )));
        }
    };
    let resigned = match version {
        GENERAL_REPLAY_VERSION_1 => false,
        _ => match cursor.u8()? {
            0 => false,
            1 if matches!(outcome, Outcome::Win(_)) => true,
            1 => {
                return Err(FormatError::BadHeader(format!(
                    "a resigned game is won by the side the others resigned to, not outcome code {kind}/{detail}"
                )));
            }
            end => return Err(FormatError::BadHeader(format!("unknown end {end}"))),
        },
    };
    let final_scores: [u8; MAX_SEATS] = cursor.take(MAX_SEATS)?.try_into().expect("6 bytes");
    let count = cursor.u32()? as usize;
    let mut positions = Vec::with_capacity(count.min(1 << 16));
    let mut position = start;
    for index in 0..count {
        let bad = |problem: String| FormatError::BadPosition { index, problem };
        if position.ending().is_some() {
            return Err(bad("the game was already over here".to_owned()));
        }
        let played = GeneralMove::from_index(usize::from(cursor.u16()?))
            .ok_or_else(|| bad("the played move is no move".to_owned()))?;
        let has_policy = match cursor.u8()? {
            0 => false,
            1 => true,
            flags => return Err(bad(format!("unknown flags {flags:#x}"))),
        };
        let value_count = usize::from(cursor.u8()?);
        if value_count != sides || value_count > MAX_SIDES {
            return Err(bad(format!("{value_count} side values for {sides} sides")));
        }
        let mut side_values = Vec::with_capacity(value_count);
        for _ in 0..value_count {
            side_values.push(f32::from(cursor.u16()? as i16) / 32767.0);
        }
        let legal = position.legal_moves();
        let stored_legal = usize::from(cursor.u16()?);
        if stored_legal != legal.len() {
            return Err(bad(format!(
                "{stored_legal} legal moves stored, the rules give {}",
                legal.len()
            )));
        }
        if !legal.contains(&played) {
            return Err(bad(format!("the played move {played:?} is not legal")));
        }
        let policy = if has_policy {
            if version == GENERAL_REPLAY_VERSION_3 {
                cursor.take(SURPRISE_LEN)?;
            }
            let probabilities = dequantize_policy(cursor.take(legal.len())?);
            Some(legal.iter().copied().zip(probabilities).collect())
        } else {
            None
        };
        positions.push(GeneralPositionRecord {
            position,
            played,
            side_values,
            policy,
        });
        position = position.play(played);
    }
    if cursor.at != body.len() {
        return Err(FormatError::TrailingBytes {
            extra: body.len() - cursor.at,
        });
    }
    match (resigned, count > 0 && position.ending().is_none()) {
        (false, true) => {
            return Err(FormatError::BadHeader(
                "the game is not over after its last move".to_owned(),
            ));
        }
        (true, false) => {
            return Err(FormatError::BadHeader(
                "a side resigned, but the rules had ended the game".to_owned(),
            ));
        }
        _ => {}
    }
    Ok(GeneralReplay {
        rules,
        model_generation,
        game: GeneralGameRecord {
            outcome,
            resigned,
            would_have_been_conceded_to: None,
            final_scores,
            positions,
        },
    })
}

/// The start position of a file from its text, under the rules of `rules`
/// (its keys that describe a start layout do not apply to a text).
fn start_position(rules: &RulesTable, text: &str) -> Result<GeneralPosition, FormatError> {
    let bad = |problem: String| FormatError::BadHeader(format!("the start: {problem}"));
    let seats = GeneralPosition::from_text(text, None)
        .map_err(|err| bad(err.to_string()))?
        .rules()
        .seating
        .seats();
    let resolved = rules
        .without_start_keys()
        .rules_for_text(seats)
        .map_err(|err| bad(err.to_string()))?;
    GeneralPosition::from_text(text, Some(&resolved)).map_err(|err| bad(err.to_string()))
}

impl ReplayGame for GeneralReplay {
    const KIND: GameKind = GameKind::General;

    fn encode(&self) -> Vec<u8> {
        encode_general_game(self)
    }

    /// The general game's header does not count them: the file is decoded
    /// (its files are few and small next to the two-player self-play's).
    fn peek_training_positions(bytes: &[u8]) -> Result<u64, String> {
        Self::decode(bytes).map(|replay| replay.training_indices().len() as u64)
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        decode_general_game(bytes).map_err(|err| err.to_string())
    }

    fn training_indices(&self) -> Vec<u32> {
        (0..self.game.positions.len() as u32)
            .filter(|&index| self.game.positions[index as usize].policy.is_some())
            .collect()
    }

    type Board = GeneralPosition;
    type PositionRecord = GeneralPositionRecord;

    fn position_record(position: &GeneralPosition, result: &SearchResult) -> GeneralPositionRecord {
        let move_of = |action: usize| {
            position
                .move_of(action)
                .expect("the search plays the rules' actions")
        };
        let policy = result.full_search.then(|| {
            result
                .policy_target()
                .map(|(action, target)| (move_of(action), target))
                .collect()
        });
        GeneralPositionRecord {
            position: *position,
            played: move_of(result.action),
            side_values: result.side_values.clone(),
            policy,
        }
    }

    fn position_of(record: &GeneralPositionRecord) -> GeneralPosition {
        record.position
    }

    fn positions(&self) -> &[GeneralPositionRecord] {
        &self.game.positions
    }

    /// A game of two sides resigns as the two-player game does (more
    /// sides: refused by the run's configuration).
    fn finish(
        game: FinishedGame<GeneralPositionRecord>,
        last: &GeneralPosition,
        rules: &RulesTable,
        model_generation: u32,
    ) -> GeneralReplay {
        let outcome = game.ending.outcome;
        GeneralReplay {
            rules: rules.clone(),
            model_generation,
            game: GeneralGameRecord {
                outcome,
                resigned: game.ending.reason == EndReason::Resignation,
                would_have_been_conceded_to: game
                    .would_concede_to
                    .filter(|_| game.resignation_disabled),
                final_scores: last.scores(),
                positions: game.positions,
            },
        }
    }

    fn tally(&self) -> GameTally {
        let game = &self.game;
        GameTally {
            positions: game.positions.len() as u64,
            training_positions: game.positions.iter().filter(|p| p.policy.is_some()).count() as u64,
            decisive: game.outcome.winner().is_some(),
            resigned: game.resigned,
            resign_check: game
                .would_have_been_conceded_to
                .map(|side| game.outcome.winner() != Some(side)),
        }
    }

    type Sample = GeneralTrainingSample;

    /// Each under a symmetry its position's rules keep.
    fn training_batch<'a>(
        mut draw: impl FnMut(&mut ChaCha8Rng) -> (&'a Self, usize),
        rng: &mut ChaCha8Rng,
        _: &Config,
        batch_size: usize,
    ) -> Vec<GeneralTrainingSample> {
        (0..batch_size)
            .map(|_| {
                let (replay, index) = draw(rng);
                replay.training_sample(index, rng)
            })
            .collect()
    }
}

impl GeneralReplay {
    /// The training sample of position `index` (one with a policy target),
    /// under a uniformly drawn symmetry among those its rules keep.
    pub fn training_sample(&self, index: usize, rng: &mut impl Rng) -> GeneralTrainingSample {
        let game = &self.game;
        let record = &game.positions[index];
        let sample = GeneralTrainingSample::from_game(
            record.position,
            record
                .policy
                .clone()
                .expect("training positions have a policy target"),
            game.outcome,
            game.final_scores,
        );
        let symmetries = kept_symmetries(record.position.rules());
        match symmetries.len() {
            0 => sample,
            count => sample.transformed(symmetries[rng.random_range(0..count)]),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::format::tests::version_and_length;
    use super::*;
    use sumito_engine::general::GeneralLayout;

    /// A finished game played by taking the `seed`-th legal move each ply.
    pub(crate) fn scripted_game(table: &RulesTable, layout: &str) -> GeneralGameRecord {
        let layout = GeneralLayout::from_name(layout).unwrap();
        let mut position = table.start(layout).unwrap();
        let sides = position.rules().seating.sides();
        let mut positions = Vec::new();
        let mut ply = 0;
        while position.ending().is_none() {
            let legal = position.legal_moves();
            let played = legal[(ply * 7) % legal.len()];
            let policy = (ply % 3 != 2).then(|| vec![(played, 0.75), (legal[0], 0.25)]);
            positions.push(GeneralPositionRecord {
                position,
                played,
                side_values: (0..sides).map(|side| side as f32 / 4.0 - 0.25).collect(),
                policy,
            });
            position = position.play(played);
            ply += 1;
        }
        GeneralGameRecord {
            outcome: position.ending().unwrap().outcome,
            resigned: false,
            would_have_been_conceded_to: None,
            final_scores: position.scores(),
            positions,
        }
    }

    fn table(text: &str) -> RulesTable {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn games_of_many_rules_round_trip() {
        for (rules, layout) in [
            ("max_plies = 30", "three-player"),
            ("max_plies = 24", "four-player"),
            (
                "max_plies = 20\nholes = [\"E5\"]\nshield_moves = true\nrotation_moves = true",
                "belgian-daisy",
            ),
            ("max_plies = 20\nneutral = [\"E5\"]", "standard"),
        ] {
            let table = table(rules);
            let game = scripted_game(&table, layout);
            let replay = GeneralReplay {
                rules: table,
                model_generation: 7,
                game,
            };
            let bytes = encode_general_game(&replay);
            let read = decode_general_game(&bytes).unwrap_or_else(|err| panic!("{rules}: {err}"));
            assert_eq!(read.rules, replay.rules);
            assert_eq!(read.model_generation, 7);
            assert_eq!(read.game.outcome, replay.game.outcome, "{rules}");
            assert_eq!(read.game.final_scores, replay.game.final_scores);
            assert_eq!(read.game.positions.len(), replay.game.positions.len());
            for (a, b) in read.game.positions.iter().zip(&replay.game.positions) {
                assert_eq!(a.position, b.position, "{rules}");
                assert_eq!(a.played, b.played);
                assert_eq!(a.policy.is_some(), b.policy.is_some());
                for (x, y) in a.side_values.iter().zip(&b.side_values) {
                    assert!((x - y).abs() < 1e-4);
                }
                if let Some(policy) = &a.policy {
                    let weight = |mv| policy.iter().find(|(m, _)| *m == mv).unwrap().1;
                    assert!(
                        (weight(b.played) - 0.75).abs() < 0.01
                            || b.played == b.position.legal_moves()[0]
                    );
                }
            }
        }
    }

    #[test]
    fn a_resigned_game_round_trips_and_one_without_a_winner_is_refused() {
        let holes = table("max_plies = 40\nholes = [\"D2\", \"F8\"]");
        let mut game = scripted_game(&holes, "standard");
        // White resigned after the first ten plies.
        game.positions.truncate(10);
        game.outcome = Outcome::Win(0);
        game.resigned = true;
        let replay = GeneralReplay {
            rules: holes,
            model_generation: 2,
            game,
        };
        let bytes = encode_general_game(&replay);
        let read = decode_general_game(&bytes).unwrap();
        assert!(read.game.resigned);
        assert_eq!(read.game.outcome, Outcome::Win(0));
        assert_eq!(read.game.positions.len(), 10);
        // Not over and not resigned: refused, as before.
        let mut unfinished = replay.clone();
        unfinished.game.resigned = false;
        let err = decode_general_game(&encode_general_game(&unfinished)).unwrap_err();
        assert!(err.to_string().contains("not over"), "{err}");
        // Resigned after the rules had ended it: refused.
        let table3 = table("max_plies = 30");
        let mut ended = GeneralReplay {
            game: scripted_game(&table3, "three-player"),
            rules: table3.clone(),
            model_generation: 1,
        };
        ended.game.resigned = true;
        let err = decode_general_game(&encode_general_game(&ended)).unwrap_err();
        assert!(err.to_string().contains("resign"), "{err}");
        // Three sides: the two others resigned to the third after 12 plies.
        let mut conceded = GeneralReplay {
            game: scripted_game(&table3, "three-player"),
            rules: table3,
            model_generation: 1,
        };
        conceded.game.positions.truncate(12);
        conceded.game.outcome = Outcome::Win(2);
        conceded.game.resigned = true;
        let read = decode_general_game(&encode_general_game(&conceded)).unwrap();
        assert!(read.game.resigned);
        assert_eq!(read.game.outcome, Outcome::Win(2));
        // A resignation names its winner: a draw is refused.
        conceded.game.outcome = Outcome::draw_of_all(3);
        let err = decode_general_game(&encode_general_game(&conceded)).unwrap_err();
        assert!(err.to_string().contains("resigned to"), "{err}");
    }

    #[test]
    fn outcomes_keep_their_codes() {
        // The bytes every version wrote: a win names its side, a draw among
        // every side has code 1, a draw among some (a tie) its mask.
        assert_eq!(outcome_code(Outcome::Win(2), 3), [0, 2]);
        assert_eq!(outcome_code(Outcome::draw_of_all(3), 3), [1, 0]);
        assert_eq!(outcome_code(Outcome::Draw(0b101), 3), [2, 0b101]);
        assert_eq!(outcome_code(Outcome::draw_of_all(2), 2), [1, 0]);
        let table3 = table("max_plies = 30");
        let mut game = GeneralReplay {
            game: scripted_game(&table3, "three-player"),
            rules: table3,
            model_generation: 1,
        };
        let start = game.game.positions[0].position.to_string();
        for (outcome, code) in [
            (Outcome::draw_of_all(3), [1, 0]),
            (Outcome::Draw(0b011), [2, 0b011]),
            (Outcome::Win(1), [0, 1]),
        ] {
            game.game.outcome = outcome;
            let bytes = encode_general_game(&game);
            // The outcome follows the start text in the header.
            let at = bytes
                .windows(start.len())
                .position(|window| window == start.as_bytes())
                .unwrap()
                + start.len();
            assert_eq!(bytes[at..at + 2], code, "{outcome:?}");
            let read = decode_general_game(&bytes).unwrap();
            assert_eq!(read.game.outcome, outcome);
        }
    }

    #[test]
    fn a_file_of_format_version_1_still_reads() {
        let bytes = include_bytes!("testdata/three-player-v1.vgame");
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 1);
        let read = decode_general_game(bytes).unwrap();
        assert!(!read.game.resigned);
        assert_eq!(read.model_generation, 43);
        assert!(!read.game.positions.is_empty());
        let last = read.game.positions.last().unwrap();
        assert!(last.position.play(last.played).ending().is_some());
    }

    #[test]
    fn a_written_file_reads_back() {
        let dir = crate::fsutil::testing::TempDir::new("variant-replay");
        let table = table("max_plies = 24");
        let replay = GeneralReplay {
            game: scripted_game(&table, "four-player"),
            rules: table,
            model_generation: 3,
        };
        let folder = super::super::files::ReplayFolder::local(dir.path()).unwrap();
        let key = super::super::files::write_replay(&folder, &replay).unwrap();
        assert!(key.ends_with(".replay"), "{key}");
        let read = decode_general_game(&std::fs::read(dir.path().join(&key)).unwrap()).unwrap();
        assert_eq!(read.game.positions.len(), replay.game.positions.len());
        assert_eq!(read.game.outcome, replay.game.outcome);
    }

    #[test]
    fn a_file_of_format_version_2_still_reads() {
        let bytes = include_bytes!("../../testdata/before-container/three-player.vgame");
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 2);
        let read = decode_general_game(bytes).unwrap();
        assert!(read.game.positions.iter().any(|p| p.policy.is_some()));
        let again = decode_general_game(&encode_general_game(&read)).unwrap();
        assert_eq!(again.game.positions.len(), read.game.positions.len());
    }

    #[test]
    fn a_file_of_format_version_3_reads_its_policies_past_the_surprises_it_stores() {
        let old = include_bytes!("../../testdata/policy-surprise/three-player-v3.replay");
        let (version, length) = version_and_length(GameKind::General, old);
        assert_eq!(version, GENERAL_REPLAY_VERSION_3);
        // The game the file was written from, as the current format keeps
        // it: a surprise not skipped would misalign every record after it.
        let table = table("max_plies = 24");
        let written = GeneralReplay {
            game: scripted_game(&table, "three-player"),
            rules: table,
            model_generation: 5,
        };
        let read = decode_general_game(old).unwrap();
        assert_eq!(
            read,
            decode_general_game(&encode_general_game(&written)).unwrap()
        );
        // Written again, it is of the current version, two bytes shorter a
        // policy target, and reads back the same.
        let again = encode_general_game(&read);
        let (again_version, again_length) = version_and_length(GameKind::General, &again);
        let targets = read.training_indices().len();
        assert_eq!(
            (again_version, again_length + SURPRISE_LEN * targets),
            (GENERAL_REPLAY_VERSION, length)
        );
        assert_eq!(decode_general_game(&again).unwrap(), read);
    }

    #[test]
    fn damaged_files_are_refused_with_the_reason() {
        let table = table("max_plies = 30");
        let replay = GeneralReplay {
            game: scripted_game(&table, "three-player"),
            rules: table,
            model_generation: 1,
        };
        let bytes = encode_general_game(&replay);
        // Cut: the container's length says so before any checksum.
        let truncated = &bytes[..bytes.len() / 2];
        assert!(matches!(
            decode_general_game(truncated),
            Err(FormatError::Truncated { .. })
        ));
        let mut flipped = bytes.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x10;
        assert!(matches!(
            decode_general_game(&flipped),
            Err(FormatError::Checksum { .. })
        ));
        assert!(matches!(
            decode_general_game(b"SUMITOG\0rest of a two-player file"),
            Err(FormatError::BadMagic)
        ));
        // A move that is not legal where the file plays it: the checksum
        // recomputed, so only the replay can catch it.
        let mut wrong = replay.clone();
        wrong.game.positions[1].played = wrong.game.positions[0].played;
        let message = decode_general_game(&encode_general_game(&wrong))
            .unwrap_err()
            .to_string();
        assert!(message.starts_with("position 1"), "{message}");
    }
}
