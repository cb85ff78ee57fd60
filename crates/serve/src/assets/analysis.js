// The analysis board: the candidates of an analysis (table and arrows), the
// marbles each side could push off (threats), and the tree of variations in
// the move list with the keys that walk it. The tree is the server's (the
// state's `variations`, which a saved record keeps and a loaded one brings):
// the page shows one line of it at a time (`goto` with `ply` and `line`),
// the server checking every move of it in the position it is played in, and
// every line shown joins the tree.
"use strict";

// ---- the tree of variations ----

// A node is a move: { text, children: [node] } (the first child is the
// line's own continuation, the others variations within it). Variations
// hang off the game's plies: `variations[ply]` holds the first moves of the
// variations played from the position after `ply` moves of the game, in the
// order they were made.
let variations = [];
// Where the shown position is: the game's ply and the variation from it.
let shownPly = 0, shownLine = [];

// Takes a state: the tree is built again from its lines (the leaves of the
// tree, in order, so that the first line through a move is its main
// continuation).
function noteState(message) {
  variations = [];
  for (const { ply, moves } of message.variations || []) {
    let siblings = (variations[ply] = variations[ply] || []);
    for (const text of moves) {
      let node = siblings.find((child) => child.text === text);
      if (!node) { node = { text, children: [] }; siblings.push(node); }
      siblings = node.children;
    }
  }
  shownPly = message.cursor; shownLine = message.line.slice();
}

function showLine(ply, line) { send({ type: "goto", ply, line }); }

// The moves that may follow the shown position, the first the one the
// right arrow takes: the game's own next move, then the variations.
function nextMoves(ply, line) {
  if (!line.length) {
    const own = state.history[ply];
    return (own ? [own.text] : []).concat((variations[ply] || []).map((node) => node.text));
  }
  const node = nodeAt(ply, line);
  return node ? node.children.map((child) => child.text) : [];
}

function nodeAt(ply, line) {
  let siblings = variations[ply] || [], node = null;
  for (const text of line) {
    node = siblings.find((child) => child.text === text);
    if (!node) return null;
    siblings = node.children;
  }
  return node;
}

// The arrow keys: left and right step back and forth along the shown line
// (the game's, or the variation's), up and down go to the previous or next
// alternative at the nearest branching before the shown position, Home and
// End to the start and to the end of the line.
function stepBack() {
  if (shownLine.length) showLine(shownPly, shownLine.slice(0, -1));
  else if (shownPly > 0) showLine(shownPly - 1, []);
}
function stepForward() {
  const next = nextMoves(shownPly, shownLine)[0];
  if (next === undefined) return;
  if (!shownLine.length && state.history[shownPly] && state.history[shownPly].text === next) showLine(shownPly + 1, []);
  else showLine(shownPly, shownLine.concat([next]));
}
function switchVariation(delta) {
  // The alternatives of each move of the shown line, nearest first.
  for (let depth = shownLine.length; depth >= 1; depth--) {
    const before = shownLine.slice(0, depth - 1);
    const options = nextMoves(shownPly, before);
    if (options.length < 2) continue;
    const here = options.indexOf(shownLine[depth - 1]);
    const index = (here + delta + options.length) % options.length;
    const text = options[index];
    if (!before.length && state.history[shownPly] && state.history[shownPly].text === text) showLine(shownPly + 1, []);
    else showLine(shownPly, before.concat([text]));
    return;
  }
  // On the game's line: into the first variation of the shown ply's move.
  const start = shownPly > 0 && (variations[shownPly - 1] || []).length ? shownPly - 1 : shownPly;
  const first = (variations[start] || [])[delta > 0 ? 0 : (variations[start] || []).length - 1];
  if (first) showLine(start, [first.text]);
}
function lineEnd() {
  if (!shownLine.length) { showLine(state.history.length, []); return; }
  let line = shownLine.slice(), next;
  while ((next = nextMoves(shownPly, line)[0]) !== undefined) line.push(next);
  showLine(shownPly, line);
}

document.addEventListener("keydown", (event) => {
  if (!state || event.altKey || event.ctrlKey || event.metaKey) return;
  const typing = event.target.closest && event.target.closest("input, textarea, select");
  if (typing) return;
  const keys = {
    ArrowLeft: stepBack, ArrowRight: stepForward,
    ArrowUp: () => switchVariation(-1), ArrowDown: () => switchVariation(1),
    Home: () => showLine(0, []), End: lineEnd,
    Escape: () => { if (pvStep >= 0) { pvStep = -1; render(); renderAnalysis(); } },
  };
  if (!keys[event.key]) return;
  event.preventDefault();
  keys[event.key]();
});

// ---- the move list ----

// A move's number: one per round of the seats (Black's and White's move
// share one with two players), written before the first seat's move and
// before any move that starts a line ("12…").
function moveNumber(ply, seats, first) {
  const round = Math.floor(ply / seats) + 1;
  if (ply % seats === 0) return `${round}. `;
  return first ? `${round}… ` : "";
}

function renderMoves() {
  const box = $("moves");
  box.innerHTML = "";
  const seats = state.seats.length;
  const start = document.createElement("span");
  start.textContent = "start";
  start.dataset.ply = 0;
  if (state.cursor === 0 && !state.line.length) start.className = "current";
  start.onclick = () => showLine(0, []);
  box.appendChild(start);
  const branches = (ply) => {
    if (!(variations[ply] || []).length) return false;
    const block = document.createElement("div");
    block.className = "variations";
    for (const node of variations[ply]) block.appendChild(renderVariation(ply, [], node, seats));
    box.appendChild(block);
    return true;
  };
  // A game's move after a block of variations is numbered again ("1… I5H5").
  let afterBranches = false;
  for (const ply of state.history) {
    const span = document.createElement("span");
    span.className = "move";
    span.textContent = moveNumber(ply.ply - 1, seats, ply.ply === 1 || afterBranches) + ply.text;
    if (typeof judgementOf === "function") {
      const judged = judgementOf(ply);
      if (judged && typeof SYMBOLS === "object") {
        const mark = document.createElement("b");
        mark.className = `judgement ${judged.judgement}`;
        mark.textContent = SYMBOLS[judged.judgement];
        mark.title = `${judged.judgement}: −${judged.loss.toFixed(1)} points` +
          (judged.better ? `; better ${judged.better.move}` : "");
        span.append(mark);
      }
    }
    span.dataset.ply = ply.ply;
    if (ply.ply === state.cursor && !state.line.length) span.classList.add("current");
    span.onclick = () => showLine(ply.ply, []);
    box.appendChild(span);
    // The variations of this move, after it (as lichess writes them).
    afterBranches = branches(ply.ply - 1);
  }
  branches(state.history.length);
  const current = box.querySelector(".current");
  if (current && current.scrollIntoView) current.scrollIntoView({ block: "nearest" });
}

// One variation, from the position after `ply` moves of the game and the
// moves `before` it: its moves in a row, each move's main reply right after
// it and the other replies (variations within this one) after that reply,
// as lichess writes them: "1… G7F7 2. C3D3 (2. C4D4) 2… …". That is the
// order the arrow keys take (right: the main reply; down: the next
// alternative).
function renderVariation(ply, before, node, seats) {
  const row = document.createElement("div");
  row.className = "variation";
  let line = before.concat([node.text]);
  // The alternatives to the move just written, shown after it.
  let alternatives = [];
  let first = true;
  for (;;) {
    const at = ply + line.length - 1;
    const link = document.createElement("a");
    link.className = "var-move";
    link.textContent = moveNumber(at, seats, first) + node.text;
    const path = line.slice();
    link.dataset.line = path.join(" ");
    link.dataset.ply = ply;
    if (ply === state.cursor && path.join(" ") === state.line.join(" ")) link.classList.add("current");
    link.onclick = () => showLine(ply, path);
    row.appendChild(link);
    first = false;
    for (const other of alternatives) {
      const nested = renderVariation(ply, line.slice(0, -1), other, seats);
      nested.classList.add("nested");
      row.appendChild(nested);
      // The line goes on after them with its move number again.
      first = true;
    }
    if (!node.children.length) break;
    alternatives = node.children.slice(1);
    node = node.children[0];
    line = line.concat([node.text]);
  }
  return row;
}

// ---- the status line ----

function statusLine() {
  if (!state) return "";
  const seat = state.seats[state.to_move];
  const colour = seat ? seat.colour : "";
  if (analysis && pvStep >= 0 && analysis.pv[pvStep] !== undefined) {
    const moves = analysis.pv.slice(0, pvStep + 1).map((text, i) => `${analysis.ply + i + 1}. ${text}`).join(" ");
    return `Preview of the model's line after ${moves} (Esc or a click on the move goes back)`;
  }
  const atEnd = state.cursor === state.history.length && !state.line.length;
  if (atEnd) {
    return state.result ? `Game over: ${state.result}`
      : `${colour} to move` + (state.human_to_move ? "" : " (thinking…)");
  }
  const where = state.line.length
    ? `Variation after ${state.cursor === 0 ? "the start" : `move ${state.cursor}`}: ${state.line.join(" ")}`
    : `Move ${state.cursor} of ${state.history.length}`;
  return `${where} — ${colour} to move (← → step, ↑ ↓ switch variation)`;
}

// ---- threats ----

// The marbles each side could push off with one move, from the engine's
// exact rules (the server's `threats`): a solid red ring where the side to
// move can push the marble off now, a dashed one where another side could
// on its turn.
function drawThreats(svg) {
  for (const threat of state.threats || []) {
    const [x, y] = cellPoint(threat.cell);
    const kind = threat.now ? "now" : "later";
    el("circle", { class: "threat-halo", cx: x, cy: y, r: 11 }, svg);
    const ring = el("circle", { class: `threat ${kind}`, "data-cell": threat.cell, "data-by": threat.by, cx: x, cy: y, r: 11 }, svg);
    el("title", {}, ring).textContent = threat.now
      ? `${threat.by} can push ${threat.cell} off now` : `${threat.by} could push ${threat.cell} off on its turn`;
  }
  const byNow = new Map(), byLater = new Map();
  for (const threat of state.threats || []) {
    const map = threat.now ? byNow : byLater;
    map.set(threat.by, (map.get(threat.by) || []).concat([threat.cell]));
  }
  const parts = [];
  for (const [by, cells] of byNow) parts.push(`${by} can push off ${cells.join(", ")} now`);
  for (const [by, cells] of byLater) parts.push(`${by} threatens ${cells.join(", ")}`);
  $("threats").textContent = parts.length ? parts.join(" · ") : "No marble can be pushed off in one move.";
  $("threats").classList.toggle("none", !parts.length);
}

// ---- the candidates ----

const ARROWS = 5;
const percent1 = (p) => `${(100 * p).toFixed(1)}`;
// The mover's expected score with a move: (1 + Q) / 2 (win, and a share
// of draws).
const scoreOf = (mv) => (mv.q === null || mv.q === undefined ? null : (1 + mv.q) / 2);

// Where an arrow starts and ends: from the middle of the marbles it moves;
// an inline move to its leading marble's new cell, a sideways one to the
// middle of where they go (so that groups of one, two and three marbles
// along a line get arrows of their own lengths).
function arrowEnds(mv) {
  const mean = (cells) => {
    const points = cells.map(cellPoint);
    return [points.reduce((s, p) => s + p[0], 0) / points.length, points.reduce((s, p) => s + p[1], 0) / points.length];
  };
  const entered = mv.to.filter((cell) => !mv.from.includes(cell));
  const start = mean(mv.from);
  const end = entered.length === 1 ? cellPoint(entered[0]) : mean(mv.to);
  return [start, end];
}

// The top candidates as arrows with heads, as thick as the search's
// rating, the one the search plays green. Each is labelled with its rank
// in the table, on a badge placed along the arrow where it overlaps no
// other badge (tried from the middle outwards, then beside the arrow); an
// arrow whose badge finds no room anywhere goes without (the table has it).
function drawArrows(svg) {
  const defs = el("defs", {}, svg);
  for (const kind of ["best", "other"]) {
    const marker = el("marker", { id: `head-${kind}`, viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 3, markerHeight: 3, orient: "auto" }, defs);
    el("path", { d: "M0,0L10,5L0,10z", class: `arrow-head ${kind}` }, marker);
  }
  const shown = analysis.moves.slice(0, ARROWS).filter((mv) => mv.from.length);
  const top = Math.max(...shown.map((mv) => mv.rating), 1e-6);
  const ends = shown.map(arrowEnds);
  // Later arrows first, so that the best is drawn on top.
  for (let index = shown.length - 1; index >= 0; index--) {
    const mv = shown[index];
    const [[x1, y1], [x2, y2]] = ends[index];
    const kind = index === 0 ? "best" : "other";
    el("line", {
      class: "arrow" + (index === 0 ? " best" : ""), "data-move": mv.text, x1, y1, x2, y2,
      "stroke-width": (3 + 7 * Math.min(1, mv.rating / top)).toFixed(1), "marker-end": `url(#head-${kind})`,
    }, svg);
  }
  const placed = [];
  const R = 9;
  const free = ([x, y]) => x > R && y > R && x < 484 - R && y < 430 - R &&
    placed.every(([px, py]) => Math.hypot(px - x, py - y) >= 2 * R + 2);
  shown.forEach((mv, index) => {
    const [[x1, y1], [x2, y2]] = ends[index];
    const length = Math.hypot(x2 - x1, y2 - y1) || 1;
    const [nx, ny] = [-(y2 - y1) / length, (x2 - x1) / length];
    let spot = null;
    for (const side of [0, 1, -1]) {
      for (const t of [0.5, 0.35, 0.65, 0.2, 0.8]) {
        const candidate = [x1 + (x2 - x1) * t + side * nx * (R + 5), y1 + (y2 - y1) * t + side * ny * (R + 5)];
        if (free(candidate)) { spot = candidate; break; }
      }
      if (spot) break;
    }
    if (!spot) return;
    placed.push(spot);
    const badge = el("g", { class: "arrow-label" + (index === 0 ? " best" : ""), "data-move": mv.text }, svg);
    el("circle", { cx: spot[0], cy: spot[1], r: R }, badge);
    el("text", { x: spot[0], y: spot[1] }, badge).textContent = String(index + 1);
  });
}

function renderAnalysis() {
  const [w, d, l] = analysis.wdl;
  const bar = $("wdl");
  bar.querySelector(".w").style.width = `${100 * w}%`;
  bar.querySelector(".d").style.width = `${100 * d}%`;
  bar.querySelector(".l").style.width = `${100 * l}%`;
  const percent = (p) => `${(100 * p).toFixed(0)}%`;
  $("wdl-text").textContent = `${analysis.side} to move: win ${percent(w)} · draw ${percent(d)} · loss ${percent(l)}`;
  const table = $("top-moves");
  table.innerHTML = "";
  const head = table.insertRow();
  const headers = [
    ["#", "the rank: the search plays the first; the others follow its own rating"],
    ["Move", "the move (Aba-Pro: the first marble and where it goes)"],
    ["Win %", `${analysis.side}'s expected score after the move: win, plus a share of draws (from Q, the mean value the search found)`],
    ["Visits", "how often the search went down this move"],
    ["Line", "the line the search expects after the move; click a move to play the line up to it as a variation"],
  ];
  for (const [text, title] of headers) {
    const th = document.createElement("th");
    th.textContent = text; th.title = title;
    head.appendChild(th);
  }
  const best = analysis.moves.length ? scoreOf(analysis.moves[0]) : null;
  analysis.moves.forEach((mv, index) => {
    const row = table.insertRow();
    row.dataset.move = mv.text;
    if (index === 0) row.className = "best";
    const score = scoreOf(mv);
    row.title = `prior ${mv.prior.toFixed(3)} (the network's first guess) · Q ${mv.q === null ? "-" : mv.q.toFixed(3)} ` +
      `(mean value for ${analysis.side}, −1 to 1) · ${mv.visits} visits · rating ${mv.rating.toFixed(3)} (the search's preference)` +
      (index === 0 ? " · the move the search plays" : "");
    row.insertCell().textContent = String(index + 1);
    row.insertCell().textContent = mv.text;
    const win = row.insertCell();
    win.className = "win";
    win.textContent = score === null ? "–" : percent1(score);
    if (score !== null && best !== null && index > 0) {
      const gap = document.createElement("small");
      gap.textContent = ` ${score >= best ? "+" : "−"}${Math.abs(100 * (score - best)).toFixed(1)}`;
      win.appendChild(gap);
    }
    row.insertCell().textContent = String(mv.visits);
    const cell = row.insertCell();
    cell.className = "line";
    cell.title = mv.line.join(" ");
    // (A box of its own: a table cell does not keep to a width.)
    const line = document.createElement("div");
    cell.appendChild(line);
    mv.line.forEach((text, step) => {
      const link = document.createElement("a");
      link.className = "line-move";
      link.textContent = (step ? " " : "") + text;
      link.title = "play the line up to here as a variation";
      link.onclick = () => showLine(state.cursor, state.line.concat(mv.line.slice(0, step + 1)));
      line.appendChild(link);
    });
  });
  const pv = $("pv");
  pv.innerHTML = "PV:";
  analysis.pv.forEach((text, i) => {
    const span = document.createElement("span");
    span.textContent = ` ${analysis.ply + i + 1}. ${text}`;
    span.className = "pv-move" + (i === pvStep ? " current" : "");
    span.dataset.step = i;
    span.title = "preview the board after this move";
    span.onclick = () => { pvStep = pvStep === i ? -1 : i; render(); renderAnalysis(); };
    pv.appendChild(span);
  });
  pv.appendChild(document.createTextNode(
    ` (${analysis.simulations} simulations, ${analysis.elapsed_ms} ms${analysis.done ? "" : ", searching…"})`));
}
