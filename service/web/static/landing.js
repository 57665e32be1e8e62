// The landing page: the matches being played and recently ended (GET /v1/matches; the server
// renders the first page, this keeps it fresh), and a form that starts a match of any game
// (options from the catalogue, house bots for some seats), then opens the watch page in seat
// mode for the person's seat.

import { request } from "./shell/api.js";
import { el, seatName } from "./shell/text.js";

const LISTING_REFRESH_MS = 5000;

const form = document.getElementById("start");
/** The house bots' names by game, as the server's bot registry has them. */
const BOTS = JSON.parse(form.dataset.bots);

// -- listing ------------------------------------------------------------------------------

const listing = {
  table: document.getElementById("matches"),
  body: document.querySelector("#matches tbody"),
  state: document.getElementById("listing-state"),
  more: document.getElementById("more"),
  cursor: null,
  paged: false,
};

function when(iso) {
  const date = new Date(iso);
  return el("time", { datetime: iso }, Number.isNaN(date.getTime()) ? "" : date.toLocaleString());
}

/** A game's title as the game list of the form spells it (the catalogue's), else its id. */
function gameTitle(id) {
  return [...form.game.options].find((option) => option.value === id)?.textContent ?? id;
}

function summaryRow(match) {
  const status = match.status === "finished" && match.winners
    ? `finished (${match.winners.length ? `won by ${match.winners.map(seatName).join(", ")}` : "no winner"})`
    : match.status === "active" && match.to_act?.length
      ? `active (${match.to_act.map(seatName).join(", ")} to act)`
      : match.status;
  const house = match.house?.length ? ` (${match.house.length} house)` : "";
  const link = el("a", { href: `/watch/${encodeURIComponent(match.match_id)}` }, "watch");
  return el(
    "tr",
    { "data-match-id": match.match_id, "data-status": match.status },
    el("td", {}, gameTitle(match.game)),
    el("td", {}, `${match.players}${house}`),
    el("td", {}, status),
    el("td", {}, String(match.version)),
    el("td", {}, when(match.updated_at)),
    el("td", {}, link),
  );
}

async function loadMatches(append = false) {
  const cursor = append && listing.cursor ? `&cursor=${encodeURIComponent(listing.cursor)}` : "";
  try {
    const page = await (await request(`/v1/matches?limit=20${cursor}`)).json();
    const rows = page.matches.map(summaryRow);
    if (append) listing.body.append(...rows);
    else listing.body.replaceChildren(...rows);
    listing.cursor = page.next_cursor;
    listing.more.hidden = !page.next_cursor;
    listing.more.href = `/?cursor=${encodeURIComponent(page.next_cursor ?? "")}`;
    listing.table.hidden = listing.body.children.length === 0;
    listing.state.textContent = listing.body.children.length ? "" : "No matches yet: start one below.";
    listing.state.hidden = listing.body.children.length > 0;
  } catch (problem) {
    listing.state.hidden = false;
    listing.state.textContent = `The matches could not be listed: ${problem.text ?? problem}`;
  }
}

listing.more.addEventListener("click", (event) => {
  event.preventDefault(); // without the script, the link opens that page of the listing
  listing.paged = true;
  loadMatches(true);
});
loadMatches();
setInterval(() => listing.paged || loadMatches(), LISTING_REFRESH_MS);

// -- start form ---------------------------------------------------------------------------

const optionsBox = document.getElementById("options");
const houseBox = document.getElementById("house");
const problemBox = document.getElementById("start-problem");
const startedBox = document.getElementById("started");
let catalogue = new Map();

function optionControl(option, allowed, value) {
  const name = `option:${option.name}`;
  const title = option.description ?? "";
  if (allowed && allowed.length === 2 && allowed.every((v) => typeof v === "boolean")) {
    const box = el("input", { type: "checkbox", name, "data-option": option.name });
    box.checked = Boolean(value);
    return el("label", { title }, box, option.name.replaceAll("_", " "));
  }
  const select = el("select", { name, "data-option": option.name });
  for (const choice of allowed ?? [value]) {
    const item = el("option", { value: JSON.stringify(choice) }, String(choice));
    item.selected = JSON.stringify(choice) === JSON.stringify(value);
    select.append(item);
  }
  return el("label", { title }, `${option.name.replaceAll("_", " ")} `, select);
}

/** Options and seats for the chosen game and player count (the catalogue's by_players gives
 *  each count's defaults and accepted values). */
function drawChoices() {
  const game = catalogue.get(form.game.value);
  if (!game) return;
  const players = form.players;
  players.min = game.min_players;
  players.max = game.max_players;
  const count = Math.min(game.max_players, Math.max(game.min_players, Number(players.value) || game.min_players));
  players.value = count;
  const byPlayers = game.by_players.find((entry) => entry.players === count) ?? { defaults: {}, allowed: {} };
  const controls = game.options.map((option) => optionControl(option, byPlayers.allowed[option.name], byPlayers.defaults[option.name]));
  optionsBox.replaceChildren(el("legend", {}, "Options"), ...(controls.length ? controls : [el("span", { class: "small" }, "This game has no options.")]));
  const seats = [];
  for (let seat = 0; seat < count; seat++) {
    const select = el("select", { name: `seat:${seat}`, "data-seat": seat });
    select.append(el("option", { value: "" }, "a person"));
    for (const bot of BOTS[form.game.value] ?? []) select.append(el("option", { value: bot }, `house bot (${bot})`));
    if (seat > 0) select.value = "level2"; // a person alone plays seat 0 against the house
    seats.push(el("label", {}, `${seatName(seat)}: `, select));
  }
  houseBox.replaceChildren(el("legend", {}, "Seats"), ...seats);
}

function requestBody() {
  const options = {};
  for (const control of optionsBox.querySelectorAll("[data-option]")) {
    options[control.dataset.option] = control.type === "checkbox" ? control.checked : JSON.parse(control.value);
  }
  const house = [...houseBox.querySelectorAll("select[data-seat]")]
    .filter((select) => select.value)
    .map((select) => ({ seat: Number(select.dataset.seat), bot: select.value }));
  const body = { game: form.game.value, players: Number(form.players.value), options };
  if (house.length) body.house = house;
  return body;
}

function watchLink(matchId, seat) {
  const href = `/watch/${encodeURIComponent(matchId)}${seat ? `#seat=${encodeURIComponent(seat.token)}` : ""}`;
  return el("a", { href }, seat ? `Play ${seatName(seat.seat)}` : "Watch as a spectator");
}

async function start(event) {
  event.preventDefault();
  problemBox.hidden = true;
  startedBox.hidden = true;
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const created = await (await request("/v1/matches", { method: "POST", body: requestBody() })).json();
    const seats = created.seats ?? [];
    if (seats.length === 1) {
      location.assign(watchLink(created.match_id, seats[0]).href);
      return;
    }
    if (seats.length === 0) {
      location.assign(watchLink(created.match_id, null).href);
      return;
    }
    // Several people: each seat's link is that seat's secret; hand them out.
    const items = seats.map((seat) => el("li", {}, watchLink(created.match_id, seat)));
    startedBox.replaceChildren(
      el("p", {}, "Match started. Each link below plays one seat (keep them secret):"),
      el("ul", {}, ...items, el("li", {}, watchLink(created.match_id, null))),
    );
    startedBox.hidden = false;
    loadMatches();
  } catch (problem) {
    problemBox.textContent = problem.text ?? String(problem);
    problemBox.hidden = false;
  } finally {
    button.disabled = false;
  }
}

async function setUp() {
  const games = (await (await request("/v1/games")).json()).games;
  catalogue = new Map(games.map((game) => [game.id, game]));
  form.game.addEventListener("change", () => {
    form.players.value = "";
    drawChoices();
  });
  form.players.addEventListener("change", drawChoices);
  form.addEventListener("submit", start);
  drawChoices();
  form.querySelector("button[type=submit]").disabled = false;
  form.dataset.ready = "true";
}

setUp().catch((problem) => {
  problemBox.textContent = `The catalogue could not be read: ${problem.text ?? problem}`;
  problemBox.hidden = false;
});
