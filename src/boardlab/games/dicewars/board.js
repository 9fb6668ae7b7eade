// Dice Wars' board for the browser (declared in DiceWars.game_type.renderer).
// view.board (DiceWarsState.observation): map {width, height, areas: [[x, y] hexes], adjacent},
// owner, dice, reserve, player, largest_region, areas_owned, total_dice, last_battle {from, to, player,
// won, attack: [faces], defence: [faces]}, placed {player, areas}, end ...
// view.legal: [{action, label, from, to, win_probability, attack_dice, defence_dice} | {action: 0, end_turn}].
// A person clicks an own area (it must be able to attack), then a target: each target shows its win
// probability before the roll. "End turn" ends the turn. The last roll's dice are shown, and the
// dice just placed by a reinforcement pulse for a moment.
import { addStyle, el, svg } from "/static/boardkit.js";

const SIZE = 10; // hex radius in SVG units
const SQ3 = Math.sqrt(3);
let selected = null; // {game, area}: the source the person picked, kept across redraws
let drawn = { id: null, moves: -1 }; // what was drawn last, to animate only what is new

// the end of a game shows each player's largest region of connected areas (the engine's score)
export function scores(view) {
  const values = view.result && view.result.scores;
  return values ? { label: "largest region", values } : null;
}

const STYLE = `
/* the map takes the room the panel beside it leaves (and folds above it in a narrow window) */
.dw-wrap { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; align-self: stretch; justify-content: center; }
.dw-map { flex: 1 1 440px; max-width: 720px; min-width: 0; height: auto; background: #1d3557; border-radius: 8px; }
.board.small .dw-map { width: 100%; }
.dw-hex { stroke: none; }
.dw-border { stroke: #222; stroke-width: 1.4; stroke-linecap: round; fill: none; pointer-events: none; }
.dw-border.selected { stroke: #fff; stroke-width: 2.6; }
.dw-border.target { stroke: #111; stroke-width: 2; stroke-dasharray: 2 1.5; }
.dw-area { cursor: default; }
.dw-area.source, .dw-area.target { cursor: pointer; }
.dw-area.source .dw-hex { filter: brightness(1.08); }
.dw-area.selected .dw-hex { filter: brightness(1.35) saturate(1.2); }
.dw-area.target .dw-hex { filter: brightness(0.85); }
.dw-area.target:hover .dw-hex { filter: brightness(1.2); }
.dw-badge { fill: #fff; stroke: #222; stroke-width: 0.8; }
.dw-labels { pointer-events: none; }
.dw-count { font: bold 9px sans-serif; text-anchor: middle; dominant-baseline: central; pointer-events: none; }
.dw-prob { font: bold 8px sans-serif; text-anchor: middle; fill: #fff; stroke: #000; stroke-width: 1.6px;
  paint-order: stroke; pointer-events: none; }
.dw-battle-src .dw-hex, .dw-battle-dst .dw-hex { animation: dw-flash 0.6s ease-out 1; }
.dw-placed { animation: dw-pulse 0.9s ease-out 1; transform-box: fill-box; transform-origin: center; }
.dw-plus { font: bold 8px sans-serif; fill: #fff; stroke: #000; stroke-width: 1.5px; paint-order: stroke;
  text-anchor: middle; animation: dw-rise 1.2s ease-out 1 forwards; pointer-events: none; }
@keyframes dw-flash { from { filter: brightness(2); } to { filter: none; } }
@keyframes dw-pulse { 0% { transform: scale(1.6); } 100% { transform: scale(1); } }
@keyframes dw-rise { 0% { opacity: 1; transform: translateY(0); } 100% { opacity: 0; transform: translateY(-10px); } }
.dw-side { flex: 0 1 300px; display: flex; flex-direction: column; gap: 10px; align-items: flex-start; min-width: 0; font-size: 14px; }
.dw-players td:first-child { white-space: nowrap; }
.dw-players { border-collapse: collapse; }
.dw-players td, .dw-players th { padding: 2px 6px; text-align: right; }
.dw-players td:first-child, .dw-players th:first-child { text-align: left; }
.dw-players tr.to-move { font-weight: bold; outline: 2px solid #333; }
.dw-players tr.out { opacity: 0.45; text-decoration: line-through; }
.dw-swatch { display: inline-block; width: 12px; height: 12px; border: 1px solid #333; margin-right: 4px; vertical-align: middle; }
.dw-roll { display: flex; flex-direction: column; gap: 4px; }
.dw-dice { display: flex; gap: 3px; align-items: center; flex-wrap: wrap; }
.dw-die { width: 20px; height: 20px; border: 1px solid #333; border-radius: 4px; display: inline-flex;
  align-items: center; justify-content: center; font: bold 12px sans-serif; }
.dw-result.won { color: #1b7a1b; font-weight: bold; }
.dw-result.lost { color: #a11; font-weight: bold; }
.dw-hint { color: #555; }
#dw-end-turn { font-size: 15px; padding: 6px 14px; }
`;

function centre(x, y) {
  return [SIZE * SQ3 * (x + 0.5 * (y & 1)) + SIZE * SQ3 / 2 + 2, SIZE * 1.5 * y + SIZE + 2];
}

function corners(cx, cy) {
  const out = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i - 30);
    out.push([cx + SIZE * Math.cos(a), cy + SIZE * Math.sin(a)]);
  }
  return out;
}

// the neighbour across edge i (corner i to corner i+1): E, SE, SW, W, NW, NE in odd-r coordinates
function across(x, y, i) {
  const odd = y & 1;
  const d = odd
    ? [[1, 0], [1, 1], [0, 1], [-1, 0], [0, -1], [1, -1]]
    : [[1, 0], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1]];
  return [x + d[i][0], y + d[i][1]];
}

function pct(p) {
  if (p >= 0.9995) return p === 1 ? "100%" : ">99.9%";
  if (p < 0.001) return p === 0 ? "0%" : "<0.1%";
  return `${(100 * p).toFixed(p < 0.1 ? 1 : 0)}%`;
}

function dieBox(face, colour) {
  const d = el("span", "dw-die", String(face));
  d.style.background = colour || "#eee";
  return d;
}

export default function render(container, view, opts) {
  addStyle("dicewars-style", STYLE);
  const b = view.board;
  const map = b.map;
  const colours = view.player_colors || [];
  const names = view.player_names || [];
  const n = map.areas.length;
  const fresh = drawn.id !== view.id || drawn.moves !== (view.moves || []).length;
  drawn = { id: view.id, moves: (view.moves || []).length };
  // legal attacks by source, and the end-turn action
  const bySource = new Map();
  let endTurn = null;
  for (const m of view.legal || []) {
    if (m.end_turn) endTurn = m;
    else if (m.from !== undefined) {
      if (!bySource.has(m.from)) bySource.set(m.from, new Map());
      bySource.get(m.from).set(m.to, m);
    }
  }
  const clickable = !!opts.onAction && !opts.small;
  if (!clickable || !selected || selected.game !== view.id || !bySource.has(selected.area)) selected = null;
  const targets = selected ? bySource.get(selected.area) : new Map();

  const cell = new Map();
  map.areas.forEach((hexes, a) => hexes.forEach(([x, y]) => cell.set(`${x},${y}`, a)));
  const [w] = centre(map.width, 0);
  const h = SIZE * 1.5 * (map.height - 1) + 2 * SIZE + 4;
  const root = svg("svg", { class: "dw-map", viewBox: `0 0 ${w + 4} ${h}`, role: "img" });
  root.setAttribute("aria-label", "Dice Wars map");
  const borders = svg("g", {});
  const outlines = svg("g", {}); // the selected source and its targets, drawn over every other border
  const labels = svg("g", { class: "dw-labels" });
  const battle = fresh ? b.last_battle : null;
  const placed = fresh && b.placed ? new Map() : null;
  if (placed) for (const a of b.placed.areas) placed.set(a, (placed.get(a) || 0) + 1);

  map.areas.forEach((hexes, a) => {
    const g = svg("g", { class: "dw-area" });
    g.dataset.area = a;
    g.dataset.owner = b.owner[a];
    g.dataset.dice = b.dice[a];
    const fill = colours[b.owner[a]] || "#ccc";
    let sx = 0, sy = 0;
    for (const [x, y] of hexes) {
      const [cx, cy] = centre(x, y);
      sx += cx; sy += cy;
      const pts = corners(cx, cy);
      g.appendChild(svg("polygon", { class: "dw-hex", points: pts.map((p) => p.join(",")).join(" "), fill }));
      for (let i = 0; i < 6; i++) {
        const [nx, ny] = across(x, y, i);
        if (cell.get(`${nx},${ny}`) !== a) {
          const p = pts[i], q = pts[(i + 1) % 6];
          borders.appendChild(svg("line", { class: "dw-border", x1: p[0], y1: p[1], x2: q[0], y2: q[1] }));
          const mark = selected && selected.area === a ? "selected" : targets.has(a) ? "target" : null;
          if (mark) outlines.appendChild(svg("line", { class: `dw-border ${mark}`, x1: p[0], y1: p[1], x2: q[0], y2: q[1] }));
        }
      }
    }
    // the label sits on the area's hex nearest its mean position
    sx /= hexes.length; sy /= hexes.length;
    let best = null, bestD = Infinity, core = 0;
    hexes.forEach(([x, y], k) => {
      const [cx, cy] = centre(x, y);
      const d = (cx - sx) ** 2 + (cy - sy) ** 2;
      if (d < bestD) { bestD = d; best = [cx, cy]; core = k; }
    });
    g.children[core].classList.add("dw-core"); // the hex under the label: where a click surely lands
    const title = svg("title", {});
    title.textContent = `area ${a + 1}: ${names[b.owner[a]] || "player " + (b.owner[a] + 1)}, ${b.dice[a]} dice`;
    g.appendChild(title);
    const badge = svg("g", {});
    badge.appendChild(svg("rect", { class: "dw-badge", x: best[0] - 6, y: best[1] - 6, width: 12, height: 12, rx: 2.5 }));
    const count = svg("text", { class: "dw-count", x: best[0], y: best[1] + 0.5 });
    count.textContent = String(b.dice[a]);
    badge.appendChild(count);
    if (placed && placed.has(a)) {
      badge.setAttribute("class", "dw-placed");
      const plus = svg("text", { class: "dw-plus", x: best[0], y: best[1] - 8 });
      plus.textContent = `+${placed.get(a)}`;
      labels.appendChild(plus);
    }
    labels.appendChild(badge);
    if (battle && (battle.from === a || battle.to === a)) g.classList.add(battle.from === a ? "dw-battle-src" : "dw-battle-dst");
    if (clickable && bySource.has(a)) {
      g.classList.add("source");
      g.addEventListener("click", () => {
        selected = selected && selected.area === a ? null : { game: view.id, area: a };
        render(container.replaceChildren() || container, view, opts);
      });
    }
    if (selected && selected.area === a) g.classList.add("selected");
    if (targets.has(a)) {
      const m = targets.get(a);
      g.classList.add("target");
      g.dataset.action = m.action;
      g.dataset.winProbability = m.win_probability;
      const prob = svg("text", { class: "dw-prob", x: best[0], y: best[1] + 12 });
      prob.textContent = pct(m.win_probability);
      labels.appendChild(prob);
      title.textContent += ` — attack with ${m.attack_dice} against ${m.defence_dice}: wins ${pct(m.win_probability)}`;
      g.addEventListener("click", (event) => {
        event.stopPropagation();
        selected = null;
        opts.onAction(m.action);
      });
    }
    root.appendChild(g);
  });
  root.appendChild(borders);
  root.appendChild(outlines);
  root.appendChild(labels);
  const wrap = el("div", "dw-wrap");
  wrap.appendChild(root);
  if (opts.small) {
    container.appendChild(wrap);
    return;
  }

  const side = el("div", "dw-side");
  // players
  const table = el("table", "dw-players");
  const head = el("tr");
  for (const t of ["player", "areas", "dice", "region", "reserve"]) head.appendChild(el("th", "", t));
  table.appendChild(head);
  for (let p = 0; p < b.owner.length && p < view.players; p++) {
    const row = el("tr");
    row.dataset.player = p;
    if (!b.end && b.player === p) row.classList.add("to-move");
    if (!b.alive.includes(p)) row.classList.add("out");
    const name = el("td");
    const sw = el("span", "dw-swatch");
    sw.style.background = colours[p] || "#ccc";
    name.appendChild(sw);
    name.appendChild(document.createTextNode(names[p] || `Player ${p + 1}`));
    row.appendChild(name);
    for (const v of [b.areas_owned[p], b.total_dice[p], b.largest_region[p], b.reserve[p]]) row.appendChild(el("td", "", String(v)));
    table.appendChild(row);
  }
  side.appendChild(table);
  // the last roll
  const roll = el("div", "dw-roll");
  roll.id = "dw-roll";
  const lb = b.last_battle;
  if (lb) {
    roll.appendChild(el("div", "", `${names[lb.player] || "player " + (lb.player + 1)}: area ${lb.from + 1} → ${lb.to + 1}`));
    const atk = el("div", "dw-dice");
    atk.dataset.side = "attack";
    lb.attack.forEach((f) => atk.appendChild(dieBox(f, colours[lb.player])));
    atk.appendChild(el("span", "", ` = ${lb.attack_sum}`));
    const dfn = el("div", "dw-dice");
    dfn.dataset.side = "defence";
    const defender = lb.won ? null : b.owner[lb.to];
    lb.defence.forEach((f) => dfn.appendChild(dieBox(f, defender === null ? "#ddd" : colours[defender])));
    dfn.appendChild(el("span", "", ` = ${lb.defence_sum}`));
    roll.appendChild(atk);
    roll.appendChild(dfn);
    roll.appendChild(el("div", `dw-result ${lb.won ? "won" : "lost"}`, lb.won ? "attacker wins" : "defender holds (ties go to the defender)"));
  } else {
    roll.appendChild(el("div", "dw-hint", "no battle yet"));
  }
  side.appendChild(roll);
  if (b.placed && b.placed.areas.length) {
    side.appendChild(el("div", "dw-hint", `${names[b.placed.player] || "player"} got ${b.placed.areas.length} dice` +
      (b.reserve[b.placed.player] ? ` (${b.reserve[b.placed.player]} kept in reserve)` : "")));
  }
  if (clickable) {
    side.appendChild(el("div", "dw-hint", selected
      ? `area ${selected.area + 1} selected (${b.dice[selected.area]} dice): click a target — its win probability is shown on it`
      : "click one of your areas with 2 or more dice, then an enemy area next to it"));
    if (endTurn) {
      const button = el("button", "", "End turn");
      button.id = "dw-end-turn";
      button.dataset.action = endTurn.action;
      button.addEventListener("click", () => { selected = null; opts.onAction(endTurn.action); });
      side.appendChild(button);
    }
  }
  if (b.end) side.appendChild(el("div", "dw-result", view.observation && view.observation.result ? view.observation.result : b.end));
  side.appendChild(el("div", "dw-hint", `battles ${b.battles} · turns ${b.turns} · rounds without a battle ${Math.floor(b.quiet / Math.max(1, b.alive.length))}/8`));
  wrap.appendChild(side);
  container.appendChild(wrap);
}
