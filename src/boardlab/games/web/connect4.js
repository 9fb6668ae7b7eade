// Connect Four's board for the browser (declared in ConnectFour.game_type.renderer).
// render(container, view, opts): view.board is the grid, top row first (-1 empty, 0 / 1 a disc);
// opts.onAction(action) makes legal columns clickable; opts.lastAction drops the newest disc in.
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

export default function render(container, view, opts) {
  const grid = view.board;
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
