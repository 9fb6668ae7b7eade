// The page: main menu, game view, and the hand-over to the tree viewer.
//
// Routes live in the URL's hash, so reload, Back and Forward keep what is shown:
//   (none)                                  the menu
//   #game/<id>                              a game
//   #game/<id>/trees/<from>-<to>/<at>       the viewer on that game's trees from..to (server indices), showing <at>
//   #files/<upload id>,<upload id>/<at>     the viewer on uploaded tree files (their names kept in sessionStorage)
//
// Every request about a game names the game it was made for; a reply for a game that is no
// longer shown is dropped (counted in body[data-dropped]) and never switches the page back.
import { el } from "./boardkit.js";
import { ensureRenderer, playerName, renderBoard, scoresOf, setCatalogue } from "./boards.js";
import { TreeViewer } from "./viewer.js";

const $ = (id) => document.getElementById(id);

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

export async function api(method, url, body, signal) {
  const init = { method, headers: {}, signal };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  if (!response.ok) throw new ApiError(await errorText(response), response.status);
  return response.json();
}

// the server's own words for a failed request (its "detail"), else the HTTP status
export async function errorText(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const data = await response.json();
    if (data.detail) message = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail);
  } catch (_) { /* not JSON */ }
  return message;
}

// the header's line: progress ("starting…"), and the tree viewer's errors
function status(text, isError = false) {
  const node = $("status");
  node.textContent = text || "";
  node.style.color = isError ? "#ff9c8a" : "";
  node.dataset.error = isError && text ? "1" : "0";
}

// an error shows next to the control that caused it (#start-error under Start, #game-error under the
// game's buttons, #upload-error by "Open tree files…"); no message clears it
function showError(id, message) {
  const node = $(id);
  node.textContent = message || "";
  node.hidden = !message;
}

function show(view) {
  if (view !== "viewer") {
    if (viewer) viewer.stopAnimation();
    document.body.dataset.treeReady = "";
  }
  for (const id of ["menu", "game", "viewer"]) $(id).hidden = id !== view;
  document.body.dataset.view = view;
}

// ------------------------------------------------------------------ routes
let routed = null; // the route on screen (the hash without '#')
let nav = 0; // bumped by every change of what is shown; an answer for an older one is ignored

function here() {
  return location.hash.replace(/^#/, "");
}

// write `route` into the address (a new history entry, or in place) without re-applying it
function setRoute(route, replace = false) {
  routed = route;
  if (here() === route) return;
  const url = route ? `#${route}` : location.pathname + location.search;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
}

// the address changed by Back, Forward, a typed hash or a reload: show what it names
function onLocation() {
  const route = here();
  if (route === routed) return;
  routed = route;
  applyRoute(route);
}

function applyRoute(route) {
  const parts = route.split("/");
  if (parts[0] === "game" && parts[1]) {
    if (parts[2] === "trees") {
      const [from, to] = (parts[3] || "").split("-").map(Number);
      return openGameTrees(parts[1], from, to, Number(parts[4]));
    }
    return openGame(parts[1]);
  }
  if (parts[0] === "files" && parts[1]) return openUploads(parts[1].split(","), Number(parts[2]) || 0);
  // "#viewer" (older pages) or anything unknown: the menu, said so in the address
  if (route) setRoute("", true);
  showMenu();
}

function showMenu() {
  nav++;
  shownId = null;
  playingOn = false;
  show("menu");
  status("");
}

// ------------------------------------------------------------------ main menu
let catalogue = null;
// shown first; every other option the agent declares is under "More options"
const MAIN_OPTIONS = ["iterations", "time", "c", "eval", "depth"];

const gameEntry = (name) => catalogue.games.find((g) => g.name === name);
const agentEntry = (name) => catalogue.agents.find((a) => a.name === name);
const selectedGame = () => gameEntry($("game-select").value);

async function loadMenu() {
  catalogue = await api("GET", "/api/meta");
  setCatalogue(catalogue);
  await Promise.all(catalogue.games.map((g) => ensureRenderer(g.name)));
  const select = $("game-select");
  select.replaceChildren(...catalogue.games.map((g) => new Option(g.long_name, g.name)));
  // the page's configuration names the first game (index.html), this code none
  const first = $("new-game").dataset.firstGame;
  if (first && gameEntry(first)) select.value = first;
  select.addEventListener("change", gameChosen);
  $("agent-select").addEventListener("change", () => showAgentOptions(defaultSettings(selectedGame())));
  for (const radio of document.querySelectorAll("input[name=mode]")) radio.addEventListener("change", showModeOptions);
  gameChosen();
  showModeOptions();
}

// the AI a game starts with: the game's declared default agent, else MCTS with the game's own evaluator and about a second per move
// when it declares one (an evaluator costs what the game's code costs per iteration: a time
// budget keeps the wait predictable), else 1000 iterations of compiled or random playouts
function defaultSettings(game) {
  const agents = game.agents || [];
  const settings = { agent: agents.includes("mcts") ? "mcts" : agents[0] };
  if (game.default_evaluator) {
    settings.eval = game.default_evaluator;
    settings.time = 1;
  } else {
    settings.eval = "none";
    settings.iterations = 1000;
  }
  // the game's declared default opponent (its strongest fair player) comes first, with its options;
  // the search settings above stay for when the person picks MCTS instead
  const chosen = game.default_agent;
  if (chosen && agents.includes(chosen.agent)) Object.assign(settings, chosen.options, { agent: chosen.agent });
  return settings;
}

function gameChosen() {
  const game = selectedGame();
  showParams(game);
  const agents = $("agent-select");
  const defaults = defaultSettings(game);
  // only the agents that can play this game
  agents.replaceChildren(...(game.agents || []).map((name) => {
    const a = agentEntry(name);
    const option = new Option(a ? `${name} — ${a.summary}` : name, name);
    if (a) option.title = a.summary;
    return option;
  }));
  if (defaults.agent) agents.value = defaults.agent;
  showAgentOptions(defaults);
  showSeats();
}

// one input for a declared option (game parameter or agent option), its help as tooltip
function optionInput(option, value, id, dataKey) {
  const label = el("label", "option");
  label.title = option.help || "";
  let input;
  if (option.type === "bool") {
    input = Object.assign(el("input"), { type: "checkbox", checked: value === true || value === "true" });
  } else {
    input = el("input");
    if (option.type === "int" || option.type === "float") {
      input.type = "number";
      input.step = option.type === "int" ? "1" : "any";
    } else {
      input.type = "text";
    }
    input.value = value === null || value === undefined ? "" : String(value);
    if (option.default === null || option.default === undefined) input.placeholder = "default";
  }
  input.id = id;
  input.dataset[dataKey] = option.name;
  input.dataset.type = option.type;
  label.append(`${option.name} `, input);
  return label;
}

function showParams(game) {
  const box = $("game-params");
  box.replaceChildren();
  for (const p of game.parameters) {
    const label = optionInput(p, p.default, `param-${p.name}`, "param");
    label.querySelector("input").addEventListener("input", () => p.name === "players" && showSeats());
    box.appendChild(label);
  }
}

// the eval option: the game's evaluators, or random playouts
function evalSelect(option, value, game) {
  const label = el("label", "option");
  label.title = option.help || "";
  const select = el("select");
  select.id = "ai-eval";
  select.dataset.option = option.name;
  select.dataset.type = "eval";
  const summaries = game.evaluator_summaries || {};
  for (const name of game.evaluators || []) {
    const o = new Option(name === game.default_evaluator ? `${name} (the game's default)` : name, name);
    if (summaries[name]) o.title = summaries[name];
    select.appendChild(o);
  }
  select.appendChild(new Option("none: random playouts", "none"));
  select.value = value || game.default_evaluator || "none";
  label.append(`${option.name} `, select);
  return label;
}

function showAgentOptions(settings) {
  const game = selectedGame();
  const agent = agentEntry($("agent-select").value);
  const main = $("agent-options"), more = $("agent-more");
  main.replaceChildren();
  more.replaceChildren();
  if (!agent) return;
  const ordered = [...agent.options].sort((a, b) => rank(a.name) - rank(b.name));
  for (const option of ordered) {
    const value = option.name in settings ? settings[option.name] : option.default;
    const node = option.name === "eval" && option.type === "str"
      ? evalSelect(option, value, game)
      : optionInput(option, value, `ai-${option.name}`, "option");
    (MAIN_OPTIONS.includes(option.name) ? main : more).appendChild(node);
  }
  $("more-options").hidden = more.childElementCount === 0;
  $("more-options").querySelector("summary").textContent = `More options (${more.childElementCount})`;
}

function rank(name) {
  const k = MAIN_OPTIONS.indexOf(name);
  return k < 0 ? MAIN_OPTIONS.length : k;
}

function playerCount(game) {
  const input = $("game-params").querySelector("input[data-param=players]");
  const [lo, hi] = game.players_range || [game.players, game.players];
  const asked = input ? Math.round(Number(input.value)) : game.players;
  return Number.isFinite(asked) && asked >= lo && asked <= hi ? asked : game.players;
}

// "You play": every seat of the game, by its name, for the number of players chosen
function showSeats() {
  const game = selectedGame();
  const select = $("human-seat");
  const before = select.value;
  const n = playerCount(game);
  select.replaceChildren(...Array.from({ length: n }, (_, p) => new Option(game.player_names[p] || `Player ${p + 1}`, String(p))));
  select.value = before !== "" && Number(before) < n ? before : "0";
}

function mode() {
  return document.querySelector("input[name=mode]:checked").value;
}

function showModeOptions() {
  $("ai-settings").hidden = mode() === "human-human";
  $("seat-label").hidden = mode() !== "human-ai";
}

// the value of a declared option's input, or undefined when it says the declared default
function changedValue(input, declared) {
  if (input.dataset.type === "bool") return input.checked === Boolean(declared) ? undefined : String(input.checked);
  if (input.value === "") return undefined;
  if (input.dataset.type === "int" || input.dataset.type === "float") {
    const value = Number(input.value);
    return declared !== null && declared !== undefined && Number(declared) === value ? undefined : value;
  }
  return declared !== null && declared !== undefined && String(declared) === input.value ? undefined : input.value;
}

function gameSpec() {
  const game = selectedGame();
  const parts = [];
  for (const input of $("game-params").querySelectorAll("input[data-param]")) {
    const p = game.parameters.find((q) => q.name === input.dataset.param);
    const value = changedValue(input, p.default);
    if (value !== undefined) parts.push(`${p.name}=${value}`);
  }
  return parts.length ? `${game.name}:${parts.join(",")}` : game.name;
}

// what the menu sends: the agent and every option that differs from its declared default
function aiSettings() {
  const game = selectedGame();
  const agent = agentEntry($("agent-select").value);
  const ai = { agent: $("agent-select").value };
  if (!agent) return ai;
  for (const input of document.querySelectorAll("#ai-settings [data-option]")) {
    const option = agent.options.find((o) => o.name === input.dataset.option);
    if (!option) continue;
    if (input.dataset.type === "eval") {
      // eval's declared default is "the game's own": say it only when another is chosen
      if (input.value !== (game.default_evaluator || "none")) ai.eval = input.value;
      continue;
    }
    const value = changedValue(input, option.default);
    if (value !== undefined) ai[option.name] = value;
  }
  return ai;
}

// ------------------------------------------------------------------ a game
let game = null; // the server's view of the game shown (or last shown)
let shownId = null; // the id of the game on screen (also while its trees are viewed); null: none
const inFlight = new Map(); // game id -> requests under way
let playingOn = false;
let dropped = 0;
let drawnMoves = -1, drawnGame = null;
let analyseFailed = false; // a failed "Analyse trees" says why under the button until the next move

const busy = () => shownId !== null && (inFlight.get(shownId) || 0) > 0;
const pending = new Map(); // game id -> AbortControllers of its requests under way

// another game is shown now: whatever was asked about the others is no longer wanted (a server that
// notices the request go away stops the search); their answers, if any still come, are dropped
function abortOthers(id) {
  for (const [other, controllers] of pending) {
    if (other === id) continue;
    for (const controller of controllers) controller.abort();
  }
}

function dropReply() {
  dropped++;
  document.body.dataset.dropped = String(dropped);
}

// one request about game `id`; its answer is used only while that game is still shown
async function forGame(id, method, suffix, body) {
  inFlight.set(id, (inFlight.get(id) || 0) + 1);
  const controller = new AbortController();
  if (!pending.has(id)) pending.set(id, new Set());
  pending.get(id).add(controller);
  if (id === shownId) {
    document.body.dataset.busy = "1";
    drawGame();
  }
  const before = game && game.id === id ? game.moves.length : -1;
  try {
    let view;
    try {
      view = await api(method, `/api/games/${id}${suffix}`, body, controller.signal);
    } catch (err) {
      // a move refused because the game moved on (a reload while the AI thought): show where it is now
      if (err.status !== 409 || id !== shownId) throw err;
      view = await api("GET", `/api/games/${id}`);
      if (view.moves.length === before) throw err;
    }
    if (id !== shownId) {
      dropReply();
      return null;
    }
    game = view;
    showError("game-error", "");
    analyseFailed = false;
    return view;
  } catch (err) {
    if (id !== shownId) {
      dropReply();
      return null;
    }
    if (err.status === 404) gone(err.message);
    else showError("game-error", err.message);
    return null;
  } finally {
    inFlight.set(id, inFlight.get(id) - 1);
    pending.get(id).delete(controller);
    if (id === shownId) document.body.dataset.busy = busy() ? "1" : "0";
    if (id === shownId && game && game.id === id) drawGame();
  }
}

// the server no longer has the game: its own words, and the way back
function gone(detail) {
  show("game");
  $("game-gone").hidden = false;
  $("game-area").hidden = true;
  $("game-side").hidden = true;
  $("gone-detail").textContent = detail;
  document.body.dataset.gone = "1";
  status("");
}

function notGone() {
  $("game-gone").hidden = true;
  $("game-area").hidden = false;
  $("game-side").hidden = false;
  document.body.dataset.gone = "0";
}

async function startGame(event) {
  event.preventDefault();
  const token = ++nav;
  const body = { game: gameSpec(), mode: mode(), ai: aiSettings() };
  if (body.mode === "human-ai") body.human_seat = Number($("human-seat").value);
  if (game && game.id) body.replaces = game.id; // the server cancels that game's move in flight
  status("starting…");
  showError("start-error", "");
  $("start").disabled = true;
  try {
    const view = await api("POST", "/api/games", body);
    if (token !== nav) return; // the person went elsewhere meanwhile
    setRoute(`game/${view.id}`);
    await openGame(view.id, view);
  } catch (err) {
    if (token === nav) {
      status("");
      showError("start-error", err.message);
    }
  } finally {
    $("start").disabled = false;
  }
}

// the same game again with every player one seat on (the server swaps the seats), a fresh deal
async function rematch() {
  const id = shownId;
  if (!id || busy()) return;
  const token = ++nav;
  $("rematch").disabled = true;
  try {
    const view = await api("POST", `/api/games/${id}/rematch`);
    if (token !== nav) return;
    setRoute(`game/${view.id}`);
    await openGame(view.id, view);
  } catch (err) {
    if (token !== nav) return;
    if (err.status === 404) gone(err.message);
    else showError("game-error", err.message);
  } finally {
    $("rematch").disabled = false;
  }
}

// show game `id` (its view when known, else asked for) and let its AI move when it should
async function openGame(id, view = null) {
  const token = ++nav;
  if (shownId !== id) playingOn = false;
  shownId = id;
  abortOthers(id);
  notGone();
  show("game");
  if (!game || game.id !== id) showError("game-error", "");
  if (!view) {
    if (!game || game.id !== id) {
      $("board").replaceChildren();
      $("move-list").replaceChildren();
      $("game-title").textContent = "";
      $("turn").textContent = "loading…";
    }
    // counts as busy: no click lands on a board about to be redrawn
    view = await forGame(id, "GET", "");
    if (!view || token !== nav || shownId !== id) return;
  }
  game = view;
  status("");
  drawGame();
  maybeAiMove(id); // not awaited: the page is free while the AI thinks
}

function drawGame() {
  if (!game || game.id !== shownId) return;
  const modeName = { "human-ai": "human vs AI", "ai-ai": "AI vs AI", "human-human": "human vs human" }[game.mode];
  const mine = game.mode === "human-ai" && game.viewer !== null && game.viewer !== undefined ? ` — you play ${playerName(game, game.viewer)}` : "";
  $("game-title").textContent = `${game.long_name} — ${modeName}${mine}`;
  const thinking = busy();
  const turn = $("turn");
  turn.replaceChildren();
  drawResult();
  if (game.terminal) {
    turn.appendChild(el("span", "result", `Game over: ${$("result").textContent}`));
  } else {
    const who = playerName(game, game.to_move);
    const kind = game.seats[game.to_move] === "human" ? (game.mode === "human-human" ? "to play" : "your move") : `AI (${game.seats[game.to_move]})`;
    const swatch = el("span", "seat-swatch");
    if (game.player_colors && game.player_colors[game.to_move]) swatch.style.background = game.player_colors[game.to_move];
    turn.append(swatch, `${who} to move — ${kind}${thinking ? " — thinking…" : ""}`);
  }
  document.body.dataset.game = game.id;
  document.body.dataset.turn = game.terminal ? "over" : String(game.to_move);
  document.body.dataset.viewer = game.viewer === null || game.viewer === undefined ? "" : String(game.viewer);
  const canClick = !thinking && game.human_to_move;
  // the newest disc falls in once, not again on every redraw
  const fresh = game.moves.length !== drawnMoves || game.id !== drawnGame;
  drawnMoves = game.moves.length; drawnGame = game.id;
  renderBoard($("board"), game, { onAction: canClick ? playHuman : null, lastAction: fresh ? game.last_action : null, viewer: game.viewer });
  const list = $("move-list");
  // each line's number is an element of its own, as wide as it needs (a list marker is cut at 100)
  list.replaceChildren(...game.moves.map((m, k) => {
    const mover = game.movers ? game.movers[k] : -1;
    const item = el("li");
    item.dataset.mover = String(mover);
    const number = el("span", "move-no", String(k + 1));
    const text = el("span", "move-text");
    if (mover >= 0) {
      const swatch = el("span", "seat-swatch");
      if (game.player_colors && game.player_colors[mover]) swatch.style.background = game.player_colors[mover];
      text.append(swatch, `${playerName(game, mover)}: ${m}`);
    } else {
      text.append(m === "chance" ? "chance" : `chance: ${m}`);
    }
    item.append(number, text);
    return item;
  }));
  list.scrollTop = list.scrollHeight;
  const aiTurn = !game.terminal && !game.human_to_move;
  // AI vs AI steps with it; against a person it shows only when the AI's turn is left waiting (a failed reply)
  $("next-move").hidden = game.mode === "human-human" || (game.mode === "human-ai" && (!aiTurn || thinking));
  $("next-move").textContent = game.mode === "ai-ai" ? "Next move" : "Ask the AI to move";
  $("play-on").hidden = game.mode !== "ai-ai";
  $("next-move").disabled = thinking || !aiTurn;
  $("play-on").textContent = playingOn ? "Pause" : "Play on";
  $("play-on").disabled = game.terminal;
  $("undo").disabled = thinking || !game.undo; // nothing to take back, or the game is over
  const closed = treesClosed();
  $("analyse").disabled = closed !== null;
  if (!analyseFailed) {
    $("analyse-note").textContent = closed || "";
    $("analyse-note").classList.remove("error");
  }
  $("trees-back").max = Math.max(1, game.trees);
  if (Number($("trees-back").value) > game.trees && game.trees > 0) $("trees-back").value = game.trees;
  document.body.dataset.busy = thinking ? "1" : "0";
  document.body.dataset.moves = String(game.moves.length);
}

// why "Analyse trees" cannot open now, in words shown next to it; null when it can
function treesClosed() {
  if (game.trees_private) return game.trees_private;
  if (game.trees > 0) return null;
  const agents = game.seats.filter((s) => s !== "human").map((s) => s.split(":")[0]);
  if (!agents.length) return "no AI plays in this game, so there are no search trees";
  if (!agents.some((name) => (agentEntry(name) || {}).searches)) {
    const names = [...new Set(agents)];
    return `${names.join(" and ")} choose${names.length > 1 ? "" : "s"} without a search tree`;
  }
  return game.terminal ? "no AI move built a search tree in this game" : "the AI has not searched yet";
}

// the end of the game from the person's side: won, lost, drawn or shared; the scores; why it ended
function drawResult() {
  const panel = $("result-panel");
  const result = game.terminal ? game.result : null;
  panel.hidden = !result;
  if (!result) return;
  const winners = result.winners || [];
  const names = (seats) => seats.map((p) => playerName(game, p));
  const mine = game.mode === "human-ai" && game.viewer !== null && game.viewer !== undefined ? game.viewer : null;
  let headline, outcome;
  if (result.draw && Math.max(...result.returns) < 0) {
    headline = "Nobody wins"; // a game every player loses alike (Dice Wars cancels a game that stalls)
    outcome = "lost";
  } else if (result.draw) {
    headline = "Draw";
    outcome = "draw";
  } else if (mine !== null) {
    outcome = !winners.includes(mine) ? "lost" : winners.length > 1 ? "shared" : "won";
    headline = { lost: "You lost", shared: "You share the win", won: "You won" }[outcome];
  } else {
    outcome = winners.length > 1 ? "shared" : "won";
    headline = winners.length > 1 ? `${names(winners).join(" and ")} share the win` : `${names(winners)[0]} wins`;
  }
  $("result").textContent = headline;
  panel.dataset.outcome = outcome;
  const scores = scoresOf(game);
  const table = $("result-scores");
  table.replaceChildren();
  table.hidden = !scores;
  if (scores) {
    table.appendChild(el("caption", "", scores.label));
    scores.values.forEach((value, p) => {
      const row = el("tr");
      row.dataset.seat = String(p);
      if (winners.includes(p)) row.className = "winner";
      const who = el("td");
      const swatch = el("span", "seat-swatch");
      if (game.player_colors && game.player_colors[p]) swatch.style.background = game.player_colors[p];
      who.append(swatch, playerName(game, p) + (p === mine ? " (you)" : ""));
      row.append(who, el("td", "score", String(value)));
      table.appendChild(row);
    });
  }
  const reason = result.reason ? `${result.reason[0].toUpperCase()}${result.reason.slice(1)}` : "";
  $("result-reason").textContent = reason && !/[.!?]$/.test(reason) ? `${reason}.` : reason;
  $("result-reason").hidden = !result.reason;
}

async function playHuman(action) {
  const id = shownId;
  if (busy() || !id) return;
  if (await forGame(id, "POST", "/move", { action })) await maybeAiMove(id);
}

// in human-vs-AI the AI answers by itself; in AI-vs-AI only when playing on
async function maybeAiMove(id) {
  const wanted = () => id === shownId && document.body.dataset.view === "game" && game && game.id === id &&
    !game.terminal && !game.human_to_move && (game.mode === "human-ai" || playingOn) && !inFlight.get(id);
  while (wanted()) {
    if (!(await forGame(id, "POST", "/ai-move"))) break;
  }
  if (id === shownId && game && game.id === id) {
    if (game.terminal) playingOn = false;
    drawGame();
  }
}

async function nextMove() {
  const id = shownId;
  if (busy() || !game || game.id !== id || game.terminal || game.human_to_move) return;
  await forGame(id, "POST", "/ai-move");
}

// resolves once no request of game `id` is in flight (the AI moves only from a settled view)
function settled(id) {
  return new Promise((resolve) => {
    const check = () => (inFlight.get(id) ? setTimeout(check, 20) : resolve());
    check();
  });
}

async function playOn() {
  playingOn = !playingOn;
  drawGame();
  // pressed while the page still loads the game (after a rematch, say): play on once it has it
  if (playingOn) {
    const id = shownId;
    await settled(id);
    await maybeAiMove(id);
  }
}

async function undo() {
  const id = shownId;
  if (busy() || !id) return;
  playingOn = false;
  if (await forGame(id, "POST", "/undo")) await maybeAiMove(id);
}

function download(blob, name) {
  const a = el("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

async function exportRecord() {
  const id = shownId;
  try {
    const record = await api("GET", `/api/games/${id}/record`);
    showError("game-error", "");
    download(new Blob([JSON.stringify(record, null, 1)], { type: "application/json" }), `${game.game}-${id}.json`);
  } catch (err) {
    if (err.status === 404) gone(err.message);
    else showError("game-error", err.message);
  }
}

// the AI settings to play a position of `gameName` against: the seat's agent of the game the
// tree came from, else the menu's defaults for that game
function aiFor(gameName, fromGame) {
  if (fromGame && fromGame.game === gameName) {
    const spec = fromGame.seats.find((s) => s !== "human");
    if (spec) return { spec };
  }
  const entry = gameEntry(gameName);
  if (!entry) return { agent: "random" };
  const settings = defaultSettings(entry);
  const agent = agentEntry(settings.agent);
  const ai = { agent: settings.agent };
  for (const [key, value] of Object.entries(settings)) {
    if (key === "agent" || !agent || !agent.options.some((o) => o.name === key)) continue;
    if (key === "eval" && value === (entry.default_evaluator || "none")) continue;
    ai[key] = value;
  }
  return ai;
}

// a new game from a position of a tree: the person moves first there, against an AI
async function playFrom(spec, position, gameName, fromGame) {
  const token = ++nav;
  try {
    status("starting…");
    // no human_seat: the person takes the seat to move in that position
    const view = await api("POST", "/api/games", { game: spec, mode: "human-ai", ai: aiFor(gameName, fromGame), position });
    if (token !== nav) return;
    setRoute(`game/${view.id}`);
    await openGame(view.id, view);
  } catch (err) {
    if (token === nav) status(err.message, true);
  }
}

// ------------------------------------------------------------------ tree viewer
let viewer = null;

function getViewer() {
  if (!viewer) {
    viewer = new TreeViewer({ canvas: $("tree-canvas"), api, status, download, errorText });
    window.__viewer = viewer; // for the browser tests and the first-frame benchmark
  }
  return viewer;
}

function analyseError(message) {
  analyseFailed = true;
  $("analyse-note").textContent = message;
  $("analyse-note").classList.add("error");
}

async function analyse() {
  const id = shownId;
  let trees;
  analyseFailed = false;
  try {
    trees = await api("GET", `/api/games/${id}/trees`);
  } catch (err) {
    if (id !== shownId) return;
    if (err.status === 404) return gone(err.message);
    return analyseError(err.message);
  }
  if (id !== shownId) return;
  if (!trees.length) return analyseError("no AI move has built a tree yet");
  const back = Math.max(1, Math.min(trees.length, Number($("trees-back").value) || 1));
  const from = trees[trees.length - back].index, to = trees[trees.length - 1].index;
  window.__analyseClickedAt = performance.now();
  setRoute(`game/${id}/trees/${from}-${to}/${to}`);
  await openGameTrees(id, from, to, to, trees);
}

// the viewer on trees from..to of game `id`, showing tree `at` (server indices)
async function openGameTrees(id, from, to, at, trees = null) {
  const token = ++nav;
  if (shownId !== id) playingOn = false;
  shownId = id;
  abortOthers(id);
  if (!trees) {
    try {
      trees = await api("GET", `/api/games/${id}/trees`);
    } catch (err) {
      if (token !== nav) return;
      setRoute(`game/${id}`, true);
      if (err.status === 404) return gone(err.message);
      return status(err.message, true);
    }
    if (token !== nav) return;
    if (!game || game.id !== id) {
      try {
        game = await api("GET", `/api/games/${id}`);
      } catch (_) { /* the trees are still worth showing */ }
      if (token !== nav) return;
    }
  }
  const chosen = trees.filter((t) => t.index >= from && t.index <= to);
  if (!chosen.length) {
    // the trees are gone (undone, or dropped by the server's memory bound): back to the game
    setRoute(`game/${id}`, true);
    await openGame(id);
    status("those trees are no longer kept; analyse again", true);
    return;
  }
  const fromGame = game && game.id === id ? game : null;
  const base = `/api/games/${id}/trees`;
  const sequence = chosen.map((t) => ({
    title: `move ${t.ply + 1}: ${t.player_name} plays ${t.move} (${t.agent})`,
    nodes: t.nodes,
    data: `${base}/${t.index}/data`,
    node: (i) => `${base}/${t.index}/nodes/${i}`,
    export: (fmt) => `${base}/${t.index}/export?format=${fmt}`,
    stem: `${fromGame ? fromGame.game : "tree"}-move${t.ply + 1}`,
    route: `game/${id}/trees/${from}-${to}/${t.index}`,
    viewerSeat: fromGame ? fromGame.viewer : null,
    fromGame,
  }));
  let position = chosen.findIndex((t) => t.index === at);
  if (position < 0) position = sequence.length - 1;
  show("viewer");
  status("");
  await getViewer().open(sequence, position, {
    onBack: () => { setRoute(`game/${id}`); openGame(id); },
    onPlayFrom: playFrom,
    onShow: (item) => { if (token === nav) setRoute(item.route, true); },
  });
}

const uploadNames = (id) => {
  try {
    return JSON.parse(sessionStorage.getItem(`boardlab-upload:${id}`) || "null");
  } catch (_) {
    return null;
  }
};

async function uploadFiles(files) {
  const list = [...files];
  if (!list.length) return;
  const token = ++nav;
  const ids = [];
  showError("upload-error", "");
  try {
    for (const file of list) {
      status(`uploading ${file.name}…`);
      const response = await fetch(`/api/uploads?name=${encodeURIComponent(file.name)}`, { method: "POST", body: file });
      if (!response.ok) throw new Error(`${file.name}: ${await errorText(response)}`);
      const data = await response.json();
      try {
        sessionStorage.setItem(`boardlab-upload:${data.id}`, JSON.stringify({ name: file.name, nodes: data.nodes }));
      } catch (_) { /* storage full or off: titles show the id after a reload */ }
      ids.push(data.id);
    }
    status("");
  } catch (err) {
    if (token === nav) {
      status("");
      showError("upload-error", err.message);
    }
    return;
  } finally {
    $("tree-files").value = "";
  }
  if (token !== nav) return;
  setRoute(`files/${ids.join(",")}/0`);
  await openUploads(ids, 0);
}

async function openUploads(ids, at) {
  const token = ++nav;
  shownId = null;
  playingOn = false;
  const sequence = ids.map((id, k) => {
    const known = uploadNames(id) || {};
    const name = known.name || `${id}.tree`;
    return {
      id,
      title: name,
      nodes: known.nodes,
      data: `/api/uploads/${id}/data` + (k > 0 ? `?prev=${ids[k - 1]}` : ""),
      node: (i) => `/api/uploads/${id}/nodes/${i}`,
      export: (fmt) => `/api/uploads/${id}/export?format=${fmt}`,
      stem: name.replace(/\.[^.]*$/, "") || "tree",
      route: `files/${ids.join(",")}/${k}`,
    };
  });
  show("viewer");
  status("");
  await getViewer().open(sequence, Math.min(Math.max(0, at), sequence.length - 1), {
    onBack: () => { setRoute(""); showMenu(); },
    onPlayFrom: playFrom,
    onShow: (item) => { if (token === nav) setRoute(item.route, true); },
  });
}

// ------------------------------------------------------------------ wiring
window.addEventListener("DOMContentLoaded", async () => {
  show("menu");
  document.body.dataset.dropped = "0";
  $("new-game").addEventListener("submit", startGame);
  $("next-move").addEventListener("click", nextMove);
  $("play-on").addEventListener("click", playOn);
  $("undo").addEventListener("click", undo);
  $("export-record").addEventListener("click", exportRecord);
  $("analyse").addEventListener("click", () => analyse().catch((err) => analyseError(err.message)));
  $("rematch").addEventListener("click", rematch);
  $("new-game-button").addEventListener("click", () => { setRoute(""); showMenu(); });
  $("tree-files").addEventListener("change", (e) => uploadFiles(e.target.files));
  const toMenu = (e) => { e.preventDefault(); setRoute(""); showMenu(); };
  $("home").addEventListener("click", toMenu);
  $("gone-menu").addEventListener("click", toMenu);
  try {
    await loadMenu();
  } catch (err) {
    status(`cannot reach the server: ${err.message}`, true);
    return;
  }
  window.addEventListener("popstate", onLocation);
  window.addEventListener("hashchange", onLocation);
  routed = here();
  document.body.dataset.ready = "1";
  await applyRoute(routed);
});
