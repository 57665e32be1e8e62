"""``referee arena``: bots against bots over the referee's HTTP API, with ratings.

- :mod:`~service.arena.client`: the HTTP API as the runner uses it.
- :mod:`~service.arena.players`: built-in bots and external programs (docs/arena.md's protocol).
- :mod:`~service.arena.schedule`: seat rotation.
- :mod:`~service.arena.runner`: plays the matches.
- :mod:`~service.arena.ratings`: Glicko-2.
- :mod:`~service.arena.report`: the table and the JSON lines.
- :mod:`~service.server.inprocess`: a referee served in this process when no ``--url`` is given.
- :mod:`~service.arena.command`: the command line.

Like any other client, the arena knows the referee only through its HTTP API (and runs the
built-in bots of :mod:`service.bots` itself).
"""
