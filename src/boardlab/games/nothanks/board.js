// No Thanks!'s table for the browser (declared in NoThanks.game_type.renderer).
// view.board is the public table every seat sees: the face-up card and its chips, the cards
// still face down, and each player's chips and cards (runs grouped); the removed cards at the end.
import { addStyle, el } from "/static/boardkit.js";

const STYLE = `
.nothanks-table { display: flex; flex-direction: column; gap: 1em; align-items: center; min-width: min(90vw, 560px); }
.nothanks-centre { display: flex; flex-direction: column; align-items: center; gap: 0.3em; }
.nothanks-card { width: 70px; height: 100px; border-radius: 8px; background: #fff; border: 2px solid #26323f; display: flex; align-items: center; justify-content: center; font-size: 2em; font-weight: 700; box-shadow: 0 2px 4px #0003; }
.nothanks-pot, .nothanks-stack, .nothanks-removed { color: var(--muted); }
.nothanks-seats { display: flex; flex-wrap: wrap; gap: 0.6em; justify-content: center; }
.nothanks-seat { border: 3px solid #ccc; border-radius: 8px; padding: 0.4em 0.7em; background: var(--card); min-width: 140px; }
.nothanks-seat.to-move { box-shadow: 0 0 0 3px #ffd98a; }
.nothanks-seat.mine .nothanks-name::after { content: " (you)"; color: var(--muted); font-weight: 400; }
.nothanks-name { font-weight: 700; }
.nothanks-run { display: inline-flex; margin-right: 0.4em; }
.nothanks-mini { display: inline-block; min-width: 1.7em; padding: 0 2px; border: 1px solid #999; border-radius: 3px; margin-right: 1px; text-align: center; font-size: 0.85em; background: #fff; }
.board.small .nothanks-card { width: 36px; height: 50px; font-size: 1em; }
.board.small .nothanks-table { min-width: 0; gap: 0.5em; }
.board.small .nothanks-seat { min-width: 0; padding: 0.2em 0.4em; font-size: 0.8em; }
`;

// the end of a game shows each player's points: the lowest wins
export function scores(view) {
  const values = view.result && view.result.scores;
  return values ? { label: "points (lowest wins)", values } : null;
}

export default function render(container, view, opts) {
  addStyle("nothanks-style", STYLE);
  const b = view.board;
  const names = view.player_names || [];
  const colours = view.player_colors || [];
  const table = el("div", "nothanks-table");
  const centre = el("div", "nothanks-centre");
  if (b.card !== null && b.card !== undefined) {
    const card = el("div", "nothanks-card", String(b.card));
    card.dataset.card = String(b.card);
    centre.appendChild(card);
    centre.appendChild(el("div", "nothanks-pot", `${b.pot} chip${b.pot === 1 ? "" : "s"} on it`));
  }
  centre.appendChild(el("div", "nothanks-stack", `${b.stack_left} face down, ${b.removed_unseen} removed unseen`));
  if (b.removed) centre.appendChild(el("div", "nothanks-removed", `removed: ${b.removed.join(" ")}`));
  table.appendChild(centre);
  const seats = el("div", "nothanks-seats");
  b.players.forEach((p, i) => {
    const seat = el("div", "nothanks-seat");
    seat.dataset.seat = String(i);
    if (view.to_move === i) seat.classList.add("to-move");
    if (opts.viewer === i) seat.classList.add("mine");
    if (colours[i]) seat.style.borderColor = colours[i];
    seat.appendChild(el("div", "nothanks-name", names[i] || `Player ${i + 1}`));
    seat.appendChild(el("div", "nothanks-chips", `${p.chips} chips · score ${p.score}`));
    const cards = el("div", "nothanks-cards");
    for (const run of p.runs) {
      const group = el("span", "nothanks-run");
      for (const c of run) group.appendChild(el("span", "nothanks-mini", String(c)));
      cards.appendChild(group);
    }
    seat.appendChild(cards);
    seats.appendChild(seat);
  });
  table.appendChild(seats);
  container.appendChild(table);
  if (opts.onAction && view.legal && view.legal.length) {
    const buttons = el("div", "move-buttons");
    for (const m of view.legal) {
      const button = el("button", "move-button", m.label === "pass" ? "No thanks! (pass)" : "Take");
      button.dataset.action = m.action;
      button.addEventListener("click", () => opts.onAction(m.action));
      buttons.appendChild(button);
    }
    container.appendChild(buttons);
  }
}
