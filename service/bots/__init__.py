"""Reference bots over the engine contract.

A bot decides from what its seat may know (the seat's view) and the legal actions, never
from the full state, so a bot that plays well over HTTP plays exactly as it does in process.
"""

from service.bots.base import Bot
from service.bots.random_bot import RandomBot

__all__ = ["Bot", "RandomBot"]
