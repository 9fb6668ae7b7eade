// What the page's modules and the board renderers share: the one el(), svg() and addStyle().
// A renderer is served from /api/renderers/<game>.js, so it imports this module by its absolute
// URL, import { el, svg, addStyle } from "/static/boardkit.js"; the page's own modules (served
// from /static/) import "./boardkit.js", the same URL, so the browser loads it once.

export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

const SVG = "http://www.w3.org/2000/svg";

export function svg(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// a renderer's CSS, added to the page once (the renderer keeps its look next to its code)
export function addStyle(id, css) {
  if (document.getElementById(id)) return;
  const style = document.createElement("style");
  style.id = id;
  style.textContent = css;
  document.head.appendChild(style);
}
