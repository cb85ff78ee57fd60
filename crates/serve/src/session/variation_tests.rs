//! The tests of the analysis board's side of a session: variations from
//! any ply, the threats shown, a stop, and an analysis's candidates.

use super::*;
use crate::protocol::StateView;
use crate::test_model::TRAINED;
use sumito_arena::players::network::{Analysis, MoveStats};
use sumito_mcts::Wdl;

fn people_game(moves: &[&str]) -> GameSession {
    let mut game = super::tests::session();
    game.handle(ClientMessage::NewGame {
        layout: "standard".into(),
        rules: None,
        seats: vec![SeatRequest::Human { name: None }; 2],
        clock: None,
    })
    .unwrap();
    for mv in moves {
        game.handle(ClientMessage::Move { text: (*mv).into() })
            .unwrap();
    }
    game
}

fn goto(game: &mut GameSession, ply: usize, line: &[&str]) -> Result<StateView, String> {
    game.handle(ClientMessage::Goto {
        ply,
        line: line.iter().map(|mv| mv.to_string()).collect(),
    })?;
    Ok(game.state())
}

fn play(game: &mut GameSession, text: &str) -> Result<StateView, String> {
    game.handle(ClientMessage::Move { text: text.into() })?;
    Ok(game.state())
}

#[test]
fn a_variation_from_an_earlier_ply_is_checked_in_the_shown_position() {
    let mut game = people_game(&["A1B2", "I5H5", "B1C2"]);
    let end = game.state().position;
    // At ply 1 White is to move there: its moves are offered and checked
    // there, not at the game's end (where Black is to move).
    let state = goto(&mut game, 1, &[]).unwrap();
    assert_eq!((state.cursor, state.to_move), (1, 1));
    assert!(state.legal.iter().any(|mv| mv.text == "I5H5"));
    // The game's own next move moves along the game.
    let state = play(&mut game, "I5H5").unwrap();
    assert_eq!((state.cursor, state.line.len()), (2, 0));
    // Any other starts a variation: the game keeps its moves.
    goto(&mut game, 1, &[]).unwrap();
    let state = play(&mut game, "I9H9").unwrap();
    assert_eq!(state.cursor, 1);
    assert_eq!(state.line, ["I9H9"]);
    assert_eq!(state.history.len(), 3);
    assert_eq!(state.to_move, 0, "Black to move in the variation");
    assert_eq!(
        state
            .board
            .iter()
            .find(|cell| cell.cell == "H9")
            .unwrap()
            .content,
        "white"
    );
    // The variation goes on from its own position.
    let state = play(&mut game, "C3D3").unwrap();
    assert_eq!(state.line, ["I9H9", "C3D3"]);
    // A move typed for the wrong side is refused as not legal in the
    // shown position (White to move here), never "not your turn".
    let err = play(&mut game, "A2B3").unwrap_err();
    assert!(err.contains("not legal") || err.contains("legal"), "{err}");
    // Shown again by its line; each move checked where it is played.
    let state = goto(&mut game, 1, &["I9H9", "C3D3"]).unwrap();
    assert_eq!(state.line.len(), 2);
    let err = goto(&mut game, 1, &["I9H9", "I8H8"]).unwrap_err();
    assert!(err.starts_with("variation move 2 (I8H8): "), "{err}");
    let err = goto(&mut game, 4, &[]).unwrap_err();
    assert!(err.contains("the game has 3 moves"), "{err}");
    let long = vec!["A1B2"; MAX_VARIATION_PLIES + 1];
    let err = goto(&mut game, 0, &long).unwrap_err();
    assert!(err.contains("at most 500"), "{err}");
    // A refused request leaves the variation shown as it was.
    assert_eq!(game.state().line, ["I9H9", "C3D3"]);
    // Back at the end, a move is the game's again, and the variation is
    // no longer shown.
    let state = goto(&mut game, 3, &[]).unwrap();
    assert_eq!(state.position, end);
    let state = play(&mut game, "I8H8").unwrap();
    assert_eq!((state.history.len(), state.cursor), (4, 4));
    assert!(state.line.is_empty());
    // An undo shows the game's end.
    goto(&mut game, 2, &["B1C2"]).unwrap();
    game.handle(ClientMessage::Undo {}).unwrap();
    let state = game.state();
    assert!(state.line.is_empty() && state.cursor == state.history.len());
}

#[test]
fn a_variation_of_a_finished_game_is_played_and_one_past_its_end_refused() {
    let mut game = people_game(&[]);
    game.handle(ClientMessage::Resign {}).unwrap();
    // At the end of a finished game no move is offered.
    assert!(game.state().legal.is_empty());
    assert!(play(&mut game, "A1B2").is_err());
    // Resigned at the start: the start itself is still open to variations
    // only through an earlier ply; there is none, so the end it is.
    let mut game = people_game(&["A1B2", "I5H5"]);
    game.handle(ClientMessage::Resign {}).unwrap();
    let state = goto(&mut game, 1, &[]).unwrap();
    assert!(!state.legal.is_empty(), "an earlier ply of a finished game");
    let state = play(&mut game, "I9H9").unwrap();
    assert_eq!(state.line, ["I9H9"]);
}

#[test]
fn the_state_shows_each_sides_push_off_threats_in_the_shown_position() {
    // A game of people that pushes whenever a push-off is there.
    let mut game = people_game(&[]);
    let mut seen_now = 0;
    let mut seen_later = 0;
    for ply in 0..300 {
        let state = game.state();
        let shown = *game.shown();
        let expected: Vec<(String, &str, bool)> = shown
            .push_off_threats()
            .into_iter()
            .map(|threat| {
                (
                    threat.cell.to_string(),
                    SEAT_NAMES[threat.seat],
                    threat.seat == shown.seat_to_move(),
                )
            })
            .collect();
        let shown_threats: Vec<(String, &str, bool)> = state
            .threats
            .iter()
            .map(|threat| (threat.cell.clone(), threat.by, threat.now))
            .collect();
        assert_eq!(shown_threats, expected);
        for threat in &state.threats {
            // A threatened cell holds a marble of another colour.
            let content = state
                .board
                .iter()
                .find(|cell| cell.cell == threat.cell)
                .unwrap()
                .content;
            assert!(content != "empty" && content != threat.by, "{threat:?}");
        }
        seen_now += state.threats.iter().filter(|threat| threat.now).count();
        seen_later += state.threats.iter().filter(|threat| !threat.now).count();
        if state.legal.is_empty() {
            break;
        }
        let mover = shown.seat_to_move();
        let scoring = state.legal.iter().find(|mv| {
            let mv = shown.parse_move(&mv.text).unwrap();
            shown.play(mv).seat_score(mover) > shown.seat_score(mover)
        });
        let text = scoring
            .unwrap_or(&state.legal[(ply * 13) % state.legal.len()])
            .text
            .clone();
        play(&mut game, &text).unwrap();
    }
    assert!(seen_now > 0 && seen_later > 0, "{seen_now} {seen_later}");
}

#[test]
fn a_stop_between_searches_changes_nothing() {
    let mut game = people_game(&["A1B2"]);
    let before = game.state();
    assert_eq!(game.handle(ClientMessage::Stop {}), Ok(None));
    assert_eq!(game.state(), before);
}

#[test]
fn the_candidates_put_the_move_the_search_plays_first_then_its_rating() {
    let game = people_game(&[]);
    let position = *game.shown();
    let moves = position.legal_moves();
    let stats = |index: usize, visits: u32, q: f32, rating: f32| MoveStats {
        mv: moves[index],
        visits,
        q: Some(q),
        prior: 0.1,
        rating,
        line: vec![moves[index]],
    };
    // The search plays move 2, which has fewer visits than move 0 (kept
    // from the analysis's earlier steps); move 1 is rated above move 0.
    let analysis = Analysis {
        best: moves[2],
        wdl: Wdl {
            win: 0.5,
            draw: 0.0,
            loss: 0.5,
        },
        side_values: vec![0.0, 0.0],
        solved: None,
        visits: 1000,
        simulations: 1000,
        moves: vec![
            stats(0, 600, -0.02, 0.2),
            stats(1, 100, 0.05, 0.3),
            stats(2, 300, 0.04, 0.5),
        ],
        principal_variation: vec![moves[2]],
        elapsed: std::time::Duration::from_millis(5),
    };
    let ServerMessage::Analysis {
        best, moves: shown, ..
    } = GameSession::analysis_message(&position, &analysis, true)
    else {
        panic!("an analysis");
    };
    assert_eq!(best, moves[2].to_text());
    let order: Vec<&str> = shown.iter().map(|mv| mv.text.as_str()).collect();
    assert_eq!(
        order,
        [moves[2].to_text(), moves[1].to_text(), moves[0].to_text()]
    );
    // Each with its own Q (the page's win %) and line.
    assert_eq!(shown[1].q, Some(0.05));
    assert_eq!(shown[0].line, [moves[2].to_text()]);
}

#[test]
fn a_position_loaded_from_a_record_shows_the_push_off_it_allows() {
    let mut game = people_game(&[]);
    game.handle(ClientMessage::load(
        "# sumito game record v2\nstart: wwwww/6/7/8/4b4/8/2b4/1b4/w4 b 0 0\nmoves:\nresult: *\n"
            .into(),
    ))
    .unwrap();
    let state = game.state();
    let threats: Vec<(&str, &str, bool)> = state
        .threats
        .iter()
        .map(|threat| (threat.cell.as_str(), threat.by, threat.now))
        .collect();
    assert_eq!(threats, [("A1", "black", true)]);
    // After a quiet move Black threatens it still, on its next turn.
    let state = play(&mut game, "E5E6").unwrap();
    assert!(!state.threats.is_empty() && state.threats.iter().all(|threat| !threat.now));
}

#[test]
fn an_analysis_searches_the_variation_shown_under_the_models_rules() {
    let mut game = super::tests::trained_session();
    // A loaded game (no rules: the model's are taken), a variation shown.
    game.load("A1B2 I5H5 B1C2").unwrap();
    let state = goto(&mut game, 1, &["I9H9", "C3D3"]).unwrap();
    let (target, _) = game.analysis_target(None, None).unwrap();
    let board = |text: &str| text.split(' ').next().unwrap().to_string();
    assert_eq!(board(&target.to_string()), board(&state.position));
    assert_eq!(target.rules().max_plies, TRAINED.max_plies);
}

/// The state's variations as `ply: moves` lines.
fn lines_of(state: &StateView) -> Vec<String> {
    state
        .variations
        .iter()
        .map(|variation| format!("{}: {}", variation.ply, variation.moves.join(" ")))
        .collect()
}

#[test]
fn every_line_shown_joins_the_tree_that_a_saved_record_keeps_and_a_loaded_one_brings() {
    let mut game = people_game(&["A1B2", "I5H5", "B1C2"]);
    goto(&mut game, 1, &["G7F7"]).unwrap();
    play(&mut game, "C3D3").unwrap();
    goto(&mut game, 1, &["G7F7", "C4D4"]).unwrap();
    goto(&mut game, 1, &["G6F6"]).unwrap();
    // Along the game's own moves, and within a line there: nothing new.
    goto(&mut game, 0, &["A1B2", "G7F7"]).unwrap();
    let state = goto(&mut game, 0, &["A1B2", "I5H5"]).unwrap();
    assert_eq!(state.line, ["A1B2", "I5H5"]);
    goto(&mut game, 0, &["C3D3"]).unwrap();
    let state = goto(&mut game, 3, &["G7F7"]).unwrap();
    let lines = [
        "1: G7F7 C3D3",
        "1: G7F7 C4D4",
        "1: G6F6",
        "0: C3D3",
        "3: G7F7",
    ];
    assert_eq!(lines_of(&state), lines);
    // Saved, the record has them; loaded in another page, they are back.
    let text = game.save();
    assert!(
        text.contains("B1C2\nvariation after 1: G7F7 C3D3\n")
            && text.contains("variation after 3: G7F7\nresult: *\n"),
        "{text}"
    );
    let mut other = super::tests::session();
    other.handle(ClientMessage::load(text)).unwrap();
    let state = other.state();
    assert_eq!(lines_of(&state), lines);
    assert_eq!((state.history.len(), state.cursor), (3, 3));
    // A bad variation in a loaded record names its line and the game is
    // kept as it was.
    let bad = other.save().replace("G7F7 C4D4", "G7F7 I9H9");
    let err = other.handle(ClientMessage::load(bad)).unwrap_err();
    assert!(
        err.starts_with("line 11: variation after ply 1: its move 2 (\"I9H9\", ply 3)"),
        "{err}"
    );
    assert_eq!(lines_of(&other.state()), lines);
    // A new game has none.
    other
        .handle(ClientMessage::NewGame {
            layout: "standard".into(),
            rules: None,
            seats: vec![SeatRequest::Human { name: None }; 2],
            clock: None,
        })
        .unwrap();
    assert!(other.state().variations.is_empty());
}

#[test]
fn the_variations_follow_the_game_through_undo_and_moves() {
    let mut game = people_game(&["A1B2", "I5H5", "B1C2"]);
    goto(&mut game, 3, &["G7F7"]).unwrap();
    goto(&mut game, 2, &["C3D3", "G7F7"]).unwrap();
    goto(&mut game, 0, &["C3D3"]).unwrap();
    // An undo drops the variations after the moves taken back.
    game.handle(ClientMessage::Undo {}).unwrap();
    assert_eq!(
        lines_of(&game.state()),
        ["2: C3D3 G7F7", "0: C3D3"],
        "ply 3 is gone"
    );
    // The game's move that a variation begins with takes the game along
    // it: the rest of the line goes on from the new move.
    let state = play(&mut game, "C3D3").unwrap();
    assert_eq!(lines_of(&state), ["3: G7F7", "0: C3D3"]);
    // Another move leaves the variation from that ply beside it.
    game.handle(ClientMessage::Undo {}).unwrap();
    goto(&mut game, 2, &["C3D3"]).unwrap();
    goto(&mut game, 2, &[]).unwrap();
    let state = play(&mut game, "C4D4").unwrap();
    assert_eq!(lines_of(&state), ["0: C3D3", "2: C3D3"]);
}

#[test]
fn a_game_keeps_at_most_max_variations_lines() {
    let mut game = people_game(&[]);
    let firsts: Vec<String> = game
        .state()
        .legal
        .iter()
        .map(|mv| mv.text.clone())
        .collect();
    let mut kept = 0;
    let err = 'adding: {
        for first in &firsts {
            let seconds = goto(&mut game, 0, &[first]).unwrap().legal;
            for second in seconds {
                match goto(&mut game, 0, &[first, &second.text]) {
                    Ok(_) => kept = game.state().variations.len(),
                    Err(err) => break 'adding err,
                }
            }
        }
        panic!("{kept} lines were all kept");
    };
    assert_eq!(kept, MAX_VARIATIONS);
    assert!(err.contains("256 variations"), "{err}");
    // A line within one kept is still shown.
    let first = game.state().variations[0].moves[0].clone();
    let state = goto(&mut game, 0, &[&first]).unwrap();
    assert_eq!(state.line, [first]);
    // A record with a line more is refused on loading, the game kept.
    let saved = game.save();
    assert_eq!(
        saved.matches("\nvariation after 0: ").count(),
        MAX_VARIATIONS
    );
    let mut more = String::new();
    'lines: for first in &firsts {
        for second in goto(&mut game, 0, &[first]).unwrap().legal {
            let line = format!("variation after 0: {first} {}\n", second.text);
            if !saved.contains(&line) {
                more = line;
                break 'lines;
            }
        }
    }
    let text = saved.replace("result: *", &format!("{more}result: *"));
    let err = people_game(&[])
        .handle(ClientMessage::load(text))
        .unwrap_err();
    assert!(err.contains("the record has 257 variations"), "{err}");
    let mut other = people_game(&[]);
    other.handle(ClientMessage::load(saved)).unwrap();
    assert_eq!(other.state().variations.len(), MAX_VARIATIONS);
}
