//! The replay file: one finished self-play game, compact, versioned and
//! checksummed. Little-endian throughout:
//!
//! ```text
//! magic            8  b"SUMITOG\0"
//! version          2  TWO_PLAYER_REPLAY_VERSION
//! marbles_to_win   1  ┐
//! max_plies        4  │ the game's Rules (0 = no limit)
//! no_push_off      4  ┘
//! model generation 4  the model that played it
//! outcome          1  0 Black won, 1 White won, 2 draw
//! end reason       1  0 marbles off, 1 move limit, 2 no push-off, 3 no legal move, 4 resignation
//! resignation      1  bit 0: resignation was disabled to measure false resignations
//!                     bits 1-2: who would have resigned (0 nobody, 1 Black, 2 White)
//! off at the end   2  marbles of Black, White pushed off when the game ended
//! position count   4
//! training count   4  positions with a policy target (readable without decoding)
//! positions        …  one record per position (below)
//! crc32c           4  of every byte before it
//! ```
//!
//! A position record (29 bytes; with a policy, 2 more and one per legal move):
//!
//! ```text
//! black, white     8+8  one bit per cell index (0 = A1 … 60 = I9)
//! side and flags   1    bit 0: White to move; bit 1: has a policy target (a full search)
//! off              2    marbles of Black, White pushed off
//! ply              4
//! since push-off   4    plies since the last push-off
//! played action    2    the move played from here
//! root value       2    the search's value for the side to move, × 32767
//! legal count      2    number of legal moves (checked against the rules at load)
//! policy           n    only with a policy target: one byte per legal move, in
//!                       Position::legal_moves() order, probability × 255
//! ```
//!
//! Version 1 has the same layout. Version 2 stored before the policy the
//! search's policy surprise (2 bytes, `KL(target ‖ prior)`), which weighed
//! the trainer's draws under the since removed `[training]
//! policy_surprise_weight`; it still reads, the field skipped.

use sumito_engine::{Color, EndReason, Ending, Move, Outcome, Position, Rules, Symmetry};

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use sumito_game::GameKind;
use sumito_game::board::color_of_seat;
use sumito_mcts::SearchResult;
use sumito_net::{TrainingSample, symmetries_for};

use super::container;
use super::error::FormatError;
use super::replay_game::{FinishedGame, GameTally, ReplayGame};
use crate::config::{Config, TrainingConfig};
use crate::crc::crc32c;
use crate::value_target::ValueTarget;

pub const MAGIC: [u8; 8] = *b"SUMITOG\0";
pub use sumito_game::formats::{
    TWO_PLAYER_REPLAY_FIRST_VERSION, TWO_PLAYER_REPLAY_SURPRISE_VERSION, TWO_PLAYER_REPLAY_VERSION,
};
/// The bytes of the policy surprise that a version 2 file stores before
/// each policy (and the general game's version 3 file), skipped on reading.
pub(crate) const SURPRISE_LEN: usize = 2;
const HEADER_LEN: usize = 8 + 2 + 9 + 4 + 3 + 2 + 4 + 4;
const POSITION_FIXED_LEN: usize = 16 + 1 + 2 + 4 + 4 + 2 + 2 + 2;

/// One position of a recorded game.
#[derive(Clone, PartialEq, Debug)]
pub struct PositionRecord {
    pub position: Position,
    /// The move played from this position.
    pub played: Move,
    /// The root search value for the side to move, in [-1, 1].
    pub root_value: f32,
    /// The policy target over `position.legal_moves()` in that order,
    /// quantized to 0..=255; `None` for a cheap search (playout cap
    /// randomization) that is not a training target.
    pub policy: Option<Vec<u8>>,
}

/// A finished self-play game.
#[derive(Clone, PartialEq, Debug)]
pub struct SelfPlayGame {
    pub rules: Rules,
    pub model_generation: u32,
    /// How the game ended: by the rules (marbles off, move limit, no
    /// push-off, no legal move), or [`EndReason::Resignation`] when the
    /// loser resigned because the search's value stayed below the threshold.
    pub ending: Ending,
    /// Resignation was switched off for this game so that it is played out
    /// and false resignations can be measured.
    pub resignation_disabled: bool,
    /// The first side whose value fell below the resignation threshold for
    /// long enough, whether or not it resigned.
    pub would_resign: Option<Color>,
    /// Marbles of Black and White pushed off at the end.
    pub final_off: [u8; 2],
    pub positions: Vec<PositionRecord>,
}

impl SelfPlayGame {
    /// The final marble difference from `color`'s side: the opponent's
    /// marbles pushed off minus its own.
    pub fn marble_difference_for(&self, color: Color) -> i32 {
        i32::from(self.final_off[color.opponent().index()])
            - i32::from(self.final_off[color.index()])
    }

    /// The marble difference from `color`'s side `horizon` plies after
    /// position `index` (a position of the game then, else the end); `None`:
    /// at the end.
    pub fn marble_difference_after(&self, index: usize, horizon: Option<u32>, color: Color) -> i32 {
        match horizon.and_then(|plies| self.positions.get(index + plies as usize)) {
            Some(later) => {
                i32::from(later.position.marbles_off(color.opponent()))
                    - i32::from(later.position.marbles_off(color))
            }
            None => self.marble_difference_for(color),
        }
    }

    /// The result for `color`: 1 win, 0 draw, -1 loss.
    pub fn result_for(&self, color: Color) -> i8 {
        match self.ending.outcome {
            Outcome::Win(winner) if winner == color.index() => 1,
            Outcome::Win(_) => -1,
            Outcome::Draw(_) => 0,
        }
    }

    /// Positions that carry a policy target.
    pub fn training_positions(&self) -> usize {
        self.positions
            .iter()
            .filter(|record| record.policy.is_some())
            .count()
    }
}

/// Quantizes a probability distribution to bytes (the stored policy form).
pub fn quantize_policy(probabilities: impl IntoIterator<Item = f32>) -> Vec<u8> {
    probabilities
        .into_iter()
        .map(|p| (p.clamp(0.0, 1.0) * 255.0).round() as u8)
        .collect()
}

/// Turns a stored policy back into probabilities summing to one (uniform if
/// every entry rounded to zero).
pub fn dequantize_policy(policy: &[u8]) -> Vec<f32> {
    let total: u32 = policy.iter().map(|&q| u32::from(q)).sum();
    if total == 0 {
        return vec![1.0 / policy.len().max(1) as f32; policy.len()];
    }
    policy
        .iter()
        .map(|&q| f32::from(q) / total as f32)
        .collect()
}

fn encode_rules(out: &mut Vec<u8>, rules: Rules) {
    out.push(rules.marbles_to_win);
    out.extend_from_slice(&rules.max_plies.unwrap_or(0).to_le_bytes());
    out.extend_from_slice(&rules.no_push_off_plies.unwrap_or(0).to_le_bytes());
}

fn end_code(reason: EndReason) -> u8 {
    match reason {
        EndReason::MarblesOff => 0,
        EndReason::MoveLimit => 1,
        EndReason::NoPushOff => 2,
        EndReason::NoLegalMoves => 3,
        EndReason::Resignation => 4,
        EndReason::NeutralPushedOff => {
            unreachable!("the two-player engine has no neutral marbles to end a game")
        }
    }
}

fn color_code(color: Option<Color>) -> u8 {
    match color {
        None => 0,
        Some(Color::Black) => 1,
        Some(Color::White) => 2,
    }
}

/// The bytes of a replay file holding `game`: its encoding in the replay
/// container ([`super::container`]).
pub fn encode_game(game: &SelfPlayGame) -> Vec<u8> {
    container::wrap(GameKind::TwoPlayer, &encode_game_body(game))
}

/// The game's own encoding (the layout above): what the container holds,
/// and all a file written before the container held.
pub(crate) fn encode_game_body(game: &SelfPlayGame) -> Vec<u8> {
    let policy_bytes: usize = game
        .positions
        .iter()
        .map(|p| p.policy.as_ref().map_or(0, Vec::len))
        .sum();
    let mut out = Vec::with_capacity(
        HEADER_LEN + game.positions.len() * POSITION_FIXED_LEN + policy_bytes + 4,
    );
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&TWO_PLAYER_REPLAY_VERSION.to_le_bytes());
    encode_rules(&mut out, game.rules);
    out.extend_from_slice(&game.model_generation.to_le_bytes());
    out.push(match game.ending.outcome {
        Outcome::Win(0) => 0,
        Outcome::Win(_) => 1,
        Outcome::Draw(_) => 2,
    });
    out.push(end_code(game.ending.reason));
    out.push(u8::from(game.resignation_disabled) | (color_code(game.would_resign) << 1));
    out.extend_from_slice(&game.final_off);
    out.extend_from_slice(&(game.positions.len() as u32).to_le_bytes());
    out.extend_from_slice(&(game.training_positions() as u32).to_le_bytes());
    for record in &game.positions {
        let position = &record.position;
        out.extend_from_slice(&position.cell_mask(Color::Black).to_le_bytes());
        out.extend_from_slice(&position.cell_mask(Color::White).to_le_bytes());
        let side = u8::from(position.side_to_move() == Color::White);
        out.push(side | (u8::from(record.policy.is_some()) << 1));
        out.push(position.marbles_off(Color::Black));
        out.push(position.marbles_off(Color::White));
        out.extend_from_slice(&position.ply().to_le_bytes());
        out.extend_from_slice(&position.plies_since_push_off().to_le_bytes());
        out.extend_from_slice(&(record.played.action() as u16).to_le_bytes());
        out.extend_from_slice(
            &((record.root_value.clamp(-1.0, 1.0) * 32767.0).round() as i16).to_le_bytes(),
        );
        let legal = position.count_legal_moves();
        out.extend_from_slice(&(legal as u16).to_le_bytes());
        if let Some(policy) = &record.policy {
            debug_assert_eq!(policy.len(), legal, "policy must cover the legal moves");
            out.extend_from_slice(policy);
        }
    }
    let crc = crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

pub(crate) struct Cursor<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn take(&mut self, count: usize) -> Result<&'a [u8], FormatError> {
        let end = self.at + count;
        let slice = self.bytes.get(self.at..end).ok_or(FormatError::Truncated {
            length: self.bytes.len(),
            needed: end,
        })?;
        self.at = end;
        Ok(slice)
    }
    pub(crate) fn u8(&mut self) -> Result<u8, FormatError> {
        Ok(self.take(1)?[0])
    }
    pub(crate) fn u16(&mut self) -> Result<u16, FormatError> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }
    pub(crate) fn u32(&mut self) -> Result<u32, FormatError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    pub(crate) fn u64(&mut self) -> Result<u64, FormatError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
}

fn nonzero(value: u32) -> Option<u32> {
    (value != 0).then_some(value)
}

/// The header fields every reader needs before the positions: checked
/// magic, and the version (one this build reads).
fn read_header(cursor: &mut Cursor<'_>) -> Result<u16, FormatError> {
    if cursor.take(8).map_err(|_| FormatError::BadMagic)? != MAGIC {
        return Err(FormatError::BadMagic);
    }
    let version = cursor.u16()?;
    if !(TWO_PLAYER_REPLAY_FIRST_VERSION..=TWO_PLAYER_REPLAY_VERSION).contains(&version) {
        return Err(FormatError::UnsupportedVersion {
            found: version,
            supported: TWO_PLAYER_REPLAY_VERSION,
        });
    }
    Ok(version)
}

/// Reads the bytes of a replay file (in the container, or written before
/// it), checking the checksum, every field, and that each stored position
/// and policy agree with the rules.
pub fn decode_game(bytes: &[u8]) -> Result<SelfPlayGame, FormatError> {
    decode_game_body(container::unwrap(GameKind::TwoPlayer, bytes)?)
}

fn decode_game_body(bytes: &[u8]) -> Result<SelfPlayGame, FormatError> {
    let mut cursor = Cursor { bytes, at: 0 };
    let version = read_header(&mut cursor)?;
    if bytes.len() < HEADER_LEN + 4 {
        return Err(FormatError::Truncated {
            length: bytes.len(),
            needed: HEADER_LEN + 4,
        });
    }
    let (body, stored) = bytes.split_at(bytes.len() - 4);
    let stored = u32::from_le_bytes(stored.try_into().expect("4 bytes"));
    let computed = crc32c(body);
    if stored != computed {
        return Err(FormatError::Checksum { stored, computed });
    }
    let mut cursor = Cursor {
        bytes: body,
        at: 10,
    };
    let marbles_to_win = cursor.u8()?;
    let rules = Rules {
        marbles_to_win,
        max_plies: nonzero(cursor.u32()?),
        no_push_off_plies: nonzero(cursor.u32()?),
    };
    // The engine's one check of rule values (the limits are stored with 0
    // for none, so only the target can be out of range).
    rules
        .validate()
        .map_err(|err| FormatError::BadHeader(format!("rules: {err}")))?;
    let model_generation = cursor.u32()?;
    let outcome = match cursor.u8()? {
        0 => Outcome::win_of(Color::Black),
        1 => Outcome::win_of(Color::White),
        2 => Outcome::draw_of_all(2),
        other => {
            return Err(FormatError::BadHeader(format!(
                "unknown outcome code {other}"
            )));
        }
    };
    let reason = match cursor.u8()? {
        0 => EndReason::MarblesOff,
        1 => EndReason::MoveLimit,
        2 => EndReason::NoPushOff,
        3 => EndReason::NoLegalMoves,
        4 => EndReason::Resignation,
        other => return Err(FormatError::BadHeader(format!("unknown end code {other}"))),
    };
    let resignation = cursor.u8()?;
    let would_resign = match resignation >> 1 {
        0 => None,
        1 => Some(Color::Black),
        2 => Some(Color::White),
        _ => {
            return Err(FormatError::BadHeader(format!(
                "bad resignation byte {resignation:#04x}"
            )));
        }
    };
    let final_off = [cursor.u8()?, cursor.u8()?];
    let count = cursor.u32()? as usize;
    let training_count = cursor.u32()? as usize;
    // Each record is at least POSITION_FIXED_LEN bytes: refuse absurd counts
    // before allocating for them.
    if count > body.len() / POSITION_FIXED_LEN {
        return Err(FormatError::BadHeader(format!(
            "position count {count} exceeds the file size"
        )));
    }
    let mut positions = Vec::with_capacity(count);
    for index in 0..count {
        let bad = |problem: String| FormatError::BadPosition { index, problem };
        let boards = [cursor.u64()?, cursor.u64()?];
        let flags = cursor.u8()?;
        let side = if flags & 1 == 1 {
            Color::White
        } else {
            Color::Black
        };
        let off = [cursor.u8()?, cursor.u8()?];
        let ply = cursor.u32()?;
        let since_push_off = cursor.u32()?;
        let position = Position::from_cell_masks(boards, side, off, rules, ply, since_push_off)
            .map_err(|err| bad(err.to_string()))?;
        let played = Move::from_action(usize::from(cursor.u16()?))
            .ok_or_else(|| bad("unknown action".into()))?;
        if !position.is_legal(played) {
            return Err(bad(format!("played move {played} is not legal here")));
        }
        let root_value = f32::from(cursor.u16()? as i16) / 32767.0;
        let legal = usize::from(cursor.u16()?);
        let actual = position.count_legal_moves();
        if legal != actual {
            return Err(bad(format!(
                "records {legal} legal moves, the rules give {actual}"
            )));
        }
        let policy = if flags & 2 != 0 {
            if version == TWO_PLAYER_REPLAY_SURPRISE_VERSION {
                cursor.take(SURPRISE_LEN)?;
            }
            Some(cursor.take(legal)?.to_vec())
        } else {
            None
        };
        positions.push(PositionRecord {
            position,
            played,
            root_value,
            policy,
        });
    }
    if cursor.at != body.len() {
        return Err(FormatError::TrailingBytes {
            extra: body.len() - cursor.at,
        });
    }
    let game = SelfPlayGame {
        rules,
        model_generation,
        ending: Ending::new(outcome, reason),
        resignation_disabled: resignation & 1 == 1,
        would_resign,
        final_off,
        positions,
    };
    if game.training_positions() != training_count {
        return Err(FormatError::BadHeader(format!(
            "header counts {training_count} training positions, the file holds {}",
            game.training_positions()
        )));
    }
    Ok(game)
}

/// The header of a replay file without its positions, for counting a store's
/// contents without decoding every game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GameSummary {
    pub model_generation: u32,
    pub positions: u32,
    pub training_positions: u32,
}

/// Reads only the header (no checksum check: the full load does that).
pub fn peek_summary(bytes: &[u8]) -> Result<GameSummary, FormatError> {
    let bytes = container::peek(GameKind::TwoPlayer, bytes)?;
    let mut cursor = Cursor { bytes, at: 0 };
    read_header(&mut cursor)?;
    cursor.take(9)?;
    let model_generation = cursor.u32()?;
    cursor.take(5)?;
    let positions = cursor.u32()?;
    Ok(GameSummary {
        model_generation,
        positions,
        training_positions: cursor.u32()?,
    })
}

impl ReplayGame for SelfPlayGame {
    const KIND: GameKind = GameKind::TwoPlayer;

    fn encode(&self) -> Vec<u8> {
        encode_game(self)
    }

    fn peek_training_positions(bytes: &[u8]) -> Result<u64, String> {
        peek_summary(bytes)
            .map(|summary| u64::from(summary.training_positions))
            .map_err(|err| err.to_string())
    }

    fn decode(bytes: &[u8]) -> Result<Self, String> {
        decode_game(bytes).map_err(|err| err.to_string())
    }

    fn training_indices(&self) -> Vec<u32> {
        (0..self.positions.len() as u32)
            .filter(|&index| self.positions[index as usize].policy.is_some())
            .collect()
    }

    type Board = Position;
    type PositionRecord = PositionRecord;

    fn position_record(position: &Position, result: &SearchResult) -> PositionRecord {
        let policy = result.full_search.then(|| {
            // In increasing action order: found by halving, not by a walk
            // through every move for each of the root's.
            let moves = position.legal_moves();
            let mut target = vec![0.0f32; moves.len()];
            for root in &result.root_actions {
                if let Ok(slot) = moves.binary_search_by_key(&root.action, |mv| mv.action()) {
                    target[slot] = root.policy_target;
                }
            }
            quantize_policy(target)
        });
        let played = Move::from_action(result.action).expect("the search plays legal actions");
        PositionRecord {
            position: *position,
            played,
            root_value: result.value,
            policy,
        }
    }

    fn position_of(record: &PositionRecord) -> Position {
        record.position
    }

    fn positions(&self) -> &[PositionRecord] {
        &self.positions
    }

    /// Resignation: with two sides, the other one would have resigned.
    fn finish(
        game: FinishedGame<PositionRecord>,
        last: &Position,
        rules: &Rules,
        model_generation: u32,
    ) -> SelfPlayGame {
        let ending = game.ending;
        SelfPlayGame {
            rules: *rules,
            model_generation,
            ending,
            resignation_disabled: game.resignation_disabled,
            would_resign: game
                .would_concede_to
                .map(|winner| color_of_seat(winner).opponent()),
            final_off: [
                last.marbles_off(Color::Black),
                last.marbles_off(Color::White),
            ],
            positions: game.positions,
        }
    }

    fn tally(&self) -> GameTally {
        GameTally {
            positions: self.positions.len() as u64,
            training_positions: self.training_positions() as u64,
            decisive: self.ending.outcome.winner().is_some(),
            resigned: self.ending.reason == EndReason::Resignation,
            resign_check: self
                .would_resign
                .filter(|_| self.resignation_disabled)
                .map(|side| self.result_for(side) >= 0),
        }
    }

    type Sample = TrainingSample;

    /// Each under a symmetry the run's rules allow.
    fn training_batch<'a>(
        mut draw: impl FnMut(&mut ChaCha8Rng) -> (&'a Self, usize),
        rng: &mut ChaCha8Rng,
        config: &Config,
        batch_size: usize,
    ) -> Vec<TrainingSample> {
        let symmetries = symmetries_for(config.rules.rules());
        (0..batch_size)
            .map(|_| {
                let (game, index) = draw(rng);
                let symmetry = if symmetries.is_empty() {
                    Symmetry::IDENTITY
                } else {
                    symmetries[rng.random_range(0..symmetries.len())]
                };
                game.training_sample(index, symmetry, &config.training)
            })
            .collect()
    }
}

impl SelfPlayGame {
    /// The training sample of position `index` (one with a policy target)
    /// under `symmetry`: its policy target, the game's result as a
    /// win/draw/loss target ([`ValueTarget`]) and the marble difference
    /// for the side to move.
    pub fn training_sample(
        &self,
        index: usize,
        symmetry: Symmetry,
        config: &TrainingConfig,
    ) -> TrainingSample {
        let record = &self.positions[index];
        let moves = record.position.legal_moves();
        let probabilities = dequantize_policy(
            record
                .policy
                .as_deref()
                .expect("training positions have a policy target"),
        );
        let policy = moves
            .iter()
            .zip(probabilities)
            .map(|(mv, p)| (symmetry.apply_move(*mv), p))
            .collect();
        let side = record.position.side_to_move();
        let at_move_limit = self.ending.reason == EndReason::MoveLimit;
        let marble_difference =
            self.marble_difference_after(index, config.margin_horizon_plies, side);
        TrainingSample {
            position: symmetry.apply_position(&record.position),
            policy,
            wdl: ValueTarget::of(config).wdl(self.result_for(side), at_move_limit),
            marble_diff: marble_difference as f32,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use sumito_engine::Layout;

    /// A random game under `rules`, with a policy target on every other position.
    pub(crate) fn random_game(seed: u64, rules: Rules) -> SelfPlayGame {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut position = Position::start(Layout::BelgianDaisy, rules);
        let mut positions = Vec::new();
        while position.ending().is_none() {
            let moves = position.legal_moves();
            let played = moves[rng.random_range(0..moves.len())];
            let policy = (positions.len() % 2 == 0).then(|| {
                let raw: Vec<f32> = (0..moves.len()).map(|_| rng.random::<f32>()).collect();
                let sum: f32 = raw.iter().sum();
                quantize_policy(raw.iter().map(|p| p / sum))
            });
            positions.push(PositionRecord {
                position,
                played,
                root_value: rng.random_range(-1.0..1.0),
                policy,
            });
            position = position.play(played);
        }
        SelfPlayGame {
            rules,
            model_generation: 7,
            ending: position.ending().unwrap(),
            resignation_disabled: true,
            would_resign: Some(Color::White),
            final_off: [
                position.marbles_off(Color::Black),
                position.marbles_off(Color::White),
            ],
            positions,
        }
    }

    /// The version and the length of the game's encoding in a replay file
    /// of `kind`.
    pub(crate) fn version_and_length(kind: GameKind, bytes: &[u8]) -> (u16, usize) {
        let body = container::unwrap(kind, bytes).unwrap();
        (u16::from_le_bytes([body[8], body[9]]), body.len())
    }

    fn limited_rules() -> Rules {
        Rules {
            marbles_to_win: 6,
            max_plies: Some(120),
            no_push_off_plies: None,
        }
    }

    #[test]
    fn a_game_round_trips_exactly() {
        let game = random_game(1, limited_rules());
        let bytes = encode_game(&game);
        let decoded = decode_game(&bytes).unwrap();
        assert_eq!(decoded.positions.len(), game.positions.len());
        for (a, b) in decoded.positions.iter().zip(&game.positions) {
            assert_eq!(a.position, b.position);
            assert_eq!(a.played, b.played);
            assert_eq!(a.policy, b.policy);
            assert!((a.root_value - b.root_value).abs() < 1e-4);
        }
        assert_eq!(decoded.rules, game.rules);
        assert_eq!(
            (decoded.ending, decoded.final_off),
            (game.ending, game.final_off)
        );
        assert_eq!(
            (decoded.resignation_disabled, decoded.would_resign),
            (true, Some(Color::White))
        );
        let summary = peek_summary(&bytes).unwrap();
        assert_eq!(
            summary,
            GameSummary {
                model_generation: 7,
                positions: game.positions.len() as u32,
                training_positions: game.training_positions() as u32,
            }
        );
    }

    #[test]
    fn positions_stay_within_256_bytes_on_average_and_worst_case() {
        let game = random_game(2, limited_rules());
        let bytes = encode_game(&game).len();
        let per_position = bytes as f64 / game.positions.len() as f64;
        assert!(per_position <= 256.0, "{per_position} bytes per position");
        let worst = game
            .positions
            .iter()
            .map(|p| POSITION_FIXED_LEN + p.position.count_legal_moves())
            .max()
            .unwrap();
        assert!(worst <= 256, "worst position takes {worst} bytes");
    }

    #[test]
    fn every_truncation_and_every_flipped_bit_is_detected() {
        let game = random_game(
            3,
            Rules {
                max_plies: Some(12),
                ..limited_rules()
            },
        );
        let bytes = encode_game(&game);
        for length in 0..bytes.len() {
            assert!(
                decode_game(&bytes[..length]).is_err(),
                "truncated to {length} bytes"
            );
        }
        for index in 0..bytes.len() {
            let mut corrupt = bytes.clone();
            corrupt[index] ^= 1 << (index % 8);
            assert!(decode_game(&corrupt).is_err(), "flip at byte {index}");
        }
    }

    #[test]
    fn impossible_boards_are_refused_with_the_position_named() {
        let mut bytes = encode_game_body(&random_game(5, limited_rules()));
        // Copy the first position's black board onto its white board and
        // seal the file again, so that only the board is wrong.
        let black = bytes[HEADER_LEN..HEADER_LEN + 8].to_vec();
        bytes[HEADER_LEN + 8..HEADER_LEN + 16].copy_from_slice(&black);
        let body = bytes.len() - 4;
        let crc = crc32c(&bytes[..body]);
        bytes[body..].copy_from_slice(&crc.to_le_bytes());
        match decode_game(&bytes) {
            Err(FormatError::BadPosition { index: 0, problem }) => {
                assert!(problem.contains("holds both"), "{problem}")
            }
            other => panic!("expected a bad position 0, got {other:?}"),
        }
    }

    #[test]
    fn a_version_1_file_reads_and_writes_again_as_it_was() {
        let old = include_bytes!("../../testdata/before-container/two-player.game");
        assert_eq!(u16::from_le_bytes([old[8], old[9]]), 1);
        let game = decode_game(old).unwrap();
        assert!(game.training_positions() > 0);
        let again = encode_game(&game);
        assert_eq!(decode_game(&again).unwrap(), game);
    }

    #[test]
    fn a_version_2_file_reads_its_policies_past_the_surprises_it_stores() {
        let old = include_bytes!("../../testdata/policy-surprise/two-player-v2.replay");
        let (version, length) = version_and_length(GameKind::TwoPlayer, old);
        assert_eq!(version, TWO_PLAYER_REPLAY_SURPRISE_VERSION);
        // Every position, move and policy length is checked against the
        // rules as it is read: a surprise not skipped would misalign them.
        let game = decode_game(old).unwrap();
        assert_eq!((game.positions.len(), game.training_positions()), (16, 8));
        assert_eq!(game.rules.max_plies, Some(16));
        for (ply, record) in game.positions.iter().enumerate() {
            assert_eq!(record.position.ply() as usize, ply);
            assert_eq!(record.policy.is_some(), ply % 2 == 0);
        }
        // Written again, it is of the current version, two bytes shorter a
        // policy target, and reads back the same.
        let again = encode_game(&game);
        let (again_version, again_length) = version_and_length(GameKind::TwoPlayer, &again);
        assert_eq!(
            (again_version, again_length + SURPRISE_LEN * 8),
            (TWO_PLAYER_REPLAY_VERSION, length)
        );
        assert_eq!(decode_game(&again).unwrap(), game);
    }

    #[test]
    fn versions_are_checked_before_anything_else() {
        let mut bytes = encode_game_body(&random_game(
            4,
            Rules {
                max_plies: Some(4),
                ..limited_rules()
            },
        ));
        bytes[8] = 9;
        assert_eq!(
            decode_game(&bytes),
            Err(FormatError::UnsupportedVersion {
                found: 9,
                supported: TWO_PLAYER_REPLAY_VERSION
            })
        );
        assert_eq!(
            decode_game(b"PK\x03\x04 not a replay"),
            Err(FormatError::BadMagic)
        );
    }

    #[test]
    fn the_marble_difference_is_read_a_horizon_later_or_at_the_end() {
        // Random play pushes marbles off now and then: find a game that does.
        let game = (0..50)
            .map(|seed| random_game(seed, limited_rules()))
            .find(|game| {
                game.positions
                    .iter()
                    .any(|record| record.position.marbles_off(Color::Black) > 0)
            })
            .expect("a random game pushes a Black marble off before its end");
        let len = game.positions.len();
        let diff_at = |index: usize, color: Color| {
            let position = &game.positions[index].position;
            i32::from(position.marbles_off(color.opponent()))
                - i32::from(position.marbles_off(color))
        };
        for index in 0..len {
            let side = game.positions[index].position.side_to_move();
            for color in [side, side.opponent()] {
                assert_eq!(
                    game.marble_difference_after(index, None, color),
                    game.marble_difference_for(color)
                );
                assert_eq!(
                    game.marble_difference_after(index, Some(0), color),
                    diff_at(index, color)
                );
                let later = game.marble_difference_after(index, Some(12), color);
                if index + 12 < len {
                    assert_eq!(later, diff_at(index + 12, color));
                } else {
                    assert_eq!(later, game.marble_difference_for(color));
                }
            }
        }
        // The horizon sees a push-off the position before it did not.
        let first_off = (0..len)
            .find(|&i| diff_at(i, Color::Black) != 0)
            .expect("the game was chosen for it");
        assert_eq!(diff_at(first_off - 1, Color::Black), 0);
        assert_ne!(
            game.marble_difference_after(first_off - 1, Some(1), Color::Black),
            0
        );
    }

    #[test]
    fn policies_dequantize_to_distributions() {
        let policy = quantize_policy([0.5, 0.25, 0.25, 0.0]);
        assert_eq!(policy, vec![128, 64, 64, 0]);
        let back = dequantize_policy(&policy);
        assert!((back.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert_eq!(dequantize_policy(&[0, 0]), vec![0.5, 0.5]);
    }
}
