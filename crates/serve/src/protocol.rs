//! The messages between the page and the server, as JSON objects with a
//! `type` field, one per WebSocket text message. The board is described
//! cell by cell and the legal moves by the cells they pick up and where each
//! goes, so the page needs no rules of its own and draws every variant and
//! 3–6 players the same way.
//!
//! From the page:
//!
//! | `type` | fields | what |
//! |---|---|---|
//! | `new_game` | `layout`, `rules` (a `[rules]` table as JSON, optional), `seats` (one per seat: `{"kind":"human"}`, `{"kind":"classical","spec":"alphabeta:depth=2"}` (a classical player; `"engine"`, its older kind, still read), `{"kind":"model","simulations":400}`, or with `"time_ms"`, or `{"kind":"model","level":3}`; a model seat may name one of the server's models, `"model":"NAME"`, else it is the first that plays the game), `clock` (`{"minutes":10,"increment_seconds":60}`, optional) | starts a game |
//! | `move` | `text` (Aba-Pro or comma form) | plays a move for the person to move; shown at an earlier ply or in a variation, the move is checked in the shown position and extends the variation (or follows the game's next move) |
//! | `undo` | | takes back to the previous turn of a person |
//! | `resign` | | the person to move resigns |
//! | `goto` | `ply`, `line` (optional: moves, each checked in the position it is played in) | shows the position after `ply` moves of the game, then the variation `line`; the line joins the game's tree of variations (the state's `variations`) |
//! | `stop` | | ends the page's analysis or review in progress at once (its result is everything it searched, the step under way included) |
//! | `analyse` (or `analyze`, its old spelling, still read) | `simulations` (optional), `position` (optional position text) | searches the shown (or given) position with the model |
//! | `load` | `record` (a Sumito record, or Aba-Pro moves one per line or separated by spaces); `seats` and `clock` as `new_game`'s and `clock_ms` (milliseconds left on each seat's clock), all optional | replaces the game, its variations included; every seat a person, unless `seats` seats the players again (a reload restores its game so) |
//! | `save` | | asks for the game as a record, its variations included |
//! | `review` | `simulations` (optional, per position) | the model reviews every move of the game |
//! | `try_move` | `ply`, `text` | learn from your mistakes: the model judges `text` tried in place of move `ply` of the last review |
//!
//! From the server: `state` (everything the page shows, among it the
//! models served with the layouts each plays, and this game's model), `analysis`
//! (several per request as the search grows, the last with `done: true`),
//! `review_progress` (`done`, `total` positions searched), `review` (the
//! review as `sumito review --json` writes it, its SVG report, and the
//! `lines` of each judged move: the move played, the better line and the
//! legal moves, as the cells they pick up and where each goes),
//! `tried` (the verdict on a `try_move`: `ply`, `tried`, `score`,
//! `solved`, `says`), `record` (`text`), `error` (`message`).
//!
//! The schemas are strict: a message with a field its type does not have,
//! or without one it needs, is refused with an `error` (which quotes at most
//! a short excerpt of what was sent), and nothing else happens.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who plays a seat, as the page asks for it (and as the state gives it
/// back, for the page to seat the same players after a reload).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SeatRequest {
    Human {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// A classical player from the page's menu (`crate::menu`).
    // `engine`: the kind's older name, still read (an alias), so that a
    // client written for it keeps working.
    #[serde(alias = "engine")]
    Classical { spec: String },
    Model {
        /// Which of the server's models, by name (default: the first that
        /// plays this game).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        simulations: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        time_ms: Option<u64>,
        /// A strength level, 1 to 10: its simulations and move choice
        /// (`sumito_game::level`), in place of `simulations` and `time_ms`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        level: Option<u32>,
    },
}

/// A time control: minutes per player, seconds added per marble pushed off.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ClockRequest {
    pub minutes: f64,
    #[serde(default)]
    pub increment_seconds: f64,
}

/// A message from the page.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMessage {
    NewGame {
        layout: String,
        #[serde(default)]
        rules: Option<Value>,
        seats: Vec<SeatRequest>,
        #[serde(default)]
        clock: Option<ClockRequest>,
    },
    Move {
        text: String,
    },
    // (Empty braces, not unit variants: serde refuses unknown fields only
    // in variants that have braces.)
    Undo {},
    Resign {},
    Goto {
        ply: usize,
        /// A variation from that ply: moves in the notation of `move`.
        #[serde(default)]
        line: Vec<String>,
    },
    /// Ends the analysis or review in progress (any message does; this one
    /// does nothing else).
    Stop {},
    // `analyze`: the type's older spelling, still read (an alias),
    // so that a client written for it keeps working.
    #[serde(alias = "analyze")]
    Analyse {
        #[serde(default)]
        simulations: Option<u32>,
        #[serde(default)]
        position: Option<String>,
    },
    Load {
        record: String,
        /// The players of the record's seats, as `new_game` asks for
        /// them; without them every seat is a person.
        #[serde(default)]
        seats: Option<Vec<SeatRequest>>,
        /// The time control, as `new_game`'s.
        #[serde(default)]
        clock: Option<ClockRequest>,
        /// Milliseconds left on each seat's clock (with `clock`; without,
        /// each seat has the time control's full time).
        #[serde(default)]
        clock_ms: Option<Vec<u64>>,
    },
    Save {},
    Review {
        #[serde(default)]
        simulations: Option<u32>,
    },
    /// A move tried in place of move `ply` of the last review (learn mode).
    TryMove {
        ply: usize,
        text: String,
    },
}

#[cfg(test)]
impl ClientMessage {
    /// `load` of `record` alone: every seat a person, no clock.
    pub(crate) fn load(record: String) -> ClientMessage {
        ClientMessage::Load {
            record,
            seats: None,
            clock: None,
            clock_ms: None,
        }
    }
}

/// What stands on one cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellView {
    pub cell: String,
    /// `empty`, a colour (`black`, `white`, `red`, ...), `common`,
    /// `neutral`, `obstacle` or `hole`.
    pub content: &'static str,
}

/// One seat of the game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeatView {
    pub colour: &'static str,
    /// Who plays it: `you`, a name, a classical player's spec, or the
    /// model's name.
    pub player: String,
    pub human: bool,
    /// Marbles it pushed off.
    pub score: u8,
    /// Its side's score and target.
    pub side_score: u32,
    pub target: u8,
    pub marbles: u32,
    /// Milliseconds left on its clock, if the game is timed.
    pub clock_ms: Option<u64>,
    /// The seat as `new_game` asks for it: the page keeps it, and a
    /// reload's `load` sends it back to seat the same player.
    pub request: SeatRequest,
}

/// One legal move: its text, the cells it picks up and where each goes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveView {
    pub text: String,
    pub comma: String,
    pub from: Vec<String>,
    pub to: Vec<String>,
}

/// A marble that a side could push off with one move if it were its
/// turn, by the engine's exact rules (whatever the network thinks).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThreatView {
    /// The marble's cell.
    pub cell: String,
    /// The colour of the seat that could push it off.
    pub by: &'static str,
    /// Whether that seat is to move: it can push the marble off now.
    pub now: bool,
}

/// One line of the game's tree of variations: moves from the position
/// after `ply` moves of the game, the first another than the game's own.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VariationView {
    pub ply: usize,
    pub moves: Vec<String>,
}

/// One move of the game so far.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlyView {
    pub ply: usize,
    pub seat: usize,
    pub text: String,
    /// The position after it.
    pub position: String,
    /// The mover's win probability after the search that chose it, if a
    /// player that estimates it played it or an analysis ran there.
    pub win: Option<f32>,
    /// How long the player thought about it (moves of classical players
    /// and models only), so that the page (and `sumito bench serve`) can
    /// tell the server's overhead.
    pub think_ms: Option<f64>,
}

/// Everything the page shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StateView {
    pub layout: String,
    pub rules: String,
    pub position: String,
    /// The ply shown (the move list's cursor); equal to `history.len()` at
    /// the end of the game so far.
    pub cursor: usize,
    pub board: Vec<CellView>,
    pub seats: Vec<SeatView>,
    /// The game's time control, if it is timed (a reload's `load` sends
    /// it back, with the time left on each clock). Boxed, as the state is
    /// the largest message and an untimed game's is one word the larger.
    pub clock: Option<Box<ClockRequest>>,
    pub to_move: usize,
    /// Whether a person is to move at the end of the game so far.
    pub human_to_move: bool,
    /// The legal moves of the shown position where the person may play
    /// one: at the end of the game on a person's turn (a move of the game),
    /// or at an earlier ply or in a variation (a move of the variation).
    pub legal: Vec<MoveView>,
    pub history: Vec<PlyView>,
    /// The variation shown: moves played from the position after `cursor`
    /// moves of the game (empty on the game's own line); `position`,
    /// `board`, `legal` and `threats` are of the position after them.
    pub line: Vec<String>,
    /// The game's tree of variations, as the lines of its leaves in the
    /// order they were played (the first line through a move is its main
    /// continuation): every line shown joins it, a loaded record brings
    /// its own, and a saved one keeps them.
    pub variations: Vec<VariationView>,
    /// The marbles each side could push off in the shown position.
    pub threats: Vec<ThreatView>,
    pub result: Option<String>,
    /// Whether analysis is available (a model is loaded and the game is
    /// one it plays: a two-player model's plain game, a general model's
    /// game under its rules).
    pub can_analyse: bool,
    /// This game's model (its model seats', or the one that analyses
    /// it), if any.
    pub model: Option<String>,
    /// That model's strength levels, weakest first (empty without a model).
    pub levels: Vec<LevelView>,
    /// Every model the server offers (the page offers each as opponent on
    /// the layouts it plays).
    pub models: Vec<ModelView>,
    /// Set when the model analyses this game under other rules than the
    /// game's (the model's training rules are the only ones it plays under).
    pub rules_note: Option<String>,
}

/// A model the server offers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelView {
    pub name: String,
    /// The layouts it plays (under its own rules).
    pub layouts: Vec<String>,
    /// Its strength levels, weakest first.
    pub levels: Vec<LevelView>,
}

/// A strength level the page offers for the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LevelView {
    pub number: u32,
    pub name: &'static str,
    pub simulations: u32,
    /// Its Elo on the one Elo scale, where measured for this model.
    pub elo: Option<f64>,
}

/// A judged move of a review drawn on the board before it: the move
/// played, the better move and its line (as far as it stays legal), and
/// the legal moves there (to try one in learn mode).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReviewLine {
    pub ply: usize,
    pub played: MoveView,
    pub better: Vec<MoveView>,
    pub legal: Vec<MoveView>,
}

/// One move of an analysis.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnalysisMove {
    pub text: String,
    pub from: Vec<String>,
    pub to: Vec<String>,
    pub visits: u32,
    pub prior: f32,
    pub q: Option<f32>,
    /// The search's own rating (its policy target): the candidates are in
    /// its order, after the move the search plays.
    pub rating: f32,
    /// The line the search expects after the move, starting with it.
    pub line: Vec<String>,
}

/// A message to the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    State(StateView),
    Analysis {
        position: String,
        /// The side to move, whose win, draw and loss `wdl` gives.
        side: String,
        /// Plies played before the position (the numbers of the line's moves
        /// follow it).
        ply: u32,
        /// Win, draw, loss for the side to move.
        wdl: [f32; 3],
        /// Each side's value, -1 to 1 (the first side's makes the eval bar).
        values_by_side: Vec<f32>,
        /// The move the search plays (the first of `moves`).
        best: String,
        moves: Vec<AnalysisMove>,
        pv: Vec<String>,
        /// The board after each move of `pv`, to step through it.
        pv_boards: Vec<Vec<CellView>>,
        simulations: u32,
        elapsed_ms: u64,
        /// Whether this is the search's last update (they stream: several
        /// `analysis` messages as the search grows).
        done: bool,
    },
    Record {
        text: String,
    },
    /// Positions searched so far by a review.
    ReviewProgress {
        done: usize,
        total: usize,
    },
    /// A finished review: every move judged and each side summed up (as
    /// `sumito review --json` writes it), and the self-contained SVG report.
    Review {
        review: Value,
        svg: String,
        /// The moves of each judged move, to draw on the board before it.
        lines: Vec<ReviewLine>,
    },
    /// The verdict on a move tried in place of a reviewed one.
    Tried {
        ply: usize,
        /// The move tried, as the move list writes it.
        tried: String,
        /// The expected score (percent) it keeps for its mover; none for
        /// the game's own move, which is not judged again.
        score: Option<f32>,
        /// Within the review's inaccuracy threshold of the best move.
        solved: bool,
        /// The verdict in words (the terminal's exercises say the same).
        says: String,
    },
    Error {
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ClientMessage, String> {
        serde_json::from_str(text).map_err(|err| err.to_string())
    }

    #[test]
    fn messages_with_unknown_or_missing_fields_are_refused() {
        assert_eq!(parse(r#"{"type":"save"}"#), Ok(ClientMessage::Save {}));
        assert_eq!(parse(r#"{"type":"undo"}"#), Ok(ClientMessage::Undo {}));
        assert_eq!(parse(r#"{"type":"resign"}"#), Ok(ClientMessage::Resign {}));
        for bad in [
            r#"{"type":"save","extra":1}"#,
            r#"{"type":"undo","x":null}"#,
            r#"{"type":"resign","why":"tired"}"#,
            r#"{"type":"move","text":"A1B2","also":2}"#,
            r#"{"type":"move"}"#,
            r#"{"type":"goto","ply":-1}"#,
            r#"{"type":"new_game","layout":"standard","seats":[{"kind":"human","extra":1}]}"#,
            r#"{"type":"new_game","layout":"standard","seats":[],"clock":{"minutes":1,"x":2}}"#,
            r#"{"type":"launch"}"#,
            r#"{"text":"A1B2"}"#,
            r#"[]"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_move_tried_names_its_ply_and_its_text() {
        assert_eq!(
            parse(r#"{"type":"try_move","ply":7,"text":"A1B2"}"#),
            Ok(ClientMessage::TryMove {
                ply: 7,
                text: "A1B2".into()
            })
        );
        for bad in [
            r#"{"type":"try_move","ply":7}"#,
            r#"{"type":"try_move","text":"A1B2"}"#,
            r#"{"type":"try_move","ply":-1,"text":"A1B2"}"#,
            r#"{"type":"try_move","ply":7,"text":"A1B2","score":99}"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        // The verdict as the page reads it.
        let verdict = serde_json::to_value(ServerMessage::Tried {
            ply: 7,
            tried: "A1B2".into(),
            score: Some(48.5),
            solved: true,
            says: "Good".into(),
        })
        .unwrap();
        assert_eq!(
            verdict,
            serde_json::json!({"type": "tried", "ply": 7, "tried": "A1B2", "score": 48.5, "solved": true, "says": "Good"})
        );
    }

    #[test]
    fn analyse_is_read_in_both_spellings() {
        let asked = Ok(ClientMessage::Analyse {
            simulations: Some(8),
            position: None,
        });
        assert_eq!(parse(r#"{"type":"analyse","simulations":8}"#), asked);
        // The old spelling, an alias kept for clients written for it.
        assert_eq!(parse(r#"{"type":"analyze","simulations":8}"#), asked);
        assert_eq!(
            parse(r#"{"type":"analyze","position":"9/9 b 0 0"}"#),
            Ok(ClientMessage::Analyse {
                simulations: None,
                position: Some("9/9 b 0 0".into()),
            })
        );
        // Under either name the schema is as strict.
        for bad in [
            r#"{"type":"analyse","extra":1}"#,
            r#"{"type":"analyze","extra":1}"#,
            r#"{"type":"analyze","simulations":-1}"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_classical_seat_is_read_by_its_kind_and_by_its_older_one() {
        let seat = |kind: &str| {
            parse(&format!(
                r#"{{"type":"new_game","layout":"standard","seats":[{{"kind":"{kind}","spec":"random"}},{{"kind":"human"}}]}}"#
            ))
        };
        let asked = Ok(ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: vec![
                SeatRequest::Classical {
                    spec: "random".into(),
                },
                SeatRequest::Human { name: None },
            ],
            clock: None,
        });
        assert_eq!(seat("classical"), asked);
        // The older kind, an alias kept for clients written for it.
        assert_eq!(seat("engine"), asked);
        // Under either name the schema is as strict.
        for bad in [
            r#"{"type":"new_game","layout":"standard","seats":[{"kind":"classical"}]}"#,
            r#"{"type":"new_game","layout":"standard","seats":[{"kind":"engine","spec":"random","x":1}]}"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    use proptest::prelude::*;

    use crate::menu::PagePolicy;
    use crate::model::Models;
    use crate::session::{GameSession, MAX_ERROR_CHARS, error};

    /// JSON values shaped like the page's messages: a known or unknown
    /// `type`, and fields of known and unknown names with values of any
    /// kind, nested a little.
    fn message_like() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(|f| serde_json::json!(f)),
            "[A-Ia-i1-9 ,:=.;-]{0,12}".prop_map(Value::from),
            prop::sample::select(vec![
                "standard",
                "belgian-daisy",
                "three-player",
                "six-player",
                "human",
                "engine",
                "classical",
                "model",
                "random",
                "greedy",
                "alphabeta:depth=1",
                "alphabeta:time=50ms",
                "A1B2",
                "I5H5",
                "C3C4D4",
                "5/6/7/8/bb4bbw/w7/7/6/5 b 0 5",
            ])
            .prop_map(Value::from),
        ];
        let value = leaf.prop_recursive(2, 12, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map(
                    prop::sample::select(vec![
                        "kind",
                        "spec",
                        "simulations",
                        "time_ms",
                        "minutes",
                        "name",
                        "holes",
                        "x",
                    ]),
                    inner,
                    0..3
                )
                .prop_map(|m| Value::Object(
                    m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
                )),
            ]
        });
        let kind = prop::sample::select(vec![
            "new_game", "move", "undo", "resign", "goto", "analyse", "analyze", "load", "save",
            "review", "try_move", "other",
        ]);
        let field = prop::sample::select(vec![
            "layout",
            "rules",
            "seats",
            "clock",
            "text",
            "ply",
            "simulations",
            "position",
            "record",
            "clock_ms",
            "extra",
        ]);
        (kind, prop::collection::vec((field, value), 0..4)).prop_map(|(kind, fields)| {
            let mut object = serde_json::Map::new();
            object.insert("type".into(), Value::from(kind));
            for (key, value) in fields {
                object.insert(key.into(), value);
            }
            Value::Object(object).to_string()
        })
    }

    proptest! {
        // 20,000 messages a run (under a second of the test build),
        // each answered by one session that lives through the whole run.
        #![proptest_config(ProptestConfig {
            cases: 20_000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Whatever a page sends, the server answers with a state, a record
        /// or a short error, and the session stays usable.
        #[test]
        fn any_message_is_answered_without_a_panic(text in message_like()) {
            thread_local! {
                static SESSION: std::cell::RefCell<GameSession> = std::cell::RefCell::new(
                    GameSession::new(
                        std::sync::Arc::new(Models::none()),
                        std::sync::Arc::new(PagePolicy::new(1024, None)),
                        std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)),
                        1,
                    )
                    .unwrap(),
                );
            }
            SESSION.with(|session| {
                let mut session = session.borrow_mut();
                let reply = match serde_json::from_str::<ClientMessage>(&text) {
                    Err(err) => error(format!("bad message: {err}")),
                    Ok(ClientMessage::Analyse { simulations, position }) => {
                        match session.analysis_target(simulations, position.as_deref()) {
                            Err(message) => error(message),
                            Ok(_) => unreachable!("no model is loaded"),
                        }
                    }
                    Ok(ClientMessage::TryMove { ply, text }) => match session.attempt(ply, &text) {
                        Err(message) => error(message),
                        Ok(_) => unreachable!("no review was made"),
                    },
                    Ok(ClientMessage::Review { simulations }) => {
                        match session.review_target(simulations, crate::menu::REVIEW_POSITION_LIMIT) {
                            Err(message) => error(message),
                            Ok(_) => unreachable!("no model is loaded"),
                        }
                    }
                    Ok(message) => match session.handle(message) {
                        Ok(Some(reply)) => reply,
                        Ok(None) => ServerMessage::State(session.state()),
                        Err(message) => error(message),
                    },
                };
                if let ServerMessage::Error { message } = &reply {
                    prop_assert!(message.chars().count() <= MAX_ERROR_CHARS);
                }
                // The players' turns are not run here: a searching player
                // would make the run slow, not more thorough; the state
                // must still be drawable.
                let state = session.state();
                prop_assert_eq!(state.board.len(), 61);
                Ok(())
            })?;
        }
    }
}
