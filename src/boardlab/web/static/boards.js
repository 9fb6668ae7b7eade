// Board views. Each game declares its own renderer, an ES module served at
// /api/renderers/<game>.js (see GameType.renderer); this file only loads them
// and falls back to the state's text with one button per legal move.
//
// A renderer's default export is render(container, view, opts):
//   view: board, legal [{action, label, ...}], to_move, player_names, player_colors, text
//   opts: onAction(action) when the person may move, small (a thumbnail), viewer (whose view), lastAction
// It may also export scores(view) -> {label, values} | null: the scores the end of a game shows
// (by default the result's scores, when the game gives them).
import { el } from "./boardkit.js";

const renderers = new Map(); // game name -> the renderer's module (or null: none / failed)
let catalogue = { games: [] };

export function setCatalogue(meta) {
  catalogue = meta;
}

export async function ensureRenderer(game) {
  if (renderers.has(game)) return renderers.get(game);
  const entry = catalogue.games.find((g) => g.name === game);
  let module = null;
  if (entry && entry.renderer) {
    try {
      module = await import(entry.renderer);
    } catch (err) {
      console.warn(`board renderer of ${game} failed to load; showing text`, err);
    }
  }
  renderers.set(game, module);
  return module;
}

// the scores a finished game shows: {label, values} (values by seat), or null when it has none
export function scoresOf(view) {
  const module = renderers.get(view.game);
  if (module && typeof module.scores === "function") {
    try {
      const given = module.scores(view);
      if (given) return given;
    } catch (err) {
      console.warn("the renderer's scores failed", err);
    }
  }
  const scores = view.result && view.result.scores;
  return scores ? { label: "score", values: scores } : null;
}

function generic(container, view, opts) {
  container.appendChild(el("pre", "board-text", view.text || JSON.stringify(view.board)));
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

// draws synchronously when the game's renderer is loaded (ensureRenderer), else as text
export function renderBoard(container, view, opts = {}) {
  container.replaceChildren();
  container.classList.toggle("small", !!opts.small);
  const module = renderers.get(view.game);
  const draw = module && module.default;
  if (!draw || view.board == null) return generic(container, view, opts);
  try {
    draw(container, view, opts);
  } catch (err) {
    console.warn("board view failed, showing text", err);
    container.replaceChildren();
    generic(container, view, opts);
  }
}

export function playerName(view, p) {
  const names = view.player_names || [];
  return names[p] || `Player ${p + 1}`;
}
