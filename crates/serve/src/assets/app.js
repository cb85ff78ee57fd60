// Sumito's page: draws what the server says (board cell by cell, legal
// moves as cells picked up and where each goes) and sends what the person
// does. It knows no rules: every variant and 3-6 players draw the same way.
"use strict";

const SPACING = 44, ROW_H = SPACING * 0.8660254, MARGIN = 20;
const ORIGIN_X = MARGIN + 2.5 * SPACING, ORIGIN_Y = 20 + SPACING + 8 * ROW_H;
const NS = "http://www.w3.org/2000/svg";
let socket, state = null, selection = [], flipped = false, analysis = null, pvStep = -1;
// Analysis messages received (they stream while a search grows).
let analysisUpdates = 0;

const $ = (id) => document.getElementById(id);
const rowOf = (cell) => cell.charCodeAt(0) - 65;
const diagOf = (cell) => Number(cell.slice(1));

function point(row, diag) {
  if (flipped) { row = 8 - row; diag = 10 - diag; }
  return [ORIGIN_X + SPACING * (diag - row / 2), ORIGIN_Y - ROW_H * row];
}
const cellPoint = (cell) => point(rowOf(cell), diagOf(cell));

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function say(text) { $("message").textContent = text || ""; }

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  socket = new WebSocket(`ws://${location.host}/ws`);
  socket.onopen = () => { $("status").textContent = "connected"; };
  socket.onclose = () => { $("status").textContent = "disconnected (reload the page)"; };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "state") {
      // A game's settings fill the form when it starts (the server's first
      // game, a model's own), so that Start begins another alike.
      if (!state || (message.history.length === 0 && state.history.length > 0)) syncForm(message);
      const moved = !state || state.position !== message.position;
      state = message; selection = []; say(""); render();
      // The panel shows only an analysis of the shown position (after a
      // new game or a move, the last one is of another).
      if (!analysis || analysis.position !== state.position) clearAnalysis();
      if (moved) deepen(null);
    }
    else if (message.type === "analysis") {
      analysisUpdates += 1; analysis = message; pvStep = -1; renderAnalysis(); render();
      if (message.done) deepen(message);
    }
    else if (message.type === "review_progress") {
      $("review-status").textContent = `reviewing: ${message.done} of ${message.total} positions searched…`;
    }
    else if (message.type === "review") { showReview(message); }
    else if (message.type === "record") { showRecord(message.text); }
    else if (message.type === "error") { pending = false; say(message.message); }
  };
}

// ---- the board ----

function boardCells() {
  if (analysis && pvStep >= 0 && analysis.pv_boards[pvStep]) return analysis.pv_boards[pvStep];
  return state.board;
}

function legalFrom() {
  const cells = new Set();
  for (const mv of state.legal) for (const c of mv.from) cells.add(c);
  return cells;
}

function render() {
  if (!state) return;
  const svg = $("board");
  svg.innerHTML = "";
  const centre = point(4, 5);
  const corners = [[0, 1], [0, 5], [4, 9], [8, 9], [8, 5], [4, 1]].map(([r, d]) => {
    const [x, y] = point(r, d);
    return `${centre[0] + (x - centre[0]) * 1.1625},${centre[1] + (y - centre[1]) * 1.1625}`;
  });
  el("polygon", { class: "hexboard", points: corners.join(" ") }, svg);
  const movable = $("show-movable").checked ? legalFrom() : new Set();
  const targets = new Set(candidates().flatMap((mv) => mv.to));
  for (const { cell, content } of boardCells()) {
    const [x, y] = cellPoint(cell);
    const classes = ["cell"];
    if (movable.has(cell)) classes.push("movable");
    if (targets.has(cell)) classes.push("target");
    const circle = el("circle", { class: classes.join(" "), "data-cell": cell, cx: x, cy: y, r: 20 }, svg);
    circle.addEventListener("click", () => clickCell(cell));
    if (content === "empty") continue;
    if (content === "obstacle") {
      el("rect", { class: "obstacle", "data-cell": cell, x: x - 17, y: y - 17, width: 34, height: 34, rx: 4 }, svg);
      continue;
    }
    if (content === "hole") {
      // A hole: an empty ring with a cross, unlike any marble.
      el("circle", { class: "hole", "data-cell": cell, cx: x, cy: y, r: 17 }, svg);
      el("path", { class: "hole-cross", d: `M${x - 8},${y - 8}L${x + 8},${y + 8}M${x + 8},${y - 8}L${x - 8},${y + 8}` }, svg);
      continue;
    }
    const marble = el("circle", {
      class: `marble ${content}` + (selection.includes(cell) ? " selected" : ""),
      "data-cell": cell, cx: x, cy: y, r: 18,
    }, svg);
    marble.addEventListener("click", () => clickCell(cell));
    marble.addEventListener("pointerdown", () => { dragging = true; dragStart(cell); });
    marble.addEventListener("pointerenter", () => { if (dragging) dragOver(cell); });
  }
  for (let row = 0; row < 9; row++) {
    const first = Math.max(1, row - 3);
    const [x, y] = point(row, first - 1.3);
    el("text", { class: "coordinate", x, y }, svg).textContent = String.fromCharCode(65 + row);
  }
  for (let diag = 1; diag <= 9; diag++) {
    const lowest = Math.max(0, diag - 5);
    const [x, y] = point(lowest - 1.3, diag);
    el("text", { class: "coordinate", x, y }, svg).textContent = diag;
  }
  drawLastMove(svg);
  if (analysis && analysis.position === state.position && pvStep < 0) drawArrows(svg);
  renderSeats();
  renderMoves();
  renderGraph();
  $("rules-line").textContent = `${state.layout}: ${state.rules}`;
  $("rules-note").textContent = state.rules_note || "";
  $("rules-note").hidden = !state.rules_note;
  $("status").textContent = state.result ? `Game over: ${state.result}`
    : `${state.seats[state.to_move].colour} to move` + (state.human_to_move ? "" : " (thinking…)");
  $("analyse").disabled = !state.can_analyse;
  renderEvalBar();
}

function drawLastMove(svg) {
  if (state.cursor === 0) return;
  const ply = state.history[state.cursor - 1];
  const mv = ply.text;
  const cells = mv.match(/[A-I][1-9]/g) || [];
  for (const cell of cells.slice(0, 2)) {
    const [x, y] = cellPoint(cell);
    el("circle", { class: "last", cx: x, cy: y, r: 22 }, svg);
  }
}

// The top moves as arrows with heads, as thick as their share of the
// visits, each labelled with that share on a halo that any marble leaves
// readable.
function drawArrows(svg) {
  const defs = el("defs", {}, svg);
  for (const kind of ["best", "other"]) {
    const marker = el("marker", { id: `head-${kind}`, viewBox: "0 0 10 10", refX: 6, refY: 5, markerWidth: 3, markerHeight: 3, orient: "auto" }, defs);
    el("path", { d: "M0,0L10,5L0,10z", class: `arrow-head ${kind}` }, marker);
  }
  const total = analysis.moves.reduce((s, m) => s + m.visits, 0) || 1;
  analysis.moves.slice(0, 5).forEach((mv, index) => {
    if (!mv.from.length) return;
    const share = mv.visits / total;
    const [x1, y1] = cellPoint(mv.from[0]);
    const [x2, y2] = cellPoint(mv.to[0]);
    const kind = index === 0 ? "best" : "other";
    el("line", {
      class: "arrow" + (index === 0 ? " best" : ""), "data-move": mv.text, x1, y1, x2, y2,
      "stroke-width": (3 + 9 * share).toFixed(1), "marker-end": `url(#head-${kind})`,
    }, svg);
    el("text", { class: "arrow-label", x: (x1 + x2) / 2, y: (y1 + y2) / 2 }, svg).textContent =
      `${Math.round(100 * share)}%`;
  });
}

// ---- selecting a move ----

let dragging = false;
document.addEventListener("pointerup", () => { dragging = false; });

function dragStart(cell) { if (!selection.includes(cell)) clickCell(cell); }
function dragOver(cell) { if (!selection.includes(cell) && legalFrom().has(cell)) { selection.push(cell); render(); } }

function sameSet(a, b) { return a.length === b.length && a.every((c) => b.includes(c)); }

// Legal moves that pick up exactly the selected marbles.
function candidates() {
  if (!state || !selection.length) return [];
  return state.legal.filter((mv) => sameSet(mv.from, selection));
}

function clickCell(cell) {
  if (!state || !state.human_to_move || state.cursor !== state.history.length) {
    say(state && state.result ? "the game is over" : "not your turn here");
    return;
  }
  if (selection.includes(cell)) { selection = selection.filter((c) => c !== cell); render(); return; }
  const moves = candidates().filter((mv) => mv.to.includes(cell));
  if (selection.length && moves.length) {
    // The destination of the first marble decides among equal groups.
    const chosen = moves.find((mv) => mv.to[0] === cell) || moves[0];
    send({ type: "move", text: chosen.text });
    selection = [];
    return;
  }
  if (legalFrom().has(cell) && selection.length < 3) {
    selection.push(cell);
    render();
    if (!state.legal.some((mv) => selection.every((c) => mv.from.includes(c)))) {
      say(`no legal move picks up ${selection.join(" ")}`);
      selection = [];
      render();
    }
    return;
  }
  say(selection.length ? `no legal move takes ${selection.join(" ")} to ${cell}` : `no legal move starts on ${cell}`);
  selection = [];
  render();
}

// ---- panels ----

function clock(ms) {
  if (ms === null || ms === undefined) return "";
  const s = Math.max(0, ms) / 1000;
  return s < 10 ? s.toFixed(1) : `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;
}

function renderSeats() {
  $("seats").innerHTML = "";
  state.seats.forEach((seat, index) => {
    const div = document.createElement("div");
    div.className = "seat" + (index === state.to_move && !state.result ? " to-move" : "");
    div.dataset.seat = index;
    div.textContent = `${seat.colour}: ${seat.player} — off ${seat.side_score}/${seat.target}, ${seat.marbles} marbles ${clock(seat.clock_ms)}`;
    $("seats").appendChild(div);
  });
}

function renderMoves() {
  const box = $("moves");
  box.innerHTML = "";
  const start = document.createElement("span");
  start.textContent = "start";
  start.dataset.ply = 0;
  if (state.cursor === 0) start.className = "current";
  start.onclick = () => send({ type: "goto", ply: 0 });
  box.appendChild(start);
  for (const ply of state.history) {
    const span = document.createElement("span");
    span.textContent = `${ply.ply}. ${ply.text}`;
    const judged = judgementOf(ply);
    if (judged) {
      const mark = document.createElement("b");
      mark.className = `judgement ${judged.judgement}`;
      mark.textContent = SYMBOLS[judged.judgement];
      mark.title = `${judged.judgement}: −${judged.loss.toFixed(1)} points` +
        (judged.better ? `; better ${judged.better.move}` : "");
      span.append(mark);
    }
    span.dataset.ply = ply.ply;
    if (ply.ply === state.cursor) span.className = "current";
    span.onclick = () => send({ type: "goto", ply: ply.ply });
    box.appendChild(span);
  }
}

// ---- game review ----

// The last review: every move judged, each side summed up (as `sumito
// review --json` writes it). Its marks show on the moves it judged, as
// long as the game still has them.
let review = null;
const SYMBOLS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

function judgementOf(ply) {
  if (!review) return null;
  const judged = review.moves[ply.ply - 1];
  return judged && judged.move === ply.text && judged.judgement ? judged : null;
}

function showReview(message) {
  review = message.review;
  const judged = review.moves.filter((mv) => mv.judgement).length;
  $("review-status").textContent = `reviewed ${review.moves.length} moves: ${judged} marked`;
  const table = $("review-sides");
  table.innerHTML = "<tr><th>side</th><th>accuracy</th><th>?!</th><th>?</th><th>??</th><th>mean loss</th></tr>";
  // Each side's summary is a top-level entry with an accuracy; the others
  // (moves, meta, phases, key moments) are not sides.
  for (const [name, side] of Object.entries(review)) {
    if (!side || typeof side.accuracy !== "number") continue;
    const row = document.createElement("tr");
    for (const text of [name, `${side.accuracy.toFixed(1)} %`, side.inaccuracies, side.mistakes,
      side.blunders, side.mean_loss.toFixed(1)]) {
      const cell = document.createElement("td");
      cell.textContent = String(text);
      row.append(cell);
    }
    table.append(row);
  }
  $("review-report").href = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(message.svg);
  $("review-box").hidden = false;
  render();
}

$("review").onclick = () => {
  $("review-status").textContent = "reviewing…";
  send({ type: "review" });
};

// The first seat's win probability over the game, with axes; a point
// shows the position after its move.
function renderGraph() {
  const svg = $("graph");
  svg.innerHTML = "";
  const [left, right, top, bottom] = [34, 296, 6, 66];
  const x = (ply) => left + ((right - left) * ply) / Math.max(1, state.history.length);
  const y = (p) => bottom - (bottom - top) * p;
  for (const p of [0, 0.5, 1]) {
    el("line", { class: "grid", x1: left, y1: y(p), x2: right, y2: y(p) }, svg);
    el("text", { class: "axis", x: left - 4, y: y(p) + 4, "text-anchor": "end" }, svg).textContent = `${100 * p}%`;
  }
  const step = Math.max(1, Math.ceil(state.history.length / 6 / 10) * 10);
  for (let ply = 0; ply <= state.history.length; ply += step) {
    el("text", { class: "axis", x: x(ply), y: 78, "text-anchor": "middle" }, svg).textContent = ply;
  }
  el("text", { class: "axis", x: right, y: top + 8, "text-anchor": "end" }, svg).textContent =
    `${state.seats[0].colour} wins`;
  const points = [];
  state.history.forEach((ply, i) => {
    if (ply.win === null || ply.win === undefined) return;
    // (With more than two seats only the first seat's own moves say its
    // chances.)
    if (state.seats.length > 2 && ply.seat !== 0) return;
    const first = ply.seat === 0 ? ply.win : 1 - ply.win;
    points.push([x(i + 1), y(first), ply.ply]);
  });
  if (!points.length) return;
  el("polyline", { points: points.map(([px, py]) => `${px},${py}`).join(" "), fill: "none", stroke: "#2060d0", "stroke-width": 2, "data-points": points.length }, svg);
  for (const [px, py, ply] of points) {
    const dot = el("circle", { class: "graph-point" + (ply === state.cursor ? " current" : ""), cx: px, cy: py, r: 3, "data-ply": ply }, svg);
    dot.addEventListener("click", () => send({ type: "goto", ply }));
  }
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

function clearAnalysis() {
  for (const part of ["w", "d", "l"]) $("wdl").querySelector(`.${part}`).style.width = "0";
  $("wdl-text").textContent = "No analysis of the shown position yet: “Analyse shown position”, or tick continuous.";
  $("top-moves").innerHTML = "";
  $("pv").innerHTML = "";
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
  table.innerHTML = "<tr><th>move</th><th>visits</th><th>score</th><th>prior</th><th>Q</th></tr>";
  for (const mv of analysis.moves) {
    const row = table.insertRow();
    row.dataset.move = mv.text;
    // The mover's expected score with this move: (1 + Q) / 2.
    const score = mv.q === null ? "-" : percent((1 + mv.q) / 2);
    for (const value of [mv.text, mv.visits, score, mv.prior.toFixed(3), mv.q === null ? "-" : mv.q.toFixed(3)]) row.insertCell().textContent = value;
  }
  const pv = $("pv");
  pv.innerHTML = "PV:";
  analysis.pv.forEach((text, i) => {
    const span = document.createElement("span");
    span.textContent = ` ${analysis.ply + i + 1}. ${text}`;
    span.className = "pv-move" + (i === pvStep ? " current" : "");
    span.dataset.step = i;
    span.onclick = () => { pvStep = pvStep === i ? -1 : i; render(); renderAnalysis(); };
    pv.appendChild(span);
  });
  pv.appendChild(document.createTextNode(
    ` (${analysis.simulations} simulations, ${analysis.elapsed_ms} ms${analysis.done ? "" : ", searching…"})`));
}

function showRecord(text) {
  $("record").value = text;
  const link = $("download");
  link.href = "data:text/plain;charset=utf-8," + encodeURIComponent(text);
  link.hidden = false;
}

// The server's models, by name, as opponents: one option each, offered on
// the layouts it plays (its rules' own; others are greyed out).
let served = [];
function syncModels(game) {
  served = game.models;
  const select = $("opponent");
  if (select.dataset.models === JSON.stringify(game.models.map((model) => model.name))) return;
  select.dataset.models = JSON.stringify(game.models.map((model) => model.name));
  for (const old of [...select.options].filter((option) => option.value.startsWith("model"))) old.remove();
  const first = select.options[0] || null;
  for (const model of game.models) {
    const option = document.createElement("option");
    option.value = "model:" + model.name;
    option.textContent = `the model ${model.name}`;
    select.insertBefore(option, first);
  }
  if (game.models.length === 0) {
    const option = document.createElement("option");
    option.value = "model"; option.disabled = true;
    option.textContent = "the model (none loaded)";
    select.insertBefore(option, first);
  }
  syncModelFit();
}

// The model chosen as opponent, if one is.
function chosenModel() {
  const value = $("opponent").value;
  return served.find((model) => "model:" + model.name === value) || null;
}

// A model plays only the layouts of its rules: the others are greyed out,
// and the levels offered are the chosen model's.
function syncModelFit() {
  const layout = $("layout").value;
  for (const option of $("opponent").options) {
    const model = served.find((model) => "model:" + model.name === option.value);
    if (model) {
      option.disabled = !model.layouts.includes(layout);
      option.title = option.disabled ? `plays ${model.layouts.join(", ")}` : "";
    }
  }
  syncLevels(chosenModel());
}
$("layout").addEventListener("change", syncModelFit);
$("opponent").addEventListener("change", syncModelFit);

// The chosen model's strength levels, by name and with their Elo where
// measured (random at 0); chosen, a level replaces the simulations and the
// time.
function syncLevels(model) {
  const select = $("level");
  const name = model ? model.name : "";
  if (select.dataset.model === name) return;
  select.dataset.model = name;
  while (select.options.length > 1) select.remove(1);
  for (const level of model ? model.levels : []) {
    const option = document.createElement("option");
    option.value = String(level.number);
    const elo = level.elo === null ? "" : `, Elo ${Math.round(level.elo)}`;
    option.textContent = `${level.number} · ${level.name} (${level.simulations} sim.${elo})`;
    select.append(option);
  }
  syncLevelInputs();
}

// A level sets the model's simulations and time itself: their boxes are
// off while one is chosen.
function syncLevelInputs() {
  const levelled = Number($("level").value) > 0;
  $("sims").disabled = levelled;
  $("seconds").disabled = levelled;
}
$("level").onchange = syncLevelInputs;

// The form shows the game the server started: its layout, and the model
// that plays it as the opponents.
function syncForm(game) {
  $("layout").value = game.layout;
  syncModels(game);
  const seat = game.model && game.seats.find((seat) => seat.player.startsWith(game.model));
  if (seat) {
    $("opponent").value = "model:" + game.model;
    syncModelFit();
    const level = /\(level (\d+),/.exec(seat.player);
    $("level").value = level ? level[1] : "";
    syncLevelInputs();
  } else {
    syncModelFit();
  }
  const you = String(game.seats.findIndex((seat) => seat.human));
  if (game.seats.every((seat) => seat.human)) $("opponent").value = "human";
  else if ([...$("colour").options].some((option) => option.value === you)) $("colour").value = you;
}

// Continuous analysis: while the box is ticked, the shown position is
// searched again and again, each search twice as long as the last (up to
// MAX_DEEPENING simulations); a new position starts over. The server ends a
// search as soon as the page sends anything else (a move), and a search
// ended short is not followed up: the new position starts its own, here
// if the new position came while that search was still pending (a reply
// of the model's can come before the search it cut short says so).
const MAX_DEEPENING = 51200;
let asked = 0, pending = false;
function requestAnalysis(simulations, position) {
  asked = simulations; pending = true;
  send(position ? { type: "analyse", position, simulations } : { type: "analyse", simulations });
}
function deepen(last) {
  if (last) pending = false;
  if (pending || !$("continuous").checked || !state || !state.can_analyse || state.result) return;
  if (last && last.position !== state.position) return deepen(null);
  if (last && last.simulations < asked) return;
  const sims = last ? last.simulations * 2 : Number($("analysis-sims").value) || 800;
  if (sims <= MAX_DEEPENING) requestAnalysis(sims);
}
$("continuous").onchange = () => deepen(null);

// ---- controls ----

$("move-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("move-input").value.trim();
  if (text) send({ type: "move", text });
  $("move-input").value = "";
});
$("undo").onclick = () => send({ type: "undo" });
$("resign").onclick = () => send({ type: "resign" });
$("flip").onclick = () => { flipped = !flipped; render(); };
$("show-movable").onchange = () => render();
$("analyse").onclick = () => requestAnalysis(Number($("analysis-sims").value) || 800);
$("paste-form").addEventListener("submit", (event) => {
  event.preventDefault();
  requestAnalysis(Number($("analysis-sims").value) || 800, $("paste").value.trim());
});
$("save").onclick = () => send({ type: "save" });
$("load").onclick = () => send({ type: "load", record: $("record").value });
$("new-game-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const layout = $("layout").value;
  const players = { "three-player": 3, "three-player-trapezoid": 3, "four-player": 4, "five-player": 5, "six-player": 6 }[layout] || 2;
  const you = Number($("colour").value);
  const opponent = $("opponent").value;
  const seats = [];
  for (let seat = 0; seat < players; seat++) {
    if (seat === you || opponent === "human") seats.push({ kind: "human" });
    else if (opponent.startsWith("model:")) {
      const model = opponent.slice("model:".length);
      const seconds = Number($("seconds").value);
      const level = Number($("level").value);
      seats.push(level > 0 ? { kind: "model", model, level }
        : seconds > 0 ? { kind: "model", model, time_ms: Math.round(1000 * seconds) }
        : { kind: "model", model, simulations: Number($("sims").value) || 400 });
    }
    else seats.push({ kind: "classical", spec: opponent });
  }
  const message = { type: "new_game", layout, seats };
  const minutes = Number($("minutes").value);
  if (minutes > 0) message.clock = { minutes, increment_seconds: Number($("increment").value) || 0 };
  const rules = $("rules").value.trim();
  if (rules) {
    try { message.rules = JSON.parse(rules); } catch (err) { say(`rules: ${err.message}`); return; }
  }
  analysis = null;
  send(message);
});
// The clocks tick between the server's states.
setInterval(() => {
  if (!state || state.result) return;
  const seat = state.seats[state.to_move];
  if (seat && seat.clock_ms !== null && seat.clock_ms !== undefined) { seat.clock_ms -= 200; renderSeats(); }
}, 200);

connect();
