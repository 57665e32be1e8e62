// Must not compile (tests/clients/test_typescript_types.py): every line marked "tsc rejects
// this line" takes a legal action for another game's, or reads a field of one before its answer
// is narrowed by `game`.
import type { components } from "./api";

type Schemas = components["schemas"];

export function asTheGames(legal: Schemas["IsolaDeiVulcaniLegalActions"]): Schemas["TheGameAction"] {
  return legal.actions[0]; // tsc rejects this line: an action of L'Isola dei Vulcani
}

export function unnarrowed(legal: Schemas["LegalActions"]): Schemas["TheGameAction"] {
  return legal.actions[0]; // tsc rejects this line: any game's action until `game` narrows the answer
}

export function pileBeforeGame(legal: Schemas["LegalActions"]): number {
  const action = legal.actions[0];
  if (action.type === "play") return action.pile; // tsc rejects this line: Halunken's play has no pile
  return 0;
}

export function answeredActions(result: Schemas["ActionResult"]): Schemas["TheGameAction"][] {
  if (result.game === "isola-dei-vulcani") return result.legal_actions; // tsc rejects this line
  if (result.game === "the-game") return result.legal_actions;
  return [];
}
