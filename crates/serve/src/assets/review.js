// The review in the page (loaded after app.js, whose helpers it uses): the
// win graph of every position, each judged move with the better move and
// its line drawn as arrows on the board before it, the key moments with
// "previous mistake" / "next mistake", and learning from the mistakes,
// each move tried judged by the server's model. Like app.js it knows no
// rules: the server sends every move's cells.
"use strict";

// The last review, as `sumito review --json` writes it, while it is of
// this game (its moves are the game's first ones); null otherwise.
let review = null;
// The judged moves' lines by ply: the move played, the better move and its
// line, the legal moves there (the server's `lines`).
let reviewLines = new Map();
// The judged move shown (its ply): the board shows the position before it.
let reviewFocus = null;
// Learn mode: the exercises (plies of the learner's mistakes), the one
// shown, how it stands, and the tally.
let learning = null;
// Marbles picked on the board for a move tried in learn mode.
let learnPick = [];

const SYMBOLS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
const MARK_COLOURS = { inaccuracy: "#d4a017", mistake: "#e07020", blunder: "#c02020" };
const SEAT_COLOURS = {
  black: "#1e1e1e", white: "#8a8a8a", red: "#c8322d", green: "#2f8a3b",
  blue: "#2f5fc8", yellow: "#c9a400",
};

const reviewedMove = (ply) => (review ? review.moves[ply - 1] || null : null);

// Whether the page shows move `ply - 1` of the game itself (no variation).
function showsGamePly(ply) {
  return state && state.cursor === ply && !(state.line && state.line.length);
}

// Whether the review is of the game shown: its moves are the game's first.
function reviewFits() {
  return !!review && !!state && review.moves.length <= state.history.length &&
    review.moves.every((mv, i) => state.history[i].text === mv.move);
}

// The judgement of a move of the move list, while the review is of this game.
function judgementOf(ply) {
  const judged = reviewFits() ? reviewedMove(ply.ply) : null;
  return judged && judged.move === ply.text && judged.judgement ? judged : null;
}

// The plies of the judged moves, in the order of the game.
const judgedPlies = () => review.moves.filter((mv) => mv.judgement).map((mv) => mv.ply);

// Another game, a new one, an undo below the reviewed moves: the review,
// its marks, table, arrows and exercises go.
function clearReview() {
  review = null; reviewLines = new Map(); reviewFocus = null; learning = null; learnPick = [];
  $("review-box").hidden = true;
  $("learn-box").hidden = true;
  $("judged-move").hidden = true;
  $("review-sides").innerHTML = "";
  $("review-moves").innerHTML = "";
  $("key-moments").innerHTML = "";
  $("review-status").textContent = "";
}

function showReview(message) {
  review = message.review;
  reviewLines = new Map(message.lines.map((line) => [line.ply, line]));
  reviewFocus = null; learning = null; learnPick = [];
  const judged = review.moves.filter((mv) => mv.judgement).length;
  const opening = review.meta && review.meta.opening_plies
    ? `; the first ${review.meta.opening_plies} (a random opening) not judged` : "";
  $("review-status").textContent = `reviewed ${review.moves.length} moves: ${judged} marked${opening}`;
  const table = $("review-sides");
  table.innerHTML = "<tr><th>side</th><th>accuracy</th><th>?!</th><th>?</th><th>??</th><th>mean loss</th></tr>";
  for (const name of review.sides) {
    const side = review[name];
    const row = table.insertRow();
    for (const text of [name, `${side.accuracy.toFixed(1)} %`, side.inaccuracies, side.mistakes,
      side.blunders, side.mean_loss.toFixed(1)]) row.insertCell().textContent = String(text);
  }
  renderJudgedTable();
  renderKeyMoments();
  $("review-report").href = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(message.svg);
  $("learn").hidden = exercises().length === 0;
  $("review-box").hidden = false;
  $("learn-box").hidden = true;
  $("judged-move").hidden = true;
  render();
}

// Every judged move, a row each: a click (or a tap) shows it on the board.
function renderJudgedTable() {
  const table = $("review-moves");
  if (!review.moves.some((m) => m.judgement)) {
    table.innerHTML = "<tr><td>no move lost 5 points or more: nothing marked</td></tr>";
    return;
  }
  table.innerHTML = "<tr><th>move</th><th>side</th><th>lost</th><th>better</th></tr>";
  for (const mv of review.moves.filter((m) => m.judgement)) {
    const row = table.insertRow();
    row.dataset.ply = mv.ply;
    row.className = "judged-row" + (mv.ply === reviewFocus ? " current" : "");
    const first = row.insertCell();
    first.textContent = `${mv.ply}. ${mv.move} `;
    const mark = document.createElement("b");
    mark.className = `judgement ${mv.judgement}`;
    mark.textContent = SYMBOLS[mv.judgement];
    first.append(mark);
    row.insertCell().textContent = mv.color;
    row.insertCell().textContent = `−${mv.loss.toFixed(1)}`;
    row.insertCell().textContent = mv.better ? mv.better.move : "-";
    row.onclick = () => focusJudged(mv.ply);
  }
}

// The key moments (the largest losses), each a button, between the
// previous and the next mistake.
function renderKeyMoments() {
  const box = $("key-moments");
  box.innerHTML = "";
  const previous = button("◀ previous mistake", "previous-mistake", () => stepMistake(-1));
  previous.title = "the judged move before the one shown (key: p)";
  box.append(previous);
  const moments = review.key_moments || [];
  const label = document.createElement("span");
  label.textContent = moments.length ? " key moments:" : " no key moments";
  box.append(label);
  for (const ply of moments) {
    const mv = reviewedMove(ply);
    const key = button(`${ply}. ${mv.move} ${SYMBOLS[mv.judgement] || ""}`, "key-moment", () => focusJudged(ply));
    key.dataset.ply = ply;
    key.style.color = MARK_COLOURS[mv.judgement] || "";
    box.append(key);
  }
  const next = button("next mistake ▶", "next-mistake", () => stepMistake(1));
  next.title = "the judged move after the one shown (key: n)";
  box.append(next);
}

function button(text, testid, onclick) {
  const node = document.createElement("button");
  node.type = "button";
  node.textContent = text;
  node.dataset.testid = testid;
  node.onclick = onclick;
  return node;
}

// Shows judged move `ply`: the board before it, with the move played and
// the better line drawn, and its explanation.
function focusJudged(ply) {
  if (!reviewFits() || !reviewLines.has(ply)) return;
  learning = null; learnPick = [];
  $("learn-box").hidden = true;
  reviewFocus = ply;
  renderJudgedMove();
  renderJudgedTable();
  if (showsGamePly(ply - 1)) render();
  else send({ type: "goto", ply: ply - 1 });
}

// The judged move after (`step` 1) or before (-1) the one shown, or the
// shown position.
function stepMistake(step) {
  if (!reviewFits()) return;
  const plies = judgedPlies();
  // From the position shown: the moves played to it are behind.
  const at = reviewFocus !== null ? reviewFocus : state.cursor + 0.5;
  const found = step > 0 ? plies.find((ply) => ply > at) : plies.filter((ply) => ply < at).pop();
  if (found) focusJudged(found);
  else say(step > 0 ? "no judged move after this one" : "no judged move before this one");
}

// The better line in words, numbered from its move.
function lineText(mv) {
  if (!mv.better) return "";
  return mv.better.line.slice(0, 8).map((text, i) => `${mv.ply + i}. ${text}`).join(" ");
}

// The model's answer, as the terminal's exercises give it.
function solutionText(mv) {
  let text = mv.better ? `The model's move: ${mv.better.move} (line ${lineText(mv)}).` : "The model had no other move.";
  if (mv.reason) text += ` The game's move ${mv.move} ${mv.reason}.`;
  return text;
}

function renderJudgedMove() {
  const box = $("judged-move");
  const mv = reviewFocus !== null ? reviewedMove(reviewFocus) : null;
  box.hidden = !mv;
  if (!mv) return;
  box.innerHTML = "";
  const head = document.createElement("p");
  const mark = document.createElement("b");
  mark.className = `judgement ${mv.judgement}`;
  mark.textContent = `${SYMBOLS[mv.judgement]} ${mv.judgement}`;
  head.append(`Move ${mv.ply}, ${mv.color}: ${mv.move} `, mark,
    `, ${mv.loss.toFixed(1)} points lost (${mv.before.toFixed(0)}% with the best move, ${mv.after.toFixed(0)}% with ${mv.move}).`);
  box.append(head);
  if (mv.better) {
    const better = document.createElement("p");
    better.className = "better";
    better.dataset.testid = "better-line";
    better.textContent = `Better: ${mv.better.move}. Line: ${lineText(mv)}`;
    box.append(better);
  }
  if (mv.reason) {
    const why = document.createElement("p");
    why.dataset.testid = "reason";
    why.textContent = `Why: ${mv.move} ${mv.reason}.`;
    box.append(why);
  }
  const legend = document.createElement("p");
  legend.className = "legend";
  legend.textContent = "On the board, before the move: the move played in red (dashed), the better move in green, its line numbered.";
  box.append(legend);
  const steps = document.createElement("div");
  steps.append(
    button("◀ previous", "step-previous", () => stepMistake(-1)),
    button("position after the move", "after-move", () => { reviewFocus = null; box.hidden = true; renderJudgedTable(); send({ type: "goto", ply: mv.ply }); }),
    button("next ▶", "step-next", () => stepMistake(1)));
  box.append(steps);
}

// ---- arrows on the board ----

function arrowHeads(svg) {
  const defs = el("defs", {}, svg);
  for (const kind of ["played", "better", "line", "tried"]) {
    const marker = el("marker", { id: `review-head-${kind}`, viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 3, markerHeight: 3, orient: "auto" }, defs);
    el("path", { d: "M0,0L10,5L0,10z", class: `review-head ${kind}` }, marker);
  }
}

// One move as an arrow from its first marble to where it goes, with a
// label (a number of the line) on a halo.
function moveArrow(svg, mv, kind, label, width) {
  if (!mv || !mv.from.length || !mv.to.length) return;
  const [x1, y1] = cellPoint(mv.from[0]);
  const [x2, y2] = cellPoint(mv.to[0]);
  el("line", {
    class: `review-arrow ${kind}`, "data-move": mv.text, x1, y1, x2, y2,
    "stroke-width": width, "marker-end": `url(#review-head-${kind})`,
  }, svg);
  if (label) el("text", { class: "review-label", x: (x1 + 2 * x2) / 3, y: (y1 + 2 * y2) / 3 }, svg).textContent = label;
}

// Called by render() on every board drawn: the judged move shown (the move
// played, the better line), or the exercise of learn mode (the game's
// move, the marbles picked, the move tried, the solution once shown).
function drawReviewLine(svg) {
  svg.classList.remove("reviewing");
  const ply = learning ? learning.plies[learning.index] : reviewFocus;
  if (!ply || !reviewFits() || !showsGamePly(ply - 1)) return;
  const line = reviewLines.get(ply);
  if (!line) return;
  svg.classList.add("reviewing");
  arrowHeads(svg);
  const showLine = !learning || learning.phase !== "trying";
  if (showLine) {
    line.better.slice(1, 6).forEach((mv, i) => moveArrow(svg, mv, "line", String(i + 2), 4));
  }
  moveArrow(svg, line.played, "played", "", 5);
  if (showLine) moveArrow(svg, line.better[0], "better", line.better.length > 1 ? "1" : "", 8);
  // The move tried, unless it is the solution drawn already.
  const tried = learning && learning.tried;
  if (tried && !(showLine && line.better.length && line.better[0].text === tried)) {
    moveArrow(svg, line.legal.find((mv) => mv.text === tried), "tried", "", 6);
  }
  for (const cell of learnPick) {
    const [x, y] = cellPoint(cell);
    el("circle", { class: "learn-pick", cx: x, cy: y, r: 21 }, svg);
  }
}

// ---- the graph ----

// What the graph draws: a line per side with a point per position where
// its expected score is known. A review gives every position it judged:
// Black's expected score in a two-player game, each side's in games of 3-6
// players. The moves of players that estimate their chances and the
// analysed positions give a point each, before any review and after the
// reviewed moves (the game goes on, and the graph with it): the first
// seat's chances in a two-player game, each seat's own estimate with more
// seats.
function graphLines() {
  const fits = reviewFits();
  const estimated = state.history.filter((ply) => typeof ply.win === "number" &&
    !(fits && ply.ply <= review.moves.length));
  const colourOf = (ply) => state.seats[ply.seat].colour;
  if (fits) {
    const sideOf = (name) => name.split("+");
    if (review.sides.length > 2 && review.expected_scores) {
      return review.sides.map((name, side) => ({
        name, colour: SEAT_COLOURS[sideOf(name)[0]] || "#2060d0",
        points: review.expected_scores.map((scores, ply) => [ply, scores[side] / 100]).concat(
          estimated.filter((ply) => sideOf(name).includes(colourOf(ply))).map((ply) => [ply.ply, ply.win])),
      }));
    }
    // The first side's chances: the mover's, or what the mover leaves it.
    const first = sideOf(review.sides[0]);
    return [{ name: review.sides[0], colour: SEAT_COLOURS.black, area: true,
      points: review.black_expected_score.map((score, ply) => [ply, score / 100]).concat(
        estimated.map((ply) => [ply.ply, first.includes(colourOf(ply)) ? ply.win : 1 - ply.win])) }];
  }
  if (state.seats.length > 2) {
    return state.seats.map((seat, index) => ({
      name: seat.colour, colour: SEAT_COLOURS[seat.colour] || "#2060d0",
      points: estimated.filter((ply) => ply.seat === index).map((ply) => [ply.ply, ply.win]),
    }));
  }
  return [{ name: state.seats[0].colour, colour: SEAT_COLOURS.black, area: true,
    points: estimated.map((ply) => [ply.ply, ply.seat === 0 ? ply.win : 1 - ply.win]) }];
}

const GRAPH = { width: 360, height: 180, left: 34, right: 352, top: 16, bottom: 154 };

// The win graph: axes, the phases, push-offs and judged moves marked, the
// shown ply; a click (anywhere on it) goes to that ply.
function renderGraph() {
  if (review && !reviewFits()) clearReview();
  const svg = $("graph");
  svg.innerHTML = "";
  const { left, right, top, bottom } = GRAPH;
  const plies = Math.max(1, state.history.length);
  const x = (ply) => left + ((right - left) * ply) / plies;
  const y = (p) => bottom - (bottom - top) * p;
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    el("line", { class: p === 0.5 ? "grid middle" : "grid", x1: left, y1: y(p), x2: right, y2: y(p) }, svg);
    el("text", { class: "axis", x: left - 4, y: y(p) + 3, "text-anchor": "end" }, svg).textContent = `${100 * p}%`;
  }
  const step = plies <= 10 ? 1 : Math.ceil(plies / 8 / 5) * 5;
  for (let ply = 0; ply <= state.history.length; ply += step) {
    el("text", { class: "axis", x: x(ply), y: bottom + 12, "text-anchor": "middle" }, svg).textContent = ply;
  }
  el("text", { class: "axis", x: right, y: bottom + 23, "text-anchor": "end" }, svg).textContent = "move";
  const fits = reviewFits();
  if (fits) {
    for (const [from, name] of [[review.phases.middlegame_from, "middlegame"], [review.phases.endgame_from, "endgame"]]) {
      if (!from) continue;
      el("line", { class: "phase", "data-phase": name, x1: x(from - 1), y1: top, x2: x(from - 1), y2: bottom }, svg);
      el("text", { class: "axis phase-name", x: x(from - 1) + 2, y: top + 8 }, svg).textContent = name;
    }
  }
  const lines = graphLines();
  const legend = lines.length > 1 ? lines.map((line) => line.name) : [`${lines[0].name}'s expected score`];
  legend.forEach((name, i) => {
    const spacing = Math.min(64, (right - left) / legend.length);
    el("text", { class: "axis legend", x: left + 2 + spacing * i, y: top - 5, style: `fill: ${lines[i].colour}` }, svg).textContent = name;
  });
  if (!fits && !lines.some((line) => line.points.length)) {
    el("text", { class: "axis empty", x: (left + right) / 2, y: (top + bottom) / 2, "text-anchor": "middle" }, svg)
      .textContent = "no analysis yet: review the game, or analyse positions";
  }
  for (const line of lines) {
    if (!line.points.length) continue;
    const path = line.points.map(([ply, p]) => `${x(ply).toFixed(1)},${y(p).toFixed(1)}`);
    if (line.area && line.points.length > 1) {
      el("polygon", { class: "graph-area", points: `${x(line.points[0][0])},${y(0)} ${path.join(" ")} ${x(line.points[line.points.length - 1][0])},${y(0)}` }, svg);
    }
    el("polyline", { class: "graph-line", points: path.join(" "), stroke: line.colour, "data-points": line.points.length }, svg);
    for (const [ply, p] of line.points) {
      el("circle", { class: "graph-point", cx: x(ply), cy: y(p), r: 2, fill: line.colour, "data-ply": ply }, svg);
    }
  }
  if (fits) {
    for (const mv of review.moves) {
      if (mv.push_offs > 0) {
        el("path", { class: "push-off", "data-ply": mv.ply, fill: SEAT_COLOURS[mv.color] || "#555", d: `M${x(mv.ply)},${bottom - 7}l-4,7h8z` }, svg)
          .appendChild(document.createElementNS(NS, "title")).textContent = `${mv.ply}. ${mv.move}: ${mv.color} pushed off ${mv.push_offs}`;
      }
      if (!mv.judgement) continue;
      const line = lines.find((l) => l.name.split("+").includes(mv.color)) || lines[0];
      const point = line.points.find(([ply]) => ply === mv.ply);
      if (!point) continue;
      const mark = el("circle", { class: `graph-judgement ${mv.judgement}`, cx: x(mv.ply), cy: y(point[1]), r: 4.5, "data-ply": mv.ply }, svg);
      mark.appendChild(document.createElementNS(NS, "title")).textContent = `${mv.ply}. ${mv.move} ${SYMBOLS[mv.judgement]} −${mv.loss.toFixed(1)}`;
    }
  }
  el("line", { class: "cursor", x1: x(state.cursor), y1: top, x2: x(state.cursor), y2: bottom }, svg);
  // One target over the whole plot: a click or tap goes to the nearest ply
  // (a judged move's mark to that move shown with its better line).
  const hit = el("rect", { class: "graph-hit", x: left - 4, y: top, width: right - left + 8, height: bottom - top + 14 }, svg);
  hit.addEventListener("click", (event) => {
    const box = svg.getBoundingClientRect();
    const ply = Math.round(((event.clientX - box.left) * GRAPH.width / box.width - left) * plies / (right - left));
    const target = Math.max(0, Math.min(state.history.length, ply));
    if (fits && reviewLines.has(target) && reviewedMove(target).judgement) focusJudged(target);
    else { reviewFocus = null; send({ type: "goto", ply: target }); }
  });
}

// The eval bar: the first seat's expected score (win + draw / 2) in the
// last analysis of the shown position; empty (grey) without one.
function renderEvalBar() {
  const bar = $("eval-bar");
  const shown = analysis && state && analysis.position === state.position;
  bar.classList.toggle("stale", !shown);
  if (!shown) { bar.querySelector(".fill").style.height = "50%"; bar.querySelector("span").textContent = ""; return; }
  // The first side's value, -1 to 1: its expected score is (1 + value) / 2.
  const first = (1 + analysis.values_by_side[0]) / 2;
  bar.querySelector(".fill").style.height = `${(100 * first).toFixed(1)}%`;
  bar.querySelector("span").textContent = `${state.seats[0].colour} ${(100 * first).toFixed(0)}%`;
}

// ---- learn from your mistakes ----

// The learner's exercises: the mistakes and blunders of the seats people
// played (of every seat when none was a person's), random opening left out.
function exercises() {
  if (!reviewFits()) return [];
  const people = state.seats.map((seat) => seat.human);
  const anyone = !people.some(Boolean) || people.every(Boolean);
  return review.moves.filter((mv) => (mv.judgement === "mistake" || mv.judgement === "blunder") &&
    !mv.random_opening && reviewLines.has(mv.ply) &&
    (anyone || people[state.history[mv.ply - 1].seat])).map((mv) => mv.ply);
}

function startLearning() {
  const plies = exercises();
  if (!plies.length) { $("review-status").textContent = "No mistakes or blunders to learn from: well played."; return; }
  reviewFocus = null;
  $("judged-move").hidden = true;
  learning = { plies, index: 0, solved: 0, shown: 0, skipped: 0, phase: "trying", tried: null };
  showExercise();
}

function showExercise() {
  const box = $("learn-box");
  box.hidden = false;
  learnPick = [];
  if (learning.index >= learning.plies.length) {
    const { solved, shown, skipped } = learning;
    $("learn-prompt").textContent = `Solved ${solved} of ${learning.plies.length} (${shown} solution${shown === 1 ? "" : "s"} shown, ${skipped} skipped).`;
    $("learn-verdict").textContent = "";
    $("learn-verdict").className = "";
    $("learn-form").hidden = true;
    $("learn-solution").hidden = true;
    $("learn-next").hidden = true;
    learning = null;
    render();
    return;
  }
  const ply = learning.plies[learning.index];
  const mv = reviewedMove(ply);
  learning.phase = "trying"; learning.tried = null;
  $("learn-prompt").textContent = `${learning.index + 1} of ${learning.plies.length}: move ${ply}, ${mv.color} to play. ` +
    `The game went ${mv.move} here (red arrow): ${SYMBOLS[mv.judgement]} ${mv.judgement}, ${mv.loss.toFixed(1)} points lost. ` +
    "Find a better move: pick its marbles and where the first goes, or type it.";
  $("learn-verdict").textContent = "";
  $("learn-verdict").className = "";
  $("learn-form").hidden = false;
  $("learn-solution").hidden = false;
  $("learn-next").hidden = false;
  $("learn-next").textContent = "skip";
  if (showsGamePly(ply - 1)) render();
  else send({ type: "goto", ply: ply - 1 });
}

function tryMove(text) {
  if (!learning || learning.phase === "shown") return;
  $("learn-verdict").textContent = "the model is judging it…";
  $("learn-verdict").className = "";
  $("learn-verdict").dataset.judging = "1";
  send({ type: "try_move", ply: learning.plies[learning.index], text });
}

// An error while a move tried is judged (not a move there, the search
// stopped) ends the wait for its verdict; one while the game is reviewed
// (stopped by the page moving on) ends the review's progress line.
function reviewError(text) {
  if ($("review-status").textContent.startsWith("reviewing")) $("review-status").textContent = text;
  if (learning && $("learn-verdict").dataset.judging) {
    delete $("learn-verdict").dataset.judging;
    $("learn-verdict").textContent = text;
    $("learn-verdict").className = "short";
  }
}

// The server's verdict on the move tried.
function showTried(message) {
  if (!learning || message.ply !== learning.plies[learning.index]) return;
  learning.tried = message.tried;
  const verdict = $("learn-verdict");
  delete verdict.dataset.judging;
  verdict.textContent = message.says;
  verdict.className = message.solved ? "solved" : "short";
  if (message.solved && learning.phase === "trying") {
    learning.solved += 1;
    learning.phase = "solved";
    const mv = reviewedMove(message.ply);
    if (!mv.better || mv.better.move !== message.tried) verdict.textContent += " " + solutionText(mv);
    else if (mv.reason) verdict.textContent += ` The game's move ${mv.move} ${mv.reason}.`;
    settled();
  }
  render();
}

function showSolution() {
  if (!learning) return;
  if (learning.phase === "trying") { learning.shown += 1; learning.phase = "shown"; }
  $("learn-verdict").textContent = solutionText(reviewedMove(learning.plies[learning.index]));
  $("learn-verdict").className = "shown";
  settled();
  render();
}

// Solved or its solution shown: no more tries, on to the next.
function settled() {
  $("learn-form").hidden = true;
  $("learn-solution").hidden = true;
  $("learn-next").textContent = learning.index + 1 < learning.plies.length ? "next exercise" : "finish";
}

function nextExercise() {
  if (!learning) return;
  if (learning.phase === "trying") learning.skipped += 1;
  learning.index += 1;
  showExercise();
}

// A board click in learn mode picks marbles and a destination from the
// exercise's legal moves, and tries the move (not a move of the game).
function learnClick(cell) {
  const legal = reviewLines.get(learning.plies[learning.index]).legal;
  if (learnPick.includes(cell)) { learnPick = learnPick.filter((c) => c !== cell); render(); return; }
  const moves = legal.filter((mv) => sameSet(mv.from, learnPick) && mv.to.includes(cell));
  if (learnPick.length && moves.length) {
    const chosen = moves.find((mv) => mv.to[0] === cell) || moves[0];
    learnPick = [];
    render();
    tryMove(chosen.text);
    return;
  }
  if (learnPick.length < 3 && legal.some((mv) => [...learnPick, cell].every((c) => mv.from.includes(c)))) {
    learnPick.push(cell);
    say("");
    render();
    return;
  }
  say(learnPick.length ? `no legal move takes ${learnPick.join(" ")} to ${cell}` : `no legal move starts on ${cell}`);
  learnPick = [];
  render();
}

// In learn mode the board's clicks are the exercise's (caught before the
// game's own handlers, which would play a move).
for (const kind of ["click", "pointerdown"]) {
  $("board").addEventListener(kind, (event) => {
    if (!learning || learning.phase !== "trying" || !showsGamePly(learning.plies[learning.index] - 1)) return;
    const target = event.target.closest("[data-cell]");
    event.stopPropagation();
    if (kind === "click" && target) learnClick(target.dataset.cell);
  }, true);
}

// A click (or tap) on a judged move of the move list shows it with its
// better line; on the move already shown so, the position after it.
$("moves").addEventListener("click", (event) => {
  const span = event.target.closest("[data-ply]");
  if (!span || !reviewFits()) return;
  const ply = Number(span.dataset.ply);
  const mv = reviewedMove(ply);
  if (!mv || !mv.judgement || span.textContent.indexOf(mv.move) < 0) return;
  event.stopPropagation();
  if (reviewFocus === ply && showsGamePly(ply - 1)) {
    reviewFocus = null;
    $("judged-move").hidden = true;
    renderJudgedTable();
    send({ type: "goto", ply });
  } else focusJudged(ply);
}, true);

// ---- controls ----

$("review").onclick = () => {
  clearReview();
  $("review-status").textContent = "reviewing…";
  const simulations = Number($("review-sims").value);
  send(simulations > 0 ? { type: "review", simulations } : { type: "review" });
};
$("learn").onclick = startLearning;
// A record loaded is another game, even with the same moves: the server
// keeps no review of it.
$("load").addEventListener("click", clearReview);
$("learn-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("learn-input").value.trim();
  $("learn-input").value = "";
  if (text) tryMove(text);
});
$("learn-solution").onclick = showSolution;
$("learn-next").onclick = nextExercise;
$("learn-stop").onclick = () => { learning = null; learnPick = []; $("learn-box").hidden = true; render(); };

// Keys: n the next judged move, p the previous one (not while typing).
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || !reviewFits()) return;
  if (event.target.closest && event.target.closest("input, textarea, select")) return;
  if (event.key === "n") { stepMistake(1); event.preventDefault(); }
  else if (event.key === "p") { stepMistake(-1); event.preventDefault(); }
});
