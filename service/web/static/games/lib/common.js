// What the drawing modules of several games share beyond shell/svg.js (markup) and
// shell/picks.js (the page's narrowing rule).
import { contains } from "../../shell/picks.js";
import { seatName } from "../../shell/text.js";

/** The first of `partials` that some legal action contains, as a `data-pick` value, or
 * null: a thing is clickable only when clicking it can lead to a legal action. */
export function pick(legal, ...partials) {
  const found = partials.find((partial) => (legal || []).some((action) => contains(action, partial)));
  return found ? JSON.stringify(found) : null;
}

/** A game's data file (`seeds/<game>/<name>.json`, as the engine reads it), served by the
 * page's own server: boards are drawn from the data the referee plays on, never a copy. */
export async function loadSeed(game, name) {
  const response = await fetch(new URL(`/seeds/${game}/${name}.json`, import.meta.url));
  if (!response.ok) throw new Error(`game data ${game}/${name}: HTTP ${response.status}`);
  return response.json();
}

/** Seat colours (seat 0 first), for pieces, vehicles and the players' panels. */
export const SEAT_COLOURS = ["#d1495b", "#2e86ab", "#edae49", "#66a182", "#8e6c8a", "#f28f3b", "#5c6784"];

/** "3 fossils" / "1 fossil". */
export function plural(count, one, many = one + "s") {
  return `${count} ${count === 1 ? one : many}`;
}

/** "skull_front" → "skull front". */
export function words(id) {
  return String(id).replace(/_/g, " ");
}

/** A module's `label(action)` (a button: "Draw from the explorer deck") and
 * `describe(entry)` (the move list: "Seat 1: draw from the explorer deck (…)") from one
 * `phrase(action)`, an order in words, and `result(entry)`, what the entry's events add. */
export function wording(phrase, result = () => "") {
  return {
    label(action) {
      const order = phrase(action);
      return order.charAt(0).toUpperCase() + order.slice(1);
    },
    describe(entry) {
      return `${seatName(entry.seat)}: ${phrase(entry.action || {})}${result(entry)}.`;
    },
  };
}
