// Clocks as the match body gives them (remaining_ms per seat as of the answer, and which seats'
// clocks run), counted down locally between updates from the moment the answer arrived.

export function remainingNow(clock, seat, receivedAt, now = performance.now()) {
  const remaining = clock.remaining_ms[seat];
  if (remaining === null || remaining === undefined) return null;
  return clock.running.includes(seat) ? Math.max(0, remaining - (now - receivedAt)) : remaining;
}

/** 83500 → "1:23.5" under ten minutes (tenths matter in a short decision), "12:03" above. */
export function formatClock(ms) {
  const total = Math.max(0, ms) / 1000;
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  if (minutes >= 10) return `${minutes}:${String(Math.floor(seconds)).padStart(2, "0")}`;
  const shown = Math.floor(seconds * 10) / 10;
  return `${minutes}:${shown.toFixed(1).padStart(4, "0")}`;
}
