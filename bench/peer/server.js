// boardgame.io's server with the bench's game: `node server.js PORT API_PORT [memory|flatfile DIR]`.
// The lobby's REST API (create, join) on API_PORT, the game's socket.io on PORT.
"use strict";
const { Server, FlatFile } = require("boardgame.io/server");
const { TheGame } = require("./game");

const [port, apiPort, storage = "memory", dir] = process.argv.slice(2);
const db = storage === "flatfile" ? new FlatFile({ dir, logging: false, ttl: false }) : undefined;
const server = Server({ games: [TheGame], db, origins: ["http://127.0.0.1"] });
server.run({
  port: Number(port),
  callback: () => console.log("listening"),
  lobbyConfig: { apiPort: Number(apiPort), apiCallback: () => console.log("lobby listening") },
});
