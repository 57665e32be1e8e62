// Renders views with a game's drawing module under Node, for tests/web/test_boards_node.py.
//
// usage: node render.mjs <module path> <seeds dir> < cases.json > drawings.json
// cases.json: [{"view": ..., "ctx": {...}, "entries": [history entries]}]; the answer lists,
// per case, {"svg": render(view, ctx), "words": [describe(entry) for each entry],
// "labels": [label(action, ctx) for each of ctx.legal]}.
// The modules read game data with fetch("/seeds/<game>/<name>.json"): served here from disk.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modulePath, seedsDir] = process.argv.slice(2);
globalThis.fetch = async (url) => {
  const match = new URL(url).pathname.match(/^\/seeds\/([a-z0-9-]+)\/([a-z0-9_]+)\.json$/);
  if (!match) return { ok: false, status: 404 };
  const body = readFileSync(join(seedsDir, match[1], `${match[2]}.json`), "utf8");
  return { ok: true, status: 200, json: async () => JSON.parse(body) };
};
const game = await import(pathToFileURL(modulePath).href);
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(({ view, ctx, entries }) => ({
  svg: game.render(view, ctx),
  words: (entries || []).map((entry) => game.describe(entry, ctx.match)),
  labels: (ctx.legal || []).map((action) => game.label(action, ctx)),
}));
process.stdout.write(JSON.stringify(out));
