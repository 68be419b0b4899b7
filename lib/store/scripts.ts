/**
 * The Lua of the shared store's composite operations (types.ts `enter`, `leave`). A script runs atomically on
 * Redis and is billed as one command (EVALSHA once Redis has it cached), where the same steps as separate
 * commands would be billed each and, worse, take a round trip each. They touch only the keys they are given,
 * so they declare `allow-key-locking`: Upstash then locks just those keys instead of the whole database while
 * one runs (stock Redis rejects the flag; the test bridge drops it, as it does for @upstash/ratelimit's).
 */

const SHEBANG = '#!lua flags=allow-key-locking\n';

/**
 * KEYS: [result, claim] when ARGV[1] (the claim's ttl) is not '', then [queue, done] when ARGV[2] (the turn's
 * bound) is not '', then [count] when ARGV[3] (its ttl) is not '', then the keys to read. Returns {'result', value},
 * {'taken'} or {'go', ticket, done, wait, count, values...}.
 *
 * A ticket's deadline is the queue key's expiry: read before the INCR, what is left of it is the deadline of the
 * ticket before this one, so this one waits at most that long (and at most its own bound), then holds the turn at
 * most its bound. A first ticket starts a new queue, so a `done` left from an expired one is dropped.
 */
export const ENTER = `${SHEBANG}local k = 1
if ARGV[1] ~= '' then
  local result = redis.call('GET', KEYS[1])
  if result then return {'result', result} end
  if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return {'taken'} end
  k = 3
end
local out = {'go', false, false, false, false}
if ARGV[2] ~= '' then
  local queue, done, bound = KEYS[k], KEYS[k + 1], tonumber(ARGV[2])
  local left = redis.call('PTTL', queue)
  local ticket = redis.call('INCR', queue)
  local d = 0
  if ticket == 1 then redis.call('DEL', done) else d = tonumber(redis.call('GET', done)) or 0 end
  local wait = 0
  if d < ticket - 1 and left > 0 then wait = math.min(left, bound) end
  redis.call('PEXPIRE', queue, wait + bound)
  out[2], out[3], out[4] = ticket, d, wait
  k = k + 2
end
if ARGV[3] ~= '' then
  out[5] = redis.call('INCR', KEYS[k])
  redis.call('PEXPIRE', KEYS[k], ARGV[3])
  k = k + 1
end
for i = k, #KEYS do out[#out + 1] = redis.call('GET', KEYS[i]) end
return out
`;

/**
 * KEYS: n keys to set, m keys to delete, then [queue, done] when ARGV[3] (the ticket) is not '', then [count]
 * when ARGV[4] (its ttl) is not ''. ARGV: n, m, ticket, count ttl, then a value and a ttl per key to set.
 * Ending a turn raises `done` to the ticket (so writing it again changes nothing), living as long as the queue;
 * when no later ticket was taken both keys go, so nothing is left that nobody waits on. A ticket above the
 * queue's last (its queue expired meanwhile) changes nothing.
 */
export const LEAVE = `${SHEBANG}local n, m = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 1, n do redis.call('SET', KEYS[i], ARGV[3 + 2 * i], 'PX', ARGV[4 + 2 * i]) end
for i = n + 1, n + m do redis.call('DEL', KEYS[i]) end
local k = n + m + 1
if ARGV[3] ~= '' then
  local queue, done, ticket = KEYS[k], KEYS[k + 1], tonumber(ARGV[3])
  local last = tonumber(redis.call('GET', queue))
  if last and ticket <= last then
    local d = math.max(ticket, tonumber(redis.call('GET', done)) or 0)
    if d >= last then
      redis.call('DEL', queue, done)
    else
      redis.call('SET', done, d, 'PX', math.max(1, redis.call('PTTL', queue)))
    end
  end
  k = k + 2
end
if ARGV[4] ~= '' then
  redis.call('INCR', KEYS[k])
  redis.call('PEXPIRE', KEYS[k], ARGV[4])
end
return 1
`;
