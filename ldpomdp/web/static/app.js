// ldpomdp serve: the page. Plain JavaScript, no library: the server keeps the game, this draws it.
"use strict";

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
let options = null, game = null, stepping = false;

async function api(method, path, body) {
  const init = {method, headers: {}};
  if (body !== undefined) { init.body = JSON.stringify(body); init.headers["Content-Type"] = "application/json"; }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({error: `${response.status} ${response.statusText}`}));
  if (!response.ok) { showError(data.error || `error ${response.status}`); return null; }
  showError(null);
  return data;
}

function showError(message) {
  $("error").hidden = !message;
  $("error").textContent = message || "";
}

// ---- drawing: dice and charts ---------------------------------------------------------------------------------
const PIPS = {1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [0, 2], [2, 0], [2, 2]],
  5: [[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]], 6: [[0, 0], [0, 2], [1, 0], [1, 2], [2, 0], [2, 2]]};

function die(face, {size = 34, mark = false, wild = false} = {}) {
  const fill = mark ? "#ffe08a" : "#fff", stroke = wild ? "#b07" : "#333";
  let inner;
  if (face === null) inner = `<text x="17" y="23" text-anchor="middle" font-size="16" fill="#888">?</text>`;
  else if (PIPS[face]) inner = PIPS[face].map(([r, c]) => `<circle cx="${9 + c * 8}" cy="${9 + r * 8}" r="3" fill="#222"/>`).join("");
  else inner = `<text x="17" y="23" text-anchor="middle" font-size="15">${face}</text>`;
  return `<svg class="die" width="${size}" height="${size}" viewBox="0 0 34 34" data-face="${face ?? ""}">` +
    `<rect x="1" y="1" width="32" height="32" rx="6" fill="${fill}" stroke="${stroke}" stroke-width="2"/>${inner}</svg>`;
}

// A bar chart in SVG: labels under the bars, values above; `mark` outlines bars; `line` draws a level across.
function barChart({title, labels, values, mark = new Set(), line = null, lineLabel = "", fmt = (v) => v.toFixed(2)}) {
  const n = values.length, bw = 30, gap = 6, left = 8, top = 40, h = 100;
  const width = Math.max(180, left * 2 + n * (bw + gap), 16 + 6.5 * title.length), height = top + h + 34;
  const all = values.concat(line === null ? [] : [line]);
  const lo = Math.min(0, ...all), hi = Math.max(1e-9, ...all);
  const y = (v) => top + (hi - v) / (hi - lo || 1) * h;
  let svg = `<svg class="chart" width="${width}" height="${height}"><text x="${left}" y="14" font-weight="bold">${esc(title)}</text>`;
  values.forEach((v, i) => {
    const x = left + i * (bw + gap), y0 = y(0), y1 = y(v);
    const style = mark.has(i) ? 'fill="#e90" stroke="#000" stroke-width="2"' : 'fill="#5b8db8"';
    svg += `<rect x="${x}" y="${Math.min(y0, y1)}" width="${bw}" height="${Math.max(1, Math.abs(y1 - y0))}" ${style}/>`;
    svg += `<text x="${x + bw / 2}" y="${Math.min(y0, y1) - 3}" text-anchor="middle">${esc(fmt(v))}</text>`;
    svg += `<text x="${x + bw / 2}" y="${top + h + 14}" text-anchor="middle">${esc(labels[i])}</text>`;
  });
  if (line !== null) {
    svg += `<line x1="${left - 4}" x2="${width - 4}" y1="${y(line)}" y2="${y(line)}" stroke="#c33" stroke-dasharray="4 3"/>`;
    svg += `<text x="${width - 4}" y="${y(line) - 3}" text-anchor="end" fill="#c33">${esc(lineLabel)}</text>`;
  }
  return svg + `</svg>`;
}

// A horizontal bar chart of actions: one row each (label, bar from 0, text); `mark` rows are outlined.
function actionChart(title, rows) {
  const rowH = 18, top = 22, labelW = 70, barW = 190, width = labelW + barW + 130, height = top + rows.length * rowH + 6;
  const lo = Math.min(0, ...rows.map((r) => r.value)), hi = Math.max(1e-9, ...rows.map((r) => r.value));
  const x = (v) => labelW + (v - lo) / (hi - lo || 1) * barW;
  let svg = `<svg class="chart" width="${width}" height="${height}"><text x="0" y="14" font-weight="bold">${esc(title)}</text>`;
  rows.forEach((r, i) => {
    const y = top + i * rowH, x0 = x(0), x1 = x(r.value);
    const style = r.mark ? 'fill="#e90" stroke="#000" stroke-width="1.5"' : 'fill="#5b8db8"';
    svg += `<text x="${labelW - 6}" y="${y + 12}" text-anchor="end">${esc(r.label)}</text>` +
      `<rect x="${Math.min(x0, x1)}" y="${y + 2}" width="${Math.max(1, Math.abs(x1 - x0))}" height="${rowH - 5}" ${style}/>` +
      `<text x="${labelW + barW + 6}" y="${y + 12}">${esc(r.text)}</text>`;
  });
  return svg + `</svg>`;
}

// ---- the setup form -------------------------------------------------------------------------------------------
function addOpponent(spec) {
  const row = document.createElement("div");
  row.className = "opponent";
  row.innerHTML = `<label>Opponent <input list="spec-list" class="spec" value="${esc(spec)}"></label> ` +
    `<button type="button" class="remove" title="remove">×</button>`;
  row.querySelector(".remove").onclick = () => { if ($("opponents").children.length > 1) row.remove(); };
  $("opponents").appendChild(row);
}

function wildValue() {
  const faces = Number($("faces").value), choice = $("wild").value;
  return choice === "none" ? null : choice === "high" ? faces : 1;
}

function jsonOrText(text) { try { return JSON.parse(text); } catch (e) { return text; } }
function intOrNull(text) { return text === "" ? null : Number(text); }

async function startGame(event) {
  event.preventDefault();
  const body = {
    opponents: [...document.querySelectorAll("#opponents .spec")].map((input) => input.value.trim()),
    dice: Number($("dice").value), faces: Number($("faces").value), wild: wildValue(), bids: $("bids").value,
    opener: $("opener").value, seed: intOrNull($("seed").value),
  };
  document.querySelectorAll("#more-rules input").forEach((input) => { body[input.dataset.rule] = jsonOrText(input.value); });
  const state = await api("POST", "/api/game", body);
  if (state) show(state);
}

// ---- the game -------------------------------------------------------------------------------------------------
function seatName(seat) { return seat === 0 ? "you" : `seat ${seat} (${game.players[seat].name})`; }
function secondsText(s) { return s < 0.1 ? `${(s * 1000).toFixed(1)} ms` : `${s.toFixed(2)} s`; }
function actionText(a) { return a === "challenge" ? "Liar!" : a === "exact" ? "Exact!" : a.replace("x", " × "); }
const isBid = (a) => /^\d+x\d+$/.test(a);  // "3x5"; not "challenge" or "exact"

function show(state) {
  game = state;
  $("game").hidden = false;
  renderTable();
  const wild = game.round_wild, note = game.palifico ? "palifico round: no die is wild" : wild === null ? "" : `${wild}s are wild (outlined)`;
  $("hand").innerHTML = game.hand.length ? game.hand.map((f) => die(f, {size: 44, wild: f === wild})).join("") +
    ` <span class="thought">${esc(note)}</span>` : "(no dice)";
  $("history").innerHTML = game.history.map((h) => `<li data-seat="${h.seat}">${esc(seatName(h.seat))}: <b>${esc(actionText(h.action))}</b>` +
    (h.seconds === null ? "" : ` <span class="thought">thought ${secondsText(h.seconds)}</span>`) + `</li>`).join("");
  renderMoves();
  renderReveal();
  renderOver();
  renderBeliefs();
  $("status").textContent = statusText();
  $("warnings").textContent = game.warnings.map((w) => `Warning: ${w}.`).join(" ");
  if (game.phase === "agent-turn") scheduleStep();
}

function statusText() {
  const p = game.phase, round = `Round ${game.round + 1} (${game.rules}). ` +
    (game.palifico ? "Palifico round: no die is wild, and every bid keeps the opening bid's face. " : "");
  const calls = game.legal.includes("exact") ? ", call liar or call it exact" : " or call liar";
  if (p === "your-turn") return round + (game.bid ? `Your turn: raise ${actionText(game.bid)}${calls}.` : "Your turn: you open.");
  if (p === "agent-turn") return round + `${seatName(game.turn)} is thinking…`;
  if (p === "round-over") return round + "The round is over: every hand is shown.";
  if (p === "game-over") return game.winner === 0 ? "You win the game!" : `${seatName(game.winner)} wins the game.`;
  return `This game stopped: ${game.failure}`;
}

function renderTable() {
  $("table").innerHTML = game.players.map((p) => {
    const classes = ["seat", p.seat === game.turn ? "turn" : "", p.dice === 0 ? "out" : ""].join(" ");
    const dice = p.seat === 0 ? "" : `<div class="dice-row">${Array.from({length: p.dice}, () => die(null, {size: 22})).join("")}</div>`;
    return `<div class="${classes}" data-seat="${p.seat}"><div class="name">${esc(p.seat === 0 ? "You" : "Seat " + p.seat)}` +
      `</div><div>${esc(p.spec === "human" ? "seat 0" : p.spec)}</div><div>${p.dice} ${p.dice === 1 ? "die" : "dice"}</div>${dice}</div>`;
  }).join("");
}

function renderMoves() {
  const box = $("moves");
  if (game.phase !== "your-turn") { box.innerHTML = ""; return; }
  const legal = new Set(game.legal), faces = game.config.bids === "sixes" ? [game.config.faces] : Array.from({length: game.config.faces}, (_, i) => i + 1);
  const quantities = [...new Set(game.legal.filter(isBid).map((a) => Number(a.split("x")[0])))].slice(0, 10);
  let html = legal.has("challenge") ? `<button id="challenge" data-move="challenge">Liar! (challenge ${esc(actionText(game.bid))})</button>` : "";
  if (legal.has("exact")) html += ` <button id="exact" data-move="exact">Exact! (${esc(actionText(game.bid))} exactly)</button>`;
  html += `<table class="grid"><tr><th></th>${faces.map((f) => `<th>${die(f, {size: 24})}</th>`).join("")}</tr>`;
  for (const q of quantities) {
    html += `<tr><th>${q} ×</th>` + faces.map((f) => {
      const move = `${q}x${f}`;
      return `<td><button data-move="${move}" ${legal.has(move) ? "" : "disabled"}>${q}×${f}</button></td>`;
    }).join("") + `</tr>`;
  }
  box.innerHTML = `<h3>Your move</h3>${html}</table>`;
  box.querySelectorAll("button[data-move]").forEach((b) => { b.onclick = () => play(b.dataset.move); });
}

async function play(move) {
  document.querySelectorAll("#moves button").forEach((b) => { b.disabled = true; });
  const state = await api("POST", "/api/game/act", {move, version: game.version});
  if (state) show(state); else refresh();
}

function scheduleStep() {
  if (stepping) return;
  stepping = true;
  setTimeout(async () => {
    const state = await api("POST", "/api/game/step", {version: game.version});
    stepping = false;
    if (state) show(state); else refresh();
  }, 250);
}

async function refresh() { const state = await api("GET", "/api/game"); if (state) show(state); }

function renderReveal() {
  const box = $("reveal");
  const last = game.rounds[game.rounds.length - 1];
  if (!last || !["round-over", "game-over"].includes(game.phase) || last.round !== game.round) { box.innerHTML = ""; return; }
  const names = game.players.map((p) => p.seat === 0 ? "You" : `Seat ${p.seat} (${p.name})`);
  box.innerHTML = revealHtml(last, names) +
    (game.phase === "round-over" ? `<button class="primary" id="next-round">Next round</button>` : "") +
    (last.decisions.length ? `<h3>What the agents believed</h3>` + last.decisions.map((d) => decisionHtml(last, d)).join("") : "");
  if (game.phase === "round-over") {
    $("next-round").onclick = async () => { const s = await api("POST", "/api/game/next-round", {version: game.version}); if (s) show(s); };
  }
}

// A round's end: every hand, its dice that count for the bid outlined (the server names the faces that count).
function revealHtml(r, names) {
  let html = `<h3>Every hand</h3>`;
  r.hands.forEach((hand, seat) => {
    if (!r.dice[seat]) return;
    html += `<div class="reveal-seat${seat === r.loser ? " loser" : ""}" data-seat="${seat}" data-dice="${hand.join(",")}">` +
      `${esc(names[seat])}: <span class="dice-row" style="display:inline-flex">${hand.map((f) => die(f, {size: 28, mark: r.matching_faces.includes(f)})).join("")}</span>` +
      `<span class="count" data-count="${r.matching_by_seat[seat]}">${r.matching_by_seat[seat]} matching</span></div>`;
  });
  return html + `<p class="verdict" data-matching="${r.matching}" data-loser="${r.loser}">${esc(verdictText(r, names))}</p>`;
}

// "3 dice match 4 × 5: Seat 1 loses a die.": the loss (or an exact call's gain) read from the dice before and after.
function verdictText(r, names) {
  const says = (seat, verb) => `${names[seat]} ${seat === 0 && names[0] === "You" ? verb : verb + "s"}`;
  const count = `${r.matching} ${r.matching === 1 ? "die matches" : "dice match"} ${actionText(r.bid)}`;
  if (r.loser < 0) {  // a right exact call
    const back = r.dice_after[r.challenger] > r.dice[r.challenger] ? "; the caller gets a die back" : "";
    return `${count}: ${says(r.challenger, "call")} it exactly, nobody loses a die${back}.`;
  }
  const lost = r.dice[r.loser] - r.dice_after[r.loser];
  return `${count}: ${says(r.loser, "lose")} ${lost === 1 ? "a die" : `${lost} dice`}.`;
}

function renderOver() {
  const box = $("over");
  if (game.phase !== "game-over") { box.innerHTML = ""; return; }
  box.innerHTML = `<p id="winner" data-winner="${game.winner}" class="status">${esc(statusText())}</p>` +
    `<a class="primary" href="/api/game/record" download="ldpomdp-game.json">Download the game record (JSON)</a>`;
}

// ---- what the agents believed ---------------------------------------------------------------------------------
function renderBeliefs() {
  const parts = [...game.rounds].reverse().flatMap((r) => r.decisions.map((d) => decisionHtml(r, d)));
  $("belief-list").innerHTML = parts.join("") || "<p>Nothing yet: the agents' reasons are shown once a round ends.</p>";
}

function decisionHtml(r, d) {
  const over = d.bid ? ` over ${actionText(d.bid)}` : " (opening)";
  let html = `<div class="decision" data-round="${r.round}" data-seat="${d.seat}"><div><h4>Round ${r.round + 1}, seat ${d.seat} (${esc(d.name)}): ` +
    `${esc(actionText(d.action))}${esc(over)}</h4><span class="thought">thought ${secondsText(d.seconds)}</span></div>`;
  if (d.belief) {
    html += barChart({title: `P(you hold k dice matching ${d.face}s); yours outlined`, labels: d.belief.map((_, k) => String(k)),
      values: d.belief, mark: new Set([d.your_count])});
  }
  return html + reasonChart(d) + `</div>`;
}

function reasonChart(d) {
  const r = d.reason;
  if (!r) return "";
  if (r.kind === "estimate") {
    const faces = Object.keys(r.by_face);
    return barChart({title: r.bid === null ? "expected matching dice per face" : `expected matching dice per face vs the bid ${actionText(d.bid)}`,
      labels: faces.map((f) => `${f}s`), values: faces.map((f) => r.by_face[f]), mark: new Set([faces.indexOf(String(r.chosen))]),
      line: r.bid, lineLabel: r.bid === null ? "" : `bid ${r.bid}`});
  }
  if (r.kind === "search") {
    if (!r.searched) return `<p>Not searched: the move was forced, or the belief made it certain.</p>`;
    const list = [...r.actions].sort((a, b) => b.visits - a.visits).slice(0, 12);
    return actionChart("POMCP's search at the root: visits (value)", list.map((a) => ({label: actionText(a.action),
      value: a.visits, text: `${a.visits} (${a.value.toFixed(2)})`, mark: a.action === d.action})));
  }
  const key = r.kind === "q-values" ? "value" : "probability";
  const list = [...r.actions].sort((a, b) => b[key] - a[key]).slice(0, 12);
  return actionChart(r.kind === "q-values" ? "Q-value per legal action (highest 12)" : "probability per action",
    list.map((a) => ({label: actionText(a.action), value: a[key], text: a[key].toFixed(3), mark: a.action === d.action})));
}

// ---- results --------------------------------------------------------------------------------------------------
async function loadResults() {
  const summary = await api("GET", "/api/results");
  if (!summary) return;
  const cols = summary.rows.length ? Object.keys(summary.rows[0]) : [];
  $("summary").innerHTML = cols.length ? `<table class="summary"><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join("")}</tr>` +
    summary.rows.map((row) => `<tr>${cols.map((c) => `<td>${esc(row[c])}</td>`).join("")}</tr>`).join("") + `</table>` : "<p>No summary.csv.</p>";
  $("plots").innerHTML = summary.plots.map((p) => `<img alt="${esc(p)}" src="/api/results/plot/${encodeURIComponent(p)}">`).join("");
  const games = await api("GET", "/api/results/games");
  if (!games) return;
  $("replay-game").innerHTML = games.games.map((g, i) => `<option value="${i}">${esc(g.cell)} — game ${g.game} (winner: seat ${g.winner})</option>`).join("");
  $("replay-game").dataset.games = JSON.stringify(games.games.map((g) => [g.cell, g.game]));
}

let replay = null, replayStep = 0;

async function loadReplay() {
  const [cell, gameIndex] = JSON.parse($("replay-game").dataset.games || "[]")[Number($("replay-game").value)] || [];
  if (cell === undefined) return;
  $("replay").innerHTML = "<p>Playing the game again from its seed…</p>";
  replay = await api("GET", `/api/results/replay?cell=${encodeURIComponent(cell)}&game=${gameIndex}`);
  replayStep = 0;
  renderReplay();
}

function renderReplay() {
  if (!replay) { $("replay").innerHTML = ""; return; }
  const steps = [];
  replay.rounds.forEach((r, ri) => r.actions.forEach((_, ai) => steps.push([ri, ai])));
  replayStep = Math.max(0, Math.min(replayStep, steps.length - 1));
  const [ri, ai] = steps[replayStep], r = replay.rounds[ri], ended = ai === r.actions.length - 1;
  const names = replay.seats.map((spec, seat) => `Seat ${seat} (${spec})`);
  let html = `<p>${esc(replay.rules)}; step ${replayStep + 1} of ${steps.length}` +
    (replay.matches_record ? "" : " — <b>the replay ends differently from the stored record</b> (a timed player, or changed code)") + `</p>` +
    `<button id="replay-prev">◀ previous</button> <button id="replay-next">next ▶</button>` +
    `<h4>Round ${ri + 1}: dice ${r.dice.join(", ")}; seat ${r.opener} opens${r.palifico ? "; a palifico round: no die is wild" : ""}</h4><ol>` +
    r.actions.slice(0, ai + 1).map((a) => `<li>${esc(names[a.seat])}: <b>${esc(actionText(a.action))}</b></li>`).join("") + `</ol>`;
  if (ended) {
    html += revealHtml(r, names);
  } else if ($("replay-hands").checked) {
    html += r.hands.map((h, seat) => r.dice[seat] ? `<div>${esc(names[seat])}: ${h.map((f) => die(f, {size: 24})).join("")}</div>` : "").join("");
  }
  if (replayStep === steps.length - 1) html += `<p class="status">Seat ${replay.winner} (${esc(replay.seats[replay.winner])}) wins.</p>`;
  $("replay").innerHTML = html;
  $("replay-prev").onclick = () => { replayStep -= 1; renderReplay(); };
  $("replay-next").onclick = () => { replayStep += 1; renderReplay(); };
}

// ---- start ----------------------------------------------------------------------------------------------------
function showTab(name) {
  document.querySelectorAll(".tab").forEach((t) => t.classList.toggle("active", t.dataset.tab === name));
  document.querySelectorAll(".panel").forEach((p) => { p.hidden = p.id !== name; });
}

async function init() {
  options = await api("GET", "/api/options");
  if (!options) return;
  $("spec-list").innerHTML = options.specs.map((s) => `<option value="${esc(s.spec)}">${esc(s.summary)}</option>`).join("");
  $("dice").value = options.rules.dice;
  $("faces").value = options.rules.faces;
  const shown = new Set(["dice", "faces", "wild", "bids", "opener"]);  // the other rules (variants): JSON values
  $("more-rules").innerHTML = Object.entries(options.rules).filter(([name]) => !shown.has(name)).map(([name, value]) =>
    `<label>${esc(name)} <input data-rule="${esc(name)}" value="${esc(JSON.stringify(value))}"></label>`).join(" ");
  addOpponent("expected-count");
  $("add-opponent").onclick = () => addOpponent("one-third");
  $("setup").onsubmit = startGame;
  document.querySelectorAll(".tab").forEach((t) => { t.onclick = () => showTab(t.dataset.tab); });
  $("replay-load").onclick = loadReplay;
  $("replay-hands").onchange = renderReplay;
  if (options.results) { $("results-tab").hidden = false; loadResults(); }
  const state = await fetch("/api/game").then((r) => (r.ok ? r.json() : null)).catch(() => null);
  if (state) show(state);
}

init();
