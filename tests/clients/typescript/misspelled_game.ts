// Must not compile (tests/clients/test_typescript_types.py): every line marked "tsc rejects
// this line" misspells a game, or reads a game's view without narrowing the match first.
import createClient from "openapi-fetch";
import type { components, paths } from "./api";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });

export async function create(): Promise<void> {
  await client.POST("/v1/matches", {
    body: { game: "the-gmae", players: 2 }, // tsc rejects this line: no such game
  });
}

export async function createWithAnotherGamesOptions(): Promise<void> {
  await client.POST("/v1/matches", {
    body: { game: "the-game", players: 2, options: { variant: "standard" } }, // tsc rejects this line
  });
}

export function piles(match: components["schemas"]["Match"]): number {
  if (match.game === "the-gmae") return 0; // tsc rejects this line: no such game
  return match.view.piles.length; // tsc rejects this line: only The Game's view has piles
}
