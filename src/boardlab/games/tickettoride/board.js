// Ticket to Ride's board for the browser (declared in TicketToRide.game_type.renderer).
//
// view.board is what state.observation(seat) gives the seat: the map (cities with their latitude and
// longitude, tracks with colour and length), who owns each track, the face-up row, the piles'
// counts, every player's public counts and, for the viewer, its hand, tickets and ticket offer.
// view.legal lists the viewer's legal moves with action_info: {kind: faceup|deck|tickets|pass|keep|claim, ...}.
// Every decision is a click: a face-up card, the deck, the ticket pile, a route (then its payment when
// there is a choice), the tickets to keep, or "pass".
import { addStyle, el, svg } from "/static/boardkit.js";

const W = 1000, H = 640, PAD = 48;

// the end of a game shows each player's final points (routes, tickets, the longest-path bonus)
export function scores(view) {
  const values = view.result && view.result.scores;
  return values ? { label: "points", values } : null;
}

const STYLE = `
.ttr { display: flex; flex-direction: column; gap: 10px; color: inherit; font-size: 14px; width: min(860px, 94vw); }
.board-area .ttr { width: min(860px, 100%); }
.board.small .ttr { width: 100%; }
.ttr-mapbox { position: relative; }
.ttr-map { width: 100%; height: auto; background: #e9e2cf; border-radius: 10px; display: block; }
.ttr.small .ttr-side { display: none; }
.ttr-side { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-start; }
.ttr-panel { background: rgba(127,127,127,0.12); border-radius: 8px; padding: 8px 10px; flex: 1 1 260px; min-width: 0; box-sizing: border-box; }
.ttr-panel h4 { margin: 0 0 6px 0; font-size: 13px; text-transform: uppercase; letter-spacing: .04em; opacity: .75; }
.ttr-city circle { fill: #fff; stroke: #333; stroke-width: 2; }
.ttr-city text { font: 15px sans-serif; fill: #222; paint-order: stroke; stroke: #efe9d8; stroke-width: 3px; pointer-events: none; }
.ttr-city.hot circle { fill: #ffd34d; stroke: #b00; stroke-width: 3; r: 11; }
.ttr-city.hot text { font-weight: bold; }
.ttr-route rect { stroke: #3a3a3a; stroke-width: 0.8; }
.ttr-route:not(.owned) rect { opacity: .88; }
.ttr-route.closed { opacity: .25; }
.ttr-route.claimable { cursor: pointer; }
.ttr-route.claimable rect { stroke: #000; stroke-width: 2.2; opacity: 1; }
.ttr-route.claimable:hover rect { filter: brightness(1.15); stroke-width: 3; }
.ttr-route.owned rect { stroke: #111; stroke-width: 1.6; }
.ttr-route.mine.hot rect { stroke: #ffd34d; stroke-width: 3; }
.ttr-route .hit { stroke: transparent; stroke-width: 12; fill: none; pointer-events: none; }
.ttr-route.claimable .hit { pointer-events: stroke; }
.ttr-ticketline { stroke: #b00; stroke-width: 3; stroke-dasharray: 8 6; fill: none; pointer-events: none; }
.ttr-cards { display: flex; flex-wrap: wrap; gap: 5px; }
.ttr-card { width: 46px; height: 64px; border-radius: 6px; border: 2px solid #333; display: flex; align-items: flex-end;
  justify-content: center; font: bold 13px sans-serif; box-sizing: border-box; padding-bottom: 3px; color: #111; }
.ttr-card.light { color: #111; } .ttr-card.dark { color: #fff; }
.ttr-card.loco { background: conic-gradient(#d7301f, #f2cf3c, #3a9a3a, #2f6fd0, #e377c2, #d7301f) !important; color: #fff; }
.ttr-card.playable { cursor: pointer; box-shadow: 0 0 0 3px #ffd34d; }
.ttr-card.playable:hover { transform: translateY(-3px); }
.ttr-card.empty { opacity: .3; border-style: dashed; background: none; }
.ttr-pile { width: 56px; height: 64px; border-radius: 6px; border: 2px solid #333; background: repeating-linear-gradient(45deg,#555,#555 6px,#666 6px,#666 12px);
  color: #fff; font: bold 12px sans-serif; display: flex; flex-direction: column; align-items: center; justify-content: center; text-align: center; }
.ttr-pile.tickets { background: repeating-linear-gradient(45deg,#7a5a2a,#7a5a2a 6px,#8a6a3a 6px,#8a6a3a 12px); }
.ttr-pile.playable { cursor: pointer; box-shadow: 0 0 0 3px #ffd34d; }
.ttr-hand .ttr-card { width: 38px; height: 50px; font-size: 13px; }
.ttr-players table { width: 100%; border-collapse: collapse; font-size: 13px; }
.ttr-players td, .ttr-players th { padding: 2px 4px; text-align: right; }
.ttr-players td:first-child, .ttr-players th:first-child { text-align: left; }
.ttr-players tr.to-move td:first-child { font-weight: bold; }
.ttr-swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 5px; border: 1px solid #0006; vertical-align: -1px; }
.ttr-ticket { display: flex; justify-content: space-between; gap: 8px; padding: 3px 6px; border-radius: 5px; margin: 2px 0; cursor: default;
  background: #f3e7c6; color: #3b2a10; border: 1px solid #c9b27a; }
.ttr-ticket.done { background: #d6f0d0; border-color: #6aa35c; }
.ttr-ticket.failed { background: #f6d2cc; border-color: #c46a5c; }
.ttr-ticket:hover { outline: 2px solid #b00; }
.ttr-offer label { display: flex; gap: 6px; align-items: center; }
.ttr-offer .ttr-ticket { flex: 1; }
.ttr-buttons { display: flex; gap: 6px; flex-wrap: wrap; margin-top: 6px; }
.ttr-pay { position: absolute; background: #fffdf5; color: #222; border: 1px solid #444; border-radius: 8px; padding: 8px; box-shadow: 0 4px 16px #0005; z-index: 5; }
.ttr-pay button { display: block; width: 100%; margin: 3px 0; text-align: left; }
.ttr-log { font-size: 12px; max-height: 140px; overflow: auto; margin: 0; padding-left: 38px; }
.ttr-note { font-size: 13px; margin: 4px 0; }
`;


// equirectangular projection around the map's mean latitude
function projector(cities) {
  const lats = cities.map((c) => c.lat), lons = cities.map((c) => c.lon);
  const k = Math.cos(((Math.min(...lats) + Math.max(...lats)) / 2) * Math.PI / 180);
  const x0 = Math.min(...lons) * k, x1 = Math.max(...lons) * k, y0 = Math.min(...lats), y1 = Math.max(...lats);
  const scale = Math.min((W - 2 * PAD) / (x1 - x0), (H - 2 * PAD) / (y1 - y0));
  const dx = (W - (x1 - x0) * scale) / 2, dy = (H - (y1 - y0) * scale) / 2;
  return (c) => [dx + (c.lon * k - x0) * scale, dy + (y1 - c.lat) * scale];
}

function cardColour(colours, name) {
  return colours[name] || "#999";
}

function isDark(name) {
  return ["black", "blue", "green", "red"].includes(name);
}

let payMenu = null;   // the payment chooser of the route clicked last, if open

export default function render(container, view, opts) {
  addStyle("ttr-style", STYLE);
  const b = view.board;
  const map = b.map;
  const names = view.player_names || [];
  const pcol = view.player_colors || [];
  const legal = view.legal || [];
  const act = opts.onAction || null;
  const byKind = (kind) => legal.filter((m) => m.kind === kind);
  const root = el("div", "ttr" + (opts.small ? " small" : ""));
  root.dataset.phase = b.phase;
  container.appendChild(root);

  // --- the map -------------------------------------------------------------------------------
  const box = el("div", "ttr-mapbox");
  root.appendChild(box);
  const plot = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "ttr-map", role: "img", "aria-label": "Ticket to Ride map" });
  box.appendChild(plot);
  const project = projector(map.cities);
  const at = map.cities.map(project);
  const claims = new Map();  // track -> legal claim moves
  for (const m of byKind("claim")) {
    if (!claims.has(m.track)) claims.set(m.track, []);
    claims.get(m.track).push(m);
  }
  const routes = svg("g", { class: "ttr-routes" }, plot);
  const routeNodes = [];
  for (const t of map.tracks) {
    const [ax, ay] = at[t.a], [bx, by] = at[t.b];
    const len = Math.hypot(bx - ax, by - ay);
    const ux = (bx - ax) / len, uy = (by - ay) / len;
    // the two tracks of a double route side by side
    const shift = t.twin >= 0 ? (t.id < t.twin ? -5.5 : 5.5) : 0;
    const ox = -uy * shift, oy = ux * shift;
    const start = 11, usable = len - 2 * start, gap = 2.5;
    const cell = (usable - gap * (t.length - 1)) / t.length;
    const owner = b.owners[t.id];
    const sibling = t.twin >= 0 ? b.owners[t.twin] : -1;
    const closed = owner < 0 && t.twin >= 0 && sibling >= 0 && (!b.doubles_open || sibling === b.viewer);
    const g = svg("g", { class: "ttr-route", "data-track": t.id, "data-a": t.a, "data-b": t.b }, routes);
    if (owner >= 0) g.classList.add("owned");
    if (owner >= 0 && owner === b.viewer) g.classList.add("mine");
    if (closed) g.classList.add("closed");
    const angle = Math.atan2(uy, ux) * 180 / Math.PI;
    for (let i = 0; i < t.length; i++) {
      const cx = ax + ox + ux * (start + i * (cell + gap) + cell / 2), cy = ay + oy + uy * (start + i * (cell + gap) + cell / 2);
      svg("rect", {
        x: cx - cell / 2, y: cy - 4.5, width: cell, height: 9, rx: 1.5,
        fill: owner >= 0 ? (pcol[owner] || "#444") : cardColour(map.colours, t.colour),
        transform: `rotate(${angle} ${cx} ${cy})`,
      }, g);
      // a claimed space carries a train: a white dot, so that a red player's route is not a red route
      if (owner >= 0) svg("circle", { cx, cy, r: 2.6, fill: "#fff", stroke: "#0008", "stroke-width": 0.6 }, g);
    }
    const title = svg("title", {}, g);
    title.textContent = `${map.cities[t.a].name}–${map.cities[t.b].name}: ${t.length} ${t.colour}` +
      (owner >= 0 ? ` (${names[owner] || "player " + (owner + 1)})` : "");
    svg("line", { class: "hit", x1: ax + ox, y1: ay + oy, x2: bx + ox, y2: by + oy }, g);
    const moves = claims.get(t.id);
    if (act && moves) {
      g.classList.add("claimable");
      g.addEventListener("click", (event) => {
        event.stopPropagation();
        if (moves.length === 1) return act(moves[0].action);
        openPayMenu(box, plot, event, t, moves, act, map);
      });
    }
    routeNodes.push(g);
  }
  // routes that may be claimed now lie on top, so that no other route's cars take their clicks
  for (const g of routeNodes) if (g.classList.contains("claimable")) routes.appendChild(g);
  const overlay = svg("g", {}, plot);
  const cityNodes = map.cities.map((c, i) => {
    const [x, y] = at[i];
    const g = svg("g", { class: "ttr-city", "data-city": i }, plot);
    svg("circle", { cx: x, cy: y, r: 7 }, g);
    const left = x > W - 150;
    const label = svg("text", { x: left ? x - 10 : x + 10, y: y - 8, "text-anchor": left ? "end" : "start" }, g);
    label.textContent = c.name;
    return g;
  });
  if (payMenu && payMenu.parentNode !== box) payMenu = null;

  function highlight(ticket, on) {
    for (const i of [ticket.a, ticket.b]) cityNodes[i].classList.toggle("hot", on);
    for (const g of routeNodes) if (g.classList.contains("mine")) g.classList.toggle("hot", on);
    overlay.replaceChildren();
    if (on) {
      const [ax, ay] = at[ticket.a], [bx, by] = at[ticket.b];
      svg("line", { class: "ttr-ticketline", x1: ax, y1: ay, x2: bx, y2: by }, overlay);
    }
  }

  function ticketRow(ticket, extra) {
    const row = el("div", "ttr-ticket");
    if (ticket.done === true) row.classList.add("done");
    if (ticket.done === false && b.phase === "over") row.classList.add("failed");
    row.dataset.ticket = ticket.id;
    row.appendChild(el("span", "", `${ticket.from} – ${ticket.to}`));
    row.appendChild(el("b", "", `${ticket.points}${ticket.done ? " ✓" : ""}`));
    if (extra) row.appendChild(extra);
    row.addEventListener("mouseenter", () => highlight(ticket, true));
    row.addEventListener("mouseleave", () => highlight(ticket, false));
    return row;
  }

  if (opts.small) return;
  const side = el("div", "ttr-side");
  root.appendChild(side);

  // --- what the viewer must decide now --------------------------------------------------------
  const keeps = byKind("keep");
  if (act && keeps.length && b.offer && b.offer.length) {
    const panel = el("div", "ttr-panel ttr-offer");
    panel.appendChild(el("h4", "", `Keep at least ${b.keep_at_least} of these tickets`));
    const chosen = new Set();
    const keep = el("button", "primary", "Keep");
    keep.id = "ttr-keep";
    const masks = new Map(keeps.map((m) => [m.mask, m.action]));
    const refresh = () => {
      let mask = 0;
      for (const i of chosen) mask |= 1 << i;
      keep.disabled = !masks.has(mask);
      keep.dataset.mask = String(mask);
    };
    b.offer.forEach((ticket, i) => {
      const label = el("label", "");
      const box = el("input");
      box.type = "checkbox";
      box.dataset.slot = String(i);
      box.addEventListener("change", () => { if (box.checked) chosen.add(i); else chosen.delete(i); refresh(); });
      label.appendChild(box);
      label.appendChild(ticketRow(ticket));
      panel.appendChild(label);
    });
    keep.addEventListener("click", () => {
      let mask = 0;
      for (const i of chosen) mask |= 1 << i;
      if (masks.has(mask)) act(masks.get(mask));
    });
    refresh();
    const buttons = el("div", "ttr-buttons");
    buttons.appendChild(keep);
    panel.appendChild(buttons);
    side.appendChild(panel);
  }

  // --- face-up row and piles -------------------------------------------------------------------
  const row = el("div", "ttr-panel");
  row.appendChild(el("h4", "", b.phase === "second card" ? "Second card (no face-up locomotive)" : "Cards"));
  const cards = el("div", "ttr-cards");
  const faceups = byKind("faceup");
  b.face_up.forEach((name, slot) => {
    const card = el("div", "ttr-card ttr-faceup" + (name ? "" : " empty"), name ? name.slice(0, 3) : "");
    card.dataset.slot = String(slot);
    if (name && name.includes("/")) {
      // a tree node's board: its notation writes blue and black alike
      const [one, two] = name.split("/");
      card.style.background = `linear-gradient(135deg, ${cardColour(map.colours, one)} 50%, ${cardColour(map.colours, two)} 50%)`;
      card.classList.add("dark");
      card.textContent = "?";
      card.title = name.replace("/", " or ");
    } else if (name) {
      card.style.background = cardColour(map.colours, name);
      card.classList.add(isDark(name) ? "dark" : "light");
      if (name === "locomotive") card.classList.add("loco");
      card.title = name;
      const move = act && faceups.find((m) => m.card === name);
      if (move) {
        card.classList.add("playable");
        card.addEventListener("click", () => act(move.action));
      }
    }
    cards.appendChild(card);
  });
  const deck = el("div", "ttr-pile ttr-deck");
  deck.appendChild(el("span", "", "deck"));
  deck.appendChild(el("span", "", `${b.deck}`));
  deck.title = `${b.deck} cards in the deck, ${b.discards} discarded`;
  const blind = act && byKind("deck")[0];
  if (blind) {
    deck.classList.add("playable");
    deck.addEventListener("click", () => act(blind.action));
  }
  cards.appendChild(deck);
  const tpile = el("div", "ttr-pile tickets ttr-ticket-deck");
  tpile.appendChild(el("span", "", "tickets"));
  tpile.appendChild(el("span", "", `${b.tickets_left}`));
  const draw = act && byKind("tickets")[0];
  if (draw) {
    tpile.classList.add("playable");
    tpile.addEventListener("click", () => act(draw.action));
  }
  cards.appendChild(tpile);
  row.appendChild(cards);
  row.appendChild(el("div", "ttr-note", `discards: ${b.discards}` + (b.first_card ? ` · first card: ${b.first_card}` : "")));
  const pass = act && byKind("pass")[0];
  if (pass) {
    const buttons = el("div", "ttr-buttons");
    const button = el("button", "ttr-pass", "Pass (nothing else is possible)");
    button.addEventListener("click", () => act(pass.action));
    buttons.appendChild(button);
    row.appendChild(buttons);
  }
  side.appendChild(row);

  // --- the viewer's hand and tickets -------------------------------------------------------------
  if (b.hand) {
    const panel = el("div", "ttr-panel ttr-hand");
    panel.appendChild(el("h4", "", "Your cards"));
    const hand = el("div", "ttr-cards");
    for (const [name, count] of Object.entries(b.hand)) {
      if (!count) continue;
      const card = el("div", "ttr-card " + (isDark(name) ? "dark" : "light") + (name === "locomotive" ? " loco" : ""), String(count));
      card.style.background = cardColour(map.colours, name);
      card.title = `${count} ${name}`;
      card.dataset.card = name;
      hand.appendChild(card);
    }
    if (!hand.children.length) hand.appendChild(el("span", "ttr-note", "no cards"));
    panel.appendChild(hand);
    side.appendChild(panel);
    const tickets = el("div", "ttr-panel ttr-tickets");
    tickets.appendChild(el("h4", "", "Your tickets (hover to see them on the map)"));
    for (const ticket of b.tickets) tickets.appendChild(ticketRow(ticket));
    if (!b.tickets.length) tickets.appendChild(el("span", "ttr-note", "none kept yet"));
    side.appendChild(tickets);
  }

  // --- players ----------------------------------------------------------------------------------
  const players = el("div", "ttr-panel ttr-players");
  // the final scoring, when the board has it (a tree node's board, from its notation, has not)
  const over = b.phase === "over" && b.players.every((p) => p.score !== undefined);
  players.appendChild(el("h4", "", over ? "Final scores" : "Players"));
  const table = el("table");
  const head = el("tr");
  for (const h of over ? ["", "routes", "tickets", "longest", "score"] : ["", "trains", "cards", "tickets", "points"]) head.appendChild(el("th", "", h));
  table.appendChild(head);
  b.players.forEach((p, i) => {
    const tr = el("tr");
    tr.dataset.seat = String(i);
    if (view.to_move === i) tr.classList.add("to-move");
    const name = el("td");
    const swatch = el("span", "ttr-swatch");
    swatch.style.background = pcol[i] || "#888";
    name.appendChild(swatch);
    name.appendChild(document.createTextNode((names[i] || `Player ${i + 1}`) + (b.viewer === i ? " (you)" : "") + (view.to_move === i ? " ◀" : "")));
    tr.appendChild(name);
    const cells = over
      ? [p.routes, `${p.ticket_points - p.ticket_penalty} (${p.tickets_done}/${p.tickets_done + p.tickets_failed})`, `${p.longest}${p.bonus ? " +" + p.bonus : ""}`, p.score]
      : [p.trains, p.cards, p.tickets + (p.offer ? ` +${p.offer}?` : ""), p.routes];
    for (const c of cells) tr.appendChild(el("td", "", String(c)));
    table.appendChild(tr);
  });
  players.appendChild(table);
  if (b.last_round !== null && b.last_round !== undefined && !over) {
    players.appendChild(el("div", "ttr-note", `Last round: ${b.last_round} turn${b.last_round === 1 ? "" : "s"} left`));
  }
  side.appendChild(players);
  if (over) {
    const all = el("div", "ttr-panel");
    all.appendChild(el("h4", "", "Everyone's tickets"));
    b.players.forEach((p, i) => {
      all.appendChild(el("div", "ttr-note", names[i] || `Player ${i + 1}`));
      for (const ticket of p.ticket_list || []) all.appendChild(ticketRow(ticket));
    });
    side.appendChild(all);
  }

  // --- the last moves -----------------------------------------------------------------------------
  const moves = view.moves || [];
  if (moves.length) {
    const panel = el("div", "ttr-panel");
    panel.appendChild(el("h4", "", "Last moves"));
    const list = el("ol", "ttr-log");
    const first = Math.max(0, moves.length - 8);
    list.start = first + 1;
    for (let k = first; k < moves.length; k++) {
      const who = view.movers[k] >= 0 ? (names[view.movers[k]] || `Player ${view.movers[k] + 1}`) : "chance";
      list.appendChild(el("li", "", `${who}: ${moves[k]}`));
    }
    panel.appendChild(list);
    side.appendChild(panel);
  }
}

function openPayMenu(box, plot, event, track, moves, act, map) {
  if (payMenu) payMenu.remove();
  const menu = el("div", "ttr-pay");
  menu.appendChild(el("div", "ttr-note", `${map.cities[track.a].name}–${map.cities[track.b].name}: pay with`));
  for (const m of moves) {
    const parts = [];
    if (m.cards) parts.push(`${m.cards} ${m.colour}`);
    if (m.locomotives) parts.push(`${m.locomotives} locomotive${m.locomotives > 1 ? "s" : ""}`);
    const button = el("button", "", parts.join(" + "));
    button.dataset.action = String(m.action);
    button.addEventListener("click", (e) => { e.stopPropagation(); menu.remove(); payMenu = null; act(m.action); });
    menu.appendChild(button);
  }
  const cancel = el("button", "", "cancel");
  cancel.addEventListener("click", (e) => { e.stopPropagation(); menu.remove(); payMenu = null; });
  menu.appendChild(cancel);
  const rect = box.getBoundingClientRect();
  menu.style.left = `${Math.min(event.clientX - rect.left + 8, rect.width - 190)}px`;
  menu.style.top = `${event.clientY - rect.top + 8}px`;
  box.appendChild(menu);
  payMenu = menu;
}
