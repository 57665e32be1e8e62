"""One way to reach Redis for every part of the service: a single Redis (``REDIS_URL``) or a
Redis Cluster (``REDIS_CLUSTER_URL``, any node; redis-py's ``RedisCluster`` finds the others).

Both clients take the same commands for keys of one slot, so the store, the rate limits and
the rest use whichever they are given. What differs is said where it matters: pub/sub is
sharded on a cluster (``SPUBLISH``/``SSUBSCRIBE``), a keyless command goes to every master,
and a pipeline holds the commands of one slot (every key of a match shares ``{match_id}``).
"""

from __future__ import annotations

from typing import TypeAlias

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry

#: A client of either kind.
Client: TypeAlias = "redis.Redis | RedisCluster"

MAX_CONNECTIONS = 10_000
"""Connections one process may open to one Redis node. redis-py 8 caps a pool at 100 unless told
otherwise and then fails the 101st concurrent command at once (``MaxConnectionsError``); a
gevent worker holds up to ``REFEREE_WORKER_CONNECTIONS`` (1,000) requests and streams at once,
each with at most one command in flight, so a burst such as a thousand bot streams closing
together would turn moves into 503s. Redis's own default ``maxclients`` is this number."""


def connect(url: str, *, cluster: bool = False, timeout: float = 2.0) -> Client:
    """A client with short timeouts and one quick retry: a dropped connection (Redis
    restarted, a master failed over) is retried once, a Redis that is down answers within two
    timeouts. On a cluster the retry first refreshes the slot map, so a move that lands
    after a replica was promoted goes to the new master."""
    options = {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        "retry": Retry(ExponentialWithJitterBackoff(base=0.008, cap=0.1), 1),
        "max_connections": MAX_CONNECTIONS,
    }
    if cluster:
        return RedisCluster.from_url(url, **options)
    return redis.Redis.from_url(url, health_check_interval=30, **options)


def is_cluster(client: Client) -> bool:
    return isinstance(client, RedisCluster)
