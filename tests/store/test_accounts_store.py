"""One accounts suite, run against the memory store, the SQLite file store, real Redis and a
real Redis Cluster: bots and their key index, challenges as a compare-and-set, each bot's event
log with its pending map, presence."""

from __future__ import annotations

import secrets

import pytest

from service.accounts import Bot
from service.store import FileAccounts, FileStore, open_accounts
from service.store.accounts import EVENTS_KEPT, AccountStore


@pytest.fixture(params=["memory", "file", "redis", "cluster"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def accounts(store) -> AccountStore:
    return open_accounts(store)


def _name() -> str:
    return "bot" + secrets.token_hex(6)


def _record(name: str, description: str = "") -> bytes:
    """A bot's record as the core writes it: the store shares its Redis with the API tests,
    whose listings decode every bot they find."""
    return Bot(name, description, "", "2026-11-28T00:00:00.000Z").encode()


def test_a_name_is_taken_once_and_the_key_index_finds_the_bot(accounts: AccountStore) -> None:
    name = _name()
    assert accounts.create_bot(name, _record(name, "x"), "hash-" + name)
    assert not accounts.create_bot(name, _record(name, "y"), "other-" + name)
    row = accounts.bot(name)
    assert row is not None and (row.record, row.key_hash, row.played, row.faults) == (
        _record(name, "x"),
        "hash-" + name,
        0,
        {},
    )
    assert accounts.bot_by_key("hash-" + name) == name
    assert accounts.bot_by_key("other-" + name) is None
    assert accounts.bot(_name()) is None


def test_a_new_key_replaces_the_old_one_at_once(accounts: AccountStore) -> None:
    name = _name()
    accounts.create_bot(name, _record(name), "old-" + name)
    accounts.set_key(name, "old-" + name, "new-" + name)
    assert accounts.bot_by_key("old-" + name) is None
    assert accounts.bot_by_key("new-" + name) == name
    rotated = accounts.bot(name)
    assert rotated is not None and rotated.key_hash == "new-" + name
    accounts.set_key(name, "new-" + name, "")
    assert accounts.bot_by_key("new-" + name) is None
    retired = accounts.bot(name)
    assert retired is not None and retired.key_hash == ""


def test_records_counters_and_the_listing(accounts: AccountStore) -> None:
    prefix = "zz" + secrets.token_hex(4)
    names = [f"{prefix}-{i}" for i in range(3)]
    for name in names:
        accounts.create_bot(name, _record(name), "k-" + name)
    accounts.update_bot(names[0], _record(names[0], "d"))
    accounts.count_match(names[0], None)
    accounts.count_match(names[0], "timeout")
    accounts.count_match(names[0], "timeout")
    row = accounts.bot(names[0])
    assert row is not None and (row.record, row.played, row.faults) == (_record(names[0], "d"), 3, {"timeout": 2})
    listed = [name for name, _ in accounts.list_bots(prefix, 100) if name.startswith(prefix)]
    assert listed == names
    assert [n for n, _ in accounts.list_bots(names[0], 1)] == [names[1]]


def test_a_challenge_moves_on_by_compare_and_set(accounts: AccountStore) -> None:
    challenge_id = secrets.token_urlsafe(12)
    accounts.create_challenge(challenge_id, b"open", 60, expires_ms=1_000)
    assert accounts.challenge(challenge_id) == (0, b"open")
    assert challenge_id in accounts.due_challenges(1_000, 10_000)
    assert challenge_id not in accounts.due_challenges(999, 10_000)
    assert accounts.update_challenge(challenge_id, 0, b"accepted-1", 60, open_=True)
    assert not accounts.update_challenge(challenge_id, 0, b"canceled", 60, open_=False)
    assert accounts.update_challenge(challenge_id, 1, b"accepted", 60, open_=False)
    assert accounts.challenge(challenge_id) == (2, b"accepted")
    assert challenge_id not in accounts.due_challenges(10**15, 10_000)
    assert accounts.challenge("nope" + challenge_id) is None


def test_events_have_increasing_ids_and_a_pending_map(accounts: AccountStore) -> None:
    name = _name()
    assert accounts.pending(name) == ([], 0)
    first = accounts.append_event(name, b'{"a":1}', pend="c:1")
    second = accounts.append_event(name, b'{"a":2}', pend="m:1")
    third = accounts.append_event(name, b'{"a":3}', unpend="c:1")
    assert (first, second, third) == (1, 2, 3)
    assert [(e.id, e.body) for e in accounts.events_after(name, 0, 10)] == [
        (1, b'{"a":1}'),
        (2, b'{"a":2}'),
        (3, b'{"a":3}'),
    ]
    assert [e.id for e in accounts.events_after(name, 1, 1)] == [2]
    assert accounts.events_after(name, 3, 10) == []
    pending, last = accounts.pending(name)
    assert [(e.id, e.body) for e in pending] == [(2, b'{"a":2}')] and last == 3


def test_a_long_log_keeps_its_newest_events(accounts: AccountStore) -> None:
    name = _name()
    for i in range(EVENTS_KEPT + 50):
        accounts.append_event(name, b"%d" % i)
    kept = accounts.events_after(name, 0, 10 * EVENTS_KEPT)
    assert kept[-1].id == EVENTS_KEPT + 50
    assert EVENTS_KEPT <= len(kept) < EVENTS_KEPT + 50
    assert [e.id for e in kept] == list(range(kept[0].id, kept[-1].id + 1))


def test_the_bots_of_a_match(accounts: AccountStore) -> None:
    match_id = secrets.token_urlsafe(16)
    assert accounts.match_bots(match_id) is None
    accounts.link_match(match_id, ["a", "b"], 60)
    assert accounts.match_bots(match_id) == ["a", "b"]


def test_presence_counts_open_unexpired_streams(accounts: AccountStore) -> None:
    name = _name()
    accounts.touch_presence(name, "s1", 2_000)
    accounts.touch_presence(name, "s2", 5_000)
    assert accounts.streams(name, 1_000) == 2
    assert accounts.streams(name, 3_000) == 1
    assert name in accounts.online_bots(1_000, 10_000)
    accounts.drop_presence(name, "s1")
    accounts.drop_presence(name, "s2")
    assert accounts.streams(name, 1_000) == 0
    assert name not in accounts.online_bots(1_000, 10_000)


def test_file_accounts_survive_a_new_process(tmp_path) -> None:
    """What a restart of `referee serve` sees: a new store over the same file."""
    first = FileAccounts(FileStore(tmp_path / "m.sqlite3"))
    first.create_bot("kept", _record("kept"), "hash")
    first.append_event("kept", b"e", pend="c:1")
    again = FileAccounts(FileStore(tmp_path / "m.sqlite3"))
    assert again.bot_by_key("hash") == "kept"
    assert again.pending("kept")[1] == 1


def test_the_file_forgets_expired_challenges_and_match_links(tmp_path) -> None:
    """Redis lets them expire; the SQLite file deletes them as new ones are written, so a
    long-running `referee serve` does not keep every challenge it ever saw."""
    now = [1_000.0]
    store = FileStore(tmp_path / "m.sqlite3")
    accounts = FileAccounts(store, clock=lambda: now[0])
    accounts.create_challenge("old", b"r", ttl=60, expires_ms=1_060_000)
    accounts.link_match("m-old", ["a", "b"], ttl=60)
    now[0] += 61
    accounts.create_challenge("new", b"r", ttl=60, expires_ms=1_121_000)
    accounts.link_match("m-new", ["a", "b"], ttl=60)
    with store.transaction(write=False) as db:
        assert [r[0] for r in db.execute("SELECT id FROM challenges")] == ["new"]
        assert [r[0] for r in db.execute("SELECT match_id FROM bot_matches")] == ["m-new"]
    assert accounts.challenge("new") is not None and accounts.match_bots("m-new") == ["a", "b"]
