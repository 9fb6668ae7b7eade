"""Time from clicking "Analyse trees" to the first drawn frame of a big tree, and the time of each zoom frame.

The tree is the real search tree of one MCTS move in Connect Four (compiled
engine, ``--iterations`` iterations: 253,000 give about 250k nodes, 1,000,000
about 990k). The page runs in headless Chromium with software WebGL
(SwiftShader), so a desktop GPU only makes it faster. The clock runs in the
page: from the click on "Analyse trees" to the end of the first frame
(``readPixels`` after the draw calls waits for the GPU). It covers the tree
list request, the server's layout and packing, the transfer, parsing, buffer
uploads and the draw calls.

    PYTHONPATH=src python benchmarks/web_first_frame.py [--iterations 253000] [--repeats 3] [--json]

"cold" is the first open in a fresh server process (the layout kernel is
loaded from numba's cache then); "warm" reopens the same tree after the
server cached its packed arrays; "fresh tree" opens the tree of a new AI move
(layout and packing redone, kernels warm).

"zoom frames" are what a person waits for while zooming: from the whole tree
(Centre) the view zooms in about the canvas centre ``--zoom-steps`` times by
1.5, then back out as many times; each frame is timed from the zoom call to
the end of its drawing (``readPixels``), and the median and the slowest are
reported. "fit frame" redraws the whole tree unchanged. They are timed once the
viewer has prepared its levels of detail (``body[data-levels]``: it makes them
in the background after the first frame; the old viewer had none and did not
set it).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile

from boardlab.web.app import create_app
from boardlab.web.headless import chromium, serve_in_thread

CLICK_TO_FRAME = """async () => {
  document.body.dataset.treeReady = "";
  window.__firstFrameAt = null;
  const start = performance.now();
  document.getElementById("analyse").click();
  while (window.__firstFrameAt === null || window.__firstFrameAt === undefined) await new Promise((r) => setTimeout(r, 5));
  return [window.__firstFrameAt - start, window.__treeTimings];
}"""

# every frame: change the view, draw, wait for the rasteriser (readPixels)
ZOOM_FRAMES = """(steps) => {
  const v = window.__viewer, gl = v.gl, pixel = new Uint8Array(4);
  const frame = (change) => {
    const t0 = performance.now();
    change();
    v.drawNow();
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    return performance.now() - t0;
  };
  v.fit();
  const fit = [0, 1, 2].map(() => frame(() => {}));
  const zoom = [];
  for (let k = 0; k < steps; k++) zoom.push(frame(() => v.zoom(1.5)));
  for (let k = 0; k < steps; k++) zoom.push(frame(() => v.zoom(1 / 1.5)));
  v.fit();
  return { fit, zoom };
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=253_000, help="MCTS iterations of the analysed move")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--zoom-steps", type=int, default=12, help="zoom-in steps (x1.5 each), then as many out")
    parser.add_argument("--json", action="store_true", help="print one JSON object: nodes, cold_s, warm_s, fresh_s (lists), zoom_ms")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data, serve_in_thread(create_app(data)) as url, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.set_default_timeout(300_000)
        page.goto(url + "/")
        page.wait_for_selector("body[data-ready='1']")
        page.select_option("#game-select", "connect4")
        page.check("input[name=mode][value=ai-ai]")
        page.select_option("#agent-select", "mcts")
        page.fill("#ai-iterations", str(args.iterations))
        if page.locator("#ai-time").count():
            page.fill("#ai-time", "")
        page.click("#start")

        def ai_move() -> None:
            # the game view sets data-moves once the new game is drawn
            page.wait_for_function("document.body.dataset.moves !== undefined && document.body.dataset.busy !== '1'")
            moves = int(page.get_attribute("body", "data-moves"))
            page.click("#next-move")
            page.wait_for_function(f"document.body.dataset.moves === '{moves + 1}' && document.body.dataset.busy === '0'")

        ai_move()
        cold, parts = page.evaluate(CLICK_TO_FRAME)
        cold /= 1000
        print("parts (ms):", parts)
        nodes = int(page.get_attribute("body", "data-tree-nodes"))
        # the viewer prepares its coarser levels of detail after the first frame; zoom once they are there
        page.wait_for_function("document.body.dataset.levels !== ''")
        frames = page.evaluate(ZOOM_FRAMES, args.zoom_steps)
        warm, fresh = [], []
        for _ in range(args.repeats):
            page.click("#viewer-back")
            total, parts = page.evaluate(CLICK_TO_FRAME)
            print("parts (ms):", parts)
            warm.append(total / 1000)
            page.click("#viewer-back")
            ai_move()
            total, parts = page.evaluate(CLICK_TO_FRAME)
            print("parts (ms):", parts)
            fresh.append(total / 1000)
        renderer = page.evaluate("() => { const gl = window.__viewer.gl; return gl.getParameter(gl.VERSION) + ' / ' + gl.getParameter(gl.RENDERER); }")
    zoom = frames["zoom"]
    result = {"nodes": nodes, "cold_s": [round(cold, 3)], "warm_s": [round(t, 3) for t in warm], "fresh_s": [round(t, 3) for t in fresh],
              "fit_frame_ms": [round(t, 1) for t in frames["fit"]], "zoom_ms": [round(t, 1) for t in zoom], "renderer": renderer}
    if args.json:
        print(json.dumps(result))
        return
    print(f"tree: {nodes} nodes (MCTS, Connect Four, {args.iterations} iterations); WebGL: {renderer}")
    print(f"click 'Analyse' -> first frame, cold:       {cold:.3f} s")
    if warm:
        print(f"click 'Analyse' -> first frame, warm:       median {statistics.median(warm):.3f} s  {warm}")
        print(f"click 'Analyse' -> first frame, fresh tree: median {statistics.median(fresh):.3f} s  {fresh}")
    print(f"fit frame (whole tree redrawn):             median {statistics.median(frames['fit']):.1f} ms")
    print(f"zoom frames ({len(zoom)}, x1.5 in then out):       median {statistics.median(zoom):.1f} ms, slowest {max(zoom):.1f} ms")
    print("zoom frame times (ms):", " ".join(f"{t:.0f}" for t in zoom))


if __name__ == "__main__":
    main()
