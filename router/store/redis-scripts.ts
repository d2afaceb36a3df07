/**
 * The Lua scripts of the Redis store, each run atomically by Redis: the commit (seq assignment, indexes,
 * cluster fencing), memories, and the one-router owner key. Kept apart from the store's TypeScript so each
 * script reads as one piece.
 */

/** ARGV entries per task in COMMIT_LUA. */
const TASK_FIELDS = 10;

/** Event jsons per RPUSH inside COMMIT_LUA: Lua's unpack() fails beyond a few thousand values. */
const PUSH_SLICE = 1000;

/**
 * One commit batch, atomically. First the fences (when this router shares the store with others: a task whose
 * write carries a lease token is left out whole, and reported, unless that token is still the task's current
 * turn lease and the lease of the instance it names is alive), then every log is checked, before anything is written (a
 * script that fails halfway keeps what it wrote): an event with seq <= the log's length is already stored and
 * skipped (a batch resent after a reconnect, or retried by the commit queue, lands once), seq = length + 1 is
 * appended, anything further fails the whole script with the message `continuesLog` (common.ts) uses, as
 * does the start of a log whose task is neither in the batch nor stored (`eventWithoutTask`). Then per
 * task: store the JSON, index it by updatedAt in `tasks` and in its context, agent, state and (when it has one)
 * owner sets, and drop it from the sets it left (`taskmeta` remembers where each task is indexed; an entry an
 * earlier router wrote names no owner), so every index holds exactly its matching tasks and countTasks is a
 * ZCARD / ZINTERCARD; tasks are upserts, so running them twice is harmless.
 * A fenced write whose task's turn ended drops the lease in the same step. Then append, and announce each
 * append on the task's log channel (cluster mode) so other routers' streams wake up.
 * Keys are built from the prefix inside the script (a standalone Redis, like the MULTI it replaces).
 * ARGV: prefix, task count, the instance lease key prefix, "1" to announce appends, per task
 * (id, ms, contextId, agentId, state, "1" if unfinished else "0", json, lease token or "", "1" if its turn
 * ended, owner or ""), then per log (taskId, event count, the events' seqs, the events' jsons). Returns the fenced ids.
 */
export const COMMIT_LUA = `
local p = ARGV[1]
local n = tonumber(ARGV[2])
local turns = p .. 'cluster:turns'
local fenced, fencedList, inBatch = {}, {}, {}
local i = 5
for _ = 1, n do
  inBatch[ARGV[i]] = true
  local token = ARGV[i + 7]
  if token ~= '' and (redis.call('HGET', turns, ARGV[i]) ~= token or
      redis.call('EXISTS', ARGV[3] .. string.match(token, '^(.*)|')) == 0) then
    fenced[ARGV[i]] = true
    fencedList[#fencedList + 1] = ARGV[i]
  end
  i = i + ${TASK_FIELDS}
end
local appends = {}
while i <= #ARGV do
  local id, count = ARGV[i], tonumber(ARGV[i + 1])
  if not fenced[id] then
    local key = p .. 'events:' .. id
    local last = redis.call('LLEN', key)
    local jsons = {}
    for k = 0, count - 1 do
      local seq = tonumber(ARGV[i + 2 + k])
      if seq == last + 1 then
        if last == 0 and not inBatch[id] and redis.call('EXISTS', p .. 'task:' .. id) == 0 then
          return redis.error_reply('event seq ' .. seq .. ' of task ' .. id ..
            ' has no task: a task is committed with its first events')
        end
        last = seq
        jsons[#jsons + 1] = ARGV[i + 2 + count + k]
      elseif seq > last + 1 then
        return redis.error_reply('event seq ' .. seq .. ' of task ' .. id ..
          ' would leave a gap: its stored log ends at seq ' .. last)
      end
    end
    if #jsons > 0 then appends[#appends + 1] = {key, jsons, id, last} end
  end
  i = i + 2 + 2 * count
end
i = 5
for _ = 1, n do
  local id, ms, ctx, agent, state, owner = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], ARGV[i + 9]
  if not fenced[id] then
    local meta = cjson.encode({ctx, agent, state, owner})
    local old = redis.call('HGET', p .. 'taskmeta', id)
    if old and old ~= meta then
      local o = cjson.decode(old)
      if o[1] ~= ctx then redis.call('ZREM', p .. 'tasks:ctx:' .. o[1], id) end
      if o[2] ~= agent then redis.call('ZREM', p .. 'tasks:agent:' .. o[2], id) end
      if o[3] ~= state then redis.call('ZREM', p .. 'tasks:state:' .. o[3], id) end
      if o[4] and o[4] ~= '' and o[4] ~= owner then redis.call('ZREM', p .. 'tasks:owner:' .. o[4], id) end
    end
    redis.call('HSET', p .. 'taskmeta', id, meta)
    redis.call('SET', p .. 'task:' .. id, ARGV[i + 6])
    redis.call('ZADD', p .. 'tasks', ms, id)
    redis.call('ZADD', p .. 'tasks:ctx:' .. ctx, ms, id)
    redis.call('ZADD', p .. 'tasks:agent:' .. agent, ms, id)
    redis.call('ZADD', p .. 'tasks:state:' .. state, ms, id)
    if owner ~= '' then redis.call('ZADD', p .. 'tasks:owner:' .. owner, ms, id) end
    if ARGV[i + 5] == '1' then redis.call('SADD', p .. 'unfinished', id)
    else redis.call('SREM', p .. 'unfinished', id) end
    if ARGV[i + 7] ~= '' and ARGV[i + 8] == '1' then redis.call('HDEL', turns, id) end
  end
  i = i + ${TASK_FIELDS}
end
for _, log in ipairs(appends) do
  local key, jsons = log[1], log[2]
  for from = 1, #jsons, ${PUSH_SLICE} do
    redis.call('RPUSH', key, unpack(jsons, from, math.min(from + ${PUSH_SLICE} - 1, #jsons)))
  end
  if ARGV[4] == '1' then redis.call('PUBLISH', p .. 'cluster:log:' .. log[3], log[4]) end
end
return fencedList`;

/** COMMIT_LUA as ioredis registers it (EVALSHA, loading the script again after a NOSCRIPT). */
export type CommitScript = (...argv: string[]) => Promise<unknown>;

/**
 * Adds a memory once (HSETNX), then indexes it in its room by createdAt. The member is a zero-padded counter
 * plus the id, so records with equal createdAt keep insertion order (a sorted set orders ties by member).
 * KEYS: memories hash, room zset, counter. ARGV: id, createdAt, json.
 */
export const ADD_MEMORY_LUA = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[3]) == 0 then return 0 end
local n = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], ARGV[2], string.format('%016d', n) .. ':' .. ARGV[1])
return 1`;

/**
 * Takes or keeps the owner key. KEYS: the key. ARGV: this store's token, TTL in ms.
 * Returns 1 when it was ours (TTL renewed), 2 when it was free (taken), 0 when another router holds it.
 */
export const CLAIM_OWNER_LUA = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 2`;

/** Deletes the owner key if it is still ours. KEYS: the key. ARGV: this store's token. */
export const RELEASE_OWNER_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** What CLAIM_OWNER_LUA answers. */
export const CLAIM = { ours: 1, taken: 2, held: 0 } as const;

/** ExpiringRecordStore.claimRecord: KEYS[1] the record; ARGV value, ttl ms. Answers the held value, or false once stored. */
export const CLAIM_RECORD_LUA = `
local held = redis.call('GET', KEYS[1])
if held then return held end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;
