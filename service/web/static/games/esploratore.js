// Esploratore: the row of twelve positions from Mercury to Pluto, each with its top card's
// orbital lines (0 = innermost, red, at the top) and meeting points, so that lines that
// continue from card to card read as one orbit; the vehicles on their lines; the face-down
// piles, the reserve, the score sheet and, in seat mode, the hand.
import { svg, tag as el, text } from "../shell/svg.js";
import { seatName } from "../shell/text.js";
import { pick, plural, words, wording, SEAT_COLOURS } from "./lib/common.js";

const GAME = "esploratore";
const WIDTH = 1280;
const HEIGHT = 860;
const LINE_COLOURS = ["#e23b3b", "#f08a24", "#f2c718", "#3fae49", "#27b5c9", "#2f6fd6", "#8a4fcf"];
const RESOURCES = { bronze: "#b07a3c", biomass: "#4f9d3a", energy: "#e0b400", water: "#3a8fd6" };
const NAMES = {
  mercury: "Mercury", venus: "Venus", earth: "Earth", mars: "Mars", asteroids: "Asteroids", jupiter: "Jupiter",
  saturn: "Saturn", space1: "Space 1", space2: "Space 2", uranus: "Uranus", neptune: "Neptune", pluto: "Pluto",
};
const ROW = { x: 28, y: 118, col: 102, cardW: 94, lineGap: 33, top: 18 };
const CARD_H = ROW.top * 2 + ROW.lineGap * 6;
const INK = "#e8ecf4";
const DIM = "#8d97ad";
const SPACE = "#0f1626";

function lineY(i) {
  return ROW.y + ROW.top + i * ROW.lineGap;
}

function columnX(index) {
  return ROW.x + index * ROW.col;
}

// ---------------------------------------------------------------------------------------------
// Cards and vehicles.

/** A card face: its lines edge to edge, meeting points as rings. `scale` shrinks it for the hand. */
function cardFace(x, y, w, lines, meeting, scale = 1) {
  const top = ROW.top * scale;
  const gap = ROW.lineGap * scale;
  const h = top * 2 + gap * 6;
  return [
    el("rect", { x, y, width: w, height: h, rx: 6 * scale, fill: "#1c2740", stroke: "#3a4866", "stroke-width": 1 }),
    lines.map((i) => el("rect", { "data-kind": "orbit", "data-line": i, x, y: y + top + i * gap - 3 * scale, width: w, height: 6 * scale, fill: LINE_COLOURS[i] })),
    meeting.map((i) => el("circle", { "data-kind": "meeting", "data-line": i, cx: x + w / 2, cy: y + top + i * gap, r: 7 * scale, fill: "#fff", stroke: LINE_COLOURS[i], "stroke-width": 3 * scale })),
  ];
}

function vehicleShape(kind, x, y, fill, stroke) {
  if (kind === "ship") return el("path", { d: `M${x - 11} ${y + 9}L${x} ${y - 11}L${x + 11} ${y + 9}z`, fill, stroke, "stroke-width": 1.8 });
  if (kind === "station") return el("rect", { x: x - 10, y: y - 10, width: 20, height: 20, rx: 3, fill, stroke, "stroke-width": 1.8 });
  const pts = [0, 60, 120, 180, 240, 300].map((d) => {
    const a = (Math.PI / 180) * d;
    return `${(x + 12.5 * Math.cos(a)).toFixed(1)},${(y + 12.5 * Math.sin(a)).toFixed(1)}`;
  }).join(" ");
  return el("polygon", { points: pts, fill, stroke, "stroke-width": 1.5 });
}

function vehicles(view, ctx, columns) {
  const bySlot = new Map();
  for (const v of view.vehicles) {
    const slot = `${v.position}/${v.line}`;
    if (!bySlot.has(slot)) bySlot.set(slot, []);
    bySlot.get(slot).push(v);
  }
  const moved = new Set(view.moved || []);
  const parts = [];
  for (const list of bySlot.values()) {
    list.forEach((v, i) => {
      const cx = columnX(columns[v.position]) + ROW.cardW / 2 + (i - (list.length - 1) / 2) * 27;
      const cy = lineY(v.line);
      const mine = ctx.seat === v.owner;
      const clickable = mine ? pick(ctx.legal, { vehicle: v.id }) : null;
      parts.push(el("g", {
        "data-kind": "vehicle", "data-id": v.id, "data-seat": v.owner, "data-vehicle": v.kind, "data-position": v.position, "data-line": v.line,
        "data-multiplier": v.multiplier, "data-pick": clickable,
      },
      vehicleShape(v.kind, cx, cy, SEAT_COLOURS[v.owner], clickable ? "#fff" : "#0b0f1a"),
      v.kind !== "ship" ? text(cx, cy + 4, `×${v.multiplier}`, { "font-size": 12, "text-anchor": "middle", fill: "#0b0f1a", "font-weight": 700 }) : null,
      v.connected ? el("circle", { cx: cx + 11, cy: cy - 11, r: 4, fill: "#ffd166", stroke: "#0b0f1a", "stroke-width": 1 }) : null,
      moved.has(v.id) ? el("circle", { cx, cy, r: 16, fill: "none", stroke: "#fff", "stroke-width": 1, "stroke-dasharray": "2 2" }) : null));
    });
  }
  return parts;
}

// ---------------------------------------------------------------------------------------------
// The row of positions.

function position(p, index, ctx) {
  const x = columnX(index);
  const legal = ctx.legal;
  const playHere = pick(legal, { type: "play", position: p.position });
  const parts = [];
  if (p.top) {
    parts.push(el("g", {
      "data-kind": "card", "data-id": p.top.card, "data-position": p.position, "data-flip": p.top.flip ? "true" : null,
      "data-lines": p.top.lines.join(" "), "data-meeting": p.top.meeting.join(" "), "data-pick": playHere,
    }, cardFace(x, ROW.y, ROW.cardW, p.top.lines, p.top.meeting)));
    // Line slots: where a vehicle may go (move, build on Earth, shift after a play).
    for (const line of p.top.lines) {
      const slot = pick(legal, { type: "move", position: p.position, line },
        ...(p.position === "earth" ? [{ type: "build", line }] : []), { type: "shift", line });
      if (slot) {
        parts.push(el("rect", {
          "data-kind": "slot", "data-position": p.position, "data-line": line, "data-pick": slot,
          x: x + 2, y: lineY(line) - 10, width: ROW.cardW - 4, height: 20, rx: 4, fill: "rgba(255,255,255,.12)", stroke: "#fff", "stroke-width": 1, "stroke-dasharray": "3 3",
        }));
      }
    }
  } else {
    parts.push(el("rect", {
      "data-kind": "empty", "data-position": p.position, "data-pick": playHere,
      x: x + 1, y: ROW.y, width: ROW.cardW - 2, height: CARD_H, rx: 6, fill: playHere ? "rgba(255,255,255,.08)" : "none", stroke: playHere ? "#fff" : "#34405a", "stroke-width": 1.2, "stroke-dasharray": "5 4",
    }));
  }
  const earth = p.position === "earth";
  parts.push(text(x + ROW.cardW / 2, ROW.y - 26, NAMES[p.position] || words(p.position), { "font-size": 15, "text-anchor": "middle", fill: earth ? "#7fd1ff" : INK, "font-weight": earth ? 700 : 600 }));
  parts.push(text(x + ROW.cardW / 2, ROW.y - 10, p.stack.length ? `${plural(p.stack.length, "card")} laid` : "no card", { "font-size": 12, "text-anchor": "middle", fill: DIM, "data-kind": "stack", "data-position": p.position, "data-count": p.stack.length }));
  // The face-down pile and the yield below the card.
  const py = ROW.y + CARD_H + 14;
  const draw = pick(legal, { type: "draw", pile: p.position });
  parts.push(el("g", { "data-kind": "pile", "data-id": p.position, "data-count": p.pile, "data-pick": draw, opacity: p.pile ? 1 : 0.4 },
    el("rect", { x: x + 24, y: py, width: 46, height: 34, rx: 4, fill: "#3b2d5c", stroke: draw ? "#fff" : "#5b4d80", "stroke-width": draw ? 2 : 1 }),
    text(x + 47, py + 22, String(p.pile), { "font-size": 16, "text-anchor": "middle", fill: "#fff", "font-weight": 700 })));
  const yields = Object.entries(p.yield).filter(([, n]) => n > 0);
  yields.forEach(([resource, n], i) => {
    const yx = x + 8 + (i % 2) * 44;
    const yy = py + 52 + Math.floor(i / 2) * 20;
    parts.push(el("g", { "data-kind": "yield", "data-position": p.position, "data-id": resource, "data-count": n },
      el("circle", { cx: yx + 6, cy: yy - 4, r: 6, fill: RESOURCES[resource] }),
      text(yx + 15, yy, String(n), { "font-size": 13, fill: INK })));
  });
  if (!yields.length) parts.push(text(x + ROW.cardW / 2, py + 52, "no yield", { "font-size": 12, "text-anchor": "middle", fill: DIM }));
  return el("g", { "data-kind": "position", "data-id": p.position, "data-index": index }, parts);
}

// ---------------------------------------------------------------------------------------------
// Score sheet, status, hand.

function status(view) {
  const who = (view.to_act || []).map(seatName).join(", ");
  if (view.phase === "over") return `Match over after ${plural(view.round, "round")}.`;
  const phases = {
    setup: "choosing starting cards", play: "play, exchange or skip", shift: "may shift a vehicle", draw: "draws a card",
    build: "builds or combines", move: "moves vehicles", upkeep: "pays upkeep", offer: "answers a barter offer",
  };
  return `Round ${view.round} of ${view.rounds} · ${who} ${phases[view.phase] || words(view.phase)}`;
}

function scoreSheet(view, ctx) {
  const x0 = 28;
  const y0 = 500;
  const sheet = view.score_sheet;
  const resources = sheet.resources;
  const parts = [
    text(x0, y0, "Score sheet", { "font-size": 16, "font-weight": 700, fill: INK, "font-family": "Georgia, serif" }),
    resources.map((r, i) => el("g", {},
      el("circle", { cx: x0 + 236 + i * 86, cy: y0 + 18, r: 6, fill: RESOURCES[r] }),
      text(x0 + 246 + i * 86, y0 + 22, r, { "font-size": 13, fill: DIM }))),
    text(x0 + 600, y0 + 22, "this round", { "font-size": 13, fill: DIM }),
    ctx.match && ctx.match.outcome ? text(x0 + 750, y0 + 22, "types led", { "font-size": 13, "text-anchor": "end", fill: DIM }) : null,
  ];
  const order = view.order || [];
  const outcome = ctx.match && ctx.match.outcome;
  for (let seat = 0; seat < view.players; seat++) {
    const y = y0 + 44 + seat * 26;
    const totals = sheet.totals ? sheet.totals[seat] : null;
    const round = sheet.this_round ? sheet.this_round[seat] : null;
    const toAct = (view.to_act || []).includes(seat);
    parts.push(el("g", { "data-kind": "player", "data-seat": seat },
      el("rect", { x: x0, y: y - 17, width: 760, height: 23, rx: 4, fill: toAct ? "rgba(127,209,255,.16)" : "rgba(255,255,255,.04)" }),
      el("rect", { x: x0, y: y - 17, width: 6, height: 23, rx: 2, fill: SEAT_COLOURS[seat] }),
      text(x0 + 14, y, `${seatName(seat)}${ctx.seat === seat ? " (you)" : ""}`, { "font-size": 14, fill: INK, "font-weight": 700 }),
      text(x0 + 120, y, `${plural(view.hand_sizes[seat], "card")} · turn ${order.indexOf(seat) + 1}`, { "font-size": 13, fill: DIM, "data-kind": "hand-size", "data-seat": seat, "data-count": view.hand_sizes[seat] }),
      resources.map((r, i) => text(x0 + 246 + i * 86, y, totals ? String(totals[i]) : "hidden", {
        "font-size": 14, fill: INK, "data-kind": "total", "data-seat": seat, "data-id": r, "data-count": totals ? totals[i] : null,
      })),
      text(x0 + 600, y, round ? round.join(" / ") : "—", { "font-size": 13, fill: DIM }),
      outcome && outcome.scores ? text(x0 + 750, y, `${outcome.scores[seat]}${outcome.winners.includes(seat) ? " ★" : ""}`, { "font-size": 14, "text-anchor": "end", fill: "#ffd166", "font-weight": 700, "data-kind": "score", "data-seat": seat }) : null));
  }
  return parts;
}

function hand(view, ctx) {
  if (!Array.isArray(view.hand)) return [];
  const x0 = 820;
  const y0 = 500;
  const scale = 0.62;
  const w = 60;
  const parts = [text(x0, y0, `Your hand (${seatName(view.seat ?? ctx.seat)})`, { "font-size": 16, "font-weight": 700, fill: INK, "font-family": "Georgia, serif" })];
  view.hand.forEach((c, i) => {
    const x = x0 + i * (w + 44);
    const clickable = pick(ctx.legal, { card: c.card });
    parts.push(el("g", { "data-kind": "hand-card", "data-id": c.card, "data-pick": clickable },
      cardFace(x, y0 + 14, w, c.lines, c.meeting, scale),
      clickable ? el("rect", { x: x - 2, y: y0 + 12, width: w + 4, height: CARD_H * scale + 4, rx: 5, fill: "none", stroke: "#fff", "stroke-width": 1.5 }) : null,
      text(x + w / 2, y0 + 14 + CARD_H * scale + 18, c.card, { "font-size": 13, "text-anchor": "middle", fill: INK }),
      text(x + w / 2, y0 + 14 + CARD_H * scale + 34, NAMES[c.position] || "wild", { "font-size": 12, "text-anchor": "middle", fill: DIM })));
  });
  return parts;
}

function legend() {
  const x0 = 28;
  const y = 820;
  const item = (x, shape, label) => [shape, text(x + 24, y, label, { "font-size": 13, fill: DIM })];
  return el("g", { "data-kind": "legend" },
    item(x0, vehicleShape("ship", x0 + 8, y - 5, "#c9d2e3", "#0b0f1a"), "ship ×1"),
    item(x0 + 110, vehicleShape("station", x0 + 118, y - 5, "#c9d2e3", "#0b0f1a"), "station ×2"),
    item(x0 + 240, vehicleShape("factory", x0 + 248, y - 5, "#c9d2e3", "#0b0f1a"), "factory ×3–6"),
    item(x0 + 390, el("circle", { cx: x0 + 398, cy: y - 5, r: 7, fill: "#fff", stroke: LINE_COLOURS[0], "stroke-width": 3 }), "meeting point"),
    item(x0 + 540, el("circle", { cx: x0 + 548, cy: y - 5, r: 4, fill: "#ffd166", stroke: "#0b0f1a" }), "yields: meeting point linked to Earth"),
    text(x0 + 860, y, "purple box: face-down pile", { "font-size": 13, fill: DIM }));
}

/** The row of positions as one SVG string (contract §8). */
export function render(view, ctx = {}) {
  const c = { legal: ctx.legal || [], seat: ctx.seat ?? null, match: ctx.match };
  const columns = Object.fromEntries(view.positions.map((p, i) => [p.position, i]));
  const reservePick = pick(c.legal, { type: "draw", pile: "reserve" });
  return svg(WIDTH, HEIGHT, `Esploratore: ${status(view)}`,
    el("rect", { width: WIDTH, height: HEIGHT, fill: SPACE }),
    el("circle", { cx: -80, cy: ROW.y + CARD_H / 2, r: 100, fill: "#ffb703", opacity: 0.8 }),
    text(28, 36, "Esploratore", { "font-size": 22, "font-weight": 700, fill: INK, "font-family": "Georgia, serif" }),
    text(190, 36, status(view), { "font-size": 16, fill: INK, "data-kind": "status" }),
    view.positions.map((p, i) => position(p, i, c)),
    vehicles(view, c, columns),
    el("g", { "data-kind": "pile", "data-id": "reserve", "data-count": view.reserve, "data-pick": reservePick },
      el("rect", { x: 1130, y: 20, width: 46, height: 34, rx: 4, fill: "#5c2d4a", stroke: reservePick ? "#fff" : "#80506d", "stroke-width": reservePick ? 2 : 1 }),
      text(1153, 42, String(view.reserve), { "font-size": 16, "text-anchor": "middle", fill: "#fff", "font-weight": 700 }),
      text(1184, 42, "reserve", { "font-size": 13, fill: DIM })),
    scoreSheet(view, c),
    hand(view, c),
    offerLine(view),
    legend());
}

function offerLine(view) {
  const o = view.offer;
  const due = view.upkeep_due;
  const resources = view.score_sheet.resources;
  const lines = [];
  if (o) lines.push(`Barter: ${seatName(o.from)} offers ${seatName(o.partner)} ${o.amount} ${o.give} for ${o.amount} ${o.get}.`);
  if (due) {
    const owed = due.map((n, i) => [n, resources[i]]).filter(([n]) => n > 0).map(([n, r]) => `${n} ${r}`);
    lines.push(`Upkeep due: ${owed.join(", ") || "nothing"}.`);
  }
  return lines.map((line, i) => text(28, 790 - i * 18, line, { "font-size": 14, fill: "#ffd166", "data-kind": "offer" }));
}

// ---------------------------------------------------------------------------------------------
// The move list.

function place(id) {
  return NAMES[id] || words(id);
}

/** What an action does, as an order ("play MAR-4 on Mars"). */
function phrase(a) {
  switch (a.type) {
    case "play": return `play ${a.card} on ${place(a.position)}${a.flip ? " upside down" : ""}`;
    case "exchange": return a.card ? `put ${a.card} into the reserve` : "put a card into the reserve";
    case "skip_play": return "play no card";
    case "shift": return `shift vehicle ${a.vehicle} to line ${a.line}`;
    case "skip_shift": return "leave the vehicles where they are";
    case "draw": return `draw from ${a.pile === "reserve" ? "the reserve" : `the ${place(a.pile)} pile`}`;
    case "build": return `build a ship on Earth's line ${a.line}`;
    case "combine": return `combine vehicles ${(a.vehicles || []).join(", ")}`;
    case "skip_build": return "build nothing";
    case "move": return `move vehicle ${a.vehicle} to ${place(a.position)}, line ${a.line}`;
    case "end_moves": return "end the moves";
    case "trade": return `trade 5 ${a.give} for 1 ${a.get}`;
    case "offer": return `offer ${seatName(a.partner)} ${a.amount} ${a.give} for ${a.amount} ${a.get}`;
    case "accept_offer": return "accept the barter";
    case "decline_offer": return "decline the barter";
    case "pay_upkeep": return "pay the upkeep";
    default: return words(a.type || "move");
  }
}

/** What the events add: the vehicle a combination made, the turn's yield. */
function result(entry) {
  const event = (type) => (entry.events || []).find((e) => e.type === type) || {};
  const made = event("combined").into;
  if (made) return ` (a ${made})`;
  const gained = event("scored").resources;
  if (Array.isArray(gained)) return ` (yield ${gained.reduce((sum, n) => sum + n, 0)})`;
  return "";
}

/** The words of a legal action's button (docs/web.md) and of a history entry (contract §8). */
export const { label, describe } = wording(phrase, result);
