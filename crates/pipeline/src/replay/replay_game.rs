//! What a replay file is to the folder that holds it and the store that
//! reads it: the one interface each game's format implements.

use sumito_game::GameKind;

/// A kind of replay file, as the replay folder writes it and the store
/// reads it: implemented once per game's format, by the two-player
/// `format::SelfPlayGame` and the general game's
/// `general_format::GeneralReplay`.
pub trait ReplayGame: Sized + Send + Sync {
    /// Which game its files hold.
    const KIND: GameKind;
    /// The file's bytes.
    fn encode(&self) -> Vec<u8>;
    /// The training positions of a file, read cheaply where the format
    /// allows (a file that would fall out of the window at once is only
    /// counted).
    fn peek_training_positions(bytes: &[u8]) -> Result<u64, String>;
    fn decode(bytes: &[u8]) -> Result<Self, String>;
    /// The indices of its positions that carry a policy target.
    fn training_indices(&self) -> Vec<u32>;
    /// The policy surprise of each position of [`ReplayGame::training_indices`],
    /// in that order, where the file records it.
    fn policy_surprises(&self) -> Vec<Option<f32>>;
}
