// Connect Four's board for the browser (declared in ConnectFour.game_type.renderer).
// render(container, view, opts): view.board is the grid, top row first (-1 empty, 0 / 1 a disc);
// opts.onAction(action) makes legal columns clickable; opts.lastAction drops the newest disc in;
// view.observation.winning_cells ([[row, col], ...], row 0 the top) marks the winning line.
import { addStyle, el } from "/static/boardkit.js";

const STYLE = `
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
