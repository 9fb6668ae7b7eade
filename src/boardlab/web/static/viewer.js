// The tree viewer: a small WebGL renderer for search trees of hundreds of
// thousands of nodes. The server sends the tidy layout and colours as binary
// arrays (see boardlab/web/treepack.py); the viewer uploads them to the GPU once
// and draws every edge in one call (GL_LINES) and every node in one call
// (GL_POINTS). Zoom and pan only change two uniforms. Picking a node looks up
// the row of its depth (nodes of one depth sorted by x) and bisects it.
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
const CHANCE_CODE = 252, TERMINAL_CODE = 253;

const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);

const NODE_VS = `
attribute vec2 a_pos; attribute float a_player; attribute float a_created; attribute float a_diff;
uniform vec4 u_view; uniform vec2 u_size; uniform float u_limit; uniform float u_point; uniform float u_showDiff;
uniform vec3 u_palette[11];
varying vec3 v_color; varying float v_flag; varying float v_kind;
void main() {
  vec2 s = a_pos * u_view.xy + u_view.zw;
  gl_Position = vec4(s.x / u_size.x * 2.0 - 1.0, 1.0 - s.y / u_size.y * 2.0, 0.0, 1.0);
  if (a_created > u_limit) gl_Position = vec4(4.0, 4.0, 4.0, 1.0);
  float flag = (u_showDiff > 0.5 && a_diff > 0.5) ? 1.0 : 0.0;
  v_kind = a_diff;
  gl_PointSize = u_point * (1.0 + 0.6 * flag);
  // palette: 8 seats, then chance, game over, unknown
  int idx = a_player > 254.5 ? 10 : (a_player > 252.5 ? 9 : (a_player > 251.5 ? 8 : int(mod(a_player + 0.5, 8.0))));
  v_color = u_palette[idx]; v_flag = flag;
}`;
const NODE_FS = `
precision mediump float;
varying vec3 v_color; varying float v_flag; varying float v_kind;
uniform float u_round; uniform vec3 u_new; uniform vec3 u_changed;
void main() {
  vec2 d = gl_PointCoord - 0.5; float r = length(d);
  if (u_round > 0.5 && r > 0.5) discard;
  if (v_flag > 0.5 && r > 0.3) gl_FragColor = vec4(v_kind < 1.5 ? u_new : u_changed, 1.0); else gl_FragColor = vec4(v_color, 1.0);
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

export class TreeViewer {
  constructor({ canvas, api, status, download }) {
    this.canvas = canvas;
    this.api = api;
    this.status = status;
    this.download = download;
    this.sequence = [];
    this.index = 0;
    this.tree = null;
    this.view = { sx: 1, sy: 1, x0: 0, y0: 0 };
    this.limit = Infinity;
    this.selected = -1;
    this.frames = 0;
    this.pending = false;
    this.colours = DEFAULT_COLOURS;
    const gl = canvas.getContext("webgl2", { antialias: false, preserveDrawingBuffer: false }) ||
      canvas.getContext("webgl", { antialias: false, preserveDrawingBuffer: false });
    if (!gl) throw new Error("this browser has no WebGL");
    this.gl = gl;
    this.nodeProgram = compile(gl, NODE_VS, NODE_FS);
    this.edgeProgram = compile(gl, EDGE_VS, EDGE_FS);
    this.buffers = {};
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
      this.zoom(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
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
      if ($("viewer").hidden || e.target.tagName === "INPUT") return;
      if (e.key === "ArrowLeft") this.go(this.index - 1);
      else if (e.key === "ArrowRight") this.go(this.index + 1);
      else if (e.key === "+" || e.key === "=") this.zoom(1.5);
      else if (e.key === "-") this.zoom(1 / 1.5);
    });
  }

  async open(sequence, index, onBack, onPlayFrom) {
    this.sequence = sequence;
    this.onBack = onBack;
    this.onPlayFrom = onPlayFrom;
    await this.go(index, true);
  }

  async go(index, force = false) {
    if (index < 0 || index >= this.sequence.length || (!force && index === this.index)) return;
    this.stopAnimation();
    this.index = index;
    const item = this.sequence[index];
    $("tree-prev").disabled = index === 0;
    $("tree-next").disabled = index === this.sequence.length - 1;
    $("tree-title").textContent = `${index + 1}/${this.sequence.length}: ${item.title}`;
    document.body.dataset.treeReady = "";
    this.status("loading tree…");
    const t0 = performance.now();
    const timings = {};
    try {
      const response = await fetch(item.data);
      if (!response.ok) throw new Error((await response.json().catch(() => ({}))).detail || `tree: ${response.status}`);
      const buffer = await response.arrayBuffer();
      timings.fetch = performance.now() - t0;
      const packed = parsePackedTree(buffer);
      this.load(packed);
      timings.load = performance.now() - t0 - timings.fetch;
      this.status("");
    } catch (err) {
      this.status(err.message, true);
      return;
    }
    this.selected = -1;
    $("selection-ring").hidden = true;
    $("node-details").replaceChildren(Object.assign(document.createElement("p"), { className: "hint", textContent: "Click a node to see its state and statistics." }));
    this.resize(false);
    this.fit();
    const t1 = performance.now();
    this.drawNow();
    this.gl.readPixels(0, 0, 1, 1, this.gl.RGBA, this.gl.UNSIGNED_BYTE, new Uint8Array(4)); // wait for the GPU
    window.__firstFrameAt = performance.now();
    timings.draw = window.__firstFrameAt - t1;
    window.__treeTimings = timings; // where the first frame's time went (for the benchmark)
    document.body.dataset.treeReady = String(index);
    document.body.dataset.treeNodes = String(this.tree.n);
  }

  // ---------------------------------------------------------------- data
  load({ header, arrays }) {
    const gl = this.gl;
    const n = header.nodes;
    const { x, y, parent, player, heat } = arrays;
    const created = arrays.created ? Float32Array.from(arrays.created) : new Float32Array(n);
    const diff = arrays.diff || new Uint8Array(n);
    const pos = new Float32Array(2 * n);
    for (let i = 0; i < n; i++) { pos[2 * i] = x[i]; pos[2 * i + 1] = y[i]; }
    // edges: two vertices per child, coloured by the child's visits
    const m = Math.max(0, n - 1);
    const epos = new Float32Array(4 * m), eheat = new Uint8Array(2 * m), ecreated = new Float32Array(2 * m);
    for (let i = 1, k = 0; i < n; i++, k++) {
      const p = parent[i];
      epos[4 * k] = x[p]; epos[4 * k + 1] = y[p]; epos[4 * k + 2] = x[i]; epos[4 * k + 3] = y[i];
      eheat[2 * k] = eheat[2 * k + 1] = heat[i];
      ecreated[2 * k] = ecreated[2 * k + 1] = created[i];
    }
    const upload = (name, data) => {
      if (!this.buffers[name]) this.buffers[name] = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, this.buffers[name]);
      gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW);
    };
    upload("pos", pos); upload("player", player); upload("created", created); upload("diff", diff);
    upload("epos", epos); upload("eheat", eheat); upload("ecreated", ecreated);
    // rows for picking: the nodes of each depth, sorted by x
    const rowOf = new Map();
    for (let i = 0; i < n; i++) { const r = y[i]; rowOf.set(r, (rowOf.get(r) || 0) + 1); }
    const ys = [...rowOf.keys()].sort((a, b) => a - b);
    const rows = new Map(ys.map((r) => [r, { fill: 0, nodes: new Int32Array(rowOf.get(r)) }]));
    for (let i = 0; i < n; i++) { const row = rows.get(y[i]); row.nodes[row.fill++] = i; }
    for (const row of rows.values()) {
      let sorted = true;
      for (let k = 1; k < row.nodes.length; k++) if (x[row.nodes[k]] < x[row.nodes[k - 1]]) { sorted = false; break; }
      if (!sorted) row.nodes = Int32Array.from([...row.nodes].sort((a, b) => x[a] - x[b]));
    }
    this.tree = { n, header, x, y, created, diff, ys, rows };
    this.colours = header.colours || DEFAULT_COLOURS;
    this.limit = Infinity;
    $("animate").disabled = header.max_created === null || header.max_created === undefined;
    $("animate").title = $("animate").disabled ? "this tree does not record when its nodes were added (files do not store it)" : "grow the tree in the order the search added nodes";
    this.drawLegend();
  }

  drawLegend() {
    const h = this.tree.header;
    const legend = $("legend");
    const top = Math.max(1, h.max_visits);
    const at = (t) => Math.round(Math.expm1(t * Math.log1p(top)));
    const colours = this.colours;
    legend.innerHTML = "";
    const title = document.createElement("div");
    title.textContent = "edge colour: visits (log scale)";
    const bar = document.createElement("div");
    bar.className = "bar";
    bar.style.background = `linear-gradient(to right, ${colours.edges.join(", ")})`;
    const ticks = document.createElement("div");
    ticks.className = "ticks";
    for (const t of [0, 0.5, 1]) ticks.appendChild(Object.assign(document.createElement("span"), { textContent: String(at(t)) }));
    const who = document.createElement("div");
    who.className = "legend-nodes";
    who.textContent = h.players_inferred ? "node (file names no game: alternating by depth): " : "node: ";
    for (const entry of h.legend || []) {
      const item = Object.assign(document.createElement("span"), { className: "legend-entry" });
      item.dataset.code = String(entry.code);
      const sw = Object.assign(document.createElement("span"), { className: "swatch" });
      sw.style.background = entry.colour;
      item.append(sw, document.createTextNode(entry.label));
      who.appendChild(item);
    }
    legend.append(title, bar, ticks, who);
    if (h.meta && h.meta.has_previous) {
      const d = document.createElement("div");
      d.innerHTML = `<span class="swatch" style="background:${colours.added}"></span>new since the previous tree` +
        `<span class="swatch" style="background:${colours.changed}"></span>visits changed`;
      legend.appendChild(d);
    }
  }

  paletteUniform() {
    const c = this.colours;
    const seats = [];
    for (let k = 0; k < 8; k++) seats.push(c.players[k % c.players.length]);
    return [...seats, c.chance || DEFAULT_COLOURS.chance, c.terminal || DEFAULT_COLOURS.terminal, c.unknown].flatMap(rgb);
  }

  // ---------------------------------------------------------------- view
  resize(redraw = true) {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(this.canvas.clientWidth * dpr)), h = Math.max(1, Math.round(this.canvas.clientHeight * dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w; this.canvas.height = h;
    }
    if (redraw && this.tree) this.requestDraw();
  }

  fit() {
    if (!this.tree) return;
    const [xmin, xmax, ymax] = this.tree.header.bounds;
    const W = this.canvas.clientWidth, H = this.canvas.clientHeight, pad = 24;
    const sx = Math.min(60, (W - 2 * pad) / Math.max(1, xmax - xmin));
    const sy = Math.min(90, (H - 2 * pad) / Math.max(1, ymax));
    this.fitSy = sy;
    this.view = { sx, sy, x0: pad - xmin * sx + (W - 2 * pad - (xmax - xmin) * sx) / 2, y0: pad + (H - 2 * pad - ymax * sy) / 2 };
  }

  zoom(factor, px, py) {
    const W = this.canvas.clientWidth, H = this.canvas.clientHeight;
    if (px === undefined) { px = W / 2; py = H / 2; }
    const v = this.view;
    const wx = (px - v.x0) / v.sx, wy = (py - v.y0) / v.sy;
    // search trees are far wider than deep: past 120 px per level only x keeps zooming
    const fy = Math.max(this.fitSy * 0.05, Math.min(Math.max(120, this.fitSy), v.sy * factor)) / v.sy;
    v.sx *= factor; v.sy *= fy;
    v.x0 = px - wx * v.sx; v.y0 = py - wy * v.sy;
    this.requestDraw();
  }

  toScreen(i) {
    const v = this.view;
    return [this.tree.x[i] * v.sx + v.x0, this.tree.y[i] * v.sy + v.y0];
  }

  pointSize() {
    return Math.max(2, Math.min(14, Math.min(this.view.sx, this.view.sy) * 0.55));
  }

  // the node nearest to a point on the canvas (CSS pixels), or -1
  pick(px, py) {
    if (!this.tree) return -1;
    const t = this.tree, v = this.view;
    const tol = Math.max(6, this.pointSize());
    const wy = (py - v.y0) / v.sy, wx = (px - v.x0) / v.sx;
    let best = -1, bestD = tol;
    // rows within tolerance (usually one)
    let lo = 0, hi = t.ys.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (t.ys[mid] < wy - tol / v.sy) lo = mid + 1; else hi = mid; }
    for (let r = lo; r < t.ys.length && t.ys[r] <= wy + tol / v.sy; r++) {
      const nodes = t.rows.get(t.ys[r]).nodes;
      let a = 0, b = nodes.length;
      while (a < b) { const mid = (a + b) >> 1; if (t.x[nodes[mid]] < wx) a = mid + 1; else b = mid; }
      for (let k = Math.max(0, a - 2); k < Math.min(nodes.length, a + 2); k++) {
        const i = nodes[k];
        if (t.created[i] > this.limit) continue;
        const [sx, sy] = this.toScreen(i);
        const d = Math.hypot(sx - px, sy - py);
        if (d < bestD) { bestD = d; best = i; }
      }
    }
    return best;
  }

  requestDraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.drawNow(); });
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
    const attrib = (loc, name, count, type, normalized) => {
      if (loc === undefined || loc < 0) return;
      gl.bindBuffer(gl.ARRAY_BUFFER, this.buffers[name]);
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
    // edges: one draw call
    const e = this.edgeProgram;
    common(e);
    gl.uniform3fv(e.loc.u_stops, this.colours.edges.flatMap(rgb));
    attrib(e.loc.a_pos, "epos", 2, gl.FLOAT, false);
    attrib(e.loc.a_heat, "eheat", 1, gl.UNSIGNED_BYTE, true);
    attrib(e.loc.a_created, "ecreated", 1, gl.FLOAT, false);
    if (t.n > 1) gl.drawArrays(gl.LINES, 0, 2 * (t.n - 1));
    for (const name of ["a_pos", "a_heat", "a_created"]) if (e.loc[name] >= 0) gl.disableVertexAttribArray(e.loc[name]);
    // nodes: one draw call
    const p = this.nodeProgram;
    common(p);
    const point = this.pointSize();
    gl.uniform1f(p.loc.u_point, point * dpr);
    gl.uniform1f(p.loc.u_round, point >= 4 ? 1 : 0);
    gl.uniform3fv(p.loc.u_palette, this.paletteUniform());
    attrib(p.loc.a_pos, "pos", 2, gl.FLOAT, false);
    attrib(p.loc.a_player, "player", 1, gl.UNSIGNED_BYTE, false);
    attrib(p.loc.a_created, "created", 1, gl.FLOAT, false);
    attrib(p.loc.a_diff, "diff", 1, gl.UNSIGNED_BYTE, false);
    gl.drawArrays(gl.POINTS, 0, t.n);
    for (const name of ["a_pos", "a_player", "a_created", "a_diff"]) if (p.loc[name] >= 0) gl.disableVertexAttribArray(p.loc[name]);
    this.frames++;
    document.body.dataset.frames = String(this.frames);
    this.placeRing();
  }

  placeRing() {
    const ring = $("selection-ring");
    if (this.selected < 0 || !this.tree) { ring.hidden = true; return; }
    const [sx, sy] = this.toScreen(this.selected);
    ring.hidden = false;
    ring.style.left = `${sx}px`;
    ring.style.top = `${sy}px`;
  }

  // ---------------------------------------------------------------- node details
  async select(i) {
    this.selected = i;
    this.placeRing();
    const panel = $("node-details");
    panel.dataset.node = String(i);
    try {
      const info = await this.api("GET", this.sequence[this.index].node(i));
      if (this.selected !== i) return;
      panel.replaceChildren();
      const h = document.createElement("h3");
      h.textContent = i === 0 ? "Root" : `Node ${i}`;
      panel.appendChild(h);
      const dl = document.createElement("dl");
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
        dl.appendChild(Object.assign(document.createElement("dt"), { textContent: k }));
        const dd = Object.assign(document.createElement("dd"), { textContent: String(val) });
        dd.dataset.field = key;
        if (key === "path") dd.className = "path";
        dl.appendChild(dd);
      }
      panel.appendChild(dl);
      const board = info.board;
      if (board) {
        await ensureRenderer(board.game);
        if (this.selected !== i) return;
        const box = document.createElement("div");
        box.className = "board small";
        box.id = "node-board";
        renderBoard(box, { ...board, player_names: this.tree.header.player_names, player_colors: this.tree.header.player_colors, legal: [] }, { small: true });
        panel.appendChild(box);
        if (board.playable && this.onPlayFrom) {
          const play = Object.assign(document.createElement("button"), { id: "play-from-here", textContent: "Play from here" });
          play.title = "start a new game from this position against the AI";
          play.addEventListener("click", () => this.onPlayFrom(board.spec, info.notation));
          panel.appendChild(play);
        }
      }
      if (info.state) {
        const label = document.createElement("div");
        label.className = "state-label";
        label.textContent = info.state;
        panel.appendChild(label);
      }
      panel.dataset.loaded = String(i);
    } catch (err) {
      this.status(err.message, true);
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
    this.animation = null;
    this.limit = Infinity;
    document.body.dataset.animating = "0";
  }

  // ---------------------------------------------------------------- export
  exportPng() {
    this.drawNow();
    const stem = this.sequence[this.index].stem || "tree";
    this.canvas.toBlob((blob) => {
      this.download(blob, `${stem}.png`);
      document.body.dataset.exported = "png";
    }, "image/png");
  }

  exportFile(fmt) {
    const item = this.sequence[this.index];
    const a = document.createElement("a");
    a.href = item.export(fmt);
    a.download = `${item.stem || "tree"}.${fmt}`;
    document.body.appendChild(a);
    a.click();
    a.remove();
  }
}
