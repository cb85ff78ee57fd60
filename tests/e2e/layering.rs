//! The import graph between source files: within every crate, which file
//! names which (`use crate::…`, `use super::…` and paths written out in
//! code), and the circles in it. A circle means no file of it can be read,
//! tested or moved without the others; the count is 0 and any circle
//! fails. Test modules
//! (`#[cfg(test)]` to the end of a file) are left out: a test may use what
//! sits above the code it tests.
//!
//! `cargo test --test e2e layering -- --nocapture` prints every circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The module path (`a::b`) of every source file of the crate whose
/// sources lie under `root` (`lib.rs`, `main.rs` and the binaries' roots
/// are the empty path).
fn module_files(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut files = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue;
            }
            let relative = path.strip_prefix(root).unwrap().with_extension("");
            let mut parts: Vec<String> = relative
                .components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|last| last == "mod") {
                parts.pop();
            }
            let roots = ["lib", "main", "sumito_torch", "build"];
            if parts.len() == 1 && roots.contains(&parts[0].as_str()) {
                continue;
            }
            files.insert(parts.join("::"), path);
        }
    }
    files
}

/// The text of a file without its test module.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|pair| {
            let next = pair[1].trim_start();
            pair[0].trim() == "#[cfg(test)]"
                && ["mod ", "pub mod ", "pub(crate) mod "]
                    .iter()
                    .any(|start| next.starts_with(start))
        })
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .filter(|line| !line.trim_start().starts_with("//"))
        .copied()
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path a `use` tree names: `a::{b, c::{d, e}}` gives `a::b`,
/// `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree: String = tree.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(open) = tree.find('{') else {
        return vec![tree];
    };
    let (prefix, rest) = tree.split_at(open);
    let inner = &rest[1..rest.len() - 1];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|item| !item.is_empty())
        .flat_map(|item| {
            expand(item)
                .into_iter()
                .map(move |tail| format!("{prefix}{tail}"))
        })
        .collect()
}

/// The module paths a file at module `module` with child modules
/// `children` names, made absolute.
fn named_paths(module: &str, children: &[String], code: &str) -> Vec<String> {
    let parent = |levels: usize| -> Vec<&str> {
        let mut parts: Vec<&str> = module.split("::").filter(|p| !p.is_empty()).collect();
        for _ in 0..levels {
            parts.pop();
        }
        parts
    };
    let mut found = Vec::new();
    // `use` statements, which may span lines and group paths in braces.
    for statement in code.split(';') {
        let statement = statement.trim();
        let Some(at) = statement.find("use ") else {
            continue;
        };
        let before = &statement[..at];
        if !(before.is_empty()
            || before.ends_with("pub ")
            || before.ends_with(')')
            || before.ends_with('\n'))
        {
            continue;
        }
        found.extend(expand(statement[at + 4..].trim()));
    }
    // Paths written out in code, from the crate, the parent or a child.
    let bytes = code.as_bytes();
    let starts: Vec<String> = ["crate", "super"]
        .iter()
        .map(|s| s.to_string())
        .chain(children.iter().cloned())
        .map(|s| format!("{s}::"))
        .collect();
    for start in &starts {
        for (index, _) in code.match_indices(start) {
            if index > 0
                && (bytes[index - 1].is_ascii_alphanumeric() || b"_:".contains(&bytes[index - 1]))
            {
                continue;
            }
            let end = code[index..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |offset| index + offset);
            found.push(code[index..end].trim_end_matches(':').to_owned());
        }
    }
    found
        .into_iter()
        .filter_map(|path| {
            let mut parts: Vec<&str> = path.split("::").collect();
            let base = match parts.first() {
                Some(&"crate") => {
                    parts.remove(0);
                    Vec::new()
                }
                Some(&"super") => {
                    let mut levels = 0;
                    while parts.first() == Some(&"super") {
                        parts.remove(0);
                        levels += 1;
                    }
                    parent(levels)
                }
                Some(&"self") => {
                    parts.remove(0);
                    parent(0)
                }
                Some(first) if children.iter().any(|child| child == first) => parent(0),
                _ => return None,
            };
            Some(base.into_iter().chain(parts).collect::<Vec<_>>().join("::"))
        })
        .collect()
}

/// The circles (strongly connected parts of more than one file) of a
/// graph, each as its files' module paths, by Tarjan's algorithm.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a str) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        for target in &state.graph[node] {
            let target = target.as_str();
            if !state.index.contains_key(target) {
                visit(state, target);
                let low = state.low[node].min(state.low[target]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target) {
                let low = state.low[node].min(state.index[target]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut part = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(top);
                part.push(top.to_owned());
                if top == node {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort();
                state.found.push(part);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.found
}

/// The import graph of the crate whose sources lie under `root`: an edge
/// from each file to every other file it names.
fn import_graph(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let files = module_files(root);
    let mut graph = BTreeMap::new();
    for (module, path) in &files {
        let prefix = if module.is_empty() {
            String::new()
        } else {
            format!("{module}::")
        };
        let children: Vec<String> = files
            .keys()
            .filter_map(|other| other.strip_prefix(&prefix))
            .filter(|rest| !rest.is_empty() && !rest.contains("::"))
            .map(str::to_owned)
            .collect();
        let mut targets = BTreeSet::new();
        for named in named_paths(module, &children, &code_of(path)) {
            // The longest prefix of the path that is a file of the crate.
            let parts: Vec<&str> = named.split("::").collect();
            let target = (1..=parts.len())
                .rev()
                .map(|n| parts[..n].join("::"))
                .find(|prefix| files.contains_key(prefix));
            if let Some(target) = target
                && target != *module
            {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// Every crate's source root.
fn crate_roots() -> Vec<PathBuf> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let mut roots: Vec<PathBuf> = std::fs::read_dir(&crates)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .map(|dir| {
            if dir.join("src").is_dir() {
                dir.join("src")
            } else {
                dir
            }
        })
        .collect();
    roots.sort();
    roots
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let mut all = Vec::new();
    for root in crate_roots() {
        let folder = if root.ends_with("src") {
            root.parent().unwrap()
        } else {
            &root
        };
        let krate = folder.file_name().unwrap().to_string_lossy().into_owned();
        for circle in circles(&import_graph(&root)) {
            all.push(format!("{krate}: {}", circle.join(" → ")));
        }
    }
    println!("{} import circles between files", all.len());
    for circle in &all {
        println!("  {circle}");
    }
    assert!(
        all.is_empty(),
        "files that import a file that imports them back:\n{}",
        all.join("\n")
    );
}

#[test]
fn the_import_graph_sees_use_trees_relative_paths_and_circles() {
    assert_eq!(expand("a::{b, c::{d, e}}"), ["a::b", "a::c::d", "a::c::e"]);
    let named = named_paths(
        "rundir::lease",
        &["record".to_owned()],
        "use super::{RunDir, store::Store};\nuse crate::run::stop;\nlet x = crate::error::E::new();\nlet r = record::Record::read();",
    );
    for path in [
        "rundir::RunDir",
        "rundir::store::Store",
        "run::stop",
        "error::E::new",
        "rundir::lease::record::Record::read",
    ] {
        assert!(named.contains(&path.to_owned()), "{path}: {named:?}");
    }
    // Another crate's module of the same name is not the child.
    assert!(
        named_paths(
            "board",
            &["general".to_owned()],
            "let p = sumito_engine::general::P;"
        )
        .is_empty()
    );
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(node, targets)| {
        (
            node.to_owned(),
            targets.into_iter().map(str::to_owned).collect(),
        )
    })
    .collect();
    assert_eq!(circles(&graph), [vec!["a", "b", "c"]]);
}
