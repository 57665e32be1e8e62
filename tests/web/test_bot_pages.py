"""A bot's page and the bots online on the landing page: profile, presence, matches in
progress with watch links, recent results with replay links, every bot's words escaped and no
seat token anywhere."""

from __future__ import annotations

from tests.api.test_bots import bearer, register
from tests.api.test_challenges import challenge, events


def test_a_bot_page_shows_its_matches_and_results_escaped(client) -> None:
    (alice, a), (bob, b) = register(client), register(client)
    client.patch("/v1/bots/me", json={"description": "<script>alert(1)</script> & co"}, headers=bearer(a))
    played = challenge(client, a, bob, seats="in_order")
    client.post(f"/v1/challenges/{played['id']}/accept", headers=bearer(b))
    first = events(client, a)[-1]
    client.post(f"/v1/matches/{first['match_id']}/resign", headers=bearer(first["seat_token"]))
    running = challenge(client, a, bob, seats="in_order")
    client.post(f"/v1/challenges/{running['id']}/accept", headers=bearer(b))
    second = events(client, a)[-1]
    page = client.get(f"/bots/{alice.upper()}")
    assert page.status_code == 200 and page.content_type.startswith("text/html")
    assert "Content-Security-Policy" in page.headers
    html = page.get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in html
    assert f'href="/watch/{second["match_id"]}"' in html
    assert f'href="/v1/matches/{first["match_id"]}/replay"' in html and "rank 2 of 2 (resigned)" in html
    assert f'href="/bots/{bob}"' in html and "offline" in html
    assert first["seat_token"] not in html and second["seat_token"] not in html
    assert a not in html


def test_an_unknown_bot_page_is_404_and_escaped(client) -> None:
    page = client.get("/bots/%3Cb%3Ex")
    assert page.status_code == 404 and "<b>x" not in page.get_data(as_text=True)


def test_the_landing_page_lists_bots_online(client) -> None:
    (alice, a), (bob, _) = register(client), register(client)
    client.patch("/v1/bots/me", json={"description": "<i>hi</i>"}, headers=bearer(a))
    assert alice not in client.get("/").get_data(as_text=True)
    stream = client.get("/v1/bots/me/events", headers=bearer(a), buffered=False)
    html = client.get("/").get_data(as_text=True)
    assert f'href="/bots/{alice}"' in html and bob not in html
    assert "&lt;i&gt;hi&lt;/i&gt;" in html
    stream.close()
    assert alice not in client.get("/").get_data(as_text=True)
