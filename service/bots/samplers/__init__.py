"""Samplers: from one seat's view, a full state of its game that the seat cannot tell apart
from the real one, its hidden parts drawn at random. The search bots (levels 3-5) play on such
states, so they never see what their seat cannot. One module per game, named like the game's
heuristic bot module, each with ``sample_state(game, view, seat, rng)``.
"""
