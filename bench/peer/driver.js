// Bots playing solo matches of The Game on a boardgame.io server, as bench/http_moves.py's
// clients play them on the referee: `node driver.js PORT API_PORT MATCHES SECONDS`. Each of
// MATCHES bots creates a match through the lobby's REST API, joins its seat, and plays over
// its own socket.io connection, one move at a time: it sends a move and waits for the
// server's new state before choosing the next (end the turn as soon as allowed, else lay the
// card that moves its pile least). Prints one JSON line: the moves answered, their latencies
// in seconds, the moves that got no answer, and this process's CPU seconds.
//
// The bots speak boardgame.io's socket.io protocol directly (what its SocketIO transport
// sends: `sync`, then `update` with a MAKE_MOVE action; the server answers `update` with the
// seat's filtered state), as the referee's bots write HTTP on the socket: boardgame.io's own
// Client (redux store, its reducer run on every update) cost about 1.8 ms of CPU per move
// here, which on shared cores would have taxed the peer's rate, not measured its server.
"use strict";
const { io } = require("socket.io-client");
const { fits } = require("./game");

const [port, apiPort, matches, seconds] = process.argv.slice(2).map(Number);
const origin = `http://127.0.0.1:${port}`;
const lobby = `http://127.0.0.1:${apiPort}`;
const deadline = Date.now() + seconds * 1000;
const STALL_MS = 5000;
const latencies = [];
let stalled = 0;

async function post(path, body) {
  const answer = await fetch(lobby + path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`${path}: ${answer.status}`);
  return answer.json();
}

function choose(view) {
  if (view.played >= (view.deckSize ? 2 : 1)) return ["endTurn"];
  let best = null;
  for (const card of view.hand) {
    view.piles.forEach((pile, p) => {
      if (!fits(pile, card)) return;
      const jump = pile.up ? card - pile.top : pile.top - card;
      if (best === null || jump < best[0]) best = [jump, card, p];
    });
  }
  return best === null ? null : ["play", best[1], best[2]];
}

// One match, played until it ends or the run does.
async function playMatch() {
  const { matchID } = await post("/games/the-game/create", { numPlayers: 1 });
  const { playerCredentials } = await post(`/games/the-game/${matchID}/join`, { playerID: "0", playerName: "bot" });
  const socket = io(`${origin}/the-game`, { transports: ["websocket"], forceNew: true });
  await new Promise((resolve) => {
    let last = -1;
    let sent = null;
    let timer = null;
    const finish = () => {
      clearTimeout(timer);
      socket.close();
      resolve();
    };
    const onState = (state) => {
      if (state._stateID === last) return;
      last = state._stateID;
      if (sent !== null) latencies.push((performance.now() - sent) / 1000);
      if (state.ctx.gameover || Date.now() >= deadline) return finish();
      const move = choose(state.G);
      if (move === null) return finish();
      clearTimeout(timer);
      timer = setTimeout(() => {
        stalled += 1;
        finish();
      }, STALL_MS);
      sent = performance.now();
      const action = {
        type: "MAKE_MOVE",
        payload: { type: move[0], args: move.slice(1), playerID: "0", credentials: playerCredentials },
      };
      socket.emit("update", action, state._stateID, matchID, "0");
    };
    socket.on("sync", (_, syncInfo) => onState(syncInfo.state));
    socket.on("update", (_, state) => onState(state));
    socket.on("connect", () => socket.emit("sync", matchID, "0", playerCredentials, 1));
  });
}

async function bot() {
  while (Date.now() < deadline) await playMatch();
}

const cpu = process.cpuUsage();
Promise.all(Array.from({ length: matches }, bot)).then(() => {
  const used = process.cpuUsage(cpu);
  // Exit only once the pipe has taken the whole line: process.exit() right after a large
  // write to a pipe drops what is still buffered (the report is over 128 KB on a quiet machine).
  const report = JSON.stringify({ latencies, stalled, cpu: (used.user + used.system) / 1e6 });
  process.stdout.write(report + "\n", () => process.exit(0));
});
