// Sumito's page: draws what the server says (board cell by cell, legal
// moves as cells picked up and where each goes) and sends what the person
// does. It knows no rules: every variant and 3-6 players draw the same way.
"use strict";

const SPACING = 44, ROW_H = SPACING * 0.8660254, MARGIN = 20;
const ORIGIN_X = MARGIN + 2.5 * SPACING, ORIGIN_Y = 20 + SPACING + 8 * ROW_H;
const NS = "http://www.w3.org/2000/svg";
let socket, state = null, selection = [], flipped = false, analysis = null, pvStep = -1;
// When the last state came (the clock that runs counts from it).
let stateAt = 0;
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
      // game, a model's own) or comes back after a reload, so that Start
      // begins another alike.
      if (!state || restoreAsked || (message.history.length === 0 && state.history.length > 0)) syncForm(message);
      restoreAsked = null;
      const moved = !state || state.position !== message.position;
      state = message; stateAt = performance.now(); selection = []; say(""); noteState(message); render();
      // The panel shows only an analysis of the shown position (after a
      // new game or a move, the last one is of another).
      if (!analysis || analysis.position !== state.position) clearAnalysis();
      if (!pending) keepGame();
      if (moved) deepen(null);
    }
    else if (message.type === "analysis") {
      analysisUpdates += 1; analysis = message; pvStep = -1; renderAnalysis(); render();
      if (message.done) { pending = false; keepGame(); deepen(message); }
    }
    else if (message.type === "review_progress") {
      $("review-status").textContent = `reviewing: ${message.done} of ${message.total} positions searched…`;
    }
    else if (message.type === "review") { showReview(message); }
    else if (message.type === "tried") { showTried(message); }
    else if (message.type === "record") { keptRecord(message.text); }
    else if (message.type === "error") {
      pending = false; say(message.message); reviewError(message.message);
      // The kept players refused (a model the server no longer has): the
      // game comes back with every seat a person.
      if (restoreAsked) { send({ type: "load", record: restoreAsked }); restoreAsked = null; }
    }
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
  drawThreats(svg);
  if (analysis && analysis.position === state.position && pvStep < 0) drawArrows(svg);
  drawReviewLine(svg);
  renderSeats();
  renderMoves();
  renderGraph();
  $("rules-line").textContent = `${state.layout}: ${state.rules}`;
  $("rules-note").textContent = state.rules_note || "";
  $("rules-note").hidden = !state.rules_note;
  $("status").textContent = statusLine();
  $("analyse").disabled = !state.can_analyse;
  renderEvalBar();
}

function drawLastMove(svg) {
  // The shown position's last move: the variation's, else the game's.
  if (state.cursor === 0 && !state.line.length) return;
  const mv = state.line.length ? state.line[state.line.length - 1] : state.history[state.cursor - 1].text;
  const cells = mv.match(/[A-I][1-9]/g) || [];
  for (const cell of cells.slice(0, 2)) {
    const [x, y] = cellPoint(cell);
    el("circle", { class: "last", cx: x, cy: y, r: 22 }, svg);
  }
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
  // The server sends the moves the person may play in the shown position:
  // the game's at its end on a person's turn, a variation's anywhere else.
  if (!state || !state.legal.length) {
    const atEnd = state && state.cursor === state.history.length && !state.line.length;
    say(!state ? "" : atEnd && state.result ? "the game is over"
      : atEnd ? `wait: ${state.seats[state.to_move].colour} is thinking`
      : "no move can be played here: the game is over in this position");
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

// The time left on seat `index`'s clock now (none in an untimed game): the
// server's figure, less the time since it came for the seat whose clock runs.
function clockLeft(index) {
  const ms = state.seats[index].clock_ms;
  if (ms === null || ms === undefined) return null;
  const runs = !state.result && index === state.to_move;
  return runs ? Math.max(0, ms - (performance.now() - stateAt)) : ms;
}

function renderSeats() {
  $("seats").innerHTML = "";
  state.seats.forEach((seat, index) => {
    const div = document.createElement("div");
    div.className = "seat" + (index === state.to_move && !state.result ? " to-move" : "");
    div.dataset.seat = index;
    div.textContent = `${seat.colour}: ${seat.player} — off ${seat.side_score}/${seat.target}, ${seat.marbles} marbles ${clock(clockLeft(index))}`;
    $("seats").appendChild(div);
  });
}

function clearAnalysis() {
  for (const part of ["w", "d", "l"]) $("wdl").querySelector(`.${part}`).style.width = "0";
  $("wdl-text").textContent = "No analysis of the shown position yet: “Analyse shown position”, or tick continuous.";
  $("top-moves").innerHTML = "";
  $("pv").innerHTML = "";
}

function showRecord(text) {
  $("record").value = text;
  const link = $("download");
  link.href = "data:text/plain;charset=utf-8," + encodeURIComponent(text);
  link.hidden = false;
}

// ---- the game kept across a reload ----

// A reload opens a new page, to which the server gives a new game: so the
// page keeps its game in the tab's sessionStorage and loads it back when
// the server's first state comes: its record, variations included (asked
// for again whenever the game or its variations change), and beside it
// the seats as `new_game` asks for them, the time control and the time
// left on each clock (with every state, and as the page goes). The load
// seats the same players again, and the clocks go on from the time kept;
// the server checks them as it checks a new game. The tab's storage, not
// localStorage: another tab, or the page opened on another day, starts a
// game of its own. (Asked for between searches only: any message ends an
// analysis in progress.)
const KEPT = "sumito-game", KEPT_SEATS = "sumito-seats";
let restoring = true, keptKey = null, recordAsked = false;
// The record of a restore that seats players, until the server answers
// it (refused, the record is loaded again with every seat a person).
let restoreAsked = null;
function keepGame() {
  if (restoring) {
    restoring = false;
    let kept = null, seated = null;
    try {
      kept = sessionStorage.getItem(KEPT);
      seated = JSON.parse(sessionStorage.getItem(KEPT_SEATS));
    } catch (err) { /* storage off or spoilt: the record alone, if any */ }
    if (kept) {
      const message = { type: "load", record: kept };
      if (seated && Array.isArray(seated.seats)) {
        message.seats = seated.seats;
        if (seated.clock) { message.clock = seated.clock; message.clock_ms = seated.clock_ms; }
        restoreAsked = kept;
      }
      send(message);
      return;
    }
  }
  keepSeats();
  const key = JSON.stringify([state.layout, state.rules, state.seats.map((seat) => seat.player),
    state.history.map((ply) => ply.text), state.variations, state.result]);
  if (key === keptKey) return;
  keptKey = key;
  // A game with nothing played yet is not kept: a reload then gets the
  // server's new game, its players seated.
  if (!state.history.length && !state.variations.length) {
    try { sessionStorage.removeItem(KEPT); sessionStorage.removeItem(KEPT_SEATS); } catch (err) { /* storage off */ }
    return;
  }
  send({ type: "save" });
}
// The seats and the clocks as they are now (the running clock as it reads).
function keepSeats() {
  if (!state || restoring || restoreAsked) return;
  const kept = { seats: state.seats.map((seat) => seat.request), clock: state.clock };
  if (state.clock) kept.clock_ms = state.seats.map((seat, index) => Math.round(clockLeft(index)));
  try { sessionStorage.setItem(KEPT_SEATS, JSON.stringify(kept)); } catch (err) { /* storage full or off */ }
}
window.addEventListener("pagehide", keepSeats);
// A record from the server: kept for a reload, and shown when the person
// asked for it (Save).
function keptRecord(text) {
  try { sessionStorage.setItem(KEPT, text); } catch (err) { /* storage full or off: not kept */ }
  if (recordAsked) { recordAsked = false; showRecord(text); }
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

// The form follows the layout: a model plays only the layouts of its rules,
// so only the models that play the chosen layout are offered (the others
// hidden and off); a model chosen that does not play it gives way to the
// first that does, or to a classical player. The seats offered to the
// person are the layout's, and the levels the chosen model's.
const SEATS = { "three-player": 3, "three-player-trapezoid": 3, "four-player": 4, "five-player": 5, "six-player": 6 };
const COLOURS = ["black", "white", "red", "green", "blue", "yellow"];
function syncModelFit() {
  const layout = $("layout").value;
  const select = $("opponent");
  for (const option of select.options) {
    const model = served.find((model) => "model:" + model.name === option.value);
    if (model) {
      option.disabled = !model.layouts.includes(layout);
      option.hidden = option.disabled;
      option.title = option.disabled ? `plays ${model.layouts.join(", ")}` : "";
    }
  }
  const chosen = select.options[select.selectedIndex];
  if (chosen && chosen.disabled) {
    const fits = [...select.options].find((option) => option.value.startsWith("model:") && !option.disabled);
    select.value = fits ? fits.value : "alphabeta:depth=2";
  }
  const seats = SEATS[layout] || 2;
  const colour = $("colour");
  if (colour.dataset.seats !== String(seats)) {
    const you = colour.value;
    colour.dataset.seats = String(seats);
    colour.innerHTML = "";
    for (let seat = 0; seat < seats; seat++) {
      colour.add(new Option(seat === 0 ? `${COLOURS[seat]} (first)` : COLOURS[seat], String(seat)));
    }
    colour.add(new Option("nobody (opponents only)", "-1"));
    colour.value = [...colour.options].some((option) => option.value === you) ? you : "0";
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
  // A classical opponent by its spec, where the menu offers it.
  const classical = game.seats.map((seat) => seat.request).find((request) => request.kind === "classical");
  if (!seat && classical && [...$("opponent").options].some((option) => option.value === classical.spec)) {
    $("opponent").value = classical.spec;
    syncModelFit();
  }
  $("minutes").value = game.clock ? String(game.clock.minutes) : "0";
  $("increment").value = game.clock ? String(game.clock.increment_seconds) : "0";
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
  const over = state && state.result && state.cursor === state.history.length && !state.line.length;
  if (pending || !$("continuous").checked || !state || !state.can_analyse || over) return;
  if (last && last.position !== state.position) return deepen(null);
  if (last && last.simulations < asked) return;
  const sims = last ? last.simulations * 2 : Number($("analysis-sims").value) || 800;
  if (sims <= MAX_DEEPENING) requestAnalysis(sims);
}
// Stop means stop: the server ends the search in progress at once (its last
// update comes as its result), and nothing follows it.
function stopAnalysis() {
  $("continuous").checked = false;
  send({ type: "stop" });
}
$("continuous").onchange = () => { if ($("continuous").checked) deepen(null); else stopAnalysis(); };
$("stop").onclick = stopAnalysis;

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
$("save").onclick = () => { recordAsked = true; send({ type: "save" }); };
$("load").onclick = () => send({ type: "load", record: $("record").value });
$("new-game-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const layout = $("layout").value;
  const players = SEATS[layout] || 2;
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
setInterval(() => { if (state && state.clock && !state.result) renderSeats(); }, 200);

connect();
