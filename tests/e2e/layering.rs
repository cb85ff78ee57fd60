//! The import graph between source files: within every crate, which file
//! names which (`use crate::…`, `use super::…` and paths written out in
//! code), the circles in it, and its direction. A circle means no file of
//! it can be read, tested or moved without the others; the count is 0 and
//! any circle fails. The direction is declared: each crate lists its
//! top-level modules in layers, from the bottom up ([`LAYERS`]), and a file
//! may import only files of its own top-level module or of a lower layer,
//! so that an edge from a lower file to a higher one (or across one layer)
//! fails, naming both files. A crate's root (`lib.rs`) holds only `mod`
//! lines, re-exports and docs; what it defines otherwise is a node of the
//! graph ([`ROOT`]), above every file, so that a file importing a name the
//! root defines while the root re-exports it is a circle, and any such
//! definition fails the layers where the crate has other files (a crate of
//! one file, as `fsio`, is all root). A binary's root (`main.rs`, the
//! `[[bin]]` paths of the manifest, the build script) is a node too, always,
//! above every file: the files it declares with `mod` are its tree, where
//! `crate::` means that binary, and what they name of the library by name
//! (`sumito_cli::cli`) is the library's. Test modules (`#[cfg(test)]` to the
//! end of a file, and the files a `#[cfg(test)] mod tests;` declares) are left
//! out: a test may use what sits above the code it tests.
//!
//! `cargo test --test e2e layering -- --nocapture` prints every circle and
//! each crate's layers as the imports order them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The name of the module that a `#[cfg(test)]` line followed by `next`
/// opens, if `next` declares one (`mod tests;`, a file of its own, or
/// `mod tests {`).
fn test_module<'a>(cfg: &str, next: &'a str) -> Option<&'a str> {
    if cfg.trim() != "#[cfg(test)]" {
        return None;
    }
    let next = next.trim_start();
    let rest = ["mod ", "pub mod ", "pub(crate) mod "]
        .iter()
        .find_map(|start| next.strip_prefix(start))?;
    rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .filter(|name| !name.is_empty())
}

/// The manifests that may declare the binaries of the crate whose sources
/// lie under `root`: its own (beside `src/` or in the folder) and the
/// workspace's (whose package has its sources in `crates/cli`).
fn manifests_of(root: &Path) -> Vec<PathBuf> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let own = [root.join("Cargo.toml")]
        .into_iter()
        .chain(root.parent().map(|dir| dir.join("Cargo.toml")));
    let mut manifests: Vec<PathBuf> = own.chain([workspace]).filter(|m| m.is_file()).collect();
    manifests.dedup();
    manifests
}

/// The roots a manifest declares besides its library's: each `[[bin]]`'s
/// `path`, the package's `build` script, and the `build.rs` beside it that
/// Cargo takes without being told.
fn declared_roots(manifest: &Path) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let dir = manifest.parent().unwrap();
    let mut section = "";
    let mut found = vec![dir.join("build.rs")];
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if matches!(
            (section, key.trim()),
            ("[[bin]]", "path") | ("[package]", "build")
        ) {
            found.push(dir.join(value.trim().trim_matches('"')));
        }
    }
    found
}

/// The roots of the binaries of the crate whose sources lie under `root`
/// (a build script is one too): those its manifests declare and those Cargo
/// finds by itself (`main.rs`, `bin/*.rs`, `bin/*/main.rs`). Each is the
/// root of a crate of its own, which reaches the library by name.
fn binary_roots(root: &Path) -> Vec<PathBuf> {
    let mut found: BTreeSet<PathBuf> = manifests_of(root)
        .iter()
        .flat_map(|manifest| declared_roots(manifest))
        .collect();
    found.insert(root.join("main.rs"));
    if let Ok(entries) = std::fs::read_dir(root.join("bin")) {
        for entry in entries {
            let path = entry.unwrap().path();
            found.insert(path.join("main.rs"));
            found.insert(path);
        }
    }
    found
        .into_iter()
        .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "rs"))
        .filter(|path| path.starts_with(root))
        .collect()
}

/// The node of a crate root in the import graph: its path from the
/// sources' folder (`lib.rs`, `sumito_torch.rs`), which no module path can
/// be.
fn root_node(root: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(root).unwrap_or(file);
    relative.to_string_lossy().replace('\\', "/")
}

/// Whether a node of an import graph is a crate root ([`root_node`]).
fn is_root(node: &str) -> bool {
    node.ends_with(".rs")
}

/// The top-level modules that the code of a crate root declares
/// (`mod network;`): in a binary's root, the files of its own tree.
fn declared_modules(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter(|line| !line.starts_with(char::is_whitespace))
        .filter_map(|line| {
            let line = line.trim_end();
            let item = ["pub(crate) ", "pub "]
                .iter()
                .find_map(|visibility| line.strip_prefix(visibility))
                .unwrap_or(line);
            item.strip_prefix("mod ")?.strip_suffix(';')
        })
        .map(|name| name.trim().to_owned())
        .collect()
}

/// The module path (`a::b`) of every source file of the crate whose
/// sources lie under `root` (the roots of its library and binaries are
/// nodes of their own, [`root_node`]), but for the files of test modules
/// (`#[cfg(test)] mod tests;`), which may use what sits above the code
/// they test.
fn module_files(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut files = BTreeMap::new();
    let crate_roots: Vec<PathBuf> = Some(root.join("lib.rs"))
        .filter(|lib| lib.is_file())
        .into_iter()
        .chain(binary_roots(root))
        .collect();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|ext| ext != "rs") || crate_roots.contains(&path) {
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
            files.insert(parts.join("::"), path);
        }
    }
    let mut tests = Vec::new();
    let declaring = files
        .iter()
        .map(|(module, path)| (module.as_str(), path))
        .chain(crate_roots.iter().map(|path| ("", path)));
    for (module, path) in declaring {
        let text = std::fs::read_to_string(path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.windows(2) {
            if let Some(name) = test_module(pair[0], pair[1])
                && pair[1].trim_end().ends_with(';')
            {
                let prefix = if module.is_empty() { "" } else { "::" };
                tests.push(format!("{module}{prefix}{name}"));
            }
        }
    }
    files.retain(|module, _| {
        !tests
            .iter()
            .any(|test| module == test || module.starts_with(&format!("{test}::")))
    });
    files
}

/// The text of a file without its test module (an inline one, to the end
/// of the file; one in a file of its own is left out by [`module_files`]).
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .windows(2)
        .position(|pair| {
            test_module(pair[0], pair[1]).is_some() && !pair[1].trim_end().ends_with(';')
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

/// The import graph of the crate `krate` whose sources lie under `root`:
/// an edge from each file to every other file it names.
fn import_graph(krate: &str, root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    graph_of_files(root, &module_files(root), &library_of(krate))
}

/// The name the crate in folder `crates/<krate>` has as a library
/// (`sumito_cli` for `cli`): what its binaries' modules reach it by.
fn library_of(krate: &str) -> String {
    format!("sumito_{}", krate.replace('-', "_"))
}

/// The paths `code` names through its crate's `library` by name, from the
/// library's root: a binary's module that imports `sumito_cli::cli`
/// imports the library's file `cli`. Its own `crate::`, `super::` and
/// `self::` paths are left out (they are its own tree's).
fn library_paths(code: &str, library: &str) -> Vec<String> {
    let code = code
        .replace("crate::", "crate_::")
        .replace("super::", "super_::")
        .replace("self::", "self_::")
        .replace(&format!("{library}::"), "crate::");
    named_paths("", &[], &code)
}

/// The files directly below `module` among `files`, by name.
fn children_of(files: &BTreeMap<String, PathBuf>, module: &str) -> Vec<String> {
    let prefix = if module.is_empty() {
        String::new()
    } else {
        format!("{module}::")
    };
    files
        .keys()
        .filter_map(|other| other.strip_prefix(&prefix))
        .filter(|rest| !rest.is_empty() && !rest.contains("::"))
        .map(str::to_owned)
        .collect()
}

/// The names each file re-exports (`pub use`), with the paths they stand
/// for: `crate::Position` is `position::Position` where `lib.rs` (the root,
/// `lib`, module path "") says `pub use position::Position`.
fn reexports(files: &BTreeMap<String, PathBuf>, lib: Option<&Path>) -> BTreeMap<String, String> {
    let root = lib
        .filter(|lib| lib.is_file())
        .map(|lib| (String::new(), lib.to_owned()));
    let mut names = BTreeMap::new();
    for (module, path) in files
        .iter()
        .map(|(m, p)| (m.clone(), p.clone()))
        .chain(root)
    {
        let children = children_of(files, &module);
        for statement in code_of(&path).split(';') {
            let statement = statement.trim();
            let Some(at) = statement.find("use ") else {
                continue;
            };
            let before = statement[..at].trim_end();
            if !(before.ends_with("pub") || before.ends_with(')')) {
                continue;
            }
            let tree = format!("use {}", &statement[at + 4..]);
            for path in named_paths(&module, &children, &tree) {
                let name = path.rsplit("::").next().unwrap_or_default();
                let key = if module.is_empty() {
                    name.to_owned()
                } else {
                    format!("{module}::{name}")
                };
                if key != path {
                    names.insert(key, path);
                }
            }
        }
    }
    names
}

/// The node of a crate's root file (`lib.rs`) in its import graph: its own
/// code (what it defines, and what that imports). No module path can be
/// this name.
const ROOT: &str = "lib.rs";

/// What the top-level code of a crate's root defines beyond `mod` lines,
/// re-exports and docs, each as `fn name`, `struct Name`, `impl …`, and so
/// on (a test module left out): the names that make the root a file others
/// may import, and that a root is to move into files of their own.
fn root_definitions(code: &str) -> Vec<(String, Option<String>)> {
    let mut found = Vec::new();
    for line in code.lines() {
        if line.starts_with(char::is_whitespace) || line.starts_with('#') {
            continue;
        }
        let mut rest = line.trim_end();
        if let Some(after) = rest.strip_prefix("pub(") {
            rest = after.split_once(") ").map_or("", |(_, item)| item);
        } else if let Some(after) = rest.strip_prefix("pub ") {
            rest = after;
        }
        if rest.starts_with("const fn ") {
            rest = &rest["const ".len()..];
        }
        for qualifier in ["unsafe ", "async ", "extern \"C\" "] {
            rest = rest.strip_prefix(qualifier).unwrap_or(rest);
        }
        let (keyword, after) = rest.split_once([' ', '!']).unwrap_or((rest, ""));
        let name: String = after
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        match keyword {
            "fn" | "struct" | "enum" | "trait" | "union" | "type" | "static" | "const"
            | "macro_rules" => found.push((format!("{keyword} {name}"), Some(name))),
            "mod" if !rest.ends_with(';') => {
                found.push((format!("mod {name} {{...}}"), Some(name)));
            }
            "impl" => {
                let head = rest.trim_end_matches('{').trim_end();
                found.push((head.to_owned(), None));
            }
            _ => {}
        }
    }
    found
}

/// The file a path names: the longest prefix of it that is a file of the
/// crate, followed through the re-exports it passes (`crate::Position` to
/// the position file, not `lib.rs`); the node `root` for a name the crate's
/// root defines itself (`defined`).
fn file_named(
    named: &str,
    files: &BTreeMap<String, PathBuf>,
    reexported: &BTreeMap<String, String>,
    defined: &BTreeSet<String>,
    root: &str,
) -> Option<String> {
    let mut path = named.to_owned();
    for _ in 0..8 {
        let parts: Vec<&str> = path.split("::").collect();
        let file = (1..=parts.len())
            .rev()
            .find(|&n| files.contains_key(&parts[..n].join("::")))
            .unwrap_or(0);
        let through = (file < parts.len())
            .then(|| reexported.get(&parts[..=file].join("::")))
            .flatten();
        match through {
            Some(source) => {
                let rest: String = parts[file + 1..].iter().map(|p| format!("::{p}")).collect();
                path = format!("{source}{rest}");
            }
            None if file > 0 => return Some(parts[..file].join("::")),
            None => return defined.contains(parts[0]).then(|| root.to_owned()),
        }
    }
    None
}

/// One crate root's tree: what `crate::` means in its files.
struct Tree {
    /// The root's node ([`root_node`]).
    node: String,
    /// The root's code, where it is a node: a binary's always, the
    /// library's where it defines anything.
    code: Option<String>,
    /// Its top-level modules.
    modules: Vec<String>,
    /// The names its root defines.
    defined: BTreeSet<String>,
    /// The names its files and root re-export, with the paths they stand for.
    reexported: BTreeMap<String, String>,
}

impl Tree {
    /// The tree of the root `file` (under the sources' folder `root`) with
    /// the top-level `modules`.
    fn new(
        root: &Path,
        file: Option<&Path>,
        files: &BTreeMap<String, PathBuf>,
        modules: Vec<String>,
        binary: bool,
    ) -> Tree {
        let code = file.map(code_of);
        let definitions: Vec<(String, Option<String>)> = code
            .iter()
            .flat_map(|code| root_definitions(code))
            .collect();
        Tree {
            node: file.map_or(ROOT.to_owned(), |file| root_node(root, file)),
            defined: definitions
                .iter()
                .filter_map(|(_, name)| name.clone())
                .collect(),
            code: code.filter(|_| binary || !definitions.is_empty()),
            modules,
            reexported: reexports(files, file),
        }
    }

    /// The file or root a path of this tree names.
    fn file_named(&self, named: &str, files: &BTreeMap<String, PathBuf>) -> Option<String> {
        file_named(named, files, &self.reexported, &self.defined, &self.node)
    }
}

/// The import graph of a crate's `files` (module path to file) whose
/// sources lie under `root` (`library`: the crate's name as a library).
///
/// The library's root is a node too ([`ROOT`]) where it defines anything:
/// its own code imports every file it names or re-exports, and a file that
/// names what it defines (`crate::Side`, `super::Side` from a top-level
/// file) imports it, so that such a file the root re-exports closes a
/// circle. Each binary's root is a node always ([`binary_roots`]), over the
/// files it declares with `mod`, whose `crate::` is that binary and which
/// reach the library's files by its name.
fn graph_of_files(
    root: &Path,
    files: &BTreeMap<String, PathBuf>,
    library: &str,
) -> BTreeMap<String, BTreeSet<String>> {
    let top = |module: &str| module.split("::").next().unwrap_or_default().to_owned();
    let tops: BTreeSet<String> = files.keys().map(|module| top(module)).collect();
    let binaries: Vec<Tree> = binary_roots(root)
        .iter()
        .map(|file| {
            let modules = declared_modules(&code_of(file));
            let modules = modules.intersection(&tops).cloned().collect();
            Tree::new(root, Some(file), files, modules, true)
        })
        .collect();
    let lib = Some(root.join("lib.rs")).filter(|lib| lib.is_file());
    let library_modules = tops
        .iter()
        .filter(|&module| !binaries.iter().any(|tree| tree.modules.contains(module)))
        .cloned()
        .collect();
    let library_tree = Tree::new(root, lib.as_deref(), files, library_modules, false);
    let trees: Vec<&Tree> = std::iter::once(&library_tree).chain(&binaries).collect();
    let mut graph = BTreeMap::new();
    let file_nodes = files.iter().map(|(module, path)| {
        let tree = trees
            .iter()
            .rev()
            .find(|tree| tree.modules.contains(&top(module)))
            .unwrap_or(&trees[0]);
        let children = children_of(files, module);
        (
            module.clone(),
            module.clone(),
            children,
            code_of(path),
            *tree,
        )
    });
    let root_nodes = trees.iter().filter_map(|tree| {
        let code = tree.code.clone()?;
        Some((
            tree.node.clone(),
            String::new(),
            tree.modules.clone(),
            code,
            *tree,
        ))
    });
    for (node, module, children, code, tree) in file_nodes.chain(root_nodes) {
        let own = named_paths(&module, &children, &code)
            .into_iter()
            .filter_map(|named| tree.file_named(&named, files));
        let of_library = library_paths(&code, library)
            .into_iter()
            .filter_map(|named| library_tree.file_named(&named, files));
        let targets = own
            .chain(of_library)
            .filter(|target| *target != node)
            .collect();
        graph.insert(node, targets);
    }
    graph
}

/// Every crate's folder name (`engine`) and source root, by name.
fn crate_roots() -> Vec<(String, PathBuf)> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let mut roots: Vec<(String, PathBuf)> = std::fs::read_dir(&crates)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .map(|dir| {
            let krate = dir.file_name().unwrap().to_string_lossy().into_owned();
            let src = dir.join("src");
            (krate, if src.is_dir() { src } else { dir })
        })
        .collect();
    roots.sort();
    roots
}

/// Each crate's modules in layers, from the bottom up: a top-level module
/// stands for its files (`rundir` for `rundir.rs` and `rundir/*.rs`) unless
/// its parts are listed on their own (`general::text`), which the parts of
/// a module whose files import each other's across layers need. A file
/// imports files of its own module and of lower layers only; the modules of
/// one layer are peers and import none of each other. A new module takes
/// the layer its imports give it (the test prints them); an import that does
/// not fit says which of the two files is to move.
const LAYERS: &[(&str, &[&[&str]])] = &[
    (
        "arena",
        &[
            &["chart", "elo", "record_format", "spec", "splitmix"],
            &["eval", "player", "record", "scale", "sprt"],
            &["match_start", "play_out", "players", "record_v1"],
            &["arena", "record_text"],
            &["ladder", "report"],
            &["levels"],
            &["arena_board"],
            &["tactics"],
        ],
    ),
    (
        "bundle",
        &[
            &["meta"],
            &["error"],
            &["export", "load"],
            &["arena_player", "onnx"],
            &["bundle"],
        ],
    ),
    (
        "cli",
        &[&["commands", "openmp"], &["cli", "handoff"], &["network"]],
    ),
    (
        "engine",
        &[
            &["alphabeta", "excerpt", "rule_values"],
            &["board"],
            &["action", "bitboard", "ending", "general::rules", "push_off"],
            &["general::moves", "position"],
            &[
                "general::position",
                "layout",
                "material",
                "notation",
                "perft",
                "symmetry",
            ],
            &[
                "general::notation",
                "general::setup",
                "general::symmetry",
                "playout",
                "position_text",
            ],
            &["fen", "general", "general::text"],
            &["general::material", "rules_table"],
        ],
    ),
    (
        "game",
        &[
            &["formats", "kind", "terminal"],
            &["abalone", "general"],
            &["board"],
            &["choice"],
            &["level"],
        ],
    ),
    (
        "mcts",
        &[
            &["config", "sampling", "side"],
            &["error", "filter", "values"],
            &["game", "tree"],
            &["eval", "gumbel"],
            &["search", "toy"],
            &["driver", "planner"],
        ],
    ),
    (
        "net",
        &[
            &["error", "onnx_proto"],
            &["config", "encoding", "fsutil"],
            &["general_encoding"],
            &["model"],
            &["evaluate", "grow", "onnx", "train"],
            &[
                "bench_support",
                "checkpoint",
                "general_search",
                "general_train",
                "service",
            ],
            &["export", "search"],
            &["net_board"],
            &["instant"],
        ],
    ),
    (
        "pipeline",
        &[
            &["fsutil", "matches", "players", "starts", "stop"],
            &["config", "rundir"],
            &["tensorboard", "value_target"],
            &["replay"],
            &["run_board", "selfplay"],
            &["error", "ratings"],
            &["curve", "models", "uploader"],
            &["evaluation", "trainer"],
            &["run"],
        ],
    ),
    (
        "play",
        &[
            &["analysis", "clock", "motion", "titles"],
            &["board_text", "svg"],
            &["general_view"],
            &["drawing"],
            &["session"],
            &["review"],
        ],
    ),
    (
        "serve",
        &[
            &["access", "guard", "menu", "protocol", "slots"],
            &["seat_player"],
            &["model"],
            &["session"],
            &["page"],
            &["searches"],
            &["server"],
        ],
    ),
    (
        "store",
        &[
            &["backend", "crc"],
            &["local", "location", "outage"],
            &["remote"],
            &["store"],
            &["testing"],
        ],
    ),
];

/// The module of `module` among `units`: the longest that is `module` or
/// one it is part of.
fn unit_of<'a>(module: &str, units: &'a BTreeSet<String>) -> Option<&'a String> {
    let parts: Vec<&str> = module.split("::").collect();
    (1..=parts.len())
        .rev()
        .find_map(|n| units.get(&parts[..n].join("::")))
}

/// The imports between `units` (each file's edges as edges of its module).
fn unit_graph(
    graph: &BTreeMap<String, BTreeSet<String>>,
    units: &BTreeSet<String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut between: BTreeMap<String, BTreeSet<String>> = units
        .iter()
        .map(|unit| (unit.clone(), BTreeSet::new()))
        .collect();
    for (from, targets) in graph {
        let Some(low) = unit_of(from, units) else {
            continue;
        };
        for target in targets {
            if let Some(high) = unit_of(target, units)
                && high != low
            {
                between.get_mut(low).unwrap().insert(high.clone());
            }
        }
    }
    between
}

/// The modules whose order the imports say: the top-level ones, where
/// those of a circle are split into their parts (and again) until none is
/// left, or only a circle between files (which the circle test reports).
fn units_by_imports(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let top = |module: &str| module.split("::").next().unwrap_or_default().to_owned();
    let mut units: BTreeSet<String> = graph.keys().map(|module| top(module)).collect();
    loop {
        let mut split = false;
        for unit in circles(&unit_graph(graph, &units)).into_iter().flatten() {
            let prefix = format!("{unit}::");
            let parts: Vec<String> = graph
                .keys()
                .filter_map(|module| module.strip_prefix(&prefix))
                .map(|rest| format!("{prefix}{}", rest.split("::").next().unwrap()))
                .collect();
            for part in parts {
                split |= units.insert(part);
            }
        }
        if !split {
            return units;
        }
    }
}

/// The layer of each of `units` as the imports order them: 0 for one that
/// imports no other, else one above the highest it imports (modules of a
/// circle share the layer above the rest).
fn layers_by_imports(
    graph: &BTreeMap<String, BTreeSet<String>>,
    units: &BTreeSet<String>,
) -> BTreeMap<String, usize> {
    let between = unit_graph(graph, units);
    let mut layer: BTreeMap<String, usize> = BTreeMap::new();
    while layer.len() < between.len() {
        let before = layer.len();
        for (unit, targets) in &between {
            if !layer.contains_key(unit) && targets.iter().all(|t| layer.contains_key(t)) {
                let above = targets.iter().map(|t| layer[t] + 1).max().unwrap_or(0);
                layer.insert(unit.clone(), above);
            }
        }
        if layer.len() == before {
            let top = layer.values().max().map_or(0, |top| top + 1);
            for unit in between.keys() {
                layer.entry(unit.clone()).or_insert(top);
            }
        }
    }
    layer
}

/// `layers` as [`LAYERS`] writes them.
fn declaration(krate: &str, layers: &BTreeMap<String, usize>) -> String {
    let count = layers.values().max().map_or(0, |top| top + 1);
    let rows: Vec<String> = (0..count)
        .map(|n| {
            let names: Vec<String> = layers
                .iter()
                .filter(|&(_, &layer)| layer == n)
                .map(|(module, _)| format!("{module:?}"))
                .collect();
            format!("            &[{}],\n", names.join(", "))
        })
        .collect();
    format!(
        "    (\n        {krate:?},\n        &[\n{}        ],\n    ),",
        rows.concat()
    )
}

/// A crate's import graph without the nodes of its roots and the edges to
/// them: its files alone.
fn without_roots(graph: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    graph
        .iter()
        .filter(|&(module, _)| !is_root(module))
        .map(|(module, targets)| {
            let targets = targets.iter().filter(|t| !is_root(t)).cloned().collect();
            (module.clone(), targets)
        })
        .collect()
}

/// What breaks the declared order `layers` (bottom first) in a crate's
/// import `graph`, each naming both files (`files`: module path to file):
/// an import of a file of a peer or of a higher layer, a file of no
/// declared module, a declared module without files.
fn against_layers(
    graph: &BTreeMap<String, BTreeSet<String>>,
    files: &BTreeMap<String, PathBuf>,
    layers: &[&[&str]],
) -> Vec<String> {
    let layer_of: BTreeMap<String, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(n, modules)| modules.iter().map(move |&module| (module.to_owned(), n)))
        .collect();
    let units: BTreeSet<String> = layer_of.keys().cloned().collect();
    let file = |module: &str| files[module].display().to_string();
    let mut problems = Vec::new();
    for (from, targets) in graph.iter().filter(|&(from, _)| !is_root(from)) {
        for root in targets.iter().filter(|target| is_root(target)) {
            problems.push(format!(
                "{} imports what the crate's root ({root}) defines, which sits above every file",
                file(from)
            ));
        }
    }
    let graph = without_roots(graph);
    for module in graph.keys() {
        if unit_of(module, &units).is_none() {
            problems.push(format!("{} is in no module of LAYERS", file(module)));
        }
    }
    for unit in &units {
        let prefix = format!("{unit}::");
        if !graph
            .keys()
            .any(|module| module == unit || module.starts_with(&prefix))
        {
            problems.push(format!("LAYERS names `{unit}`, which has no file"));
        }
    }
    for (from, targets) in &graph {
        for target in targets {
            let (Some(low), Some(high)) = (unit_of(from, &units), unit_of(target, &units)) else {
                continue;
            };
            let (below, above) = (layer_of[low], layer_of[high]);
            if low != high && above >= below {
                let relation = if above == below {
                    "a peer in its own layer"
                } else {
                    "a higher layer"
                };
                problems.push(format!(
                    "{} (layer {below}, `{low}`) imports {} (layer {above}, `{high}`), {relation}",
                    file(from),
                    file(target)
                ));
            }
        }
    }
    problems
}

#[test]
fn no_file_imports_a_file_above_it() {
    let mut all = Vec::new();
    let mut suggested = Vec::new();
    for (krate, root) in crate_roots() {
        let files = module_files(&root);
        let graph = graph_of_files(&root, &files, &library_of(&krate));
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
        let files: BTreeMap<String, PathBuf> = files
            .into_iter()
            .map(|(module, path)| {
                let relative = path.strip_prefix(workspace).unwrap_or(&path).to_owned();
                (module, relative)
            })
            .collect();
        let files_only = without_roots(&graph);
        let by_imports = layers_by_imports(&files_only, &units_by_imports(&files_only));
        println!("{}", declaration(&krate, &by_imports));
        let declared = LAYERS
            .iter()
            .find(|(name, _)| *name == krate)
            .map_or(&[][..], |(_, layers)| *layers);
        let mut problems = against_layers(&graph, &files, declared);
        let lib = root.join("lib.rs");
        if !files.is_empty() && lib.is_file() {
            let definitions: Vec<String> = root_definitions(&code_of(&lib))
                .into_iter()
                .map(|(item, _)| format!("`{item}`"))
                .collect();
            if !definitions.is_empty() {
                let lib = lib.strip_prefix(workspace).unwrap_or(&lib).display();
                problems.push(format!(
                    "{lib} defines {}: a crate's root holds only `mod` lines, re-exports \
                     and docs (move them into files of their own, re-exported)",
                    definitions.join(", ")
                ));
            }
        }
        if !problems.is_empty() {
            suggested.push(declaration(&krate, &by_imports));
        }
        all.extend(
            problems
                .into_iter()
                .map(|problem| format!("{krate}: {problem}")),
        );
    }
    assert!(
        all.is_empty(),
        "files that import a file above them, or modules without a layer:\n{}\n\
         (the layers as the imports order them, where a crate's declaration fails:\n{})",
        all.join("\n"),
        suggested.join("\n")
    );
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let mut all = Vec::new();
    for (krate, root) in crate_roots() {
        for circle in circles(&import_graph(&krate, &root)) {
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

/// A graph from each node's edges, written out.
fn graph_of(edges: &[(&str, &[&str])]) -> BTreeMap<String, BTreeSet<String>> {
    edges
        .iter()
        .map(|&(node, targets)| {
            let targets = targets.iter().map(|&target| target.to_owned()).collect();
            (node.to_owned(), targets)
        })
        .collect()
}

#[test]
fn the_import_graph_sees_use_trees_relative_paths_and_circles() {
    assert_eq!(expand("a::{b, c::{d, e}}"), ["a::b", "a::c::d", "a::c::e"]);
    assert_eq!(test_module("#[cfg(test)]", "mod tests;"), Some("tests"));
    assert_eq!(
        test_module("  #[cfg(test)]", "  pub(crate) mod review_tests {"),
        Some("review_tests")
    );
    assert_eq!(test_module("#[cfg(test)]", "use super::*;"), None);
    assert_eq!(test_module("#[cfg(feature = \"x\")]", "mod tests;"), None);
    // A binary's module reaches its crate's library by name.
    assert_eq!(library_of("s3-test-server"), "sumito_s3_test_server");
    let code = "use sumito_cli::cli::Command;\nuse crate::network::play;\nuse super::x;\n\
                let h = sumito_cli::handoff::check();";
    let set = |paths: Vec<String>| paths.into_iter().collect::<BTreeSet<String>>();
    assert_eq!(
        set(library_paths(code, "sumito_cli")),
        set(vec!["cli::Command".into(), "handoff::check".into()])
    );
    assert_eq!(
        set(named_paths("network::serve", &[], code)),
        set(vec!["network::play".into(), "network::x".into()])
    );
    assert_eq!(
        declared_modules(
            "//! Docs.\nmod network;\npub mod tools;\nfn main() {\n    mod inner;\n}\n"
        ),
        BTreeSet::from(["network".to_owned(), "tools".to_owned()])
    );
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
    // A name the crate's root or a parent re-exports is its file's.
    let files: BTreeMap<String, PathBuf> = ["position", "general", "general::position"]
        .into_iter()
        .map(|module| (module.to_owned(), PathBuf::from(module)))
        .collect();
    let reexported: BTreeMap<String, String> = [
        ("Position", "position::Position"),
        ("General", "general::GeneralPosition"),
        (
            "general::GeneralPosition",
            "general::position::GeneralPosition",
        ),
    ]
    .into_iter()
    .map(|(name, path)| (name.to_owned(), path.to_owned()))
    .collect();
    for (named, file) in [
        ("Position::start", Some("position")),
        ("General", Some("general::position")),
        ("general::rules_of", Some("general")),
        ("Other", None),
    ] {
        let found = file_named(named, &files, &reexported, &BTreeSet::new(), ROOT);
        assert_eq!(found.as_deref(), file, "{named}");
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
    let graph = graph_of(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"]), ("d", &["a"])]);
    assert_eq!(circles(&graph), [vec!["a", "b", "c"]]);
}

#[test]
fn an_import_against_the_declared_layers_names_both_files() {
    let graph = graph_of(&[
        ("stop", &[]),
        ("rundir", &["stop"]),
        ("rundir::lease", &["rundir", "run"]),
        ("run", &["rundir::lease", "stop"]),
        ("trainer", &["rundir", "evaluation"]),
        ("evaluation", &["rundir"]),
    ]);
    let files: BTreeMap<String, PathBuf> = graph
        .keys()
        .map(|module| {
            (
                module.clone(),
                PathBuf::from(module.replace("::", "/") + ".rs"),
            )
        })
        .collect();
    let layers: &[&[&str]] = &[&["stop"], &["rundir"], &["evaluation", "trainer", "run"]];
    let problems = against_layers(&graph, &files, layers);
    assert_eq!(
        problems,
        [
            "rundir/lease.rs (layer 1, `rundir`) imports run.rs (layer 2, `run`), a higher layer",
            "trainer.rs (layer 2, `trainer`) imports evaluation.rs (layer 2, `evaluation`), a peer in its own layer",
        ]
    );
    // Without those two edges the order holds; a module left out, or one
    // named that is not there, is reported.
    let mut fixed = graph.clone();
    fixed.get_mut("rundir::lease").unwrap().remove("run");
    fixed.get_mut("trainer").unwrap().remove("evaluation");
    assert!(against_layers(&fixed, &files, layers).is_empty());
    let problems = against_layers(&fixed, &files, &[&["stop", "gone"], &["rundir"], &["run"]]);
    assert!(
        problems.contains(&"evaluation.rs is in no module of LAYERS".to_owned()),
        "{problems:?}"
    );
    assert!(
        problems.contains(&"LAYERS names `gone`, which has no file".to_owned()),
        "{problems:?}"
    );
    // The layers the imports give: each module one above the highest it
    // imports; `rundir` and `run` import each other's files, so they are
    // ordered by their parts.
    let units = units_by_imports(&graph);
    let expected: BTreeSet<String> = [
        "evaluation",
        "run",
        "rundir",
        "rundir::lease",
        "stop",
        "trainer",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(units, expected);
    let by_imports = layers_by_imports(&fixed, &units);
    assert_eq!(
        (
            by_imports["stop"],
            by_imports["rundir"],
            by_imports["rundir::lease"],
            by_imports["run"]
        ),
        (0, 1, 2, 3)
    );
    // A part listed on its own is a module of its own layer.
    let split: &[&[&str]] = &[
        &["stop"],
        &["rundir"],
        &["evaluation", "trainer", "rundir::lease"],
        &["run"],
    ];
    let problems = against_layers(&graph, &files, split);
    assert_eq!(
        problems,
        [
            "rundir/lease.rs (layer 2, `rundir::lease`) imports run.rs (layer 3, `run`), a higher layer",
            "trainer.rs (layer 2, `trainer`) imports evaluation.rs (layer 2, `evaluation`), a peer in its own layer",
        ]
    );
}

#[test]
fn what_a_crate_root_defines_is_a_node_that_closes_circles() {
    let code = "//! Docs.\nmod values;\npub mod toy;\npub use values::Values;\n\
                #[derive(Clone)]\npub struct Side(u8);\n\
                pub(crate) const fn mix(x: u64) -> u64 {\n    x\n}\n\
                impl Side {\n    pub fn new() -> Side {\n        Side(0)\n    }\n}\n\
                pub trait Game {}\n";
    let definitions: Vec<String> = root_definitions(code)
        .into_iter()
        .map(|(item, _)| item)
        .collect();
    assert_eq!(
        definitions,
        ["struct Side", "fn mix", "impl Side", "trait Game"]
    );
    assert!(root_definitions("//! Docs.\nmod a;\npub use a::{B, C};\n").is_empty());

    // A root that defines `Side` and re-exports `values`, which imports
    // `Side` back: a circle through the root, and an import of the root.
    let dir = std::env::temp_dir().join(format!("sumito-layering-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("lib.rs"), code).unwrap();
    std::fs::write(
        dir.join("values.rs"),
        "use crate::Side;\npub trait Values {}\n",
    )
    .unwrap();
    std::fs::write(dir.join("toy.rs"), "use super::Values;\npub struct Toy;\n").unwrap();
    let files = module_files(&dir);
    let graph = graph_of_files(&dir, &files, "sumito_x");
    assert_eq!(circles(&graph), [vec![ROOT, "values"]]);
    assert!(graph["toy"].contains("values") && !graph["toy"].contains(ROOT));
    let problems = against_layers(&graph, &files, &[&["values"], &["toy"]]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("values.rs imports what the crate's root (lib.rs) defines"),
        "{problems:?}"
    );
    // Once the root holds only `mod` lines and re-exports, it is no node.
    std::fs::write(
        dir.join("lib.rs"),
        "mod values;\npub mod toy;\npub use values::Values;\n",
    )
    .unwrap();
    std::fs::write(dir.join("values.rs"), "pub trait Values {}\n").unwrap();
    let graph = graph_of_files(&dir, &files, "sumito_x");
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!graph.contains_key(ROOT) && circles(&graph).is_empty());
    assert!(against_layers(&graph, &files, &[&["values"], &["toy"]]).is_empty());
}

#[test]
fn a_binary_root_is_a_node_over_the_files_it_declares() {
    // A binary whose module names what the binary's root defines: a circle
    // through the root, and an import of what sits above every file. Its
    // `crate::` is the binary's own; the library is reached by name.
    let dir = std::env::temp_dir().join(format!("sumito-layering-bin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("lib.rs"), "pub mod util;\n").unwrap();
    std::fs::write(dir.join("util.rs"), "pub fn helpful() {}\n").unwrap();
    std::fs::write(
        dir.join("main.rs"),
        "//! A binary.\nuse sumito_x::util::helpful;\nmod app;\n\
         fn banner() -> &'static str {\n    \"x\"\n}\n\
         fn main() {\n    helpful();\n    app::run();\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("app.rs"),
        "use crate::banner;\nuse sumito_x::util;\npub fn run() {\n    util::helpful();\n    banner();\n}\n",
    )
    .unwrap();
    assert_eq!(binary_roots(&dir), [dir.join("main.rs")]);
    let files = module_files(&dir);
    assert_eq!(files.keys().collect::<Vec<_>>(), ["app", "util"]);
    let graph = graph_of_files(&dir, &files, "sumito_x");
    assert_eq!(circles(&graph), [vec!["app", "main.rs"]]);
    assert_eq!(
        graph["main.rs"],
        BTreeSet::from(["app".to_owned(), "util".to_owned()])
    );
    assert_eq!(
        graph["app"],
        BTreeSet::from(["main.rs".to_owned(), "util".to_owned()])
    );
    let layers: &[&[&str]] = &[&["util"], &["app"]];
    let problems = against_layers(&graph, &files, layers);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].contains("app.rs imports what the crate's root (main.rs) defines"),
        "{problems:?}"
    );
    // With what the module needs in the module, the root only imports.
    std::fs::write(
        dir.join("app.rs"),
        "use sumito_x::util;\npub fn run() {\n    util::helpful();\n}\n",
    )
    .unwrap();
    let graph = graph_of_files(&dir, &files, "sumito_x");
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(circles(&graph).is_empty());
    assert!(against_layers(&graph, &files, layers).is_empty());
    assert_eq!(
        graph["main.rs"],
        BTreeSet::from(["app".to_owned(), "util".to_owned()])
    );
}

#[test]
fn the_binaries_of_the_command_line_are_nodes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/cli");
    let nodes: Vec<String> = binary_roots(&root)
        .iter()
        .map(|file| root_node(&root, file))
        .collect();
    assert_eq!(nodes, ["build.rs", "main.rs", "sumito_torch.rs"]);
    let graph = import_graph("cli", &root);
    for (binary, imports) in [("main.rs", "handoff"), ("sumito_torch.rs", "network")] {
        assert!(
            graph[binary].contains(imports),
            "{binary}: {:?}",
            graph[binary]
        );
    }
    assert!(!module_files(&root).contains_key("main"));
}
