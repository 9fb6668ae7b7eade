// Kalah's board for the browser (declared in Mancala.game_type.renderer).
// view.board: {pits: [[South's pits a, b, ...], [North's pits A, B, ...]], stores: [South's, North's]}.
// The viewer's own side is drawn at the bottom (North's view turns the board round). Each pit shows
// its letter as the move list writes it (South's a, b, ..., North's A, B, ...), each store its owner.
import { addStyle, el } from "/static/boardkit.js";

const STYLE = `
.mancala-pit, .mancala-store { position: relative; flex-direction: column; }
.mancala-pit .pit-name { position: absolute; bottom: 3px; font-size: 0.55em; font-weight: 600; color: #ffe6bf; opacity: 0.9; }
.mancala-store { justify-content: center; gap: 0.2em; }
.mancala-store .store-name { font-size: 0.5em; font-weight: 600; color: #ffe6bf; writing-mode: vertical-rl; transform: rotate(180deg); }
.board.small .pit-name, .board.small .store-name { display: none; }
`;

// the end of a game shows each store: the seeds that decided it
export function scores(view) {
  return view.board && view.board.stores ? { label: "seeds in store", values: view.board.stores } : null;
}

export default function render(container, view, opts) {
  addStyle("mancala-style", STYLE);
  const b = view.board;
  const pits = b.pits, stores = b.stores;
  const n = pits[0].length;
  const names = view.player_names || ["South", "North"];
  const colours = view.player_colors || [];
  const legal = new Map((view.legal || []).map((m) => [m.action, m]));
  const bottom = opts.viewer === 1 ? 1 : 0, top = 1 - bottom;
  const board = el("div", "mancala-board");
  board.style.setProperty("--pits", n);
  const store = (p) => {
    const s = el("div", `mancala-store p${p}`);
    s.appendChild(el("span", "store-name", `${names[p]}'s store`));
    s.appendChild(el("span", "count", String(stores[p])));
    s.title = `${names[p]}'s store`;
    if (colours[p]) s.style.borderColor = colours[p];
    return s;
  };
  board.appendChild(store(top));
  const middle = el("div", "mancala-rows");
  for (const p of [top, bottom]) {
    const row = el("div", `mancala-row p${p}`);
    if (colours[p]) row.style.setProperty("--seat", colours[p]);
    // the far row runs right to left, so sowing reads counter-clockwise from the near side
    const order = [...Array(n).keys()];
    if (p === top) order.reverse();
    for (const i of order) {
      const pit = el("div", `mancala-pit p${p}`);
      pit.dataset.player = p;
      pit.dataset.pit = i;
      const letter = String.fromCharCode((p === 0 ? 97 : 65) + i);
      pit.title = `${names[p]}'s pit ${letter}`;
      pit.appendChild(el("span", "count", String(pits[p][i])));
      pit.appendChild(el("span", "pit-name", letter));
      const move = legal.get(i);
      if (opts.onAction && move && view.to_move === p) {
        pit.classList.add("playable");
        pit.dataset.action = move.action;
        pit.addEventListener("click", () => opts.onAction(move.action));
      }
      row.appendChild(pit);
    }
    middle.appendChild(row);
  }
  board.appendChild(middle);
  board.appendChild(store(bottom));
  container.appendChild(board);
}
