// Clicking on the board: a drawn thing carries data-pick='<JSON partial action>'. Clicks add up
// (a card, then a pile) until exactly one legal action contains everything picked so far.

/** Whether `action` has every field of `partial` with an equal value. */
export function contains(action, partial) {
  return Object.entries(partial).every(([key, value]) => JSON.stringify(action[key]) === JSON.stringify(value));
}

export function narrow(legal, partial) {
  return legal.filter((action) => contains(action, partial));
}

/**
 * The next selection after clicking `pick` with `selected` already picked: the merged partial
 * and the legal actions left. A click that fits nothing with the selection starts afresh from
 * the click alone (picking another card replaces the first).
 */
export function pickNext(legal, selected, pick) {
  const merged = { ...selected, ...pick };
  const left = narrow(legal, merged);
  if (left.length) return { selected: merged, left };
  return { selected: pick, left: narrow(legal, pick) };
}
