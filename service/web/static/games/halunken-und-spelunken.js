// Halunken und Spelunken: the ring of 14 taverns with their face-up top cards and how many
// cards each still holds, the captains and Black Jack on the spaces in front of them, the
// harbour and Black Jack's deck in the middle, and per seat the pirate cards taken (with the
// score they make now), the movement cards played and the hand size; in seat mode the seat's
// own movement cards. Clicks: a space (placing a captain or Black Jack, moving Black Jack
// aside), a movement card, a pirate card (bid, steal, give, take from the harbour).

import { svg, tag, text } from "../shell/svg.js";

const WIDTH = 960;
const HEIGHT = 672;
const CENTRE = { x: 296, y: 330 };
const TAVERN_RADIUS = 240;
const SPACE_RADIUS = 176;
const SPACES = 14;
const COLOURS = { red: "#c92a2a", purple: "#7048b8", green: "#2b8a3e", yellow: "#d9a400" };
const SEAT_COLOURS = ["#1d6fb8", "#e8590c", "#0c8599", "#c2255c"];
const INK = "#1f2933";
const MUTED = "#5f6b7a";

function parseCard(card) {
  const [colour, value] = String(card).split("-");
  return { colour, value: Number(value) };
}

/** A seat's score as the rulebook counts it at the end: the values of its pirate cards, plus
 *  once more the values of the colour it holds most cards of (the best colour on a tie). */
export function score(cards) {
  const byColour = new Map();
  for (const card of cards.map(parseCard)) {
    const entry = byColour.get(card.colour) ?? { count: 0, sum: 0 };
    byColour.set(card.colour, { count: entry.count + 1, sum: entry.sum + card.value });
  }
  const entries = [...byColour.values()];
  const face = entries.reduce((total, entry) => total + entry.sum, 0);
  const most = Math.max(0, ...entries.map((entry) => entry.count));
  const bonus = Math.max(0, ...entries.filter((entry) => entry.count === most).map((entry) => entry.sum));
  return face + bonus;
}

function at(space, radius) {
  const angle = ((-90 + (space * 360) / SPACES) * Math.PI) / 180;
  return { x: CENTRE.x + radius * Math.cos(angle), y: CENTRE.y + radius * Math.sin(angle) };
}

function pirateCard(card, x, y, attributes = {}, size = 1) {
  const { colour, value } = parseCard(card);
  const w = 30 * size;
  const h = 42 * size;
  return tag(
    "g",
    { transform: `translate(${x} ${y})`, ...attributes },
    tag("rect", { width: w, height: h, rx: 4 * size, fill: COLOURS[colour] ?? "#868e96", stroke: "#ffffff", "stroke-width": 1.5 }),
    text(w / 2, h / 2 + 7 * size, value, { "text-anchor": "middle", "font-size": 18 * size, "font-weight": 700, fill: "#ffffff" }),
  );
}

function cardBack(x, y, size = 1) {
  return tag("rect", { x, y, width: 30 * size, height: 42 * size, rx: 4 * size, fill: "#495057", stroke: "#ffffff", "stroke-width": 1.5 });
}

function tavernNode(tavern, pickable) {
  const { x, y } = at(tavern.space, TAVERN_RADIUS);
  const top = tavern.top
    ? pirateCard(tavern.top, -15, -21)
    : tavern.cards
      ? cardBack(-15, -21)
      : tag("rect", { x: -15, y: -21, width: 30, height: 42, rx: 4, fill: "none", stroke: "#adb5bd", "stroke-dasharray": "4 3" });
  return tag(
    "g",
    {
      "data-kind": "tavern",
      "data-space": tavern.space,
      "data-count": tavern.cards,
      "data-top": tavern.top,
      transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})`,
    },
    tag("circle", { r: 34, fill: "#f4ede1", stroke: "#c9b79c", "stroke-width": 2 }),
    top,
    tag("circle", { cx: 22, cy: -22, r: 10, fill: INK }),
    text(22, -18, tavern.cards, { "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: "#ffffff" }),
  );
}

function spaceNode(space, pick) {
  const { x, y } = at(space, SPACE_RADIUS);
  return tag(
    "g",
    { "data-kind": "space", "data-id": space, "data-pick": pick, transform: `translate(${x.toFixed(1)} ${y.toFixed(1)})` },
    tag("circle", { r: 24, fill: "#fbfaf7", stroke: "#ced4da", "stroke-width": 2 }),
    text(0, 5, space, { "text-anchor": "middle", "font-size": 13, fill: "#adb5bd" }),
  );
}

function captainNode(seat, space, sharing) {
  const { x, y } = at(space, SPACE_RADIUS);
  const dx = sharing ? -9 : 0;
  return tag(
    "g",
    { "data-kind": "captain", "data-seat": seat, "data-space": space, transform: `translate(${(x + dx).toFixed(1)} ${y.toFixed(1)})`, "pointer-events": "none" },
    tag("circle", { r: 17, fill: SEAT_COLOURS[seat], stroke: "#ffffff", "stroke-width": 3 }),
    text(0, 6, seat, { "text-anchor": "middle", "font-size": 16, "font-weight": 700, fill: "#ffffff" }),
  );
}

function blackJackNode(space, sharing) {
  const { x, y } = at(space, SPACE_RADIUS);
  const dx = sharing ? 9 : 0;
  return tag(
    "g",
    { "data-kind": "black-jack", "data-space": space, transform: `translate(${(x + dx).toFixed(1)} ${y.toFixed(1)})`, "pointer-events": "none" },
    tag("circle", { r: 17, fill: "#111111", stroke: "#f1c40f", "stroke-width": 3 }),
    text(0, 6, "BJ", { "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#f1c40f" }),
  );
}

function pickFor(legal, type, field, value) {
  return legal.some((action) => action.type === type && action[field] === value) ? { type, [field]: value } : null;
}

function spacePick(legal, space) {
  return legal.some((action) => action.space === space) ? { space } : null;
}

function cardPick(legal, card) {
  const action = legal.find((a) => ["bid", "steal", "give", "take_harbour"].includes(a.type) && a.card === card);
  return action ? { type: action.type, card } : null;
}

function middle(view, legal) {
  const { x, y } = CENTRE;
  const phase = String(view.phase).replaceAll("_", " ");
  const harbour = view.harbour.map((card, i) =>
    pirateCard(card, x - (Math.min(view.harbour.length, 9) * 26) / 2 + (i % 9) * 26, y + 6 + Math.floor(i / 9) * 38, {
      "data-kind": "harbour-card",
      "data-id": card,
      "data-pick": cardPick(legal, card),
    }, 0.8),
  );
  const deck = view.black_jack_deck;
  const deckLines = deck ? [`Black Jack's deck: ${deck.cards} left`, deck.used.length ? `used: ${deck.used.join(" ")}` : ""] : ["", ""];
  const auction = view.auction
    ? `Auction: ${view.auction.high_card ? `Seat ${view.auction.high_seat} bids ${view.auction.high_card}` : "no bid yet"}`
    : view.controller !== null && view.controller !== undefined
      ? `Seat ${view.controller} controls Black Jack`
      : "";
  return [
    text(x, y - 72, `Round ${Math.max(1, view.round)} of ${view.rounds}`, { "text-anchor": "middle", "font-size": 20, "font-weight": 700, fill: INK }),
    text(x, y - 50, phase, { "text-anchor": "middle", "font-size": 15, fill: MUTED, "data-kind": "phase" }),
    text(x, y - 28, auction, { "text-anchor": "middle", "font-size": 14, fill: INK }),
    text(x, y - 2, view.harbour.length ? "Harbour" : "Harbour: empty", { "text-anchor": "middle", "font-size": 13, fill: MUTED }),
    tag("g", { "data-kind": "harbour", "data-count": view.harbour.length }, harbour),
    text(x, y + 96, deckLines[0], { "text-anchor": "middle", "font-size": 13, fill: MUTED, "data-kind": "black-jack-deck", "data-count": deck?.cards }),
    text(x, y + 112, deckLines[1], { "text-anchor": "middle", "font-size": 12, fill: MUTED }),
  ];
}

function movementCard(card, x, y, attributes = {}) {
  return tag(
    "g",
    { transform: `translate(${x} ${y})`, ...attributes },
    tag("rect", { width: 24, height: 32, rx: 4, fill: "#fff9db", stroke: "#c9b79c", "stroke-width": 1.5 }),
    text(12, 21, card === "rum" ? "R" : card, { "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: INK }),
  );
}

function seatPanel(view, seat, y, ctx) {
  const x = 604;
  const cards = view.collections[seat];
  const toAct = view.to_act.includes(seat);
  const you = ctx.seat === seat;
  const taken = cards.map((card, i) =>
    pirateCard(card, x + 12 + (i % 12) * 26, y + 32 + Math.floor(i / 12) * 36, {
      "data-kind": "pirate-card",
      "data-seat": seat,
      "data-id": card,
      "data-pick": cardPick(ctx.legal, card),
    }, 0.75),
  );
  const played = view.played[seat].map((card, i) => movementCard(card, x + 12 + i * 27, y + 118, { "data-kind": "movement-card", "data-seat": seat, "data-id": card }));
  const marks = [
    view.controller === seat ? "controls Black Jack" : "",
    view.committed[seat] ? "has chosen" : "",
    view.auction?.out?.[seat] ? "out of the auction" : "",
  ].filter(Boolean).join(" · ");
  return tag(
    "g",
    { "data-kind": "seat", "data-seat": seat, "data-count": cards.length, "data-score": score(cards) },
    tag("rect", { x, y, width: 340, height: 156, rx: 10, fill: toAct ? "#fff4cc" : "#ffffff", stroke: toAct ? "#f2b705" : "#d5dbe3", "stroke-width": 2 }),
    tag("circle", { cx: x + 18, cy: y + 17, r: 9, fill: SEAT_COLOURS[seat] }),
    text(x + 34, y + 22, `Seat ${seat}${you ? " (you)" : ""}`, { "font-size": 15, "font-weight": 700, fill: you ? "#1d6fb8" : INK }),
    text(x + 330, y + 22, `score ${score(cards)}`, { "text-anchor": "end", "font-size": 15, "font-weight": 700, fill: INK }),
    cards.length ? taken : text(x + 12, y + 56, "no pirate cards yet", { "font-size": 12, fill: MUTED }),
    text(x + 12, y + 112, [`played (${view.hand_sizes[seat]} in hand)`, marks].filter(Boolean).join(" · "), { "font-size": 11, fill: MUTED }),
    played,
  );
}

function handNode(view, ctx) {
  const y = HEIGHT - 52;
  const cards = view.hand.map((card, i) =>
    tag(
      "g",
      { "data-kind": "card", "data-id": card, "data-pick": pickFor(ctx.legal, "play", "card", card) ?? pickFor(ctx.legal, "bid", "card", card), transform: `translate(${40 + i * 44} ${y})` },
      tag("rect", { width: 38, height: 46, rx: 6, fill: "#fff9db", stroke: SEAT_COLOURS[ctx.seat] ?? INK, "stroke-width": 2 }),
      text(19, 30, card === "rum" ? "Rum" : card, { "text-anchor": "middle", "font-size": card === "rum" ? 13 : 20, "font-weight": 700, fill: INK }),
    ),
  );
  return tag("g", { "data-kind": "hand", "data-seat": ctx.seat, "data-count": view.hand.length }, text(40, y - 8, "Your movement cards", { "font-size": 13, fill: MUTED }), cards);
}

export function render(view, ctx) {
  const taverns = view.taverns.map((tavern) => tavernNode(tavern));
  const spaces = Array.from({ length: SPACES }, (_, space) => spaceNode(space, spacePick(ctx.legal, space)));
  const pieces = [];
  view.captains.forEach((space, seat) => {
    if (space !== null) pieces.push(captainNode(seat, space, space === view.black_jack));
  });
  if (view.black_jack !== null && view.black_jack !== undefined) {
    pieces.push(blackJackNode(view.black_jack, view.captains.includes(view.black_jack)));
  }
  const panelGap = Math.min(164, (HEIGHT - 20) / view.players);
  const seats = view.collections.map((_, seat) => seatPanel(view, seat, 14 + seat * panelGap, ctx));
  return svg(
    WIDTH,
    HEIGHT,
    "Halunken und Spelunken: taverns, captains, Black Jack and the pirate cards taken",
    tag("rect", { width: WIDTH, height: HEIGHT, fill: "#fbfaf7" }),
    tag("circle", { cx: CENTRE.x, cy: CENTRE.y, r: TAVERN_RADIUS + 44, fill: "#e7f1f8", stroke: "#c5d9e8", "stroke-width": 2 }),
    tag("circle", { cx: CENTRE.x, cy: CENTRE.y, r: SPACE_RADIUS - 34, fill: "#f5f9fc", stroke: "#c5d9e8" }),
    taverns,
    spaces,
    pieces,
    middle(view, ctx.legal),
    seats,
    Array.isArray(view.hand) && view.hand.length ? handNode(view, ctx) : "",
  );
}

const card = (c) => (c === "rum" ? "the Rum" : String(c));

export function label(action) {
  switch (action.type) {
    case "place_captain":
      return `Place your captain at space ${action.space}`;
    case "place_black_jack":
      return `Place Black Jack at space ${action.space}`;
    case "move_black_jack":
      return `Move Black Jack aside to space ${action.space}`;
    case "bid":
      return `Bid ${action.card}`;
    case "pass":
      return "Pass";
    case "play":
      return `Play ${card(action.card)}`;
    case "play_black_jack":
      return `Black Jack plays ${card(action.card)}`;
    case "rum":
      return `The Rum counts ${action.value}`;
    case "steal":
      return `Steal ${action.card}`;
    case "decline":
      return "Leave the opponent's cards";
    case "give":
      return `Give ${action.card} to the harbour`;
    case "take_harbour":
      return `Take ${action.card} from the harbour`;
    default:
      return null;
  }
}

/** What happened besides the action itself, in the order it happened (the events that move
 *  pieces or cards). */
function consequences(events) {
  const words = [];
  for (const e of events) {
    switch (e.type) {
      case "revealed":
        words.push(`cards revealed: ${Object.entries(e.cards).map(([who, c]) => `${who === "bj" ? "Black Jack" : `Seat ${who}`} ${card(c)}`).join(", ")}`);
        break;
      case "captain_moved":
        words.push(`Seat ${e.seat} moved ${e.steps} to space ${e.to_space}`);
        break;
      case "took_tavern_card":
        words.push(`Seat ${e.seat} took ${e.card}`);
        break;
      case "stole":
        words.push(`Seat ${e.seat} stole ${e.card} from Seat ${e.victim}`);
        break;
      case "black_jack_moved":
        words.push(`Black Jack moved ${e.steps} to space ${e.to_space}`);
        break;
      case "robbed_by_black_jack":
        words.push(`Black Jack robbed Seat ${e.seat ?? e.victim}`);
        break;
      case "auction_won":
        words.push(`Seat ${e.seat} wins Black Jack for ${e.card}`);
        break;
      case "round_started":
        words.push(`round ${e.round} begins`);
        break;
      default:
        break;
    }
  }
  return words.length ? ` (${words.join("; ")})` : "";
}

export function describe(entry) {
  const who = `Seat ${entry.seat}`;
  const { action, events = [] } = entry;
  let sentence;
  switch (action.type) {
    case "place_captain": {
      const start = events.find((e) => e.type === "start_card");
      sentence = `${who} placed its captain at space ${action.space}${start ? ` and took ${start.card}` : ""}`;
      break;
    }
    case "play":
    case "play_black_jack": {
      const whose = action.type === "play" ? "a movement card" : "Black Jack's card";
      sentence = action.card === null ? `${who} chose ${whose}` : `${who} chose ${card(action.card)}${action.type === "play" ? "" : " for Black Jack"}`;
      break;
    }
    case "pass":
      sentence = `${who} passed`;
      break;
    case "decline":
      sentence = `${who} left the opponent's cards`;
      break;
    default:
      sentence = `${who}: ${(label(action) ?? action.type).replace(/^./, (c) => c.toLowerCase())}`;
  }
  return `${sentence}${consequences(events.filter((e) => e.type !== "start_card"))}.`;
}
