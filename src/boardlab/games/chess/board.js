// Chess's board for the browser (declared in Chess.game_type.renderer).
// view.board: {fen, turn, last_move: {uci, san}, check}; legal moves carry their "uci" squares.
// Black's player sees the board from Black's side (opts.viewer === 1); the files and ranks are
// written around it, turned with it.
import { addStyle, el } from "/static/boardkit.js";

const GLYPHS = { K: "♚", Q: "♛", R: "♜", B: "♝", N: "♞", P: "♟", k: "♚", q: "♛", r: "♜", b: "♝", n: "♞", p: "♟" };
const FILES = "abcdefgh";

const STYLE = `
.chess-board { display: grid; grid-template-columns: repeat(8, minmax(0, 1fr)); width: min(90vw, 480px); border: 2px solid #444; }
.chess-sq { aspect-ratio: 1; min-width: 0; overflow: hidden; line-height: 1; display: flex; align-items: center; justify-content: center; font-size: min(9vw, 46px); cursor: pointer; user-select: none; }
.chess-sq.light { background: #eeddbb; }
.chess-sq.dark { background: #b58863; }
.chess-sq.last { box-shadow: inset 0 0 0 3px #e0c04080; }
.chess-sq.check { background-image: radial-gradient(circle, #ff4d4d 0 45%, transparent 75%); }
.chess-sq.selected { box-shadow: inset 0 0 0 4px #2b5fab; }
.chess-sq.target { box-shadow: inset 0 0 0 4px #3a9a3a; }
.piece.white { color: #fff; text-shadow: 0 0 1px #000, 0 0 1px #000, 0 0 2px #000; }
.piece.black { color: #111; }
.board.small .chess-board { width: 200px; margin-top: 0.6em; }
.board.small .chess-sq { font-size: 20px; cursor: default; }
.chess-frame { display: grid; grid-template-columns: 1.2em auto; grid-template-rows: auto 1.3em; }
.chess-ranks { display: grid; grid-template-rows: repeat(8, 1fr); padding: 2px 0; }
.chess-files { display: grid; grid-template-columns: repeat(8, 1fr); grid-column: 2; padding: 0 2px; }
.chess-coord { display: flex; align-items: center; justify-content: center; color: #555; font: 600 0.85em system-ui, sans-serif; }
.board.small .chess-frame { grid-template-columns: 0.9em auto; grid-template-rows: auto 1em; }
.board.small .chess-coord { font-size: 0.7em; }
`;

function fenSquares(fen) {
  const out = []; // out[rank 7..0][file 0..7]
  for (const row of fen.split(" ")[0].split("/")) {
    const line = [];
    for (const ch of row) {
      if (/\d/.test(ch)) for (let k = 0; k < Number(ch); k++) line.push(null);
      else line.push(ch);
    }
    out.push(line);
  }
  return out;
}

export default function render(container, view, opts) {
  addStyle("chess-style", STYLE);
  const b = view.board;
  const squares = fenSquares(b.fen);
  const flipped = opts.viewer === 1;
  const board = el("div", "chess-board");
  if (flipped) board.classList.add("flipped");
  const moves = (view.legal || []).map((m) => ({ ...m, uci: m.uci || m.label }));
  let selected = null;
  const cells = new Map();
  const lastMove = b.last_move ? b.last_move.uci : null;
  const refresh = () => {
    for (const [name, cell] of cells) {
      cell.classList.toggle("selected", name === selected);
      const target = selected && moves.some((m) => m.uci.startsWith(selected) && m.uci.slice(2, 4) === name);
      cell.classList.toggle("target", !!target);
    }
  };
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const r = flipped ? 7 - row : row, f = flipped ? 7 - col : col;
      const name = FILES[f] + String(8 - r);
      const cell = el("div", `chess-sq ${(r + f) % 2 ? "dark" : "light"}`);
      cell.dataset.square = name;
      if (lastMove && (lastMove.slice(0, 2) === name || lastMove.slice(2, 4) === name)) cell.classList.add("last");
      const piece = squares[r][f];
      // the king in check, of the side to move
      if (b.check && piece === (b.turn === "black" ? "k" : "K")) cell.classList.add("check");
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
              // a promotion by clicking is a queen (type the move in the terminal for another piece)
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
  // ranks down the left, files along the bottom, in the order the squares are drawn
  const frame = el("div", "chess-frame");
  const ranks = el("div", "chess-ranks");
  const files = el("div", "chess-files");
  for (let k = 0; k < 8; k++) {
    ranks.appendChild(el("span", "chess-coord rank", String(flipped ? k + 1 : 8 - k)));
    files.appendChild(el("span", "chess-coord file", FILES[flipped ? 7 - k : k]));
  }
  frame.append(ranks, board, files);
  container.appendChild(frame);
}
