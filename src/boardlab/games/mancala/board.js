// Kalah's board for the browser (declared in Mancala.game_type.renderer).
// view.board: {pits: [[South's pits a, b, ...], [North's pits A, B, ...]], stores: [South's, North's]}.
// The viewer's own side is drawn at the bottom (North's view turns the board round). Each pit shows
// its letter as the move list writes it (South's a, b, ..., North's A, B, ...), each store its owner.
import { addStyle, el } from "/static/boardkit.js";

const STYLE = `
/* two rows of pits between two stores; each row wears its seat's colour */
.mancala-board { display: flex; gap: 10px; background: #a0703c; padding: 12px; border-radius: 40px; }
.mancala-rows { display: flex; flex-direction: column; gap: 10px; }
.mancala-row { display: flex; gap: 10px; }
.mancala-pit, .mancala-store { background: #6e4622; color: #fff; border-radius: 50%; width: 62px; height: 62px; display: flex; align-items: center; justify-content: center; font-size: 1.3em; font-weight: 600; box-shadow: inset 0 3px 6px #0006; }
.mancala-store { height: auto; border-radius: 32px; }
.mancala-pit.playable { cursor: pointer; outline: 3px solid #ffd98a; }
.mancala-pit.playable:hover { background: #8a5a2e; }
.board.small .mancala-pit, .board.small .mancala-store { width: 26px; height: 26px; font-size: 0.75em; }
.board.small .mancala-store { height: auto; }
.board.small .mancala-board, .board.small .mancala-rows, .board.small .mancala-row { gap: 3px; padding: 4px; }
.mancala-row { border-bottom: 4px solid var(--seat, transparent); padding-bottom: 4px; }
.mancala-store { border: 3px solid transparent; }
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
