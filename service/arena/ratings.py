"""Glicko-2 ratings of bots from match results (Glickman, "Example of the Glicko-2 system").

A match of P seats counts as the P·(P−1)/2 pairwise games its ranks imply: the better-ranked
seat won, equal ranks drew. Two seats played by the same bot say nothing about that bot and are
left out. Results are rated in *rating periods* (the paper's unit: every player's games of a
period are rated against the opponents' ratings at its start), so the order of the matches
inside one period does not matter; the runner makes a period of one cycle of its line-ups
(:mod:`service.arena.schedule`), in which every bot played every seat.

The 95% interval is ``rating ± 1.96·RD``, the paper's own reading of the rating deviation.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SCALE = 173.7178
"""Glicko points per Glicko-2 unit (400 / ln 10)."""

DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
DEFAULT_TAU = 0.5
"""The system constant τ: how fast volatility may change (the paper suggests 0.3–1.2)."""

_CONVERGENCE = 1e-6
Z_95 = 1.96


@dataclass(frozen=True)
class Rating:
    """One player's Glicko-2 rating on the Glicko scale: rating, deviation, volatility."""

    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY

    def interval(self, z: float = Z_95) -> tuple[float, float]:
        """The interval ``rating ± z·RD`` (95% for the default ``z``)."""
        return self.rating - z * self.rd, self.rating + z * self.rd


@dataclass(frozen=True)
class Game:
    """One pairwise result: ``score`` is 1 when ``first`` won, 0 when it lost, 0.5 a draw."""

    first: str
    second: str
    score: float


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the volatility σ' by the Illinois variant of regula falsi."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _CONVERGENCE:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = DEFAULT_TAU) -> Rating:
    """The player's rating after one rating period with ``results`` = (opponent as rated at the
    start of the period, score) pairs. Without games only the deviation grows (step 6)."""
    mu = (player.rating - DEFAULT_RATING) / SCALE
    phi = player.rd / SCALE
    if not results:
        return Rating(player.rating, math.sqrt(phi * phi + player.volatility**2) * SCALE, player.volatility)
    inverse_v = 0.0
    improvement = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - DEFAULT_RATING) / SCALE
        phi_j = opponent.rd / SCALE
        g, e = _g(phi_j), _expected(mu, mu_j, phi_j)
        inverse_v += g * g * e * (1.0 - e)
        improvement += g * (score - e)
    v = 1.0 / inverse_v
    sigma = _new_volatility(player.volatility, phi, v, v * improvement, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    return Rating(new_mu * SCALE + DEFAULT_RATING, new_phi * SCALE, sigma)


def rate_period(ratings: dict[str, Rating], games: Iterable[Game], tau: float = DEFAULT_TAU) -> dict[str, Rating]:
    """Everyone's ratings after one period of ``games``; players without games keep playing the
    waiting game of step 6. New names start at 1500 / 350 / 0.06."""
    results: dict[str, list[tuple[Rating, float]]] = defaultdict(list)
    before = dict(ratings)
    for game in games:
        for name in (game.first, game.second):
            before.setdefault(name, Rating())
        results[game.first].append((before[game.second], game.score))
        results[game.second].append((before[game.first], 1.0 - game.score))
    return {name: update(rating, results.get(name, []), tau) for name, rating in before.items()}


def pairwise_games(bots: Sequence[str], ranks: Sequence[int]) -> list[Game]:
    """The pairwise games one match implies: ``bots[seat]`` played ``seat``, ranked
    ``ranks[seat]`` (1 is best). Pairs of seats of the same bot are left out."""
    games = []
    for i in range(len(bots)):
        for j in range(i + 1, len(bots)):
            if bots[i] == bots[j]:
                continue
            score = 0.5 if ranks[i] == ranks[j] else (1.0 if ranks[i] < ranks[j] else 0.0)
            games.append(Game(bots[i], bots[j], score))
    return games
