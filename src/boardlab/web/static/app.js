// The page: main menu, game view, and the hand-over to the tree viewer.
import { ensureRenderer, playerName, renderBoard, setCatalogue } from "./boards.js";
import { TreeViewer } from "./viewer.js";

const $ = (id) => document.getElementById(id);

export async function api(method, url, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      const data = await response.json();
      if (data.detail) message = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail);
    } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return response.json();
}

function status(text, isError = false) {
  const node = $("status");
  node.textContent = text || "";
  node.style.color = isError ? "#ff9c8a" : "";
}

function show(view) {
  for (const id of ["menu", "game", "viewer"]) $(id).hidden = id !== view;
  document.body.dataset.view = view;
}

// ------------------------------------------------------------------ main menu
let catalogue = null;

async function loadMenu() {
  catalogue = await api("GET", "/api/meta");
  setCatalogue(catalogue);
  await Promise.all(catalogue.games.map((g) => ensureRenderer(g.name)));
  const select = $("game-select");
  select.replaceChildren();
  for (const g of catalogue.games) {
    const option = new Option(g.long_name, g.name);
    select.appendChild(option);
  }
  const agents = $("agent-select");
  agents.replaceChildren();
  for (const a of catalogue.agents) agents.appendChild(new Option(`${a.name} — ${a.summary}`, a.name));
  if (catalogue.agents.some((a) => a.name === "mcts")) agents.value = "mcts";
  select.addEventListener("change", showParams);
  agents.addEventListener("change", showAgentOptions);
  for (const radio of document.querySelectorAll("input[name=mode]")) radio.addEventListener("change", showModeOptions);
  showParams();
  showAgentOptions();
  showModeOptions();
}

function showParams() {
  const game = catalogue.games.find((g) => g.name === $("game-select").value);
  const box = $("game-params");
  box.replaceChildren();
  if (!game) return;
  for (const p of game.parameters) {
    if (!["int", "float", "str"].includes(p.type)) continue;
    const label = document.createElement("label");
    label.textContent = `${p.name} `;
    label.title = p.help;
    const input = document.createElement("input");
    // text parameters too: a FEN, or the game of a family with its own parameters (hex(board_size=7))
    input.type = p.type === "str" ? "text" : "number";
    input.name = p.name;
    input.dataset.param = p.name;
    input.value = p.default;
    label.appendChild(input);
    box.appendChild(label);
  }
}

function showAgentOptions() {
  const agent = catalogue.agents.find((a) => a.name === $("agent-select").value);
  const has = (name) => agent && agent.options.some((o) => o.name === name);
  for (const [name, id] of [["iterations", "ai-iterations"], ["time", "ai-time"], ["c", "ai-c"]]) {
    $(id).disabled = !has(name);
    $(id).closest("label").hidden = !has(name);
  }
}

function mode() {
  return document.querySelector("input[name=mode]:checked").value;
}

function showModeOptions() {
  $("ai-settings").hidden = mode() === "human-human";
  $("seat-label").hidden = mode() !== "human-ai";
}

function gameSpec() {
  const name = $("game-select").value;
  const game = catalogue.games.find((g) => g.name === name);
  const parts = [];
  for (const input of $("game-params").querySelectorAll("input[data-param]")) {
    const p = game.parameters.find((q) => q.name === input.dataset.param);
    if (input.value !== "" && String(p.default) !== input.value) parts.push(`${p.name}=${input.value}`);
  }
  return parts.length ? `${name}:${parts.join(",")}` : name;
}

function aiSettings() {
  const ai = { agent: $("agent-select").value };
  const iterations = $("ai-iterations"), time = $("ai-time"), c = $("ai-c");
  const timed = !time.disabled && time.value !== "" && Number(time.value) > 0;
  if (timed) ai.time = Number(time.value);
  else if (!iterations.disabled && iterations.value !== "") ai.iterations = Number(iterations.value);
  if (!c.disabled && c.value !== "") ai.c = Number(c.value);
  return ai;
}

// ------------------------------------------------------------------ a game
let game = null; // the server's view of the current game
let busy = false;
let playingOn = false;
let drawnMoves = -1, drawnGame = null;

async function startGame(event) {
  event.preventDefault();
  try {
    status("starting…");
    game = await api("POST", "/api/games", {
      game: gameSpec(),
      mode: mode(),
      ai: aiSettings(),
      human_seat: Number($("human-seat").value),
    });
    playingOn = false;
    show("game");
    location.hash = `game/${game.id}`;
    status("");
    drawGame();
    await maybeAiMove();
  } catch (err) {
    status(err.message, true);
  }
}

function lastAction() {
  return game.last_action === undefined ? null : game.last_action;
}

function drawGame() {
  $("game-title").textContent = `${game.long_name} — ${{ "human-ai": "human vs AI", "ai-ai": "AI vs AI", "human-human": "human vs human" }[game.mode]}`;
  const turn = $("turn");
  turn.replaceChildren();
  if (game.terminal) {
    const span = document.createElement("span");
    span.className = "result";
    const r = game.returns;
    const best = Math.max(...r);
    const winners = r.map((v, p) => (v === best ? p : -1)).filter((p) => p >= 0);
    span.textContent = winners.length === 1 ? `${playerName(game, winners[0])} wins` : winners.length === r.length ? "Draw" : `${winners.map((p) => playerName(game, p)).join(" and ")} share the win`;
    span.id = "result";
    turn.appendChild(span);
  } else {
    const who = playerName(game, game.to_move);
    const kind = game.seats[game.to_move] === "human" ? "your move" : `AI (${game.seats[game.to_move]})`;
    turn.textContent = `${who} to move — ${kind}${busy ? " — thinking…" : ""}`;
  }
  document.body.dataset.turn = game.terminal ? "over" : String(game.to_move);
  const canClick = !busy && game.human_to_move;
  // the newest disc falls in once, not again on every redraw
  const fresh = game.moves.length !== drawnMoves || game.id !== drawnGame;
  drawnMoves = game.moves.length; drawnGame = game.id;
  renderBoard($("board"), game, { onAction: canClick ? playHuman : null, lastAction: fresh ? lastAction() : null, viewer: game.viewer });
  const list = $("move-list");
  list.replaceChildren(...game.moves.map((m, k) => {
    const mover = game.movers[k];
    const who = mover >= 0 ? playerName(game, mover) : "chance";
    return Object.assign(document.createElement("li"), { textContent: `${who}: ${m}` });
  }));
  list.scrollTop = list.scrollHeight;
  const aiTurn = !game.terminal && !game.human_to_move;
  $("next-move").hidden = game.mode !== "ai-ai";
  $("play-on").hidden = game.mode !== "ai-ai";
  $("next-move").disabled = busy || !aiTurn;
  $("play-on").textContent = playingOn ? "Pause" : "Play on";
  $("play-on").disabled = game.terminal;
  $("undo").disabled = busy || game.moves.length === 0;
  $("analyse").disabled = game.trees === 0;
  $("trees-back").max = Math.max(1, game.trees);
  if (Number($("trees-back").value) > game.trees && game.trees > 0) $("trees-back").value = game.trees;
  document.body.dataset.busy = busy ? "1" : "0";
  document.body.dataset.moves = String(game.moves.length);
}

async function act(request) {
  busy = true;
  drawGame();
  try {
    game = await request();
    status("");
  } catch (err) {
    status(err.message, true);
  } finally {
    busy = false;
    drawGame();
  }
}

async function playHuman(action) {
  if (busy) return;
  await act(() => api("POST", `/api/games/${game.id}/move`, { action }));
  await maybeAiMove();
}

// in human-vs-AI the AI answers by itself; in AI-vs-AI only when playing on
async function maybeAiMove() {
  while (game && !game.terminal && !game.human_to_move && (game.mode === "human-ai" || playingOn)) {
    await act(() => api("POST", `/api/games/${game.id}/ai-move`));
    if (document.body.dataset.view !== "game") return;
  }
  if (game && game.terminal) playingOn = false;
  drawGame();
}

async function nextMove() {
  if (busy || !game || game.terminal || game.human_to_move) return;
  await act(() => api("POST", `/api/games/${game.id}/ai-move`));
}

async function playOn() {
  playingOn = !playingOn;
  drawGame();
  if (playingOn) await maybeAiMove();
}

async function undo() {
  playingOn = false;
  await act(() => api("POST", `/api/games/${game.id}/undo`));
  await maybeAiMove();
}

function download(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

async function exportRecord() {
  const record = await api("GET", `/api/games/${game.id}/record`);
  download(new Blob([JSON.stringify(record, null, 1)], { type: "application/json" }), `${game.game}-${game.id}.json`);
}

// a new game from a position of a tree: the person moves first there, against the menu's AI
async function playFrom(spec, position) {
  try {
    status("starting…");
    // no human_seat: the person takes the seat to move in that position
    game = await api("POST", "/api/games", { game: spec, mode: "human-ai", ai: aiSettings(), position });
    playingOn = false;
    show("game");
    location.hash = `game/${game.id}`;
    status("");
    drawGame();
    await maybeAiMove();
  } catch (err) {
    status(err.message, true);
  }
}

// ------------------------------------------------------------------ tree viewer
let viewer = null;

function getViewer() {
  if (!viewer) {
    viewer = new TreeViewer({ canvas: $("tree-canvas"), api, status, download });
    window.__viewer = viewer; // for the browser tests and the first-frame benchmark
  }
  return viewer;
}

async function analyse() {
  const trees = await api("GET", `/api/games/${game.id}/trees`);
  if (!trees.length) return status("no AI move has built a tree yet", true);
  const back = Math.max(1, Math.min(trees.length, Number($("trees-back").value) || 1));
  const base = `/api/games/${game.id}/trees`;
  const sequence = trees.slice(-back).map((t) => ({
    title: `move ${t.ply + 1}: ${t.player_name} (${t.agent}) plays ${t.move} — ${t.nodes} nodes`,
    data: `${base}/${t.index}/data`,
    node: (i) => `${base}/${t.index}/nodes/${i}`,
    export: (fmt) => `${base}/${t.index}/export?format=${fmt}`,
    stem: `${game.game}-move${t.ply + 1}`,
  }));
  window.__analyseClickedAt = performance.now();
  show("viewer");
  location.hash = "viewer";
  await getViewer().open(sequence, sequence.length - 1, () => { show("game"); location.hash = `game/${game.id}`; }, playFrom);
}

async function openFiles(files) {
  const list = [...files];
  if (!list.length) return;
  const sequence = [];
  try {
    for (const file of list) {
      status(`uploading ${file.name}…`);
      const response = await fetch(`/api/uploads?name=${encodeURIComponent(file.name)}`, { method: "POST", body: file });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(data.detail || `${file.name}: ${response.status}`);
      const previous = sequence.length ? sequence[sequence.length - 1].id : null;
      sequence.push({
        id: data.id,
        title: `${file.name} — ${data.nodes} nodes`,
        data: `/api/uploads/${data.id}/data` + (previous ? `?prev=${previous}` : ""),
        node: (i) => `/api/uploads/${data.id}/nodes/${i}`,
        export: (fmt) => `/api/uploads/${data.id}/export?format=${fmt}`,
        stem: file.name.replace(/\.[^.]*$/, ""),
      });
    }
    status("");
  } catch (err) {
    status(err.message, true);
    $("tree-files").value = "";
    return;
  }
  $("tree-files").value = "";
  show("viewer");
  location.hash = "viewer";
  await getViewer().open(sequence, 0, () => { show("menu"); location.hash = ""; }, playFrom);
}

// ------------------------------------------------------------------ wiring
window.addEventListener("DOMContentLoaded", async () => {
  show("menu");
  $("new-game").addEventListener("submit", startGame);
  $("next-move").addEventListener("click", nextMove);
  $("play-on").addEventListener("click", playOn);
  $("undo").addEventListener("click", undo);
  $("export-record").addEventListener("click", exportRecord);
  $("analyse").addEventListener("click", () => analyse().catch((err) => status(err.message, true)));
  $("tree-files").addEventListener("change", (e) => openFiles(e.target.files));
  $("home").addEventListener("click", (e) => { e.preventDefault(); playingOn = false; show("menu"); location.hash = ""; });
  try {
    await loadMenu();
    document.body.dataset.ready = "1";
  } catch (err) {
    status(`cannot reach the server: ${err.message}`, true);
  }
});
