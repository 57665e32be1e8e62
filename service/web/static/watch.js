// The watch/play page: draws one match with its game's module (static/games/<game-id>.js,
// exporting render(view, ctx) → SVG markup and describe(entry, match) → a sentence), follows
// it live, and in seat mode (#seat=<token> in the address's fragment, which never reaches the
// server) lets a person play through buttons and clicks on the board.

import { MatchApi, Problem, request } from "./shell/api.js";
import { Follower } from "./shell/live.js";
import { contains, narrow, pickNext } from "./shell/picks.js";
import { formatClock, remainingNow } from "./shell/clock.js";
import { describeEnding, el, genericDescribe, genericLabel, seatName } from "./shell/text.js";

/** How soon a history read that came back short of the version drawn is tried again. */
const HISTORY_RETRY_MS = 250;

const root = document.getElementById("watch");
const board = document.getElementById("board");
const ui = {
  live: document.getElementById("live"),
  title: document.getElementById("title"),
  turn: document.getElementById("turn"),
  seats: document.querySelector("#seats tbody"),
  outcome: document.getElementById("outcome"),
  play: document.getElementById("play"),
  pending: document.getElementById("pending"),
  choices: document.getElementById("choices"),
  problem: document.getElementById("problem"),
  moves: document.getElementById("moves"),
};

// The seat token stays in the fragment so a reload keeps the seat; the fragment is not sent
// with requests nor in a Referer (docs/web.md).
const token = new URLSearchParams(location.hash.slice(1)).get("seat");
window.addEventListener("hashchange", () => location.reload());

const api = new MatchApi(root.dataset.matchId, token);
const state = {
  match: null,
  receivedAt: 0,
  game: null, // the drawing module
  legal: [],
  legalToken: null,
  selected: {},
  history: [],
  historyBusy: false,
  markup: "",
  submitting: false,
};

function showProblem(problem) {
  ui.problem.hidden = !problem;
  ui.problem.textContent = problem ? (problem instanceof Problem ? problem.text : String(problem)) : "";
}

function ctx() {
  return { match: state.match, seat: state.match.seat ?? null, legal: state.legal };
}

function isEnded(match) {
  return match.status !== "active";
}

// -- drawing ------------------------------------------------------------------------------

function drawBoard() {
  if (!state.game) return;
  let markup;
  try {
    markup = state.game.render(state.match.view, ctx());
  } catch (error) {
    markup = "";
    showProblem(`The board could not be drawn: ${error.message}`);
  }
  // Whole-SVG replace in one assignment (no flicker: the browser paints after this task),
  // skipped when the markup did not change, as chessground skips an unchanged shape hash.
  if (markup !== state.markup) {
    board.innerHTML = markup;
    state.markup = markup;
  }
  markPicks();
  board.dataset.version = state.match.version;
}

/** Classes for what can be clicked now (`pickable`) and what is already picked (`picked`). */
function markPicks() {
  for (const node of board.querySelectorAll("[data-pick]")) {
    const pick = JSON.parse(node.dataset.pick);
    node.classList.toggle("pickable", narrow(state.legal, pick).length > 0);
    node.classList.toggle("picked", Object.keys(state.selected).length > 0 && contains(state.selected, pick));
  }
}

function drawTurn() {
  const { match } = state;
  const you = match.seat;
  let text;
  if (match.status === "finished") text = "The match is over.";
  else if (match.status === "aborted") text = "The match was aborted before any move.";
  else if (!match.to_act.length) text = "Nobody is to act.";
  else if (you !== null && you !== undefined && match.to_act.includes(you)) {
    const others = match.to_act.filter((seat) => seat !== you);
    text = others.length ? `Your turn (with ${others.map(seatName).join(", ")}).` : "Your turn.";
  } else text = `To act: ${match.to_act.map(seatName).join(", ")}.`;
  ui.turn.textContent = text;
  ui.turn.dataset.toAct = match.to_act.join(",");
  ui.title.textContent = `${state.title ?? match.game} · match ${match.match_id} · version ${match.version}`;
}

function drawSeats() {
  const { match } = state;
  const house = new Map((match.house ?? []).map((h) => [h.seat, h.bot]));
  const outcome = match.outcome;
  ui.seats.replaceChildren();
  for (let seat = 0; seat < match.players; seat++) {
    const row = el("tr", { "data-seat": seat });
    row.classList.toggle("to-act", match.status === "active" && match.to_act.includes(seat));
    row.classList.toggle("you", match.seat === seat);
    const name = seatName(seat) + (match.seat === seat ? " (you)" : "");
    row.append(el("th", {}, name));
    row.append(el("td", { class: "house" }, house.has(seat) ? `house bot: ${house.get(seat)}` : ""));
    row.append(el("td", { class: "clock", "data-seat": seat }, ""));
    const score = outcome ? `${outcome.scores[seat]} · rank ${outcome.ranks[seat]}` : "";
    row.append(el("td", { class: "score" }, score));
    ui.seats.append(row);
  }
  tickClocks();
}

function tickClocks() {
  const clock = state.match?.clock;
  for (const cell of ui.seats.querySelectorAll("td.clock")) {
    const seat = Number(cell.dataset.seat);
    const ms = clock ? remainingNow(clock, seat, state.receivedAt) : null;
    cell.textContent = ms === null ? "" : formatClock(ms);
    cell.classList.toggle("running", Boolean(clock && state.match.status === "active" && clock.running.includes(seat)));
    cell.classList.toggle("low", ms !== null && ms < 10000);
  }
}

function drawOutcome() {
  const { match } = state;
  ui.outcome.hidden = !isEnded(match);
  if (!isEnded(match)) return;
  const parts = [];
  const outcome = match.outcome;
  if (outcome) {
    const winners = outcome.winners.length ? outcome.winners.map(seatName).join(" and ") : "nobody";
    parts.push(el("p", { class: "winners" }, `Winners: ${winners}.`));
    const reason = outcome.detail?.end_reason;
    if (reason) parts.push(el("p", {}, `How it ended: ${String(reason).replaceAll("_", " ")}.`));
  } else {
    parts.push(el("p", {}, "No outcome: the match ended before any move."));
  }
  if (match.seed) {
    parts.push(el("p", {}, "Seed, revealed: ", el("code", { class: "seed" }, match.seed)));
  }
  parts.push(el("p", { class: "small" }, "Its SHA-256, published from the start: ", el("code", {}, match.seed_sha256 ?? "")));
  ui.outcome.replaceChildren(el("h2", {}, "Outcome"), ...parts);
}

function label(action) {
  try {
    const text = state.game?.label?.(action, ctx());
    if (text) return text;
  } catch {
    // a module's label failing must not hide the choice
  }
  return genericLabel(action);
}

function drawChoices() {
  const mine = state.legal.length > 0 && !isEnded(state.match);
  ui.play.hidden = !mine;
  if (!mine) return;
  const picked = Object.keys(state.selected).length > 0;
  const actions = picked ? narrow(state.legal, state.selected) : state.legal;
  ui.pending.hidden = !picked;
  ui.pending.textContent = picked ? `Picked: ${genericLabel(state.selected)} — pick more on the board or choose below.` : "";
  const buttons = actions.map((action) => {
    const button = el("button", { type: "button", class: "choice", "data-action": JSON.stringify(action) }, label(action));
    button.disabled = state.submitting;
    button.addEventListener("click", () => submit(action));
    return button;
  });
  if (picked) {
    const cancel = el("button", { type: "button", class: "cancel" }, "Cancel");
    cancel.addEventListener("click", () => {
      state.selected = {};
      drawChoices();
      markPicks();
    });
    buttons.push(cancel);
  }
  ui.choices.replaceChildren(...buttons);
}

function drawMoves() {
  const describe = (entry) => {
    const ending = describeEnding(entry);
    if (ending) return ending;
    try {
      return state.game?.describe?.(entry, state.match) || genericDescribe(entry);
    } catch {
      return genericDescribe(entry);
    }
  };
  const known = ui.moves.children.length;
  if (known > state.history.length) ui.moves.replaceChildren();
  for (const entry of state.history.slice(ui.moves.children.length)) {
    const item = el("li", { "data-version": entry.version, "data-seat": entry.seat, value: entry.version });
    const kind = entry.kind && entry.kind !== "move" ? el("span", { class: "kind" }, entry.kind) : null;
    item.append(describe(entry));
    if (kind) item.append(" ", kind);
    ui.moves.append(item);
  }
  if (ui.moves.children.length !== known) ui.moves.lastElementChild?.scrollIntoView({ block: "nearest" });
}

function redraw() {
  drawBoard();
  drawTurn();
  drawSeats();
  drawOutcome();
  drawChoices();
  document.body.dataset.version = state.match.version;
  document.body.dataset.status = state.match.status;
}

// -- data ---------------------------------------------------------------------------------

/** Take a newer (or equally new, fuller) match body, stream event or action answer. */
function update(body) {
  const previous = state.match;
  if (previous && body.version < previous.version) return;
  state.match = { ...(previous ?? {}), ...body };
  state.receivedAt = performance.now();
  const moved = !previous || body.version !== previous.version;
  if (moved) {
    state.selected = {};
    state.legal = [];
    refreshLegal();
  }
  redraw();
  refreshHistory(previous && !isEnded(previous) && isEnded(state.match));
}

async function refreshLegal() {
  const { match } = state;
  if (match.seat === null || match.seat === undefined || isEnded(match) || !match.to_act.includes(match.seat)) return;
  try {
    const answer = await api.legal();
    if (answer.version !== state.match.version) return; // a newer version is on its way
    state.legal = answer.actions;
    state.legalToken = answer.state_token;
    drawBoard(); // ctx.legal changed: modules mark what can be picked
    drawChoices();
  } catch (problem) {
    showProblem(problem);
  }
}

/** Fetch the entries not shown yet; all of them again once the match ended (the history
 *  then reveals what was secret while it ran). Versions drawn while a fetch is under way are
 *  fetched by the same loop once it returns; a read that falls short of the version it was
 *  made for (a store node behind) is tried again shortly. */
async function refreshHistory(again = false) {
  if (again) state.historyAgain = true;
  if (state.historyBusy) return;
  state.historyBusy = true;
  try {
    while (state.historyAgain || state.history.length < state.match.version) {
      const wanted = state.match.version;
      if (state.historyAgain) {
        state.historyAgain = false;
        state.history = await api.history(0);
        ui.moves.replaceChildren();
      } else {
        state.history.push(...(await api.history(state.history.length)));
      }
      drawMoves();
      if (state.history.length < wanted) {
        setTimeout(() => refreshHistory(), HISTORY_RETRY_MS);
        break;
      }
    }
  } catch (problem) {
    showProblem(problem);
  } finally {
    state.historyBusy = false;
  }
}

async function submit(action) {
  if (state.submitting) return;
  state.submitting = true;
  drawChoices();
  try {
    const answer = await api.act(state.legalToken, action);
    showProblem(null);
    update({ ...answer, seat: state.match.seat });
  } catch (problem) {
    showProblem(problem);
    state.selected = {};
    refreshLegal();
  } finally {
    state.submitting = false;
    drawChoices();
  }
}

board.addEventListener("click", (event) => {
  const node = event.target.closest("[data-pick]");
  if (!node || !state.legal.length || state.submitting) return;
  const next = pickNext(state.legal, state.selected, JSON.parse(node.dataset.pick));
  if (next.left.length === 1) {
    state.selected = {};
    submit(next.left[0]);
    return;
  }
  state.selected = next.left.length ? next.selected : {};
  markPicks();
  drawChoices();
});

const liveText = { stream: "live", polling: "live (polling)", reconnecting: "reconnecting…", ended: "ended" };

async function loadGame(game) {
  try {
    return await import(`./games/${encodeURIComponent(game)}.js`);
  } catch (error) {
    showProblem(`This server has no drawing for ${game}: ${error.message}`);
    return null;
  }
}

async function main() {
  ui.live.textContent = "connecting…";
  ui.live.dataset.state = "connecting";
  let first;
  try {
    first = await api.match();
  } catch (problem) {
    ui.live.textContent = "";
    showProblem(problem);
    return;
  }
  state.game = await loadGame(first.body.game);
  request(`/v1/games/${encodeURIComponent(first.body.game)}`)
    .then((response) => response.json())
    .then((game) => {
      state.title = game.title;
      drawTurn();
    })
    .catch(() => {});
  update(first.body);
  const follower = new Follower(api, {
    onUpdate: update,
    onState: (live) => {
      ui.live.textContent = liveText[live];
      ui.live.dataset.state = live;
    },
  });
  follower.start(first.body.version, first.etag, isEnded(first.body));
  setInterval(tickClocks, 100);
}

main();
