-- Compare-and-set one move of one match, atomically; on a refusal, answer the match as a
-- load would have (etcd's put-or-get), so a referee that committed on a cached record
-- re-checks its move without another round trip.
-- KEYS[1] match hash {v = version, d = record, b = base record, i = the record's identity}
-- KEYS[2] action log (list)
-- KEYS[3] idempotency hash {key = version it produced}, shared by the match's keyed moves
-- KEYS[4] channel the new version is published on (a key, so that a cluster routes it with
--         the match: sharded pub/sub stays in the match's shard)
-- What the move was made from, which the match must still hold:
-- ARGV[1] its version   ARGV[2] its record's identity ('' for a record written before
--         identities, which has none; '*' for any record at that version)
-- What the move writes:
-- ARGV[3] new record   ARGV[4] its identity (random, new with every write)   ARGV[5] log entry
-- ARGV[6] time to live (s)   ARGV[7] idempotency key to remember, or ''
-- ARGV[8] '1' to publish with SPUBLISH (Redis Cluster), '' for PUBLISH (a single Redis)
-- ARGV[9] new base record, or ''
-- When the move may happen by this Redis's own clock (TIME, in ms since the epoch), so that
-- every node's decision about a deadline is judged by one clock:
-- ARGV[10] not before (a timeout, at or after its deadline), or ''
-- ARGV[11] before (a decision made while a clock still ran), or ''
-- On a single Redis the indexes' hints go in the same call (on a cluster their keys are in
-- other slots, and the store writes them apart):
-- ARGV[12] the match id (their member)   ARGV[13] its listing score (updated, ms), or ''
-- ARGV[14] when the listing keys expire (ms since the epoch)   ARGV[15] its due time (ms), or ''
-- KEYS[5], KEYS[6] the listing keys, when ARGV[13] is set; the due index's key last, when
-- ARGV[15] is set. A refused move writes no hint.
-- Returns {1, new_version} when committed (with this Redis's time when ARGV[10] or ARGV[11]
-- asked for it: {1, new_version, now_ms}); {0, current_version, record, produced, base,
-- identity} when the match holds another record (the version moved on, or the record at
-- that version is another one: Redis lost the one the move was made from) or the
-- idempotency key already produced a version (produced: that version, or false); {2,
-- current_version, now_ms} when this Redis's clock says the move comes too early or too
-- late; {0, -1} when the match does not exist; {-1, current_version} when the log does not
-- have one entry per version (keys evicted): such a match is never continued.
local head = redis.call('HMGET', KEYS[1], 'v', 'i')
local current = head[1]
if not current then
  return {0, -1}
end
current = tonumber(current)
local identity = head[2] or ''
local log_length = redis.call('LLEN', KEYS[2])
local produced = false
if ARGV[7] ~= '' then
  produced = redis.call('HGET', KEYS[3], ARGV[7])
end
if current ~= tonumber(ARGV[1]) or (ARGV[2] ~= '*' and identity ~= ARGV[2]) or produced then
  -- The answer stands for a load, so it refuses a damaged match as a load does.
  if log_length < current then
    return {-1, current}
  end
  local stored = redis.call('HMGET', KEYS[1], 'd', 'b')
  return {0, current, stored[1], produced, stored[2], identity}
end
if log_length ~= current then
  return {-1, current}
end
local now_ms = false
if ARGV[10] ~= '' or ARGV[11] ~= '' then
  local time = redis.call('TIME')
  now_ms = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  if (ARGV[10] ~= '' and now_ms < tonumber(ARGV[10])) or (ARGV[11] ~= '' and now_ms >= tonumber(ARGV[11])) then
    return {2, current, now_ms}
  end
end
local new_version = current + 1
local ttl = tonumber(ARGV[6])
redis.call('HSET', KEYS[1], 'v', new_version, 'd', ARGV[3], 'i', ARGV[4])
if ARGV[9] ~= '' then
  redis.call('HSET', KEYS[1], 'b', ARGV[9])
end
redis.call('RPUSH', KEYS[2], ARGV[5])
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[7], new_version)
end
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
if ARGV[8] == '1' then
  redis.call('SPUBLISH', KEYS[4], new_version)
else
  redis.call('PUBLISH', KEYS[4], new_version)
end
if ARGV[13] and ARGV[13] ~= '' then
  for i = 5, 6 do
    if redis.call('ZADD', KEYS[i], ARGV[13], ARGV[12]) == 1 then
      redis.call('PEXPIREAT', KEYS[i], ARGV[14])
    end
  end
end
if ARGV[15] and ARGV[15] ~= '' then
  redis.call('ZADD', KEYS[#KEYS], 'LT', ARGV[15], ARGV[12])
end
if now_ms then
  return {1, new_version, now_ms}
end
return {1, new_version}
