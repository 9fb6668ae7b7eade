// Board views: one renderer per game, drawn as plain DOM elements.
// renderBoard(container, view, opts) draws `view.board` (the state's `board` dict
// from the server); with opts.onAction, legal moves are clickable and call
// opts.onAction(action). With opts.small the board is a thumbnail for the tree viewer.

export const PLAYER_NAMES = { connect4: ["Red", "Yellow"], mancala: ["South", "North"], chess: ["White", "Black"] };

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

// ---------------------------------------------------------------- Connect Four
function connect4(container, view, opts) {
  const grid = view.board; // rows top first; -1 empty, 0 / 1 players
  const rows = grid.length, cols = grid[0].length;
  const legal = new Map((view.legal || []).map((m) => [m.action, m]));
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
    // the newest disc in the last-played column falls in
    let topFilled = -1;
    for (let r = 0; r < rows; r++) if (grid[r][c] >= 0) { topFilled = r; break; }
    for (let r = 0; r < rows; r++) {
      const cell = el("div", "c4-cell");
      const v = grid[r][c];
      if (v >= 0) {
        const disc = el("div", `disc p${v}`);
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

// ---------------------------------------------------------------- Mancala
// board: {pits: [[...south pits, left to right], [...north pits]], stores: [s, n], to_move}
function mancala(container, view, opts) {
  const b = view.board;
  const pits = b.pits, stores = b.stores;
  const n = pits[0].length;
  const legal = new Map((view.legal || []).map((m) => [m.action, m]));
  const board = el("div", "mancala-board");
  board.style.setProperty("--pits", n);
  const store = (p) => {
    const s = el("div", `mancala-store p${p}`);
    s.appendChild(el("span", "count", String(stores[p])));
    s.title = `${PLAYER_NAMES.mancala[p]}'s store`;
    return s;
  };
  board.appendChild(store(1));
  const middle = el("div", "mancala-rows");
  for (const p of [1, 0]) {
    const row = el("div", `mancala-row p${p}`);
    // north's pits run right to left, so the sowing direction reads counter-clockwise
    const order = [...Array(n).keys()];
    if (p === 1) order.reverse();
    for (const i of order) {
      const pit = el("div", `mancala-pit p${p}`);
      pit.dataset.player = p;
      pit.dataset.pit = i;
      pit.appendChild(el("span", "count", String(pits[p][i])));
      const action = pitAction(b, p, i);
      const move = legal.get(action);
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
  board.appendChild(store(0));
  container.appendChild(board);
}

// the action that sows pit i of player p (the board may name its own numbering)
function pitAction(board, p, i) {
  if (board.actions) return board.actions[p][i];
  return i;
}

// ---------------------------------------------------------------- Chess
// the filled glyphs for both sides; the colour (white with a dark outline, or black) tells them apart
const GLYPHS = { K: "♚", Q: "♛", R: "♜", B: "♝", N: "♞", P: "♟", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };

function fenSquares(fen) {
  const rows = fen.split(" ")[0].split("/");
  const out = []; // out[rank 7..0][file 0..7]
  for (const row of rows) {
    const line = [];
    for (const ch of row) {
      if (/\d/.test(ch)) for (let k = 0; k < Number(ch); k++) line.push(null);
      else line.push(ch);
    }
    out.push(line);
  }
  return out;
}

function chess(container, view, opts) {
  const b = view.board;
  const fen = typeof b === "string" ? b : b.fen;
  const squares = fenSquares(fen);
  const board = el("div", "chess-board");
  // legal moves by their from/to squares (UCI text "e2e4", "e7e8q")
  const moves = (view.legal || []).map((m) => ({ ...m, uci: m.uci || m.label }));
  const files = "abcdefgh";
  let selected = null;
  const cells = new Map();
  const lastMove = b.last_move ? (b.last_move.uci || b.last_move) : null;
  const refresh = () => {
    for (const [name, cell] of cells) {
      cell.classList.toggle("selected", name === selected);
      const target = selected && moves.some((m) => m.uci.startsWith(selected) && m.uci.slice(2, 4) === name);
      cell.classList.toggle("target", !!target);
    }
  };
  for (let r = 0; r < 8; r++) {
    for (let f = 0; f < 8; f++) {
      const name = files[f] + String(8 - r);
      const cell = el("div", `chess-sq ${(r + f) % 2 ? "dark" : "light"}`);
      cell.dataset.square = name;
      if (lastMove && (lastMove.slice(0, 2) === name || lastMove.slice(2, 4) === name)) cell.classList.add("last");
      const piece = squares[r][f];
      if (piece) {
        const glyph = el("span", `piece ${piece === piece.toUpperCase() ? "white" : "black"}`, GLYPHS[piece]);
        glyph.dataset.piece = piece;
        cell.appendChild(glyph);
      }
      if (opts.onAction) {
        cell.addEventListener("click", () => {
          if (selected) {
            const options = moves.filter((m) => m.uci.slice(0, 2) === selected && m.uci.slice(2, 4) === name);
            if (options.length) {
              // promotions: a queen unless the person holds shift
              const pick = options.find((m) => m.uci.length === 4 || m.uci.endsWith("q")) || options[0];
              opts.onAction(pick.action);
              return;
            }
          }
          selected = moves.some((m) => m.uci.slice(0, 2) === name) ? name : null;
          refresh();
        });
      }
      cells.set(name, cell);
      board.appendChild(cell);
    }
  }
  container.appendChild(board);
}

// ---------------------------------------------------------------- anything else
function generic(container, view, opts) {
  const pre = el("pre", "board-text", view.text || JSON.stringify(view.board));
  container.appendChild(pre);
  if (opts.onAction && view.legal && view.legal.length) {
    const list = el("div", "move-buttons");
    for (const m of view.legal) {
      const button = el("button", "move-button", m.label);
      button.dataset.action = m.action;
      button.addEventListener("click", () => opts.onAction(m.action));
      list.appendChild(button);
    }
    container.appendChild(list);
  }
}

const RENDERERS = { connect4, mancala, chess };

export function renderBoard(container, view, opts = {}) {
  container.replaceChildren();
  container.classList.toggle("small", !!opts.small);
  const draw = RENDERERS[view.game];
  if (!draw || view.board == null) return generic(container, view, opts);
  try {
    draw(container, view, opts);
  } catch (err) {
    console.warn("board view failed, showing text", err);
    container.replaceChildren();
    generic(container, view, opts);
  }
}

export function playerName(game, p) {
  const names = PLAYER_NAMES[game];
  return names && names[p] ? names[p] : `Player ${p + 1}`;
}
