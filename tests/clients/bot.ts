// A random bot written as a client author would: only the client generated from the OpenAPI
// document (openapi-typescript's `api.d.ts`, next to this file at test time) and openapi-fetch.
// It plays one match of every game in the catalogue to its end and prints one JSON line per
// match. Type-checked with `tsc --strict` by tests/clients/test_generated_clients.py.
import createClient from "openapi-fetch";
import type { components, paths } from "./api";

type Schemas = components["schemas"];
type Action = Schemas["ActionRequest"]["action"];

/** A sentence for a move of The Game: the union is discriminated on `type`. */
export function describeTheGame(action: Schemas["TheGameAction"]): string {
  switch (action.type) {
    case "play":
      return `lay ${action.card} on pile ${action.pile}`;
    case "end_turn":
      return "end the turn";
    case "propose_starter":
      return `propose seat ${action.seat} to start`;
    case "accept_starter":
      return "accept the proposed starter";
    default: {
      const unknown: never = action;
      return String(unknown);
    }
  }
}

function pick<T>(items: readonly T[]): T {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error("nothing to pick from");
  return item;
}

async function playOne(baseUrl: string, game: Schemas["Game"], maxMoves: number): Promise<void> {
  const client = createClient<paths>({ baseUrl });
  const players = game.min_players;
  const created = await client.POST("/v1/matches", { body: { game: game.id, players } });
  if (!created.data) throw new Error(`create ${game.id}: ${JSON.stringify(created.error)}`);
  const matchId = created.data.match_id;
  const tokens = new Map(created.data.seats.map((s) => [s.seat, s.token] as const));
  let moves = 0;
  for (;;) {
    const match = await client.GET("/v1/matches/{match_id}", { params: { path: { match_id: matchId } } });
    if (!match.data) throw new Error(`read ${game.id}: ${JSON.stringify(match.error)}`);
    if (match.data.status === "finished") {
      const outcome: Schemas["Outcome"] | null = match.data.outcome;
      if (outcome === null) throw new Error("a finished match has an outcome");
      console.log(JSON.stringify({ game: game.id, moves, winners: outcome.winners, scores: outcome.scores }));
      return;
    }
    if (moves >= maxMoves) throw new Error(`${game.id}: not finished after ${moves} moves`);
    const seat = pick(match.data.to_act);
    const headers = { Authorization: `Bearer ${tokens.get(seat) ?? ""}` };
    const legal = await client.GET("/v1/matches/{match_id}/legal-actions", {
      params: { path: { match_id: matchId } },
      headers,
    });
    if (!legal.data) throw new Error(`legal actions ${game.id}: ${JSON.stringify(legal.error)}`);
    const action: Action = pick(legal.data.actions);
    if (game.id === "the-game") describeTheGame(action as Schemas["TheGameAction"]);
    const acted = await client.POST("/v1/matches/{match_id}/actions", {
      params: { path: { match_id: matchId } },
      headers,
      body: { state_token: legal.data.state_token, action },
    });
    if (!acted.data) {
      const problem: Schemas["Problem"] | undefined = acted.error;
      throw new Error(`act ${game.id}: ${problem?.code ?? "?"} ${problem?.detail ?? ""}`);
    }
    moves += 1;
  }
}

async function main(): Promise<void> {
  const [baseUrl, maxMoves] = process.argv.slice(2);
  if (!baseUrl) throw new Error("usage: bot.ts BASE_URL [MAX_MOVES]");
  const client = createClient<paths>({ baseUrl });
  const catalogue = await client.GET("/v1/games");
  if (!catalogue.data) throw new Error("no catalogue");
  for (const game of catalogue.data.games) {
    await playOne(baseUrl, game, Number(maxMoves ?? "20000"));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
