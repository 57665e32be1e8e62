"""Caching: an answer shows what its caller may see, so a cache must never hand one viewer's
answer (or its 304) to another, and must never keep a seat's answer."""

from __future__ import annotations

from tests.support.http import MatchClient, auth


def test_each_viewer_has_its_own_etag_and_only_its_own_304(client) -> None:
    match = MatchClient.create(client, "the-game", 2)
    spectator = client.get(match.url)
    seats = [client.get(match.url, headers=auth(token)) for token in match.tokens]
    etags = [spectator.headers["ETag"], *(seat.headers["ETag"] for seat in seats)]
    assert len(set(etags)) == 3, "the spectator and each seat see different things"
    assert all(spectator.get_json()["state_token"] in etag for etag in etags)

    assert client.get(match.url, headers={"If-None-Match": etags[0]}).status_code == 304
    same_seat = client.get(match.url, headers={"If-None-Match": etags[1], **auth(match.tokens[0])})
    assert same_seat.status_code == 304 and same_seat.headers["ETag"] == etags[1]
    # The spectator's ETag must not confirm a seat's cached view, nor one seat's another's.
    for etag, token in [(etags[0], match.tokens[0]), (etags[1], match.tokens[1])]:
        answer = client.get(match.url, headers={"If-None-Match": etag, **auth(token)})
        assert answer.status_code == 200 and answer.get_json()["view"]["hand"]
    assert client.get(match.url, headers={"If-None-Match": etags[1]}).status_code == 200


def test_seat_answers_are_private_and_never_stored(client) -> None:
    match = MatchClient.create(client, "the-game", 2)
    seat = match.created["to_act"][0]
    legal = match.legal(seat)
    seat_answers = {
        "create": client.post("/v1/matches", json={"game": "the-game", "players": 2}),
        "read": client.get(match.url, headers=auth(match.tokens[seat])),
        "legal actions": client.get(f"{match.url}/legal-actions", headers=auth(match.tokens[seat])),
        "history": client.get(f"{match.url}/history", headers=auth(match.tokens[seat])),
        "act": match.act(seat, legal["state_token"], legal["actions"][0]),
        "refused act": match.act(seat, legal["state_token"], legal["actions"][0]),
    }
    for name, response in seat_answers.items():
        assert response.headers["Cache-Control"] == "private, no-store", name
        assert "Authorization" in response.headers["Vary"], name
    spectator = client.get(match.url)
    assert spectator.headers["Cache-Control"] == "no-cache", "a spectator's view is revalidated every time"
    assert "Authorization" in spectator.headers["Vary"]
    assert client.get(f"{match.url}/history").headers["Cache-Control"] == "no-cache"
