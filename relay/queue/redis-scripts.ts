/**
 * The Lua scripts of the Redis relay queue. Each runs atomically inside Redis, which is what
 * makes "check, then change" steps (ownership pin, queue cap, exactly-one taker, answer only
 * while bound) race-free across any number of relay instances. Keys that a script derives
 * from a prefix argument always share the `{serverId}` hash tag of its declared keys.
 * Note: `redis.call('GET', missing)` answers `false` in Lua.
 */

/** KEYS: owner. ARGV: secretHash. Pins the owner once; never expires. */
export const CLAIM = `
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[1])
  return 'created'
end
if cur == ARGV[1] then return 'match' end
return 'mismatch'`;

/**
 * KEYS: list, req, wait, seen. ARGV: requestId, payload, ttlMs, maxLength, answerChannel,
 * reqPrefix, listTtlMs, wakeChannel.
 * Nothing is queued for a server that is not online (returns -1), so no request lands behind
 * an unregister. The list holds only request ids; the payload lives in its own key with a TTL
 * ending at the deadline, so Redis's single clock expires requests for every instance alike,
 * and a cancelled or expired id left in the list is skipped by TAKE. Stale ids are counted out
 * of the cap only when the list looks full (the O(n) sweep runs only then).
 */
export const ENQUEUE = `
if redis.call('EXISTS', KEYS[4]) == 0 then return -1 end
local max = tonumber(ARGV[4])
if redis.call('LLEN', KEYS[1]) >= max then
  local ids = redis.call('LRANGE', KEYS[1], 0, -1)
  for _, id in ipairs(ids) do
    if redis.call('EXISTS', ARGV[6] .. id) == 0 then redis.call('LREM', KEYS[1], 1, id) end
  end
  if redis.call('LLEN', KEYS[1]) >= max then return 0 end
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('SET', KEYS[3], ARGV[5], 'PX', ARGV[3])
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('PUBLISH', ARGV[8], '1')
return 1`;

/**
 * KEYS: list, seen. ARGV: max, maxBytes, reqPrefix. Pops ids oldest first and returns
 * [id, payload, id, payload, ...] of those whose payload key still exists, deleting it: a
 * request is handed to exactly one taker (at-most-once). The first id that would exceed
 * maxBytes is pushed back to the head, untouched. Nothing popped and the server offline:
 * nil (the waiting pull ends).
 */
export const TAKE = `
local out = {}
local n = 0
local bytes = 0
local max = tonumber(ARGV[1])
local budget = tonumber(ARGV[2])
while n < max do
  local id = redis.call('LPOP', KEYS[1])
  if not id then break end
  local v = redis.call('GET', ARGV[3] .. id)
  if v then
    if n > 0 and bytes + #v > budget then
      redis.call('LPUSH', KEYS[1], id)
      break
    end
    redis.call('DEL', ARGV[3] .. id)
    bytes = bytes + #v
    n = n + 1
    out[#out + 1] = id
    out[#out + 1] = v
  end
end
if n == 0 and redis.call('EXISTS', KEYS[2]) == 0 then return false end
return out`;

/**
 * KEYS: wait, resp. ARGV: payload, requestId. Only while the wait key (bound at enqueue to
 * this serverId, holding the waiting instance's channel) exists: consume it, store the answer
 * for a little longer than the waiter can wait, and wake that one instance.
 */
export const ANSWER = `
local ch = redis.call('GET', KEYS[1])
if not ch then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 1 then ttl = 1 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl + 5000)
redis.call('PUBLISH', ch, ARGV[2])
return 1`;

/**
 * KEYS: the server's current-code key. ARGV: serverId, codeHash or '', ttlMs, pairPrefix.
 * Refuses a hash that points at another server; replaces the server's previous hash.
 */
export const SET_PAIR = `
if ARGV[2] ~= '' then
  local other = redis.call('GET', ARGV[4] .. ARGV[2])
  if other and other ~= ARGV[1] then return 0 end
end
local old = redis.call('GET', KEYS[1])
if old and redis.call('GET', ARGV[4] .. old) == ARGV[1] then redis.call('DEL', ARGV[4] .. old) end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('SET', ARGV[4] .. ARGV[2], ARGV[1], 'PX', ARGV[3])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`;

/** KEYS: pair, the server's current-code key. ARGV: serverId, codeHash. */
export const SPEND_PAIR = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
return 1`;

/** KEYS: counter. ARGV: windowMs. A fixed window that starts with its first hit. */
export const HIT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/** Every script with its number of declared keys, registered with `defineCommand`. */
export const SCRIPTS = {
  quireRelayClaim: [CLAIM, 1],
  quireRelayEnqueue: [ENQUEUE, 4],
  quireRelayTake: [TAKE, 2],
  quireRelayAnswer: [ANSWER, 2],
  quireRelaySetPair: [SET_PAIR, 1],
  quireRelaySpendPair: [SPEND_PAIR, 2],
  quireRelayHit: [HIT, 1],
} as const;

/** Name of one script command. */
export type ScriptName = keyof typeof SCRIPTS;
