"""A bot's side of bot accounts (docs/bots.md): the bot's event stream, its challenges, and
the bridge that plays every match the account is in, with a local command speaking
docs/arena.md's protocol (``referee bot connect``) or with a Python :class:`Bot`.

It talks to the referee over HTTP only, through the arena's client and match loop
(:mod:`service.arena`), and imports nothing of the server: a bot author's machine needs this
package and ``httpx``, not Flask.
"""

from service.botkit.bot import Bot

__all__ = ["Bot"]
