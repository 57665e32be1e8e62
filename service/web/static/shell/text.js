// Small DOM and wording helpers shared by the pages.

export function seatName(seat) {
  return `Seat ${seat}`;
}

/** An element with attributes and children (strings become text: never parsed as HTML). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

function words(key) {
  return String(key).replaceAll("_", " ");
}

/** "play: card 22, pile 2" for a module without label(action). */
export function genericLabel(action) {
  const { type, ...rest } = action;
  const fields = Object.entries(rest).map(([key, value]) => `${words(key)} ${typeof value === "object" ? JSON.stringify(value) : value}`);
  const head = type ? words(type) : "";
  return fields.length ? `${head}${head ? ": " : ""}${fields.join(", ")}` : head;
}

/** "Seat 1: play: card 22, pile 2" for a module without describe(entry, match). */
export function genericDescribe(entry) {
  return `${seatName(entry.seat)}: ${genericLabel(entry.action)}`;
}

/** The log entries the referee writes itself when a match ends off the board (contract §4):
 *  the same words for every game. Null for a move, which the game's module describes. */
export function describeEnding(entry) {
  switch (entry.kind) {
    case "timeout":
      return `${seatName(entry.seat)} ran out of time and forfeits.`;
    case "resign":
      return `${seatName(entry.seat)} resigned.`;
    case "abort":
      return "The match was aborted before any move.";
    default:
      return null;
  }
}
