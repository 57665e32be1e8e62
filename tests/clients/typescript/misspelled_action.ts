// Must not compile (tests/clients/test_typescript_types.py): every line marked "tsc rejects
// this line" is an action a client author misspelled, and tsc must say so there.
import createClient from "openapi-fetch";
import type { components, paths } from "./api";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8000" });
const params = { path: { match_id: "m" } };

export async function misspelledType(state_token: string): Promise<void> {
  await client.POST("/v1/matches/{match_id}/actions", {
    params,
    body: {
      state_token,
      action: { type: "plya", card: 17, pile: 0 }, // tsc rejects this line: no game has a "plya"
    },
  });
}

export async function misspelledField(state_token: string): Promise<void> {
  await client.POST("/v1/matches/{match_id}/actions", {
    params,
    body: {
      state_token,
      action: { tpye: "play", card: 17, pile: 0 }, // tsc rejects this line: "tpye" is no field
    },
  });
}

export function anotherGamesType(action: components["schemas"]["TheGameAction"]): string {
  switch (action.type) {
    case "pass": // tsc rejects this line: The Game has no "pass" (Halunken and Viaggio do)
      return "pass";
    default:
      return action.type;
  }
}

export function fieldOfAnotherType(action: components["schemas"]["TheGameAction"]): number {
  if (action.type === "end_turn") {
    return action.card; // tsc rejects this line: only a "play" has a card
  }
  return 0;
}
