/**
 * The Lua of the shared store's composite operations (types.ts `enter`, `leave`). A script runs atomically on
 * Redis and is billed as one command (EVALSHA once Redis has it cached), where the same steps as separate
 * commands would be billed each and, worse, take a round trip each. They touch only the keys they are given,
 * so they declare `allow-key-locking`: Upstash then locks just those keys instead of the whole database while
 * one runs (stock Redis rejects the flag; the test bridge drops it, as it does for @upstash/ratelimit's).
 */

const SHEBANG = '#!lua flags=allow-key-locking\n';

/**
 * KEYS: [result, claim] when ARGV[1] (the claim's ttl) is not '', then [queue, done] when ARGV[2] (the queue's
 * ttl) is not '', then the keys to read. Returns {'result', value}, {'taken'} or {'go', ticket, done, values...}.
 */
export const ENTER = `${SHEBANG}local k = 1
if ARGV[1] ~= '' then
  local result = redis.call('GET', KEYS[1])
  if result then return {'result', result} end
  if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return {'taken'} end
  k = 3
end
local out = {'go', false, false}
if ARGV[2] ~= '' then
  out[2] = redis.call('INCR', KEYS[k])
  redis.call('PEXPIRE', KEYS[k], ARGV[2])
  out[3] = redis.call('GET', KEYS[k + 1])
  k = k + 2
end
for i = k, #KEYS do out[#out + 1] = redis.call('GET', KEYS[i]) end
return out
`;

/**
 * KEYS: n keys to set, m keys to delete, then [queue, done] when ARGV[3] (the queue's ttl) is not ''.
 * ARGV: n, m, ttl, then a value and a ttl per key to set. Ending a turn counts it done; when no later ticket
 * was taken both counters go, so nothing is left that nobody waits on.
 */
export const LEAVE = `${SHEBANG}local n, m = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 1, n do redis.call('SET', KEYS[i], ARGV[2 + 2 * i], 'PX', ARGV[3 + 2 * i]) end
for i = n + 1, n + m do redis.call('DEL', KEYS[i]) end
if ARGV[3] ~= '' then
  local queue, done = KEYS[n + m + 1], KEYS[n + m + 2]
  local d = redis.call('INCR', done)
  if d >= (tonumber(redis.call('GET', queue)) or 0) then
    redis.call('DEL', queue, done)
  else
    redis.call('PEXPIRE', done, ARGV[3])
  end
end
return 1
`;
