/**
 * The Lua of the store's counters (types.ts `tally`, `readTallies`; the memory store's tallies.ts does the same): all of a
 * call's counters in one EVALSHA, and a page's worth of buckets read in one. Like scripts.ts, they touch only the keys
 * they are given and say so (`allow-key-locking`).
 */

const SHEBANG = '#!lua flags=allow-key-locking\n';

/**
 * KEYS: per tally, its hash then the set of each of its rankings. ARGV: the number of tallies, then per tally: ttl,
 * the number of fields, field/increment pairs, the number of rankings, and per ranking: set name, member, weight,
 * bound, the number of suffixes, suffix/increment pairs. The hash and its sets expire `ttl` after the hash's first
 * write (a bucket's end is fixed, so a later write need not move it). Past a ranking's bound its lightest member goes
 * (the member just added when it is no heavier than the lightest other), with its fields, and `<set>:dropped` counts one.
 */
export const TALLY = `${SHEBANG}local a, k = 2, 1
for _ = 1, tonumber(ARGV[1]) do
  local hash, ttl = KEYS[k], ARGV[a]
  k = k + 1
  local fresh = redis.call('EXISTS', hash) == 0
  local n = tonumber(ARGV[a + 1])
  a = a + 2
  for i = 1, n do redis.call('HINCRBY', hash, ARGV[a], ARGV[a + 1]); a = a + 2 end
  local r = tonumber(ARGV[a])
  a = a + 1
  for _ = 1, r do
    local set, member, weight, bound, s = ARGV[a], ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4])
    local zset = KEYS[k]
    k = k + 1
    a = a + 5
    local suffixes = {}
    for i = 1, s do
      suffixes[i] = ARGV[a]
      redis.call('HINCRBY', hash, set .. ':' .. ARGV[a] .. ':' .. member, ARGV[a + 1])
      a = a + 2
    end
    local score = tonumber(redis.call('ZINCRBY', zset, weight, member))
    if redis.call('ZCARD', zset) > bound then
      local low = redis.call('ZRANGE', zset, 0, 1, 'WITHSCORES')
      local gone = low[1]
      if gone == member then gone = low[3] end
      if score <= tonumber(redis.call('ZSCORE', zset, gone)) then gone = member end
      redis.call('ZREM', zset, gone)
      for i = 1, s do redis.call('HDEL', hash, set .. ':' .. suffixes[i] .. ':' .. gone) end
      redis.call('HINCRBY', hash, set .. ':dropped', 1)
    end
    if fresh or redis.call('PTTL', zset) < 0 then redis.call('PEXPIRE', zset, ttl) end
  end
  if fresh then redis.call('PEXPIRE', hash, ttl) end
end
return 1
`;

/** KEYS: counter hashes. Returns each one's HGETALL (empty for an absent key). */
export const READ_TALLIES = `${SHEBANG}local out = {}
for i = 1, #KEYS do out[i] = redis.call('HGETALL', KEYS[i]) end
return out
`;
