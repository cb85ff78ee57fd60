//! `sumito bench selfplay --instant`: the CPU side of self-play through the
//! real binaries (handed to `sumito-torch`), its lines as scripts read them.

use std::process::Command;

/// The value of the `name: value unit` line `name`.
fn figure(output: &str, name: &str) -> f64 {
    let line = output
        .lines()
        .find(|line| line.starts_with(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no {name} line in:\n{output}"));
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn the_cpu_side_of_selfplay_reports_its_rate_shares_and_scaling() {
    let output = Command::new(env!("CARGO_BIN_EXE_sumito"))
        .args([
            "bench",
            "selfplay",
            "--instant",
            "--games",
            "2",
            "--scale-to",
            "2",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(figure(&stdout, "instant_selfplay_positions") > 0.0);
    assert!(figure(&stdout, "instant_selfplay_positions_per_second") > 0.0);
    let shares: f64 = [
        "encoding",
        "move_generation",
        "search",
        "bookkeeping",
        "network",
    ]
    .iter()
    .map(|part| figure(&stdout, &format!("instant_selfplay_share_{part}")))
    .sum();
    assert!((0.9..=1.1).contains(&shares), "shares sum to {shares}");
    assert!(figure(&stdout, "instant_selfplay_positions_per_second_2_threads") > 0.0);
    assert!(figure(&stdout, "instant_selfplay_scaling_1_to_2_threads") > 0.0);
    // The network's measurement is left out.
    assert!(!stdout.contains("raw_forward"), "{stdout}");
}
