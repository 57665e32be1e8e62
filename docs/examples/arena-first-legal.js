#!/usr/bin/env node
// A bot for `referee arena` (docs/arena.md): reads one decision per line on stdin and answers
// the first legal action, as {"action": {...}} on one line of stdout.
const readline = require("node:readline");

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const decision = JSON.parse(line);
  process.stdout.write(JSON.stringify({ action: decision.legal_actions[0] }) + "\n");
});
