-- Recount: the comparison of every counter with its source (drift), and the online recount that corrects it in
-- batches, never writing a counter column nor locking a source or target row.

-- What is pending for a counter's targets, wherever the library keeps it: queued (in either queue), in slots,
-- dead-lettered or orphaned, as a query of (place, k, amount, since); for a distinct counter also what its queued
-- values will move the column by ('value queue': per value, 1 when its count rises from 0 or below, -1 when it falls
-- to 0 or below, else 0). This is the one definition of "pending" that
-- drift, the recount, exact reads and the status read: stored + pending = recount holds for every key. A standby
-- cannot read the unlogged queue (its rows are the primary's alone), so there it is left out.
CREATE OR REPLACE FUNCTION countercache.pending_sql(c countercache.counter)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format($q$SELECT 'queue' AS place, q.%1$I AS k, q.delta AS amount, q.enqueued_at AS since
                      FROM countercache.delta q WHERE q.counter_id = %2$s
                    UNION ALL SELECT 'slot', q.%1$I, q.n, NULL FROM countercache.slot q WHERE q.counter_id = %2$s
                    UNION ALL SELECT 'dead letter', q.%1$I, q.delta, q.first_enqueued_at
                      FROM countercache.dead_letter q WHERE q.counter_id = %2$s
                    UNION ALL SELECT 'orphan', q.%1$I, q.delta, q.enqueued_at
                      FROM countercache.orphan q WHERE q.counter_id = %2$s$q$, countercache.key_column(c), c.id)
        || CASE WHEN c.distinct_column IS NULL THEN ''
                ELSE format($q$
                    UNION ALL SELECT 'value queue', x.k, ((coalesce(n.n, 0) + x.p > 0)::integer
                                                          - (coalesce(n.n, 0) > 0)::integer)::bigint, x.since
                      FROM (SELECT q.%1$I AS k, q.value, sum(q.delta) AS p, min(q.enqueued_at) AS since
                              FROM countercache.distinct_delta q WHERE q.counter_id = %2$s GROUP BY 1, 2) x
                      LEFT JOIN countercache.distinct_value n
                             ON n.counter_id = %2$s AND n.%1$I = x.k AND n.value = x.value$q$,
                    countercache.key_column(c), c.id) END
        || CASE WHEN pg_is_in_recovery() THEN ''
                ELSE format($q$
                    UNION ALL SELECT 'unlogged queue', q.%1$I, q.delta, q.enqueued_at
                      FROM countercache.delta_unlogged q WHERE q.counter_id = %2$s$q$, countercache.key_column(c), c.id)
           END
$fn$;

-- A counter counted level by level (a path, as the Hibernate integration declares it): a sum of a column of the
-- library's on its source (countercache_...), the counter column of the level beneath, so that a source row's
-- contributions reach it only once the rollup has applied them to the row beneath. What is pending for its keys is its
-- own (pending_sql) and, through each row of its source that counts for a key, what is pending for that row at the
-- level beneath, in this counter's units: the read of exact() (the recursion is argued in docs/architecture.md).
-- Recounts and drift compare each level with its own source (pending_sql), and the levels together add up.
CREATE OR REPLACE FUNCTION countercache.pending_through_sql(c countercache.counter)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    beneath countercache.counter;
BEGIN
    SELECT * INTO beneath FROM countercache.counter k
     WHERE k.target_schema = c.source_schema AND k.target_table = c.source_table AND k.target_column = c.sum_column
       AND k.id <> c.id AND (k.aggregate IS NULL OR k.aggregate = 'count') AND c.sum_column LIKE 'countercache\_%'
       AND c.aggregate IS NULL AND c.more_fks IS NULL AND c.more_tables IS NULL AND c.via_table IS NULL
       AND c.bucket_period IS NULL;
    IF NOT FOUND THEN
        RETURN countercache.pending_sql(c);
    END IF;
    IF beneath.aggregate = 'count' THEN
        -- a recomputed count beneath (a link's where on its far row): per source row, its recount less its column
        RETURN countercache.pending_sql(c)
            || format(E'\n                    UNION ALL SELECT ''recount'', s.k, (s.n - s.v) * %1$s, NULL::timestamptz'
                      || ' FROM (SELECT %2$I.%3$I AS k, %2$I.%4$I AS v, %5$s AS n FROM %6$I.%2$I AS %2$I WHERE %7$s) s'
                      || ' WHERE s.n <> s.v',
                      (10::numeric ^ c.scale)::bigint, c.source_table, c.source_fk, c.sum_column,
                      countercache.extreme_sql(beneath, format('%I.%I', c.source_table, beneath.target_key)),
                      c.source_schema, countercache.counts_sql(c));
    END IF;
    RETURN countercache.pending_sql(c)
        || format(E'\n                    UNION ALL SELECT b.place, s.k, b.amount * %1$s, b.since FROM (%2$s) b'
                  || ' JOIN (SELECT %3$I.%4$I AS k, %3$I.%5$I AS m FROM %6$I.%3$I AS %3$I WHERE %7$s) s ON s.m = b.k',
                  (10::numeric ^ (c.scale - beneath.scale))::bigint, countercache.pending_through_sql(beneath),
                  c.source_table, c.source_fk, beneath.target_key, c.source_schema, countercache.counts_sql(c));
END
$fn$;

-- A min or max value as a number, to compare and report: a time as seconds since the epoch (a timestamp without time
-- zone read as UTC), an integer or a numeric as itself.
CREATE OR REPLACE FUNCTION countercache.as_number(value numeric) RETURNS numeric
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $fn$ SELECT value $fn$;
CREATE OR REPLACE FUNCTION countercache.as_number(value timestamptz) RETURNS numeric
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $fn$ SELECT extract(epoch FROM value) $fn$;
CREATE OR REPLACE FUNCTION countercache.as_number(value timestamp) RETURNS numeric
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $fn$ SELECT extract(epoch FROM value) $fn$;
CREATE OR REPLACE FUNCTION countercache.as_number(value date) RETURNS numeric
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $fn$ SELECT extract(epoch FROM value) $fn$;

-- The keys of one batch of a recount, ($1, $2] in the counter's key type ($1 or $2 NULL: open), as a condition on key;
-- for a counter per bucket with a retention, of the buckets it keeps (see bucket_cutoff).
CREATE OR REPLACE FUNCTION countercache.in_batch_sql(c countercache.counter, key text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format('($1::%1$s IS NULL OR %2$s > $1::%1$s) AND ($2::%1$s IS NULL OR %2$s <= $2::%1$s)', c.key_type, key)
        || CASE WHEN c.bucket_retention IS NULL THEN ''
                ELSE format(' AND countercache.key_start(%s) >= %L::timestamptz', key, countercache.bucket_cutoff(c)) END
$fn$;

-- The source rows a batch of a recount reads, as a relation: the source table; for a counter of a packed key (keys.sql:
-- per bucket, or of two integer columns), its rows whose first part (the parent) can have a key in the batch ($1, $2], so that
-- a batch reads the source by the foreign key's index rather than whole. Keys order by parent as unsigned 64 bits (a
-- negative parent after every other), then by the second part, so a batch holds the parents from the first key's to
-- the last key's (0 and -1, the ends of that order, when open):
-- one range of the foreign key, or two when it wraps past the largest positive parent. The planner sees the batch's
-- bounds (EXECUTE ... USING plans with them), so the CASE folds to the range.
CREATE OR REPLACE FUNCTION countercache.batch_source_sql(c countercache.counter)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN countercache.packed_key_sql(c) IS NULL OR countercache.digested(c)   -- a digest has no order
                THEN format('%I.%I', c.source_schema, c.source_table)
                ELSE format($q$(SELECT s.* FROM %1$I.%2$I s
                                 WHERE CASE WHEN (%4$s >= 0) = (%5$s >= 0) THEN s.%3$I BETWEEN %4$s AND %5$s
                                            ELSE s.%3$I >= %4$s OR s.%3$I <= %5$s END)$q$,
                            c.source_schema, c.source_table, c.source_fk,
                            'coalesce(countercache.key_parent($1::uuid), 0)',
                            'coalesce(countercache.key_parent($2::uuid), -1)') END
$fn$;

-- The query of drift_sql (below) for a distinct counter, whose state has two levels, each kept by its own correction:
--   per value: the count kept in distinct_value plus the value's queued deltas equals the source's count of rows with
--     that value (vfix: per key k and value v, the difference d, which the recount queues as a value delta);
--   per key: the column plus the key's pending deltas (all but the value queue's) equals the number of values whose
--     kept count is positive (fix.d). fold_distinct changes that number and queues the same change in one statement.
-- fix.exact is the number of distinct values in the source, fix.pending includes what the queued values will move the
-- column by, and fix.off says that some value of the key is off.
CREATE OR REPLACE FUNCTION countercache.distinct_drift_sql(c countercache.counter)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format(
        $q$WITH src AS (
               SELECT x.k, x.v, sum(x.d) AS n FROM (%1$s) x
                WHERE %2$s
                GROUP BY 1, 2
           ), kept AS (
               SELECT x.%6$I AS k, x.value AS v, x.n FROM countercache.distinct_value x
                WHERE x.counter_id = $3 AND %9$s
           ), waiting AS (
               SELECT x.%6$I AS k, x.value AS v, sum(x.delta) AS n FROM countercache.distinct_delta x
                WHERE x.counter_id = $3 AND %9$s
                GROUP BY 1, 2
           ), vfix AS (
               SELECT coalesce(s.k, x.k, w.k) AS k, coalesce(s.v, x.v, w.v) AS v,
                      coalesce(s.n, 0) - coalesce(x.n, 0) - coalesce(w.n, 0) AS d
                 FROM src s FULL JOIN kept x ON x.k = s.k AND x.v = s.v
                      FULL JOIN waiting w ON w.k = coalesce(s.k, x.k) AND w.v = coalesce(s.v, x.v)
           ), r AS (
               SELECT s.k, count(*) AS n FROM src s WHERE s.n > 0 GROUP BY 1
           ), h AS (
               SELECT x.k, count(*) AS n FROM kept x WHERE x.n > 0 GROUP BY 1
           ), t AS (
               SELECT t.%5$I AS k, t.%7$I::numeric AS n FROM %3$I.%4$I t
                WHERE %10$s
           ), p AS (
               SELECT q.k, sum(q.amount) AS n, sum(q.amount) FILTER (WHERE q.place <> 'value queue') AS counted
                 FROM (%8$s) q
                WHERE %11$s
                GROUP BY 1
           ), fix AS (
               SELECT a.k, coalesce(r.n, 0) AS exact, t.n AS stored, coalesce(p.n, 0) AS pending,
                      coalesce(h.n, 0) - coalesce(t.n, 0) - coalesce(p.counted, 0) AS d, t.k IS NOT NULL AS present,
                      a.k IN (SELECT v.k FROM vfix v WHERE v.d <> 0) AS off
                 FROM (SELECT r.k FROM r UNION SELECT t.k FROM t UNION SELECT p.k FROM p UNION SELECT h.k FROM h
                       UNION SELECT v.k FROM vfix v WHERE v.d <> 0) a
                 LEFT JOIN r ON r.k = a.k LEFT JOIN t ON t.k = a.k LEFT JOIN p ON p.k = a.k LEFT JOIN h ON h.k = a.k
           )$q$,
        countercache.contributions_sql(c, format('%I.%I', c.source_schema, c.source_table), 1),
        countercache.in_batch_sql(c, 'x.k'), c.target_schema, c.target_table, c.target_key, countercache.key_column(c),
        c.target_column, countercache.pending_sql(c),
        countercache.in_batch_sql(c, format('x.%I', countercache.key_column(c))),
        countercache.in_batch_sql(c, format('t.%I', c.target_key)), countercache.in_batch_sql(c, 'q.k'))
$fn$;

-- The query that compares a counter with a recount of its source, for the keys in ($1, $2] ($1 or $2 NULL: open),
-- $3 the counter's id: CTEs r (the recount, by the contribution formula over the whole source table), t (the
-- column, in the counter's units), p (what is pending) and fix (per key: exact, stored, pending, the difference
-- d = exact - stored - pending, whether the target row is present, and off: whether the key's state is wrong besides
-- d). One statement, one snapshot. A distinct counter's query is distinct_drift_sql's.
-- For a min or max counter, exact and stored are values (as numbers: a time as seconds since the epoch, see
-- as_number) and pending counts touches; d is a touch, 1, for a present row with no touch pending whose
-- column is not its extreme: the rollup then recomputes it. A recomputed count is read in the same way, its exact
-- value 0 where no source row counts, its stored value NULL where the rows of one key disagree.
CREATE OR REPLACE FUNCTION countercache.drift_sql(c countercache.counter)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format(
        $q$WITH r AS (
               SELECT x.k, %8$s AS n FROM (%1$s) x
                WHERE %2$s
                GROUP BY 1
           ), t AS (
               SELECT t.%5$I AS k, %6$s AS n FROM %3$I.%4$I t
                WHERE %11$s%13$s
           ), p AS (
               SELECT q.k, sum(q.amount) AS n FROM (%7$s) q
                WHERE %12$s
                GROUP BY 1
           ), fix AS (
               SELECT coalesce(r.k, t.k, p.k) AS k, %9$s AS exact, t.n AS stored, coalesce(p.n, 0) AS pending,
                      %10$s AS d, t.k IS NOT NULL AS present, false AS off
                 FROM r FULL JOIN t ON t.k = r.k FULL JOIN p ON p.k = coalesce(r.k, t.k)
           )$q$,
        CASE WHEN c.aggregate IS NULL   -- every table's rows, for a counter fed by several (tables_of)
             THEN (SELECT string_agg(countercache.contributions_sql(x, countercache.batch_source_sql(x), 1),
                                     E'\n            UNION ALL\n            ')
                     FROM unnest(countercache.tables_of(c)) x)
             ELSE format('SELECT %1$I.%2$I AS k, %1$I.%3$I AS v FROM %4$I.%1$I AS %1$I WHERE %5$s', c.source_table,
                         c.source_fk, c.aggregate_column, c.source_schema, countercache.counts_sql(c)) END,
        countercache.in_batch_sql(c, 'x.k'), c.target_schema, c.target_table, c.target_key,
        CASE WHEN c.aggregate IS NULL
             THEN format('coalesce(t.%I, 0)::numeric * %s', c.target_column, (10::numeric ^ c.scale)::bigint)
             -- the rows of a recomputed count's key hold one count, or there is drift (NULL)
             WHEN c.aggregate = 'count' THEN format('CASE WHEN min(t.%1$I) = max(t.%1$I) THEN min(t.%1$I) END::numeric',
                                                    c.target_column)
             ELSE format('countercache.as_number(t.%I)', c.target_column) END,
        countercache.pending_sql(c),
        CASE WHEN c.aggregate IS NULL THEN 'sum(x.d)'
             ELSE format('countercache.as_number(%s(x.v))', c.aggregate) END,
        CASE WHEN c.aggregate IS NULL OR c.aggregate = 'count' THEN 'coalesce(r.n, 0)' ELSE 'r.n' END,
        CASE WHEN c.aggregate IS NULL THEN 'coalesce(r.n, 0) - coalesce(t.n, 0) - coalesce(p.n, 0)'
             WHEN c.aggregate = 'count'
             THEN 'CASE WHEN t.k IS NOT NULL AND coalesce(p.n, 0) = 0 AND coalesce(r.n, 0) IS DISTINCT FROM t.n THEN 1 ELSE 0 END'
             ELSE 'CASE WHEN t.k IS NOT NULL AND coalesce(p.n, 0) = 0 AND r.n IS DISTINCT FROM t.n THEN 1 ELSE 0 END' END,
        countercache.in_batch_sql(c, format('t.%I', c.target_key)), countercache.in_batch_sql(c, 'q.k'),
        CASE WHEN c.aggregate = 'count' THEN E'\n                GROUP BY 1' ELSE '' END)
     WHERE c.distinct_column IS NULL
    UNION ALL
    SELECT countercache.distinct_drift_sql(c) WHERE c.distinct_column IS NOT NULL
$fn$;

-- Target rows whose counter differs from a recount of its source, beyond what is still queued for them (so a lag
-- is not drift): at most max_rows, in one snapshot, without writing or locking anything.
CREATE OR REPLACE FUNCTION countercache.drift(counter_id integer, max_rows integer DEFAULT 100)
RETURNS TABLE (key text, stored numeric, pending numeric, exact numeric)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    c countercache.counter;
BEGIN
    c := countercache.counter_of(drift.counter_id, 'countercache.drift');
    RETURN QUERY EXECUTE countercache.drift_sql(c)
        || ' SELECT f.k::text, trim_scale(f.stored / $5), trim_scale(f.pending / $5), trim_scale(f.exact / $5) FROM fix f'
        || ' WHERE (f.d <> 0 OR f.off) AND f.present ORDER BY f.k LIMIT $4'
        USING NULL::text, NULL::text, c.id, max_rows, (10::numeric ^ c.scale)::bigint;
    PERFORM countercache.require_generations_seen('countercache.drift');
END
$fn$;

-- One batch of a counter's recount: the next max_targets target keys after the last batch (all of them when
-- max_targets is NULL). Returns done when the counter's whole key range has been covered.
--
-- A recount never writes a counter column and never locks a source or target row. In one statement, so in one
-- snapshot S, it computes for every key k of the batch's range
--     correction(k) = recount(S, k) - (column(S, k) + queue(S, k) + dead letters(S, k) + orphans(S, k))
-- (queue: the logged and the unlogged queue and the slots, whatever the counter's strategy writes to)
-- and queues the non-zero corrections as ordinary deltas (a distinct counter's second level, per value, is
-- corrected the same way: see distinct_drift_sql). Every committed transaction changes a key's recount and
-- its column + queue + dead letters + orphans by the same amount (writers through the capture triggers, target
-- inserts and deletes through the target triggers; the rollup only moves amounts between the four), so the
-- difference seen in S is exactly the drift of the transactions S sees, and transactions S does not see are counted
-- by their own deltas. Two recounts of one counter must not both correct the same drift: each locks the counter's
-- recount_job row before the statement that takes S, so the second one's S sees the first one's correction. (A row
-- lock, not an advisory lock: locking a row needs a right on recount_job that only the library's roles have, where
-- any role with a connection could take an advisory lock and hold every recount back.)
-- The counter's dead letters in the range go back to the queue in the same statement (moving an amount keeps the
-- sum), so a fixed cause is retried. Full argument: docs/architecture.md, "Maintenance is a correction".
CREATE OR REPLACE FUNCTION countercache.recount_step(counter_id integer, max_targets integer DEFAULT countercache.default_batch_size())
RETURNS TABLE (done boolean, targets bigint, corrected bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
#variable_conflict use_column
DECLARE
    c countercache.counter;
    after_key text;
    upto text;
    seen bigint;
    kc name;
BEGIN
    PERFORM countercache.require_read_committed('a recount',
        'run countercache.recount in a READ COMMITTED transaction (the default)');
    c := countercache.counter_of(recount_step.counter_id, 'countercache.recount');
    IF max_targets IS NOT NULL AND max_targets < 1 THEN
        RAISE EXCEPTION 'countercache.recount: max_targets must be at least 1, got %', max_targets
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    INSERT INTO countercache.recount_job AS j (counter_id) VALUES (c.id) ON CONFLICT ON CONSTRAINT recount_job_pkey DO NOTHING;
    SELECT j.after_key INTO after_key FROM countercache.recount_job j WHERE j.counter_id = c.id FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        done := false; targets := 0; corrected := 0;   -- another session is recounting this counter
        RETURN NEXT;
        RETURN;
    END IF;
    upto := NULL;
    IF max_targets IS NOT NULL THEN
        EXECUTE format(
            $q$SELECT count(*), (array_agg(s.k ORDER BY s.k DESC))[1]::text FROM (
                   SELECT t.%3$I AS k FROM %1$I.%2$I t WHERE $1::%4$s IS NULL OR t.%3$I > $1::%4$s
                    ORDER BY t.%3$I LIMIT $2) s$q$,
            c.target_schema, c.target_table, c.target_key, c.key_type)
            INTO seen, upto USING after_key, max_targets;
        IF seen < max_targets THEN
            upto := NULL;   -- the last batch reaches to the end of the key space, beyond the last target row
        END IF;
    END IF;
    kc := countercache.key_column(c);
    EXECUTE countercache.drift_sql(c) || format(
        $q$, retried AS (
               DELETE FROM countercache.dead_letter q
                WHERE q.counter_id = $3 AND %2$s
               RETURNING q.%1$I AS k, q.delta, q.first_enqueued_at
           ), requeued AS (
               INSERT INTO countercache.delta (counter_id, %1$I, delta, enqueued_at)
               SELECT $3, x.k, x.delta, x.first_enqueued_at FROM retried x
           ), queued AS (
               INSERT INTO countercache.delta (counter_id, %1$I, delta)
               SELECT $3, f.k, f.d FROM fix f WHERE f.d <> 0
           )%3$s
           SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM fix f WHERE f.d <> 0 OR f.off)$q$, kc,
           countercache.in_batch_sql(c, format('q.%I', kc)),
           CASE WHEN c.distinct_column IS NOT NULL THEN format($q$, values_queued AS (
               INSERT INTO countercache.distinct_delta (counter_id, %I, value, delta)
               SELECT $3, v.k, v.v, v.d FROM vfix v WHERE v.d <> 0
           )$q$, kc) ELSE '' END)
        INTO targets, corrected USING after_key, upto, c.id;
    done := upto IS NULL;
    IF done THEN
        DELETE FROM countercache.recount_job j WHERE j.counter_id = c.id;
    ELSE
        UPDATE countercache.recount_job j
           SET after_key = upto, targets = j.targets + recount_step.targets,
               corrected = j.corrected + recount_step.corrected, updated_at = now()
         WHERE j.counter_id = c.id;
    END IF;
    RETURN NEXT;
END
$fn$;

-- One batch of a counter's recount while it is requested (see recount_step), or no row once it is not: the rollup
-- workers run a requested recount's batches too (recount_next), and recount_step after a worker ran the job to its end
-- would request it again and recount from the first key. Locking the job first waits for a batch of it in progress in
-- another session, then goes on from where that batch left it. The CLI's repair steps through its recounts with it.
CREATE OR REPLACE FUNCTION countercache.continue_recount(counter_id integer,
                                                         max_targets integer DEFAULT countercache.default_batch_size())
RETURNS TABLE (done boolean, targets bigint, corrected bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    PERFORM FROM countercache.recount_job j WHERE j.counter_id = continue_recount.counter_id FOR UPDATE;
    IF FOUND THEN
        RETURN QUERY SELECT * FROM countercache.recount_step(continue_recount.counter_id, max_targets);
    END IF;
END
$fn$;

-- Recounts one counter in one transaction (see recount_step) and returns how many keys needed a correction. It holds
-- no lock that a writer waits for; a recount of the same counter already running in another session is waited for.
-- For a large table prefer batches: countercache.recount_step, or CALL countercache.run_recounts().
CREATE OR REPLACE FUNCTION countercache.recount(counter_id integer)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    fixed bigint;
BEGIN
    PERFORM countercache.require_read_committed('a recount',
        'run countercache.recount in a READ COMMITTED transaction (the default)');
    -- from the first key, under the job's row lock: waits for a recount of this counter in another session
    INSERT INTO countercache.recount_job AS j (counter_id) VALUES (recount.counter_id)
    ON CONFLICT ON CONSTRAINT recount_job_pkey DO UPDATE SET after_key = NULL, targets = 0, corrected = 0,
                                                           updated_at = NULL;
    SELECT s.corrected INTO fixed FROM countercache.recount_step(recount.counter_id, NULL) s;
    RETURN fixed;
END
$fn$;

-- Asks for a recount of every counter of a source table (or of one counter): the rollup workers run it in batches
-- between rounds, and CALL countercache.run_recounts() runs it at once.
CREATE OR REPLACE FUNCTION countercache.request_recount(counter_id integer)
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    INSERT INTO countercache.recount_job AS j (counter_id) VALUES (request_recount.counter_id)
    ON CONFLICT ON CONSTRAINT recount_job_pkey DO UPDATE SET after_key = NULL, targets = 0, corrected = 0,
                                                           requested_at = now(), updated_at = NULL
$fn$;

-- One batch of the oldest requested recount that can run now (see recount_step): the counter, whether it is done,
-- and how many target rows it checked and corrected; no row when none can. A recount another session holds is
-- passed over, and so is one whose tables are locked (an application's LOCK TABLE, a migration): its statement gives
-- up after the lock timeout, and the next job is tried. So the worker that calls it between rounds never waits long
-- for an application, and one locked table holds back neither the other recounts nor the rollup.
CREATE OR REPLACE FUNCTION countercache.recount_next(max_targets integer DEFAULT countercache.default_batch_size())
RETURNS TABLE (counter_id integer, done boolean, targets bigint, corrected bigint)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '200ms'
AS $fn$
DECLARE
    job integer;
BEGIN
    FOR job IN SELECT j.counter_id FROM countercache.recount_job j ORDER BY j.requested_at, j.counter_id LOOP
        BEGIN
            RETURN QUERY SELECT job, s.done, s.targets, s.corrected FROM countercache.recount_step(job, max_targets) s
                          WHERE s.done OR s.targets > 0;
            IF FOUND THEN
                RETURN;
            END IF;
        EXCEPTION WHEN lock_not_available THEN
            NULL;   -- a table of this counter is locked: the next job now, this one on a later call
        END;
    END LOOP;
END
$fn$;

-- Runs every requested recount to its end in batches of max_targets target keys, committing after each batch, so
-- no transaction is long and a stopped run resumes where it was, and rolls up after each batch, so that with no
-- other load the counters read exact when it returns. CALL it outside a transaction block (autocommit).
-- (A procedure with a SET clause cannot commit, so it pins search_path for each of its transactions itself, first
-- thing after each COMMIT; what it evaluates before that names pg_catalog's operators.)
-- Run by the schema's owner (the install's migrator), it reads with row_security off: a counted table whose
-- row-level security applies to that role would run its policies' code with the owner's rights and hide rows from the
-- count; instead the recount fails, saying so (the install's checks name the table and the fix, where the counter's
-- unit ran). A worker keeps row_security as it is: a policy may show it every row (docs/security.md).
CREATE OR REPLACE PROCEDURE countercache.run_recounts(max_targets integer DEFAULT countercache.default_batch_size())
LANGUAGE plpgsql
AS $fn$
DECLARE
    stepped bigint;
    as_owner boolean := EXISTS (SELECT FROM pg_catalog.pg_namespace n
                              WHERE n.nspname OPERATOR(pg_catalog.=) 'countercache'
                                AND pg_catalog.pg_has_role(n.nspowner, 'USAGE'));
BEGIN
    LOOP
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        EXIT WHEN NOT EXISTS (SELECT FROM countercache.recount_job);
        IF as_owner THEN
            PERFORM set_config('row_security', 'off', true);
        END IF;
        BEGIN
            SELECT count(*) INTO stepped FROM countercache.recount_next(max_targets);
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE EXCEPTION 'countercache: the recount cannot read what it counts as %: %', current_user, SQLERRM
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'ALTER ROLE ' || quote_ident(current_user) || ' BYPASSRLS (as a superuser) where'
                             ' row-level security is the cause, else grant it SELECT on the counted tables';
        END;
        COMMIT;
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        IF as_owner THEN
            PERFORM set_config('row_security', 'off', true);
        END IF;
        -- apply the batch's corrections, so counters read exact at the end (rollup() would start another batch)
        PERFORM FROM countercache.rollup_report(max_targets, false);
        COMMIT;
        IF stepped OPERATOR(pg_catalog.=) 0 THEN
            -- every recount is held by another session or its tables are locked; let them go on
            PERFORM pg_catalog.pg_sleep(0.05);
        END IF;
    END LOOP;
END
$fn$;
