//! The tests of a page's game session.

use super::*;
use crate::menu::MODEL_PLANNED_SHARE;
use crate::test_model::{TRAINED, TestModel, three_player_table};
use sumito_game::{Board, GameKind, LEVELS};

/// A page's session with `models`, a 1,024 MB budget and one search slot.
pub(super) fn session_with(models: Models) -> GameSession {
    GameSession::new(
        Arc::new(models),
        Arc::new(PagePolicy::new(1024, None)),
        Arc::new(AtomicBool::new(false)),
        1,
    )
    .unwrap()
}

pub(super) fn session() -> GameSession {
    session_with(Models::none())
}

/// A session with one uniform two-player model trained under `TRAINED`.
pub(super) fn trained_session() -> GameSession {
    session_with(Models::one(Arc::new(TestModel::uniform(ModelGame::new(
        GameKind::TwoPlayer,
        RulesTable::of_two_player(TRAINED),
    )))))
}

/// A seat of the first model that plays the game, at strength `level`.
fn model_at(level: u32) -> SeatRequest {
    SeatRequest::Model {
        model: None,
        simulations: None,
        time_ms: None,
        level: Some(level),
    }
}

fn people(n: usize) -> Vec<SeatRequest> {
    (0..n).map(|_| SeatRequest::Human { name: None }).collect()
}

/// Runs the player to move, as the server does (on this thread).
fn player_turn(session: &mut GameSession) {
    let seat = session.player_to_move().expect("a player's turn");
    let mut turn = session.take_player(seat).unwrap();
    let answer = turn.player.think(&turn.position, Some(turn.cap));
    session
        .player_done(seat, turn.player, turn.position, answer)
        .unwrap();
}

#[test]
fn a_game_against_a_player_plays_undoes_and_refuses_illegal_moves() {
    let mut game = session();
    let state = game.state();
    assert_eq!(state.board.len(), 61);
    assert_eq!(state.legal.len(), 44, "Standard, Black to move");
    assert!(state.human_to_move && !state.can_analyse);
    let a1b2 = state.legal.iter().find(|m| m.text == "A1B2").unwrap();
    assert_eq!(a1b2.from, ["A1", "B2", "C3"]);
    assert_eq!(a1b2.to, ["B2", "C3", "D4"]);
    let err = game
        .handle(ClientMessage::Move {
            text: "I5H5".into(),
        })
        .unwrap_err();
    assert!(err.contains("not legal"), "{err}");
    game.handle(ClientMessage::Move {
        text: "A1B2".into(),
    })
    .unwrap();
    assert_eq!(game.player_to_move(), Some(1));
    assert!(
        game.handle(ClientMessage::Move {
            text: "B1C2".into()
        })
        .is_err(),
        "the player's turn"
    );
    player_turn(&mut game);
    let state = game.state();
    assert_eq!(state.history.len(), 2);
    assert!(state.human_to_move);
    assert!(state.history[0].think_ms.is_none(), "a person's move");
    assert!(
        state.history[1].think_ms.is_some_and(|ms| ms > 0.0),
        "the player's"
    );
    // Undo takes back the player's reply and the person's move.
    game.handle(ClientMessage::Undo {}).unwrap();
    assert_eq!(game.state().history.len(), 0);
    game.handle(ClientMessage::Resign {}).unwrap();
    assert_eq!(game.state().result.as_deref(), Some("black resigned"));
}

#[test]
fn a_game_given_up_comes_back_over_from_its_record() {
    // Resigned: the record says so, and the game loaded from it is over.
    let mut game = session();
    game.handle(ClientMessage::Move {
        text: "A1B2".into(),
    })
    .unwrap();
    player_turn(&mut game);
    game.handle(ClientMessage::Resign {}).unwrap();
    let saved = game.save();
    assert!(saved.contains("\nforfeit: black resigned\n"), "{saved}");
    let mut again = session();
    again.load(&saved).unwrap();
    assert!(again.is_over());
    assert_eq!(again.state().result.as_deref(), Some("black resigned"));
    let err = again
        .handle(ClientMessage::Move {
            text: "B1C2".into(),
        })
        .unwrap_err();
    assert!(err.contains("over"), "{err}");
    assert_eq!(again.save(), saved);
    // Undone, it goes on, and its record no longer says it was given up.
    again.handle(ClientMessage::Undo {}).unwrap();
    assert!(!again.is_over());
    assert!(!again.save().contains("forfeit"));

    // On time: a clock of 60 ms, spent before the first move.
    let mut flagged = session();
    flagged
        .handle(ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: people(2),
            clock: Some(ClockRequest {
                minutes: 0.001,
                increment_seconds: 0.0,
            }),
        })
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    let _ = flagged.handle(ClientMessage::Move {
        text: "A1B2".into(),
    });
    assert_eq!(
        flagged.state().result.as_deref(),
        Some("black ran out of time")
    );
    let saved = flagged.save();
    assert!(
        saved.contains("\nforfeit: black ran out of time\n"),
        "{saved}"
    );
    let mut again = session();
    again.load(&saved).unwrap();
    assert_eq!(
        again.state().result.as_deref(),
        Some("black ran out of time")
    );
}

#[test]
fn every_layout_and_variant_starts_and_bad_requests_are_refused() {
    let mut game = session();
    game.handle(ClientMessage::NewGame {
        layout: "six-player".into(),
        rules: Some(serde_json::json!({"holes": ["E5"], "partners_in_a_row": true})),
        seats: people(6),
        clock: None,
    })
    .unwrap();
    let state = game.state();
    assert_eq!(state.seats.len(), 6);
    assert_eq!(
        state.board.iter().filter(|c| c.content == "hole").count(),
        1
    );
    assert!(!state.legal.is_empty());
    for (layout, rules, seats, expected) in [
        ("hexagon", None, people(2), "hexagon"),
        (
            "standard",
            Some(serde_json::json!({"holse": []})),
            people(2),
            "holse",
        ),
        ("four-player", None, people(2), "seats 4"),
        (
            "standard",
            None,
            vec![
                SeatRequest::Classical {
                    spec: "grandmaster".into(),
                },
                SeatRequest::Human { name: None },
            ],
            "grandmaster",
        ),
        (
            "three-player",
            None,
            vec![
                SeatRequest::Model {
                    model: None,
                    simulations: None,
                    time_ms: None,
                    level: None,
                },
                SeatRequest::Human { name: None },
                SeatRequest::Human { name: None },
            ],
            "model",
        ),
    ] {
        let err = game
            .handle(ClientMessage::NewGame {
                layout: layout.into(),
                rules,
                seats,
                clock: None,
            })
            .unwrap_err();
        assert!(err.contains(expected), "{expected}: {err}");
    }
    assert!(
        game.handle(ClientMessage::Goto {
            ply: 5,
            line: Vec::new(),
        })
        .is_err()
    );
    assert!(
        game.analysis_target(None, None)
            .unwrap_err()
            .contains("no model")
    );
}

#[test]
fn records_save_and_load_in_both_formats_and_as_aba_pro_lists() {
    let mut game = session();
    game.handle(ClientMessage::NewGame {
        layout: "standard".into(),
        rules: None,
        seats: people(2),
        clock: None,
    })
    .unwrap();
    for mv in ["A1B2", "I5H5", "B1C2"] {
        game.handle(ClientMessage::Move { text: mv.into() })
            .unwrap();
    }
    let Some(ServerMessage::Record { text }) = game.handle(ClientMessage::Save {}).unwrap() else {
        panic!("a record")
    };
    assert!(
        text.starts_with(sumito_arena::record_format::GAME_RECORD_MAGIC),
        "{text}"
    );
    assert!(text.contains("seats: "), "{text}");
    let mut other = session();
    other.handle(ClientMessage::load(text)).unwrap();
    assert_eq!(other.state().position, game.state().position);
    other
        .handle(ClientMessage::Goto {
            ply: 1,
            line: Vec::new(),
        })
        .unwrap();
    assert_eq!(other.state().cursor, 1);
    // A plain list of Aba-Pro moves, with move numbers.
    other
        .handle(ClientMessage::load("1. A1B2 I5H5\n2. B1C2".into()))
        .unwrap();
    assert_eq!(other.state().position, game.state().position);
    let err = other
        .handle(ClientMessage::load("A1B2 A1B2".into()))
        .unwrap_err();
    assert!(err.contains("move 2"), "{err}");
    // An older two-player record loads too.
    other
        .handle(ClientMessage::load(format!(
            "{}\nlayout: standard\nmoves:\nA1B2\nI5H5\nB1C2\nresult: *\n",
            sumito_arena::record_format::TWO_PLAYER_RECORD_MAGIC_V1
        )))
        .unwrap();
    assert_eq!(other.state().position, game.state().position);
    // A game of the general game saves in the same format.
    game.handle(ClientMessage::NewGame {
        layout: "three-player".into(),
        rules: None,
        seats: people(3),
        clock: None,
    })
    .unwrap();
    game.handle(ClientMessage::Move {
        text: "B1C2".into(),
    })
    .unwrap();
    let Some(ServerMessage::Record { text }) = game.handle(ClientMessage::Save {}).unwrap() else {
        panic!("a record")
    };
    assert!(
        text.starts_with(sumito_arena::record_format::GAME_RECORD_MAGIC),
        "{text}"
    );
    other.handle(ClientMessage::load(text)).unwrap();
    assert_eq!(other.state().seats.len(), 3);
    assert_eq!(other.state().history.len(), 1);
}

#[test]
fn clocks_count_down_and_add_the_increment() {
    let mut game = session();
    game.handle(ClientMessage::NewGame {
        layout: "standard".into(),
        rules: None,
        seats: people(2),
        clock: Some(ClockRequest {
            minutes: 1.0,
            increment_seconds: 5.0,
        }),
    })
    .unwrap();
    let before = game.state().seats[0].clock_ms.unwrap();
    assert!(before <= 60_000 && before > 59_000);
    game.handle(ClientMessage::Move {
        text: "A1B2".into(),
    })
    .unwrap();
    assert!(game.state().seats[0].clock_ms.unwrap() <= before);
    let err = game
        .handle(ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: people(2),
            clock: Some(ClockRequest {
                minutes: -1.0,
                increment_seconds: 0.0,
            }),
        })
        .unwrap_err();
    assert!(err.contains("clock"), "{err}");
}

#[test]
fn a_record_loaded_with_its_seats_and_clocks_goes_on_as_it_was_and_bad_ones_change_nothing() {
    // A game as a page plays it: the model at level 3 against the person,
    // one minute and 5 s a push-off.
    let mut game = trained_session();
    let clock = ClockRequest {
        minutes: 1.0,
        increment_seconds: 5.0,
    };
    game.handle(ClientMessage::NewGame {
        layout: "standard".into(),
        rules: None,
        seats: vec![model_at(3), SeatRequest::Human { name: None }],
        clock: Some(clock),
    })
    .unwrap();
    player_turn(&mut game);
    game.handle(ClientMessage::Move {
        text: "I5H5".into(),
    })
    .unwrap();
    // The state gives each seat back as `new_game` asks for it (the model
    // named), and the time control, for the page to keep.
    let state = game.state();
    let seats: Vec<SeatRequest> = state.seats.iter().map(|s| s.request.clone()).collect();
    assert_eq!(
        seats,
        [
            SeatRequest::Model {
                model: Some("uniform".into()),
                simulations: None,
                time_ms: None,
                level: Some(3),
            },
            SeatRequest::Human {
                name: Some("you".into())
            },
        ]
    );
    assert_eq!(state.clock, Some(Box::new(clock)));
    let record = game.save();
    let restore = |seats: Vec<SeatRequest>, clock: Option<ClockRequest>, left: Option<Vec<u64>>| {
        ClientMessage::Load {
            record: record.clone(),
            seats: Some(seats),
            clock,
            clock_ms: left,
        }
    };
    let mut other = trained_session();
    other
        .handle(restore(
            seats.clone(),
            Some(clock),
            Some(vec![40_000, 50_000]),
        ))
        .unwrap();
    let state = other.state();
    assert_eq!(state.history.len(), 2);
    let players: Vec<&str> = state.seats.iter().map(|s| s.player.as_str()).collect();
    assert_eq!(players, ["uniform (level 3, casual)", "you"]);
    assert_eq!(state.clock, Some(Box::new(clock)));
    // Black's clock runs from the time kept; White's waits.
    let black = state.seats[0].clock_ms.unwrap();
    assert!((39_000..=40_000).contains(&black), "{black}");
    assert_eq!(state.seats[1].clock_ms, Some(50_000));
    // The model is seated again: it plays Black's move.
    player_turn(&mut other);
    assert_eq!(other.state().history.len(), 3);
    assert!(other.state().human_to_move);

    // Whatever the page sends is checked as a new game's is, and a refused
    // load leaves the game as it was.
    // (The clock that runs reads a little less at every look.)
    let seen = |game: &GameSession| {
        let state = game.state();
        let seats: Vec<_> = state
            .seats
            .iter()
            .map(|seat| (seat.player.clone(), seat.request.clone()))
            .collect();
        (state.position, state.history.len(), seats, state.clock)
    };
    let before = seen(&other);
    let classical = |spec: &str| SeatRequest::Classical { spec: spec.into() };
    let model = |name: &str| SeatRequest::Model {
        model: Some(name.into()),
        simulations: Some(100),
        time_ms: None,
        level: None,
    };
    for (message, says) in [
        (
            restore(seats.clone(), Some(clock), Some(vec![60_001, 0])),
            "seat 1 has 60001 ms",
        ),
        (
            restore(seats.clone(), Some(clock), Some(vec![1, 2, 3])),
            "3 clocks given",
        ),
        (
            restore(seats.clone(), None, Some(vec![1, 2])),
            "without a clock",
        ),
        (
            restore(
                seats.clone(),
                Some(ClockRequest {
                    minutes: 1e9,
                    increment_seconds: 0.0,
                }),
                None,
            ),
            "clock: minutes",
        ),
        (
            restore(
                vec![classical("alphabeta:depth=99"), classical("greedy")],
                None,
                None,
            ),
            "seat 1",
        ),
        (
            restore(vec![model("nobody"), classical("greedy")], None, None),
            "seat 1",
        ),
        (restore(people(3), None, None), "3 seats given"),
    ] {
        let err = other.handle(message).unwrap_err();
        assert!(err.contains(says), "{says}: {err}");
        assert_eq!(seen(&other), before, "{says}");
    }
    // Without seats the record loads as before: every seat a person.
    other.handle(ClientMessage::load(record.clone())).unwrap();
    assert!(other.state().seats.iter().all(|seat| seat.human));
    assert_eq!(other.state().clock, None);
}

#[test]
fn errors_quote_a_short_excerpt_of_what_was_sent() {
    let mut game = session();
    let huge = "X".repeat(1 << 20);
    let err = game.handle(ClientMessage::Move { text: huge }).unwrap_err();
    let ServerMessage::Error { message } = error(err) else {
        unreachable!()
    };
    assert!(
        message.chars().count() <= MAX_ERROR_CHARS,
        "{}",
        message.len()
    );
    let ServerMessage::Error { message } = error(format!("bad: {}", "é".repeat(5000))) else {
        unreachable!()
    };
    assert_eq!(message.chars().count(), MAX_ERROR_CHARS);
    assert!(message.ends_with('…'));
    let ServerMessage::Error { message } = error("short") else {
        unreachable!()
    };
    assert_eq!(message, "short");
}

#[test]
fn the_players_of_all_pages_share_one_memory_budget() {
    let policy = Arc::new(PagePolicy::new(40, None));
    let page = |policy: &Arc<PagePolicy>| {
        GameSession::new(
            Arc::new(Models::none()),
            policy.clone(),
            Arc::new(AtomicBool::new(false)),
            1,
        )
    };
    let alphabeta = |spec: &str| SeatRequest::Classical { spec: spec.into() };
    let two_players = |game: &mut GameSession| {
        game.handle(ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: vec![
                alphabeta("alphabeta:depth=1"),
                alphabeta("alphabeta:depth=1"),
            ],
            clock: None,
        })
    };
    // The first page's default game holds one table (16 MB); two
    // players of a second page's game (32 MB) do not fit beside it.
    let first = page(&policy).unwrap();
    let mut second = page(&policy).unwrap();
    let err = two_players(&mut second).unwrap_err();
    assert!(err.contains("memory budget"), "{err}");
    // When the first page goes, its share comes back.
    drop(first);
    two_players(&mut second).unwrap();
    // A loaded game holds none.
    second.load("A1B2 I5H5").unwrap();
    let mut third = page(&policy).unwrap();
    two_players(&mut third).unwrap();
}

#[test]
fn a_game_is_bounded_in_length() {
    let mut game = session();
    // A record one move too long, of moves that push nothing off.
    let mut position = GeneralPosition::from_text(
        &Position::start(sumito_engine::Layout::Standard, Rules::default()).to_string(),
        None,
    )
    .unwrap();
    let mut moves = Vec::new();
    for ply in 0..=MAX_GAME_PLIES {
        let quiet: Vec<GeneralMove> = position
            .legal_moves()
            .into_iter()
            .filter(|&mv| position.play(mv).scores() == position.scores())
            .collect();
        let mv = quiet[ply * 7 % quiet.len()];
        moves.push(mv.to_text());
        position = position.play(mv);
    }
    let err = game.load(&moves.join(" ")).unwrap_err();
    assert!(err.contains("at most"), "{err}");
    // Players of a game without a move limit stop at the server's.
    game.handle(ClientMessage::NewGame {
        layout: "standard".into(),
        rules: None,
        seats: vec![
            SeatRequest::Classical {
                spec: "random".into(),
            },
            SeatRequest::Classical {
                spec: "random".into(),
            },
        ],
        clock: None,
    })
    .unwrap();
    while game.player_to_move().is_some() {
        player_turn(&mut game);
    }
    let state = game.state();
    assert!(state.history.len() <= MAX_GAME_PLIES);
    assert!(state.result.is_some());
}

#[test]
fn the_model_plays_and_analyses_only_under_its_training_rules() {
    let mut game = trained_session();
    // The first game, and any game with the model that names no rules,
    // is under the model's rules.
    let limit = |game: &GameSession| Position::of_general(game.current()).unwrap().rules();
    assert_eq!(limit(&game), TRAINED);
    assert!(game.state().rules_note.is_none());
    let model = SeatRequest::Model {
        model: None,
        simulations: Some(8),
        time_ms: None,
        level: None,
    };
    let with_model = |rules: Option<serde_json::Value>| ClientMessage::NewGame {
        layout: "belgian-daisy".into(),
        rules,
        seats: vec![SeatRequest::Human { name: None }, model.clone()],
        clock: None,
    };
    game.handle(with_model(None)).unwrap();
    assert_eq!(limit(&game), TRAINED);
    // Other rules with the model are refused, naming both.
    let err = game
        .handle(with_model(Some(serde_json::json!({"max_plies": 400}))))
        .unwrap_err();
    assert!(
        err.contains("200-ply limit") && err.contains("400-ply limit"),
        "{err}"
    );
    game.handle(with_model(Some(serde_json::json!({"max_plies": 200}))))
        .unwrap();
    // A record without rules is analysed under the model's, and the
    // page is told.
    game.load("A1B2 I5H5").unwrap();
    let note = game.state().rules_note.expect("a note");
    assert!(
        note.contains("200-ply limit") && note.contains("no move limit"),
        "{note}"
    );
    let (target, _) = game.analysis_target(Some(10), None).unwrap();
    assert_eq!(Position::of_general(&target).unwrap().rules(), TRAINED);
    let (pasted, _) = game
        .analysis_target(Some(10), Some("5/6/7/8/bb4bbw/w7/7/6/5 b 0 5"))
        .unwrap();
    assert_eq!(Position::of_general(&pasted).unwrap().rules(), TRAINED);
    // A pasted text it cannot read is refused with the character at fault.
    let refused = game
        .analysis_target(Some(10), Some("5/6/7/8/bb4bzw/w7/7/6/5 b 0 5"))
        .unwrap_err();
    assert!(
        refused.starts_with("the model's game:") && refused.contains("(at character "),
        "{refused}"
    );
}

#[test]
fn a_review_takes_the_whole_game_under_the_models_rules() {
    let mut game = trained_session();
    let err = game
        .review_target(None, Duration::from_secs(1))
        .unwrap_err();
    assert!(err.contains("no move"), "{err}");
    game.load("A1B2 I5H5").unwrap();
    game.handle(ClientMessage::Goto {
        ply: 1,
        line: Vec::new(),
    })
    .unwrap();
    // The whole game, whatever is shown, under the model's rules.
    let target = game
        .review_target(Some(50_000_000), Duration::from_secs(1))
        .unwrap();
    assert_eq!((target.positions.len(), target.moves.len()), (3, 2));
    assert_eq!(target.simulations, MAX_SIMULATIONS);
    for position in &target.positions {
        assert_eq!(Position::of_general(position).unwrap().rules(), TRAINED);
    }
    assert_eq!(
        game.review_target(None, Duration::from_secs(1))
            .unwrap()
            .simulations,
        DEFAULT_REVIEW_SIMULATIONS
    );
    let plain = GameSession::new(
        Arc::new(Models::none()),
        Arc::new(PagePolicy::new(1024, None)),
        Arc::new(AtomicBool::new(false)),
        1,
    )
    .unwrap();
    assert!(
        plain
            .review_target(None, Duration::from_secs(1))
            .unwrap_err()
            .contains("no model")
    );
}

#[test]
fn the_model_plays_at_a_strength_level_the_page_offers() {
    let mut game = trained_session();
    // The page is offered the ten levels, with the Elo measured.
    let levels = game.state().levels;
    assert_eq!(levels.len(), LEVELS.len());
    assert_eq!((levels[2].number, levels[2].name), (3, "casual"));
    assert_eq!(levels[2].elo, Some(412.0));
    assert_eq!(levels[0].elo, None);
    let at = |level: u32| ClientMessage::NewGame {
        layout: "standard".into(),
        rules: None,
        seats: vec![model_at(level), SeatRequest::Human { name: None }],
        clock: None,
    };
    game.handle(at(3)).unwrap();
    assert_eq!(game.state().seats[0].player, "uniform (level 3, casual)");
    player_turn(&mut game);
    assert_eq!(game.state().history.len(), 1);
    assert!(game.state().human_to_move);
    let err = game.handle(at(11)).unwrap_err();
    assert!(err.contains("seat 1") && err.contains("level 11"), "{err}");
    // Without a model, no levels.
    let plain = GameSession::new(
        Arc::new(Models::none()),
        Arc::new(PagePolicy::new(1024, None)),
        Arc::new(AtomicBool::new(false)),
        1,
    )
    .unwrap();
    assert!(plain.state().levels.is_empty());
}

#[test]
fn a_model_of_the_general_game_takes_the_seats_of_its_game() {
    let mut game = GameSession::new(
        Arc::new(Models::one(Arc::new(TestModel::uniform(ModelGame::new(
            GameKind::General,
            three_player_table(),
        ))))),
        Arc::new(PagePolicy::new(1024, None)),
        Arc::new(AtomicBool::new(false)),
        1,
    )
    .unwrap();
    // The first game is the model's: its first layout, its rules, the
    // person first and the model at the other seats.
    let state = game.state();
    assert_eq!(state.seats.len(), 3);
    assert!(state.human_to_move && state.can_analyse);
    assert_eq!(game.current().rules().max_plies, Some(240));
    let first = state.legal[0].text.clone();
    game.handle(ClientMessage::Move { text: first }).unwrap();
    // Both model seats move, each a legal move of the game.
    for _ in 0..2 {
        player_turn(&mut game);
    }
    assert_eq!(game.state().history.len(), 3);
    assert!(game.state().human_to_move);
    // Other rules with the model are refused, naming both.
    let model = SeatRequest::Model {
        model: None,
        simulations: Some(8),
        time_ms: None,
        level: None,
    };
    let seats = vec![SeatRequest::Human { name: None }, model.clone(), model];
    let err = game
        .handle(ClientMessage::NewGame {
            layout: "three-player".into(),
            rules: Some(serde_json::json!({"max_plies": 100})),
            seats: seats.clone(),
            clock: None,
        })
        .unwrap_err();
    assert!(err.contains("trained with"), "{err}");
    // The page analyses the game's position under the model's rules,
    // and may: the game is under them.
    let (target, sims) = game.analysis_target(Some(10), None).unwrap();
    assert_eq!((target, sims), (*game.current(), 10));
    assert!(game.state().can_analyse);
}

#[test]
fn several_models_are_served_each_on_the_games_of_its_rules() {
    let two: Arc<dyn Model> = Arc::new(TestModel::uniform(ModelGame::new(
        GameKind::TwoPlayer,
        RulesTable::of_two_player(TRAINED),
    )));
    let three: Arc<dyn Model> = Arc::new(TestModel::uniform(ModelGame::new(
        GameKind::General,
        three_player_table(),
    )));
    let models = Arc::new(Models::new(vec![two, three]).unwrap());
    let mut game = GameSession::new(
        models,
        Arc::new(PagePolicy::new(1024, None)),
        Arc::new(AtomicBool::new(false)),
        1,
    )
    .unwrap();
    // The first game is against the first model; the page is told of
    // both, with the layouts each plays.
    let state = game.state();
    assert_eq!(state.model.as_deref(), Some("uniform"));
    assert_eq!(state.seats[1].player, "uniform");
    let names: Vec<(&str, bool)> = state
        .models
        .iter()
        .map(|model| {
            (
                model.name.as_str(),
                model.layouts.contains(&"three-player".to_string()),
            )
        })
        .collect();
    assert_eq!(names, [("uniform", false), ("uniform three", true)]);
    assert_eq!(state.models[1].levels.len(), 10);
    let model = |name: Option<&str>| SeatRequest::Model {
        model: name.map(str::to_string),
        simulations: Some(8),
        time_ms: None,
        level: None,
    };
    let human = || SeatRequest::Human { name: None };
    // A three-player game without a name takes the model that plays it,
    // and that model analyses it.
    game.handle(ClientMessage::NewGame {
        layout: "three-player".into(),
        rules: None,
        seats: vec![human(), model(None), model(None)],
        clock: None,
    })
    .unwrap();
    let state = game.state();
    assert_eq!(state.model.as_deref(), Some("uniform three"));
    assert_eq!(state.seats[2].player, "uniform three");
    assert!(state.can_analyse);
    assert_eq!(game.current().rules().max_plies, Some(240));
    // A model named for a game it does not play is refused by name, and
    // so is a name the server does not have.
    let err = game
        .handle(ClientMessage::NewGame {
            layout: "three-player".into(),
            rules: None,
            seats: vec![human(), model(Some("uniform")), model(None)],
            clock: None,
        })
        .unwrap_err();
    assert!(
        err.contains("the model uniform does not play this game: it plays on standard,")
            && err.contains("not on three-player"),
        "{err}"
    );
    let err = game
        .handle(ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: vec![human(), model(Some("other"))],
            clock: None,
        })
        .unwrap_err();
    assert!(
        err.contains("seat 2: no model is named \"other\": this server has uniform, uniform three"),
        "{err}"
    );
    // Back on a two-player layout: the two-player model, by name.
    game.handle(ClientMessage::NewGame {
        layout: "belgian-daisy".into(),
        rules: None,
        seats: vec![model(Some("uniform")), human()],
        clock: None,
    })
    .unwrap();
    assert_eq!(game.state().model.as_deref(), Some("uniform"));
    assert_eq!(game.current().rules().max_plies, Some(200));
    // A game of people on the three-player layout is analysed by the
    // model of that game.
    game.handle(ClientMessage::NewGame {
        layout: "three-player".into(),
        rules: None,
        seats: vec![human(), human(), human()],
        clock: None,
    })
    .unwrap();
    assert_eq!(game.state().model.as_deref(), Some("uniform three"));
}

#[test]
fn every_page_gets_a_game_and_a_model_reserves_memory_only_while_it_searches() {
    // A budget that holds no alpha-beta table: every page still gets a
    // game, people on both seats.
    let policy = Arc::new(PagePolicy::new(8, None));
    let pages: Vec<GameSession> = (0..40)
        .map(|_| {
            GameSession::new(
                Arc::new(Models::none()),
                policy.clone(),
                Arc::new(AtomicBool::new(false)),
                1,
            )
            .unwrap()
        })
        .collect();
    assert!(
        pages
            .iter()
            .all(|page| page.state().seats.iter().all(|s| s.human))
    );
    // Games against a model reserve nothing while they wait: the whole
    // budget stays free however many there are.
    let model: Arc<dyn Model> = Arc::new(TestModel::uniform(ModelGame::new(
        GameKind::TwoPlayer,
        RulesTable::of_two_player(TRAINED),
    )));
    let policy = Arc::new(PagePolicy::new(MODEL_SEARCH_MB, None));
    let mut games: Vec<GameSession> = (0..20)
        .map(|_| {
            GameSession::new(
                Arc::new(Models::one(model.clone())),
                policy.clone(),
                Arc::new(AtomicBool::new(false)),
                1,
            )
            .unwrap()
        })
        .collect();
    assert!(policy.memory.reserve(MODEL_SEARCH_MB).is_ok());
    // A model's move names what it reserves while it searches, aims below
    // its limit and is stopped at it.
    let game = &mut games[0];
    game.new_game(
        "standard",
        None,
        &[
            SeatRequest::Model {
                model: None,
                simulations: Some(20_000),
                time_ms: None,
                level: None,
            },
            SeatRequest::Human { name: None },
        ],
        None,
    )
    .unwrap();
    let turn = game.take_player(0).unwrap();
    assert_eq!(turn.search_mb, MODEL_SEARCH_MB);
    assert_eq!(turn.deadline, MODEL_THINK_LIMIT);
    assert_eq!(turn.cap, MODEL_THINK_LIMIT.mul_f64(MODEL_PLANNED_SHARE));
    game.give_back(turn);
    assert!(game.take_player(0).is_some());
}
