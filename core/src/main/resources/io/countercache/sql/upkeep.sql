-- Upkeep between rollups: orphans whose target row appeared, the unlogged queue's crash check, slots flushed to
-- the queue and pruned.

-- Moves orphaned deltas whose target row now exists back to the queue, and folds the others (one row per counter and
-- key; a key whose orphans sum to zero is forgotten). Orphans are claimed with FOR UPDATE SKIP LOCKED like the queue.
-- The touches of a recomputed count whose key has no row are dropped: a row touches its key when it arrives.
CREATE OR REPLACE FUNCTION countercache.adopt_orphans(max_rows integer)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    c countercache.counter;
BEGIN
    FOR c IN
        SELECT k.* FROM countercache.counter k
         WHERE k.id IN (SELECT DISTINCT o.counter_id FROM countercache.orphan o)
         ORDER BY k.id
    LOOP
        BEGIN
            EXECUTE format(
                $q$WITH claimed AS (
                       SELECT o.id, o.%4$I AS k, o.delta, o.enqueued_at FROM countercache.orphan o
                        WHERE o.counter_id = $1 ORDER BY o.id LIMIT $2 FOR UPDATE SKIP LOCKED
                   ), g AS (
                       SELECT c.k, sum(c.delta) AS delta, count(*) AS n, min(c.enqueued_at) AS since,
                              EXISTS (SELECT 1 FROM %1$I.%2$I t WHERE t.%3$I = c.k)%5$s AS present
                         FROM claimed c GROUP BY c.k
                   ), gone AS (
                       DELETE FROM countercache.orphan o USING claimed c JOIN g ON g.k = c.k
                        WHERE o.id = c.id AND (g.present OR g.delta = 0 OR g.n > 1 OR $3)
                   ), back AS (
                       INSERT INTO countercache.delta (counter_id, %4$I, delta, enqueued_at)
                       SELECT $1, g.k, g.delta, g.since FROM g WHERE g.present AND g.delta <> 0
                   )
                   INSERT INTO countercache.orphan (counter_id, %4$I, delta, enqueued_at)
                   SELECT $1, g.k, g.delta, g.since FROM g WHERE NOT g.present AND g.delta <> 0 AND g.n > 1
                                                               AND NOT $3$q$,
                c.target_schema, c.target_table, c.target_key,
                CASE WHEN c.key_type = 'uuid' THEN 'target_uuid' ELSE 'target_id' END,
                -- a bucket row is the rollup's to create, once its parent exists
                CASE WHEN c.bucket_period IS NULL THEN ''
                     ELSE coalesce((SELECT format(' OR EXISTS (SELECT 1 FROM %s p WHERE p.%I = countercache.key_parent(c.k))',
                                                  p.tbl, p.key)
                                      FROM countercache.bucket_parent_table(c) p), ' OR true') END)
                USING c.id, max_rows, c.aggregate IS NOT DISTINCT FROM 'count';
        EXCEPTION WHEN lock_not_available OR insufficient_privilege THEN
            NULL;   -- the target table is locked (DDL) or may not be read: its orphans wait for a later round
        END;
    END LOOP;
END
$fn$;

-- Notices that the unlogged queue was emptied behind the library's back (a crash or an immediate shutdown resets
-- every unlogged table, and so unlogged_marker with it; so does promoting a standby) and asks for a recount of every
-- counter of strategy 'unlogged', in the transaction that puts the marker back. Returns how many it asked for. The
-- deltas the crash took belong to committed source rows, so the recount's correction puts them back (see
-- recount_step); a counter that left the strategy since is recounted by its own change of definition.
CREATE OR REPLACE FUNCTION countercache.check_unlogged_queue()
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    c integer;
    n integer := 0;
BEGIN
    IF EXISTS (SELECT 1 FROM countercache.unlogged_marker) THEN
        RETURN 0;
    END IF;
    -- one rollup acts; another that meets the missing marker meanwhile goes on (the first asks for the recounts)
    BEGIN
        LOCK TABLE countercache.unlogged_marker IN EXCLUSIVE MODE NOWAIT;
    EXCEPTION WHEN lock_not_available THEN
        RETURN 0;
    END;
    IF EXISTS (SELECT 1 FROM countercache.unlogged_marker) THEN
        RETURN 0;
    END IF;
    FOR c IN SELECT k.id FROM countercache.counter k WHERE k.strategy = 'unlogged' ORDER BY k.id LOOP
        PERFORM countercache.request_recount(c);
        n := n + 1;
    END LOOP;
    INSERT INTO countercache.unlogged_marker DEFAULT VALUES;
    IF n > 0 THEN
        RAISE WARNING 'countercache: the unlogged queue was emptied (a crash, an immediate shutdown or a promoted standby); recounting its % counters', n
            USING HINT = 'nothing to do: their values catch up once the recount ends';
    END IF;
    RETURN n;
END
$fn$;

-- Moves the amounts of at most max_slots non-zero slots to the queue and zeroes the slots, skipping any slot a writer
-- holds. The amount moved is the slot's latest committed value, read under its row lock, so none is lost or doubled.
-- Two statements: the lock returns each row's latest version, which the locking statement's own snapshot may not see
-- (a writer's update committed since it began); the next statement's snapshot does.
CREATE OR REPLACE FUNCTION countercache.flush_slots(max_slots integer)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    rows tid[];
    amounts bigint[];
    moved bigint;
BEGIN
    IF NOT EXISTS (SELECT FROM countercache.slot s WHERE s.n <> 0) THEN
        RETURN 0;   -- nothing to flush: no subtransaction for the block below, which every round would pay
    END IF;
    BEGIN
        SELECT array_agg(l.t), array_agg(l.n) INTO rows, amounts
          FROM (SELECT s.ctid AS t, s.n FROM countercache.slot s WHERE s.n <> 0 LIMIT max_slots FOR UPDATE SKIP LOCKED) l;
    EXCEPTION WHEN lock_not_available THEN
        -- a slot row that a writer updated since this statement's snapshot, and that another writer now holds: the
        -- lock follows the update chain and waits, the one wait SKIP LOCKED does not skip (see rollup_report), until
        -- the round's lock_timeout. The slots keep their amounts for a later round instead of failing this one.
        RETURN 0;
    END;
    IF rows IS NULL THEN
        RETURN 0;
    END IF;
    WITH zeroed AS (
        UPDATE countercache.slot s SET n = 0 FROM unnest(rows, amounts) AS h(t, n) WHERE s.ctid = h.t
        RETURNING s.counter_id, s.target_id, s.target_uuid, h.n
    ), queued AS (
        INSERT INTO countercache.delta (counter_id, target_id, target_uuid, delta)
        SELECT z.counter_id, z.target_id, z.target_uuid, z.n FROM zeroed z
        RETURNING 1
    )
    SELECT count(*) INTO moved FROM queued;
    RETURN moved;
END
$fn$;

-- Deletes at most max_rows zeroed slots that no writer holds (a target's slots come back with its next writes), so
-- the slot table holds the targets written lately, not every target ever written. Returns how many went.
CREATE OR REPLACE FUNCTION countercache.prune_slots(max_rows integer DEFAULT countercache.default_batch_size())
RETURNS bigint
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH gone AS (
        DELETE FROM countercache.slot s
         WHERE s.ctid = ANY (ARRAY(SELECT x.ctid FROM countercache.slot x WHERE x.n = 0 LIMIT max_rows
                                      FOR UPDATE SKIP LOCKED))
        RETURNING 1
    )
    SELECT count(*) FROM gone
$fn$;
