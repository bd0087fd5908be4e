// The trace view page (docs/simulation.md, "The trace view"): loads ./trace.jsonl from its server, or a trace file the user
// opens, and lets them zoom and pan over the timeline. Plain browser JavaScript, no build step, no network
// beyond its own server. The body's data-* attributes (lanes, arrows, view-start, view-end) are for tests.
import { buildModel, MESSAGE_TYPES, parseTraceFile } from "./trace-model.js";
import { AXIS_HEIGHT, drawTimeline, hitAt, MARK_COLORS, SPAN_STYLES, VIOLATION_RED } from "./timeline.js";

const MIN_VIEW_MS = 2;
/** "go to violation" shows this long a stretch around it: its last messages are readable there. */
const VIOLATION_VIEW_MS = 600;
const WHEEL_ZOOM = 0.002;

const state = { model: undefined, view: { start: 0, end: 1 }, hits: [], hover: undefined, drag: undefined, frame: 0 };
const $ = (id) => document.getElementById(id);
const canvas = $("timeline");
const ms = (t) => `${Math.round(t).toLocaleString("en-US")} ms`;

async function loadFromServer() {
  let text = "";
  try {
    const response = await fetch("./trace.jsonl", { cache: "no-store" });
    if (response.ok) text = await response.text();
  } catch {
    // opened as a file, without its server
  }
  if (text.trim() === "") return showMessage("No trace here yet: open a trace file (chainsim-sim-trace/1 JSON lines).", "empty");
  show(text, "trace.jsonl");
}

function show(text, source) {
  try {
    state.model = buildModel(parseTraceFile(text));
  } catch (error) {
    state.model = undefined;
    $("violation").hidden = true;
    document.body.dataset.lanes = "0";
    return showMessage(`${source}: ${error.message}`, "error");
  }
  $("message").hidden = true;
  document.body.dataset.state = "ready";
  renderRun(source);
  renderViolation();
  layout();
  fit();
}

function showMessage(text, bodyState) {
  document.body.dataset.state = bodyState;
  $("message").textContent = text;
  $("message").hidden = false;
  $("summary").textContent = bodyState === "error" ? "unreadable trace" : "no trace";
  $("summary").className = "badge";
}

function renderRun(source) {
  const { header, lanes, end } = state.model;
  const failed = (header.failures ?? []).length > 0;
  $("summary").textContent = failed ? `FAILED: ${header.failures.map((f) => f.invariant).join(", ")}` : "every invariant held";
  $("summary").className = `badge ${failed ? "failed" : "ok"}`;
  const hash = header.trace_hash ? ` · trace ${String(header.trace_hash).slice(0, 12)}` : "";
  $("run").textContent = `${source} · seed ${header.seed} · ${lanes.length} validators · ${ms(end)} simulated${hash}`;
}

function renderViolation() {
  const banner = $("violation");
  const first = state.model.violations[0];
  banner.hidden = !first;
  if (!first) return void delete banner.dataset.invariant;
  banner.dataset.invariant = first.invariant;
  banner.dataset.at = String(first.t);
  $("violation-invariant").textContent = first.invariant;
  $("violation-where").textContent = `at ${ms(first.t)}${first.node ? `, seen at ${first.node}` : ""}`;
  $("violation-detail").textContent = first.detail;
  const others = (state.model.header.failures ?? []).map((f) => f.invariant).filter((name) => name !== first.invariant);
  $("violation-more").textContent = others.length ? `(also failed: ${others.join(", ")})` : "";
}

/** Lane height from the window, the canvas at the device's pixel ratio, and one label per lane. */
function layout() {
  if (!state.model) return;
  const lanes = state.model.lanes;
  const laneHeight = Math.max(56, Math.min(130, Math.floor((window.innerHeight - 260) / lanes.length)));
  const width = $("canvas-box").clientWidth;
  const height = AXIS_HEIGHT + laneHeight * lanes.length;
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.height = `${height}px`;
  canvas.getContext("2d").setTransform(ratio, 0, 0, ratio, 0, 0);
  const labels = $("lane-labels");
  labels.replaceChildren(
    ...lanes.map((name, i) => {
      const label = document.createElement("div");
      label.className = "lane-label";
      label.dataset.lane = name;
      label.textContent = name;
      label.style.top = `${AXIS_HEIGHT + i * laneHeight}px`;
      label.style.height = `${laneHeight}px`;
      return label;
    }),
  );
  labels.style.height = `${height}px`;
  document.body.dataset.lanes = String(lanes.length);
  requestDraw();
}

function requestDraw() {
  if (!state.frame) state.frame = requestAnimationFrame(draw);
}

function draw() {
  state.frame = 0;
  if (!state.model) return;
  const { view } = state;
  const width = canvas.clientWidth;
  const height = parseFloat(canvas.style.height);
  const drawn = drawTimeline(canvas.getContext("2d"), state.model, view, { width, height, timers: $("show-timers").checked, hover: state.hover });
  state.hits = drawn.hits;
  Object.assign(document.body.dataset, { arrows: String(drawn.arrowsDrawn), viewStart: String(view.start), viewEnd: String(view.end) });
  $("range").textContent = `${ms(view.start)} – ${ms(view.end)}  (${ms(view.end - view.start)} in view, ${drawn.arrowsDrawn} messages)`;
}

/** Sets the view, kept within the run (with a margin) and no narrower than MIN_VIEW_MS. */
function setView(start, end) {
  const margin = state.model.end * 0.02 + 10;
  const span = Math.min(Math.max(end - start, MIN_VIEW_MS), state.model.end + 2 * margin);
  start = Math.min(Math.max(start, -margin), state.model.end + margin - span);
  state.view = { start, end: start + span };
  state.hover = undefined;
  $("tooltip").hidden = true;
  requestDraw();
}

const fit = () => setView(-state.model.end * 0.01, state.model.end * 1.01);
const pan = (fraction) => setView(state.view.start + fraction * (state.view.end - state.view.start), state.view.end + fraction * (state.view.end - state.view.start));
const timeAt = (x) => state.view.start + (x / canvas.clientWidth) * (state.view.end - state.view.start);

/** Zooms by `factor` (below 1: in) keeping time `t` where it is on screen. */
function zoom(factor, t = (state.view.start + state.view.end) / 2) {
  const { start, end } = state.view;
  setView(t - (t - start) * factor, t + (end - t) * factor);
}

function goToViolation() {
  const first = state.model?.violations[0];
  if (first) setView(first.t - VIOLATION_VIEW_MS / 2, first.t + VIOLATION_VIEW_MS / 2);
}

function onWheel(event) {
  if (!state.model) return;
  event.preventDefault();
  const x = event.offsetX;
  if (event.shiftKey || Math.abs(event.deltaX) > Math.abs(event.deltaY)) return pan((event.deltaX || event.deltaY) / canvas.clientWidth);
  zoom(Math.exp(event.deltaY * WHEEL_ZOOM), timeAt(x));
}

function onPointerDown(event) {
  if (!state.model) return;
  canvas.setPointerCapture(event.pointerId);
  canvas.classList.add("dragging");
  state.drag = { x: event.offsetX, view: state.view };
}

function onPointerMove(event) {
  if (!state.model) return;
  if (state.drag) {
    const { x, view } = state.drag;
    const shift = ((x - event.offsetX) / canvas.clientWidth) * (view.end - view.start);
    return setView(view.start + shift, view.end + shift);
  }
  const hit = hitAt(state.hits, event.offsetX, event.offsetY);
  if (hit !== state.hover) {
    state.hover = hit;
    requestDraw();
  }
  const tooltip = $("tooltip");
  tooltip.hidden = !hit;
  if (!hit) return;
  tooltip.textContent = hit.text;
  const left = Math.min(event.offsetX + 14, canvas.clientWidth - tooltip.offsetWidth - 4);
  tooltip.style.left = `${Math.max(0, left)}px`;
  tooltip.style.top = `${event.offsetY + 16}px`;
}

function onPointerUp() {
  state.drag = undefined;
  canvas.classList.remove("dragging");
}

function onKey(event) {
  if (!state.model || event.ctrlKey || event.metaKey || event.altKey) return;
  const actions = {
    ArrowLeft: () => pan(-0.2),
    ArrowRight: () => pan(0.2),
    "+": () => zoom(0.5),
    "=": () => zoom(0.5),
    "-": () => zoom(2),
    0: fit,
    f: fit,
    v: goToViolation,
    t: () => $("show-timers").click(),
  };
  const action = actions[event.key];
  if (!action) return;
  event.preventDefault();
  action();
}

function openFile() {
  const file = $("open-file").files[0];
  if (!file) return;
  file.text().then((text) => show(text, file.name), (error) => showMessage(`${file.name}: ${error.message}`, "error"));
}

function renderLegend() {
  const item = (marker, label) => {
    const span = document.createElement("span");
    span.className = "item";
    span.append(marker, label);
    return span;
  };
  const marker = (className, style, text = "") => Object.assign(document.createElement("span"), { className, textContent: text, style });
  const heading = (text) => Object.assign(document.createElement("span"), { className: "heading", textContent: text });
  $("legend").replaceChildren(
    heading("messages"),
    ...MESSAGE_TYPES.map((type) => item(marker("swatch", `background:${type.color}`), type.name)),
    item(marker("icon", "", "┄✕"), "dropped"),
    heading("marks"),
    item(marker("icon", `color:${MARK_COLORS.commit}`, "●"), "commit (#seq)"),
    item(marker("icon", `color:${MARK_COLORS.fault}`, "▼"), "fault"),
    item(marker("icon", `color:${MARK_COLORS.heal}`, "▲"), "heal"),
    item(marker("icon", `color:${MARK_COLORS.start}`, "▶"), "start"),
    item(marker("icon", `color:${MARK_COLORS.crash}`, "✕"), "crash"),
    item(marker("icon", `color:${MARK_COLORS.pause}`, "❚❚"), "pause / ▶ resume"),
    item(marker("icon", `color:${MARK_COLORS.penalize}`, "◆"), "penalize"),
    item(marker("band", `background:${SPAN_STYLES.fault.fill};border-top:2px solid ${SPAN_STYLES.fault.edge}`), "fault until heal (a partition: its side)"),
    item(marker("band", `background:${SPAN_STYLES.crash.fill};border-top:2px solid ${SPAN_STYLES.crash.edge}`), "down"),
    item(marker("band", `background:${SPAN_STYLES.pause.fill};border-top:2px solid ${SPAN_STYLES.pause.edge}`), "paused"),
    item(marker("icon", "color:#868e96", "╵"), "timer"),
    item(marker("band", `background:${VIOLATION_RED}`), "invariant violation"),
  );
}

canvas.addEventListener("wheel", onWheel, { passive: false });
canvas.addEventListener("pointerdown", onPointerDown);
canvas.addEventListener("pointermove", onPointerMove);
canvas.addEventListener("pointerup", onPointerUp);
canvas.addEventListener("pointerleave", () => {
  $("tooltip").hidden = true;
  state.hover = undefined;
  requestDraw();
});
document.addEventListener("keydown", onKey);
window.addEventListener("resize", layout);
$("pan-left").addEventListener("click", () => state.model && pan(-0.3));
$("pan-right").addEventListener("click", () => state.model && pan(0.3));
$("zoom-in").addEventListener("click", () => state.model && zoom(0.5));
$("zoom-out").addEventListener("click", () => state.model && zoom(2));
$("fit").addEventListener("click", () => state.model && fit());
$("goto-violation").addEventListener("click", goToViolation);
$("show-timers").addEventListener("change", requestDraw);
$("open-file").addEventListener("change", openFile);
renderLegend();
loadFromServer();
