-- The rollup: claims queued deltas, folds them per target row and applies them, one statement per target table.

-- The statement that applies claimed deltas to one target table (see rollup_report). The claimed rows come folded
-- per counter and key, as arrays ($1 first ids, $2 counters, $3 bigint keys, $4 uuid keys, $5 sums, $6 first enqueue
-- times, $9 how many deltas each folds); $7 the counters of this table to apply, $8 one key (as text) to restrict
-- to, or NULL. The sums of busy rows go back to the queue under their first ids.
-- It returns one jsonb array: per counter, the deltas it consumed (n: those it applied, and those a busy key's sum
-- folds beyond the one row that goes back, which counts when a later round applies it) and, when with_keys, the keys
-- whose rows it locked to apply them (k; a key whose values stayed as they were is among them, one whose sums are all
-- 0 is not).
-- One value, so that a statement that fails part way has reported nothing.
-- recomputes holds, per counter, NULL for a count or sum (the column adds its folded sum) or, for a min, a max or a
-- recomputed count, the expression that recomputes the column from the source (extreme_sql): its folded deltas are
-- touches. A table with one applies only to the rows its round locked before this statement began ($10 bigint keys,
-- $11 uuid keys, each key held with all its rows; see "Extremes" in the header of rollup_report), so that the
-- statement's snapshot is younger than every lock it holds.
CREATE OR REPLACE FUNCTION countercache.apply_round_sql(target_schema name, target_table name, target_key name,
                                                        key_type text, counters integer[], columns name[],
                                                        scales integer[], with_keys boolean, recomputes text[],
                                                        touches name[])
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    -- v: each column's new value, as the SET writes it and the WHERE compares it
    WITH v AS (
        SELECT u.col, u.i, u.r,
               CASE WHEN u.r IS NULL
                    THEN format('coalesce(t.%1$I, 0) + coalesce(d.d%2$s, 0)%3$s', u.col, u.i,
                                CASE WHEN u.s > 0 THEN ' * 1e-' || u.s END)
                    ELSE format('CASE WHEN d.d%2$s IS NULL THEN t.%1$I ELSE d.r%2$s END', u.col, u.i) END AS val
          FROM unnest(columns, scales, coalesce(recomputes, array_fill(NULL::text, ARRAY[cardinality(columns)])))
               WITH ORDINALITY AS u(col, s, r, i)
    ), w AS (   -- whether a row's values or stamps change
        SELECT format('((%s) IS DISTINCT FROM (%s)%s)',
                      (SELECT string_agg(format('t.%I', v.col), ', ' ORDER BY v.i) FROM v),
                      (SELECT string_agg(v.val, ', ' ORDER BY v.i) FROM v),
                      (SELECT string_agg(format(' OR coalesce(d.d%s, 0) <> 0', u.i), '' ORDER BY u.i)
                         FROM unnest(touches) WITH ORDINALITY AS u(col, i) WHERE u.col IS NOT NULL)) AS changed,
               EXISTS (SELECT FROM v WHERE v.r IS NOT NULL) AS recomputes,
               -- whether a key's sums move a row of a table without a recomputed value: one of them is not 0
               (SELECT string_agg(format('coalesce(d.d%s, 0) <> 0', v.i), ' OR ' ORDER BY v.i) FROM v) AS moves,
               CASE WHEN key_type = 'uuid' THEN '$11' ELSE '$10' END AS held   -- the keys its round holds
    )
    SELECT format(
        $q$WITH q AS (
               SELECT q.id, q.counter_id, q.%4$I AS k, q.delta, q.enqueued_at, q.n
                 FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::uuid[], $5::bigint[], $6::timestamptz[],
                             $9::bigint[]) AS q(id, counter_id, target_id, target_uuid, delta, enqueued_at, n)
                WHERE q.counter_id = ANY ($7) AND ($8::text IS NULL OR q.%4$I::text = $8)
           ), d AS (
               -- in key order: the probes below walk the key's index and the table in order
               SELECT d.*%10$s FROM (SELECT q.k, %5$s FROM q GROUP BY q.k ORDER BY q.k) d
           ), locked AS (
               -- each key's sums beside its row, locked: joined through the row's index, key by key, so that the
               -- update below needs no join between two lists (whose sizes the planner cannot know)
               SELECT d.*, t.ctid AS rid, t.tableoid AS toid%14$s FROM d JOIN %1$I.%2$I t ON t.%3$I = d.k%8$s
                  FOR NO KEY UPDATE OF t SKIP LOCKED
           ), applied AS (
               UPDATE %1$I.%2$I t SET %6$s
                 FROM locked d WHERE %9$s
               RETURNING %15$s AS written
           ), unwritten AS (
               -- a row the update was to write (one it locked: one its sums move, or whose value changes) and did
               -- not, or wrote with other values: a BEFORE UPDATE trigger returned NULL, or changed or kept the
               -- counter's column. Raised, so that its deltas are dead-lettered (see Poison in rollup_report), not
               -- counted as applied.
               SELECT countercache.unwritten(%1$L, %2$L) FROM (SELECT count(*) FILTER (WHERE a.written) FROM applied a) a(n)
                WHERE (SELECT count(*) FROM locked) > a.n%13$s
           ), held AS (
               %11$s
           ), missing AS (   -- the keys it did not apply: their rows are busy, or missing
               SELECT d.k FROM d WHERE %12$s d.k NOT IN (SELECT h.k FROM held h)
           ), busy AS (
               SELECT t.%3$I AS k FROM %1$I.%2$I t WHERE t.%3$I IN (SELECT m.k FROM missing m)
           ), left_out AS (
               SELECT q.*, q.k IN (SELECT b.k FROM busy b) AS busy FROM q WHERE q.k IN (SELECT m.k FROM missing m)
           ), requeued AS (
               INSERT INTO countercache.delta (id, counter_id, %4$I, delta, enqueued_at) OVERRIDING SYSTEM VALUE
               SELECT f.id, f.counter_id, f.k, f.delta, f.enqueued_at FROM left_out f WHERE f.busy
           ), orphaned AS (
               INSERT INTO countercache.orphan (counter_id, %4$I, delta, enqueued_at)
               SELECT f.counter_id, f.k, sum(f.delta), min(f.enqueued_at) FROM left_out f
                WHERE NOT f.busy GROUP BY f.counter_id, f.k HAVING sum(f.delta) <> 0
           )
           SELECT jsonb_agg(jsonb_build_object('c', s.counter_id, 'n', s.n, 'k', s.keys)) FROM (
               -- a busy key's sum goes back as one row, which counts as one when applied: what it folded counts now
               SELECT q.counter_id,
                      sum(CASE WHEN q.k IN (SELECT b.k FROM busy b) THEN greatest(q.n - 1, 0) ELSE q.n END) AS n,
                      %7$s AS keys FROM q GROUP BY q.counter_id) s
            WHERE NOT EXISTS (SELECT FROM unwritten)$q$,
        target_schema, target_table, target_key,
        CASE WHEN key_type = 'uuid' THEN 'target_uuid' ELSE 'target_id' END,
        (SELECT string_agg(format('sum(q.delta) FILTER (WHERE q.counter_id = %s) AS d%s', c, i), ', ' ORDER BY i)
           FROM unnest(counters) WITH ORDINALITY AS u(c, i)),
        (SELECT string_agg(format('%I = %s', v.col, v.val), ', ' ORDER BY v.i) FROM v)
            || countercache.touch_sql(touches, 'd'),
        -- the keys applied to a row: not those whose sums are all 0 (counted as applied, but no row changes)
        CASE WHEN with_keys THEN 'jsonb_agg(DISTINCT q.k) FILTER (WHERE q.k IN (SELECT h.k FROM held h))'
             ELSE 'NULL::jsonb' END,
        -- a table that recomputes locks, of the keys its round holds, only the rows whose values change: the round
        -- holds every row of those keys already (a new link of an article recomputes every link of it, and all but
        -- the new one keep their values); another table locks the rows of the keys whose sums are not all 0, and a
        -- key whose sums are all 0 counts as applied unlocked (adding 0 changes nothing)
        CASE WHEN NOT w.recomputes THEN format(' AND (%s)', w.moves)
             ELSE format(E'\n                WHERE t.%I = ANY (%s) AND %s', target_key, w.held, w.changed) END,
        -- A table that recomputes writes the rows it locked, by their ctid (a TID scan of them all, then a join on
        -- ctid and on the partition, whose ctids are its own), those whose value or stamp changes. It holds them
        -- since before this statement began, so its snapshot sees their last version; a key of a recomputed count
        -- may also have rows that arrived since the locking statement, which carry touches of their own, and one of
        -- them may be held by a writer, which must not be waited for (locking such a row here may still meet the one
        -- wait SKIP LOCKED does not skip, bounded by lock_timeout, as for any row).
        -- Another table locks its rows in this statement, after its snapshot: a row that a transaction updated and
        -- committed since is locked in its last version, which the snapshot does not see. So it writes them through
        -- the key, whose row the update then follows to that version (InterleavingsIT); by ctid it would skip it.
        CASE WHEN NOT w.recomputes THEN format('t.%I = d.k', target_key)
             ELSE 't.ctid = ANY (ARRAY(SELECT l.rid FROM locked l)) AND t.ctid = d.rid AND t.tableoid = d.toid AND '
                  || w.changed END,
        -- a recomputed value, once per key (a recomputed count's key has a row per link: the links of one article)
        (SELECT string_agg(format(', CASE WHEN d.d%s IS NOT NULL THEN %s END AS r%1$s', v.i, v.r), '' ORDER BY v.i)
           FROM v WHERE v.r IS NOT NULL),
        -- the keys applied: those whose rows it locked, or for a table that recomputes, those its round holds
        CASE WHEN NOT w.recomputes THEN 'SELECT l.k FROM locked l'
             ELSE format('SELECT d.k FROM d WHERE d.k = ANY (%s)', w.held) END,
        -- the keys it meant to apply: those whose sums are not all 0, or for a table that recomputes, every key
        CASE WHEN NOT w.recomputes THEN '(' || w.moves || ') AND' ELSE '' END,
        -- the rows the update is to write: those it locked; for a table that recomputes, those it locked that its
        -- snapshot sees (a link that arrived since the locking statement and was updated since this statement's
        -- snapshot is locked in a version the update's TID scan does not see, and carries a touch of its own),
        -- counted only when fewer rows were written than locked, which is rare
        CASE WHEN NOT w.recomputes THEN ''
             ELSE format(E'\n                  AND (SELECT count(*) FROM locked d JOIN %I.%I t'
                         ' ON t.ctid = d.rid AND t.tableoid = d.toid'
                         ' WHERE t.ctid = ANY (ARRAY(SELECT l.rid FROM locked l))) > a.n',
                         target_schema, target_table) END,
        -- each column as it was locked (its last version, which the update then writes), so that the update can
        -- tell that it wrote what it was to: that plus the sums, or the recomputed value
        (SELECT string_agg(format(', t.%I AS w%s', v.col, v.i), '' ORDER BY v.i) FROM v),
        format('(%s) IS NOT DISTINCT FROM (%s)',
               (SELECT string_agg(format('t.%I', v.col), ', ' ORDER BY v.i) FROM v),
               (SELECT string_agg(replace(v.val, format('t.%I', v.col), format('d.w%s', v.i)), ', ' ORDER BY v.i)
                  FROM v)))
      FROM w
$fn$;

-- Raises the error of an applying statement that locked a target row and did not write it, or wrote other counter
-- values: a BEFORE UPDATE trigger of the table returned NULL, or changed or kept a counter column. Not a transient failure: the round's poison handling dead-letters the key's deltas
-- with it, where counting them as applied would lose them.
CREATE OR REPLACE FUNCTION countercache.unwritten(target_schema name, target_table name)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    RAISE EXCEPTION USING
        ERRCODE = 'triggered_action_exception',
        MESSAGE = format('countercache: the rollup locked a row of %I.%I and its update did not write the counter'
                         ' values it was given: a BEFORE UPDATE trigger on the table returned NULL, or changed or kept'
                         ' a counter column', target_schema, target_table),
        HINT = 'make the trigger return NEW, with the counter columns as they came, when only counter columns change,'
               ' then recount the counters of the dead-lettered deltas (a recount puts them back in the queue)';
END
$fn$;

-- Version 6's contract, for a round of version 4 to 6 in flight while version 7 installs: no touches.
CREATE OR REPLACE FUNCTION countercache.apply_round_sql(target_schema name, target_table name, target_key name,
                                                        key_type text, counters integer[], columns name[],
                                                        scales integer[], with_keys boolean, recomputes text[])
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT countercache.apply_round_sql(target_schema, target_table, target_key, key_type, counters, columns, scales,
                                        with_keys, recomputes, NULL)
$fn$;

-- Version 3's name and contract, for a round of version 3 in flight while version 4 installs: counts and sums only.
CREATE OR REPLACE FUNCTION countercache.apply_folded_sql(target_schema name, target_table name, target_key name,
                                                         key_type text, counters integer[], columns name[],
                                                         scales integer[], with_keys boolean)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT countercache.apply_round_sql(target_schema, target_table, target_key, key_type, counters, columns, scales,
                                        with_keys, NULL)
$fn$;

-- Distinct values (a counter with a distinct_column): writers queue +1 and -1 per target and value in distinct_delta.
-- This first step of a round claims at most max_deltas of them (the oldest, FOR UPDATE SKIP LOCKED, as the round's
-- claim does), folds them per counter, target and value, adds each sum to the value's count in distinct_value, and
-- returns for each target's column the number of its values whose count became positive less those whose count
-- stopped being positive: an ordinary delta (derived), under the id of the first value delta it stands for, which
-- the rest of the round applies as a count (as if claimed from the queue: a busy row puts it back there). consumed
-- holds, per counter, how many value deltas it consumed, as the round reports them.
-- Exact under any interleaving of rounds, and no round waits for another: a round folds values only while it holds
-- the row of countercache.distinct_claim, locked FOR UPDATE SKIP LOCKED (while another round holds it, the values
-- stay queued, unclaimed, for a later round). So the rounds that change the counts follow each other: each one's
-- upsert (INSERT ... ON CONFLICT DO UPDATE ... RETURNING) finds the counts the last one committed and no uncommitted
-- row, and each transition is read from a count before and after the round's own sum. Of a value's +1 and -1 folded
-- by two rounds, in either order, the column moves by 0 in all (the count is -1 for a while when the -1 is folded
-- first: then neither moves it, and a count below 0 is kept). One lock for every counter, not one per value (a round
-- may fold 100,000 values) nor per counter (the first round to lock would take them all anyway). A row lock, not an
-- advisory lock, which any role could take and so stop the folding (HostileIT). A count that reaches 0 is deleted in
-- a second statement, under the same lock.
CREATE OR REPLACE FUNCTION countercache.fold_distinct(max_deltas integer, OUT consumed jsonb,
                                                      OUT derived countercache.delta[])
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
#variable_conflict use_column
DECLARE
    zeros tid[];
    mine integer[];
BEGIN
    PERFORM FROM countercache.distinct_claim FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN   -- another round folds values: these wait for a later round
        consumed := '[]';
        derived := '{}';
        RETURN;
    END IF;
    SELECT coalesce(array_agg(k.id), '{}') INTO mine FROM countercache.counter k WHERE k.distinct_column IS NOT NULL;
    WITH claimed AS (
        DELETE FROM countercache.distinct_delta q
         WHERE q.ctid = ANY (ARRAY(SELECT p.ctid FROM countercache.distinct_delta p WHERE p.counter_id = ANY (mine)
                                   ORDER BY p.id LIMIT max_deltas FOR UPDATE SKIP LOCKED))
        RETURNING q.*
    ), g AS (
        SELECT c.counter_id, c.target_id, c.target_uuid, c.value, sum(c.delta)::bigint AS d, min(c.id) AS id,
               min(c.enqueued_at) AS enqueued_at
          FROM claimed c
         GROUP BY 1, 2, 3, 4
        HAVING sum(c.delta) <> 0
    ), u AS (
        INSERT INTO countercache.distinct_value AS x (counter_id, target_id, target_uuid, value, n)
        SELECT g.counter_id, g.target_id, g.target_uuid, g.value, g.d FROM g
        ON CONFLICT ON CONSTRAINT distinct_value_key DO UPDATE SET n = x.n + excluded.n
        RETURNING x.ctid AS row, x.*
    ), moved AS (
        -- a counter's keys are all bigint or all uuid, so the other column is NULL on both sides: joined as a constant
        SELECT g.counter_id, g.target_id, g.target_uuid, min(g.id) AS id, min(g.enqueued_at) AS enqueued_at,
               sum((u.n > 0)::integer - (u.n - g.d > 0)::integer) AS d
          FROM g JOIN u ON u.counter_id = g.counter_id AND u.value = g.value
                       AND coalesce(u.target_id, 0) = coalesce(g.target_id, 0)
                       AND coalesce(u.target_uuid, '00000000-0000-0000-0000-000000000000')
                           = coalesce(g.target_uuid, '00000000-0000-0000-0000-000000000000')
         GROUP BY g.counter_id, g.target_id, g.target_uuid
    )
    SELECT (SELECT array_agg(u.row) FROM u WHERE u.n = 0),
           (SELECT coalesce(jsonb_agg(jsonb_build_object('c', x.counter_id, 'n', x.n)), '[]')
              FROM (SELECT c.counter_id, count(*) AS n FROM claimed c GROUP BY 1) x),
           (SELECT coalesce(array_agg(ROW(m.id, m.counter_id, m.target_id, m.target_uuid, m.d, m.enqueued_at)
                                      ::countercache.delta), '{}')
              FROM moved m WHERE m.d <> 0)
      INTO zeros, consumed, derived;
    DELETE FROM countercache.distinct_value x WHERE x.ctid = ANY (zeros) AND x.n = 0;
END
$fn$;

-- Applies at most max_deltas queued deltas of each queue (logged and unlogged) and reports, per counter (in one or more rows), how many deltas it
-- consumed and, when with_keys, which targets it touched (target_ids for integer and bigint keys, target_uuids for
-- uuid keys), so that a caller can lock and release cached copies of exactly those rows around the commit.
--
-- Concurrency. The claim is one DELETE of the oldest queued rows picked with FOR UPDATE SKIP LOCKED, so concurrent
-- rollups take disjoint batches without waiting for each other's claims, and a rollup that fails or dies rolls back
-- with its rows back in the queue. It deletes them by ctid: queue rows are never updated, and a row this statement
-- has locked cannot be deleted by another until it commits, so its ctid names it; a TID scan then reads the rows
-- with no probe of the id index per row, which was half of a 100,000-delta claim. The same statement folds what it
-- claimed per counter and key: one sum under the group's first id and first enqueue time, with the number of deltas
-- it stands for (a sum that is no bigint stays as its deltas), so that the rest of the round works per key, not per
-- delta. A folded sum keeps the place of its group's first delta: any delta of the key queued later has a larger id;
-- and it counts as waiting for an older delta when one older than its group's last is queued (see Poison below).
-- Claiming alone. Locking each row before deleting it is a third of a claim's time. A round without lanes first
-- tries to lock the queues' claim row (countercache.queue_claim) FOR UPDATE, skipping it if it is locked. Holding
-- it, it knows that no other transaction locks or deletes queued rows until it commits, so it deletes what it claims
-- without locking it first and waits for no row; its snapshot keeps each row it read where it read it, so the ctid
-- still names it. Every other transaction that locks or deletes queued rows locks the claim row FOR SHARE: a round
-- in lanes, a round without lanes that another round overlaps (it claims with FOR UPDATE SKIP LOCKED, as above),
-- forget and prune_buckets. A round that finds the row locked FOR UPDATE waits for that round's commit (up to
-- 10 s, or half of what its statement or transaction timeout leaves, then it claims nothing this time): two rounds
-- without lanes take turns or share, and workers meant to apply at once are given lanes (InterleavingsIT, ChaosIT).
-- A lone round waits for no round, so no cycle of waits forms within the library; a round called in a transaction
-- that has written already, whose rows a lone round of the same application could be waiting for, does not wait: it
-- claims nothing this time. A row lock, not an advisory lock, which any role could take and so stop every claim
-- (HostileIT).
-- Generations: writers put the deltas of queue counters in one of two generations of the queue, and
-- take_generation (called between rounds, in a transaction of its own) moves a generation writers have left back
-- into the queue folded, and truncates it. A round claims the queue and both generations by rows, as above, and
-- never holds a generation whole: a reader of the queue waits for no round (see take_generation).
-- Each target table gets ONE statement for all of its counters, which first locks the rows with FOR NO KEY UPDATE
-- SKIP LOCKED:
--   * A row another transaction holds is not waited for: its claimed sums go back to the queue under their first
--     ids (rows this round deleted), so they keep their place before any later delta of the same target.
--   * Each target row is updated at most once per round. A second update of a row the transaction already updated
--     would make PostgreSQL re-check the row's foreign keys, taking FOR KEY SHARE on the parent row, which an
--     application may hold FOR UPDATE: the rollup would wait, and could deadlock.
--   * Writers' foreign-key checks take FOR KEY SHARE on the target, which does not conflict with FOR NO KEY UPDATE.
--   * Deltas of a target row that does not exist are moved to countercache.orphan (never dropped); so are deltas of
--     a row inserted but not yet visible to this round. Each round first moves orphans whose row now exists back.
--   * The statement locks the rows after its snapshot was taken. A row that a transaction updated and committed in
--     between is locked in its newest version, which the snapshot does not see: the update reaches the row through
--     its key and follows it to that version (InterleavingsIT); written by the ctid the lock returned, it would be
--     skipped. A key whose sums are all 0 is neither locked nor written, and counts as applied: adding 0 changes
--     nothing.
-- One wait SKIP LOCKED cannot skip: when the row the statement's snapshot sees has since been updated and a writer's
-- foreign-key check still holds it FOR KEY SHARE, PostgreSQL follows the update chain to lock the newest version and
-- waits for whoever holds that one (another round, or an application), whatever the wait policy says. The function's
-- lock_timeout (200 ms, below the default deadlock_timeout of 1 s) bounds that wait, and a table whose statement
-- times out keeps its deltas queued in their place; the same holds for a table DDL has locked, and for a table the
-- rollup's role may not update (42501, logged as a warning). So that such a table's backlog cannot hold up the
-- others at the head of the queue, the round then claims again, past the deltas of the tables it gave up, until a
-- pass gives up no new table: a round waits at most 200 ms per target table.
-- Poison: if a table's statement fails it is retried key by key, each in a subtransaction; for a key that still
-- fails, each of its counters is tried alone in a subtransaction that is always rolled back, and the accepted ones
-- are applied in one update. A refused counter's deltas go to countercache.dead_letter with the error, unless an
-- older delta of the same counter and target is still queued (another round holds it) or an amount of them sits in
-- a slot (a writer holds it, or it waits for the next flush; a slot has no place in the queue's order, so it may be
-- older): then they go back to the queue under their first ids, to be applied after it. A key whose row the applying
-- statement locked and did not write (a BEFORE UPDATE trigger of the table returned NULL) is refused so too, by the
-- error countercache.unwritten raises: counted as applied, its sums would be lost (WritePathIT). Transient failures
-- (deadlock, serialization, lock timeout, resources, shutdown) abort the round.
-- Extremes: a min or max counter's deltas are touches; the round sets each touched row's column to the extreme its
-- source holds, recomputed by an index in the applying statement. The value is right if that statement's snapshot
-- sees every write whose touch this round or an earlier one consumed. A touch is claimed only once its writer has
-- committed, so the snapshot sees the writes of this round's touches. Rounds that update one row are ordered by its
-- row lock; so for the writes an earlier round consumed, the snapshot must be younger than this round's lock on
-- the row. A statement that takes its snapshot and then locks (FOR NO KEY UPDATE follows the row's update chain to
-- the version another round has just committed) would write a value older than that round's. So a table with a min
-- or max first locks its touched rows in a statement of their own (SKIP LOCKED, in key order), and the applying
-- statement, whose snapshot is taken after that one ends, applies to those rows only; the others are busy, and
-- their touches go back to the queue. A touch applied twice recomputes twice: touches never need to be exact, only
-- present (InterleavingsIT, ExtremesIT). A recomputed count's key may have several rows (the links of one article):
-- it is held only when every row of it that the locking statement sees is locked, and the applying statement updates,
-- by ctid, those of its rows whose value changes (a new link recomputes every link of its article, and the others
-- keep theirs); a row that arrives later carries a touch of its own, which this round did not claim (MirrorsIT).
-- A key retried alone after another key's refused value (see Poison) is locked again, by the same locking statement,
-- in the retry's own subtransaction: the first try's rollback released its locks, and a key counted as held that an
-- application took since would be counted as applied without its rows being written (InterleavingsIT).
-- The claim row (upgrade/013-queue-claim.sql), put back by every install should a partial restore have left it out,
INSERT INTO countercache.queue_claim DEFAULT VALUES ON CONFLICT DO NOTHING;
-- and so are the rows of the lanes and of distinct values (upgrade/014-round-claims.sql)
INSERT INTO countercache.lane_claim
SELECT n, l FROM pg_catalog.generate_series(2, 64) n, pg_catalog.generate_series(0, n OPERATOR(pg_catalog.-) 1) l
    ON CONFLICT DO NOTHING;
INSERT INTO countercache.distinct_claim DEFAULT VALUES ON CONFLICT DO NOTHING;

-- The lane of a queued delta's target among lanes: a hash of its key, from 0 to lanes - 1. Called for every row a
-- claim in lanes reads, so it has no SET clause and is inlined; its body is SQL-standard, bound to the objects it
-- names when created, each named with pg_catalog., as bucket_key's.
CREATE OR REPLACE FUNCTION countercache.lane_of(target_id bigint, target_uuid uuid, lanes integer)
RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (((CASE WHEN target_uuid IS NOT NULL THEN pg_catalog.uuid_hash(target_uuid)
               ELSE pg_catalog.hashint8(COALESCE(target_id, CAST(0 AS bigint))) END)
         OPERATOR(pg_catalog.%) lanes) OPERATOR(pg_catalog.+) lanes) OPERATOR(pg_catalog.%) lanes;

-- Whether a claim in lane (NULL: every lane) may take a delta of this target. Written as a CASE, which the planner
-- takes to hold for half the rows, and not as the equality it would take for one row in 200 (it has no statistics
-- on lane_of): a claim's ORDER BY id LIMIT n then stays a scan of the id index that stops after n rows of its lane,
-- instead of reading and sorting the whole queue (two workers in lanes drained at 0.40x one worker that way).
CREATE OR REPLACE FUNCTION countercache.in_lane(target_id bigint, target_uuid uuid, lanes integer, lane integer)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN lane IS NULL OR countercache.lane_of(target_id, target_uuid, lanes) OPERATOR(pg_catalog.=) lane
            THEN true ELSE false END;

-- The fold of queued rows, one definition for a round's claim (rollup_report) and a take (take_generation): CTEs g and
-- f over a CTE c of queued rows (the columns of countercache.delta, then q: how many queued rows each stands for). f
-- holds one sum per counter and key under the group's first id and first enqueued_at, with n, the queued rows it
-- stands for, and last, the group's last id; a sum that is no bigint stays as its rows, one by one (n = q each).
CREATE OR REPLACE FUNCTION countercache.queue_sums_sql()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT $q$g AS (
            SELECT min(c.id) AS id, c.counter_id, c.target_id, c.target_uuid, sum(c.delta) AS delta,
                   min(c.enqueued_at) AS enqueued_at, sum(c.q) AS n, max(c.id) AS last
              FROM c GROUP BY c.counter_id, c.target_id, c.target_uuid
        ), f AS (
            SELECT g.id, g.counter_id, g.target_id, g.target_uuid, g.delta::bigint AS delta, g.enqueued_at, g.n, g.last
              FROM g WHERE g.delta BETWEEN -9223372036854775808 AND 9223372036854775807
            UNION ALL
            SELECT c.id, c.counter_id, c.target_id, c.target_uuid, c.delta, c.enqueued_at, c.q, c.id
              FROM g JOIN c ON c.counter_id = g.counter_id AND c.target_id IS NOT DISTINCT FROM g.target_id
                           AND c.target_uuid IS NOT DISTINCT FROM g.target_uuid
             WHERE g.delta NOT BETWEEN -9223372036854775808 AND 9223372036854775807
        )$q$
$fn$;

-- Takes the generation of the queue that writers have left whole, and moves it back into the queue folded: one sum
-- per counter and key, under the group's first id and first enqueue time (a sum that is no bigint stays as its
-- deltas), then truncates it. Returns, per counter, the deltas the fold removed from the queue (a sum counts as one
-- when a round applies it, so a worker's consumed deltas add up to those queued). It is called between rounds, in a
-- transaction of its own (a worker, the CLI's drain): a round that applied in the same transaction would hold the
-- generation, and so keep every reader of the queue waiting, for as long as its updates of target rows take.
-- Writers put the deltas of queue counters in one of two generations (delta_0 and delta_1, tables that inherit the
-- queue), the one the clock names (generation(clock_timestamp()), the parity of the second), so that at any moment one
-- of them is left alone. The take acts only in READ COMMITTED, at least 0.1 s past a turn of the clock, when no round
-- claims alone (it locks the queues' claim row FOR UPDATE SKIP LOCKED, as a lone round does: rounds that overlap it
-- wait for it on that row) and when it can lock the left generation ACCESS EXCLUSIVE NOWAIT, never waiting. Holding
-- that lock, no other transaction holds any lock on the generation, so every transaction that wrote, locked or
-- deleted a row of it has ended, and the next statement's snapshot (taken after the lock) sees every row it holds,
-- none in flight; none can arrive or go until the take commits. So the fold of its rows, the sums' insert into the
-- queue and the truncate are the same as claiming every row and putting back every sum, and they commit or roll back
-- together. The clock decides only where deltas land, never whether they are counted: a writer that reaches a
-- generation the take holds waits for its commit (the writer read the clock 0.1 s before); a take holds it for the
-- fold of at most max_rows deltas (by the generation's range of ids: 0.5 s for 1,000,000 deltas at 1,000 a target, 1.7 s
-- at 10, docs/architecture.md). A generation that does not fold (fewer than 4 deltas to a sum) is left to rounds, which
-- claim it by rows, and remembered by its file for this session (countercache.too_many_sums: file, highest id, rows),
-- not to be folded again until it is truncated or more deltas have been queued since than it held. Whether it folds
-- is estimated from a sample before the lock, so that such a generation is not folded in vain under it (3.2 s per
-- 1,000,000 deltas at 1 a target, while writers coming back to it waited); the fold under the lock decides.
-- TRUNCATE is not MVCC-safe, so readers of stored + pending read in READ COMMITTED, in one statement that locks the
-- queue before it takes its snapshot (exact, drift: VOLATILE), or are told to retry (require_generations_seen). They
-- wait for a take, never for a round.
CREATE OR REPLACE FUNCTION countercache.take_generation(max_rows integer DEFAULT 1000000)
RETURNS TABLE (counter_id integer, consumed bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
#variable_conflict use_column
DECLARE
    at constant timestamptz := clock_timestamp();
    whole constant name := 'delta_' || (1 - countercache.generation(at));
    memo constant text[] := string_to_array(current_setting('countercache.too_many_sums', true), ':');
    oldest bigint;
    newest bigint;
    file oid;
    folds boolean;
    share real;          -- the percent of the generation's pages the estimate samples
    seen bigint;         -- the estimate's keys, and of them those sampled once and twice
    once bigint;
    twice bigint;
    sampled bigint;
    held bigint;
    report jsonb;
BEGIN
    IF max_rows IS NULL OR max_rows < 1 THEN
        RAISE EXCEPTION 'countercache.take_generation: max_rows must be at least 1, got %', max_rows
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed'
       OR date_part('epoch', at) - floor(date_part('epoch', at)) < 0.1 THEN
        RETURN;
    END IF;
    -- first, so that a take never waits for another one reading the generation's ids
    PERFORM FROM countercache.queue_claim FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    -- by the id index, as claims read it: a scan of the heap from its start walks every row the claims by rows have
    -- deleted until vacuum runs
    EXECUTE format('SELECT (SELECT g.id FROM ONLY countercache.%1$I g ORDER BY g.id LIMIT 1),'
                   ' (SELECT g.id FROM ONLY countercache.%1$I g ORDER BY g.id DESC LIMIT 1),'
                   ' pg_relation_filenode(%2$L::regclass)', whole, 'countercache.' || whole)
       INTO oldest, newest, file;
    IF oldest IS NULL OR newest - oldest >= max_rows
       OR (memo[1] = file::text AND newest - memo[2]::bigint <= memo[3]::bigint) THEN
        RETURN;
    END IF;
    -- whether the fold pays, estimated before any lock from a sample of about 10,000 rows, each drawn on its own
    -- (every row of a smaller generation): the distinct counters and keys by Chao's estimator, d + f1 (f1 - 1) /
    -- (2 (f2 + 1)), from the keys the sample holds (d), once (f1) and twice (f2), against the rows the sample stands
    -- for. Rows, not pages (SYSTEM): a page holds deltas queued together, so the keys seen twice come in whole pages
    -- or not at all; of 1,000,000 deltas at 10 a target, pages put 38,000 to 532,000 keys and said "no fold" 7 times
    -- in 100 (the session then left that backlog to rounds), rows 100,000 to 128,000 and never, reading 24 ms, not 6
    share := least(100, 1000000.0 / (newest - oldest + 1));
    EXECUTE format($q$SELECT count(*), coalesce(sum(x.n), 0), count(*) FILTER (WHERE x.n = 1),
                             count(*) FILTER (WHERE x.n = 2)
                        FROM (SELECT count(*) AS n FROM ONLY countercache.%I g TABLESAMPLE BERNOULLI ($1)
                               GROUP BY g.counter_id, g.target_id, g.target_uuid) x$q$, whole)
       INTO seen, sampled, once, twice USING share;
    held := round(sampled * 100 / share);
    IF share < 100 THEN
        seen := seen + once * (once - 1) / (2 * (twice + 1));
    END IF;
    IF 4 * seen > held THEN
        PERFORM set_config('countercache.too_many_sums', concat_ws(':', file, newest, held), false);
        RETURN;
    END IF;
    BEGIN
        EXECUTE format('LOCK TABLE ONLY countercache.%I IN ACCESS EXCLUSIVE MODE NOWAIT', whole);
        EXECUTE format($q$
            WITH c AS NOT MATERIALIZED (
                SELECT *, 1 AS q FROM ONLY countercache.%1$I
            ), $q$ || countercache.queue_sums_sql() || $q$, folds AS (
                SELECT 4 * count(*) <= sum(f.n) AS yes, sum(f.n) AS held FROM f
            ), put AS (
                INSERT INTO countercache.delta (id, counter_id, target_id, target_uuid, delta, enqueued_at)
                OVERRIDING SYSTEM VALUE
                SELECT f.id, f.counter_id, f.target_id, f.target_uuid, f.delta, f.enqueued_at
                  FROM f WHERE (SELECT x.yes FROM folds x)
            )
            SELECT x.yes, x.held,
                   (SELECT coalesce(jsonb_agg(jsonb_build_object('c', y.c, 'n', y.n)), '[]')
                      FROM (SELECT f.counter_id AS c, sum(f.n - 1) AS n FROM f
                             GROUP BY f.counter_id HAVING sum(f.n - 1) <> 0) y)
              FROM folds x$q$, whole)
           INTO folds, held, report;
        IF NOT folds THEN
            RAISE SQLSTATE 'CC002';
        END IF;
        EXECUTE format('TRUNCATE ONLY countercache.%I', whole);
    EXCEPTION
        WHEN lock_not_available OR object_in_use THEN
            RETURN;
        WHEN SQLSTATE 'CC002' THEN   -- rolled back, lock and all
            PERFORM set_config('countercache.too_many_sums', concat_ws(':', file, newest, held), false);
            RETURN;
    END;
    RETURN QUERY SELECT (r.value->>'c')::integer, (r.value->>'n')::bigint FROM jsonb_array_elements(report) r;
END
$fn$;

-- Lanes (lanes > 1): after the orphans, slots and distinct values (which every round handles as before), the round
-- claims only the deltas of one lane, lane_of(target, lanes), a lane no other round with the same number of lanes
-- holds (its row of countercache.lane_claim, locked FOR UPDATE SKIP LOCKED: the first lane, from a random one on, that
-- has a delta among the oldest the claim could reach; a round locks no other lane; a row lock, not an advisory lock,
-- which any role could take and so stop a lane, HostileIT), so that
-- workers apply disjoint targets instead of handing back the rows the other holds. Every target is in exactly one
-- lane, so exactness is the argument above unchanged: lanes decide which queued rows a round may claim, never how it
-- claims or applies them. A round that finds no free lane claims nothing. The derived deltas of fold_distinct are
-- applied by the round that made them, whatever their lane. Scenario 5 of the benchmarks measures one worker against
-- two, with and without lanes.
CREATE OR REPLACE FUNCTION countercache.rollup_report(max_deltas integer, with_keys boolean, lanes integer)
RETURNS TABLE (counter_id integer, consumed bigint, target_ids bigint[], target_uuids uuid[])
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '200ms'
AS $fn$
#variable_conflict use_column
DECLARE
    lane integer;   -- NULL: every lane
    alone boolean;   -- whether it claims alone (see the header), without locking what it deletes
    timeout text;    -- the round's lock timeout, while it waits for a round claiming alone
    wait interval;   -- how long it waits for a round claiming alone
    fresh boolean := pg_current_xact_id_if_assigned() IS NULL;   -- called in a transaction that has written nothing
    start integer;
    ids bigint[]; cids integer[]; tids bigint[]; tuuids uuid[]; deltas bigint[]; ats timestamptz[]; ns bigint[]; lasts bigint[];
    tb record;
    apply text;
    creates text;
    kc name;
    key text;
    cid integer;
    part jsonb;
    report jsonb := '[]';
    key_counters integer[];
    accepted integer[];
    refused integer[];
    states text[];
    messages text[];
    state text;
    message text;
    -- countercache.round is 'on' for this call (see the first statement), and as it was again when the call returns
    round_before text := current_setting('countercache.round', true);
    given_up integer[] := '{}';
    given_up_before integer;
    held_ids bigint[];
    held_uuids uuid[];
    hold text;   -- a table's locking statement (see Extremes), NULL for a table without a recomputed counter
    derived countercache.delta[] := '{}';
    idle boolean;        -- whether the queues are empty
    -- The fold of a claim (queue_sums_sql) as arrays: c holds the claimed rows (q: 1 for a row of a queue, 0 for a
    -- distinct counter's derived delta). %1$s: the claimed rows; %2$s: the CTEs that claim them. c is not
    -- materialized: a copy of every claimed row took about 30 ms of a 100,000-delta claim; the fold reads it again
    -- only for a sum that is no bigint (its hash side is empty otherwise).
    fold constant text := $q$%2$sc AS NOT MATERIALIZED (
            %1$s
            UNION ALL SELECT *, 0 FROM unnest($5::countercache.delta[])
        ), $q$ || countercache.queue_sums_sql() || $q$
        SELECT array_agg(f.id), array_agg(f.counter_id), array_agg(f.target_id), array_agg(f.target_uuid),
               array_agg(f.delta), array_agg(f.enqueued_at), array_agg(f.n), array_agg(f.last)
          FROM f$q$;
BEGIN
    -- the captures this round's updates fire (a level of a path summed by the level above) queue even for a direct
    -- counter, whose target a writer may hold: a round never waits (see capture_sql). For this call only: the
    -- caller's later writes of a direct counter, in the same transaction, must not queue. Not a SET clause of the
    -- function, which only a superuser may give a setting of the library's own (PostgreSQL 15 and later); an error
    -- undoes this with the transaction or the subtransaction that catches it.
    PERFORM set_config('countercache.round', 'on', true);
    IF max_deltas IS NULL OR max_deltas < 1 THEN
        RAISE EXCEPTION 'countercache.rollup_report: max_deltas must be at least 1, got %', max_deltas
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF lanes IS NULL OR lanes NOT BETWEEN 1 AND 64 THEN
        -- a lane is a lock key and a share of the id index each claim reads: more lanes than workers buy nothing
        RAISE EXCEPTION 'countercache.rollup_report: lanes must be from 1 to 64 (the number of workers), got %', lanes
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- a crash that emptied the unlogged queue is noticed before anything is claimed
    PERFORM countercache.check_unlogged_queue();
    -- orphans whose target row exists again and the slots' amounts go to the queue first, and the values that reach
    -- or leave a count of 0 (fold_distinct) join the first claim: this round applies them
    PERFORM countercache.adopt_orphans(max_deltas);
    PERFORM countercache.flush_slots(max_deltas);
    IF EXISTS (SELECT FROM countercache.distinct_delta) THEN
        BEGIN
            SELECT f.consumed, f.derived INTO part, derived FROM countercache.fold_distinct(max_deltas) f;
            report := report || part;
        EXCEPTION WHEN lock_not_available THEN
            NULL;   -- a value's count is held past the lock timeout (by forget, or by a round of an older version
                    -- during an upgrade): these deltas wait for a later round
        END;
    END IF;
    -- Nothing queued: nothing to claim (lane -1 holds no target), and no lock to take, so an idle round writes
    -- nothing. Else a round without lanes that no other round overlaps claims alone (see the header); any other
    -- locks the queues' claim row FOR SHARE, since a round claiming alone would wait for the rows it locked. It waits
    -- for a round claiming alone to commit, up to 10 s (a lone round waits for no round), so that a round that
    -- consumes nothing still means that it found nothing to claim: drain loops stop on it. Past that it claims
    -- nothing this time; so it does past half of what its statement_timeout (or transaction_timeout) leaves, when
    -- that is shorter, rather than fail with the timeout's error; so does at once a round called in a transaction
    -- that has written already, whose locks a lone round of the same application could be waiting for. A claim row
    -- gone missing (a partial restore) orders nothing: rounds claim side by side.
    alone := false;
    BEGIN
        -- take_generation, while it holds a generation, holds the claim row too: wait for it below, on the claim
        -- row. The look rolls back, so that a round waiting for the claim row holds no lock on a generation, which
        -- would keep the next take from taking it
        LOCK TABLE countercache.delta IN ACCESS SHARE MODE NOWAIT;
        idle := NOT EXISTS (SELECT FROM countercache.delta) AND NOT EXISTS (SELECT FROM countercache.delta_unlogged);
        RAISE SQLSTATE 'CC003';
    EXCEPTION
        WHEN SQLSTATE 'CC003' THEN
            NULL;
        WHEN lock_not_available THEN
            idle := false;
    END;
    IF idle THEN
        lane := -1;
    ELSE
        IF lanes = 1 THEN
            PERFORM FROM countercache.queue_claim FOR UPDATE SKIP LOCKED;
            alone := FOUND;
        END IF;
        IF NOT alone THEN
            BEGIN
                -- the wait: 10 s, or half of what the statement's or the transaction's timeout leaves when that
                -- is less (0: none; transaction_timeout is PostgreSQL 17's)
                wait := least(interval '10 s',
                              (nullif(current_setting('statement_timeout')::interval, interval '0')
                               - (clock_timestamp() - statement_timestamp())) / 2,
                              (nullif(current_setting('transaction_timeout', true)::interval, interval '0')
                               - (clock_timestamp() - transaction_timestamp())) / 2);
                IF fresh AND wait >= interval '1 ms' THEN
                    timeout := current_setting('lock_timeout');
                    PERFORM set_config('lock_timeout', floor(extract(epoch FROM wait) * 1000)::bigint || 'ms', true);
                    PERFORM FROM countercache.queue_claim FOR SHARE;
                    PERFORM set_config('lock_timeout', timeout, true);
                ELSE
                    PERFORM FROM countercache.queue_claim FOR SHARE NOWAIT;
                END IF;
            EXCEPTION WHEN lock_not_available THEN   -- the rollback restores the lock timeout
                lane := -1;
            END;
        END IF;
    END IF;
    IF lanes > 1 AND lane IS NULL THEN
        -- the first lane, from a random one on, that has a delta among the oldest the claim could reach (a bounded
        -- look, by the id index) and that no other round holds; a lane is locked only to be claimed in
        start := floor(random() * lanes)::integer;
        FOR i IN 0 .. lanes - 1 LOOP
            IF EXISTS (SELECT FROM (SELECT p.target_id, p.target_uuid FROM countercache.delta p
                                     ORDER BY p.id LIMIT max_deltas::bigint * lanes) p
                        WHERE countercache.in_lane(p.target_id, p.target_uuid, lanes, (start + i) % lanes))
               OR EXISTS (SELECT FROM (SELECT p.target_id, p.target_uuid FROM countercache.delta_unlogged p
                                        ORDER BY p.id LIMIT max_deltas::bigint * lanes) p
                           WHERE countercache.in_lane(p.target_id, p.target_uuid, lanes, (start + i) % lanes)) THEN
                PERFORM FROM countercache.lane_claim l
                  WHERE l.lanes = rollup_report.lanes AND l.lane = (start + i) % rollup_report.lanes
                    FOR UPDATE SKIP LOCKED;
                IF FOUND THEN
                    lane := (start + i) % lanes;
                    EXIT;
                END IF;
            END IF;
        END LOOP;
        -- no lane to claim in: claim nothing (lane -1 holds no target), but still apply fold_distinct's derived deltas
        lane := coalesce(lane, -1);
    END IF;
    LOOP   -- passes: each claims past the counters of the tables given up so far
        given_up_before := cardinality(given_up);
        -- $1 the counters given up, $2 the lanes, $3 the lane, $4 max_deltas, $5 the derived deltas. The oldest
        -- rows of the queue and its generations (a ctid names a row within its table, hence picked's tableoid)
        EXECUTE format(fold, $q$SELECT *, 1 AS q FROM claimed UNION ALL SELECT *, 1 FROM claimed_0
                                UNION ALL SELECT *, 1 FROM claimed_1 UNION ALL SELECT *, 1 FROM claimed_unlogged$q$,
                       format($q$WITH picked AS MATERIALIZED (
            SELECT p.tableoid AS t, p.ctid AS r FROM countercache.delta p WHERE p.counter_id <> ALL ($1)
               AND countercache.in_lane(p.target_id, p.target_uuid, $2, $3)
             ORDER BY p.id LIMIT $4%1$s
        ), claimed AS (
            DELETE FROM ONLY countercache.delta q
             WHERE q.ctid = ANY (ARRAY(SELECT k.r FROM picked k WHERE k.t = 'countercache.delta'::regclass))
            RETURNING q.*
        ), claimed_0 AS (
            DELETE FROM ONLY countercache.delta_0 q
             WHERE q.ctid = ANY (ARRAY(SELECT k.r FROM picked k WHERE k.t = 'countercache.delta_0'::regclass))
            RETURNING q.*
        ), claimed_1 AS (
            DELETE FROM ONLY countercache.delta_1 q
             WHERE q.ctid = ANY (ARRAY(SELECT k.r FROM picked k WHERE k.t = 'countercache.delta_1'::regclass))
            RETURNING q.*
        ), claimed_unlogged AS (
            DELETE FROM countercache.delta_unlogged q
             WHERE q.ctid = ANY (ARRAY(SELECT p.ctid FROM countercache.delta_unlogged p WHERE p.counter_id <> ALL ($1)
                                         AND countercache.in_lane(p.target_id, p.target_uuid, $2, $3)
                                      ORDER BY p.id LIMIT $4%1$s))
            RETURNING q.*
        ), $q$, CASE WHEN alone THEN '' ELSE ' FOR UPDATE SKIP LOCKED' END))
          INTO ids, cids, tids, tuuids, deltas, ats, ns, lasts
          USING given_up, lanes, lane, CASE WHEN lane = -1 THEN 0 ELSE max_deltas END, derived;   -- no lane: no scan
        derived := '{}';   -- the first pass applies them, or puts them in the queue

        -- deltas of counters that are no longer installed are consumed without effect
        SELECT coalesce(jsonb_agg(jsonb_build_object('c', g.c, 'n', g.n)), '[]') INTO part
          FROM (SELECT u.c, sum(u.n) AS n FROM unnest(cids, ns) u(c, n)
                 WHERE NOT EXISTS (SELECT 1 FROM countercache.counter k WHERE k.id = u.c) GROUP BY u.c) g;
        report := report || part;
        -- and so are those of buckets older than their counter keeps (see bucket_cutoff)
        IF EXISTS (SELECT FROM countercache.counter k WHERE k.bucket_retention IS NOT NULL) THEN
            WITH kept AS (
                SELECT k.id, countercache.bucket_cutoff(k) AS cutoff FROM countercache.counter k
                 WHERE k.bucket_retention IS NOT NULL
            ), u AS (
                SELECT u.*, x.id IS NOT NULL AS old
                  FROM unnest(ids, cids, tids, tuuids, deltas, ats, ns, lasts) AS u(i, c, ti, tu, d, a, n, l)
                  LEFT JOIN kept x ON x.id = u.c AND countercache.key_start(u.tu) < x.cutoff
            )
            SELECT (SELECT coalesce(jsonb_agg(jsonb_build_object('c', g.c, 'n', g.n)), '[]')
                      FROM (SELECT u.c, sum(u.n) AS n FROM u WHERE u.old GROUP BY u.c) g),
                   array_agg(u.i) FILTER (WHERE NOT u.old), array_agg(u.c) FILTER (WHERE NOT u.old),
                   array_agg(u.ti) FILTER (WHERE NOT u.old), array_agg(u.tu) FILTER (WHERE NOT u.old),
                   array_agg(u.d) FILTER (WHERE NOT u.old), array_agg(u.a) FILTER (WHERE NOT u.old),
                   array_agg(u.n) FILTER (WHERE NOT u.old), array_agg(u.l) FILTER (WHERE NOT u.old)
              INTO part, ids, cids, tids, tuuids, deltas, ats, ns, lasts
              FROM u;
            report := report || part;
        END IF;

        FOR tb IN
            SELECT c.target_schema, c.target_table, c.target_key, c.key_type,
                   array_agg(c.id ORDER BY c.id) AS counters, array_agg(c.target_column ORDER BY c.id) AS columns,
                   array_agg(c.scale ORDER BY c.id) AS scales,
                   array_agg(countercache.extreme_sql(c, 'd.k') ORDER BY c.id) AS recomputes,
                   array_agg(c.touch_column ORDER BY c.id) AS touches,
                   bool_or(c.aggregate IS NOT NULL) AS extremes,
                   bool_or(c.aggregate IS NOT DISTINCT FROM 'count') AS per_link
              FROM countercache.counter c
             WHERE c.id IN (SELECT DISTINCT u.c FROM unnest(cids) u(c))
             GROUP BY c.target_schema, c.target_table, c.target_key, c.key_type
             ORDER BY c.target_schema, c.target_table
        LOOP
            apply := countercache.apply_round_sql(tb.target_schema, tb.target_table, tb.target_key, tb.key_type,
                                                  tb.counters, tb.columns, tb.scales, with_keys, tb.recomputes,
                                                  tb.touches);
            kc := CASE WHEN tb.key_type = 'uuid' THEN 'target_uuid' ELSE 'target_id' END;
            -- a bucket table's missing rows are created before each applying statement (in its subtransaction)
            creates := countercache.bucket_rows_sql(tb.target_schema, tb.target_table);
            -- a table with a recomputed counter locks its keys' rows first, in a statement of its own, so that the
            -- applying statement's snapshot follows every lock; a key is held when every row of it is: a recomputed
            -- count's key may have several rows (the links of one article), which the HAVING counts; a min's or
            -- max's key is unique, so a table without a recomputed count skips that probe. $4 the counters, $5 one
            -- key (as text) or NULL. It runs again, for the key, before each retry of one (each try in its
            -- subtransaction, the final apply of the accepted counters in the round's transaction): a
            -- subtransaction rolled back has released its locks, and a key counted as held that another
            -- transaction took since would be counted as applied without its rows being written.
            hold := CASE WHEN tb.extremes THEN
                        format($q$SELECT %4$s FROM (
                                      SELECT l.k FROM (
                                          SELECT t.%1$I AS k FROM %2$I.%3$I t
                                           WHERE t.%1$I = ANY (ARRAY(
                                                     SELECT DISTINCT u.%5$I
                                                       FROM unnest($1::integer[], $2::bigint[], $3::uuid[]) u(c, ti, tu)
                                                      WHERE u.c = ANY ($4) AND ($5::text IS NULL OR u.%5$I::text = $5)))
                                           ORDER BY t.%1$I FOR NO KEY UPDATE OF t SKIP LOCKED) l
                                       GROUP BY l.k%6$s) x$q$,
                               tb.target_key, tb.target_schema, tb.target_table,
                               CASE WHEN tb.key_type = 'uuid' THEN 'NULL::bigint[], array_agg(x.k)'
                                    ELSE 'array_agg(x.k::bigint), NULL::uuid[]' END,
                               CASE WHEN tb.key_type = 'uuid' THEN 'tu' ELSE 'ti' END,
                               CASE WHEN tb.per_link
                                    THEN format(E'\n                                      HAVING count(*) = (SELECT count(*) FROM %2$I.%3$I a WHERE a.%1$I = l.k)',
                                                tb.target_key, tb.target_schema, tb.target_table)
                                    ELSE '' END) END;
            held_ids := NULL;
            held_uuids := NULL;
            BEGIN
                IF hold IS NOT NULL THEN
                    EXECUTE hold INTO held_ids, held_uuids USING cids, tids, tuuids, tb.counters, NULL::text;
                END IF;
                IF creates IS NOT NULL THEN
                    EXECUTE creates USING cids, tuuids, deltas, tb.counters, NULL::text;
                END IF;
                EXECUTE apply INTO part USING ids, cids, tids, tuuids, deltas, ats, tb.counters, NULL::text, ns,
                                              held_ids, held_uuids;
                report := report || coalesce(part, '[]');
                CONTINUE;
            EXCEPTION WHEN OTHERS THEN
                GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
                IF state IN ('42501', '55P03') THEN
                    -- 42501: the rollup's role may not update this table: not a refused value, a missing grant.
                    -- 55P03: the lock timeout: DDL holds the table, or a row lock that SKIP LOCKED could not skip (see
                    -- the header). Either way the table's deltas go back to the queue in their place, its subtransaction
                    -- has released what it locked, and the other tables flow; a missing grant is logged.
                    EXECUTE format($q$INSERT INTO countercache.delta (id, counter_id, target_id, target_uuid, delta, enqueued_at)
                                      OVERRIDING SYSTEM VALUE
                                      SELECT u.* FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::uuid[],
                                                             $5::bigint[], $6::timestamptz[]) AS u(i, c, ti, tu, d, a)
                                       WHERE u.c = ANY ($7)$q$)
                        USING ids, cids, tids, tuuids, deltas, ats, tb.counters;
                    given_up := given_up || tb.counters;
                    IF state = '42501' THEN
                        RAISE WARNING 'countercache: the rollup may not update %.%: % (its deltas stay queued)',
                            tb.target_schema, tb.target_table, message
                            USING HINT = 'grant the rollup''s role what docs/security.md lists for a worker; if the'
                                ' message names row-level security, do what docs/security.md says of it (the status'
                                ' command, or the worker as it starts, names the table and the fix)';
                    END IF;
                    CONTINUE;
                END IF;
                IF countercache.transient(state) THEN
                    RAISE;
                END IF;
            END;
            -- some target refuses its new value: go key by key
            FOR key, key_counters IN
                SELECT CASE WHEN tb.key_type = 'uuid' THEN u.tu::text ELSE u.ti::text END,
                       array_agg(DISTINCT u.c)
                  FROM unnest(cids, tids, tuuids) AS u(c, ti, tu)
                 WHERE u.c = ANY (tb.counters)
                 GROUP BY 1 ORDER BY 1
            LOOP
                BEGIN
                    IF hold IS NOT NULL THEN
                        EXECUTE hold INTO held_ids, held_uuids USING cids, tids, tuuids, key_counters, key;
                    END IF;
                    IF creates IS NOT NULL THEN
                        EXECUTE creates USING cids, tuuids, deltas, key_counters, key;
                    END IF;
                    EXECUTE apply INTO part USING ids, cids, tids, tuuids, deltas, ats, key_counters, key, ns,
                                                  held_ids, held_uuids;
                    report := report || coalesce(part, '[]');
                    CONTINUE;
                EXCEPTION WHEN OTHERS THEN
                    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE;
                    IF countercache.transient(state) THEN
                        RAISE;
                    END IF;
                END;
                -- which of its counters are refused? Try each alone and always roll the try back, so that the row is
                -- updated once, at the end (see the foreign-key note above).
                accepted := '{}'; refused := '{}'; states := '{}'; messages := '{}';
                FOREACH cid IN ARRAY key_counters LOOP
                    BEGIN
                        IF hold IS NOT NULL THEN
                            EXECUTE hold INTO held_ids, held_uuids USING cids, tids, tuuids, ARRAY[cid], key;
                        END IF;
                        IF creates IS NOT NULL THEN
                            EXECUTE creates USING cids, tuuids, deltas, ARRAY[cid], key;
                        END IF;
                        EXECUTE apply USING ids, cids, tids, tuuids, deltas, ats, ARRAY[cid], key, ns, held_ids, held_uuids;
                        RAISE SQLSTATE 'CC001';
                    EXCEPTION
                        WHEN SQLSTATE 'CC001' THEN
                            accepted := accepted || cid;
                        WHEN OTHERS THEN
                            GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
                            IF countercache.transient(state) THEN
                                RAISE;
                            END IF;
                            refused := refused || cid;
                            states := states || state;
                            messages := messages || message;
                    END;
                END LOOP;
                IF cardinality(accepted) > 0 THEN
                    IF hold IS NOT NULL THEN
                        EXECUTE hold INTO held_ids, held_uuids USING cids, tids, tuuids, accepted, key;
                    END IF;
                    IF creates IS NOT NULL THEN
                        EXECUTE creates USING cids, tuuids, deltas, accepted, key;
                    END IF;
                    EXECUTE apply INTO part USING ids, cids, tids, tuuids, deltas, ats, accepted, key, ns, held_ids,
                                                  held_uuids;
                    report := report || coalesce(part, '[]');
                END IF;
                EXECUTE format(
                    $q$WITH q AS (
                           SELECT q.id, q.counter_id, q.%1$I AS k, q.delta, q.enqueued_at, q.n, q.last
                             FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::uuid[], $5::bigint[], $6::timestamptz[],
                                         $11::bigint[], $12::bigint[])
                                  AS q(id, counter_id, target_id, target_uuid, delta, enqueued_at, n, last)
                            WHERE q.counter_id = ANY ($7) AND q.%1$I::text = $8
                       ), waits AS (
                           -- older than the newest delta a sum folds: older than one of its deltas
                           SELECT DISTINCT q.counter_id FROM q
                            WHERE EXISTS (SELECT 1 FROM countercache.delta x
                                           WHERE x.counter_id = q.counter_id AND x.%1$I = q.k AND x.id < q.last)
                               OR EXISTS (SELECT 1 FROM countercache.delta_unlogged x
                                           WHERE x.counter_id = q.counter_id AND x.%1$I = q.k AND x.id < q.last)
                               -- a slot's amount has no place in the queue's order: it may be older
                               OR EXISTS (SELECT 1 FROM countercache.slot x
                                           WHERE x.counter_id = q.counter_id AND x.%1$I = q.k AND x.n <> 0)
                       ), requeued AS (
                           INSERT INTO countercache.delta (id, counter_id, %1$I, delta, enqueued_at) OVERRIDING SYSTEM VALUE
                           SELECT q.id, q.counter_id, q.k, q.delta, q.enqueued_at FROM q
                            WHERE q.counter_id IN (SELECT w.counter_id FROM waits w)
                       ), parked AS (
                           SELECT q.*, e.state, e.message,
                                  sum(q.delta) OVER (PARTITION BY q.counter_id) AS total
                             FROM q JOIN unnest($7, $9::text[], $10::text[]) AS e(counter_id, state, message)
                                     ON e.counter_id = q.counter_id
                            WHERE q.counter_id NOT IN (SELECT w.counter_id FROM waits w)
                       ), dead AS (
                           -- folded into one row, unless the sum itself overflows: then one row per claimed sum
                           INSERT INTO countercache.dead_letter (counter_id, %1$I, delta, deltas, first_enqueued_at,
                                                                 sqlstate, error)
                           SELECT p.counter_id, p.k, sum(p.delta), sum(p.n), min(p.enqueued_at), p.state, p.message
                             FROM parked p WHERE p.total BETWEEN -9223372036854775808 AND 9223372036854775807
                            GROUP BY p.counter_id, p.k, p.state, p.message
                           UNION ALL
                           SELECT p.counter_id, p.k, p.delta, p.n, p.enqueued_at, p.state, p.message
                             FROM parked p WHERE p.total NOT BETWEEN -9223372036854775808 AND 9223372036854775807
                       )
                       SELECT coalesce(jsonb_agg(jsonb_build_object('c', s.counter_id, 'n', s.n)), '[]') FROM (
                           -- a sum that goes back counts as one when applied later (see apply_folded_sql)
                           SELECT q.counter_id, sum(CASE WHEN q.counter_id IN (SELECT w.counter_id FROM waits w)
                                                         THEN greatest(q.n - 1, 0) ELSE q.n END) AS n
                             FROM q GROUP BY q.counter_id) s$q$, kc)
                    INTO part USING ids, cids, tids, tuuids, deltas, ats, refused, key, states, messages, ns, lasts;
                report := report || part;
            END LOOP;
        END LOOP;
        EXIT WHEN cardinality(given_up) = given_up_before;
    END LOOP;

    RETURN QUERY
        SELECT (e->>'c')::integer, (e->>'n')::bigint,
               CASE WHEN c.key_type IS DISTINCT FROM 'uuid' AND jsonb_typeof(e->'k') = 'array'
                    THEN ARRAY(SELECT x::bigint FROM jsonb_array_elements_text(e->'k') x) END,
               CASE WHEN c.key_type = 'uuid' AND jsonb_typeof(e->'k') = 'array'
                    THEN ARRAY(SELECT x::uuid FROM jsonb_array_elements_text(e->'k') x) END
          FROM jsonb_array_elements(report) e
          LEFT JOIN countercache.counter c ON c.id = (e->>'c')::integer;
    PERFORM set_config('countercache.round', coalesce(round_before, ''), true);
END
$fn$;

-- Whether a SQLSTATE is a transient failure that must abort a round (so that it rolls back and is retried) rather
-- than dead-letter deltas: deadlock and serialization (40), resources (53), shutdown (57), system (58), connection
-- (08), lock timeouts (55P03, 55006).
CREATE OR REPLACE FUNCTION countercache.transient(state text)
RETURNS boolean
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT left(state, 2) IN ('40', '53', '57', '58', '08') OR state IN ('55P03', '55006')
$fn$;

-- The round of a worker that shares no lanes: every queued delta may be claimed (lanes = 1).
CREATE OR REPLACE FUNCTION countercache.rollup_report(max_deltas integer DEFAULT countercache.default_batch_size(),
                                                     with_keys boolean DEFAULT true)
RETURNS TABLE (counter_id integer, consumed bigint, target_ids bigint[], target_uuids uuid[])
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT * FROM countercache.rollup_report(max_deltas, with_keys, 1)
$fn$;

-- Applies at most max_deltas queued deltas and returns how many it consumed (0 when there is nothing to do).
CREATE OR REPLACE FUNCTION countercache.rollup(max_deltas integer DEFAULT countercache.default_batch_size())
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    consumed bigint;
BEGIN
    SELECT coalesce(sum(r.consumed), 0)::bigint INTO consumed FROM countercache.rollup_report(max_deltas, false) r;
    -- what a worker does between rounds, so that a rollup scheduled from SQL alone (pg_cron) also runs the
    -- recounts a crash of the unlogged queue, a changed definition or a repair asked for: after a round that
    -- emptied the queue, or when the oldest recount has not moved for a second (a queue that never runs dry
    -- must not starve them)
    IF EXISTS (SELECT FROM countercache.recount_job j
                WHERE consumed < max_deltas OR coalesce(j.updated_at, j.requested_at) < now() - interval '1 second') THEN
        PERFORM countercache.recount_next(max_deltas);
    END IF;
    RETURN consumed;
END
$fn$;

-- The state of the queue, for workers, health checks and tools: deltas waiting (in either queue, the queue of
-- distinct values, and non-zero slots), the age of the oldest queued delta (0 when the queues are empty), and dead
-- letters. Its cost does not grow with the backlog, since a health probe or a metrics scrape reads it most while one
-- builds: a count of 5,000,000 queued rows took 0.7 s here, so one of 50,000,000 would outlast a probe's timeout.
--   depth is exact up to 100,000, read from at most 100,001 rows (a drain loop waits for 0); above, it is estimated
--     from a sample of about 500 of the queues' pages (TABLESAMPLE SYSTEM, so dead rows are not counted; within a
--     few percent), and is at least 100,001. Sampled, so VOLATILE;
--   oldest_seconds is the age of the first delta in queue order (the least id, by each queue's id index): how far
--     the rollup lags. A folded sum keeps its group's first id and first enqueue time, so that is the oldest
--     enqueue time but for deltas queued late with an earlier one: by a transaction that started early (its
--     enqueue time is its start), or put back under a new id (an adopted orphan, a retried dead letter).
CREATE OR REPLACE FUNCTION countercache.queue_state()
RETURNS TABLE (depth bigint, oldest_seconds double precision, dead_letters bigint)
LANGUAGE sql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH counted AS (
        SELECT count(*) AS n
          FROM (SELECT FROM countercache.delta
                UNION ALL SELECT FROM countercache.delta_unlogged
                UNION ALL SELECT FROM countercache.distinct_delta
                UNION ALL SELECT FROM countercache.slot x WHERE x.n <> 0
                LIMIT 100001) q
    ), share AS (   -- the percent of the queues' pages that makes about 500
        SELECT least(100, 50000 / greatest(1, sum(pg_relation_size(t)) / current_setting('block_size')::bigint)::real) AS p
          FROM unnest(ARRAY['countercache.delta', 'countercache.delta_0', 'countercache.delta_1',
                            'countercache.delta_unlogged', 'countercache.distinct_delta',
                            'countercache.slot']::regclass[]) t
    ), sampled AS (   -- read only when the count reached its bound
        SELECT round(count(*) * 100 / s.p)::bigint AS n
          FROM share s,
               LATERAL (SELECT FROM countercache.delta TABLESAMPLE SYSTEM (s.p)
                        UNION ALL SELECT FROM countercache.delta_unlogged TABLESAMPLE SYSTEM (s.p)
                        UNION ALL SELECT FROM countercache.distinct_delta TABLESAMPLE SYSTEM (s.p)
                        UNION ALL SELECT FROM countercache.slot x TABLESAMPLE SYSTEM (s.p) WHERE x.n <> 0) q
         GROUP BY s.p
    ), firsts AS (
        (SELECT d.enqueued_at AS at FROM countercache.delta d ORDER BY d.id LIMIT 1)
        UNION ALL (SELECT u.enqueued_at FROM countercache.delta_unlogged u ORDER BY u.id LIMIT 1)
        UNION ALL (SELECT v.enqueued_at FROM countercache.distinct_delta v ORDER BY v.id LIMIT 1)
    )
    SELECT CASE WHEN c.n <= 100000 THEN c.n ELSE greatest(100001, (SELECT s.n FROM sampled s)) END,
           coalesce(extract(epoch FROM now() - (SELECT min(f.at) FROM firsts f)), 0)::double precision,
           (SELECT count(*) FROM countercache.dead_letter)
      FROM counted c
$fn$;
