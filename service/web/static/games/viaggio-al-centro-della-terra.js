// Viaggio al centro della terra: the descent, the Lidenbrock Sea and the lava river with the
// explorers and the raft, the decks and display, each player's finds and, in seat mode, the
// hand. The boards come from the seed file the engine plays on (lib/common.js `loadSeed`).
import { svg, tag as el, text } from "../shell/svg.js";
import { seatName } from "../shell/text.js";
import { pick, loadSeed, plural, words, wording, SEAT_COLOURS } from "./lib/common.js";

const GAME = "viaggio-al-centro-della-terra";
const BOARD = await loadSeed(GAME, "board");
const CARDS = await loadSeed(GAME, "cards");

const WIDTH = 1280;
const HEIGHT = 860;
const COLOURS = { blue: "#2f6fd6", red: "#d23c2f", yellow: "#f0c419" };
const EQUIPMENT = {
  rope: { letter: "R", fill: "#a0652a" },
  pickaxe: { letter: "P", fill: "#6d7580" },
  compass: { letter: "C", fill: "#2e8b57" },
  biscuits: { letter: "B", fill: "#e07b24" },
  lamp: { letter: "L", fill: "#c9a227" },
  star: { letter: "★", fill: "#7b4fa0" },
};
const FOSSILS = {
  misc: { label: "Misc", fill: "#9c8b74" },
  skull_front: { label: "Skull F", fill: "#e9e2d0" },
  skull_back: { label: "Skull B", fill: "#d8cfb8" },
  skeleton_head: { label: "Head", fill: "#c7b59a" },
  skeleton_body: { label: "Body", fill: "#b9a386" },
  skeleton_tail: { label: "Tail", fill: "#a99072" },
  gold: { label: "Gold", fill: "#e5b80b" },
  quartz: { label: "Quartz", fill: "#b9d7e8" },
};
const CELL_FILL = {
  plain: "#d8c29d", rocks: "#b89466", chasm: "#2a1f17", spring: "#8fd0ea", event: "#ecd27a",
  discovery: "#e6cf9f", granite: "#57514b", water: "#4a8dbd", whirlpool: "#2d5f88",
};
const INK = "#2b2118";
const PAPER = "#f6efe2";

// ---------------------------------------------------------------------------------------------
// Board geometry: both boards are grids of `row,col` ids as in board.json.

const DESCENT = { x: 28, y: 104, w: 46, h: 27, rows: BOARD.descent.rows };
const SEA = { x: 484, y: 96, w: 44, h: 42, rows: BOARD.sea.rows };
const LAVA = { x: 478, y: 364, step: 31 };

function cellCode(code) {
  if (code === "#") return { kind: "granite" };
  if (code === ".") return { kind: "plain" };
  if (code === "C") return { kind: "chasm" };
  if (code === "W") return { kind: "whirlpool" };
  if (code === "H") return { kind: "spring" };
  if (code === "?") return { kind: "event" };
  if (code === "R2" || code === "R3") return { kind: "rocks", rocks: Number(code[1]) };
  if (code.startsWith("D:")) return { kind: "discovery", symbols: [...code.slice(2)].map((c) => BOARD.symbols[c]) };
  return { kind: "plain" };
}

function cellBox(grid, id) {
  const [row, col] = id.split(",").map(Number);
  return { x: grid.x + col * grid.w, y: grid.y + row * grid.h, w: grid.w, h: grid.h };
}

function centre(box) {
  return { x: box.x + box.w / 2, y: box.y + box.h / 2 };
}

/** Where an explorer or the raft stands, in board coordinates; null when off this board. */
function descentPoint(where) {
  if (where === "start") return { x: DESCENT.x + DESCENT.w / 2, y: DESCENT.y - 22 };
  if (where === "end") return null;
  if (where && where.includes(",")) return centre(cellBox(DESCENT, where));
  return null;
}

function seaPoint(where) {
  if (where === "start") return { x: SEA.x - 18, y: SEA.y + SEA.h * 1.5 };
  if (where === "end") return { x: SEA.x + SEA.rows[0].length * SEA.w + 18, y: SEA.y + SEA.h * 2 };
  if (where && where.includes(",")) return centre(cellBox(SEA, where));
  return null;
}

// ---------------------------------------------------------------------------------------------
// Small pieces.

function equipmentIcon(name, x, y, r = 7) {
  const eq = EQUIPMENT[name] || EQUIPMENT.star;
  return el("g", { "data-kind": "symbol", "data-id": name },
    el("circle", { cx: x, cy: y, r, fill: eq.fill, stroke: INK, "stroke-width": 0.8 }),
    text(x, y + r * 0.45, eq.letter, { "font-size": r * 1.25, "text-anchor": "middle", fill: "#fff", "font-weight": 700 }));
}

function cell(grid, board, id, code, legal, path) {
  const info = cellCode(code);
  const fill = CELL_FILL[board === "sea" && info.kind === "plain" ? "water" : info.kind];
  const box = cellBox(grid, id);
  const { x, y } = centre(box);
  const parts = [
    el("rect", {
      x: box.x + 1, y: box.y + 1, width: box.w - 2, height: box.h - 2, rx: 4,
      fill, stroke: path.has(id) ? "#fff" : "rgba(0,0,0,.25)",
      "stroke-width": path.has(id) ? 2.5 : 1,
    }),
  ];
  if (info.kind === "rocks") {
    for (let i = 0; i < info.rocks; i++) {
      parts.push(el("circle", { cx: x - (info.rocks - 1) * 5 + i * 10, cy: y, r: 4, fill: "#6b5238" }));
    }
  } else if (info.kind === "chasm") {
    parts.push(el("path", { d: `M${box.x + 6} ${y} l6 -5 l6 8 l6 -8 l6 8 l6 -5`, stroke: "#7a5b3f", fill: "none", "stroke-width": 1.5 }));
  } else if (info.kind === "spring") {
    parts.push(el("path", { d: `M${x} ${y - 8} q7 9 0 15 q-7 -6 0 -15z`, fill: "#1f78b4" }));
  } else if (info.kind === "event") {
    parts.push(text(x, y + 6, "?", { "font-size": 17, "text-anchor": "middle", "font-weight": 700, fill: "#7a4f00" }));
  } else if (info.kind === "whirlpool") {
    parts.push(el("path", { d: `M${x} ${y} m-3 0 a3 3 0 1 1 6 0 a6 6 0 1 1 -12 0 a9 9 0 1 1 18 0`, stroke: "#bfe3f5", fill: "none", "stroke-width": 1.6 }));
  } else if (info.kind === "discovery") {
    const n = info.symbols.length;
    info.symbols.forEach((s, i) => parts.push(equipmentIcon(s, x - (n - 1) * 8 + i * 16, y, 7)));
  }
  const clickable = pick(legal, { type: "step", to: id });
  if (clickable) {
    parts.push(el("rect", { x: box.x + 4, y: box.y + 4, width: box.w - 8, height: box.h - 8, rx: 3, fill: "none", stroke: "#fff", "stroke-width": 2, "stroke-dasharray": "3 3" }));
  }
  return el("g", {
    "data-kind": "cell", "data-board": board, "data-id": id, "data-cell": info.kind, "data-pick": clickable,
  }, parts);
}

function explorerPiece(colour, point, where, legal, offset = 0) {
  return el("g", {
    "data-kind": "explorer", "data-id": colour, "data-at": where,
    "data-pick": pick(legal, { type: "choose", colour }),
  },
  el("circle", { cx: point.x + offset, cy: point.y + 2, r: 9, fill: "rgba(0,0,0,.35)" }),
  el("circle", { cx: point.x + offset, cy: point.y, r: 9, fill: COLOURS[colour], stroke: "#fff", "stroke-width": 2 }));
}

function raftPiece(point, where) {
  const { x, y } = point;
  return el("g", { "data-kind": "raft", "data-at": String(where) },
    el("rect", { x: x - 17, y: y - 9, width: 34, height: 18, rx: 3, fill: "#8a5a2b", stroke: "#3b2612", "stroke-width": 1.5 }),
    el("path", { d: `M${x - 17} ${y - 3}h34M${x - 17} ${y + 3}h34`, stroke: "#5e3b19", "stroke-width": 1 }),
    ["blue", "red", "yellow"].map((c, i) => el("circle", { cx: x - 10 + i * 10, cy: y, r: 4, fill: COLOURS[c], stroke: "#fff", "stroke-width": 1 })));
}

function card(x, y, w, h, fill, label, attributes, extra = []) {
  return el("g", attributes,
    el("rect", { x, y, width: w, height: h, rx: 5, fill, stroke: INK, "stroke-width": 1.2 }),
    label ? text(x + w / 2, y + h - 7, label, { "font-size": 11.5, "text-anchor": "middle", fill: INK }) : null,
    extra);
}

function title(x, y, caption) {
  return text(x, y, caption, { "font-size": 17, "font-weight": 700, fill: INK, "font-family": "Georgia, serif" });
}

// ---------------------------------------------------------------------------------------------
// Parts of the drawing.

function descent(view, legal, path) {
  const rows = DESCENT.rows;
  const width = rows[0].length * DESCENT.w;
  const bottom = DESCENT.y + rows.length * DESCENT.h;
  const parts = [
    title(DESCENT.x, 40, "Descent (phase 1)"),
    el("path", {
      d: `M${DESCENT.x} ${DESCENT.y - 6} q${width / 2} -44 ${width} 0`, fill: "#a3472a", opacity: 0.35,
    }),
    // Above the crater's arch, clear of the explorers waiting at the start on its left.
    text(DESCENT.x + width / 2, DESCENT.y - 34, "crater", {
      "data-kind": "label", "data-id": "crater", "font-size": 13, fill: INK, "font-style": "italic", "text-anchor": "middle",
    }),
  ];
  rows.forEach((row, r) => row.forEach((code, c) => {
    parts.push(cell(DESCENT, "descent", `${r},${c}`, code, legal, path));
  }));
  const arrival = pick(legal, { type: "step", to: "end" });
  const endPick = view.phase === 1 ? arrival : null;
  parts.push(el("g", { "data-kind": "arrival", "data-board": "descent", "data-pick": endPick },
    el("rect", { x: DESCENT.x, y: bottom + 4, width, height: 30, rx: 6, fill: "#3d6b35", stroke: endPick ? "#fff" : "none", "stroke-width": 2 }),
    text(DESCENT.x + 8, bottom + 24, "Arrival · Foresta di funghi", { "font-size": 14, fill: "#fff" })));
  // Explorers: those on the board or arrived; in phases 2 and 3 they ride the raft.
  const arrived = [];
  const atStart = [];
  for (const [colour, where] of Object.entries(view.explorers)) {
    if (where === "end") arrived.push(colour);
    else if (where === "start") atStart.push(colour);
    else if (where !== "raft") parts.push(explorerPiece(colour, descentPoint(where), where, legal));
  }
  atStart.forEach((colour, i) => parts.push(explorerPiece(colour, descentPoint("start"), "start", legal, i * 20)));
  arrived.forEach((colour, i) => parts.push(explorerPiece(colour, { x: DESCENT.x + width - 16 - i * 20, y: bottom + 19 }, "end", legal)));
  return parts;
}

function movePath(view) {
  const d = view.decision;
  if (!d || d.kind !== "move" || !d.path.length) return [];
  const toPoint = view.phase === 2 ? seaPoint : descentPoint;
  const points = [d.from, ...d.path].map(toPoint).filter(Boolean);
  if (points.length < 2) return [];
  return [el("polyline", {
    "data-kind": "path", "data-count": d.path.length,
    points: points.map((p) => `${p.x},${p.y}`).join(" "),
    fill: "none", stroke: COLOURS[d.colour] || "#fff", "stroke-width": 4, "stroke-dasharray": "6 4", "stroke-linecap": "round", opacity: 0.9,
  })];
}

function sea(view, legal, path) {
  const cols = SEA.rows[0].length;
  const width = cols * SEA.w;
  const height = SEA.rows.length * SEA.h;
  const parts = [
    title(SEA.x - 40, 40, "Lidenbrock Sea (phase 2)"),
    el("rect", { x: SEA.x - 40, y: SEA.y - 8, width: 36, height: height + 16, rx: 6, fill: "#cbb38a" }),
    text(SEA.x - 22, SEA.y + height + 26, "shore", { "font-size": 13, "text-anchor": "middle", fill: INK, "font-style": "italic" }),
  ];
  const endPick = view.phase === 2 ? pick(legal, { type: "step", to: "end" }) : null;
  parts.push(el("g", { "data-kind": "arrival", "data-board": "sea", "data-pick": endPick },
    el("rect", { x: SEA.x + width + 4, y: SEA.y - 8, width: 36, height: height + 16, rx: 6, fill: "#8d9a6a", stroke: endPick ? "#fff" : "none", "stroke-width": 2 }),
    text(SEA.x + width + 22, SEA.y + height + 26, "Città in rovina", { "font-size": 13, "text-anchor": "middle", fill: INK, "font-style": "italic" })));
  SEA.rows.forEach((row, r) => row.forEach((code, c) => {
    parts.push(cell(SEA, "sea", `${r},${c}`, code, legal, path));
  }));
  if (view.phase === 2 && view.raft) parts.push(raftPiece(seaPoint(view.raft), view.raft));
  return parts;
}

function lava(view) {
  const spaces = BOARD.lava.spaces;
  const y0 = LAVA.y;
  const points = spaces.map((_, i) => ({ x: LAVA.x + i * LAVA.step, y: y0 + (i % 2 ? 18 : 0) }));
  const stromboli = { x: LAVA.x + spaces.length * LAVA.step + 26, y: y0 + 4 };
  const parts = [
    title(LAVA.x - 30, y0 - 42, "Lava river (phase 3)"),
    el("polyline", {
      points: [{ x: LAVA.x - 30, y: y0 }, ...points, stromboli].map((p) => `${p.x},${p.y}`).join(" "),
      fill: "none", stroke: "#e2571e", "stroke-width": 20, "stroke-linejoin": "round", "stroke-linecap": "round", opacity: 0.85,
    }),
    el("path", { d: `M${stromboli.x - 22} ${stromboli.y + 22} l22 -36 l22 36z`, fill: "#6b3a26", stroke: INK }),
    text(stromboli.x, stromboli.y + 36, "Stromboli", { "font-size": 13, "text-anchor": "middle", fill: INK, "font-style": "italic" }),
  ];
  spaces.forEach((space, i) => {
    const p = points[i];
    parts.push(el("g", { "data-kind": "lava-space", "data-id": i, "data-colour": space.colour, "data-loss": space.loss },
      el("circle", { cx: p.x, cy: p.y, r: 13, fill: COLOURS[space.colour], stroke: INK, "stroke-width": 1.2 }),
      space.loss ? text(p.x, p.y + 4, `−${space.loss}`, { "font-size": 13, "text-anchor": "middle", fill: "#fff", "font-weight": 700 }) : null));
  });
  if (view.lava_position !== null && view.lava_position !== undefined) {
    parts.push(raftPiece({ x: points[view.lava_position].x, y: points[view.lava_position].y - 22 }, `lava:${view.lava_position}`));
  } else if (view.phase === 3) {
    parts.push(raftPiece({ x: LAVA.x - 30, y: y0 - 22 }, "lava:start"));
  }
  return parts;
}

function supply(view, legal) {
  const x0 = 440;
  const y0 = 430;
  const parts = [title(x0, y0, "Decks and display")];
  const decks = [
    ["explorer", "Explorers", "#3c4f76", "explorer_deck"],
    ["equipment", "Equipment", "#5d4a33", "equipment_deck"],
    ["fossil", "Fossils", "#6e5e4b", null],
    ["event", "Events", "#7a3b58", null],
    ["adventure", "Sea adv.", "#2d5f88", null],
  ];
  decks.forEach(([id, label, fill, source], i) => {
    const x = x0 + i * 70;
    const clickable = source ? pick(legal, { type: "draw", source }) : null;
    parts.push(card(x, y0 + 14, 58, 72, fill, null,
      { "data-kind": "deck", "data-id": id, "data-count": view.deck_sizes[id], "data-pick": clickable },
      [
        text(x + 29, y0 + 56, String(view.deck_sizes[id]), { "font-size": 20, "text-anchor": "middle", fill: "#fff", "font-weight": 700 }),
        text(x + 29, y0 + 102, label, { "font-size": 12, "text-anchor": "middle", fill: INK }),
      ]));
  });
  const dx = x0 + 5 * 70 + 12;
  parts.push(text(dx, y0 + 10, "display", { "font-size": 13, fill: INK, "font-style": "italic" }));
  view.display.forEach((name, i) => {
    if (!name) return;
    const x = dx + i * 58;
    const clickable = pick(legal, { type: "draw", source: `display:${name}` });
    parts.push(card(x, y0 + 14, 54, 72, "#fbf6ea", words(name),
      { "data-kind": "card", "data-id": name, "data-zone": "display", "data-pick": clickable },
      equipmentIcon(name, x + 27, y0 + 44, 13)));
  });
  // Discards and the water supply, as one line of small counts.
  const y1 = y0 + 126;
  const discards = view.discards;
  let x = x0;
  parts.push(text(x, y1, "discards:", { "font-size": 13, fill: INK }));
  x += 56;
  for (const [colour, n] of Object.entries(discards.explorer)) {
    parts.push(el("g", { "data-kind": "discard", "data-id": colour, "data-count": n },
      el("rect", { x, y: y1 - 12, width: 16, height: 16, rx: 3, fill: COLOURS[colour] }),
      text(x + 20, y1 + 1, String(n), { "font-size": 13, fill: INK })));
    x += 40;
  }
  for (const [name, n] of Object.entries(discards.equipment)) {
    parts.push(el("g", { "data-kind": "discard", "data-id": name, "data-count": n },
      equipmentIcon(name, x + 8, y1 - 4, 8), text(x + 20, y1 + 1, String(n), { "font-size": 13, fill: INK })));
    x += 40;
  }
  parts.push(el("g", { "data-kind": "water-supply", "data-count": view.water_supply },
    el("path", { d: `M${x + 10} ${y1 - 14} q8 10 0 17 q-8 -7 0 -17z`, fill: "#1f78b4" }),
    text(x + 22, y1 + 1, `${view.water_supply} water in the supply`, { "font-size": 13, fill: INK })));
  return parts;
}

function decisionLine(view) {
  const d = view.decision;
  if (view.phase === "over") return "The lava has reached its end: the match is over.";
  if (!d) return "";
  const who = seatName(d.seat ?? (view.to_act || [])[0] ?? 0);
  switch (d.kind) {
    case "turn": return `${who}: draw 3 cards or move ${view.phase === 1 ? "an explorer" : "the raft"}.`;
    case "draw": return `${who} is drawing (${plural(d.left ?? 0, "card")} left to draw).`;
    case "move": {
      const what = view.phase === 1 ? `the ${d.colour} explorer` : `the raft (paying ${d.colour})`;
      return `${who} moves ${what}: ${plural(d.path.length, "step")}, ${plural(d.cards_needed, "card")} to pay.`;
    }
    case "discover": return `${who} may discover (${(d.symbols || []).map(words).join(", ")}).`;
    case "lamp": return `${who} returns ${plural(d.back, "fossil")} of the ${d.drawn_count} drawn with the lamp.`;
    case "loss": return `Fossils are lost (${words(d.why || "")}): every player with fossils decides.`;
    case "offer": return `Sea adventure offered to ${who}.`;
    case "lightning": return `Ball lightning: ${who} protects or is struck.`;
    case "favorable": return `${who}: Possibilità favorevole, return fossils to draw as many.`;
    default: return `${who}: ${words(d.kind)}.`;
  }
}

function players(view, ctx) {
  const x0 = 990;
  const list = view.players;
  const h = Math.min(200, (HEIGHT - 56) / list.length);
  const toAct = new Set(view.to_act || []);
  const outcome = ctx.match && ctx.match.outcome;
  const parts = [title(x0, 40, "Explorers' finds")];
  list.forEach((p, seat) => {
    const y = 56 + seat * h;
    const mine = ctx.seat === seat;
    const rows = [
      el("rect", { x: x0, y, width: 264, height: h - 10, rx: 8, fill: PAPER, stroke: toAct.has(seat) ? SEAT_COLOURS[seat] : "#c9b99a", "stroke-width": toAct.has(seat) ? 3 : 1 }),
      el("rect", { x: x0, y, width: 8, height: h - 10, rx: 3, fill: SEAT_COLOURS[seat] }),
      text(x0 + 16, y + 20, `${seatName(seat)}${mine ? " (you)" : ""}${toAct.has(seat) ? " · to act" : ""}`, { "font-size": 15, "font-weight": 700, fill: INK }),
    ];
    if (outcome && outcome.scores) {
      rows.push(text(x0 + 252, y + 20, plural(outcome.scores[seat], "pt"), { "font-size": 15, "text-anchor": "end", "font-weight": 700, fill: INK, "data-kind": "score", "data-seat": seat }));
    }
    Object.entries(FOSSILS).forEach(([type, info], i) => {
      const n = p.fossils[type] || 0;
      const fx = x0 + 14 + (i % 3) * 82;
      const fy = y + 30 + Math.floor(i / 3) * 23;
      const clickable = mine ? pick(ctx.legal, { type: "lose_fossil", fossil: type }, { type: "return_fossil", fossil: type }) : null;
      rows.push(el("g", { "data-kind": "fossil", "data-seat": seat, "data-id": type, "data-count": n, "data-pick": clickable, opacity: n ? 1 : 0.35 },
        el("rect", { x: fx, y: fy, width: 78, height: 20, rx: 10, fill: info.fill, stroke: clickable ? SEAT_COLOURS[seat] : "rgba(0,0,0,.3)", "stroke-width": clickable ? 2 : 1 }),
        text(fx + 7, fy + 14.5, info.label, { "font-size": 12, fill: INK }),
        text(fx + 71, fy + 14.5, String(n), { "font-size": 13, "text-anchor": "end", "font-weight": 700, fill: INK })));
    });
    const ly = y + 112;
    rows.push(el("g", { "data-kind": "water", "data-seat": seat, "data-count": p.water },
      el("path", { d: `M${x0 + 22} ${ly - 12} q7 9 0 15 q-7 -6 0 -15z`, fill: "#1f78b4" }),
      text(x0 + 34, ly, `${plural(p.water, "water token")}`, { "font-size": 13, fill: INK })));
    rows.push(el("g", { "data-kind": "hand-size", "data-seat": seat, "data-explorer": p.hand_sizes.explorer, "data-equipment": p.hand_sizes.equipment, "data-kept": p.kept_count },
      text(x0 + 16, ly + 18, `hand: ${p.hand_sizes.explorer} explorer · ${p.hand_sizes.equipment} equip. · ${p.kept_count} kept`, { "font-size": 13, fill: INK })));
    const extras = [...p.bonuses.map((b) => (CARDS.bonuses[b] || { name: words(b) }).name),
      ...p.sightings.map((s) => (CARDS.adventures.find((a) => a.id === s) || { name: words(s) }).name)];
    const lines = Math.max(0, Math.floor((h - 150) / 15));
    if (extras.length && lines) {
      rows.push(el("g", { "data-kind": "bonuses", "data-seat": seat, "data-count": extras.length },
        extras.slice(0, lines).map((name, i) => text(x0 + 16, ly + 36 + i * 15, `✦ ${name}`, { "font-size": 12, fill: "#5a3d1e", "font-style": "italic" }))));
    }
    parts.push(el("g", { "data-kind": "player", "data-seat": seat }, rows));
  });
  return parts;
}

function hand(view, legal) {
  if (!view.hand) return [];
  const x0 = 440;
  const y0 = 632;
  const parts = [title(x0, y0, `Your hand (${seatName(view.seat)})`)];
  let x = x0;
  for (const [colour, n] of Object.entries(view.hand.explorer)) {
    const clickable = pick(legal, { type: "choose", colour }, { type: "discard", card: colour });
    parts.push(card(x, y0 + 12, 50, 74, COLOURS[colour], null,
      { "data-kind": "hand-card", "data-id": colour, "data-count": n, "data-pick": n ? clickable : null, opacity: n ? 1 : 0.35 },
      text(x + 25, y0 + 58, `×${n}`, { "font-size": 18, "text-anchor": "middle", fill: colour === "yellow" ? INK : "#fff", "font-weight": 700 })));
    x += 58;
  }
  x += 10;
  for (const [name, n] of Object.entries(view.hand.equipment)) {
    const clickable = pick(legal, { type: "play_equipment", card: name }, { type: "discard", card: name });
    parts.push(card(x, y0 + 12, 46, 74, "#fbf6ea", `×${n}`,
      { "data-kind": "hand-card", "data-id": name, "data-count": n, "data-pick": n ? clickable : null, opacity: n ? 1 : 0.35 },
      equipmentIcon(name, x + 23, y0 + 42, 12)));
    x += 52;
  }
  const kept = view.hand.kept.map((id) => (CARDS.events.find((e) => e.id === id) || { name: words(id) }).name);
  parts.push(text(x0, y0 + 108, kept.length ? `Kept: ${kept.join(", ")}` : "No kept event cards.", { "font-size": 14, fill: INK, "data-kind": "kept", "data-count": kept.length }));
  const d = view.decision;
  if (d && d.kind === "lamp" && d.drawn) {
    const chips = d.drawn.map((f, i) => {
      const clickable = pick(legal, { type: "lamp_return", fossil: f });
      return el("g", { "data-kind": "lamp-fossil", "data-id": f, "data-pick": clickable },
        el("rect", { x: x0 + 120 + i * 64, y: y0 + 120, width: 58, height: 19, rx: 9, fill: FOSSILS[f].fill, stroke: INK }),
        text(x0 + 126 + i * 64, y0 + 133.5, FOSSILS[f].label, { "font-size": 12, fill: INK }));
    });
    parts.push(text(x0, y0 + 134, "Lamp drew:", { "font-size": 14, fill: INK }), chips);
  }
  return parts;
}

function legend() {
  const x0 = 440;
  const y = 826;
  const items = Object.keys(EQUIPMENT).map((name, i) => [equipmentIcon(name, x0 + 8 + i * 84, y - 4, 7),
    text(x0 + 19 + i * 84, y, name === "star" ? "any card" : name, { "font-size": 13, fill: INK })]);
  return el("g", { "data-kind": "legend" }, items,
    text(x0, y + 22, "rocks: 2–3 cards (1 with a pickaxe) · chasm/whirlpool: a rope · drop: Hans spring · ?: event", { "font-size": 13, fill: INK }));
}

/** The whole table as one SVG string (contract §8). */
export function render(view, ctx = {}) {
  const legal = ctx.legal || [];
  const d = view.decision;
  const path = new Set(d && d.kind === "move" ? d.path : []);
  // Both boards have cells named "1,2" and so on: each shows the steps of its own phase.
  const descentPath = view.phase === 1 ? path : new Set();
  const seaPath = view.phase === 2 ? path : new Set();
  const phaseNames = { 1: "Phase 1 · the descent", 2: "Phase 2 · the sea", 3: "Phase 3 · the lava flow", over: "Match over" };
  return svg(WIDTH, HEIGHT, `Viaggio al centro della terra: ${phaseNames[view.phase] || ""}`,
    el("rect", { width: WIDTH, height: HEIGHT, fill: "#efe4cf" }),
    descent(view, view.phase === 1 ? legal : [], descentPath),
    sea(view, view.phase === 2 ? legal : [], seaPath),
    movePath(view),
    lava(view),
    supply(view, legal),
    el("g", { "data-kind": "status" },
      text(440, 584, phaseNames[view.phase] || "", { "font-size": 14, "font-weight": 700, fill: INK }),
      text(440, 604, decisionLine(view), { "font-size": 14, fill: INK })),
    hand(view, legal),
    legend(),
    players(view, ctx));
}

// ---------------------------------------------------------------------------------------------
// The move list.

const SOURCES = { explorer_deck: "the explorer deck", equipment_deck: "the equipment deck" };

function fossilName(fossil) {
  return FOSSILS[fossil] ? FOSSILS[fossil].label.toLowerCase() : words(fossil);
}

function cardList(cards) {
  return (cards || []).map(words).join(", ");
}

/** What an action does, as an order ("draw from the explorer deck"): the words of a button
 * and, with the seat in front, of the move list. */
function phrase(a) {
  switch (a.type) {
    case "draw":
      return a.source && a.source.startsWith("display:")
        ? `take the ${words(a.source.slice(8))} from the display`
        : `draw from ${SOURCES[a.source] || words(a.source || "a deck")}`;
    case "discard": return `discard a ${words(a.card)} card`;
    case "choose": return `move ${a.colour}`;
    case "step": return a.to === "end" ? "step to the arrival" : `step to ${a.to}`;
    case "play_equipment": return `play a ${words(a.card)}`;
    case "play_flexible": return `play Uso flessibile as a ${words(a.as)}`;
    case "play_mix": return "play Miscela di colori";
    case "finish": return "end the move";
    case "finish_mixed": return `end the move paying ${cardList(a.colours)}`;
    case "discover": {
      const flexible = a.flexible ? `${a.flexible} × Uso flessibile` : "";
      return `discover paying ${[cardList(a.cards), flexible].filter(Boolean).join(" and ") || "nothing"}${a.lamp ? " with the lamp" : ""}`;
    }
    case "pass_discovery": return "pass the discovery";
    case "lamp_return": return a.fossil === "hidden" ? "put a fossil back under the deck" : `put a ${fossilName(a.fossil)} fossil back under the deck`;
    case "return_fossil": return `return a ${fossilName(a.fossil)} fossil`;
    case "keep_fossils": return "keep the other fossils";
    case "accept_adventure": return `pay ${cardList(a.colours)} for the sea adventure`;
    case "decline_adventure": return "decline the sea adventure";
    case "protect": return `pay ${cardList(a.colours)} against the ball lightning`;
    case "take_strike": return "take the ball lightning's strike";
    case "lose_fossil": return `lose a ${fossilName(a.fossil)} fossil`;
    case "use_luck": return "use Colpo di fortuna";
    case "discard_equipment": return "discard the equipment to save the fossils";
    case "pass": return "pass";
    default: return words(a.type || "move");
  }
}

/** What the referee's events add to a move: where a move ended, what a discovery drew. */
function result(entry) {
  const event = (type) => (entry.events || []).find((e) => e.type === type);
  const moved = event("moved");
  if (moved && moved.dest) return ` (${moved.colour} from ${moved.from} to ${moved.dest}, ${plural((moved.cards || []).length, "card")})`;
  const found = event("discovered");
  if (found) return ` (${plural(found.drawn ?? 0, "fossil")} drawn)`;
  return "";
}

/** The words of a legal action's button (docs/web.md) and of a history entry (contract §8). */
export const { label, describe } = wording(phrase, result);
