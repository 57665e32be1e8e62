"""Every stable problem ``code`` the referee answers with, in one place.

A client branches on ``code`` (the OpenAPI document publishes this catalogue as the enum of
``Problem.code``), so a code is part of the API: adding one means adding it here, with the
sentence a client author reads. ``tests/test_problem_codes.py`` fails when the source raises
a code that is not listed here, when a listed code is raised nowhere, and when any test of
the suite sees a problem whose code is not listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

HTTP_CODES: Mapping[str, str] = MappingProxyType(
    {
        "bad_request": "400 from the HTTP layer (a malformed request line or header).",
        "not_found": "404: no such route.",
        "method_not_allowed": "405: the route exists, not for this method (see `Allow`).",
        "not_acceptable": "406: no representation matches `Accept`.",
        "body_too_large": "413: the body exceeds the configured size limit.",
        "unsupported_media_type": "415: the body is not `application/json`.",
        "rate_limited": "429: the rate limit is spent; retry after `Retry-After` seconds.",
        "internal_error": "5xx: something failed on the server; it has been logged.",
        "http_error": "Any other HTTP-layer error status.",
    }
)
"""Codes of errors the HTTP machinery raises before any endpoint runs."""

API_CODES: Mapping[str, str] = MappingProxyType(
    {
        "invalid_json": "The body is not strict JSON, or nests too deep.",
        "invalid_body": "The body or query does not match the operation's schema; see `errors`.",
        "bad_credentials": "`Authorization` is not `Bearer <token>`, or the token is not this match's.",
        "authentication_required": "The operation needs a seat token.",
        "invalid_idempotency_key": "`Idempotency-Key` is not 1–255 visible ASCII characters.",
        "idempotency_key_reused": "The `Idempotency-Key` was used with another body.",
        "invalid_state_token": "The state token is malformed or was not issued by this referee.",
        "state_token_mismatch": "The state token belongs to another match.",
        "stale_state_token": "The match moved on; `current_state_token` is the token to decide on.",
        "unknown_game": "No game with this id.",
        "unknown_match": "No match with this id (or it expired).",
        "match_id_collision": "A new match id collided with an existing one; retry.",
        "match_not_finished": "The replay exists once the match is finished.",
        "match_aborted": "The match was aborted before anyone moved: it has no replay.",
        "match_over": (
            "The match has ended (finished, resigned, timed out or aborted): it takes no more actions (HTTP 409)."
        ),
        "match_started": "Only a match nobody has moved in yet may be aborted (HTTP 409); resign instead.",
        "invalid_house": "The house seats are not distinct seats of the match.",
        "store_unavailable": (
            "The store cannot take the request now (unreachable, full, read-only); retry after `Retry-After`."
        ),
        "match_damaged": "The store lost part of this match (log and version disagree); it is never served.",
        "invalid_last_event_id": "`Last-Event-ID` (or `last_event_id`) is not a version (of a match stream) or "
        "an event id (of a bot's stream).",
        "websocket_required": "The match's socket route takes only a WebSocket upgrade request (HTTP 426).",
        "too_many_streams": "This server holds as many streams as it may, or the caller (its address, or its "
        "seat token) holds as many as it has free; retry after `Retry-After`.",
        "server_stopping": "This server is stopping (a deploy, a scale-down) and opens no more streams or long "
        "polls; retry after `Retry-After`, here or on another node.",
        "admin_token_required": "This server registers bots only with its admin token as the bearer (HTTP 401).",
        "name_taken": "A bot of this name exists already, in any case (HTTP 409).",
        "unknown_bot_key": "The bearer is no bot's current key: unknown, rotated, or its bot retired (HTTP 401).",
        "unknown_bot": "No bot of this name (or it retired).",
        "unknown_challenge": "No challenge of this id that the calling bot is in.",
        "not_an_opponent": "Only a bot the challenge names as an opponent may accept or decline it (HTTP 403).",
        "not_the_challenger": "Only the challenger may cancel a challenge (HTTP 403).",
        "challenge_closed": "The challenge is no longer open (`challenge_status` says why) (HTTP 409).",
        "challenge_busy": "The challenge kept changing under the request; retry (HTTP 409).",
        "players_mismatch": "`players` is not 1 + the number of opponents.",
        "invalid_opponents": "The opponents must be other bots, each named once.",
        "too_many_challenges": "The bot has as many open challenges as it may (`limit`); HTTP 429 with `Retry-After`.",
        "too_many_bot_streams": "The bot holds as many event streams as it may (`limit`); HTTP 429.",
        "admin_token_missing": "Operator calls need `REFEREE_ADMIN_TOKEN` set on the server (and as the bearer); "
        "this server has none (HTTP 401).",
        "invalid_ladder_id": "A ladder id is 2–40 characters of `a-z`, `0-9` and `-`, not starting with `-`.",
        "unknown_ladder": "No ladder with this id.",
        "ladder_exists": "A ladder with this id exists already (HTTP 409).",
        "ladder_closed": "The ladder is closed: nobody joins it and it opens no more (HTTP 409).",
        "ladder_busy": "The ladder kept changing under the request; retry (HTTP 409).",
        "unknown_house_bot": "The house has no bot of this name for the ladder's game.",
        "game_not_accepted": "The bot's auto-accept rules list games, and not the ladder's.",
        "already_joined": "The bot is a member of the ladder already (HTTP 409).",
        "not_joined": "The bot is not a member of the ladder (HTTP 409).",
        "suspended": "The bot is suspended from the ladder; its owner may rejoin it after `retry_after` seconds "
        "(HTTP 409).",
    }
)
"""Codes of the API and the referee, shared by every game."""

ENGINE_CODES: Mapping[str, str] = MappingProxyType(
    {
        "engine_error": "A game engine refused without a more precise code.",
        "invalid_player_count": "The game is not for this many players.",
        "unknown_option": "The game has no option of this name.",
        "invalid_option": "The option does not accept this value (or this value with this player count).",
        "not_your_turn": "The seat owes no decision now (HTTP 403).",
        "unknown_action_type": "The game has no action of this `type`.",
        "bad_action": "The action does not match its type's schema.",
        "illegal_action": "The rules forbid this action now; `rule` names the rule.",
    }
)
"""Codes every game engine shares (service.engine)."""

RULE_CODES: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "esploratore": MappingProxyType(
            {
                "already_moved": "The vehicle already moved this turn.",
                "barter_rule": "The barter does not follow the trading rules.",
                "card_not_in_hand": "The card is not in the hand.",
                "combine_rule": "The cards cannot be combined.",
                "first_play": "The first card of a turn breaks the opening rule.",
                "movement_rule": "The movement breaks the movement rules.",
                "no_free_orbit": "No free orbit is left.",
                "not_your_vehicle": "The vehicle belongs to another seat.",
                "orbit_kept": "The orbit is kept by the rules.",
                "pile_rule": "The card cannot go on this pile.",
                "placement_rule": "The card cannot be placed there.",
                "shift_rule": "The shift breaks the rules.",
                "trade_rule": "The government trade is not allowed now.",
                "upside_down": "The card cannot be turned upside down here.",
                "vehicle_limit": "No more vehicles may be built.",
                "wild_position": "A wild card cannot go in this position.",
                "wrong_phase": "The action belongs to another phase of the turn.",
                "wrong_position": "The card does not fit this position.",
            }
        ),
        "halunken-und-spelunken": MappingProxyType(
            {
                "already_committed": "The seat already committed this round.",
                "bid_too_low": "The bid does not beat the current one.",
                "card_not_available": "The card is not available now.",
                "card_not_in_deck": "The card is not in the seat's deck.",
                "card_not_in_hand": "The card is not in the hand.",
                "card_not_owned": "The seat does not own the card.",
                "not_controller": "The seat does not control this space.",
                "rum_value_taken": "That rum value is already taken.",
                "space_not_beside_black_jack": "Black Jack steps aside only to a free space beside it.",
                "space_occupied": "The space is occupied.",
                "theft_not_optional": "Only the two-player theft may be declined.",
                "wrong_phase": "The action belongs to another phase.",
            }
        ),
        "isola-dei-vulcani": MappingProxyType(
            {
                "area_limit": "The area already holds what the rules allow.",
                "crack": "A crack blocks the move.",
                "crater_taken": "The crater is taken.",
                "decision_pending": "Another decision must be taken first.",
                "no_colonist": "No colonist is available.",
                "no_decision": "No decision is pending.",
                "no_geyser": "No geyser is there.",
                "no_lava": "No lava is there.",
                "no_moai": "No moai is available.",
                "no_prayer_token": "No prayer token is left.",
                "no_village": "No village is available.",
                "not_a_space": "That is not a space of the board.",
                "not_adjacent": "The spaces are not adjacent.",
                "not_enough_action_points": "Not enough action points are left.",
                "not_landing_bay": "That is not a landing bay.",
                "nothing_enclosed": "Nothing is enclosed.",
                "nothing_to_save": "Nothing is to be saved.",
                "prayer_once_a_turn": "Prayer tokens are bought once a turn.",
                "supply_empty": "The supply is empty.",
            }
        ),
        "the-game": MappingProxyType(
            {
                "already_proposed": "That seat is already proposed as the starter.",
                "card_not_in_hand": "The card is not in the hand.",
                "minimum_not_met": "The turn has not laid its minimum number of cards.",
                "no_such_pile": "There is no such pile.",
                "no_such_seat": "There is no such seat.",
                "nothing_to_accept": "No starter was proposed.",
                "pile_rule": "The card cannot go on this pile.",
                "proposal_used": "The seat has already proposed.",
                "starter_already_agreed": "The starter is already agreed.",
                "starter_not_agreed": "Agree on who starts first.",
            }
        ),
        "viaggio-al-centro-della-terra": MappingProxyType(
            {
                "card_not_in_hand": "The card is not in the hand.",
            }
        ),
    }
)
"""Each game's own rule codes, by game id (besides :data:`ENGINE_CODES`)."""


def all_codes() -> dict[str, str]:
    """Every code with its description, sorted: the enum of ``Problem.code``."""
    catalogue: dict[str, str] = {**HTTP_CODES, **API_CODES, **ENGINE_CODES}
    for game_id, codes in RULE_CODES.items():
        for code, description in codes.items():
            catalogue.setdefault(code, f"{game_id}: {description}")
    return dict(sorted(catalogue.items()))
