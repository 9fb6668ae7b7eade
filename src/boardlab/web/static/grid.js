// A board for any game played on a grid. A game declares it with
//   GameType(..., renderer="boardlab.web:static/grid.js")
// and gives, in observation()["board"]:
//   grid       [[cell, ...], ...], the top row first; a cell is a number or a short string
//   marks      optional {cell value: symbol}; "" draws nothing (an empty cell); unlisted values are written as they are
//   colors     optional {cell value: CSS colour}; by default a value that is a seat wears the seat's colour
//   highlight  optional [[row, col], ...]: cells to stress (a winning line)
// A legal move whose action_info has cell: [row, col] is a click on that cell; one with column: c a click
// anywhere in column c; every other legal move (a pass) is a button under the grid.
import { addStyle, el } from "/static/boardkit.js";

const STYLE = `
.grid-wrap { display: flex; flex-direction: column; align-items: center; gap: 0.6em; }
.grid-board { display: grid; grid-template-columns: repeat(var(--cols), var(--cell)); grid-auto-rows: var(--cell);
  gap: 2px; padding: 2px; background: #5a5a5a; border-radius: 4px; --cell: min(64px, calc(min(86vw, 560px) / var(--cols))); }
.board.small .grid-board { --cell: min(28px, calc(260px / var(--cols))); }
.grid-cell { background: #f7f3e8; display: flex; align-items: center; justify-content: center; user-select: none;
  font: 700 calc(var(--cell) * 0.6) / 1 system-ui, sans-serif; }
.grid-cell.playable { cursor: pointer; box-shadow: inset 0 0 0 2px #ffd98a; }
.grid-cell.playable:hover, .grid-cell.column-hover { background: #fff6d6; }
.grid-cell.win { background: #ffe27a; box-shadow: inset 0 0 0 3px #c58a00; }
.grid-text { font-size: 0.85em; color: var(--muted, #666); max-width: 560px; }
.grid-text pre { margin: 0.3em 0 0; }
`;

function symbol(board, value) {
  const marks = board.marks || {};
  if (Object.prototype.hasOwnProperty.call(marks, String(value))) return marks[String(value)];
  return value === null || value === undefined || value === -1 ? "" : String(value);
}

function colour(board, value, view) {
  const colors = board.colors || {};
  if (Object.prototype.hasOwnProperty.call(colors, String(value))) return colors[String(value)];
  const seats = view.player_colors || [];
  return Number.isInteger(value) && value >= 0 && value < seats.length ? seats[value] : "";
}

export default function render(container, view, opts) {
  addStyle("grid-style", STYLE);
  const b = view.board;
  const grid = b.grid;
  const rows = grid.length, cols = rows ? grid[0].length : 0;
  const byCell = new Map(), byColumn = new Map(), others = [];
  for (const m of view.legal || []) {
    if (Array.isArray(m.cell)) byCell.set(`${m.cell[0]},${m.cell[1]}`, m);
    else if (Number.isInteger(m.column)) byColumn.set(m.column, m);
    else others.push(m);
  }
  const act = opts.onAction && !opts.small ? opts.onAction : null;
  const highlight = new Set((b.highlight || []).map(([r, c]) => `${r},${c}`));
  const wrap = el("div", "grid-wrap");
  const board = el("div", "grid-board");
  board.style.setProperty("--cols", cols);
  const cells = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const value = grid[r][c];
      const cell = el("div", "grid-cell", symbol(b, value));
      cell.dataset.row = r;
      cell.dataset.col = c;
      cell.dataset.value = String(value);
      const ink = colour(b, value, view);
      if (ink) cell.style.color = ink;
      if (highlight.has(`${r},${c}`)) cell.classList.add("win");
      const move = byCell.get(`${r},${c}`) || byColumn.get(c);
      if (act && move) {
        cell.classList.add("playable");
        cell.dataset.action = move.action;
        cell.title = move.label;
        cell.addEventListener("click", () => act(move.action));
        if (byColumn.has(c)) {
          // a column move: the whole column lights up under the pointer
          cell.addEventListener("mouseenter", () => cells.filter((x) => x.dataset.col === String(c)).forEach((x) => x.classList.add("column-hover")));
          cell.addEventListener("mouseleave", () => cells.forEach((x) => x.classList.remove("column-hover")));
        }
      }
      cells.push(cell);
      board.appendChild(cell);
    }
  }
  wrap.appendChild(board);
  if (act && others.length) {
    const buttons = el("div", "move-buttons");
    for (const m of others) {
      const button = el("button", "move-button", m.label);
      button.dataset.action = m.action;
      button.addEventListener("click", () => act(m.action));
      buttons.appendChild(button);
    }
    wrap.appendChild(buttons);
  }
  if (!opts.small && view.text) {
    // the game's own text of the position: what a grid of symbols cannot say (whose piece is which)
    const details = el("details", "grid-text");
    details.appendChild(el("summary", "", "the position as text"));
    details.appendChild(el("pre", "", view.text));
    wrap.appendChild(details);
  }
  container.appendChild(wrap);
}
