//! Every relative link of the Markdown documents resolves: the file exists,
//! and a `#fragment` names a heading of it (GitHub's anchor of the heading)
//! or an `<a id>` in it. Moving a section between documents breaks links
//! silently otherwise; this test names each broken one with its file and
//! line.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's Markdown files, skipping build outputs, runs and hidden
/// folders (virtual environments, libtorch).
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("reading {}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') || ["target", "runs", "node_modules"].contains(&name.as_str()) {
            continue;
        }
        if path.is_dir() {
            markdown_files(&path, out);
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// The lines of a document outside fenced code blocks, with their numbers.
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            lines.push((index + 1, line));
        }
    }
    lines
}

/// GitHub's anchor of a heading: lower case, inline markup and punctuation
/// dropped (letters, digits, `-` and `_` kept), spaces made `-`.
fn anchor_of(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors a document defines: its headings' (a repeated heading gets
/// `-1`, `-2`, … as on GitHub) and its `<a id="…">` / `<a name="…">`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = anchor_of(line[hashes..].trim());
            let count = seen.entry(base.clone()).or_insert(0);
            anchors.insert(if *count == 0 {
                base.clone()
            } else {
                format!("{base}-{count}")
            });
            *count += 1;
        }
        for key in ["<a id=\"", "<a name=\""] {
            let mut rest = line;
            while let Some(start) = rest.find(key) {
                rest = &rest[start + key.len()..];
                if let Some(end) = rest.find('"') {
                    anchors.insert(rest[..end].to_string());
                }
            }
        }
    }
    anchors
}

/// The line with its inline code spans blanked, so that a `[x](y)` shown as
/// code is not taken for a link.
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else {
            out.push(if in_code { ' ' } else { c });
        }
    }
    out
}

/// The link targets of one line: inline `[text](target "title")` and
/// `![alt](target)`, and a reference definition `[label]: target`.
fn link_targets(line: &str) -> Vec<String> {
    let line = without_code_spans(line);
    let mut targets = Vec::new();
    let mut rest = line.as_str();
    while let Some(start) = rest.find("](") {
        rest = &rest[start + 2..];
        let mut depth = 0usize;
        let end = rest.char_indices().find_map(|(i, c)| match c {
            '(' => {
                depth += 1;
                None
            }
            ')' if depth == 0 => Some(i),
            ')' => {
                depth -= 1;
                None
            }
            _ => None,
        });
        if let Some(end) = end {
            let inside = rest[..end].trim();
            let target = inside.split_whitespace().next().unwrap_or("");
            targets.push(target.to_string());
            rest = &rest[end..];
        }
    }
    let trimmed = line.trim_start();
    if let Some(after) = trimmed.strip_prefix('[')
        && let Some(close) = after.find("]: ")
    {
        let target = after[close + 3..].split_whitespace().next().unwrap_or("");
        targets.push(target.to_string());
    }
    targets
}

/// A path with `.` and `..` folded, without touching the disk.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Every broken link of every document, as `file:line: target (why)`.
fn broken_links(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    markdown_files(root, &mut files);
    let mut anchor_cache: HashMap<PathBuf, BTreeSet<String>> = HashMap::new();
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(root).unwrap().display().to_string();
        for (number, line) in prose_lines(&text) {
            for target in link_targets(line) {
                if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (path_part, fragment) = match target.split_once('#') {
                    Some((path, fragment)) => (path, Some(fragment)),
                    None => (target.as_str(), None),
                };
                let linked = if path_part.is_empty() {
                    file.clone()
                } else {
                    normalized(&file.parent().unwrap().join(path_part))
                };
                if !linked.exists() {
                    broken.push(format!("{shown}:{number}: {target} (no such file)"));
                    continue;
                }
                let Some(fragment) = fragment else { continue };
                if linked.extension().is_none_or(|ext| ext != "md") {
                    continue;
                }
                let defined = anchor_cache
                    .entry(linked.clone())
                    .or_insert_with(|| anchors(&std::fs::read_to_string(&linked).unwrap()));
                if !defined.contains(fragment) {
                    broken.push(format!(
                        "{shown}:{number}: {target} (no heading has the anchor #{fragment})"
                    ));
                }
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let broken = broken_links(&root());
    assert!(
        broken.is_empty(),
        "{} broken links:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn anchors_follow_githubs_rules() {
    let text = "# Measurements and history\n## 2026-11-26: the `material_utility` run (issue #28)\n\
                ## Its strength\n## Its strength\n```\n# not a heading\n```\n<a id=\"custom\"></a>\n";
    let defined = anchors(text);
    let expected = [
        "measurements-and-history",
        "2026-11-26-the-material_utility-run-issue-28",
        "its-strength",
        "its-strength-1",
        "custom",
    ];
    assert_eq!(defined, expected.iter().map(|s| s.to_string()).collect());
}

#[test]
fn links_are_found_outside_code() {
    let line = "See [a](a.md#x), ![b](img/b.png \"title\") and `[c](not-a-link.md)`.";
    assert_eq!(link_targets(line), ["a.md#x", "img/b.png"]);
    assert_eq!(link_targets("[label]: ../x.md#y"), ["../x.md#y"]);
}

#[test]
fn a_broken_link_is_named_with_its_file_and_line() {
    let dir = std::env::temp_dir().join(format!("sumito-links-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(
        dir.join("README.md"),
        "# Top\n\n[ok](docs/a.md#part)\n[gone](docs/b.md)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("docs/a.md"),
        "# A\n## Part\n[bad](#nowhere) [up](../README.md#top)\n",
    )
    .unwrap();
    let broken = broken_links(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        broken,
        [
            "README.md:4: docs/b.md (no such file)",
            "docs/a.md:3: #nowhere (no heading has the anchor #nowhere)"
        ]
    );
}
