-- Buckets: counters kept in rows of their own, one per parent and period (@CounterCache(bucket = ...)): comments per
-- article per day. The target is a table keyed by (parent, bucket start); the rollup creates its rows.
--
-- A bucket row's key is its parent's key and its bucket's start packed into one uuid (keys.sql): the high 64 bits are
-- the parent key, the low 64 the start's seconds since the epoch (a date's midnight and a timestamp's wall time read
-- as UTC). The queue, the orphans, the dead letters, the target triggers, the recount and drift then treat it as any
-- uuid key; what is particular to buckets is here: the key of a source row (bucket_key_sql), the rows a round must
-- create before it applies (bucket_rows_sql), and the problems of a declaration (bucket_problems).

-- The key of the bucket that starts at a time, of a parent. These three run in every capture of a counter per bucket,
-- so they are inlined into the capture's queries: SQL bodies of one expression, with no SET clause (a function with
-- one is never inlined), bound when created to the objects they name, each qualified with pg_catalog, so that no
-- search_path can change what they call. Seconds since the epoch of a timestamptz by interval arithmetic: extract of
-- a timestamptz is STABLE, and an IMMUTABLE function with a STABLE call in it is not inlined.
CREATE OR REPLACE FUNCTION countercache.bucket_key(parent bigint, bucket timestamptz)
RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN countercache.pair_key(parent, CAST(pg_catalog.floor(EXTRACT(epoch FROM bucket OPERATOR(pg_catalog.-)
                                              TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00')) AS bigint));
CREATE OR REPLACE FUNCTION countercache.bucket_key(parent bigint, bucket timestamp)
RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN countercache.bucket_key(parent, bucket AT TIME ZONE 'UTC');
CREATE OR REPLACE FUNCTION countercache.bucket_key(parent bigint, bucket date)
RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN countercache.bucket_key(parent, CAST(bucket AS timestamp) AT TIME ZONE 'UTC');

-- The bucket's start that a key packs (key_parent reads its parent).
CREATE OR REPLACE FUNCTION countercache.key_start(key uuid)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT to_timestamp(('x' || right(encode(uuid_send(key), 'hex'), 16))::bit(64)::bigint)
$fn$;

-- A period's start (an expression of type timestamptz) as bucket counter c's table keeps it: in the type of its bucket
-- column, a date or a timestamp being the start's wall time in the counter's zone.
CREATE OR REPLACE FUNCTION countercache.as_start_sql(c countercache.counter, start text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE countercache.column_type(c.target_schema, c.target_table, c.bucket_column)
                WHEN 'timestamptz'::regtype THEN start
                WHEN 'date'::regtype THEN format('(%s AT TIME ZONE %L)::date', start, c.bucket_zone)
                ELSE format('(%s AT TIME ZONE %L)', start, c.bucket_zone) END
$fn$;

-- Retention: the buckets of counter c that are kept are those whose start is at or after this cutoff, as key_start
-- reads it from their keys: the start of the period retention periods before the current one. NULL: all are kept.
-- The window moves with time, so stored + pending = recount is kept for the buckets in it (drift and the recount
-- read only those, in_batch_sql); a round consumes the deltas of older ones without effect, and prune_buckets
-- deletes their rows, queued deltas, orphans and dead letters.
CREATE OR REPLACE FUNCTION countercache.bucket_cutoff(c countercache.counter)
RETURNS timestamptz
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    cutoff timestamptz;
BEGIN
    IF c.bucket_retention IS NULL THEN
        RETURN NULL;
    END IF;
    EXECUTE format('SELECT countercache.key_start(countercache.bucket_key(0, %s))',
                   countercache.as_start_sql(c, '$1'))
        INTO cutoff
        -- counted back on the counter's clock: the session's time zone would move it by an hour across a DST change
        USING (countercache.period_start(c.bucket_period, c.bucket_zone, now()) AT TIME ZONE c.bucket_zone
               - c.bucket_period * c.bucket_retention) AT TIME ZONE c.bucket_zone;
    RETURN cutoff;
END
$fn$;

-- Deletes, for each bucket table with a retention, at most max_rows of its rows older than the window, and every
-- queued delta, orphan and dead letter of buckets that old (the hand-backs the deleted rows' target trigger just
-- queued among them), in one transaction: the amounts leave both sides of stored + pending = recount, which is no
-- longer kept for them. Rows and deltas a round holds are skipped (SKIP LOCKED), never waited for; a later call
-- takes what a round re-creates. Returns the rows deleted.
CREATE OR REPLACE FUNCTION countercache.prune_buckets(max_rows integer DEFAULT countercache.default_batch_size())
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '200ms'
AS $fn$
DECLARE
    c countercache.counter;
    cutoff timestamptz;
    mine integer[];
    gone bigint;
    total bigint := 0;
    place name;
BEGIN
    FOR c IN SELECT DISTINCT ON (k.target_schema, k.target_table) k.* FROM countercache.counter k
              WHERE k.bucket_retention IS NOT NULL ORDER BY k.target_schema, k.target_table, k.id LOOP
        cutoff := countercache.bucket_cutoff(c);
        mine := ARRAY(SELECT k.id FROM countercache.counter k
                       WHERE k.target_schema = c.target_schema AND k.target_table = c.target_table);
        BEGIN
            EXECUTE format($q$WITH old AS (
                                  SELECT t.ctid, t.tableoid FROM %1$I.%2$I t WHERE countercache.key_start(t.%3$I) < $1
                                   LIMIT $2 FOR UPDATE OF t SKIP LOCKED
                              ), gone AS (   -- a ctid names a row within its partition
                                  DELETE FROM %1$I.%2$I t USING old
                                   WHERE t.ctid = old.ctid AND t.tableoid = old.tableoid RETURNING 1
                              )
                              SELECT count(*) FROM gone$q$, c.target_schema, c.target_table, c.target_key)
                INTO gone USING cutoff, max_rows;
            total := total + gone;
            FOREACH place IN ARRAY ARRAY['delta', 'delta_unlogged', 'orphan', 'dead_letter'] LOOP
                -- a round claiming alone holds the queues (see rollup_report): their old buckets wait for a later call
                IF place IN ('delta', 'delta_unlogged') THEN
                    PERFORM FROM countercache.queue_claim FOR SHARE SKIP LOCKED;
                    CONTINUE WHEN NOT FOUND AND EXISTS (SELECT FROM countercache.queue_claim);
                END IF;
                -- a ctid names a row within its table: the queue's generations inherit it
                EXECUTE format($q$DELETE FROM countercache.%1$I q USING (
                                      SELECT p.tableoid, p.ctid FROM countercache.%1$I p
                                       WHERE p.counter_id = ANY ($1) AND countercache.key_start(p.target_uuid) < $2
                                         FOR UPDATE SKIP LOCKED) old
                                   WHERE q.ctid = old.ctid AND q.tableoid = old.tableoid$q$, place)
                    USING mine, cutoff;
            END LOOP;
        EXCEPTION
            WHEN lock_not_available THEN
                NULL;   -- DDL holds the table: its old buckets wait for a later call
            WHEN insufficient_privilege THEN
                RAISE WARNING 'countercache: the worker may not prune %.%: % (its old buckets stay)', c.target_schema,
                    c.target_table, SQLERRM USING HINT = 'grant the worker what docs/security.md lists for it; if the message'
                    ' names row-level security, do what docs/security.md says of it (the status command, or the'
                    ' worker as it starts, names the table and the fix)';
        END;
    END LOOP;
    RETURN total;
END
$fn$;

-- The key a source row (aliased as the source table) counts for under bucket counter c: its parent, and the start of
-- the period that holds its time, aligned in the counter's zone (period_start, as limits align), in the type of the
-- target's bucket column. A time without zone is a wall time in that zone; a row whose time is NULL counts for no
-- bucket (counts_sql).
CREATE OR REPLACE FUNCTION countercache.bucket_key_sql(c countercache.counter)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format('countercache.bucket_key(%I.%I, %s)', c.source_table, c.source_fk,
                  countercache.as_start_sql(c, s.start))
      FROM (SELECT format('countercache.period_start(%L::interval, %L, %s)', c.bucket_period, c.bucket_zone,
                          CASE countercache.column_type(c.source_schema, c.source_table, c.bucket_source)
                               WHEN 'timestamptz'::regtype THEN format('%I.%I', c.source_table, c.bucket_source)
                               WHEN 'date'::regtype
                               THEN format('(%I.%I::timestamp AT TIME ZONE %L)', c.source_table, c.bucket_source,
                                           c.bucket_zone)
                               ELSE format('(%I.%I AT TIME ZONE %L)', c.source_table, c.bucket_source, c.bucket_zone)
                          END) AS start) s
$fn$;

-- The table and key a bucket table's parent column points at by its foreign key constraint (no row without one).
CREATE OR REPLACE FUNCTION countercache.bucket_parent_table(c countercache.counter)
RETURNS TABLE (tbl regclass, key name)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT k.confrelid::regclass, a.attname
      FROM pg_constraint k
      JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = k.confkey[1]
     WHERE k.contype = 'f' AND cardinality(k.conkey) = 1
       AND k.conrelid = to_regclass(format('%I.%I', c.target_schema, c.target_table))
       AND k.conkey[1] = (SELECT x.attnum FROM pg_attribute x
                           WHERE x.attrelid = k.conrelid AND x.attname = c.bucket_parent)
     ORDER BY k.oid
     LIMIT 1
$fn$;

-- Of these parents of bucket counter counter_id's rows, those that exist and that no transaction holds in a mode that
-- conflicts with FOR KEY SHARE (FOR UPDATE, a delete, a key change), locked FOR KEY SHARE SKIP LOCKED in key order
-- until the end of the transaction: the lock a foreign key check takes, taken without waiting. All of them when the
-- bucket table has no foreign key constraint on its parent. SECURITY DEFINER: a row lock needs a right to update the
-- table, which the worker has no need of otherwise; the table is the one the catalog's counter points at.
CREATE OR REPLACE FUNCTION countercache.lock_parents(counter_id integer, parents bigint[])
RETURNS bigint[]
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET row_security = off   -- see counter_problems: a policy would run, or hide rows, as the owner
AS $fn$
DECLARE
    c countercache.counter;
    p record;
    locked bigint[];
BEGIN
    SELECT * INTO c FROM countercache.counter k WHERE k.id = lock_parents.counter_id AND k.bucket_period IS NOT NULL;
    SELECT * INTO p FROM countercache.bucket_parent_table(c);
    IF NOT FOUND THEN
        RETURN parents;
    END IF;
    EXECUTE format('SELECT coalesce(array_agg(x.k), ''{}'') FROM (SELECT p.%2$I::bigint AS k FROM %1$s p'
                   ' WHERE p.%2$I = ANY ($1) ORDER BY 1 FOR KEY SHARE OF p SKIP LOCKED) x', p.tbl, p.key)
        INTO locked USING parents;
    RETURN locked;
END
$fn$;

-- The statement that creates the rows a round is about to apply to and that do not exist yet, on a bucket table
-- (NULL for any other): $1 counters, $2 uuid keys, $3 sums of the claimed deltas, $4 the counters of this table to
-- apply, $5 one key (as text) to restrict to, or NULL. A row starts at 0 in every counter (the target trigger queues
-- nothing for it) and the applying statement that follows adds the sums, like any row's. Only keys with a sum to add
-- (a sum of 0 makes no row) whose parent exists: the statement first locks the parents (lock_parents) as the insert's
-- foreign key check will, so that check finds the lock held and never waits for an application that holds a parent
-- FOR UPDATE; a parent that is missing or so held gets no row this round, and the applying statement moves its sums
-- to the orphans, adopted once the parent exists and is free.
-- Two rounds that create one row: the second waits for the first's index entry, then leaves the row to it (ON
-- CONFLICT DO NOTHING) and applies to it once it sees it committed; both insert in key order, so they cannot wait
-- for each other in a cycle, and the round's lock timeout bounds the wait (the table is given up, its deltas stay
-- queued in their place).
CREATE OR REPLACE FUNCTION countercache.bucket_rows_sql(target_schema name, target_table name)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format(
        $q$WITH u AS (
               SELECT DISTINCT u.tu AS k FROM unnest($1::integer[], $2::uuid[], $3::bigint[]) AS u(c, tu, d)
                WHERE u.c = ANY ($4) AND u.d <> 0 AND ($5::text IS NULL OR u.tu::text = $5)
                  AND NOT EXISTS (SELECT FROM %1$I.%2$I t WHERE t.%5$I = u.tu)
           ), free AS (
               %7$s
           )
           INSERT INTO %1$I.%2$I (%3$I, %4$I)
           SELECT countercache.key_parent(u.k), %6$s FROM u
            WHERE countercache.key_parent(u.k) IN (SELECT f.parent FROM free f)
            ORDER BY u.k
           ON CONFLICT DO NOTHING$q$,
        c.target_schema, c.target_table, c.bucket_parent, c.bucket_column, c.target_key,
        CASE countercache.column_type(c.target_schema, c.target_table, c.bucket_column)
             WHEN 'timestamptz'::regtype THEN 'countercache.key_start(u.k)'
             WHEN 'date'::regtype THEN $$(countercache.key_start(u.k) AT TIME ZONE 'UTC')::date$$
             ELSE $$countercache.key_start(u.k) AT TIME ZONE 'UTC'$$ END,
        format('SELECT unnest(countercache.lock_parents(%s, ARRAY(SELECT countercache.key_parent(u.k) FROM u)))'
               ' AS parent', c.id))
      FROM countercache.counter c
     WHERE c.target_schema = bucket_rows_sql.target_schema AND c.target_table = bucket_rows_sql.target_table
       AND c.bucket_period IS NOT NULL
     ORDER BY c.id
     LIMIT 1
$fn$;

-- The problems only a bucket counter can have (counter_problems checks the rest).
CREATE OR REPLACE FUNCTION countercache.bucket_problems(c countercache.counter)
RETURNS TABLE (problem text, fix text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    d constant text := '@CounterCache on ' || c.declared_by;
    t regtype;
    other countercache.counter;
BEGIN
    IF c.strategy NOT IN ('queue', 'unlogged') THEN
        RETURN QUERY SELECT d || ': ' || format('strategy %s cannot keep a counter per bucket', c.strategy),
            'use strategy QUEUE or UNLOGGED: the rollup creates the bucket rows, which a writer must not wait on';
    END IF;
    IF c.via_table IS NOT NULL OR c.aggregate IS NOT NULL OR c.distinct_column IS NOT NULL THEN
        RETURN QUERY SELECT d || ': a counter per bucket counts or sums rows of a source that points straight at the'
            || ' parent', 'leave out min, max and distinct, and name a many-to-one of the source (not a path) with via';
    END IF;
    IF c.key_type <> 'uuid' THEN
        RETURN QUERY SELECT d || ': ' || format('key type %s is not a bucket''s', c.key_type),
            'regenerate the changelog: a bucket row''s key is a uuid the library keeps';
    END IF;
    RETURN QUERY SELECT d || ': bucket period ' || x.p, 'give a positive period of whole units, as "1 hour" or "1 day"'
      FROM (SELECT countercache.period_problem(c.bucket_period) AS p) x WHERE x.p IS NOT NULL;
    IF NOT EXISTS (SELECT FROM pg_timezone_names z WHERE z.name = c.bucket_zone) THEN
        RETURN QUERY SELECT d || ': ' || format('time zone %L is unknown', c.bucket_zone),
            'name a zone of pg_timezone_names, as "UTC" or "Europe/Paris"';
    END IF;
    t := countercache.column_type(c.source_schema, c.source_table, c.bucket_source);
    IF to_regclass(format('%I.%I', c.source_schema, c.source_table)) IS NOT NULL
       AND (t IS NULL OR t NOT IN ('timestamptz'::regtype, 'timestamp'::regtype, 'date'::regtype)) THEN
        RETURN QUERY SELECT d || ': ' || format('bucket column %I.%I.%I is %s', c.source_schema, c.source_table,
            c.bucket_source, coalesce(t::text, 'missing')),
            'bucket by a time of the source: a timestamp with or without time zone, or a date';
    END IF;
    IF to_regclass(format('%I.%I', c.target_schema, c.target_table)) IS NULL THEN
        RETURN;
    END IF;
    t := countercache.column_type(c.target_schema, c.target_table, c.bucket_column);
    IF t IS NULL OR t NOT IN ('timestamptz'::regtype, 'timestamp'::regtype, 'date'::regtype) THEN
        RETURN QUERY SELECT d || ': ' || format('bucket start %I.%I.%I is %s', c.target_schema, c.target_table,
            c.bucket_column, coalesce(t::text, 'missing')),
            'keep the bucket''s start in a timestamp with or without time zone, or a date';
    ELSIF t = 'date'::regtype AND c.bucket_period < interval '1 day' THEN
        RETURN QUERY SELECT d || ': ' || format('bucket start %I.%I.%I is a date, too coarse for a period of %s',
            c.target_schema, c.target_table, c.bucket_column, c.bucket_period),
            'keep the start of a period shorter than a day in a timestamp';
    END IF;
    t := countercache.column_type(c.target_schema, c.target_table, c.bucket_parent);
    IF t IS NULL OR t NOT IN ('integer'::regtype, 'bigint'::regtype) THEN
        RETURN QUERY SELECT d || ': ' || format('bucket parent %I.%I.%I is %s', c.target_schema, c.target_table,
            c.bucket_parent, coalesce(t::text, 'missing')),
            'a bucket row points at a parent with an integer or bigint key';
    END IF;
    RETURN QUERY SELECT * FROM countercache.packed_key_problems(c);
    SELECT * INTO other FROM countercache.counter k
     WHERE k.target_schema = c.target_schema AND k.target_table = c.target_table AND k.id <> c.id
       -- periods as written: interval's = takes '1 month' for '30 days'
       AND (k.bucket_parent, k.bucket_column, k.bucket_period::text, k.bucket_zone, k.bucket_retention)
           IS DISTINCT FROM (c.bucket_parent, c.bucket_column, c.bucket_period::text, c.bucket_zone, c.bucket_retention)
     ORDER BY k.id LIMIT 1;
    IF FOUND THEN
        RETURN QUERY SELECT d || ': ' || format('%s keeps the rows of %I.%I by another parent, bucket, period or'
            ' retention', other.declared_by, c.target_schema, c.target_table),
            'give every counter of a bucket table the same parent, period, time zone and retention (or a table of '
            'its own)';
    END IF;
END
$fn$;
