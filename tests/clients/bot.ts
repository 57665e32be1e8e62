// A random bot written as a client author would: only the client generated from the OpenAPI
// document (openapi-typescript's `api.d.ts`, next to this file at test time) and openapi-fetch.
// It plays one match of every game in the catalogue to its end, reads the match's replay and
// prints one JSON line per match. Type-checked with `tsc --strict` by
// tests/clients/test_generated_clients.py: every narrowing below (a match, its legal actions, its
// replay) is by `game`, then by `type`, with no cast; the `never` defaults make a game or an action type the bot does not handle a
// compile error.
import createClient from "openapi-fetch";
import type { components, paths } from "./api";

type Schemas = components["schemas"];

/** A sentence for a move of The Game: its actions are a union discriminated on `type`. */
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

/** What a match of each game shows: `game` narrows the match, so its options and view are that game's. */
export function describeMatch(match: Schemas["Match"]): string {
  switch (match.game) {
    case "the-game":
      return `${match.view.piles.length} piles, ${match.view.draw_pile} cards to draw, on fire: ${match.options.on_fire ?? false}`;
    case "halunken-und-spelunken":
      return `variant ${match.options.variant ?? "default"}, round ${match.view.round}`;
    case "viaggio-al-centro-della-terra":
      return `phase ${match.view.phase}`;
    case "isola-dei-vulcani":
      return `${match.options.setup ?? "standard"} set-up, round ${match.view.round}`;
    case "esploratore":
      return `round ${match.view.round} of ${match.view.rounds}, upkeep: ${match.options.upkeep ?? false}`;
    default: {
      const unknown: never = match;
      return String(unknown);
    }
  }
}

/** The legal actions in words: `game` narrows the answer, so `legal.actions[i]` is that game's action, then `type` narrows it. */
export function describeLegal(legal: Schemas["LegalActions"]): string[] {
  switch (legal.game) {
    case "the-game":
      return legal.actions.map(describeTheGame);
    case "halunken-und-spelunken":
      return legal.actions.map((action) => (action.type === "bid" ? `bid ${action.card}` : action.type));
    case "isola-dei-vulcani":
      return legal.actions.map((action) => (action.type === "build" ? `build on ${action.hex}` : action.type));
    case "viaggio-al-centro-della-terra":
      return legal.actions.map((action) => (action.type === "step" ? `step to ${action.to}` : action.type));
    case "esploratore":
      return legal.actions.map((action) => (action.type === "build" ? `build line ${action.line}` : action.type));
    default: {
      const unknown: never = legal;
      return [String(unknown)];
    }
  }
}

/** The moves of a replay: `game` narrows the replay, then `type` each of its actions. */
export function replayedMoves(replay: Schemas["Replay"]): string[] {
  if (replay.game === "the-game") {
    return replay.actions.flatMap((entry) => (entry.action === null ? [] : [describeTheGame(entry.action)]));
  }
  if (replay.game === "halunken-und-spelunken") {
    return replay.actions.flatMap((entry) =>
      entry.action === null ? [] : [entry.action.type === "play" ? `play ${entry.action.card}` : entry.action.type],
    );
  }
  return replay.actions.flatMap((entry) => (entry.action === null ? [] : [entry.action.type]));
}

function pick<T>(items: readonly T[]): T {
  const item = items[Math.floor(Math.random() * items.length)];
  if (item === undefined) throw new Error("nothing to pick from");
  return item;
}

async function playOne(baseUrl: string, game: Schemas["Game"], maxMoves: number): Promise<void> {
  const client = createClient<paths>({ baseUrl });
  const created = await client.POST("/v1/matches", { body: { game: game.id, players: game.min_players } });
  if (!created.data) throw new Error(`create ${game.id}: ${JSON.stringify(created.error)}`);
  const matchId = created.data.match_id;
  const params = { path: { match_id: matchId } };
  const tokens = new Map(created.data.seats.map((s) => [s.seat, s.token] as const));
  let moves = 0;
  for (;;) {
    const match = await client.GET("/v1/matches/{match_id}", { params });
    if (!match.data) throw new Error(`read ${game.id}: ${JSON.stringify(match.error)}`);
    describeMatch(match.data);
    if (match.data.status === "finished") {
      const outcome = match.data.outcome;
      if (outcome === null) throw new Error("a finished match has an outcome");
      const replay = await client.GET("/v1/matches/{match_id}/replay", { params });
      if (!replay.data) throw new Error(`replay ${game.id}: ${JSON.stringify(replay.error)}`);
      const replayed = replayedMoves(replay.data).length;
      console.log(JSON.stringify({ game: game.id, moves, replayed, winners: outcome.winners, scores: outcome.scores }));
      return;
    }
    if (moves >= maxMoves) throw new Error(`${game.id}: not finished after ${moves} moves`);
    const seat = pick(match.data.to_act);
    const headers = { Authorization: `Bearer ${tokens.get(seat) ?? ""}` };
    const legal = await client.GET("/v1/matches/{match_id}/legal-actions", { params, headers });
    if (!legal.data) throw new Error(`legal actions ${game.id}: ${JSON.stringify(legal.error)}`);
    if (legal.data.game !== game.id || describeLegal(legal.data).length !== legal.data.actions.length) {
      throw new Error(`legal actions ${game.id}: ${JSON.stringify(legal.data)}`);
    }
    // A request takes any game's action (the match is known), so any legal action is one.
    const action = pick<Schemas["AnyGameAction"]>(legal.data.actions);
    const acted = await client.POST("/v1/matches/{match_id}/actions", {
      params,
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
