// ldpomdp serve: the page. Plain JavaScript, no library: the server keeps the game, this draws it.
"use strict";

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
let options = null, game = null, stepping = false, advice = null, hint = null, preparingTimer = null, hintTimer = null;

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
const FACE_WORDS = {1: "ones", 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes"};
const faceWord = (f) => FACE_WORDS[f] || `${f}s`;

// A die in SVG; `mark`: it counts for the bid (filled), `wild`: a wild die (outlined); `label`: what it says to a
// screen reader (none: decorative).
// `cls`, `order`: a class for the die (the reveal's "flip") and its place in the reveal's order (the flip's delay).
function die(face, {size = 34, mark = false, wild = false, label = null, cls = "", order = null} = {}) {
  const fill = mark ? "#ffe08a" : "#fff", stroke = wild ? "#b07" : "#333";
  let inner;
  if (face === null) inner = `<text x="17" y="23" text-anchor="middle" font-size="16" fill="#555">?</text>`;
  else if (PIPS[face]) inner = PIPS[face].map(([r, c]) => `<circle cx="${9 + c * 8}" cy="${9 + r * 8}" r="3" fill="#222"/>`).join("");
  else inner = `<text x="17" y="23" text-anchor="middle" font-size="15">${face}</text>`;
  const role = label === null ? 'aria-hidden="true"' : `role="img" aria-label="${esc(label)}"`;
  const style = order === null ? "" : ` style="--i: ${order}"`;
  return `<svg class="die${cls ? " " + cls : ""}"${style} width="${size}" height="${size}" viewBox="0 0 34 34" data-face="${face ?? ""}" ${role}>` +
    `<rect x="1" y="1" width="32" height="32" rx="6" fill="${fill}" stroke="${stroke}" stroke-width="${wild ? 3 : 2}"/>${inner}</svg>`;
}

// An SVG that shrinks to its box (a phone) and never grows past its drawn size.
const svgOpen = (width, height, label) =>
  `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(label)}">`;

// A bar chart in SVG: labels under the bars, values above; `mark` outlines bars; `line` draws a level across.
function barChart({title, labels, values, mark = new Set(), line = null, lineLabel = "", fmt = (v) => v.toFixed(2)}) {
  const n = values.length, bw = 30, gap = 6, left = 8, top = 40, h = 100;
  const width = Math.max(180, left * 2 + n * (bw + gap), 16 + 6.5 * title.length), height = top + h + 34;
  const all = values.concat(line === null ? [] : [line]);
  const lo = Math.min(0, ...all), hi = Math.max(1e-9, ...all);
  const y = (v) => top + (hi - v) / (hi - lo || 1) * h;
  let svg = svgOpen(width, height, title) + `<text x="${left}" y="14" font-weight="bold">${esc(title)}</text>`;
  values.forEach((v, i) => {
    const x = left + i * (bw + gap), y0 = y(0), y1 = y(v);
    const style = mark.has(i) ? 'fill="#e90" stroke="#000" stroke-width="2"' : 'fill="#4a7fb0"';
    svg += `<rect x="${x}" y="${Math.min(y0, y1)}" width="${bw}" height="${Math.max(1, Math.abs(y1 - y0))}" ${style}/>`;
    svg += `<text x="${x + bw / 2}" y="${Math.min(y0, y1) - 3}" text-anchor="middle">${esc(fmt(v))}</text>`;
    svg += `<text x="${x + bw / 2}" y="${top + h + 14}" text-anchor="middle">${esc(labels[i])}</text>`;
  });
  if (line !== null) {
    svg += `<line x1="${left - 4}" x2="${width - 4}" y1="${y(line)}" y2="${y(line)}" stroke="#b42318" stroke-dasharray="4 3"/>`;
    svg += `<text x="${width - 4}" y="${y(line) - 3}" text-anchor="end" fill="#b42318">${esc(lineLabel)}</text>`;
  }
  return svg + `</svg>`;
}

// A horizontal bar chart of actions: one row each (label, bar from 0, text); `mark` rows are outlined.
function actionChart(title, rows) {
  const rowH = 18, top = 22, labelW = 70, barW = 170, width = labelW + barW + 90, height = top + rows.length * rowH + 6;
  const lo = Math.min(0, ...rows.map((r) => r.value)), hi = Math.max(1e-9, ...rows.map((r) => r.value));
  const x = (v) => labelW + (v - lo) / (hi - lo || 1) * barW;
  let svg = svgOpen(width, height, title) + `<text x="0" y="14" font-weight="bold">${esc(title)}</text>`;
  rows.forEach((r, i) => {
    const y = top + i * rowH, x0 = x(0), x1 = x(r.value);
    const style = r.mark ? 'fill="#e90" stroke="#000" stroke-width="1.5"' : 'fill="#4a7fb0"';
    svg += `<text x="${labelW - 6}" y="${y + 12}" text-anchor="end">${esc(r.label)}</text>` +
      `<rect x="${Math.min(x0, x1)}" y="${y + 2}" width="${Math.max(1, Math.abs(x1 - x0))}" height="${rowH - 5}" ${style}/>` +
      `<text x="${labelW + barW + 6}" y="${y + 12}">${esc(r.text)}</text>`;
  });
  return svg + `</svg>`;
}

// ---- the setup form: rules ------------------------------------------------------------------------------------
function controlHtml(c) {
  const id = `rule-${c.name}`;
  if (c.kind === "checkbox") {
    return `<label class="check" for="${id}"><input type="checkbox" id="${id}" data-rule="${esc(c.name)}"> ${esc(c.label)}</label>`;
  }
  let input;
  if (c.kind === "select") {
    input = `<select id="${id}" data-rule="${esc(c.name)}">` + c.choices.map((o) =>
      `<option value="${esc(JSON.stringify(o.value))}">${esc(o.label)}</option>`).join("") + `</select>`;
  } else if (c.kind === "number") {
    input = `<input type="number" id="${id}" data-rule="${esc(c.name)}" inputmode="numeric" min="${c.min}"${c.max ? ` max="${c.max}"` : ""}>`;
  } else {
    input = `<input type="text" id="${id}" data-rule="${esc(c.name)}">`;
  }
  return `<div class="field"><label for="${id}">${esc(c.label)}</label>${input}</div>`;
}

function ruleInput(name) { return document.querySelector(`#rule-controls [data-rule="${name}"]`); }

function setRule(name, value) {
  const input = ruleInput(name);
  if (!input) return;
  if (input.type === "checkbox") input.checked = Boolean(value);
  else if (input.tagName === "SELECT") {
    const faces = Number(ruleInput("faces")?.value);
    const shown = name === "wild" && value !== null && value !== 1 && value === faces ? "highest" : value;
    input.value = JSON.stringify(shown);
  } else input.value = value;
}

// The rules as the form gives them (the API's fields): "highest" wild is the number of faces.
function formRules() {
  const rules = {};
  document.querySelectorAll("#rule-controls [data-rule]").forEach((input) => {
    const name = input.dataset.rule;
    if (input.type === "checkbox") rules[name] = input.checked;
    else if (input.tagName === "SELECT") rules[name] = JSON.parse(input.value);
    else if (input.type === "number") rules[name] = Number(input.value);
    else rules[name] = input.value;
  });
  if (rules.wild === "highest") rules.wild = rules.faces;
  return rules;
}

// The rule set whose every rule the form has (else "custom").
function matchingSet() {
  const rules = formRules();
  const found = options.rule_sets.find((s) => Object.entries(s.rules).every(([k, v]) => k === "wild" && v === 1 ?
    rules.wild === 1 : JSON.stringify(rules[k]) === JSON.stringify(v)));
  return found ? found.name : "custom";
}

function applyRuleSet(name) {
  const set = options.rule_sets.find((s) => s.name === name);
  if (!set) return;
  Object.entries(set.rules).forEach(([k, v]) => setRule(k, v));
}

// A radio of a choice among cards (the rule sets, the opponents' levels): its title, then its words.
function choiceHtml(group, value, title, words) {
  const id = `${group}-${value}`;
  return `<label class="choice" for="${id}" data-choice="${esc(value)}"><input type="radio" name="${group}" id="${id}" value="${esc(value)}">` +
    `<span><span class="choice-title">${esc(title)}</span> <span class="choice-words">${words}</span></span></label>`;
}

const checked = (group) => document.querySelector(`input[name="${group}"]:checked`)?.value ?? null;

// Check the radio `value` of `group`; its "custom" card shows only while it is the one checked.
function choose(group, value) {
  document.querySelectorAll(`input[name="${group}"]`).forEach((r) => { r.checked = r.value === value; });
  document.querySelector(`label[for="${group}-custom"]`).hidden = value !== "custom";
}

// ---- the setup form: opponents --------------------------------------------------------------------------------
const OTHER = "__other__";
let rowCount = 0;

function agentOptions(selected) {
  const recommended = advice ? advice.spec : null;
  return options.specs.map((s) => `<option value="${esc(s.name)}"${s.name === selected ? " selected" : ""}>` +
    `${esc(s.name)}${s.name === recommended ? " (recommended)" : ""}</option>`).join("") +
    `<option value="${OTHER}"${selected === OTHER ? " selected" : ""}>another spec (type it)</option>`;
}

// The spec of the level chosen on the ladder (null: the opponents are chosen seat by seat).
function levelSpec() { return options.ladder.find((l) => l.name === checked("level"))?.spec ?? null; }

function addOpponent(name = null) {
  rowCount += 1;
  const n = rowCount, row = document.createElement("div");
  row.className = "opponent";
  const chosen = name ?? levelSpec() ?? options.recommended.spec;
  row.innerHTML = `<div class="opponent-head"><div class="field"><label for="agent-${n}">Opponent</label>` +
    `<select id="agent-${n}" class="agent">${agentOptions(chosen)}</select></div>` +
    `<button type="button" class="remove secondary" aria-label="Remove this opponent">Remove</button></div>` +
    `<p class="agent-summary note"></p>` +
    `<div class="field spec-text" hidden><label for="spec-${n}">Player spec</label>` +
    `<input id="spec-${n}" class="spec" autocomplete="off" spellcheck="false" placeholder="e.g. pomcp:sims=300"></div>` +
    `<details class="params"><summary>Parameters</summary><div class="param-list controls"></div></details>` +
    `<p class="note">Plays as <code class="spec-line"></code></p>`;
  row.querySelector(".remove").onclick = () => {
    if ($("opponents").children.length > 1) { row.remove(); opponentsChanged(); }
  };
  row.querySelector(".agent").onchange = () => { drawAgent(row); choose("level", matchingLevel()); };
  row.querySelector(".spec").oninput = () => { updateSpecLine(row); choose("level", matchingLevel()); };
  $("opponents").appendChild(row);
  drawAgent(row);
  numberOpponents();
}

// The level whose spec every seat plays (else "custom").
function matchingLevel() {
  const specs = [...$("opponents").children].map(rowSpec);
  return options.ladder.find((l) => specs.every((s) => s === l.spec))?.name ?? "custom";
}

// Every seat plays the level's spec.
function applyLevel() {
  const spec = levelSpec();
  if (spec === null) return;
  [...$("opponents").children].forEach((row) => { row.querySelector(".agent").innerHTML = agentOptions(spec); drawAgent(row); });
}

// As many seats as the count asks for (new ones play the level's spec).
function setOpponentCount() {
  const want = Number($("opponent-count").value), rows = $("opponents");
  while (rows.children.length < want) addOpponent();
  while (rows.children.length > want) rows.lastElementChild.remove();
  opponentsChanged();
}

function opponentsChanged() {
  numberOpponents();
  choose("level", matchingLevel());
  askAdvice();
}

function numberOpponents() {
  const rows = [...$("opponents").children];
  rows.forEach((row, i) => {
    row.querySelector("label").textContent = rows.length > 1 ? `Opponent ${i + 1} (seat ${i + 1})` : "Opponent (seat 1)";
    row.querySelector(".remove").hidden = rows.length === 1;
    row.querySelector(".remove").setAttribute("aria-label", `Remove opponent ${i + 1}`);
  });
  $("add-opponent").disabled = rows.length >= options.limits.players - 1;
  $("opponent-count").value = String(rows.length);
}

function drawAgent(row) {
  const name = row.querySelector(".agent").value, choice = options.specs.find((s) => s.name === name);
  row.querySelector(".spec-text").hidden = name !== OTHER;
  row.querySelector(".params").hidden = !choice || !choice.parameters || !choice.parameters.length;
  row.querySelector(".agent-summary").textContent = choice ? choice.summary : (options.allow_plugins ?
    "Any spec of `ldpomdp players`, or your own class: package.module:Class." :
    "Any spec of `ldpomdp players` (files and your own classes need the server started with --allow-plugins).");
  const base = row.querySelector(".agent").id;
  row.querySelector(".param-list").innerHTML = choice && choice.parameters ? choice.parameters.map((p, i) => {
    const id = `${base}-p${i}`, blocked = p.kind === "file" && !options.allow_plugins;
    const note = blocked ? " (a file: needs --allow-plugins)" : "";
    return `<div class="field"><label for="${id}">${esc(p.name)}${esc(note)}</label><input id="${id}" data-param="${esc(p.name)}" ` +
      `value="${esc(p.value ?? "")}" placeholder="${esc(p.default ?? "none")}" autocomplete="off" spellcheck="false"${blocked ? " disabled" : ""}></div>`;
  }).join("") : "";
  row.querySelectorAll("[data-param]").forEach((input) => {
    input.oninput = () => { updateSpecLine(row); choose("level", matchingLevel()); };
  });
  updateSpecLine(row);
}

// The spec of an opponent row: the typed one, or the agent's name with the parameters given.
function rowSpec(row) {
  const name = row.querySelector(".agent").value;
  if (name === OTHER) return row.querySelector(".spec").value.trim();
  const given = [...row.querySelectorAll("[data-param]")].filter((i) => !i.disabled && i.value.trim() !== "").map((i) => {
    const value = i.value.trim();
    return `${i.dataset.param}=${value.includes(",") && !value.startsWith("[") ? `[${value}]` : value}`;
  });
  return name + (given.length ? ":" + given.join(",") : "");
}

function updateSpecLine(row) { row.querySelector(".spec-line").textContent = rowSpec(row) || "(type a spec)"; }

// Ask the server what the recommended agent plays under the rules and seats of the form (it builds nothing).
let adviceTimer = null;
function askAdvice() {
  clearTimeout(adviceTimer);
  adviceTimer = setTimeout(async () => {
    const players = $("opponents").children.length + 1;
    const answer = await api("POST", "/api/recommended", {players, ...formRules()});
    if (!answer) return;
    advice = answer;
    $("rule-words").textContent = `These rules: ${answer.words}.` + (answer.warnings.length ? ` Note: ${answer.warnings.join("; ")}.` : "");
    $("spec-note").textContent = `The recommended agent is ${answer.spec}: under these rules it ${answer.note}.`;
    [...$("opponents").children].forEach((row) => {
      const select = row.querySelector(".agent"), value = select.value;
      select.innerHTML = agentOptions(value);
    });
  }, 150);
}

function rulesChanged() {
  choose("rule-set", matchingSet());
  askAdvice();
}

async function startGame(event) {
  if (event) event.preventDefault();
  const body = {opponents: [...$("opponents").children].map(rowSpec), seed: $("seed").value === "" ? null : Number($("seed").value),
    ...formRules()};
  const state = await api("POST", "/api/game", body);
  if (state) { hint = null; show(state); $("setup-box").open = false; $(state.phase === "preparing" ? "preparing" : "status").focus(); }
}

// Work under way on the server (a table solved on first use): its line, a bar and done of total.
function progressHtml(p) {
  const share = p.total ? p.done / p.total : 0, percent = `${Math.floor(share * 100)}%`;
  return `<p class="preparing-line">${esc(p.line)}</p>` +
    `<progress max="${Math.max(1, p.total)}" value="${p.done}" aria-label="${esc(`progress: ${percent}`)}"></progress>` +
    `<p class="note" data-done="${p.done}" data-total="${p.total}">${p.done.toLocaleString("en")} of ${p.total.toLocaleString("en")} steps (${percent})</p>`;
}

// The game's players are preparing: the progress shown, the game asked for again until it starts.
function showPreparing(state) {
  game = state;
  $("game").hidden = false;
  $("game-body").hidden = true;
  $("preparing").hidden = false;
  $("setup-current").textContent = `(getting ready against ${game.players.slice(1).map((p) => p.spec).join(", ")}: open to start another game)`;
  $("preparing-progress").innerHTML = progressHtml(state.preparing);
  clearTimeout(preparingTimer);
  preparingTimer = setTimeout(async () => {
    const next = await api("GET", "/api/game");
    if (next) show(next);
    else { $("preparing").hidden = true; $("setup-box").open = true; }  // it failed: the error is shown above
  }, 500);
}

// ---- the game -------------------------------------------------------------------------------------------------
function seatName(seat) { return seat === 0 ? "you" : `seat ${seat} (${game.players[seat].name})`; }
function secondsText(s) { return s < 0.1 ? `${(s * 1000).toFixed(1)} ms` : `${s.toFixed(2)} s`; }
function actionText(a) { return a === "challenge" ? "Liar!" : a === "exact" ? "Exact!" : a.replace("x", " × "); }
const isBid = (a) => /^\d+x\d+$/.test(a);  // "3x5"; not "challenge" or "exact"

function show(state) {
  if (state.phase === "preparing") { showPreparing(state); return; }
  if (!game || state.version !== game.version || state.round !== game.round) hint = null;
  game = state;
  $("game").hidden = false;
  $("preparing").hidden = true;
  $("game-body").hidden = false;
  const others = game.players.slice(1).map((p) => p.spec).join(", ");
  $("setup-current").textContent = game.phase === "game-over" ? "(open to change the rules or the opponents)" :
    `(playing against ${others}: open to start another game)`;
  // at a round's end every hand, yours too, is on the seat cards: your hand shows again with the next round's dice
  $("hand-box").hidden = ["round-over", "game-over"].includes(game.phase);
  $("rules-line").innerHTML = `<b>Rules:</b> ${esc(game.rules)}; ${game.config.dice} ${game.config.dice === 1 ? "die" : "dice"} each.`;
  const s = game.score;
  $("score").textContent = s.games ? `This session: you won ${s.won} of ${s.games} ${s.games === 1 ? "game" : "games"}.` : "This session: no game finished yet.";
  renderTable();
  const wild = game.round_wild, note = game.palifico ? "palifico round: no die is wild" : wild === null ? "" : `${faceWord(wild)} are wild (outlined)`;
  $("hand").innerHTML = game.hand.length ? game.hand.map((f) => die(f, {size: 44, wild: f === wild, label: String(f) + (f === wild ? ", wild" : "")})).join("") +
    ` <span class="note">${esc(note)}</span>` : "(no dice)";
  $("history").innerHTML = game.history.map((h) => `<li data-seat="${h.seat}">${esc(seatName(h.seat))}: <b>${esc(actionText(h.action))}</b></li>`).join("");
  $("no-bid").hidden = game.history.length > 0;
  renderMoves();
  renderHint();
  renderReveal();
  renderOver();
  renderDetails();
  renderBeliefs();
  $("status").textContent = statusText();
  $("warnings").textContent = game.warnings.map((w) => `Note: ${w}.`).join(" ");
  if (game.phase === "agent-turn") scheduleStep();
  if (game.phase === "round-over" && document.activeElement === document.body) $("next-round").focus();
}

function statusText() {
  const p = game.phase, round = `Round ${game.round + 1}. ` +
    (game.palifico ? "Palifico round: no die is wild, and every bid keeps the opening bid's face. " : "");
  const calls = game.legal.includes("exact") ? ", call liar or call it exact" : " or call liar";
  if (p === "your-turn") return round + (game.bid ? `Your turn: raise ${actionText(game.bid)}${calls}.` : "Your turn: you open.");
  if (p === "agent-turn") return round + `${seatName(game.turn)} is thinking…`;
  if (p === "round-over") return round + "The round is over: every hand is shown at the table.";
  if (p === "game-over") return game.winner === 0 ? "You win the game!" : `Seat ${game.winner} (${game.players[game.winner].name}) wins the game.`;
  return `This game stopped: ${game.failure}`;
}

// ---- the table ------------------------------------------------------------------------------------------------
// Where each seat sits around the table, in the order of play, from yours at the bottom (grid areas of style.css).
const PLACES = {2: ["b", "t"], 3: ["b", "tl", "tr"], 4: ["b", "l", "t", "r"], 5: ["b", "l", "tl", "tr", "r"],
  6: ["b", "l", "tl", "t", "tr", "r"]};
let flipped = null;  // the round whose reveal has flipped its dice (each reveal flips once)

// The round just ended, while its hands are on the table (its end, or the game's), else null.
function endedRound() {
  const last = game.rounds[game.rounds.length - 1];
  return last && ["round-over", "game-over"].includes(game.phase) && last.round === game.round ? last : null;
}

// The reveal's flip: on unless turned off on the page or the system asks for reduced motion.
function animating() { return $("animate").checked && !matchMedia("(prefers-reduced-motion: reduce)").matches; }

function renderTable() {
  const places = PLACES[game.players.length], ended = endedRound(), key = ended && `${game.seed}/${ended.round}`;
  const flip = ended !== null && animating() && flipped !== key;
  if (ended) flipped = key;
  const seats = game.players.map((p, i) => {
    const shown = ended !== null && ended.dice[p.seat] > 0, turn = p.seat === game.turn;
    const classes = ["seat", `at-${places[i]}`, turn ? "turn" : "", p.dice === 0 ? "out" : "", shown ? "revealed" : "",
      shown && ended.loser === p.seat ? "loser" : ""].filter(Boolean).join(" ");
    const who = p.seat === 0 ? "You" : `Seat ${p.seat}`, badge = turn ? (p.seat === 0 ? "your turn" : "to play") : "";
    const count = (n) => n === 0 ? "out of the game" : `${n} ${n === 1 ? "die" : "dice"}`;
    let dice, left = count(p.dice);
    if (shown) {  // the round's hand, its dice that count for the bid marked, and what the round cost
      const hand = ended.hands[p.seat], change = ended.dice_after[p.seat] - ended.dice[p.seat];
      dice = `<div class="dice-row" data-dice="${hand.join(",")}">` + hand.map((f, k) => die(f, {size: 24,
        mark: ended.matching_faces.includes(f), label: String(f), cls: flip ? "flip" : "", order: i * 2 + k})).join("") +
        `</div><div class="count" data-count="${ended.matching_by_seat[p.seat]}">${ended.matching_by_seat[p.seat]} matching</div>`;
      const now = p.dice ? `${p.dice} left` : "out of the game";
      if (change < 0) left = `loses ${change === -1 ? "a die" : `${-change} dice`}: ${now}`;
      else if (change > 0) left = `gets a die back: ${now}`;
    } else if (p.seat === 0) {
      dice = `<div class="dice-row">${game.hand.map((f) => die(f, {size: 20})).join("")}</div>`;
    } else {
      dice = `<div class="dice-row">${Array.from({length: p.dice}, () => die(null, {size: 20})).join("")}</div>`;
    }
    return `<div class="${classes}" data-seat="${p.seat}"><div class="name">${esc(who)}` +
      `${badge ? ` <span class="badge">${badge}</span>` : ""}</div>` +
      `<div class="spec">${esc(p.spec === "human" ? "seat 0" : p.spec)}</div>` +
      (p.match_games ? `<div class="match" data-match="${p.match_games}">learning from your ${p.match_games === 1 ?
        "last game" : `last ${p.match_games} games`}</div>` : "") +
      `${dice}<div class="left">${esc(left)}</div></div>`;
  });
  $("table").className = `table seats-${game.players.length}`;
  $("table").innerHTML = seats.join("") + `<div class="felt"><p>${feltHtml(ended)}</p></div>`;
}

// The middle of the table: the standing bid, or at a round's end what the dice say.
function feltHtml(ended) {
  const round = `<span class="felt-round">Round ${game.round + 1}${game.palifico ? " · palifico" : ""}</span>`;
  if (ended) return `${round}<b>${ended.matching} ${ended.matching === 1 ? "die matches" : "dice match"} ${esc(actionText(ended.bid))}</b>`;
  if (!game.bid) return `${round}no bid yet`;
  const last = [...game.history].reverse().find((h) => isBid(h.action));
  return `${round}<b>${esc(actionText(game.bid))}</b><span class="felt-by">by ${esc(last.seat === 0 ? "you" : `seat ${last.seat}`)}</span>`;
}

// Under a toggle: the seed and how long each agent thought this round.
function renderDetails() {
  const timed = game.history.filter((h) => h.seconds !== null);
  $("details").innerHTML = `<p>Seed: <b id="seed-shown">${game.seed}</b> (the same seed and the same moves play the same game).</p>` +
    (timed.length ? `<p>How long each agent thought this round:</p><ul class="timings">` + timed.map((h) =>
      `<li>${esc(seatName(h.seat))}: ${esc(actionText(h.action))}, <span class="thought">thought ${secondsText(h.seconds)}</span></li>`).join("") + `</ul>` :
      `<p>No agent has moved this round yet.</p>`);
}

function renderMoves() {
  const box = $("moves");
  if (game.phase !== "your-turn") { box.innerHTML = ""; box.hidden = true; return; }
  box.hidden = false;
  const legal = new Set(game.legal), faces = game.config.bids === "sixes" ? [game.config.faces] : Array.from({length: game.config.faces}, (_, i) => i + 1);
  const quantities = [...new Set(game.legal.filter(isBid).map((a) => Number(a.split("x")[0])))].slice(0, 10);
  let html = `<h2>Your move</h2><div class="calls">`;
  if (legal.has("challenge")) html += `<button type="button" id="challenge" class="danger" data-move="challenge" aria-keyshortcuts="c">Liar! <span class="sub">challenge ${esc(actionText(game.bid))} · key C</span></button>`;
  if (legal.has("exact")) html += `<button type="button" id="exact" class="exact" data-move="exact" aria-keyshortcuts="e">Exact! <span class="sub">${esc(actionText(game.bid))} exactly · key E</span></button>`;
  html += `</div><form id="type-move" class="type-move"><label for="move-input">Type a bid</label>` +
    `<input id="move-input" autocomplete="off" spellcheck="false" placeholder="e.g. ${esc(game.legal.find(isBid) || "4x5")}" size="8" aria-describedby="move-help">` +
    `<button type="submit" class="secondary">Bid</button><span id="move-help" class="note">quantity x face, then Enter; ` +
    `keys: c liar${legal.has("exact") ? ", e exact" : ""}, h hint</span></form>` +
    `<p id="move-message" class="message" aria-live="polite"></p>`;
  html += `<div class="grid-box"><table class="grid"><caption>Or pick a bid: quantity (rows) × face (columns)</caption>` +
    `<thead><tr><th scope="col"><span class="sr-only">quantity</span></th>${faces.map((f) => `<th scope="col">${die(f, {size: 24, label: faceWord(f)})}</th>`).join("")}</tr></thead><tbody>`;
  for (const q of quantities) {
    html += `<tr><th scope="row">${q} ×</th>` + faces.map((f) => {
      const move = `${q}x${f}`;
      return legal.has(move) ? `<td><button type="button" data-move="${move}" aria-label="bid ${q} × ${f}">${q}×${f}</button></td>` : `<td></td>`;
    }).join("") + `</tr>`;
  }
  box.innerHTML = html + `</tbody></table></div>`;
  box.querySelectorAll("button[data-move]").forEach((b) => { b.onclick = () => play(b.dataset.move); });
  $("type-move").onsubmit = (event) => { event.preventDefault(); typedMove($("move-input").value); };
}

// A typed move: "4x5" (also "4 5", "4*5"), "c" or "e"; a move that is not legal here is said under the box.
function typedMove(text) {
  const t = text.trim().toLowerCase(), legal = new Set(game.legal);
  const bid = t.match(/^(\d+)\s*[x×*\s]\s*(\d+)$/);
  const move = bid ? `${Number(bid[1])}x${Number(bid[2])}` : t === "c" || t === "challenge" || t === "liar" ? "challenge" : t === "e" || t === "exact" ? "exact" : null;
  if (move && legal.has(move)) { play(move); return; }
  const lowest = game.legal.find(isBid);
  $("move-message").textContent = move === null ? `"${text}" is not a move: type a bid such as ${lowest || "4x5"}, c or e.` :
    `${actionText(move)} is not a legal move here` + (lowest ? `: the lowest bid is ${actionText(lowest)}.` : ".");
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

// ---- the hint -------------------------------------------------------------------------------------------------
function renderHint() {
  const box = $("hint-box"), button = $("hint-button");
  box.hidden = game.phase !== "your-turn";
  const refusal = (hint && hint.refusal) || game.hint.refusal;
  button.disabled = Boolean(refusal);
  button.textContent = refusal ? `The recommended agent (${game.hint.agent}) cannot play this game` : "What would the recommended agent do?";
  if (refusal) { $("hint").innerHTML = `<p class="note">${esc(refusal)}</p>`; return; }
  if (hint && hint.preparing) {
    $("hint").innerHTML = `<p class="note">${esc(hint.agent)} is getting ready; its answer comes when it is.</p>` + progressHtml(hint.preparing);
    return;
  }
  if (!hint) { $("hint").innerHTML = `<p class="note">Shows ${esc(game.hint.agent)}'s move probabilities for your hand, at this decision (key H).</p>`; return; }
  const list = [...hint.actions].sort((a, b) => b.probability - a.probability);
  const top = list[0], shown = list.slice(0, 8);
  $("hint").innerHTML = `<p class="hint-answer">${esc(hint.agent)} would play <b>${esc(actionText(top.action))}</b>` +
    ` with probability ${top.probability.toFixed(2)}${list.length > 1 ? ` (of the ${list.length} moves it might play)` : ""}.</p>` +
    actionChart(`${hint.agent}: probability per move (highest ${shown.length})`, shown.map((a) => ({label: actionText(a.action),
      value: a.probability, text: a.probability.toFixed(3), mark: a === top})));
}

async function askHint() {
  if (!game || game.phase !== "your-turn" || $("hint-button").disabled) return;
  const answer = await api("GET", "/api/game/hint");
  if (!answer || answer.version !== game.version) return;
  hint = answer;
  renderHint();
  clearTimeout(hintTimer);
  if (answer.preparing) hintTimer = setTimeout(askHint, 500);  // asked again until the agent is ready
}

// ---- a round's end --------------------------------------------------------------------------------------------
// At a round's end its hands are on the seat cards; here the verdict, the next round and the agents' reasons. The
// last ended round stays shown, hands and all, in the next round until your first move.
function renderReveal() {
  const box = $("reveal"), ended = endedRound(), last = game.rounds[game.rounds.length - 1];
  const before = !ended && last && !game.history.some((h) => h.seat === 0) && last.round === game.round - 1;
  if (!ended && !before) { box.innerHTML = ""; return; }
  const r = ended || last, names = game.players.map((p) => p.seat === 0 ? "You" : `Seat ${p.seat} (${p.name})`);
  box.innerHTML = `<div class="card reveal-card"><h2>${ended ? `Round ${r.round + 1}: the reveal` : `Last round (round ${r.round + 1})`}</h2>` +
    (ended ? verdictHtml(r, names) : revealHtml(r, names)) +
    (game.phase === "round-over" ? `<button type="button" class="primary" id="next-round" aria-keyshortcuts="n">Next round</button>` : "") +
    (r.decisions.length ? `<details class="decisions"${ended && game.phase === "round-over" ? " open" : ""}><summary>What the agents believed this round</summary>` +
      r.decisions.map((d) => decisionHtml(r, d)).join("") + `</details>` : "") + `</div>`;
  if (game.phase === "round-over") $("next-round").onclick = nextRound;
}

async function nextRound() { const s = await api("POST", "/api/game/next-round", {version: game.version}); if (s) show(s); }

// A round's end: every hand, its dice that count for the bid outlined (the server names the faces that count).
function revealHtml(r, names) {
  let html = "";
  r.hands.forEach((hand, seat) => {
    if (!r.dice[seat]) return;
    html += `<div class="reveal-seat${seat === r.loser ? " loser" : ""}" data-seat="${seat}" data-dice="${hand.join(",")}">` +
      `<span class="who">${esc(names[seat])}</span> <span class="dice-row">${hand.map((f) => die(f, {size: 28, mark: r.matching_faces.includes(f), label: String(f)})).join("")}</span>` +
      `<span class="count" data-count="${r.matching_by_seat[seat]}">${r.matching_by_seat[seat]} matching</span></div>`;
  });
  return html + verdictHtml(r, names);
}

const verdictHtml = (r, names) => `<p class="verdict" data-matching="${r.matching}" data-loser="${r.loser}">${esc(verdictText(r, names))}</p>`;

// "3 dice match 4 × 5: Seat 1 loses a die.": the loss (or an exact call's gain) read from the dice before and after.
function verdictText(r, names) {
  const verb = (seat, v) => (seat === 0 && names[0] === "You" ? v : v + "s"), says = (seat, v) => `${names[seat]} ${verb(seat, v)}`;
  const count = `${r.matching} ${r.matching === 1 ? "die matches" : "dice match"} ${actionText(r.bid)}`;
  if (r.loser < 0) {  // a right exact call
    const back = r.dice_after[r.challenger] > r.dice[r.challenger] ? "; the caller gets a die back" : "";
    return `${count}: ${says(r.challenger, "call")} it exactly, nobody loses a die${back}.`;
  }
  const lost = r.dice[r.loser] - r.dice_after[r.loser], dice = lost === 1 ? "a die" : `${lost} dice`;
  if (r.exact) return `${count}: ${says(r.challenger, "call")} it exactly and ${verb(r.loser, "lose")} ${dice}.`;
  return `${count}: ${says(r.loser, "lose")} ${dice}.`;
}

// The game's end: the result and the places, the rounds, what each agent believed about your hand, a replay of the
// game, "play again" and the game's record.
function renderOver() {
  const box = $("over");
  if (game.phase !== "game-over") { box.innerHTML = ""; return; }
  const rounds = game.rounds.length, out = new Map();  // seat -> the round it lost its last die in
  game.rounds.forEach((r) => r.dice_after.forEach((d, seat) => { if (d === 0 && r.dice[seat] > 0) out.set(seat, r.round); }));
  const order = game.players.map((p) => p.seat).sort((a, b) => (out.get(b) ?? Infinity) - (out.get(a) ?? Infinity));
  const name = (seat) => seat === 0 ? "You" : `Seat ${seat} (${game.players[seat].spec})`;
  const places = order.map((seat, i) => `<li data-seat="${seat}">${esc(name(seat))}${i === 0 ? ": wins" :
    `: out in round ${out.get(seat) + 1}`}</li>`).join("");
  const place = order.indexOf(0) + 1;
  box.innerHTML = `<div class="card over-card"><h2 id="winner" data-winner="${game.winner}" class="result">${esc(statusText())}</h2>` +
    `<p id="over-facts">${rounds} ${rounds === 1 ? "round" : "rounds"}; you finished ${ordinal(place)} of ${game.players.length}.</p>` +
    `<ol class="places">${places}</ol>` +
    `<div class="calls"><button type="button" id="again" class="primary">Play again</button>` +
    `<button type="button" id="replay-open" class="secondary" aria-expanded="false" aria-controls="game-replay">Replay this game</button>` +
    `<a class="button secondary" href="/api/game/record" download="ldpomdp-game.json">Download the game record (JSON)</a></div>` +
    `<div id="game-replay" class="replay" hidden></div>` +
    `<h3>What the agents believed about your hand</h3><div id="believed">${believedHtml()}</div></div>`;
  $("again").onclick = async (event) => {  // disabled while its request is out: one click, one next game
    event.currentTarget.disabled = true;
    $("seed").value = "";
    try { await startGame(null); } finally { if ($("again")) $("again").disabled = false; }
  };
  $("replay-open").onclick = () => {
    const panel = $("game-replay"), open = panel.hidden;
    panel.hidden = !open;
    $("replay-open").setAttribute("aria-expanded", String(open));
    if (open) {
      const seats = game.players.map((p) => p.seat === 0 ? "you" : p.spec);
      replayView(panel, "game-replay", {rules: game.rules, seats, rounds: game.rounds, winner: game.winner, matches_record: true},
        () => false);
      $("game-replay-next").focus();
    }
  };
}

const ordinal = (n) => `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"}`;

// Each agent's belief about your hand over the game: the mean chance it gave your real number of matching dice, and
// its belief at its last decision (an agent that keeps none is said to keep none).
function believedHtml() {
  return game.players.slice(1).map((p) => {
    const mine = game.rounds.flatMap((r) => r.decisions.filter((d) => d.seat === p.seat).map((d) => [r, d]));
    const read = mine.filter(([, d]) => d.belief && d.your_count !== null && d.your_count !== undefined);
    const who = `<b>Seat ${p.seat} (${esc(p.spec)})</b>`;
    if (!read.length) {
      return `<div class="believed" data-seat="${p.seat}" data-belief="none"><p>${who} keeps no belief about your hand that it can show` +
        (mine.some(([, d]) => d.reason) ? ` (its reasons for each move are under <i>What the agents believed</i>)` : "") + `.</p></div>`;
    }
    const mean = read.reduce((sum, [, d]) => sum + d.belief[d.your_count], 0) / read.length;
    const [r, d] = read[read.length - 1];
    return `<div class="believed" data-seat="${p.seat}" data-belief="${mean.toFixed(3)}"><p>${who}: over ${read.length} ` +
      `${read.length === 1 ? "decision" : "decisions"} it gave your real number of matching dice a chance of ${mean.toFixed(2)} on average ` +
      `(a sure read is 1). At its last, in round ${r.round + 1}, you held ${d.your_count} matching ${esc(faceWord(d.face))}:</p>` +
      barChart({title: `P(you hold k dice matching ${d.face}s); yours outlined`, labels: d.belief.map((_, k) => String(k)),
        values: d.belief, mark: new Set([d.your_count])}) + `</div>`;
  }).join("");
}

// ---- what the agents believed ---------------------------------------------------------------------------------
function renderBeliefs() {
  const parts = [...game.rounds].reverse().flatMap((r) => r.decisions.map((d) => decisionHtml(r, d, true)));
  $("belief-list").innerHTML = parts.join("") || "<p>Nothing yet: the agents' reasons are shown once a round ends.</p>";
}

// One decision of an agent: its belief about your hand and its reason in numbers (`timed`: how long it thought).
function decisionHtml(r, d, timed = false) {
  const over = d.bid ? ` over ${actionText(d.bid)}` : " (opening)";
  let html = `<div class="decision" data-round="${r.round}" data-seat="${d.seat}"><div><h3>Round ${r.round + 1}, seat ${d.seat} (${esc(d.name)}): ` +
    `${esc(actionText(d.action))}${esc(over)}</h3>${timed ? `<span class="note">thought ${secondsText(d.seconds)}</span>` : ""}</div>`;
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
const pct = (v) => v === null || v === undefined ? "" : `${(100 * v).toFixed(1)}%`;
const interval = (low, high) => low === null || low === undefined ? "" : `<span class="ci">[${(100 * low).toFixed(1)}, ${(100 * high).toFixed(1)}]</span>`;
const signed = (v) => `${v > 0 ? "+" : v < 0 ? "−" : ""}${Math.abs(100 * v).toFixed(1)}`;
// A cell of a table of rows: on a phone it shows under its column's name (`label`).
const td = (label, html, cls = "") => `<td data-label="${esc(label)}"${cls ? ` class="${cls}"` : ""}><span class="v">${html}</span></td>`;
const scroller = (label, table) => `<div class="table-box" role="region" aria-label="${esc(label)}" tabindex="0">${table}</div>`;

function cellTitle(c) {
  const dice = c.dice === null ? "" : ` · ${c.dice} ${c.dice === 1 ? "die" : "dice"} each`;
  return `<span class="players">${c.players.map((p) => `<code>${esc(p)}</code>`).join(" vs ")}</span> ` +
    `<span class="cell-rules">${esc(dice.slice(3))}${c.rules ? ` · ${esc(c.rules)}` : ""}</span>`;
}

function valueHtml(key, row) {
  const v = row[key];
  if (key === "player") return `<code>${esc(v)}</code>`;
  if (key === "win_rate") return `${pct(v)} ${interval(row.ci_low, row.ci_high)}`;
  if (v === null || v === undefined) return "";
  if (key === "games") return String(v);
  if (key === "challenges_per_game") return v.toFixed(2);
  return pct(v);
}

async function loadResults() {
  const listing = await api("GET", "/api/results");
  if (!listing) return;
  const kinds = {sweep: "sweep", tournament: "tournament"};
  const names = listing.folders.map((f) => `<option value="${esc(f.name)}">${esc(f.name === "." ? listing.path : f.name)} (${kinds[f.kind] || f.kind})</option>`);
  $("folder").innerHTML = names.join("");
  $("compare").innerHTML = `<option value="">nothing</option>` + names.join("");
  $("compare").disabled = listing.folders.length < 2;
  $("folder").onchange = showFolder;
  $("compare").onchange = showComparison;
  await showFolder();
}

async function showFolder() {
  const folder = $("folder").value, query = `folder=${encodeURIComponent(folder)}`;
  const summary = await api("GET", `/api/results/summary?${query}`);
  if (!summary) return;
  $("problems").innerHTML = summary.problems.length ? `<div class="error" role="status"><p>Some of the folder's files could not be read in full:</p><ul>` +
    summary.problems.map((p) => `<li>${esc(p)}</li>`).join("") + `</ul></div>` : "";
  $("tournament").innerHTML = summary.tournament ? tournamentHtml(summary.tournament, summary.plots.includes(RATINGS_PLOT) ? query : null) : "";
  const cols = summary.columns;
  $("summary").innerHTML = summary.cells.length ? scroller("Summary by cell", `<table class="summary stack"><thead><tr>` +
    cols.map((c) => `<th scope="col" title="${esc(c.title)}">${esc(c.label)}</th>`).join("") + `</tr></thead>` +
    summary.cells.map((c) => `<tbody><tr class="cell-row"><th scope="colgroup" colspan="${cols.length}">${cellTitle(c)}</th></tr>` +
      c.rows.map((row) => `<tr>${cols.map((col) => td(col.label, valueHtml(col.key, row), `col-${col.key}`)).join("")}</tr>`).join("") + `</tbody>`).join("") +
    `</table>`) + `<p class="note">Win rates with their 95% Wilson intervals, in percent.</p>` : "<p>No summary.csv in this folder.</p>";
  const shown = summary.tournament ? summary.plots.filter((p) => p !== RATINGS_PLOT) : summary.plots;
  $("plots").innerHTML = shown.map((p) => `<figure><img alt="plot ${esc(p)}" src="/api/results/plot/${encodeURIComponent(p)}?${query}"><figcaption>${esc(p)}</figcaption></figure>`).join("");
  await showComparison();
  const games = await api("GET", `/api/results/games?${query}`);
  if (!games) return;
  $("replay-box").hidden = !games.games.length;
  $("replay-game").innerHTML = games.games.map((g, i) => `<option value="${i}">${esc(g.cell.split(";")[0].replace("players=", "").replaceAll("|", " vs "))}, ` +
    `game ${g.game} (winner: seat ${g.winner})</option>`).join("");
  $("replay-game").dataset.games = JSON.stringify(games.games.map((g) => [g.cell, g.game]));
  $("replay").innerHTML = "";
}

const RATINGS_PLOT = "ratings.png";

// A tournament: what was played, the cross table, the ratings (and their plot, from the folder of `query`).
function tournamentHtml(t, query) {
  const info = t.info, agents = t.agents, cross = new Map(t.cross.map((r) => [`${r.row_agent}\u0000${r.column_agent}`, r]));
  const facts = [`${agents.length} agents`, info.players ? `${info.players} players a table` : "", info.dice ? `${info.dice} dice each` : "",
    t.rules, info.games_per_table ? `${info.games_per_table} games a table` : "", info.seed !== undefined ? `seed ${info.seed}` : ""].filter(Boolean);
  let html = `<h2>Tournament</h2><p>${esc(facts.join(" · "))}</p><h3>Cross table</h3>` +
    `<p class="note">Each cell: the row agent's win rate against the column agent, with its 95% interval (percent); ` +
    `green where the interval lies above 50%, red where below.</p>`;
  let table = `<table class="cross stack"><thead><tr><th scope="col"><span class="sr-only">row agent</span></th>` +
    agents.map((a) => `<th scope="col"><code>${esc(a)}</code></th>`).join("") + `</tr></thead><tbody>`;
  for (const row of agents) {  // on a phone each row agent is a block, a line per opponent
    table += `<tr><th scope="row"><code>${esc(row)}</code></th>` + agents.map((col) => {
      const r = cross.get(`${row}\u0000${col}`);
      if (!r) return `<td class="none">${row === col ? "—" : ""}</td>`;
      const cls = r.low > 0.5 ? "above" : r.high < 0.5 ? "below" : "even";
      return `<td class="${cls}" data-label="vs ${esc(col)}" data-row="${esc(row)}" data-column="${esc(col)}"><span class="v">${pct(r.win_rate)}` +
        `<br>${interval(r.low, r.high)}<br><span class="n">${r.games} games</span></span></td>`;
    }).join("") + `</tr>`;
  }
  html += scroller("Cross table", table + `</tbody></table>`);
  if (t.ratings.length) {
    html += `<h3>Ratings</h3>` + scroller("Ratings", `<table class="ratings stack"><thead><tr><th scope="col">Rank</th><th scope="col">Agent</th>` +
      `<th scope="col">Rating [95% interval]</th><th scope="col">Games</th><th scope="col">Method</th></tr></thead><tbody>` +
      t.ratings.map((r) => `<tr>${td("Rank", r.rank)}${td("Agent", `<code>${esc(r.agent)}</code>`)}` +
        td("Rating", `${r.rating.toFixed(2)} <span class="ci">[${r.low.toFixed(2)}, ${r.high.toFixed(2)}]</span>`) +
        `${td("Games", r.games)}${td("Method", esc(r.method))}</tr>`).join("") + `</tbody></table>`);
    html += `<figure class="plot" id="ratings-chart">${intervalChart("Ratings with their 95% intervals", t.ratings)}` +
      (query ? `<figcaption><a href="/api/results/plot/${RATINGS_PLOT}?${query}">${RATINGS_PLOT}</a>, the plot as the tournament wrote it</figcaption>` : "") +
      `</figure>`;
  }
  return html;
}

// A row per agent (best first): its rating as a dot on its 95% interval, drawn to a phone's width with labels that
// stay readable there.
function intervalChart(title, rows) {
  const labelW = 112, plotW = 210, rowH = 26, top = 24, width = labelW + plotW + 18, height = top + rows.length * rowH + 24;
  const lo = Math.min(...rows.map((r) => r.low)), hi = Math.max(...rows.map((r) => r.high)), span = hi - lo || 1;
  const x = (v) => labelW + (v - lo) / span * plotW;
  let svg = svgOpen(width, height, title) + `<text x="0" y="14" font-weight="bold">${esc(title)}</text>`;
  if (lo < 0 && hi > 0) svg += `<line x1="${x(0)}" x2="${x(0)}" y1="${top - 4}" y2="${height - 20}" stroke="#8a96a6" stroke-dasharray="3 3"/>`;
  rows.forEach((r, i) => {
    const y = top + i * rowH + rowH / 2;
    const name = r.agent.length > 17 ? `${r.agent.slice(0, 16)}…` : r.agent;
    svg += `<text x="${labelW - 8}" y="${y + 4}" text-anchor="end">${esc(name)}</text>` +
      `<line x1="${x(r.low)}" x2="${x(r.high)}" y1="${y}" y2="${y}" stroke="#1f4e8c" stroke-width="2.5"/>` +
      `<circle cx="${x(r.rating)}" cy="${y}" r="5" fill="#1f4e8c"/>`;
  });
  const axis = height - 8;
  svg += `<text x="${labelW}" y="${axis}" text-anchor="start">${lo.toFixed(2)}</text>` +
    `<text x="${labelW + plotW}" y="${axis}" text-anchor="end">${hi.toFixed(2)}</text>`;
  return svg + `</svg>`;
}

async function showComparison() {
  const a = $("folder").value, b = $("compare").value;
  if (!b) { $("comparison").innerHTML = ""; return; }
  const answer = await api("GET", `/api/results/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
  if (!answer) return;
  const plain = (n) => (n === "." ? "this folder" : n), label = (n) => esc(plain(n));
  let html = `<h2>Compared: ${label(a)} and ${label(b)}</h2>`;
  if (!answer.rows.length) {
    $("comparison").innerHTML = html + `<p>No cell was played in both folders.</p>`;
    return;
  }
  let table = `<table class="summary compare stack"><thead><tr><th scope="col">Player</th><th scope="col">${label(a)}: win rate</th>` +
    `<th scope="col">${label(b)}: win rate</th><th scope="col">Difference (points) [95%]</th></tr></thead>`;
  let cell = null;
  for (const r of answer.rows) {
    if (r.cell !== cell) {
      table += `${cell === null ? "" : "</tbody>"}<tbody><tr class="cell-row"><th scope="colgroup" colspan="4">${cellTitle(answer.cells[r.cell])}</th></tr>`;
      cell = r.cell;
    }
    const cls = r.low > 0 ? "above" : r.high < 0 ? "below" : "";
    table += `<tr>${td("Player", `<code>${esc(r.player)}</code>`)}` +
      td(plain(a), `${pct(r.a.win_rate)} ${interval(r.a.ci_low, r.a.ci_high)} <span class="n">${r.a.games} games</span>`) +
      td(plain(b), `${pct(r.b.win_rate)} ${interval(r.b.ci_low, r.b.ci_high)} <span class="n">${r.b.games} games</span>`) +
      td("Difference", `${signed(r.difference)} <span class="ci">[${signed(r.low)}, ${signed(r.high)}]</span>`, `difference ${cls}`) + `</tr>`;
  }
  html += scroller("Comparison", table + `</tbody></table>`) + `<p class="note">The cells played in both folders, player by player; ` +
    `the difference of the win rates (${label(a)} minus ${label(b)}, in points) with Newcombe's 95% interval.` +
    (answer.only_a || answer.only_b ? ` Rows of one folder only: ${answer.only_a} in ${label(a)}, ${answer.only_b} in ${label(b)}.` : "") + `</p>`;
  $("comparison").innerHTML = html;
}

let replayDraw = null;

async function loadReplay() {
  const [cell, gameIndex] = JSON.parse($("replay-game").dataset.games || "[]")[Number($("replay-game").value)] || [];
  if (cell === undefined) return;
  $("replay").innerHTML = "<p>Playing the game again from its seed…</p>";
  const replay = await api("GET", `/api/results/replay?folder=${encodeURIComponent($("folder").value)}&cell=${encodeURIComponent(cell)}&game=${gameIndex}`);
  replayDraw = replay ? replayView($("replay"), "replay", replay, () => $("replay-hands").checked) : null;
  if (!replay) $("replay").innerHTML = "";
}

// A game replayed in `box`, one move per click: `data` has the rules in words, the seats' specs, every round (its
// dice, opener, actions and hands as the server gives them), the winner and whether it ends as recorded. Its
// buttons' ids start with `prefix`; `hands()` says whether the hands show before the challenge. Returns its redraw.
function replayView(box, prefix, data, hands) {
  const steps = [], names = data.seats.map((spec, seat) => `Seat ${seat} (${spec})`);
  data.rounds.forEach((r, ri) => r.actions.forEach((_, ai) => steps.push([ri, ai])));
  let step = 0;
  const draw = () => {
    step = Math.max(0, Math.min(step, steps.length - 1));
    const [ri, ai] = steps[step], r = data.rounds[ri], ended = ai === r.actions.length - 1;
    let html = `<p>${esc(data.rules)}; step ${step + 1} of ${steps.length}` +
      (data.matches_record ? "" : " — <b>the replay ends differently from the stored record</b> (a timed player, or changed code)") + `</p>` +
      `<div class="calls"><button type="button" id="${prefix}-prev" class="secondary">◀ previous</button> <button type="button" id="${prefix}-next" class="secondary">next ▶</button></div>` +
      `<h3>Round ${ri + 1}: dice ${r.dice.join(", ")}; seat ${r.opener} opens${r.palifico ? "; a palifico round: no die is wild" : ""}</h3><ol>` +
      r.actions.slice(0, ai + 1).map((a) => `<li>${esc(names[a.seat])}: <b>${esc(actionText(a.action))}</b></li>`).join("") + `</ol>`;
    if (ended) {
      html += revealHtml(r, names);
    } else if (hands()) {
      html += r.hands.map((h, seat) => r.dice[seat] ? `<div>${esc(names[seat])}: ${h.map((f) => die(f, {size: 24, label: String(f)})).join("")}</div>` : "").join("");
    }
    if (step === steps.length - 1) html += `<p class="status">Seat ${data.winner} (${esc(data.seats[data.winner])}) wins.</p>`;
    const focused = document.activeElement?.id;
    box.innerHTML = html;
    $(`${prefix}-prev`).onclick = () => { step -= 1; draw(); };
    $(`${prefix}-next`).onclick = () => { step += 1; draw(); };
    if (focused === `${prefix}-prev` || focused === `${prefix}-next`) $(focused).focus();  // clicking on by keys
  };
  draw();
  return draw;
}

// ---- keys -----------------------------------------------------------------------------------------------------
// On your turn: digits and "x" go to the bid box (Enter plays the bid), c calls liar, e calls exact, h asks for the
// hint; when a round is over, n (or Enter) starts the next. Keys typed into the form's own boxes are theirs.
function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || !game || $("play").hidden) return;
  const target = event.target, inBox = target.id === "move-input";
  if (!inBox && target.closest && target.closest("input, select, textarea, #setup-box")) return;
  const key = event.key.toLowerCase(), legal = new Set(game.legal);
  if (game.phase === "your-turn") {
    if (inBox && target.value !== "") return;  // the box is being typed in: Enter submits it
    if (key === "c" && legal.has("challenge")) { event.preventDefault(); play("challenge"); }
    else if (key === "e" && legal.has("exact")) { event.preventDefault(); play("exact"); }
    else if (key === "h") { event.preventDefault(); askHint(); }
    else if (!inBox && /^[0-9]$/.test(key)) { event.preventDefault(); $("move-input").focus(); $("move-input").value += key; }
  } else if (game.phase === "round-over" && (key === "n" || (key === "enter" && target.id !== "next-round" && target.tagName !== "BUTTON" && target.tagName !== "A"))) {
    event.preventDefault();
    nextRound();
  }
}

// ---- start ----------------------------------------------------------------------------------------------------
function showTab(name) {
  document.querySelectorAll("[role=tab]").forEach((t) => {
    const on = t.getAttribute("aria-controls") === name;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
  });
  document.querySelectorAll("[role=tabpanel]").forEach((p) => { p.hidden = p.id !== name; });
}

function tabKeys(event) {  // left and right arrows move between the tabs
  const tabs = [...document.querySelectorAll("[role=tab]")].filter((t) => !t.hidden);
  const i = tabs.indexOf(event.target);
  if (i < 0 || !["ArrowLeft", "ArrowRight"].includes(event.key)) return;
  const next = tabs[(i + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
  next.focus();
  showTab(next.getAttribute("aria-controls"));
}

async function init() {
  const [given, agents] = await Promise.all([api("GET", "/api/options"), api("GET", "/api/players")]);
  if (!given || !agents) return;
  options = {...given, specs: agents.players};
  advice = options.recommended;
  $("hint-agent").textContent = options.recommended.spec;
  $("rule-sets").innerHTML = options.rule_sets.map((s) => choiceHtml("rule-set", s.name, s.label, esc(s.words))).join("") +
    choiceHtml("rule-set", "custom", "Custom", "the rules set one by one under <i>Custom rules</i>");
  $("rule-controls").innerHTML = options.controls.map(controlHtml).join("");
  options.controls.forEach((c) => setRule(c.name, c.default));
  choose("rule-set", "today");
  document.querySelectorAll('input[name="rule-set"]').forEach((radio) => {
    radio.onchange = () => { applyRuleSet(radio.value); rulesChanged(); };
  });
  document.querySelectorAll("#rule-controls [data-rule]").forEach((input) => { input.onchange = rulesChanged; });
  $("levels").innerHTML = options.ladder.map((l) => choiceHtml("level", l.name, l.label,
    `${esc(l.words)} <span class="plays">(plays <code>${esc(l.spec)}</code>)</span>`)).join("") +
    choiceHtml("level", "custom", "Chosen seat by seat", "under <i>Custom rules</i>");
  choose("level", options.ladder.find((l) => l.spec === options.recommended.spec)?.name ?? "custom");
  document.querySelectorAll('input[name="level"]').forEach((radio) => { radio.onchange = () => { applyLevel(); askAdvice(); }; });
  $("opponent-count").innerHTML = Array.from({length: options.limits.players - 1}, (_, i) =>
    `<option value="${i + 1}">${i + 1} (a table of ${i + 2})</option>`).join("");
  $("opponent-count").onchange = setOpponentCount;
  addOpponent();
  $("add-opponent").onclick = () => { addOpponent(); opponentsChanged(); };
  $("setup").onsubmit = startGame;
  $("hint-button").onclick = askHint;
  document.querySelectorAll("[role=tab]").forEach((t) => { t.onclick = () => showTab(t.getAttribute("aria-controls")); });
  $("tabs").addEventListener("keydown", tabKeys);
  document.addEventListener("keydown", onKey);
  $("replay-load").onclick = loadReplay;
  $("animate").checked = localStorage.getItem("ldpomdp-animate") !== "off";
  $("animate").onchange = () => localStorage.setItem("ldpomdp-animate", $("animate").checked ? "on" : "off");
  $("replay-hands").onchange = () => { if (replayDraw) replayDraw(); };
  if (options.results) { $("tab-results").hidden = false; loadResults(); }
  askAdvice();
  const state = await fetch("/api/game").then((r) => (r.ok ? r.json() : null)).catch(() => null);
  if (state) { show(state); $("setup-box").open = state.phase === "game-over"; }
}

init();
