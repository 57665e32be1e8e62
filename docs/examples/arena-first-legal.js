#!/usr/bin/env node
// A bot for `referee arena` (docs/arena.md): reads one decision per line on stdin and answers
// the first legal action, as {"decision": n, "action": {...}} on one line of stdout (echoing
// the decision's number lets the runner tell an answer from a stale line).
const readline = require("node:readline");

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const request = JSON.parse(line);
  process.stdout.write(JSON.stringify({ decision: request.decision, action: request.legal_actions[0] }) + "\n");
});
