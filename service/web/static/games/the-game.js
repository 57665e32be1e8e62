// The Game: the four piles with their tops and counts, the draw pile, every seat's hand count,
// the agreement on who starts, and in seat mode the seat's own hand (click a card, then a pile).

import { svg, tag, text } from "../shell/svg.js";
import { plural } from "./lib/common.js";

const WIDTH = 820;
const HEIGHT = 500;
const CARD_W = 112;
const CARD_H = 156;
const HAND_W = 58;
const HAND_H = 84;

/** A card's colour by its number, 2 red … 99 violet, as the printed cards run through hues. */
function hue(card) {
  return Math.round(((card - 2) / 97) * 280);
}

function pileLabel(pile, index) {
  return `${pile.direction === "up" ? "↑" : "↓"} pile ${index}`;
}

function pileNode(pile, index, x, y) {
  const up = pile.direction === "up";
  const fill = pile.count ? `hsl(${hue(pile.top)} 70% 92%)` : "#f1f3f6";
  const stroke = pile.on_fire ? "#d9480f" : pile.count ? `hsl(${hue(pile.top)} 55% 45%)` : "#9aa5b1";
  return tag(
    "g",
    {
      "data-kind": "pile",
      "data-id": index,
      "data-top": pile.top,
      "data-count": pile.count,
      "data-direction": pile.direction,
      "data-pick": { pile: index },
      transform: `translate(${x} ${y})`,
    },
    tag("rect", { width: CARD_W, height: CARD_H, rx: 12, fill, stroke, "stroke-width": pile.on_fire ? 4 : 2 }),
    text(CARD_W / 2, 26, `${up ? "↑ from 1" : "↓ from 100"}`, { "text-anchor": "middle", "font-size": 14, fill: "#52606d" }),
    text(CARD_W / 2, 98, pile.top, { "text-anchor": "middle", "font-size": 48, "font-weight": 700, fill: "#1f2933" }),
    text(CARD_W / 2, 140, pile.count === 1 ? "1 card" : `${pile.count} cards`, { "text-anchor": "middle", "font-size": 14, fill: "#52606d" }),
    pile.on_fire ? text(CARD_W - 14, 22, "🔥", { "text-anchor": "middle", "font-size": 16 }) : "",
    text(CARD_W / 2, CARD_H + 22, pileLabel(pile, index), { "text-anchor": "middle", "font-size": 15, fill: "#1f2933" }),
  );
}

function drawPileNode(count, x, y) {
  const layers = Math.min(4, Math.ceil(count / 25));
  const backs = Array.from({ length: layers }, (_, i) =>
    tag("rect", { x: -i * 3, y: -i * 3, width: CARD_W, height: CARD_H, rx: 12, fill: "#2f4858", stroke: "#f5f7fa", "stroke-width": 2 }),
  ).reverse();
  return tag(
    "g",
    { "data-kind": "draw-pile", "data-count": count, transform: `translate(${x} ${y})` },
    count ? backs : tag("rect", { width: CARD_W, height: CARD_H, rx: 12, fill: "none", stroke: "#9aa5b1", "stroke-dasharray": "6 5" }),
    text(CARD_W / 2, 90, count, { "text-anchor": "middle", "font-size": 34, "font-weight": 700, fill: count ? "#ffffff" : "#9aa5b1" }),
    text(CARD_W / 2, CARD_H + 22, "draw pile", { "text-anchor": "middle", "font-size": 15, fill: "#1f2933" }),
  );
}

function seatNode(view, seat, x, y, ctx) {
  const count = view.hand_counts[seat];
  const turn = view.turn === seat && !view.over;
  const you = ctx.seat === seat;
  const fan = Array.from({ length: Math.min(count, 8) }, (_, i) =>
    tag("rect", { x: 10 + i * 9, y: 30, width: 26, height: 36, rx: 4, fill: "#2f4858", stroke: "#ffffff", "stroke-width": 1.5 }),
  );
  return tag(
    "g",
    { "data-kind": "hand-count", "data-seat": seat, "data-count": count, transform: `translate(${x} ${y})` },
    tag("rect", { width: 140, height: 78, rx: 10, fill: turn ? "#fff4cc" : "#f5f7fa", stroke: turn ? "#f2b705" : "#d5dbe3", "stroke-width": 2 }),
    text(10, 20, `Seat ${seat}${you ? " (you)" : ""}`, { "font-size": 14, "font-weight": 600, fill: you ? "#1d6fb8" : "#1f2933" }),
    fan,
    text(130, 56, count, { "text-anchor": "end", "font-size": 22, "font-weight": 700, fill: "#1f2933" }),
  );
}

function handNode(hand, ctx, y) {
  const playable = new Set(ctx.legal.filter((a) => a.type === "play").map((a) => a.card));
  const gap = 8;
  const total = hand.length * HAND_W + (hand.length - 1) * gap;
  const start = (WIDTH - total) / 2;
  const cards = hand.map((card, i) =>
    tag(
      "g",
      {
        "data-kind": "card",
        "data-id": card,
        "data-pick": playable.has(card) ? { type: "play", card } : null,
        transform: `translate(${start + i * (HAND_W + gap)} ${y})`,
      },
      tag("rect", { width: HAND_W, height: HAND_H, rx: 8, fill: `hsl(${hue(card)} 75% 88%)`, stroke: `hsl(${hue(card)} 55% 40%)`, "stroke-width": 2 }),
      text(HAND_W / 2, 52, card, { "text-anchor": "middle", "font-size": 26, "font-weight": 700, fill: "#1f2933" }),
    ),
  );
  return tag("g", { "data-kind": "hand", "data-seat": ctx.seat, "data-count": hand.length }, text(WIDTH / 2, y - 10, "Your hand", { "text-anchor": "middle", "font-size": 14, fill: "#52606d" }), cards);
}

function statusLine(view) {
  if (view.over) return view.reason === "all_played" ? "Every card laid: the game is beaten!" : `Over (${String(view.reason).replaceAll("_", " ")}): ${plural(view.cards_left, "card")} not laid.`;
  const agreement = view.starter_agreement;
  if (agreement) {
    const table = agreement.proposal === null ? "no proposal yet" : `Seat ${agreement.proposer} proposes Seat ${agreement.proposal} to start`;
    const accepted = agreement.accepted.length ? `; agreed: ${agreement.accepted.map((s) => `Seat ${s}`).join(", ")}` : "";
    return `Who starts? ${table}${accepted}. Seat ${agreement.speaker} has the floor.`;
  }
  return `Seat ${view.turn} laid ${view.played_this_turn} this turn (at least ${view.minimum}). ${plural(view.cards_left, "card")} not laid yet.`;
}

export function render(view, ctx) {
  const seats = view.hand_counts.length;
  const pileY = 34;
  const drawX = 40;
  const pilesX = 214;
  const piles = view.piles.map((pile, i) => pileNode(pile, i, pilesX + i * (CARD_W + 36), pileY));
  const seatW = 140;
  const seatGap = Math.min(20, (WIDTH - 40 - seats * seatW) / Math.max(1, seats - 1));
  const seatsX = (WIDTH - (seats * seatW + (seats - 1) * seatGap)) / 2;
  const seatNodes = view.hand_counts.map((_, seat) => seatNode(view, seat, seatsX + seat * (seatW + seatGap), 278, ctx));
  const hand = Array.isArray(view.hand) ? handNode(view.hand, ctx, 400) : "";
  const height = hand ? HEIGHT : 380;
  return svg(
    WIDTH,
    height,
    "The Game: piles, draw pile and hands",
    tag("rect", { width: WIDTH, height, fill: "#fbfaf7" }),
    drawPileNode(view.draw_pile, drawX, pileY),
    piles,
    text(WIDTH / 2, 258, statusLine(view), { "text-anchor": "middle", "font-size": 15, fill: "#1f2933", "data-kind": "status" }),
    seatNodes,
    hand,
  );
}

function pileName(match, index) {
  const pile = match.view?.piles?.[index];
  return pile ? `the ${pile.direction === "up" ? "ascending" : "descending"} pile ${index}` : `pile ${index}`;
}

/** A button's words for one legal action. */
export function label(action, ctx) {
  switch (action.type) {
    case "play":
      return `Lay ${action.card} on ${pileName(ctx.match, action.pile)}`;
    case "end_turn":
      return "End the turn and draw";
    case "propose_starter":
      return action.seat === ctx.seat ? "Propose yourself to start" : `Propose Seat ${action.seat} to start`;
    case "accept_starter":
      return "Agree with the proposal";
    default:
      return null;
  }
}

export function describe(entry, match) {
  const who = `Seat ${entry.seat}`;
  const { action, events = [] } = entry;
  switch (action.type) {
    case "play": {
      const played = events.find((e) => e.type === "played");
      const trick = played?.backwards ? " (backwards by 10)" : "";
      return `${who} laid ${action.card} on ${pileName(match, action.pile)}${trick}.`;
    }
    case "end_turn": {
      const ended = events.find((e) => e.type === "turn_ended");
      return ended ? `${who} ended the turn after ${plural(ended.laid, "card")} and drew ${ended.drew}.` : `${who} ended the turn.`;
    }
    case "propose_starter":
      return `${who} proposed ${action.seat === entry.seat ? "itself" : `Seat ${action.seat}`} to start.`;
    case "accept_starter": {
      const agreed = events.find((e) => e.type === "starter_agreed");
      return agreed ? `${who} agreed: Seat ${agreed.starter} starts.` : `${who} agreed.`;
    }
    default:
      return `${who}: ${String(action.type).replaceAll("_", " ")}.`;
  }
}
