import BlazeFace
import InternalUtilities
import Foundation

/// The review page (`blazeface review IN MASKS -o review.html`): one self-contained HTML file
/// (no server, nothing fetched: its content security policy allows no network at all) showing
/// the moments of a masks file that need a person's look, each frame as a thumbnail with its
/// masks outlined; the reviewer removes a mask (here, or its whole track), draws a box where a
/// face was missed, and exports the edited masks file for `redact --apply-masks`, which carries
/// each added box to the frames around it (`MasksFile.carryingAdditions`).
public enum ReviewPage {
    /// Why a frame needs a look, most urgent first.
    public enum Why: String, Sendable, CaseIterable, Comparable {
        case held = "a face held while lost"
        case beforeFound = "masked before the face was found"
        case lowScore = "a low score"
        case appears = "a face appears mid-picture"
        case disappears = "a face disappears mid-picture"
        case countChanges = "the number of masks changes"
        case added = "a box added in review"
        case sample = "a regular look (misses have no mask)"

        public static func < (a: Why, b: Why) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
    }

    /// A frame to look at and why.
    public struct Moment: Sendable, Equatable {
        public var frame: Int
        public var why: [Why]
        public init(frame: Int, why: [Why]) { (self.frame, self.why) = (frame, why) }
    }

    /// The frames of `masks` to look at, most urgent first (then in order), at most `limit`: the
    /// first frame of each run of a face held while lost, or masked before it was found; a
    /// detection scoring under `lowScore`; a face's first and last frame where it is away from
    /// the picture's edges; a change in the number of masks; and every `sampleEvery` frames
    /// (a missed face has no mask to flag it).
    public static func moments(in masks: MasksFile, lowScore: Float = 0.6, sampleEvery: Int = 50, limit: Int = 120) -> [Moment] {
        var why: [Int: Set<Why>] = [:]
        func flag(_ frame: Int, _ w: Why) { why[frame, default: []].insert(w) }
        let drawn = masks.frames.map { $0.filter { $0.reason != .kept } }
        var last: [Int: (frame: Int, reason: MaskReason)] = [:], first: [Int: Int] = [:]
        func awayFromEdges(_ b: NormalizedRect) -> Bool {
            b.xMin > 0.02 && b.yMin > 0.02 && b.xMin + b.width < 0.98 && b.yMin + b.height < 0.98
        }
        for (f, frame) in drawn.enumerated() {
            if f > 0, frame.count != drawn[f - 1].count { flag(f, .countChanges) }
            if f % max(1, sampleEvery) == 0 { flag(f, .sample) }
            for m in frame {
                switch m.reason {
                case .added: flag(f, .added)
                case .detected where (m.score ?? 1) < lowScore: flag(f, .lowScore)
                default: break
                }
                guard m.trackingID >= 0 else { continue }
                let previous = last[m.trackingID]
                let run = previous.map { $0.frame == f - 1 } ?? false
                // A run's first frame: held while lost, or drawn before the face was found.
                if [.tracked, .heldToEnd].contains(m.reason), !(run && [.tracked, .heldToEnd].contains(previous!.reason)) { flag(f, .held) }
                if [.retraced, .beforeFound].contains(m.reason), !(run && [.retraced, .beforeFound].contains(previous!.reason)) { flag(f, .beforeFound) }
                if first[m.trackingID] == nil {
                    first[m.trackingID] = f
                    if f > 0, awayFromEdges(m.box) { flag(f, .appears) }
                }
                last[m.trackingID] = (f, m.reason)
            }
        }
        for (id, l) in last where l.frame < drawn.count - 1 {
            if let m = drawn[l.frame].first(where: { $0.trackingID == id }), awayFromEdges(m.box) { flag(l.frame, .disappears) }
        }
        let ranked = why.map { Moment(frame: $0.key, why: $0.value.sorted()) }
            .sorted { ($0.why[0], $0.frame) < ($1.why[0], $1.frame) }
        return Array(ranked.prefix(max(0, limit)))
    }

    /// A thumbnail of a frame: its bytes and media type (`image/jpeg`, `image/png`).
    public struct Thumbnail: Sendable {
        public var bytes: [UInt8], mediaType: String
        public init(bytes: [UInt8], mediaType: String) { (self.bytes, self.mediaType) = (bytes, mediaType) }
    }

    /// The page: `masksText` (the masks file, as read), the `moments` with a thumbnail each (by
    /// frame; the frame as published, masks drawn, unless `showsInput`), titled by `inputName`.
    public static func html(masksText: String, moments: [Moment], thumbnails: [Int: Thumbnail], inputName: String,
                            showsInput: Bool = false) -> String {
        let lines = masksText.split(separator: "\n", omittingEmptySubsequences: true)
        var data = JSONWriter(capacity: masksText.utf8.count + 1024)
        data.literal("{\"lines\":[")
        for (i, line) in lines.enumerated() {
            if i > 0 { data.byte(",") }
            data.string(String(line))
        }
        data.literal("],\"input\":")
        data.string(inputName)
        data.literal(showsInput ? ",\"showsInput\":true" : ",\"showsInput\":false")
        data.literal(",\"moments\":[")
        for (i, m) in moments.enumerated() {
            if i > 0 { data.byte(",") }
            data.literal("{\"frame\":")
            data.integer(m.frame)
            data.literal(",\"why\":[")
            for (k, w) in m.why.enumerated() {
                if k > 0 { data.byte(",") }
                data.string(w.rawValue)
            }
            data.literal("],\"thumbnail\":")
            if let t = thumbnails[m.frame] {
                data.string("data:\(t.mediaType);base64," + Data(t.bytes).base64EncodedString())
            } else {
                data.literal("null")
            }
            data.byte("}")
        }
        data.literal("]}")
        // Inside <script>, "</" would end the element: JSON lets "/" be escaped.
        let json = data.text.replacingOccurrences(of: "</", with: "<\\/")
        return template.replacingOccurrences(of: "@TITLE@", with: escaped(inputName))
            .replacingOccurrences(of: "@DATA@", with: json)
    }

    /// Text for HTML.
    static func escaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The page's HTML, style and script: plain JavaScript, no library.
    static let template = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>Review: @TITLE@</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #f4f4f4; }
header { position: sticky; top: 0; z-index: 2; background: #fff; border-bottom: 1px solid #ccc; padding: 8px 16px; }
header h1 { font-size: 17px; margin: 0 0 4px; }
header p { margin: 2px 0; }
#moments { display: flex; flex-wrap: wrap; gap: 12px; padding: 12px 16px; }
figure { margin: 0; background: #fff; border: 1px solid #ccc; padding: 6px; width: 480px; }
.frame { position: relative; line-height: 0; }
.frame img { width: 100%; display: block; }
.frame svg { position: absolute; left: 0; top: 0; width: 100%; height: 100%; cursor: crosshair; }
.mask { fill: transparent; stroke-width: 3; vector-effect: non-scaling-stroke; cursor: pointer; }
.mask.selected { stroke: #fff !important; stroke-dasharray: 6 3; }
.detected { stroke: #1a9641; } .tracked, .held-to-end { stroke: #fdae61; } .retraced, .before-found { stroke: #d7191c; }
.region { stroke: #2b83ba; } .kept { stroke: #999; stroke-dasharray: 2 4; } .added { stroke: #e040fb; }
.carried { fill: transparent; stroke: #e040fb; stroke-width: 2; stroke-dasharray: 4 4; vector-effect: non-scaling-stroke; pointer-events: none; }
.draft { fill: rgba(224, 64, 251, 0.2); stroke: #e040fb; stroke-width: 2; vector-effect: non-scaling-stroke; }
figcaption { line-height: 1.4; padding-top: 4px; }
.why { color: #a33; }
.tools button { margin: 4px 4px 0 0; }
textarea { width: calc(100% - 32px); height: 8em; margin: 0 16px 16px; font: 12px monospace; }
</style>
</head>
<body>
<header>
<h1>Review: @TITLE@</h1>
<p id="summary"></p>
<p>Click a mask to select it, then remove it here or its whole face's track. Drag on a picture to add a box where a face was missed:
it is carried <input id="carry" type="number" min="0" max="300" value="25" size="4"> frames each way, following the face, by
<code>redact --apply-masks</code> (dashed where it will be carried). The pictures keep the masks as first drawn; the outlines
show the edits. Then export, and run <code>blazeface redact INPUT OUTPUT --apply-masks EDITED</code>.</p>
<p><button id="export">Export the edited masks file</button> <span id="status"></span></p>
</header>
<main id="moments"></main>
<textarea id="exported" readonly placeholder="The edited masks file appears here on export (and downloads as edited.masks.jsonl)."></textarea>
<script id="data" type="application/json">@DATA@</script>
<script>
"use strict";
const data = JSON.parse(document.getElementById("data").textContent);
const header = JSON.parse(data.lines[0]);
const frames = data.lines.slice(1).map(l => JSON.parse(l)).filter(l => l.record !== "end");
const W = header.width, H = header.height, scale = header.maskScale, ellipse = header.shape === "ellipse";
const SVG = "http://www.w3.org/2000/svg";
let selected = null, edits = 0;

function el(name, attrs, parent) {
  const inSVG = name === "svg" || ["rect", "ellipse"].includes(name) || (name === "title" && parent instanceof SVGElement);
  const e = inSVG ? document.createElementNS(SVG, name) : document.createElement(name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function summary() {
  const masks = frames.reduce((n, f) => n + f.masks.length, 0);
  document.getElementById("summary").textContent = `${data.input}: ${W}x${H}, ${frames.length} frame(s), ${masks} mask(s); ` +
    `${data.moments.length} moment(s) to look at, most urgent first; pictures ${data.showsInput ? "as filmed (faces visible)" : "as published (masks drawn)"}; ` +
    `${edits} edit(s).`;
}

function outline(svg, box, region) {
  const [x, y, w, h] = box, cx = (x + w / 2) * W, cy = (y + h / 2) * H;
  const s = region ? 1 : scale, rw = w * W * s / 2, rh = h * H * s / 2;
  return ellipse && !region ? el("ellipse", { cx, cy, rx: rw, ry: rh }, svg) : el("rect", { x: cx - rw, y: cy - rh, width: 2 * rw, height: 2 * rh }, svg);
}

function drawMasks(svg, f) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  // Boxes added on other frames that --apply-masks will carry here (following the face from there).
  frames.forEach((fr, g) => fr.masks.forEach(m => {
    if (g !== f && m.reason === "added" && Math.abs(g - f) <= (m.carry || 0)) {
      outline(svg, m.relativeBox, false).setAttribute("class", "carried");
    }
  }));
  frames[f].masks.forEach((m, i) => {
    const shape = outline(svg, m.relativeBox, m.reason === "region");
    shape.setAttribute("class", `mask ${m.reason}`);
    shape.dataset.frame = f; shape.dataset.index = i;
    const title = el("title", {}, shape);
    title.textContent = `${m.reason}${m.score !== undefined ? ", score " + m.score.toFixed(2) : ""}, track ${m.trackingId}`;
    shape.addEventListener("mousedown", e => e.stopPropagation());
    shape.addEventListener("click", e => { e.stopPropagation(); select(f, i); });
  });
}

function redrawAll() {
  document.querySelectorAll("figure").forEach(fig => drawMasks(fig.querySelector("svg"), +fig.dataset.frame));
  select(null);
  summary();
}

function select(f, i) {
  document.querySelectorAll(".tools").forEach(t => t.hidden = true);
  document.querySelectorAll(".mask.selected").forEach(m => m.classList.remove("selected"));
  selected = f === null ? null : { f, i };
  if (!selected) return;
  document.querySelectorAll(`figure[data-frame="${f}"]`).forEach(fig => {
    fig.querySelector(`.mask[data-index="${i}"]`).classList.add("selected");
    const tools = fig.querySelector(".tools");
    tools.hidden = false;
    tools.querySelector(".track").hidden = frames[f].masks[i].trackingId < 0;
  });
}

function removeSelected(everywhere) {
  if (!selected) return;
  const m = frames[selected.f].masks[selected.i];
  if (everywhere && m.trackingId >= 0) frames.forEach(fr => fr.masks = fr.masks.filter(x => x.trackingId !== m.trackingId));
  else frames[selected.f].masks.splice(selected.i, 1);
  edits += 1;
  redrawAll();
}

function addBox(f, x0, y0, x1, y1) {
  const [x, y, w, h] = [Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0), Math.abs(y1 - y0)];
  if (w < 4 || h < 4) return;
  // The face box, so that the mask drawn (scaled by maskScale about its centre) is the box dragged.
  const [fw, fh] = [w / scale, h / scale], [fx, fy] = [x + (w - fw) / 2, y + (h - fh) / 2];
  const carry = Math.max(0, Math.min(300, parseInt(document.getElementById("carry").value, 10) || 0));
  frames[f].masks.push({ trackingId: -1, reason: "added", carry,
    box: [fx, fy, fw, fh].map(v => Math.round(v * 100) / 100), relativeBox: [fx / W, fy / H, fw / W, fh / H] });
  edits += 1;
  redrawAll();
}

function point(svg, e) {
  const r = svg.getBoundingClientRect();
  return [(e.clientX - r.left) / r.width * W, (e.clientY - r.top) / r.height * H];
}

for (const m of data.moments) {
  const fig = el("figure", { "data-frame": m.frame }, document.getElementById("moments"));
  const frame = el("div", { class: "frame" }, fig);
  if (m.thumbnail) el("img", { src: m.thumbnail, alt: `frame ${m.frame}` }, frame);
  else el("div", { style: `aspect-ratio: ${W} / ${H}; background: #333` }, frame);
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none" }, frame);
  let start = null, draft = null;
  svg.addEventListener("mousedown", e => { start = point(svg, e); draft = el("rect", { class: "draft" }, svg); e.preventDefault(); });
  svg.addEventListener("mousemove", e => {
    if (!start) return;
    const [x, y] = point(svg, e);
    Object.entries({ x: Math.min(x, start[0]), y: Math.min(y, start[1]), width: Math.abs(x - start[0]), height: Math.abs(y - start[1]) })
      .forEach(([k, v]) => draft.setAttribute(k, v));
  });
  svg.addEventListener("mouseup", e => {
    if (!start) return;
    const [x, y] = point(svg, e), s = start;
    start = null; draft.remove();
    addBox(m.frame, s[0], s[1], x, y);
  });
  svg.addEventListener("click", () => select(null));
  const t = frames[m.frame].timestampMs;
  const cap = el("figcaption", {}, fig);
  cap.append(`frame ${m.frame}${t !== undefined ? ` (${(t / 1000).toFixed(2)} s)` : ""}: `);
  el("span", { class: "why" }, cap).textContent = m.why.join("; ");
  const tools = el("div", { class: "tools" }, cap);
  tools.hidden = true;
  el("button", { class: "here" }, tools).textContent = "Remove this mask";
  el("button", { class: "track" }, tools).textContent = "Remove its track everywhere";
  tools.querySelector(".here").addEventListener("click", () => removeSelected(false));
  tools.querySelector(".track").addEventListener("click", () => removeSelected(true));
}

document.getElementById("export").addEventListener("click", () => {
  const masks = frames.reduce((n, f) => n + f.masks.length, 0);
  const text = [JSON.stringify(header), ...frames.map(f => JSON.stringify(f)),
                JSON.stringify({ record: "end", frames: frames.length, masks })].join("\n") + "\n";
  document.getElementById("exported").value = text;
  const a = el("a", { href: "data:application/x-ndjson;charset=utf-8," + encodeURIComponent(text), download: "edited.masks.jsonl" });
  a.click();
  document.getElementById("status").textContent = `exported: ${frames.length} frame(s), ${masks} mask(s)`;
});

redrawAll();
</script>
</body>
</html>
"""#
}
