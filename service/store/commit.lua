-- Compare-and-set one move of one match, atomically.
-- KEYS[1] match hash {v = version, d = record}   KEYS[2] action log (list)
-- KEYS[3] idempotency hash {key = version it produced}, shared by the match's keyed moves
-- ARGV[1] expected version   ARGV[2] new record   ARGV[3] log entry
-- ARGV[4] time to live (s)   ARGV[5] idempotency key to remember, or ''
-- ARGV[6] channel to publish the new version on
-- Returns {1, new_version} when committed, {0, current_version} when the version moved
-- on, {0, -1} when the match does not exist, {-1, current_version} when the log does not
-- have one entry per version (keys evicted): such a match is never continued.
local current = redis.call('HGET', KEYS[1], 'v')
if not current then
  return {0, -1}
end
current = tonumber(current)
if current ~= tonumber(ARGV[1]) then
  return {0, current}
end
if redis.call('LLEN', KEYS[2]) ~= current then
  return {-1, current}
end
local new_version = current + 1
local ttl = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], 'v', new_version, 'd', ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[3])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[5], new_version)
end
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
redis.call('PUBLISH', ARGV[6], new_version)
return {1, new_version}
