//! The command examples of the README and of `docs/*.md` stay true: every
//! line of a fenced ```sh block that starts with `sumito ` must be accepted by
//! the binary's argument parser (checked with the hidden `SUMITO_PARSE_ONLY=1`,
//! which parses and exits; network commands are parsed by the same
//! definitions before `sumito` hands them to `sumito-torch`); a few cheap
//! examples are run in full, as written, and every example of the long
//! commands (`ladder`, `arena`, `bench tactics`, `review`, `analyse`) is run
//! with a tiny budget (2 games, 2 simulations a move, 2 levels, two
//! positions of each kind of the tactics suite; [`with_tiny_budget`]),
//! except those that read a run of their own (`runs/...`) or soak for an
//! hour.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common;

use common::Scratch;

const SUMITO: &str = env!("CARGO_BIN_EXE_sumito");

/// One example: where it is written and its words after `sumito`.
#[derive(Debug)]
struct Example {
    place: String,
    line: String,
    args: Vec<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every `docs/*.md`, sorted.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root().join("README.md"));
    docs
}

/// Whether a line holds a placeholder rather than a runnable value.
fn has_placeholder(line: &str) -> bool {
    let angle = line.find('<').is_some_and(|open| {
        line[open + 1..]
            .find('>')
            .is_some_and(|len| len > 0 && !line[open + 1..open + 1 + len].contains(' '))
    });
    angle
        || line.contains("...")
        || line.contains('…')
        || line.contains("s3://")
        || line.contains('$')
}

/// The line up to a `#` outside quotes that starts a word.
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    let mut previous = ' ';
    for (at, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(open), c) if c == open => quote = None,
            (None, '#') if previous.is_whitespace() => return line[..at].trim_end(),
            _ => {}
        }
        previous = c;
    }
    line
}

/// Splits a shell line into words as `sh` would for these examples: single
/// and double quotes, a `#` that starts a word ends the line, and the words
/// stop at a redirection or pipe (`<`, `>`, `|`, `;`, `&&`).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        _ => word.push(q),
                    }
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '#' if !in_word => break,
            '<' | '>' | '|' | ';' | '&' if !in_word => break,
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Every `sumito ...` line of the ```sh blocks of `path` (continuation lines
/// ending in `\` joined), with its line number.
fn examples_in(path: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.strip_prefix(root()).unwrap().display().to_string();
    let mut examples = Vec::new();
    let mut in_sh = false;
    let mut lines = text.lines().enumerate();
    while let Some((index, line)) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed.trim_end() == "```sh";
            continue;
        }
        if !in_sh || !trimmed.starts_with("sumito ") {
            continue;
        }
        let mut full = trimmed.to_string();
        while full.trim_end().ends_with('\\') {
            let Some((_, next)) = lines.next() else { break };
            full = format!("{} {}", full.trim_end().trim_end_matches('\\'), next.trim());
        }
        // Placeholders in a trailing comment do not matter.
        let command = strip_comment(&full);
        if has_placeholder(command) {
            continue;
        }
        let words = shell_words(command);
        examples.push(Example {
            place: format!("{name}:{}", index + 1),
            line: full,
            args: words[1..].to_vec(),
        });
    }
    examples
}

#[test]
#[ignore = "prints the examples the other tests check"]
fn list_the_examples() {
    for example in all_examples() {
        println!("{}: {:?}", example.place, example.args);
    }
}

fn all_examples() -> Vec<Example> {
    documents()
        .iter()
        .flat_map(|doc| examples_in(doc))
        .collect()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_shell_words_are_split_as_sh_would() {
    assert_eq!(
        shell_words(r#"sumito analyse --fen "a b/c 0" --x 'y,z=1'   # a comment"#),
        ["sumito", "analyse", "--fen", "a b/c 0", "--x", "y,z=1"]
    );
    assert_eq!(
        shell_words("sumito review game.txt --json > review.json"),
        ["sumito", "review", "game.txt", "--json"]
    );
    assert_eq!(
        shell_words("sumito json-analysis --threads 8 < queries.jsonl"),
        ["sumito", "json-analysis", "--threads", "8"]
    );
    assert_eq!(
        strip_comment("sumito x --fen \"a # b\" # note"),
        "sumito x --fen \"a # b\""
    );
    assert!(has_placeholder(
        "sumito ladder --out runs/ladder/<date-time>/"
    ));
    assert!(has_placeholder("sumito selfplay --run-dir s3://b/p"));
    assert!(!has_placeholder("sumito play --opponent alphabeta:depth=3"));
}

#[test]
fn every_sumito_example_in_the_docs_parses() {
    let examples = all_examples();
    assert!(
        examples.len() >= 60,
        "only {} examples found: is the extraction broken?",
        examples.len()
    );
    // In a scratch folder, with nothing to read: should parsing ever run a
    // command after all, it cannot touch the repository or wait for input.
    let scratch = Scratch::new("docs-commands-parse");
    let parse_only = |args: &[String]| {
        Command::new(SUMITO)
            .args(args)
            .env("SUMITO_PARSE_ONLY", "1")
            .current_dir(&scratch.0)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    // A command that would print something else if it ran.
    let probe = parse_only(&[
        "moves".to_string(),
        "--layout".to_string(),
        "standard".to_string(),
    ]);
    assert_eq!(
        String::from_utf8_lossy(&probe.stdout),
        "parsed\n",
        "SUMITO_PARSE_ONLY=1 must only parse: {}",
        text(&probe)
    );
    let mut failures = Vec::new();
    for example in &examples {
        let output = parse_only(&example.args);
        if !output.status.success() || String::from_utf8_lossy(&output.stdout).trim() != "parsed" {
            failures.push(format!(
                "{}: {}\n    {}",
                example.place,
                example.line,
                text(&output).trim().replace('\n', "\n    ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples do not parse:\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n")
    );
}

/// The example that starts with `prefix`, wherever the docs have it.
fn example(prefix: &str) -> Example {
    all_examples()
        .into_iter()
        .find(|example| example.line.starts_with(prefix))
        .unwrap_or_else(|| panic!("no example starting with {prefix:?} in the docs"))
}

/// Runs an example as written, in `dir`.
fn run_in(dir: &Path, example: &Example) -> Output {
    let output = Command::new(SUMITO)
        .args(&example.args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}: {}\n{}",
        example.place,
        example.line,
        text(&output)
    );
    output
}

/// The `[rules]` example of docs/variants.md, as `my-rules.toml` in `dir`
/// (the name the examples beside it read).
fn write_rules_example(dir: &Path) {
    let doc = std::fs::read_to_string(root().join("docs/variants.md")).unwrap();
    let start = doc
        .find("```toml\n[rules]\n")
        .expect("the [rules] example of docs/variants.md");
    let block = &doc[start + "```toml\n".len()..];
    std::fs::write(
        dir.join("my-rules.toml"),
        &block[..block.find("```").unwrap()],
    )
    .unwrap();
}

#[test]
fn cheap_examples_run_as_written() {
    let scratch = Scratch::new("docs-commands");
    let dir = &scratch.0;
    write_rules_example(dir);

    // perft with the counts its comment promises.
    let perft = all_examples()
        .into_iter()
        .find(|example| {
            example
                .line
                .starts_with("sumito perft --layout four-player --depth 3")
                && example.line.contains("perft(3) = ")
        })
        .expect("the four-player perft example with its counts");
    let output = run_in(dir, &perft);
    for count in ["perft(1) = 43", "perft(2) = 1696", "perft(3) = 71767"] {
        assert!(perft.line.contains(count), "{}", perft.line);
        assert!(text(&output).contains(count), "{}", text(&output));
    }

    let moves = run_in(
        dir,
        &example("sumito moves --rules my-rules.toml --layout belgian-daisy"),
    );
    assert!(!moves.stdout.is_empty());

    run_in(
        dir,
        &example("sumito render --layout belgian-daisy --rules my-rules.toml --out variant.svg"),
    );
    assert!(
        std::fs::read_to_string(dir.join("variant.svg"))
            .unwrap()
            .contains("<svg")
    );

    // The game record the README's examples read, made as the README
    // makes it.
    write_the_readmes_game(dir);
    // `pics/` does not exist: render makes it.
    run_in(
        dir,
        &example("sumito render --record game.txt --out pics/game.svg"),
    );
    for picture in ["game-000.svg", "game-001.svg"] {
        assert!(
            std::fs::read_to_string(dir.join("pics").join(picture))
                .unwrap()
                .contains("<svg")
        );
    }
}

/// `game.txt` in `dir`, written by the README's own example that makes the
/// record its analysis, review and render examples read.
fn write_the_readmes_game(dir: &Path) {
    let maker = example("sumito play --seat model --seat greedy --level 1 --save game.txt");
    assert!(maker.place.starts_with("README.md:"), "{}", maker.place);
    let output = run_in(dir, &maker);
    assert!(
        String::from_utf8_lossy(&output.stdout).contains(" moves to game.txt"),
        "{}",
        text(&output)
    );
    let record = std::fs::read_to_string(dir.join("game.txt")).unwrap();
    assert!(record.contains("moves:\n"), "{record}");
}

/// Whether `words` hold `flag`.
fn has(words: &[String], flag: &str) -> bool {
    words.iter().any(|word| word == flag)
}

/// `args` of a long example with a tiny budget: 2 games (3 for rotations
/// of three seats), 2 simulations a move (`--simulations`, `--sims`; given
/// where the example leaves the default of 400 to `ladder`, `analyse` and
/// `review`),
/// 20 ms a move, levels 1 and 2, 2 positions per kind of a generated suite,
/// one classical opponent where the ladder would play its five, and its
/// own output folder `out` where it writes one.
fn with_tiny_budget(args: &[String], out: &str) -> Vec<String> {
    let mut tiny = Vec::new();
    let mut words = args.iter().peekable();
    while let Some(word) = words.next() {
        let value = match word.as_str() {
            // A match of three sides plays whole rotations of them.
            "--games" if args.iter().any(|arg| arg.starts_with("three-player")) => Some("3"),
            "--games" => Some("2"),
            "--simulations" | "--sims" => Some("2"),
            "--time-per-move" => Some("0.02"),
            "--per-kind" => Some("2"),
            "--levels" => Some("1,2"),
            _ => None,
        };
        tiny.push(word.clone());
        if let Some(value) = value {
            // `--levels` may stand alone (every level).
            if word != "--levels" || words.peek().is_some_and(|next| !next.starts_with("--")) {
                words.next();
            }
            tiny.push(value.to_owned());
        }
    }
    let command = tiny[0].clone();
    if command == "ladder" {
        for (flag, value) in [("--games", "2"), ("--simulations", "2")] {
            if !has(&tiny, flag)
                && !(flag == "--simulations"
                    && (has(&tiny, "--levels") || has(&tiny, "--time-per-move")))
            {
                tiny.extend([flag.to_owned(), value.to_owned()]);
            }
        }
        if !has(&tiny, "--opponent") {
            tiny.extend(["--opponent".to_owned(), "greedy".to_owned()]);
        }
    }
    if command == "analyse" && !has(&tiny, "--simulations") && !has(&tiny, "--sims") {
        tiny.extend(["--simulations".to_owned(), "2".to_owned()]);
    }
    if command == "review" && !has(&tiny, "--sims") {
        tiny.extend(["--sims".to_owned(), "2".to_owned()]);
    }
    if command == "bench"
        && tiny.get(1).is_some_and(|part| part == "tactics")
        && !has(&tiny, "--generate")
    {
        // Two positions of each kind (`small-suite.txt`, written by the test).
        tiny.extend(["--suite".to_owned(), "small-suite.txt".to_owned()]);
    }
    if ["ladder", "arena"].contains(&command.as_str()) && !has(&tiny, "--out") {
        tiny.extend(["--out".to_owned(), out.to_owned()]);
    }
    tiny
}

#[test]
fn long_examples_run_with_a_tiny_budget() {
    let scratch = Scratch::new("docs-commands-long");
    let dir = &scratch.0;
    // The records the examples read: the README's game (made by its own
    // example), and a three-player game under the three-player model's
    // rules.
    write_the_readmes_game(dir);
    let arena = Command::new(SUMITO)
        .args(["arena", "--layout", "three-player", "--player", "greedy"])
        .args([
            "--player",
            "random",
            "--player",
            "random",
            "--max-plies",
            "240",
        ])
        .args(["--games", "3", "--no-progress", "--out", "records-three"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(arena.status.success(), "{}", text(&arena));
    std::fs::copy(
        common::first_record(&dir.join("records-three")),
        dir.join("three.txt"),
    )
    .unwrap();
    // The shipped tactics suite's header and first two positions of each kind.
    let suite = std::fs::read_to_string(root().join("crates/arena/tactics/suite.txt")).unwrap();
    let mut small = String::new();
    let mut taken = std::collections::HashMap::new();
    for line in suite.lines() {
        let kind = line.split(" | ").next().unwrap_or_default();
        let count = taken.entry(kind.to_owned()).or_insert(0);
        if line.starts_with('#') || *count < 2 {
            *count += usize::from(!line.starts_with('#'));
            small.push_str(line);
            small.push('\n');
        }
    }
    std::fs::write(dir.join("small-suite.txt"), small).unwrap();
    // The start positions of `sumito arena --start`: two of the suite's, late
    // in their games.
    std::fs::write(
        dir.join("starts.txt"),
        "# two start positions\n\
         ww3/w1wwww/1ww1w2/1wbwb3/2wbb4/3bbb2/3bbb1/3bbb/5 b 1 1 186 26\n\
         5/w5/1wbbb2/1wbbb3/wwwb1b1w1/1wbbb3/2ww3/2b3/5 b 2 4 190 19\n",
    )
    .unwrap();
    let long = ["ladder", "arena", "bench", "review", "analyse"];
    let mut ran = 0;
    let mut seen = std::collections::HashSet::new();
    for (index, example) in all_examples().into_iter().enumerate() {
        let command = example.args[0].as_str();
        // Examples that read a run of their own (`runs/...`) have none here;
        // the server's soak is an hour by design.
        let reads_a_run = example.args.iter().any(|word| word.contains("runs/"));
        let is_soak = example.args.iter().any(|word| word == "--soak");
        let bench_part = example.args.get(1).map(String::as_str);
        if !long.contains(&command)
            || reads_a_run
            || is_soak
            || (command == "bench" && bench_part != Some("tactics"))
        {
            continue;
        }
        // The same command written in two places runs once.
        if !seen.insert(example.args.clone()) {
            continue;
        }
        let tiny = Example {
            args: with_tiny_budget(&example.args, &format!("out-{index}")),
            ..example
        };
        let started = std::time::Instant::now();
        run_in(dir, &tiny);
        eprintln!(
            "{:.1} s: {}: {:?}",
            started.elapsed().as_secs_f64(),
            tiny.place,
            tiny.args
        );
        ran += 1;
    }
    assert!(ran >= 25, "only {ran} long examples ran");
}

/// The README's table of strength levels is the shipped model's
/// `levels.json`, so that a measurement taken again shows there too.
#[test]
fn the_readme_levels_table_is_the_shipped_models_measurement() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let levels: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("models/quick/levels.json")).unwrap())
            .unwrap();
    let levels = levels["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 10);
    for level in levels {
        let number = level["level"].as_u64().unwrap();
        let elo = |key: &str| level[key].as_f64().unwrap().round();
        let row = format!(
            "| {number} | {} | {} | {} [{}, {}] |",
            level["name"].as_str().unwrap(),
            level["simulations"].as_u64().unwrap(),
            elo("elo"),
            elo("elo_low"),
            elo("elo_high"),
        );
        assert!(readme.contains(&row), "README.md has no row {row}");
    }
}
