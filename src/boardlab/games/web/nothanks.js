// No Thanks!'s table for the browser (declared in NoThanks.game_type.renderer).
// view.board is the public table every seat sees: the face-up card and its chips, the cards
// still face down, and each player's chips and cards (runs grouped); the removed cards at the end.
import { el } from "/static/boardkit.js";

// the end of a game shows each player's points: the lowest wins
export function scores(view) {
  const values = view.result && view.result.scores;
  return values ? { label: "points (lowest wins)", values } : null;
}

export default function render(container, view, opts) {
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
