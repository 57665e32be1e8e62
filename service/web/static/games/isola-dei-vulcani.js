// L'isola dei vulcani: the hex map (axial "q,r" ids, pointy-top hexes, directions 0-5 = E,
// NE, NW, W, SW, SE as in service/games/isola_dei_vulcani/board.py) with its tiles, volcanoes,
// lava, craters, cracks and sunk hexes, the players' villages, colonists and Moai, and a panel
// per player. Everything comes from the view: the map of a match never changes shape, so the
// scale is fitted to every hex it ever had (standing and sunk).
import { svg, tag as el, text } from "../shell/svg.js";
import { seatName } from "../shell/text.js";
import { pick, plural, words, wording, SEAT_COLOURS } from "./lib/common.js";

const GAME = "isola-dei-vulcani";
const WIDTH = 1280;
const HEIGHT = 860;
const MAP = { x: 20, y: 50, w: 900, h: 790 };
const SQRT3 = Math.sqrt(3);
const DIRS = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];
const INK = "#1f2a30";
const SEA = "#3f7fa6";
const LAVA = "#e4572e";
const PAPER = "#f4f1e8";

function parse(id) {
  const [q, r] = id.split(",").map(Number);
  return { q, r };
}

/** A pleasant, stable land colour per tile: volcano tiles (1-8) darker, outer tiles lighter. */
function tileFill(tile) {
  const hue = 70 + ((tile * 47) % 70);
  return tile <= 8 ? `hsl(${hue} 32% 50%)` : `hsl(${hue} 38% 62%)`;
}

/** Pixel layout for one map: fitted to the map area, centred. */
function layout(ids) {
  const raw = ids.map((id) => {
    const { q, r } = parse(id);
    return { x: SQRT3 * (q + r / 2), y: 1.5 * r };
  });
  const minX = Math.min(...raw.map((p) => p.x)) - SQRT3 / 2;
  const maxX = Math.max(...raw.map((p) => p.x)) + SQRT3 / 2;
  const minY = Math.min(...raw.map((p) => p.y)) - 1;
  const maxY = Math.max(...raw.map((p) => p.y)) + 1;
  const size = Math.min(MAP.w / (maxX - minX), MAP.h / (maxY - minY), 70);
  const offX = MAP.x + (MAP.w - (maxX - minX) * size) / 2 - minX * size;
  const offY = MAP.y + (MAP.h - (maxY - minY) * size) / 2 - minY * size;
  return {
    size,
    at(id) {
      const { q, r } = parse(id);
      return { x: offX + size * SQRT3 * (q + r / 2), y: offY + size * 1.5 * r };
    },
  };
}

function corner(centre, size, degrees) {
  const a = (Math.PI / 180) * degrees;
  return { x: centre.x + size * Math.cos(a), y: centre.y + size * Math.sin(a) };
}

function hexPoints(centre, size) {
  return [30, 90, 150, 210, 270, 330].map((d) => corner(centre, size, d)).map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
}

/** Screen angle of direction d (E = 0°, NE = -60°, …). */
function dirAngle(d) {
  return -60 * d;
}

/** The two corners of the edge of hex `centre` facing direction d. */
function edgeEnds(centre, size, d) {
  return [corner(centre, size, dirAngle(d) - 30), corner(centre, size, dirAngle(d) + 30)];
}

function directionBetween(a, b) {
  const pa = parse(a);
  const pb = parse(b);
  return DIRS.findIndex(([dq, dr]) => pa.q + dq === pb.q && pa.r + dr === pb.r);
}

// ---------------------------------------------------------------------------------------------
// Pieces.

function village(x, y, s, seat, attributes) {
  const w = s * 0.2;
  return el("g", attributes,
    el("path", { d: `M${x - w} ${y + w * 0.8}v${-w}l${w} ${-w * 0.8}l${w} ${w * 0.8}v${w}z`, fill: SEAT_COLOURS[seat], stroke: INK, "stroke-width": 1.2 }));
}

function lyingMoai(x, y, s, seat, attributes) {
  const w = s * 0.24;
  return el("g", attributes,
    el("rect", { x: x - w, y: y - w * 0.32, width: 2 * w, height: w * 0.64, rx: w * 0.3, fill: "#8d8d86", stroke: SEAT_COLOURS[seat], "stroke-width": 2.2 }),
    el("circle", { cx: x - w * 0.6, cy: y, r: w * 0.12, fill: INK }));
}

function colonist(x, y, s, seat, count, attributes) {
  const r = s * 0.13;
  return el("g", attributes,
    el("circle", { cx: x, cy: y - r * 1.1, r: r * 0.7, fill: SEAT_COLOURS[seat], stroke: INK, "stroke-width": 1 }),
    el("path", { d: `M${x - r} ${y + r}q0 ${-r * 1.6} ${r} ${-r * 1.6}q${r} 0 ${r} ${r * 1.6}z`, fill: SEAT_COLOURS[seat], stroke: INK, "stroke-width": 1 }),
    count > 1 ? [
      el("circle", { cx: x + r * 1.3, cy: y - r * 1.4, r: r * 0.75, fill: "#fff", stroke: INK, "stroke-width": 0.8 }),
      text(x + r * 1.3, y - r * 1.05, String(count), { "font-size": r, "text-anchor": "middle", fill: INK, "font-weight": 700 }),
    ] : null);
}

function erectedMoai(x, y, s, seat) {
  const w = s * 0.13;
  return [
    el("rect", { x: x - w, y: y - w * 1.9, width: 2 * w, height: w * 3.4, rx: w * 0.6, fill: "#8d8d86", stroke: SEAT_COLOURS[seat], "stroke-width": 2.2 }),
    el("rect", { x: x - w * 0.6, y: y - w * 1.2, width: w * 1.2, height: w * 0.35, fill: INK }),
  ];
}

// ---------------------------------------------------------------------------------------------
// The map.

function hexCell(id, hex, geo, ctx, marks) {
  const c = geo.at(id);
  const s = geo.size;
  const legal = ctx.legal;
  const clickable = pick(legal, { to: id }, { hex: id });
  const parts = [
    el("polygon", { points: hexPoints(c, s), fill: tileFill(hex.tile), stroke: "rgba(0,0,0,.18)", "stroke-width": 1 }),
  ];
  if (hex.lava) {
    parts.push(el("polygon", { "data-kind": "lava", "data-id": id, points: hexPoints(c, s * 0.62), fill: LAVA, stroke: "#9c2a10", "stroke-width": 1.5, opacity: 0.92 }));
    parts.push(el("path", { d: `M${c.x - s * 0.3} ${c.y + s * 0.1}q${s * 0.15} ${-s * 0.2} ${s * 0.3} 0t${s * 0.3} 0`, stroke: "#ffb347", fill: "none", "stroke-width": 2 }));
  }
  if (hex.volcano !== null && hex.volcano !== undefined) {
    parts.push(el("g", { "data-kind": "volcano", "data-id": hex.volcano, "data-hex": id },
      el("path", { d: `M${c.x - s * 0.55} ${c.y + s * 0.4}L${c.x - s * 0.15} ${c.y - s * 0.42}h${s * 0.3}L${c.x + s * 0.55} ${c.y + s * 0.4}z`, fill: "#5b4636", stroke: INK, "stroke-width": 1.2 }),
      el("ellipse", { cx: c.x, cy: c.y - s * 0.42, rx: s * 0.16, ry: s * 0.07, fill: LAVA }),
      text(c.x, c.y + s * 0.3, String(hex.volcano), { "font-size": s * 0.36, "text-anchor": "middle", fill: "#fff", "font-weight": 700 })));
  } else {
    parts.push(text(c.x, c.y - s * 0.62, String(hex.tile), { "font-size": s * 0.2, "text-anchor": "middle", fill: "rgba(0,0,0,.45)" }));
  }
  if (marks.bay.has(id)) {
    parts.push(el("polygon", { "data-kind": "bay", "data-id": id, points: hexPoints(c, s * 0.9), fill: "none", stroke: "#fff", "stroke-width": 2, "stroke-dasharray": "5 4" }));
  }
  if (marks.targets.has(id)) {
    parts.push(el("polygon", { points: hexPoints(c, s * 0.82), fill: "none", stroke: "#ffe066", "stroke-width": 3 }));
  }
  if (clickable) {
    parts.push(el("polygon", { points: hexPoints(c, s * 0.7), fill: "none", stroke: "#fff", "stroke-width": 2, "stroke-dasharray": "2 4" }));
  }
  if (marks.sinking.has(id)) {
    parts.push(el("polygon", { points: hexPoints(c, s), fill: "url(#isola-sinking)", stroke: "none" }));
  }
  return el("g", {
    "data-kind": "hex", "data-id": id, "data-tile": hex.tile, "data-lava": hex.lava ? "true" : "false",
    "data-pick": clickable,
  }, parts);
}

/** The pieces on a hex in two rows: buildings (villages, lying Moai) above, colonists below. */
function hexPieces(id, hex, geo, ctx, decision) {
  const c = geo.at(id);
  const s = geo.size;
  const legal = ctx.legal;
  const prayable = decision && decision.kind === "prayer";
  const top = [
    ...hex.villages.map((seat) => ["village", seat]),
    ...hex.lying_moai.map((seat) => ["moai", seat]),
  ];
  const parts = [];
  top.forEach(([piece, seat], i) => {
    const x = c.x + (i - (top.length - 1) / 2) * s * 0.46;
    const y = c.y - s * 0.12;
    const clickable = prayable ? pick(legal, { type: "pray", hex: id, piece, owner: seat }) : null;
    const attributes = { "data-kind": piece === "village" ? "village" : "moai", "data-state": piece === "moai" ? "lying" : null, "data-seat": seat, "data-hex": id, "data-pick": clickable };
    parts.push(piece === "village" ? village(x, y, s, seat, attributes) : lyingMoai(x, y, s, seat, attributes));
  });
  const groups = hex.colonists.map((count, seat) => [seat, count]).filter(([, count]) => count > 0);
  groups.forEach(([seat, count], i) => {
    const x = c.x + (i - (groups.length - 1) / 2) * s * 0.42;
    const y = c.y + s * 0.42;
    const mine = ctx.seat === seat;
    const clickable = mine ? pick(legal, { from: id }) : null;
    parts.push(colonist(x, y, s, seat, count, { "data-kind": "colonist", "data-seat": seat, "data-hex": id, "data-count": count, "data-pick": clickable }));
  });
  return parts;
}

function crater(geyser, geo, ctx) {
  const c = geo.at(geyser.hex);
  const s = geo.size;
  const a = (Math.PI / 180) * dirAngle(geyser.dir);
  const x = c.x + Math.cos(a) * s * 0.66;
  const y = c.y + Math.sin(a) * s * 0.66;
  const clickable = pick(ctx.legal, { type: "erect", geyser: geyser.index });
  const taken = geyser.moai !== null && geyser.moai !== undefined;
  return el("g", {
    "data-kind": "crater", "data-id": geyser.index, "data-hex": geyser.hex, "data-moai": taken ? geyser.moai : null,
    "data-pick": clickable,
  },
  el("circle", { cx: x, cy: y, r: s * 0.15, fill: "#3a3330", stroke: clickable ? "#ffe066" : "#d9cfc0", "stroke-width": clickable ? 3 : 1.2 }),
  taken ? el("g", { "data-kind": "moai", "data-state": "erected", "data-seat": geyser.moai, "data-hex": geyser.hex }, erectedMoai(x, y, s, geyser.moai)) : null);
}

function crack(edge, geo) {
  const [a, b] = edge.split("|");
  const d = directionBetween(a, b);
  if (d < 0) return null;
  const [p, q] = edgeEnds(geo.at(a), geo.size, d);
  const mx = (p.x + q.x) / 2;
  const my = (p.y + q.y) / 2;
  const nx = (q.y - p.y) * 0.12;
  const ny = -(q.x - p.x) * 0.12;
  const zig = `M${p.x} ${p.y}L${(p.x + mx) / 2 + nx} ${(p.y + my) / 2 + ny}L${mx - nx} ${my - ny}L${(mx + q.x) / 2 + nx} ${(my + q.y) / 2 + ny}L${q.x} ${q.y}`;
  return el("g", { "data-kind": "crack", "data-id": edge },
    el("path", { d: zig, stroke: "#fff", "stroke-width": 6, fill: "none", "stroke-linejoin": "round", opacity: 0.7 }),
    el("path", { d: zig, stroke: "#111", "stroke-width": 3.2, fill: "none", "stroke-linejoin": "round" }));
}

/** Thick lines where two tiles (areas) meet, so the areas read at a glance. */
function areaBorders(hexes, geo) {
  const segments = [];
  for (const [id, hex] of Object.entries(hexes)) {
    const { q, r } = parse(id);
    DIRS.forEach(([dq, dr], d) => {
      const other = hexes[`${q + dq},${r + dr}`];
      if (!other || other.tile === hex.tile || id > `${q + dq},${r + dr}`) return;
      const [p1, p2] = edgeEnds(geo.at(id), geo.size, d);
      segments.push(`M${p1.x.toFixed(1)} ${p1.y.toFixed(1)}L${p2.x.toFixed(1)} ${p2.y.toFixed(1)}`);
    });
  }
  return el("path", { d: segments.join(""), stroke: "rgba(40,30,20,.55)", "stroke-width": 2.2, fill: "none", "stroke-linecap": "round" });
}

function map(view, ctx, geo) {
  const d = view.decision;
  const bays = new Set((view.players_info || []).flatMap((p) => p.landing_bay));
  const marks = {
    bay: bays,
    targets: new Set(d && d.targets ? d.targets : []),
    sinking: new Set(d && d.kind === "rescue" ? d.part : []),
  };
  const sunk = Object.entries(view.sunk || {}).map(([id, tile]) => {
    const c = geo.at(id);
    return el("g", { "data-kind": "sunk", "data-id": id, "data-tile": tile },
      el("polygon", { points: hexPoints(c, geo.size * 0.96), fill: "rgba(255,255,255,.07)", stroke: "rgba(255,255,255,.45)", "stroke-width": 1.2, "stroke-dasharray": "4 4" }));
  });
  const hexes = Object.entries(view.hexes);
  return [
    el("defs", {},
      el("pattern", { id: "isola-sinking", width: 8, height: 8, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
        el("rect", { width: 4, height: 8, fill: "rgba(20,60,110,.45)" }))),
    sunk,
    hexes.map(([id, hex]) => hexCell(id, hex, geo, ctx, marks)),
    areaBorders(view.hexes, geo),
    view.cracks.map((edge) => crack(edge, geo)),
    view.geysers.map((g) => crater(g, geo, ctx)),
    hexes.map(([id, hex]) => hexPieces(id, hex, geo, ctx, d)),
  ];
}

// ---------------------------------------------------------------------------------------------
// Panels.

function decisionLine(view) {
  const d = view.decision;
  if (view.over) return `Match over (${words(view.end_reason || "")}).`;
  if (!d) return `${seatName(view.current)} to play: ${plural(view.action_points, "action point")} left.`;
  if (d.kind === "prayer") return `Volcano ${d.volcano} erupts: ${d.waiting.map(seatName).join(", ")} may pray to save pieces.`;
  if (d.kind === "rescue") {
    return d.stage === "actor"
      ? `Part sinking: ${seatName(d.actor)} moves all colonists there to one hex.`
      : `Part sinking: ${d.waiting.map(seatName).join(", ")} save one colonist each.`;
  }
  return `${words(d.kind)}: ${(d.waiting || []).map(seatName).join(", ")}.`;
}

function playerPanel(view, ctx, info, y, h) {
  const seat = info.seat;
  const x0 = 940;
  const current = !view.over && view.current === seat;
  const final = view.final ? view.final[seat] : null;
  const boatPick = ctx.seat === seat ? pick(ctx.legal, { from: "boat" }) : null;
  const rows = [
    el("rect", { x: x0, y, width: 320, height: h - 8, rx: 8, fill: PAPER, stroke: current ? SEAT_COLOURS[seat] : "#c8c2b0", "stroke-width": current ? 3 : 1 }),
    el("rect", { x: x0, y, width: 8, height: h - 8, rx: 3, fill: SEAT_COLOURS[seat] }),
    text(x0 + 16, y + 20, `${seatName(seat)}${ctx.seat === seat ? " (you)" : ""}${current ? " · to play" : ""}`, { "font-size": 15, "font-weight": 700, fill: INK }),
    text(x0 + 308, y + 20, plural(final ? final.total : info.score, "pt"), { "font-size": 15, "font-weight": 700, "text-anchor": "end", fill: INK, "data-kind": "score", "data-seat": seat }),
    text(x0 + 16, y + 40, `supply: ${plural(info.supply.villages, "village")}, ${plural(info.supply.colonists, "colonist")}, ${info.supply.moai} Moai`, { "font-size": 13, fill: INK, "data-kind": "supply", "data-seat": seat }),
    text(x0 + 16, y + 57, `${plural(info.prayer_tokens, "prayer token")}`, { "font-size": 13, fill: INK, "data-kind": "prayer", "data-seat": seat, "data-count": info.prayer_tokens }),
    el("g", { "data-kind": "boat", "data-seat": seat, "data-count": info.boat, "data-pick": boatPick },
      el("path", { d: `M${x0 + 210} ${y + 58}h40l-6 8h-28z`, fill: "#7a4e2d", stroke: boatPick ? "#ffe066" : INK, "stroke-width": boatPick ? 2.5 : 1 }),
      el("path", { d: `M${x0 + 230} ${y + 58}v-12l10 10z`, fill: "#f0ead8", stroke: INK, "stroke-width": 0.8 }),
      text(x0 + 308, y + 60, `boat: ${info.boat}`, { "font-size": 13, fill: INK, "text-anchor": "end" })),
  ];
  if (final && h > 100) {
    const breakdown = [
      `${final.during_play} during play · villages ${final.villages} · Moai ${final.moai + final.adjacent_moai}`,
      `colonists ${final.colonists} · prayer tokens ${final.prayer_tokens}`,
    ];
    rows.push(breakdown.map((line, i) => text(x0 + 16, y + 78 + i * 17, line, { "font-size": 12, fill: "#5a4a2e" })));
  }
  return el("g", { "data-kind": "player", "data-seat": seat }, rows);
}

function panels(view, ctx) {
  const x0 = 940;
  const s = view.supply;
  const infoLines = [
    `Round ${view.round}${view.final_round ? " (final round)" : ""} · first player ${seatName(view.first_player)}`,
    `Last die: ${view.last_roll ? words(view.last_roll) : "—"} · volcano tokens: ${view.volcano_tokens.join(" ") || "none"}`,
    `Supply: ${s.lava} lava, ${plural(s.cracks, "crack")}, ${plural(s.prayer, "prayer token")}`,
  ];
  const list = view.players_info;
  const top = 190;
  const h = Math.min(112, (HEIGHT - top - 10) / list.length);
  return [
    text(x0, 38, "L'isola dei vulcani", { "font-size": 20, "font-weight": 700, fill: INK, "font-family": "Georgia, serif" }),
    text(x0, 64, decisionLine(view), { "font-size": 14, fill: INK, "data-kind": "status" }),
    infoLines.map((line, i) => text(x0, 90 + i * 20, line, { "font-size": 14, fill: INK })),
    el("g", { "data-kind": "legend" },
      village(x0 + 8, 160, 40, 0, {}), text(x0 + 20, 164, "village", { "font-size": 13, fill: INK }),
      lyingMoai(x0 + 86, 160, 40, 0, {}), text(x0 + 100, 164, "lying Moai", { "font-size": 13, fill: INK }),
      el("circle", { cx: x0 + 180, cy: 160, r: 6, fill: "#3a3330" }), text(x0 + 190, 164, "crater", { "font-size": 13, fill: INK }),
      el("path", { d: `M${x0 + 236} 154l6 6l-6 6`, stroke: "#111", "stroke-width": 3, fill: "none" }), text(x0 + 248, 164, "crack", { "font-size": 13, fill: INK })),
    list.map((info, i) => playerPanel(view, ctx, info, top + i * h, h)),
  ];
}

/** The island as one SVG string (contract §8). */
export function render(view, ctx = {}) {
  const c = { legal: ctx.legal || [], seat: ctx.seat ?? null, match: ctx.match };
  const geo = layout([...Object.keys(view.hexes), ...Object.keys(view.sunk || {})]);
  return svg(WIDTH, HEIGHT, `L'isola dei vulcani, round ${view.round}`,
    el("rect", { width: WIDTH, height: HEIGHT, fill: SEA }),
    el("rect", { x: 924, y: 0, width: WIDTH - 924, height: HEIGHT, fill: "#e9e4d6" }),
    map(view, c, geo),
    panels(view, c));
}

// ---------------------------------------------------------------------------------------------
// The move list.

/** What an action does, as an order ("build a village on 2,4"). */
function phrase(a) {
  switch (a.type) {
    case "move": return a.from === "boat" ? `land a colonist on ${a.to}` : `move a colonist from ${a.from} to ${a.to}`;
    case "move_moai": return `carry a Moai from ${a.from} to ${a.to}`;
    case "build": return `build a village on ${a.hex}`;
    case "create": return `create a colonist on ${a.hex}`;
    case "carve": return `carve a Moai on ${a.hex}`;
    case "erect": return `erect a Moai on crater ${a.geyser}`;
    case "buy_prayer": return "buy a prayer token";
    case "end_turn": return "end the turn";
    case "pray": return `pray for ${seatName(a.owner)}'s ${a.piece} on ${a.hex}`;
    case "accept_loss": return "let the lava take the rest";
    case "rescue": return a.to ? `rescue colonists to ${a.to}` : "choose where to rescue colonists";
    case "abandon": return "abandon the colonists";
    case "claim_sinking": return "claim a sinking";
    default: return words(a.type || "move");
  }
}

/** What an erection's events add: its points and an eruption. */
function result(entry) {
  const event = (type) => (entry.events || []).find((e) => e.type === type) || {};
  const points = event("moai_points").points;
  const volcano = event("die").volcano;
  const parts = [points !== undefined ? plural(points, "point") : "", volcano ? `volcano ${volcano} erupts` : ""].filter(Boolean);
  return parts.length ? ` (${parts.join("; ")})` : "";
}

/** The words of a legal action's button (docs/web.md) and of a history entry (contract §8). */
export const { label, describe } = wording(phrase, result);
