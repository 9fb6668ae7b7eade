// Connect Four's board for the browser (declared in ConnectFour.game_type.renderer).
// render(container, view, opts): view.board is the grid, top row first (-1 empty, 0 / 1 a disc);
// opts.onAction(action) makes legal columns clickable; opts.lastAction drops the newest disc in;
// view.observation.winning_cells ([[row, col], ...], row 0 the top) marks the winning line.
import { addStyle, el } from "/static/boardkit.js";

const STYLE = `
/* columns of holes in a blue frame; discs fall into place */
.c4-board { --c4-blue: #1f4fa3; --p0: #d8342c; --p1: #f2c12e; display: grid; grid-template-columns: repeat(var(--cols), 1fr); gap: 0; background: var(--c4-blue); padding: 6px; border-radius: 10px; width: min(90vw, calc(var(--cols) * 64px)); overflow: hidden; }
.c4-col { display: grid; grid-template-rows: repeat(var(--rows), 1fr); }
.c4-col.playable { cursor: pointer; }
.c4-col.playable:hover { background: #ffffff22; }
.c4-cell { aspect-ratio: 1; padding: 6%; }
.c4-cell::before { content: ""; display: none; }
.c4-cell { background: radial-gradient(circle at center, var(--bg, #f4f1ea) 0 62%, transparent 63%); }
.disc { width: 100%; height: 100%; border-radius: 50%; box-shadow: inset 0 -3px 0 #0003; }
.disc.p0 { background: var(--p0); }
.disc.p1 { background: var(--p1); }
.disc.falling { animation: fall 0.35s cubic-bezier(.5, 0, 1, 1); }
@keyframes fall { from { transform: translateY(var(--fall)); } to { transform: translateY(0); } }
.board.small .c4-board { width: 180px; padding: 3px; border-radius: 5px; margin-top: 0.6em; }
.c4-cell.win .disc { box-shadow: 0 0 0 4px #fff, 0 0 10px 5px #fff8; animation: c4-win 1s ease-in-out 3 alternate; }
@keyframes c4-win { from { transform: scale(1); } to { transform: scale(0.86); } }
`;

export default function render(container, view, opts) {
  addStyle("c4-style", STYLE);
  const grid = view.board;
  const wins = new Set(((view.observation && view.observation.winning_cells) || []).map(([r, c]) => `${r},${c}`));
  const rows = grid.length, cols = grid[0].length;
  const legal = new Map((view.legal || []).map((m) => [m.action, m]));
  const colours = view.player_colors || [];
  const board = el("div", "c4-board");
  board.style.setProperty("--cols", cols);
  board.style.setProperty("--rows", rows);
  const last = opts.lastAction;
  for (let c = 0; c < cols; c++) {
    const col = el("div", "c4-col");
    col.dataset.col = c;
    const move = legal.get(c);
    if (opts.onAction && move) {
      col.classList.add("playable");
      col.dataset.action = move.action;
      col.title = `drop a disc in column ${c + 1}`;
      col.addEventListener("click", () => opts.onAction(move.action));
    }
    let topFilled = -1;
    for (let r = 0; r < rows; r++) if (grid[r][c] >= 0) { topFilled = r; break; }
    for (let r = 0; r < rows; r++) {
      const cell = el("div", "c4-cell");
      if (wins.has(`${r},${c}`)) cell.classList.add("win");
      const v = grid[r][c];
      if (v >= 0) {
        const disc = el("div", `disc p${v}`);
        if (colours[v]) disc.style.background = colours[v];
        if (!opts.small && last === c && r === topFilled) {
          disc.classList.add("falling");
          disc.style.setProperty("--fall", `${-(r + 1) * 100}%`);
        }
        cell.appendChild(disc);
      }
      col.appendChild(cell);
    }
    board.appendChild(col);
  }
  container.appendChild(board);
}
