// The tree viewer: a small WebGL renderer for search trees of a million nodes and more.
//
// The server sends the tidy layout and colours as binary arrays (see
// boardlab/web/treepack.py). The viewer sorts the nodes into rows (one per
// depth, ordered by x: the tidy layout keeps preorder left to right) and
// uploads them once; every frame then draws only what can be seen:
//
// * culling: per row, the nodes whose x lies in the view are one contiguous
//   range (two bisections), and so are the edges into that row (edges are kept
//   with prefix maxima and suffix minima of their x extent);
// * level of detail: zoomed out, many nodes of a row share one pixel. Level k
//   keeps one node per bucket of 2^k layout units of a row (the earliest added,
//   so the growth animation stays right; a diff mark survives if any node of the
//   bucket has one) and one edge per pair of parent and child buckets (the
//   hottest colour of the pair). The view draws the coarsest level whose bucket
//   is at most a pixel wide, so the picture is the same, at a fraction of the work.
//
// Zoom and pan change two uniforms and the ranges. Picking a node bisects the
// full rows of its depth.
import { el } from "./boardkit.js";
import { ensureRenderer, renderBoard } from "./boards.js";

const $ = (id) => document.getElementById(id);

// Colours come with each tree (the header's "colours", from boardlab.trees.colors,
// shared with the PNG renderer): node = player to move, edge = the child's visits
// on a log scale, rings = added / changed since the previous tree. These are
// only used until the first tree arrives.
const DEFAULT_COLOURS = {
  players: ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"],
  chance: "#e600e6", terminal: "#6e6e6e", unknown: "#c8c8c8",
  edges: ["#f0f921", "#fca636", "#e16462", "#b12a90", "#0d0887"], added: "#00c850", changed: "#ffbe00",
};
// the packed player codes (boardlab/web/treepack.py): a seat, or one of these
export const CHANCE_CODE = 252, TERMINAL_CODE = 253, UNKNOWN_CODE = 255;
// zoom: never smaller than the whole tree fitted to the canvas, never larger than this
// many pixels between neighbouring leaves (a node is then drawn at its largest)
export const MAX_PX_PER_UNIT = 240;
const MAX_POINT = 14;

const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);

const NODE_VS = `
attribute vec2 a_pos; attribute float a_player; attribute float a_created; attribute float a_diff;
uniform vec4 u_view; uniform vec2 u_size; uniform float u_limit; uniform float u_point; uniform float u_showDiff;
uniform vec3 u_palette[11];
varying vec3 v_color; varying float v_flag; varying float v_kind; varying float v_shape;
void main() {
  vec2 s = a_pos * u_view.xy + u_view.zw;
  gl_Position = vec4(s.x / u_size.x * 2.0 - 1.0, 1.0 - s.y / u_size.y * 2.0, 0.0, 1.0);
  if (a_created > u_limit) gl_Position = vec4(4.0, 4.0, 4.0, 1.0);
  float flag = (u_showDiff > 0.5 && a_diff > 0.5) ? 1.0 : 0.0;
  v_kind = a_diff;
  gl_PointSize = u_point * (1.0 + 0.6 * flag);
  // palette: 8 seats, then chance, game over, unknown; shapes: seat and unknown round, chance a diamond, game over a square
  int idx = a_player > 254.5 ? 10 : (a_player > 252.5 ? 9 : (a_player > 251.5 ? 8 : int(mod(a_player + 0.5, 8.0))));
  v_shape = (a_player > 251.5 && a_player < 252.5) ? 1.0 : ((a_player > 252.5 && a_player < 253.5) ? 2.0 : 0.0);
  v_color = u_palette[idx]; v_flag = flag;
}`;
const NODE_FS = `
precision mediump float;
varying vec3 v_color; varying float v_flag; varying float v_kind; varying float v_shape;
uniform float u_round; uniform vec3 u_new; uniform vec3 u_changed;
void main() {
  if (u_round < 0.5 && v_flag < 0.5) { gl_FragColor = vec4(v_color, 1.0); return; }
  vec2 d = abs(gl_PointCoord - 0.5);
  float r = v_shape > 1.5 ? max(d.x, d.y) : (v_shape > 0.5 ? d.x + d.y : length(d));
  if (u_round > 0.5 && r > 0.5) discard;
  if (v_flag > 0.5 && r > 0.3) gl_FragColor = vec4(v_kind < 1.5 ? u_new : u_changed, 1.0);
  else if (u_round > 0.5 && r > 0.36) gl_FragColor = vec4(v_color * 0.55, 1.0); // a darker rim: light seats show on white
  else gl_FragColor = vec4(v_color, 1.0);
}`;
const EDGE_VS = `
attribute vec2 a_pos; attribute float a_heat; attribute float a_created;
uniform vec4 u_view; uniform vec2 u_size; uniform float u_limit;
uniform vec3 u_stops[5];
varying vec3 v_color;
void main() {
  vec2 s = a_pos * u_view.xy + u_view.zw;
  gl_Position = vec4(s.x / u_size.x * 2.0 - 1.0, 1.0 - s.y / u_size.y * 2.0, 0.0, 1.0);
  if (a_created > u_limit) gl_Position = vec4(4.0, 4.0, 4.0, 1.0);
  float t = clamp(a_heat, 0.0, 1.0) * 4.0;
  vec3 c = mix(u_stops[0], u_stops[1], clamp(t, 0.0, 1.0));
  c = mix(c, u_stops[2], clamp(t - 1.0, 0.0, 1.0));
  c = mix(c, u_stops[3], clamp(t - 2.0, 0.0, 1.0));
  c = mix(c, u_stops[4], clamp(t - 3.0, 0.0, 1.0));
  v_color = c;
}`;
const EDGE_FS = `
precision mediump float; varying vec3 v_color;
void main() { gl_FragColor = vec4(v_color, 1.0); }`;

function compile(gl, vs, fs) {
  const program = gl.createProgram();
  for (const [type, source] of [[gl.VERTEX_SHADER, vs], [gl.FRAGMENT_SHADER, fs]]) {
    const shader = gl.createShader(type);
    gl.shaderSource(shader, source);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader));
    gl.attachShader(program, shader);
  }
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
  const loc = {};
  const nAttr = gl.getProgramParameter(program, gl.ACTIVE_ATTRIBUTES);
  for (let i = 0; i < nAttr; i++) { const a = gl.getActiveAttrib(program, i); loc[a.name] = gl.getAttribLocation(program, a.name); }
  const nUni = gl.getProgramParameter(program, gl.ACTIVE_UNIFORMS);
  for (let i = 0; i < nUni; i++) { const u = gl.getActiveUniform(program, i); const name = u.name.replace(/\[0\]$/, ""); loc[name] = gl.getUniformLocation(program, u.name); }
  return { program, loc };
}

// the server's packed tree: magic, header length, JSON header, aligned arrays
export function parsePackedTree(buffer) {
  const view = new DataView(buffer);
  const magic = String.fromCharCode(...new Uint8Array(buffer, 0, 4));
  if (magic !== "BLT1") throw new Error("not a packed tree");
  const length = view.getUint32(4, true);
  const header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 8, length)));
  const start = 8 + length;
  const types = { float32: Float32Array, int32: Int32Array, uint32: Uint32Array, uint8: Uint8Array };
  const arrays = {};
  for (const spec of header.arrays) arrays[spec.name] = new types[spec.dtype](buffer, start + spec.offset, spec.count);
  return { header, arrays };
}

// first index in [lo, hi) whose value is >= v (values non-decreasing there)
function lowerBound(values, lo, hi, v) {
  while (lo < hi) { const mid = (lo + hi) >> 1; if (values[mid] < v) lo = mid + 1; else hi = mid; }
  return lo;
}
// first index in [lo, hi) whose value is > v
function upperBound(values, lo, hi, v) {
  while (lo < hi) { const mid = (lo + hi) >> 1; if (values[mid] <= v) lo = mid + 1; else hi = mid; }
  return lo;
}

// per row of edges: running maximum of each edge's right end, running minimum (from the row's end) of its left end;
// the edges that can touch [xa, xb] are then one range: from the first whose max reaches xa to the last whose min is <= xb
function edgeExtents(epos, eStart, rows) {
  const m = epos.length / 4;
  const hi = new Float32Array(m), lo = new Float32Array(m);
  for (let d = 0; d < rows; d++) {
    let top = -Infinity;
    for (let j = eStart[d]; j < eStart[d + 1]; j++) {
      const a = epos[4 * j], b = epos[4 * j + 2];
      top = Math.max(top, a > b ? a : b);
      hi[j] = top;
    }
    let bottom = Infinity;
    for (let j = eStart[d + 1] - 1; j >= eStart[d]; j--) {
      const a = epos[4 * j], b = epos[4 * j + 2];
      bottom = Math.min(bottom, a < b ? a : b);
      lo[j] = bottom;
    }
  }
  return { hi, lo };
}

// level 0: every node, in rows by depth, each row ordered by x; one edge per node but the root, in its row
export function buildRows({ n, x, y, parent, player, heat, created, diff }) {
  const depth = new Int32Array(n);
  let rows = n ? 1 : 0;
  for (let i = 1; i < n; i++) { const d = depth[parent[i]] + 1; depth[i] = d; if (d + 1 > rows) rows = d + 1; }
  const nStart = new Int32Array(rows + 1);
  for (let i = 0; i < n; i++) nStart[depth[i] + 1]++;
  for (let d = 0; d < rows; d++) nStart[d + 1] += nStart[d];
  const fill = nStart.slice(0, rows);
  let order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[fill[depth[i]]++] = i;
  // preorder is left to right in a tidy layout; sort a row only if it is not
  for (let d = 0; d < rows; d++) {
    let sorted = true;
    for (let k = nStart[d] + 1; k < nStart[d + 1]; k++) if (x[order[k]] < x[order[k - 1]]) { sorted = false; break; }
    if (!sorted) order.set(Array.from(order.subarray(nStart[d], nStart[d + 1])).sort((a, b) => x[a] - x[b]), nStart[d]);
  }
  const rowY = new Float32Array(rows);
  for (let d = 0; d < rows; d++) rowY[d] = y[order[nStart[d]]];
  const nx = new Float32Array(n), pos = new Float32Array(2 * n), player8 = new Uint8Array(n);
  const created32 = created ? new Float32Array(n) : null, diff8 = diff ? new Uint8Array(n) : null;
  for (let k = 0; k < n; k++) {
    const i = order[k];
    nx[k] = x[i]; pos[2 * k] = x[i]; pos[2 * k + 1] = y[i]; player8[k] = player[i];
    if (created32) created32[k] = created[i];
    if (diff8) diff8[k] = diff[i];
  }
  // edge j = into the node at row position j + 1 (the root, alone in row 0, has none)
  const m = Math.max(0, n - 1);
  const eStart = new Int32Array(rows + 1);
  for (let d = 0; d <= rows; d++) eStart[d] = Math.max(0, nStart[d] - 1);
  const epos = new Float32Array(4 * m), eheat = new Uint8Array(2 * m), ecreated = created ? new Float32Array(2 * m) : null;
  for (let k = 1; k < n; k++) {
    const i = order[k], p = parent[i], j = k - 1;
    epos[4 * j] = x[p]; epos[4 * j + 1] = y[p]; epos[4 * j + 2] = x[i]; epos[4 * j + 3] = y[i];
    eheat[2 * j] = eheat[2 * j + 1] = heat[i];
    if (ecreated) ecreated[2 * j] = ecreated[2 * j + 1] = created[i];
  }
  const { hi, lo } = edgeExtents(epos, eStart, rows);
  return {
    order, rowY, rows,
    level: { bucket: 0, rows, nStart, nx, pos, player: player8, created: created32, diff: diff8,
      eStart, epos, eheat, ecreated, ehi: hi, elo: lo, buffers: null },
  };
}

// level k from a finer one: one node per bucket of `bucket` layout units in each row, one edge per (parent bucket, child bucket)
export function coarsen(src, bucket) {
  const rows = src.rows;
  const cap = src.nx.length, ecap = src.epos.length / 4;
  const nStart = new Int32Array(rows + 1), nx = new Float32Array(cap), pos = new Float32Array(2 * cap), player = new Uint8Array(cap);
  const created = src.created ? new Float32Array(cap) : null, diff = src.diff ? new Uint8Array(cap) : null;
  let m = 0;
  for (let d = 0; d < rows; d++) {
    nStart[d] = m;
    let current = NaN;
    for (let j = src.nStart[d]; j < src.nStart[d + 1]; j++) {
      const b = Math.floor(src.nx[j] / bucket);
      if (b !== current) {
        current = b;
        nx[m] = src.nx[j]; pos[2 * m] = src.pos[2 * j]; pos[2 * m + 1] = src.pos[2 * j + 1]; player[m] = src.player[j];
        if (created) created[m] = src.created[j];
        if (diff) diff[m] = src.diff[j];
        m++;
      } else {
        const k = m - 1;
        if (created && src.created[j] < created[k]) {
          // the bucket shows its earliest node, so that it appears when the first of them does
          nx[k] = src.nx[j]; pos[2 * k] = src.pos[2 * j]; pos[2 * k + 1] = src.pos[2 * j + 1]; player[k] = src.player[j];
          created[k] = src.created[j];
        }
        if (diff && src.diff[j] > diff[k]) diff[k] = src.diff[j];
      }
    }
  }
  nStart[rows] = m;
  const eStart = new Int32Array(rows + 1), epos = new Float32Array(4 * ecap), eheat = new Uint8Array(2 * ecap);
  const ecreated = src.ecreated ? new Float32Array(2 * ecap) : null;
  let e = 0;
  for (let d = 0; d < rows; d++) {
    eStart[d] = e;
    let cb = NaN, pb = NaN;
    for (let j = src.eStart[d]; j < src.eStart[d + 1]; j++) {
      const c = Math.floor(src.epos[4 * j + 2] / bucket), p = Math.floor(src.epos[4 * j] / bucket);
      if (c !== cb || p !== pb) {
        cb = c; pb = p;
        epos[4 * e] = src.epos[4 * j]; epos[4 * e + 1] = src.epos[4 * j + 1];
        epos[4 * e + 2] = src.epos[4 * j + 2]; epos[4 * e + 3] = src.epos[4 * j + 3];
        eheat[2 * e] = eheat[2 * e + 1] = src.eheat[2 * j];
        if (ecreated) ecreated[2 * e] = ecreated[2 * e + 1] = src.ecreated[2 * j];
        e++;
      } else {
        const k = e - 1;
        if (src.eheat[2 * j] > eheat[2 * k]) eheat[2 * k] = eheat[2 * k + 1] = src.eheat[2 * j];
        if (ecreated && src.ecreated[2 * j] < ecreated[2 * k]) {
          epos[4 * k] = src.epos[4 * j]; epos[4 * k + 1] = src.epos[4 * j + 1];
          epos[4 * k + 2] = src.epos[4 * j + 2]; epos[4 * k + 3] = src.epos[4 * j + 3];
          ecreated[2 * k] = ecreated[2 * k + 1] = src.ecreated[2 * j];
        }
      }
    }
  }
  eStart[rows] = e;
  const eposUsed = epos.slice(0, 4 * e);
  const { hi, lo } = edgeExtents(eposUsed, eStart, rows);
  return {
    bucket, rows, nStart, nx: nx.slice(0, m), pos: pos.slice(0, 2 * m), player: player.slice(0, m),
    created: created ? created.slice(0, m) : null, diff: diff ? diff.slice(0, m) : null,
    eStart, epos: eposUsed, eheat: eheat.slice(0, 2 * e), ecreated: ecreated ? ecreated.slice(0, 2 * e) : null,
    ehi: hi, elo: lo, buffers: null,
  };
}

// once on the GPU, and once every coarser level is made from it, a level's vertex arrays are not needed:
// culling reads only nStart, nx, eStart, ehi and elo
function releaseArrays(level) {
  level.pos = level.player = level.created = level.diff = level.epos = level.eheat = level.ecreated = null;
}

// half-open index ranges, adjacent ones joined
function pushRange(ranges, lo, hi) {
  if (hi <= lo) return;
  const last = ranges[ranges.length - 1];
  if (last && last[1] === lo) last[1] = hi;
  else ranges.push([lo, hi]);
}

export class TreeViewer {
  constructor({ canvas, api, status, download, errorText }) {
    this.canvas = canvas;
    this.api = api;
    this.status = status;
    this.download = download;
    this.errorText = errorText || (async (r) => `${r.status} ${r.statusText}`);
    this.sequence = [];
    this.index = 0;
    this.tree = null;
    this.view = { sx: 1, sy: 1, x0: 0, y0: 0 };
    this.fitView = null;
    this.limit = Infinity;
    this.selected = -1;
    this.frames = 0;
    this.pending = false;
    this.loads = 0;
    this.lastFrame = null;
    this.colours = DEFAULT_COLOURS;
    this.lod = true; // false: draw every node and edge at every zoom (for comparisons)
    const gl = canvas.getContext("webgl2", { antialias: false, preserveDrawingBuffer: false }) ||
      canvas.getContext("webgl", { antialias: false, preserveDrawingBuffer: false });
    if (!gl) throw new Error("this browser has no WebGL");
    this.gl = gl;
    this.nodeProgram = compile(gl, NODE_VS, NODE_FS);
    this.edgeProgram = compile(gl, EDGE_VS, EDGE_FS);
    this.bindUi();
    new ResizeObserver(() => this.resize()).observe(canvas);
  }

  // ---------------------------------------------------------------- UI
  bindUi() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener("wheel", (e) => {
      e.preventDefault();
      const r = c.getBoundingClientRect();
      const lines = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1;
      this.zoom(Math.exp(Math.max(-20, Math.min(20, -e.deltaY * lines * 0.0015))), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    c.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, moved: 0 };
      c.setPointerCapture(e.pointerId);
      c.classList.add("dragging");
    });
    c.addEventListener("pointermove", (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.moved += Math.abs(dx) + Math.abs(dy);
      drag.x = e.clientX; drag.y = e.clientY;
      this.view.x0 += dx; this.view.y0 += dy;
      this.keepInView();
      this.requestDraw();
    });
    c.addEventListener("pointerup", (e) => {
      c.classList.remove("dragging");
      if (drag && drag.moved < 4) {
        const r = c.getBoundingClientRect();
        const node = this.pick(e.clientX - r.left, e.clientY - r.top);
        if (node >= 0) this.select(node);
      }
      drag = null;
    });
    $("zoom-in").addEventListener("click", () => this.zoom(1.5));
    $("zoom-out").addEventListener("click", () => this.zoom(1 / 1.5));
    $("centre").addEventListener("click", () => { this.fit(); this.requestDraw(); });
    $("tree-prev").addEventListener("click", () => this.go(this.index - 1));
    $("tree-next").addEventListener("click", () => this.go(this.index + 1));
    $("show-diff").addEventListener("change", () => this.requestDraw());
    $("animate").addEventListener("click", () => this.animate());
    $("export-png").addEventListener("click", () => this.exportPng());
    $("export-full-png").addEventListener("click", () => this.exportFile("png"));
    $("export-csv").addEventListener("click", () => this.exportFile("csv"));
    $("export-bin").addEventListener("click", () => this.exportFile("tree"));
    $("viewer-back").addEventListener("click", () => { this.stopAnimation(); if (this.onBack) this.onBack(); });
    window.addEventListener("keydown", (e) => {
      if ($("viewer").hidden || ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
      if (e.key === "ArrowLeft") this.go(this.index - 1);
      else if (e.key === "ArrowRight") this.go(this.index + 1);
      else if (e.key === "+" || e.key === "=") this.zoom(1.5);
      else if (e.key === "-") this.zoom(1 / 1.5);
    });
  }

  // show `sequence` (items: title, nodes, data, node(i), export(fmt), stem, ...) from `index`
  async open(sequence, index, { onBack, onPlayFrom, onShow } = {}) {
    this.sequence = sequence;
    this.onBack = onBack;
    this.onPlayFrom = onPlayFrom;
    this.onShow = onShow;
    await this.go(index, true);
  }

  showTitle(index, nodes) {
    const item = this.sequence[index];
    const text = `${index + 1}/${this.sequence.length}: ${item.title}`;
    const count = nodes === undefined || nodes === null ? "" : `${Number(nodes).toLocaleString("en")} node${nodes === 1 ? "" : "s"}`;
    $("tree-title-text").textContent = text;
    $("tree-title-nodes").textContent = count;
    $("tree-title").title = count ? `${text} — ${count}` : text;
  }

  async go(index, force = false) {
    if (index < 0 || index >= this.sequence.length || (!force && index === this.index)) return;
    this.stopAnimation();
    const load = ++this.loads; // a later go() wins over this one
    this.index = index;
    const item = this.sequence[index];
    $("tree-prev").disabled = index === 0;
    $("tree-next").disabled = index === this.sequence.length - 1;
    this.showTitle(index, item.nodes);
    if (this.onShow) this.onShow(item);
    document.body.dataset.treeReady = "";
    this.status("loading tree…");
    const t0 = performance.now();
    const timings = {};
    try {
      const response = await fetch(item.data);
      if (!response.ok) throw new Error(await this.errorText(response));
      const buffer = await response.arrayBuffer();
      if (load !== this.loads) return;
      timings.fetch = performance.now() - t0;
      this.load(parsePackedTree(buffer));
      timings.load = performance.now() - t0 - timings.fetch;
      this.status("");
    } catch (err) {
      if (load === this.loads) this.status(err.message, true);
      return;
    }
    this.showTitle(index, this.tree.n);
    this.selected = -1;
    $("selection-ring").hidden = true;
    const panel = $("node-details");
    delete panel.dataset.node;
    delete panel.dataset.loaded;
    panel.replaceChildren(el("p", "hint", "Click a node to see its state and statistics."));
    this.resize(false);
    this.fit();
    const t1 = performance.now();
    this.drawNow();
    this.gl.readPixels(0, 0, 1, 1, this.gl.RGBA, this.gl.UNSIGNED_BYTE, new Uint8Array(4)); // wait for the GPU
    window.__firstFrameAt = performance.now();
    timings.draw = window.__firstFrameAt - t1;
    window.__treeTimings = timings; // where the first frame's time went (for the benchmark)
    this.prepareLevels();
    document.body.dataset.treeReady = String(index);
    document.body.dataset.treeNodes = String(this.tree.n);
  }

  // ---------------------------------------------------------------- data
  load({ header, arrays }) {
    const n = header.nodes;
    const { x, y, parent, player, heat } = arrays;
    const created = arrays.created || null;
    const diff = arrays.diff || null;
    this.freeBuffers();
    clearTimeout(this.levelTimer);
    document.body.dataset.levels = "";
    const { order, rowY, rows, level } = buildRows({ n, x, y, parent, player, heat, created, diff });
    // levels[k] keeps one node per 2^k layout units of a row; made when first needed (see levelFor)
    const [xmin, xmax] = header.bounds;
    const top = Math.max(0, Math.ceil(Math.log2(Math.max(1, xmax - xmin))));
    const levels = new Array(top + 1).fill(null);
    levels[0] = level;
    this.tree = { n, header, x, y, created, order, rowY, rows, levels };
    this.colours = header.colours || DEFAULT_COLOURS;
    this.limit = Infinity;
    $("animate").disabled = header.max_created === null || header.max_created === undefined;
    $("animate").title = $("animate").disabled ? "this tree does not record when its nodes were added (files do not store it)" : "grow the tree in the order the search added nodes";
    this.drawLegend();
  }

  freeBuffers() {
    if (!this.tree) return;
    for (const level of this.tree.levels) {
      if (!level || !level.buffers) continue;
      for (const buffer of Object.values(level.buffers)) if (buffer) this.gl.deleteBuffer(buffer);
      level.buffers = null;
    }
  }

  // a level's arrays on the GPU, uploaded the first time it is drawn
  levelBuffers(level) {
    if (level.buffers) return level.buffers;
    const gl = this.gl;
    const upload = (data) => {
      if (!data) return null;
      const buffer = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
      gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
      return buffer;
    };
    level.buffers = {
      pos: upload(level.pos), player: upload(level.player), created: upload(level.created), diff: upload(level.diff),
      epos: upload(level.epos), eheat: upload(level.eheat), ecreated: upload(level.ecreated),
    };
    if (this.tree.levels.every(Boolean)) releaseArrays(level);
    return level.buffers;
  }

  swatchFor(code) {
    const c = this.colours;
    if (code === CHANCE_CODE || code === -1) return { colour: c.chance || DEFAULT_COLOURS.chance, shape: "chance" };
    if (code === TERMINAL_CODE || code === -4) return { colour: c.terminal || DEFAULT_COLOURS.terminal, shape: "terminal" };
    if (code >= 0 && code < CHANCE_CODE) return { colour: c.players[code % c.players.length], shape: "seat" };
    return { colour: c.unknown || DEFAULT_COLOURS.unknown, shape: "seat" };
  }

  swatch(code, colour) {
    const found = this.swatchFor(code);
    const sw = el("span", `swatch ${found.shape}`);
    sw.style.background = colour || found.colour;
    return sw;
  }

  drawLegend() {
    const h = this.tree.header;
    const legend = $("legend");
    const top = Math.max(1, h.max_visits);
    const at = (t) => Math.round(Math.expm1(t * Math.log1p(top)));
    const colours = this.colours;
    legend.replaceChildren();
    const title = el("div", "", "edge colour: visits (log scale)");
    const bar = el("div", "bar");
    bar.style.background = `linear-gradient(to right, ${colours.edges.join(", ")})`;
    const ticks = el("div", "ticks");
    for (const t of [0, 0.5, 1]) ticks.appendChild(el("span", "", String(at(t))));
    const who = el("div", "legend-nodes", h.players_inferred ? "node (file names no game: alternating by depth): " : "node: ");
    for (const entry of h.legend || []) {
      const item = el("span", "legend-entry");
      item.dataset.code = String(entry.code);
      item.append(this.swatch(h.players_inferred ? 0 : entry.code, entry.colour), document.createTextNode(entry.label));
      who.appendChild(item);
    }
    legend.append(title, bar, ticks, who);
    if (h.meta && h.meta.has_previous) {
      const d = el("div", "legend-diff");
      const ring = (colour, text) => {
        const sw = el("span", "swatch ring");
        sw.style.borderColor = colour;
        return [sw, document.createTextNode(text)];
      };
      d.append(...ring(colours.added, "new since the previous tree"), ...ring(colours.changed, "visits changed"));
      legend.appendChild(d);
    }
  }

  paletteUniform() {
    const c = this.colours;
    const seats = [];
    for (let k = 0; k < 8; k++) seats.push(c.players[k % c.players.length]);
    return [...seats, c.chance || DEFAULT_COLOURS.chance, c.terminal || DEFAULT_COLOURS.terminal, c.unknown || DEFAULT_COLOURS.unknown].flatMap(rgb);
  }

  // ---------------------------------------------------------------- view
  resize(redraw = true) {
    if (!this.canvas.clientWidth || !this.canvas.clientHeight) return; // hidden: keep the view for later
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(this.canvas.clientWidth * dpr)), h = Math.max(1, Math.round(this.canvas.clientHeight * dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w; this.canvas.height = h;
    }
    if (redraw && this.tree) {
      if (this.fitView && this.view.sx <= this.fitView.sx) this.fit(); // still the whole tree: keep it fitted
      else this.computeFit();
      this.requestDraw();
    }
  }

  // the view that shows the whole tree, centred (not applied)
  computeFit() {
    const [xmin, xmax, ymax] = this.tree.header.bounds;
    const W = Math.max(1, this.canvas.clientWidth), H = Math.max(1, this.canvas.clientHeight), pad = 24;
    const sx = Math.max(1e-9, Math.min(60, (W - 2 * pad) / Math.max(1, xmax - xmin)));
    const sy = Math.max(1e-9, Math.min(90, (H - 2 * pad) / Math.max(1, ymax)));
    this.fitView = { sx, sy, x0: pad - xmin * sx + (W - 2 * pad - (xmax - xmin) * sx) / 2, y0: pad + (H - 2 * pad - ymax * sy) / 2 };
    return this.fitView;
  }

  fit() {
    if (!this.tree) return;
    this.view = { ...this.computeFit() };
    this.fitSy = this.view.sy;
  }

  // zoom by `factor` about (px, py) (CSS pixels; default: the centre), between the whole tree and MAX_PX_PER_UNIT
  zoom(factor, px, py) {
    if (!this.tree || !Number.isFinite(factor) || factor <= 0) return;
    const fitted = this.fitView || this.computeFit();
    const W = this.canvas.clientWidth, H = this.canvas.clientHeight;
    if (px === undefined) { px = W / 2; py = H / 2; }
    const v = this.view;
    const maxSx = Math.max(fitted.sx, MAX_PX_PER_UNIT);
    const sx = Math.min(maxSx, v.sx * factor);
    if (sx <= fitted.sx) { // as small as the whole tree: show the whole tree
      this.fit();
      this.requestDraw();
      return;
    }
    const wx = (px - v.x0) / v.sx, wy = (py - v.y0) / v.sy;
    // search trees are far wider than deep: past 120 px per level only x keeps zooming
    const sy = Math.max(fitted.sy, Math.min(Math.max(120, fitted.sy), v.sy * (sx / v.sx)));
    v.sx = sx; v.sy = sy;
    v.x0 = px - wx * v.sx; v.y0 = py - wy * v.sy;
    this.keepInView();
    this.requestDraw();
  }

  // some of the tree always stays on the canvas
  keepInView() {
    if (!this.tree) return;
    const [xmin, xmax, ymax] = this.tree.header.bounds;
    const v = this.view, W = this.canvas.clientWidth, H = this.canvas.clientHeight, keep = 40;
    const left = xmin * v.sx + v.x0, right = xmax * v.sx + v.x0, top = v.y0, bottom = ymax * v.sy + v.y0;
    if (right < keep) v.x0 += keep - right;
    if (left > W - keep) v.x0 -= left - (W - keep);
    if (bottom < keep) v.y0 += keep - bottom;
    if (top > H - keep) v.y0 -= top - (H - keep);
  }

  toScreen(i) {
    const v = this.view;
    return [this.tree.x[i] * v.sx + v.x0, this.tree.y[i] * v.sy + v.y0];
  }

  pointSize() {
    return Math.max(2, Math.min(MAX_POINT, Math.min(this.view.sx, this.view.sy) * 0.55));
  }

  // the node nearest to a point on the canvas (CSS pixels), or -1
  pick(px, py) {
    if (!this.tree) return -1;
    const t = this.tree, v = this.view, rows = t.levels[0];
    const tol = Math.max(6, this.pointSize());
    const wy = (py - v.y0) / v.sy, wx = (px - v.x0) / v.sx;
    let best = -1, bestD = tol;
    const d0 = lowerBound(t.rowY, 0, t.rows, wy - tol / v.sy);
    for (let d = d0; d < t.rows && t.rowY[d] <= wy + tol / v.sy; d++) {
      const a = lowerBound(rows.nx, rows.nStart[d], rows.nStart[d + 1], wx);
      for (let k = Math.max(rows.nStart[d], a - 2); k < Math.min(rows.nStart[d + 1], a + 2); k++) {
        const i = t.order[k];
        if (t.created && t.created[i] > this.limit) continue;
        const [sx, sy] = this.toScreen(i);
        const dist = Math.hypot(sx - px, sy - py);
        if (dist < bestD) { bestD = dist; best = i; }
      }
    }
    return best;
  }

  requestDraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.drawNow(); });
  }

  // the level to draw: the coarsest whose bucket is at most a pixel wide (made now from the
  // nearest finer level when it does not exist yet)
  levelFor(sx) {
    const levels = this.tree.levels;
    let k = 0;
    while (this.lod && k + 1 < levels.length && 2 ** (k + 1) * sx <= 1) k++;
    return this.level(k);
  }

  level(k) {
    const levels = this.tree.levels;
    if (!levels[k]) {
      let j = k - 1;
      while (!levels[j]) j--;
      levels[k] = coarsen(levels[j], 2 ** k);
    }
    return levels[k];
  }

  // after the first frame: the other levels, one per idle moment, each from the one below, so zooming never waits
  prepareLevels() {
    clearTimeout(this.levelTimer);
    const tree = this.tree;
    const next = () => {
      if (this.tree !== tree) return;
      const k = tree.levels.findIndex((level) => !level);
      if (k < 0) {
        for (const level of tree.levels) if (level.buffers) releaseArrays(level);
        document.body.dataset.levels = "ready";
        return;
      }
      this.level(k);
      this.levelTimer = setTimeout(next, 0);
    };
    this.levelTimer = setTimeout(next, 0);
  }

  // the index ranges of `level` that can show inside the canvas
  visibleRanges(level, point) {
    const t = this.tree, v = this.view;
    const W = this.canvas.clientWidth, H = this.canvas.clientHeight;
    const mx = (point + 2) / v.sx, my = (point + 2) / v.sy;
    const xa = -v.x0 / v.sx - mx, xb = (W - v.x0) / v.sx + mx;
    const ya = -v.y0 / v.sy - my, yb = (H - v.y0) / v.sy + my;
    const d0 = lowerBound(t.rowY, 0, t.rows, ya), d1 = upperBound(t.rowY, 0, t.rows, yb); // rows d0..d1-1 in view
    const nodes = [], edges = [];
    for (let d = d0; d < d1; d++) {
      const s = level.nStart[d], e = level.nStart[d + 1];
      pushRange(nodes, lowerBound(level.nx, s, e, xa), upperBound(level.nx, s, e, xb));
    }
    // edges into row d run from row d-1 to row d
    for (let d = Math.max(1, d0); d < Math.min(t.rows, d1 + 1); d++) {
      const s = level.eStart[d], e = level.eStart[d + 1];
      pushRange(edges, lowerBound(level.ehi, s, e, xa), upperBound(level.elo, s, e, xb));
    }
    return { nodes, edges };
  }

  drawNow() {
    const gl = this.gl, t = this.tree;
    if (!t) return;
    const dpr = window.devicePixelRatio || 1;
    gl.viewport(0, 0, this.canvas.width, this.canvas.height);
    gl.clearColor(1, 1, 1, 1);
    gl.clear(gl.COLOR_BUFFER_BIT);
    const v = this.view;
    const size = [this.canvas.clientWidth, this.canvas.clientHeight];
    const showDiff = $("show-diff").checked ? 1 : 0;
    const limit = this.limit === Infinity ? 3.0e38 : this.limit;
    const point = this.pointSize();
    const level = this.levelFor(v.sx);
    const buffers = this.levelBuffers(level);
    const { nodes, edges } = this.visibleRanges(level, point * 1.6);
    const attrib = (loc, buffer, count, type, normalized, constant = 0) => {
      if (loc === undefined || loc < 0) return;
      if (!buffer) { gl.disableVertexAttribArray(loc); gl.vertexAttrib1f(loc, constant); return; }
      gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
      gl.enableVertexAttribArray(loc);
      gl.vertexAttribPointer(loc, count, type, normalized, 0, 0);
    };
    const common = (prog) => {
      gl.useProgram(prog.program);
      gl.uniform4f(prog.loc.u_view, v.sx, v.sy, v.x0, v.y0);
      gl.uniform2f(prog.loc.u_size, size[0], size[1]);
      gl.uniform1f(prog.loc.u_limit, limit);
      if (prog.loc.u_showDiff) gl.uniform1f(prog.loc.u_showDiff, showDiff);
      if (prog.loc.u_new) gl.uniform3fv(prog.loc.u_new, rgb(this.colours.added));
      if (prog.loc.u_changed) gl.uniform3fv(prog.loc.u_changed, rgb(this.colours.changed));
    };
    let edgeCount = 0, nodeCount = 0;
    // edges: one draw call per visible range
    const e = this.edgeProgram;
    common(e);
    gl.uniform3fv(e.loc.u_stops, this.colours.edges.flatMap(rgb));
    attrib(e.loc.a_pos, buffers.epos, 2, gl.FLOAT, false);
    attrib(e.loc.a_heat, buffers.eheat, 1, gl.UNSIGNED_BYTE, true);
    attrib(e.loc.a_created, buffers.ecreated, 1, gl.FLOAT, false);
    for (const [lo, hi] of edges) { gl.drawArrays(gl.LINES, 2 * lo, 2 * (hi - lo)); edgeCount += hi - lo; }
    for (const name of ["a_pos", "a_heat", "a_created"]) if (e.loc[name] >= 0) gl.disableVertexAttribArray(e.loc[name]);
    // nodes: one draw call per visible range
    const p = this.nodeProgram;
    common(p);
    gl.uniform1f(p.loc.u_point, point * dpr);
    gl.uniform1f(p.loc.u_round, point >= 4 ? 1 : 0);
    gl.uniform3fv(p.loc.u_palette, this.paletteUniform());
    attrib(p.loc.a_pos, buffers.pos, 2, gl.FLOAT, false);
    attrib(p.loc.a_player, buffers.player, 1, gl.UNSIGNED_BYTE, false);
    attrib(p.loc.a_created, buffers.created, 1, gl.FLOAT, false);
    attrib(p.loc.a_diff, buffers.diff, 1, gl.UNSIGNED_BYTE, false);
    for (const [lo, hi] of nodes) { gl.drawArrays(gl.POINTS, lo, hi - lo); nodeCount += hi - lo; }
    for (const name of ["a_pos", "a_player", "a_created", "a_diff"]) if (p.loc[name] >= 0) gl.disableVertexAttribArray(p.loc[name]);
    this.frames++;
    this.lastFrame = { bucket: level.bucket, nodes: nodeCount, edges: edgeCount, calls: nodes.length + edges.length };
    document.body.dataset.frames = String(this.frames);
    this.placeRing();
  }

  placeRing() {
    const ring = $("selection-ring");
    if (this.selected < 0 || !this.tree) { ring.hidden = true; return; }
    const [sx, sy] = this.toScreen(this.selected);
    const size = Math.round(Math.max(18, this.pointSize() * 1.6 + 10)); // around the node and its diff ring
    ring.hidden = false;
    ring.style.left = `${sx}px`;
    ring.style.top = `${sy}px`;
    ring.style.width = ring.style.height = `${size}px`;
    ring.style.margin = `${-size / 2}px 0 0 ${-size / 2}px`;
  }

  // ---------------------------------------------------------------- node details
  async select(i) {
    this.selected = i;
    this.placeRing();
    const panel = $("node-details");
    panel.dataset.node = String(i);
    const load = this.loads, item = this.sequence[this.index];
    const current = () => this.selected === i && this.loads === load;
    try {
      const info = await this.api("GET", item.node(i));
      if (!current()) return;
      panel.replaceChildren();
      panel.appendChild(el("h3", "", i === 0 ? "Root" : `Node ${i}`));
      const dl = el("dl");
      const toMove = info.player >= 0 && info.player < CHANCE_CODE ? (info.player_name || `Player ${info.player + 1}`)
        : info.player === -1 ? "chance" : info.player === -4 ? "nobody (game over)" : "—";
      const rows = [
        ["Move", info.move || "—", "move"],
        ["Path", info.path.length ? info.path.join(" ") : "(root)", "path"],
        ["Depth", info.depth, "depth"],
        ["Visits", info.visits, "visits"],
        ["Wins", info.wins, "wins"],
        ["Mean payout", info.mean_payout.toFixed(4), "mean"],
        ["To move", toMove, "player"],
        ["Children", info.children, "children"],
      ];
      if (info.created !== null && info.created !== undefined) rows.push(["Added at iteration", info.created, "created"]);
      for (const [k, val, key] of rows) {
        dl.appendChild(el("dt", "", k));
        const dd = el("dd", "", String(val));
        dd.dataset.field = key;
        if (key === "path") dd.className = "path";
        if (key === "player" && info.player !== -3) dd.prepend(this.swatch(info.player));
        dl.appendChild(dd);
      }
      panel.appendChild(dl);
      const board = info.board;
      if (board) {
        await ensureRenderer(board.game);
        if (!current()) return;
        const box = el("div", "board small");
        box.id = "node-board";
        const header = this.tree.header;
        const seat = item.viewerSeat;
        renderBoard(box, { ...board, player_names: header.player_names, player_colors: header.player_colors, legal: [] },
          { small: true, viewer: seat === undefined ? null : seat });
        panel.appendChild(box);
        if (board.playable && this.onPlayFrom) {
          const play = el("button", "", "Play from here");
          play.id = "play-from-here";
          play.title = "start a new game from this position against the AI";
          play.addEventListener("click", () => this.onPlayFrom(board.spec, info.notation, board.game, item.fromGame));
          panel.appendChild(play);
        }
      }
      if (info.state) {
        panel.append(el("div", "state-caption", "Position, in the game's notation"), el("div", "state-label", info.state));
      }
      panel.dataset.loaded = String(i);
    } catch (err) {
      if (current()) this.status(err.message, true);
    }
  }

  // ---------------------------------------------------------------- growth animation
  animate() {
    const t = this.tree;
    if (!t) return;
    const top = t.header.max_created;
    if (top === null || top === undefined) { this.status("this tree does not record when its nodes were added", true); return; }
    this.stopAnimation();
    const duration = 6000;
    const start = performance.now();
    document.body.dataset.animating = "1";
    const step = (now) => {
      const f = Math.min(1, (now - start) / duration);
      this.limit = f >= 1 ? Infinity : top * f;
      this.drawNow();
      if (f < 1) this.animation = requestAnimationFrame(step);
      else { this.animation = null; document.body.dataset.animating = "0"; }
    };
    this.limit = 0;
    this.animation = requestAnimationFrame(step);
  }

  stopAnimation() {
    if (this.animation) cancelAnimationFrame(this.animation);
    const was = this.animation;
    this.animation = null;
    this.limit = Infinity;
    document.body.dataset.animating = "0";
    if (was) this.requestDraw();
  }

  // ---------------------------------------------------------------- export
  // every export of one tree is named alike: <stem>.png (as drawn), <stem>-full.png (the server's
  // rendering of the whole tree), <stem>.csv and <stem>.tree; stem: <game>-move<N> or the file's name
  exportName(kind) {
    const stem = this.sequence[this.index].stem || "tree";
    return { png: `${stem}.png`, "full-png": `${stem}-full.png`, csv: `${stem}.csv`, tree: `${stem}.tree` }[kind];
  }

  exportPng() {
    this.drawNow();
    const name = this.exportName("png");
    this.canvas.toBlob((blob) => {
      this.download(blob, name);
      document.body.dataset.exported = name;
    }, "image/png");
  }

  async exportFile(fmt) {
    const item = this.sequence[this.index];
    const name = this.exportName(fmt === "png" ? "full-png" : fmt);
    this.status(`exporting ${name}…`);
    try {
      const response = await fetch(item.export(fmt));
      if (!response.ok) throw new Error(await this.errorText(response));
      this.download(await response.blob(), name);
      this.status("");
      document.body.dataset.exported = name;
    } catch (err) {
      this.status(`${name}: ${err.message}`, true);
    }
  }
}
