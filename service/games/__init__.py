"""One package per game, each exposing ``GAME``: pure rules, no Flask, no Redis."""
