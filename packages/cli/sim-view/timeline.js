// The trace view's canvas: one lane per validator, time left to right. Only what is in view is drawn, each
// kind found by binary search, and strokes are batched by color: a frame of 100k entries stays fast.
import { lowerBound, MESSAGE_TYPES } from "./trace-model.js";

export const AXIS_HEIGHT = 30;
const LANE_INK = { even: "#ffffff", odd: "#f5f7fa", line: "#ced4da", grid: "#edf0f3", axis: "#495057" };
export const SPAN_STYLES = {
  fault: { fill: "rgba(240, 140, 0, 0.14)", edge: "#f08c00" },
  crash: { fill: "rgba(73, 80, 87, 0.22)", edge: "#495057" },
  pause: { fill: "rgba(140, 91, 214, 0.16)", edge: "#8c5bd6" },
};
export const MARK_COLORS = { fault: "#f08c00", heal: "#2f9e44", start: "#2b8a3e", crash: "#212529", pause: "#8c5bd6", resume: "#8c5bd6", penalize: "#a0703c", commit: "#212529" };
export const VIOLATION_RED = "#e03131";
/** Below these counts in view, arrows and commits carry their labels (where a label has room). */
const LABELLED_ARROWS = 150;
const LABELLED_COMMITS = 2000;

/** Where things are: the view's time range on a canvas of `width` by `height` CSS pixels. */
function geometry(model, view, width, height) {
  const laneHeight = (height - AXIS_HEIGHT) / model.lanes.length;
  const scale = width / (view.end - view.start);
  return {
    width,
    height,
    laneHeight,
    x: (t) => (t - view.start) * scale,
    laneTop: (i) => AXIS_HEIGHT + i * laneHeight,
    laneMid: (i) => AXIS_HEIGHT + (i + 0.5) * laneHeight,
  };
}

/**
 * Draws the model's part in `view` ({start, end} in ms); returns how many arrows it drew and the hit
 * targets for the tooltip (`hover`, one of them, is drawn highlighted).
 */
export function drawTimeline(ctx, model, view, options) {
  const g = geometry(model, view, options.width, options.height);
  const hits = [];
  ctx.clearRect(0, 0, g.width, g.height);
  drawLanes(ctx, model, g);
  drawGrid(ctx, view, g);
  drawSpans(ctx, model, view, g, hits);
  if (options.timers) drawTimers(ctx, model, view, g);
  const arrowsDrawn = drawMessages(ctx, model, view, g, hits);
  drawMarks(ctx, model, view, g, hits);
  drawViolations(ctx, model, view, g, hits);
  drawAxis(ctx, view, g);
  if (options.hover) drawHighlight(ctx, options.hover);
  return { arrowsDrawn, hits };
}

function drawLanes(ctx, model, g) {
  model.lanes.forEach((_, i) => {
    ctx.fillStyle = i % 2 ? LANE_INK.odd : LANE_INK.even;
    ctx.fillRect(0, g.laneTop(i), g.width, g.laneHeight);
    ctx.fillStyle = LANE_INK.line;
    ctx.fillRect(0, Math.round(g.laneMid(i)), g.width, 1);
  });
}

/** Round time steps (1, 2 or 5 times a power of ten ms), about 110 px apart. */
function tickStep(view, width) {
  const rough = ((view.end - view.start) * 110) / width;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough);
}

function ticks(view, width) {
  const step = tickStep(view, width);
  const decimals = Math.max(0, Math.ceil(-Math.log10(step / 1000)));
  const out = [];
  for (let t = Math.ceil(view.start / step) * step; t <= view.end; t += step) out.push({ t, label: `${(t / 1000).toFixed(decimals)} s` });
  return out;
}

function drawGrid(ctx, view, g) {
  ctx.fillStyle = LANE_INK.grid;
  for (const { t } of ticks(view, g.width)) ctx.fillRect(Math.round(g.x(t)), AXIS_HEIGHT, 1, g.height - AXIS_HEIGHT);
}

function drawAxis(ctx, view, g) {
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, g.width, AXIS_HEIGHT);
  ctx.fillStyle = LANE_INK.line;
  ctx.fillRect(0, AXIS_HEIGHT - 1, g.width, 1);
  ctx.fillStyle = LANE_INK.axis;
  ctx.font = "12px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  ctx.textAlign = "center";
  for (const { t, label } of ticks(view, g.width)) {
    const x = Math.round(g.x(t));
    ctx.fillRect(x, AXIS_HEIGHT - 6, 1, 6);
    ctx.fillText(label, x, AXIS_HEIGHT / 2 - 2);
  }
}

function drawSpans(ctx, model, view, g, hits) {
  for (const span of model.spans) {
    if (span.t1 < view.start || span.t0 > view.end) continue;
    const style = SPAN_STYLES[span.kind];
    const x0 = Math.max(-2, g.x(span.t0));
    const x1 = Math.min(g.width + 2, g.x(span.t1));
    for (const lane of span.lanes) {
      const y0 = g.laneTop(lane) + 3;
      const y1 = g.laneTop(lane) + g.laneHeight - 3;
      ctx.fillStyle = style.fill;
      ctx.fillRect(x0, y0, Math.max(2, x1 - x0), y1 - y0);
      ctx.fillStyle = style.edge;
      ctx.fillRect(x0, y0, Math.max(2, x1 - x0), 2);
      hits.push({ rect: [x0, y0, x1, y1], text: `${span.kind} ${span.t0}–${span.t1} ms: ${span.what}` });
    }
  }
}

function drawTimers(ctx, model, view, g) {
  ctx.fillStyle = "rgba(33, 37, 41, 0.22)";
  model.timers.forEach((times, lane) => {
    const bottom = g.laneTop(lane) + g.laneHeight - 4;
    let lastX = -1;
    for (let i = lowerBound(times, view.start); i < times.length && times[i] <= view.end; i++) {
      const x = Math.round(g.x(times[i]));
      if (x === lastX) continue; // one tick a pixel
      lastX = x;
      ctx.fillRect(x, bottom - 6, 1, 6);
    }
  });
}

/** The messages in flight during the view: sorted by send time, none in flight longer than maxFlight. */
function inView(items, model, view) {
  const out = [];
  for (let i = lowerBound(items, view.start - model.maxFlight, (a) => a.t0); i < items.length && items[i].t0 <= view.end; i++) {
    if (items[i].t1 >= view.start) out.push(items[i]);
  }
  return out;
}

function drawMessages(ctx, model, view, g, hits) {
  const arrows = inView(model.arrows, model, view);
  const drops = inView(model.drops, model, view);
  const byType = MESSAGE_TYPES.map(() => []);
  for (const a of arrows) byType[a.type].push(a);
  const crowded = arrows.length > g.width; // more than one a pixel column: lighter, so crossings stay legible
  ctx.lineWidth = crowded ? 0.8 : 1.2;
  ctx.globalAlpha = crowded ? 0.5 : 0.9;
  byType.forEach((group, type) => {
    if (group.length === 0) return;
    ctx.strokeStyle = MESSAGE_TYPES[type].color;
    ctx.beginPath();
    for (const a of group) {
      const [x0, y0, x1, y1] = [g.x(a.t0), g.laneMid(a.from), g.x(a.t1), g.laneMid(a.to)];
      ctx.moveTo(x0, y0);
      ctx.lineTo(x1, y1);
      arrowHead(ctx, x0, y0, x1, y1);
      hits.push({ line: [x0, y0, x1, y1], text: `${model.lanes[a.from]} → ${model.lanes[a.to]}: ${a.what} (sent ${a.t0} ms, received ${a.t1} ms)` });
    }
    ctx.stroke();
  });
  ctx.globalAlpha = 1;
  drawDrops(ctx, model, drops, g, hits);
  if (arrows.length <= LABELLED_ARROWS) labelArrows(ctx, arrows, g);
  return arrows.length;
}

function arrowHead(ctx, x0, y0, x1, y1) {
  const length = Math.hypot(x1 - x0, y1 - y0);
  if (length < 14) return;
  const [ux, uy] = [(x1 - x0) / length, (y1 - y0) / length];
  const size = 6;
  ctx.moveTo(x1 - size * ux + size * 0.5 * uy, y1 - size * uy - size * 0.5 * ux);
  ctx.lineTo(x1, y1);
  ctx.lineTo(x1 - size * ux - size * 0.5 * uy, y1 - size * uy + size * 0.5 * ux);
}

/** A dropped message: a dashed stub a third of the way to its receiver, ending in an x. */
function drawDrops(ctx, model, drops, g, hits) {
  ctx.lineWidth = 1.2;
  ctx.setLineDash([3, 2]);
  const ends = drops.map((d) => {
    const [x0, y0] = [g.x(d.t0), g.laneMid(d.from)];
    const end = [x0 + (g.x(d.t1) - x0) / 3, y0 + (g.laneMid(d.to) - y0) / 3];
    ctx.strokeStyle = MESSAGE_TYPES[d.type].color;
    ctx.beginPath();
    ctx.moveTo(x0, y0);
    ctx.lineTo(...end);
    ctx.stroke();
    hits.push({ point: end, text: `DROPPED (${d.why}) ${model.lanes[d.from]} → ${model.lanes[d.to]}: ${d.what} (sent ${d.t0} ms, dropped ${d.t1} ms)` });
    return end;
  });
  ctx.setLineDash([]);
  ctx.strokeStyle = "#343a40";
  ctx.lineWidth = 1.3;
  ctx.beginPath();
  for (const [x, y] of ends) cross(ctx, x, y, 3);
  ctx.stroke();
}

function cross(ctx, x, y, r) {
  ctx.moveTo(x - r, y - r);
  ctx.lineTo(x + r, y + r);
  ctx.moveTo(x + r, y - r);
  ctx.lineTo(x - r, y + r);
}

/** Labels each arrow near its start with its type and view/seq, skipping those that would overlap. */
function labelArrows(ctx, arrows, g) {
  ctx.font = "11px system-ui, sans-serif";
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  ctx.lineWidth = 3;
  ctx.strokeStyle = "rgba(255, 255, 255, 0.9)";
  const placed = [];
  for (const a of arrows) {
    const [x, y] = [g.x(a.t0) + (g.x(a.t1) - g.x(a.t0)) * 0.3 + 3, g.laneMid(a.from) + (g.laneMid(a.to) - g.laneMid(a.from)) * 0.3];
    const label = a.what.split(" ").slice(0, 2).join(" ");
    const box = [x, y - 7, x + ctx.measureText(label).width, y + 7];
    if (placed.some((other) => box[0] < other[2] && other[0] < box[2] && box[1] < other[3] && other[1] < box[3])) continue;
    placed.push(box);
    ctx.strokeText(label, x, y);
    ctx.fillStyle = MESSAGE_TYPES[a.type].color;
    ctx.fillText(label, x, y);
  }
}

function drawMarks(ctx, model, view, g, hits) {
  const from = lowerBound(model.marks, view.start, (m) => m.t);
  const marks = [];
  for (let i = from; i < model.marks.length && model.marks[i].t <= view.end; i++) marks.push(model.marks[i]);
  const labelCommits = marks.filter((m) => m.kind === "commit").length <= LABELLED_COMMITS;
  const labelEnds = model.lanes.map(() => -Infinity); // each lane's last seq label's right edge
  ctx.font = "bold 11px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  for (const m of marks) {
    const x = g.x(m.t);
    const y = m.kind === "commit" ? g.laneMid(m.lane) : g.laneTop(m.lane) + 11;
    ctx.fillStyle = ctx.strokeStyle = MARK_COLORS[m.kind] ?? "#212529";
    glyph(ctx, m.kind, x, y);
    if (m.kind === "commit" && labelCommits) {
      const label = `#${m.seq}`;
      const half = ctx.measureText(label).width / 2;
      if (x - half > labelEnds[m.lane] + 3) {
        ctx.fillStyle = MARK_COLORS.commit;
        ctx.fillText(label, x, y - 6);
        labelEnds[m.lane] = x + half;
      }
    }
    hits.push({ point: [x, y], text: `${m.text} at ${m.t} ms` });
  }
}

/** Each mark's shape: a dot for a commit, triangles for fault (down) and heal (up), and so on. */
function glyph(ctx, kind, x, y) {
  ctx.beginPath();
  ctx.lineWidth = 2;
  switch (kind) {
    case "commit":
      ctx.arc(x, y, 4, 0, 2 * Math.PI);
      ctx.fill();
      ctx.strokeStyle = "#fff";
      ctx.lineWidth = 1.2;
      return ctx.stroke();
    case "crash":
      cross(ctx, x, y, 5);
      return ctx.stroke();
    case "pause":
      ctx.fillRect(x - 4, y - 6, 3, 12);
      return ctx.fillRect(x + 1, y - 6, 3, 12);
    case "fault":
      polygon(ctx, [x - 6, y - 6], [x + 6, y - 6], [x, y + 4]);
      break;
    case "heal":
      polygon(ctx, [x - 6, y + 4], [x + 6, y + 4], [x, y - 6]);
      break;
    case "start":
    case "resume":
      polygon(ctx, [x, y - 6], [x + 9, y], [x, y + 6]);
      break;
    default: // penalize
      polygon(ctx, [x, y - 6], [x + 5, y], [x, y + 6], [x - 5, y]);
  }
  ctx.fill();
}

function polygon(ctx, ...points) {
  points.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(x, y) : ctx.lineTo(x, y)));
  ctx.closePath();
}

/** Every violation as a red line across the lanes; the first one as a wide band with its name. */
function drawViolations(ctx, model, view, g, hits) {
  model.violations.forEach((v, i) => {
    if (v.t < view.start || v.t > view.end) return;
    const x = g.x(v.t);
    const first = i === 0;
    ctx.fillStyle = "rgba(224, 49, 49, 0.16)";
    if (first) ctx.fillRect(x - 9, AXIS_HEIGHT, 18, g.height - AXIS_HEIGHT);
    ctx.fillStyle = VIOLATION_RED;
    ctx.fillRect(x - (first ? 1.5 : 1), AXIS_HEIGHT, first ? 3 : 2, g.height - AXIS_HEIGHT);
    const lane = model.lanes.indexOf(v.node);
    if (lane >= 0) {
      ctx.strokeStyle = VIOLATION_RED;
      ctx.lineWidth = 2.5;
      ctx.beginPath();
      ctx.arc(x, g.laneMid(lane), 9, 0, 2 * Math.PI);
      ctx.stroke();
    }
    const label = `✖ ${v.invariant}`;
    const row = AXIS_HEIGHT + 3 + (i % 3) * 20; // a few rows, so that close violations' names do not cover each other
    ctx.font = "bold 12px system-ui, sans-serif";
    const width = ctx.measureText(label).width + 10;
    const left = Math.min(x + 4, g.width - width - 2);
    ctx.fillStyle = VIOLATION_RED;
    ctx.fillRect(left, row, width, 17);
    ctx.fillStyle = "#fff";
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.fillText(label, left + 5, row + 9);
    hits.push({ point: [left + width / 2, row + 9], text: `${v.invariant} violated at ${v.t} ms${v.node ? ` (seen at ${v.node})` : ""}: ${v.detail}` });
  });
}

function drawHighlight(ctx, hit) {
  ctx.strokeStyle = "#000";
  ctx.lineWidth = 2.5;
  ctx.beginPath();
  if (hit.line) {
    ctx.moveTo(hit.line[0], hit.line[1]);
    ctx.lineTo(hit.line[2], hit.line[3]);
  } else if (hit.point) {
    ctx.arc(hit.point[0], hit.point[1], 7, 0, 2 * Math.PI);
  } else {
    ctx.rect(hit.rect[0], hit.rect[1], hit.rect[2] - hit.rect[0], hit.rect[3] - hit.rect[1]);
  }
  ctx.stroke();
}

/** The hit target nearest to (x, y): a mark or drop within 7 px, an arrow within 5 px, else a span under it. */
export function hitAt(hits, x, y) {
  let best;
  let bestDistance = Infinity;
  for (const hit of hits) {
    const distance = hit.point ? Math.hypot(hit.point[0] - x, hit.point[1] - y) - 2 : hit.line ? segmentDistance(hit.line, x, y) : Infinity;
    if (distance < bestDistance) [best, bestDistance] = [hit, distance];
  }
  if (bestDistance <= 5) return best;
  return hits.find((hit) => hit.rect && x >= hit.rect[0] && x <= hit.rect[2] && y >= hit.rect[1] && y <= hit.rect[3]);
}

function segmentDistance([x0, y0, x1, y1], x, y) {
  const [dx, dy] = [x1 - x0, y1 - y0];
  const along = dx === 0 && dy === 0 ? 0 : Math.max(0, Math.min(1, ((x - x0) * dx + (y - y0) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x0 + along * dx - x, y0 + along * dy - y);
}
