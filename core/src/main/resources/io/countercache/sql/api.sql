-- The read side of the public SQL API: what tools, workers and applications read instead of the library's tables
-- (docs/architecture.md, "The SQL API", lists every function users call). The library's Java code names no table of
-- this schema; it calls these. Those an application may call run SECURITY DEFINER, so it needs EXECUTE on them and no
-- right on the tables they read.

-- The installed counters, with whether each counter column exists.
CREATE OR REPLACE FUNCTION countercache.counters()
RETURNS TABLE (id integer, name text, declared_by text, target_schema name, target_table name, target_key name,
               key_type text, target_column name, column_exists boolean, source_schema name, source_table name,
               source_fk name, condition text, sum_column name, strategy text, slots integer, scale integer,
               via_schema name, via_table name, via_key name, via_fk name, definition_hash text, changelog text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT k.id, k.name, k.declared_by, k.target_schema, k.target_table, k.target_key, k.key_type, k.target_column,
           countercache.column_type(k.target_schema, k.target_table, k.target_column) IS NOT NULL,
           k.source_schema, k.source_table, k.source_fk, k.condition, k.sum_column, k.strategy, k.slots, k.scale,
           k.via_schema, k.via_table, k.via_key, k.via_fk, k.definition_hash, k.changelog
      FROM countercache.counter k
     ORDER BY k.name
$fn$;

-- The installed limit counters.
CREATE OR REPLACE FUNCTION countercache.limits()
RETURNS TABLE (name text, period interval, default_limit bigint, time_zone text, retention integer, changelog text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT l.name, l.period, l.default_limit, l.time_zone, l.retention, l.changelog
      FROM countercache.limit_def l
     ORDER BY l.name
$fn$;

-- Read-your-writes: the exact values of one counter for these target keys (ids for integer and bigint keys, uuids for
-- uuid keys), the column plus what is pending for it (and, for a counter counted level by level, for the rows beneath
-- it: pending_through_sql), in the counter's own scale; for a min or max, its extreme read from the source by its
-- index (as a number, see as_number; NULL when no row counts). One statement, so one snapshot, taken (VOLATILE) after
-- the statement has locked the queue, whose generation take_generation may hold while it folds and truncates it:
-- every committed rollup is seen either in the column or in what is pending, never in both and never in neither; in
-- the caller's transaction it sees the caller's own writes. Keys of rows that do not exist are absent, except a
-- bucket's: the rollup has yet to make its row.
CREATE OR REPLACE FUNCTION countercache.exact(counter_id integer, ids bigint[] DEFAULT NULL, uuids uuid[] DEFAULT NULL)
RETURNS TABLE (target_id bigint, target_uuid uuid, value numeric)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
SET row_security = off   -- see counter_problems: a policy would run, or hide rows, as the owner
AS $fn$
DECLARE
    c countercache.counter := countercache.counter_of(exact.counter_id, 'countercache.exact');
    caller name := CASE WHEN current_setting('role') = 'none' THEN session_user ELSE current_setting('role') END;
BEGIN
    -- It reads the queue and the sources with the migrator's rights: it tells only a role that may read the counter's
    -- column what it holds. The caller's role is the one SET ROLE chose, else the login role (current_user is the
    -- migrator here).
    IF NOT has_column_privilege(caller, format('%I.%I', c.target_schema, c.target_table), c.target_column, 'SELECT') THEN
        RAISE EXCEPTION 'countercache.exact: role % may not read %.%.%, so it may not read the counter %', caller,
            c.target_schema, c.target_table, c.target_column, c.declared_by
            USING ERRCODE = 'insufficient_privilege',
                  HINT = format('GRANT SELECT (%I) ON %I.%I TO %I', c.target_column, c.target_schema, c.target_table,
                                caller);
    END IF;
    -- a bucket without a row yet is 0 and what is pending for it: its keys are read from the list, not the table
    RETURN QUERY EXECUTE format(
        $q$SELECT %1$s, %2$s, %10$s
             FROM %11$s
             LEFT JOIN (SELECT q.k, sum(q.amount) AS n FROM (%7$s) q WHERE q.k = ANY (%9$s) GROUP BY q.k) p
                    ON p.k = %8$s
            WHERE %8$s = ANY (%9$s)$q$,
        CASE WHEN c.key_type = 'uuid' THEN 'NULL::bigint' ELSE format('t.%I::bigint', c.target_key) END,
        CASE WHEN c.bucket_period IS NOT NULL THEN 'x.k'
             WHEN c.key_type = 'uuid' THEN format('t.%I', c.target_key) ELSE 'NULL::uuid' END,
        c.target_column, (10::numeric ^ c.scale)::bigint, c.target_schema, c.target_table,
        countercache.pending_through_sql(c),
        CASE WHEN c.bucket_period IS NOT NULL THEN 'x.k' ELSE format('t.%I', c.target_key) END,
        CASE WHEN c.key_type = 'uuid' THEN '$2' ELSE '$1' END,
        CASE WHEN c.aggregate IS NULL
             THEN format('(coalesce(t.%I, 0)::numeric + coalesce(p.n, 0) / %s)', c.target_column,
                         (10::numeric ^ c.scale)::bigint)
             ELSE format('countercache.as_number(%s)', countercache.extreme_sql(c, format('t.%I', c.target_key))) END,
        CASE WHEN c.bucket_period IS NOT NULL
             THEN format('unnest($2::uuid[]) AS x(k) LEFT JOIN %I.%I t ON t.%I = x.k', c.target_schema, c.target_table,
                         c.target_key)
             ELSE format('%I.%I t', c.target_schema, c.target_table) END)
        USING ids, uuids;
    PERFORM countercache.require_generations_seen('countercache.exact');
END
$fn$;

-- Per counter: deltas waiting (queued in either queue, and non-zero slots) and the age of the oldest, dead letters,
-- orphans, whether a recount runs and how far it has come, and whether all its triggers are in place.
CREATE OR REPLACE FUNCTION countercache.status()
RETURNS TABLE (counter_id integer, name text, declared_by text, strategy text, waiting bigint,
               oldest_seconds double precision, dead_letters bigint, orphans bigint, recounting boolean,
               recount_targets bigint, triggers_ok boolean)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    c countercache.counter;
BEGIN
    FOR c IN SELECT * FROM countercache.counter k ORDER BY k.name LOOP
        counter_id := c.id; name := c.name; declared_by := c.declared_by; strategy := c.strategy;
        EXECUTE format($q$SELECT count(*) FILTER (WHERE p.place IN ('queue', 'unlogged queue', 'value queue')
                                                     OR (p.place = 'slot' AND p.amount <> 0)),
                                 coalesce(extract(epoch FROM now() - min(p.since)
                                          FILTER (WHERE p.place IN ('queue', 'unlogged queue', 'value queue'))), 0)::float8,
                                 count(*) FILTER (WHERE p.place = 'dead letter'),
                                 count(*) FILTER (WHERE p.place = 'orphan')
                            FROM (%s) p$q$, countercache.pending_sql(c))
            INTO waiting, oldest_seconds, dead_letters, orphans;
        SELECT true, j.targets INTO recounting, recount_targets FROM countercache.recount_job j WHERE j.counter_id = c.id;
        recounting := coalesce(recounting, false);
        recount_targets := coalesce(recount_targets, 0);
        triggers_ok := NOT EXISTS (SELECT FROM countercache.trigger_problems() t WHERE t.counter = c.name);
        RETURN NEXT;
    END LOOP;
END
$fn$;

-- The lowest and highest id in the queues and the queue of values (both NULL when they are empty): a drain waits
-- until every delta queued before it began is gone.
CREATE OR REPLACE FUNCTION countercache.queue_bounds()
RETURNS TABLE (first_id bigint, last_id bigint)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT least((SELECT min(d.id) FROM countercache.delta d), (SELECT min(u.id) FROM countercache.delta_unlogged u),
                 (SELECT min(v.id) FROM countercache.distinct_delta v)),
           greatest((SELECT max(d.id) FROM countercache.delta d), (SELECT max(u.id) FROM countercache.delta_unlogged u),
                    (SELECT max(v.id) FROM countercache.distinct_delta v))
$fn$;

-- Whether any changelog still has counters or limits here (the schema's rollback drops it only when none has).
CREATE OR REPLACE FUNCTION countercache.in_use()
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT EXISTS (SELECT FROM countercache.counter) OR EXISTS (SELECT FROM countercache.limit_def)
$fn$;

-- How far the requested recounts have come: how many run, and the target keys they have checked so far (all of
-- them together), for dashboards. Cheap: it reads the recount jobs only.
CREATE OR REPLACE FUNCTION countercache.recount_progress()
RETURNS TABLE (running bigint, targets bigint)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT count(*), coalesce(sum(j.targets), 0)::bigint FROM countercache.recount_job j
$fn$;
