"""Agreeing on who starts: "Dopo aver guardato le carte, i giocatori si accordano su chi inizia".

After the deal the seats talk, in public, about who should start; only the result is a rule.
The referee turns that talk into a small protocol over plain data (the ``agreement`` dict of
the state), so that it always ends, even under uniformly random play:

- Seat 0 opens and speaks first; the floor then passes in seat order to the next seat that has
  not accepted the proposal on the table.
- With no proposal on the table, the speaker must ``propose_starter`` (any seat, itself too).
- With a proposal on the table, the speaker either ``accept_starter`` (agrees with it) or makes
  its own proposal instead — but each seat may propose **once** in the whole negotiation.
- A new proposal clears the acceptances: only its proposer agrees with it so far.
- When every seat agrees with the proposal on the table, that seat starts.

There are at most ``players`` proposals, and between two proposals at most ``players - 1``
acceptances, so the negotiation ends within ``players²`` actions. Every proposal and acceptance
is public (it is table talk about who starts, not about cards).
"""

from __future__ import annotations

from typing import Any

from service.engine import Action

Agreement = dict[str, Any]


def opening() -> Agreement:
    """The negotiation before anyone spoke: seat 0 has the floor and nothing is proposed."""
    return {"speaker": 0, "proposal": None, "proposer": None, "accepted": [], "proposed": []}


def choices(agreement: Agreement, players: int) -> list[Action]:
    """What the speaker may say now."""
    speaker = agreement["speaker"]
    proposal = agreement["proposal"]
    said: list[Action] = [] if proposal is None else [{"type": "accept_starter"}]
    if speaker not in agreement["proposed"]:
        said += [{"type": "propose_starter", "seat": s} for s in range(players) if s != proposal]
    return said


def propose(agreement: Agreement, players: int, starter: int) -> None:
    """The speaker proposes ``starter``; only the speaker agrees with it so far."""
    speaker = agreement["speaker"]
    agreement["proposal"] = starter
    agreement["proposer"] = speaker
    agreement["accepted"] = [speaker]
    agreement["proposed"] = sorted([*agreement["proposed"], speaker])
    _pass_the_floor(agreement, players)


def accept(agreement: Agreement, players: int) -> None:
    """The speaker agrees with the proposal on the table."""
    agreement["accepted"] = sorted([*agreement["accepted"], agreement["speaker"]])
    _pass_the_floor(agreement, players)


def agreed_starter(agreement: Agreement, players: int) -> int | None:
    """The seat everyone agreed on, or ``None`` while someone has not agreed yet."""
    return agreement["proposal"] if len(agreement["accepted"]) == players else None


def _pass_the_floor(agreement: Agreement, players: int) -> None:
    speaker = agreement["speaker"]
    for k in range(1, players + 1):
        seat = (speaker + k) % players
        if seat not in agreement["accepted"]:
            agreement["speaker"] = seat
            return
