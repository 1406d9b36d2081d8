-- countercache-unit: countercache-schema
-- countercache schema: the catalog, the delta queue and the functions that maintain counters.
-- Idempotent: every statement can run again on a database that already has it.
-- Every function pins search_path and every identifier taken from the catalog is quoted with format('%I'); the
-- column defaults and checks below name pg_catalog's functions and operators, so a migrator whose search_path puts
-- another schema first cannot bind them to look-alikes.

CREATE SCHEMA IF NOT EXISTS countercache;

-- The catalog: one row per installed counter, so that workers and tools need only a database connection.
CREATE TABLE IF NOT EXISTS countercache.counter (
    id              integer     PRIMARY KEY,
    name            text        NOT NULL UNIQUE,   -- schema.table.column of the counter column
    declared_by     text        NOT NULL,          -- Entity.field that declares it, for messages
    target_schema   name        NOT NULL,
    target_table    name        NOT NULL,
    target_key      name        NOT NULL,
    key_type        text        NOT NULL CHECK (key_type OPERATOR(pg_catalog.=) ANY (ARRAY['integer', 'bigint', 'uuid'])),
    target_column   name        NOT NULL,
    source_schema   name        NOT NULL,
    source_table    name        NOT NULL,
    source_fk       name        NOT NULL,
    condition       text,
    sum_column      name,
    strategy        text        NOT NULL DEFAULT 'queue',
    definition_hash text        NOT NULL,
    defined_at      timestamptz NOT NULL DEFAULT pg_catalog.now()
);

-- The queue. Writers only ever INSERT here, in their own transaction; the rollup deletes what it applies.
-- A row names its counter by id and its target by key: integer and bigint keys in target_id, uuid keys in target_uuid.
CREATE TABLE IF NOT EXISTS countercache.delta (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    counter_id  integer     NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    delta       bigint      NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);

-- How many slot rows a slotted counter spreads a target over (0 for the other strategies).
ALTER TABLE countercache.counter ADD COLUMN IF NOT EXISTS slots integer NOT NULL DEFAULT 0;
-- The changelog that installed the counter ('' before changelogs had names): a changelog prunes only its own.
ALTER TABLE countercache.counter ADD COLUMN IF NOT EXISTS changelog text NOT NULL DEFAULT '';
-- A counter along a path: source_fk points at via_key of the middle table, whose via_fk points at the target key.
ALTER TABLE countercache.counter ADD COLUMN IF NOT EXISTS via_schema name;
ALTER TABLE countercache.counter ADD COLUMN IF NOT EXISTS via_table name;
ALTER TABLE countercache.counter ADD COLUMN IF NOT EXISTS via_key name;
ALTER TABLE countercache.counter ADD COLUMN IF NOT EXISTS via_key_type text;
ALTER TABLE countercache.counter ADD COLUMN IF NOT EXISTS via_fk name;
-- The decimal places of a numeric sum: its amounts are queued as bigint units of 10^-scale (0: plain integers).
ALTER TABLE countercache.counter ADD COLUMN IF NOT EXISTS scale integer NOT NULL DEFAULT 0;

-- The unlogged queue, for counters of strategy 'unlogged' (depesz's faster queue): the same rows as the queue, ids
-- from the same sequence, no WAL. A crash or an immediate shutdown empties it, and with it unlogged_marker; the first
-- rollup after that notices the missing marker and recounts those counters (see check_unlogged_queue).
CREATE UNLOGGED TABLE IF NOT EXISTS countercache.delta_unlogged (
    id          bigint      PRIMARY KEY DEFAULT pg_catalog.nextval('countercache.delta_id_seq'::pg_catalog.regclass),
    counter_id  integer     NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    delta       bigint      NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
CREATE UNLOGGED TABLE IF NOT EXISTS countercache.unlogged_marker (
    since timestamptz NOT NULL DEFAULT pg_catalog.now()
);
-- Until a counter uses the unlogged queue, a crash can take nothing from it: the marker is set without a recount.
INSERT INTO countercache.unlogged_marker
SELECT WHERE NOT EXISTS (SELECT FROM countercache.unlogged_marker)
         AND NOT EXISTS (SELECT FROM countercache.counter k WHERE k.strategy OPERATOR(pg_catalog.=) 'unlogged');

-- Slot rows, for counters of strategy 'slotted' (GitHub's slotted counters, Tobias Petry's fanout): a writer adds
-- its delta to one of the target's N slots, one no other transaction holds if it can; the rollup moves non-zero slots
-- to the queue and zeroes them. fillfactor leaves room for those updates to stay HOT.
CREATE TABLE IF NOT EXISTS countercache.slot (
    counter_id  integer  NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    slot        smallint NOT NULL,
    n           bigint   NOT NULL,
    CONSTRAINT slot_key UNIQUE NULLS NOT DISTINCT (counter_id, target_id, target_uuid, slot)
) WITH (fillfactor = 50);

-- Deltas that cannot be applied (the new value overflows the column, breaks a CHECK constraint, fails a trigger of
-- the target table): parked here with the error instead of blocking the queue. Nothing is dropped silently.
CREATE TABLE IF NOT EXISTS countercache.dead_letter (
    id                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    counter_id        integer     NOT NULL,
    target_id         bigint,
    target_uuid       uuid,
    delta             bigint      NOT NULL,
    deltas            bigint      NOT NULL,   -- how many queued deltas were folded into delta
    first_enqueued_at timestamptz NOT NULL,
    failed_at         timestamptz NOT NULL DEFAULT pg_catalog.now(),
    sqlstate          text        NOT NULL,
    error             text        NOT NULL
);

-- Deltas whose target row does not exist: a deleted target's leftovers, or rows that point at a key no target row
-- has yet. Parked here rather than dropped, so that the sum of a key's column, queue, dead letters and orphans always
-- equals its recount; the rollup moves them back to the queue once a row with that key exists.
CREATE TABLE IF NOT EXISTS countercache.orphan (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    counter_id  integer     NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    delta       bigint      NOT NULL,
    enqueued_at timestamptz NOT NULL
);

-- Recounts in progress, one row per counter: the last target key done, so that a recount in batches can stop and
-- resume, and how far it has come.
CREATE TABLE IF NOT EXISTS countercache.recount_job (
    counter_id   integer     PRIMARY KEY,
    after_key    text,                          -- the last target key done; NULL before the first batch
    targets      bigint      NOT NULL DEFAULT 0, -- target rows checked so far
    corrected    bigint      NOT NULL DEFAULT 0, -- keys whose value needed a correction
    requested_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    updated_at   timestamptz
);

-- Raises the error that names the counter, what is wrong and how to fix it.
CREATE OR REPLACE FUNCTION countercache.fail(declared_by text, problem text, fix text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    RAISE EXCEPTION '@CounterCache on %: %', declared_by, problem
        USING HINT = fix, ERRCODE = 'invalid_parameter_value';
END
$fn$;

-- The type of a column, or NULL when the table or the column does not exist.
CREATE OR REPLACE FUNCTION countercache.column_type(tbl_schema name, tbl name, col name)
RETURNS regtype
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT a.atttypid::regtype
      FROM pg_attribute a
     WHERE a.attrelid = to_regclass(format('%I.%I', tbl_schema, tbl))
       AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped
$fn$;

-- The scale of a numeric(p,s) column (NULL for an unconstrained numeric or a missing column), and a column's type
-- as DDL spells it.
CREATE OR REPLACE FUNCTION countercache.column_scale(tbl_schema name, tbl name, col name)
RETURNS integer
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN a.atttypmod >= 4 THEN (a.atttypmod - 4) & 65535 END
      FROM pg_attribute a
     WHERE a.attrelid = to_regclass(format('%I.%I', tbl_schema, tbl))
       AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped AND a.atttypid = 'numeric'::regtype
$fn$;
CREATE OR REPLACE FUNCTION countercache.column_format(tbl_schema name, tbl name, col name)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format_type(a.atttypid, a.atttypmod)
      FROM pg_attribute a
     WHERE a.attrelid = to_regclass(format('%I.%I', tbl_schema, tbl))
       AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped
$fn$;

DROP FUNCTION IF EXISTS countercache.require_table(text, text, name, name);
DROP FUNCTION IF EXISTS countercache.require_type(text, text, name, name, name, text, text, text);

-- "<what> s.t.c is <type>, <says> <expected>" unless the column exists with the expected type, else NULL.
CREATE OR REPLACE FUNCTION countercache.type_problem(what text, tbl_schema name, tbl name, col name, expected text,
                                                     says text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format('%s %I.%I.%I is %s, %s %s', what, tbl_schema, tbl, col, coalesce(x.t::text, 'missing'), says, expected)
      FROM (SELECT countercache.column_type(tbl_schema, tbl, col) AS t) x
     WHERE x.t IS NULL OR x.t::text <> expected
$fn$;

-- Raises a clear error unless the transaction is READ COMMITTED. Maintenance that must see every committed row (a
-- recount's correction, the rows a TRUNCATE removes) takes its snapshot after its lock; under REPEATABLE READ or
-- SERIALIZABLE the snapshot is the transaction's first one, which can be older than a committed write.
CREATE OR REPLACE FUNCTION countercache.require_read_committed(what text, fix text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'countercache: % cannot be counted exactly in a % transaction', what,
                        upper(current_setting('transaction_isolation'))
            USING HINT = fix, ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
END
$fn$;

-- The catalog row of a counter, or an error naming the caller and how to list the counters.
CREATE OR REPLACE FUNCTION countercache.counter_of(counter_id integer, caller text)
RETURNS countercache.counter
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    c countercache.counter;
BEGIN
    SELECT * INTO c FROM countercache.counter k WHERE k.id = counter_of.counter_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION '%: no counter with id %', caller, counter_of.counter_id
            USING HINT = 'SELECT id, name FROM countercache.counter lists the installed counters',
                  ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN c;
END
$fn$;

-- The query that compares a counter with a recount of its source, for the keys in ($1, $2] ($1 or $2 NULL: open),
-- $3 the counter's id: CTEs r (the recount), t (the column), p (what is pending: queued in either queue, in slots,
-- dead-lettered or orphaned) and fix
-- (per key: exact, stored, pending and the difference d = exact - stored - pending). One statement, one snapshot.
CREATE OR REPLACE FUNCTION countercache.drift_sql(c countercache.counter)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format(
        $q$WITH r AS (
               SELECT %6$s AS k, sum(s.n) AS n
                 FROM (SELECT %4$I.%5$I AS f, %7$s AS n FROM %3$I.%4$I AS %4$I
                        WHERE %4$I.%5$I IS NOT NULL AND (%8$s)) s %9$s
                WHERE ($1::%11$s IS NULL OR %6$s > $1::%11$s) AND ($2::%11$s IS NULL OR %6$s <= $2::%11$s)
                GROUP BY 1
           ), t AS (
               SELECT t.%12$I AS k, coalesce(t.%13$I, 0)::numeric * %14$s AS n
                 FROM %1$I.%2$I t
                WHERE ($1::%11$s IS NULL OR t.%12$I > $1::%11$s) AND ($2::%11$s IS NULL OR t.%12$I <= $2::%11$s)
           ), p AS (
               SELECT x.k, sum(x.delta) AS n FROM (
                   SELECT q.%10$I AS k, q.delta FROM countercache.delta q WHERE q.counter_id = $3
                   UNION ALL
                   SELECT q.%10$I, q.delta FROM countercache.delta_unlogged q WHERE q.counter_id = $3
                   UNION ALL
                   SELECT q.%10$I, q.n FROM countercache.slot q WHERE q.counter_id = $3
                   UNION ALL
                   SELECT q.%10$I, q.delta FROM countercache.dead_letter q WHERE q.counter_id = $3
                   UNION ALL
                   SELECT q.%10$I, q.delta FROM countercache.orphan q WHERE q.counter_id = $3) x
                WHERE ($1::%11$s IS NULL OR x.k > $1::%11$s) AND ($2::%11$s IS NULL OR x.k <= $2::%11$s)
                GROUP BY 1
           ), fix AS (
               SELECT coalesce(r.k, t.k, p.k) AS k, coalesce(r.n, 0) AS exact, t.n AS stored, coalesce(p.n, 0) AS pending,
                      coalesce(r.n, 0) - coalesce(t.n, 0) - coalesce(p.n, 0) AS d
                 FROM r FULL JOIN t ON t.k = r.k FULL JOIN p ON p.k = coalesce(r.k, t.k)
           )$q$,
        c.target_schema, c.target_table, c.source_schema, c.source_table, c.source_fk,
        CASE WHEN c.via_table IS NULL THEN 's.f' ELSE format('v.%I', c.via_fk) END,
        CASE WHEN c.sum_column IS NULL THEN '1'
             ELSE format('coalesce(%I.%I, 0) * %s', c.source_table, c.sum_column, (10::numeric ^ c.scale)::bigint) END,
        coalesce(c.condition, 'true'),
        CASE WHEN c.via_table IS NOT NULL
             THEN format('JOIN %I.%I v ON v.%I = s.f AND v.%I IS NOT NULL', c.via_schema, c.via_table, c.via_key, c.via_fk)
             ELSE '' END,
        CASE WHEN c.key_type = 'uuid' THEN 'target_uuid' ELSE 'target_id' END, c.key_type,
        c.target_key, c.target_column, (10::numeric ^ c.scale)::bigint)
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
        || ' WHERE f.d <> 0 AND f.stored IS NOT NULL ORDER BY f.k LIMIT $4'
        USING NULL::text, NULL::text, c.id, max_rows, (10::numeric ^ c.scale)::bigint;
END
$fn$;

-- One batch of a counter's recount: the next max_targets target keys after the last batch (all of them when
-- max_targets is NULL). Returns done when the counter's whole key range has been covered.
--
-- A recount never writes a counter column and never locks a source or target row. In one statement, so in one
-- snapshot S, it computes for every key k of the batch's range
--     correction(k) = recount(S, k) - (column(S, k) + queue(S, k) + dead letters(S, k) + orphans(S, k))
-- (queue: the logged and the unlogged queue and the slots, whatever the counter's strategy writes to)
-- and queues the non-zero corrections as ordinary deltas. Every committed transaction changes a key's recount and
-- its column + queue + dead letters + orphans by the same amount (writers through the capture triggers, target
-- inserts and deletes through the target triggers; the rollup only moves amounts between the four), so the
-- difference seen in S is exactly the drift of the transactions S sees, and transactions S does not see are counted
-- by their own deltas. Two recounts of one counter must not both correct the same drift: each takes the counter's
-- advisory lock before the statement that takes S, so the second one's S sees the first one's correction.
-- The counter's dead letters in the range go back to the queue in the same statement (moving an amount keeps the
-- sum), so a fixed cause is retried. Full argument: docs/architecture.md, "Maintenance is a correction".
CREATE OR REPLACE FUNCTION countercache.recount_step(counter_id integer, max_targets integer DEFAULT 10000)
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
    IF NOT pg_try_advisory_xact_lock(1668248948, c.id) THEN
        done := false; targets := 0; corrected := 0;   -- another session is recounting this counter
        RETURN NEXT;
        RETURN;
    END IF;
    INSERT INTO countercache.recount_job AS j (counter_id) VALUES (c.id) ON CONFLICT ON CONSTRAINT recount_job_pkey DO NOTHING;
    SELECT j.after_key INTO after_key FROM countercache.recount_job j WHERE j.counter_id = c.id;
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
    kc := CASE WHEN c.key_type = 'uuid' THEN 'target_uuid' ELSE 'target_id' END;
    EXECUTE countercache.drift_sql(c) || format(
        $q$, retried AS (
               DELETE FROM countercache.dead_letter q
                WHERE q.counter_id = $3
                  AND ($1::%2$s IS NULL OR q.%1$I > $1::%2$s) AND ($2::%2$s IS NULL OR q.%1$I <= $2::%2$s)
               RETURNING q.%1$I AS k, q.delta, q.first_enqueued_at
           ), requeued AS (
               INSERT INTO countercache.delta (counter_id, %1$I, delta, enqueued_at)
               SELECT $3, x.k, x.delta, x.first_enqueued_at FROM retried x
           ), queued AS (
               INSERT INTO countercache.delta (counter_id, %1$I, delta)
               SELECT $3, f.k, f.d FROM fix f WHERE f.d <> 0
               RETURNING 1
           )
           SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM queued)$q$, kc, c.key_type)
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
    PERFORM pg_advisory_xact_lock(1668248948, recount.counter_id);
    DELETE FROM countercache.recount_job j WHERE j.counter_id = recount.counter_id;
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

-- Runs every requested recount to its end in batches of max_targets target keys, committing after each batch, so
-- no transaction is long and a stopped run resumes where it was, and rolls up after each batch, so that with no
-- other load the counters read exact when it returns. CALL it outside a transaction block (autocommit).
-- (A procedure with a SET clause cannot commit, so it pins search_path for each of its transactions itself.)
CREATE OR REPLACE PROCEDURE countercache.run_recounts(max_targets integer DEFAULT 10000)
LANGUAGE plpgsql
AS $fn$
DECLARE
    job integer;
    s record;
BEGIN
    LOOP
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        SELECT j.counter_id INTO job FROM countercache.recount_job j ORDER BY j.requested_at, j.counter_id LIMIT 1;
        EXIT WHEN NOT FOUND;
        SELECT * INTO s FROM countercache.recount_step(job, max_targets);
        COMMIT;
        PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        PERFORM countercache.rollup(max_targets);   -- apply the batch's corrections, so counters read exact at the end
        COMMIT;
        IF NOT s.done AND s.targets = 0 THEN
            PERFORM pg_catalog.pg_sleep(0.05);   -- another session holds this counter's recount; let it go on
        END IF;
    END LOOP;
END
$fn$;

-- Every problem of a counter's declaration against the database as it is now ("@CounterCache on Entity.field: ..."),
-- each with its fix, in the order the checks meet them (a check that needs a missing table is skipped); no rows when
-- the counter can be installed. define_counter raises the first; report_problems raises all of a changelog's at
-- once, before any counter is installed; the DDL guard raises those a schema change would cause.
CREATE OR REPLACE FUNCTION countercache.counter_problems(
    declared_by text,
    target_schema name, target_table name, target_key name, key_type text, target_column name, column_type text,
    source_schema name, source_table name, source_fk name, condition text, sum_column name,
    strategy text, slots integer,
    via_schema name DEFAULT NULL, via_table name DEFAULT NULL, via_key name DEFAULT NULL,
    via_key_type text DEFAULT NULL, via_fk name DEFAULT NULL, scale integer DEFAULT 0)
RETURNS TABLE (problem text, fix text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    d constant text := '@CounterCache on ' || declared_by;
    t regtype;
    probe refcursor;
    fk_type text := coalesce(via_key_type, key_type);   -- the type source_fk must have
    model_fix constant text := 'make the table match the entity (or the entity match the table) and regenerate the changelog';
    missing_fix constant text := 'apply the changelog that creates it before the countercache changelog';
    has_target boolean := to_regclass(format('%I.%I', target_schema, target_table)) IS NOT NULL;
    has_source boolean := to_regclass(format('%I.%I', source_schema, source_table)) IS NOT NULL;
    has_via boolean := via_table IS NULL OR to_regclass(format('%I.%I', via_schema, via_table)) IS NOT NULL;
BEGIN
    IF column_type !~ '^(bigint|integer|numeric\(\d{1,4},\d{1,2}\))$' THEN
        RETURN QUERY SELECT d || ': ' || format('column type %L is not supported', column_type),
            'declare the counter field as long, int or BigDecimal';
    ELSIF scale IS DISTINCT FROM coalesce(substring(column_type FROM ',(\d+)\)$')::integer, 0) THEN
        RETURN QUERY SELECT d || ': ' || format('scale %s does not match column type %s', scale, column_type),
            'regenerate the changelog';
    END IF;
    IF strategy IS NULL OR strategy NOT IN ('queue', 'unlogged', 'direct', 'slotted') THEN
        RETURN QUERY SELECT d || ': ' || format('strategy %L is unknown', strategy), 'use queue, unlogged, direct or slotted';
    ELSIF (strategy = 'slotted') <> (slots BETWEEN 2 AND 1024) OR (strategy <> 'slotted' AND slots <> 0) THEN
        RETURN QUERY SELECT d || ': ' || format('slots = %s does not fit strategy %s', slots, strategy),
            'give a slotted counter 2 to 1024 slots, and the other strategies 0';
    END IF;
    IF NOT has_target THEN
        RETURN QUERY SELECT d || ': ' || format('target table %I.%I does not exist', target_schema, target_table), missing_fix;
    END IF;
    RETURN QUERY SELECT d || ': ' || x.p, model_fix FROM (SELECT countercache.type_problem('key', target_schema, target_table,
        target_key, key_type, 'the entity model says') AS p) x WHERE has_target AND x.p IS NOT NULL;
    IF NOT has_source THEN
        RETURN QUERY SELECT d || ': ' || format('source table %I.%I does not exist', source_schema, source_table), missing_fix;
    END IF;
    RETURN QUERY SELECT d || ': ' || x.p, 'give the foreign key column the type of the key it points at'
      FROM (SELECT countercache.type_problem('foreign key column', source_schema, source_table, source_fk, fk_type,
                                             'the key it points at is') AS p) x WHERE has_source AND x.p IS NOT NULL;
    IF NOT has_via THEN
        RETURN QUERY SELECT d || ': ' || format('middle table %I.%I does not exist', via_schema, via_table), missing_fix;
    ELSIF via_table IS NOT NULL THEN
        RETURN QUERY SELECT d || ': ' || x.p, model_fix FROM (SELECT countercache.type_problem('key', via_schema, via_table, via_key,
            via_key_type, 'the entity model says') AS p) x WHERE x.p IS NOT NULL;
        RETURN QUERY SELECT d || ': ' || x.p, 'give the foreign key column the type of the target key'
          FROM (SELECT countercache.type_problem('foreign key column', via_schema, via_table, via_fk, key_type,
                                                 'the key it points at is') AS p) x WHERE x.p IS NOT NULL;
        -- The path is exact because a source row can only point at a middle row that exists: a new middle row has
        -- no source rows, and a deleted one has none left once its statement ends (see "Counters along a path").
        IF has_source AND NOT EXISTS (
            SELECT FROM pg_constraint k
             WHERE k.contype = 'f' AND NOT k.condeferrable
               AND k.conrelid = to_regclass(format('%I.%I', source_schema, source_table))
               AND k.confrelid = to_regclass(format('%I.%I', via_schema, via_table))
               AND k.conkey = ARRAY[(SELECT a.attnum FROM pg_attribute a WHERE a.attrelid = k.conrelid
                                        AND a.attname = source_fk)]
               AND k.confkey = ARRAY[(SELECT a.attnum FROM pg_attribute a WHERE a.attrelid = k.confrelid
                                         AND a.attname = via_key)]) THEN
            RETURN QUERY SELECT d || ': ' || format('%I.%I.%I has no foreign key constraint to %I.%I(%I)',
                source_schema, source_table, source_fk, via_schema, via_table, via_key),
                'a counter along a path needs it (not deferrable): add it, or let Hibernate create it';
        END IF;
    END IF;
    -- Citus runs triggers of a distributed or reference table per shard, and refuses ours (docs/scaling.md, "Citus")
    IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        RETURN QUERY EXECUTE 'SELECT $1 || '': '' || r.what || '' table '' || r.tbl || '' is distributed by Citus'', $2
              FROM (VALUES (''target'', $3), (''source'', $4), (''middle'', $5)) AS r(what, tbl)
             WHERE to_regclass(r.tbl) IN (SELECT p.logicalrelid FROM pg_catalog.pg_dist_partition p)'
            USING d, 'keep the tables a counter reads and writes local to the coordinator (not distributed), '
                     'or count them another way: see docs/scaling.md, "Citus"',
                  format('%I.%I', target_schema, target_table), format('%I.%I', source_schema, source_table),
                  CASE WHEN via_table IS NOT NULL THEN format('%I.%I', via_schema, via_table) END;
    END IF;
    IF has_source AND sum_column IS NOT NULL THEN
        t := countercache.column_type(source_schema, source_table, sum_column);
        IF t IS NULL OR t::text NOT IN ('smallint', 'integer', 'bigint', 'numeric') THEN
            RETURN QUERY SELECT d || ': ' || format('sum column %I.%I.%I is %s', source_schema, source_table, sum_column,
                coalesce(t::text, 'missing')),
                'sum an existing smallint, integer, bigint or numeric(p,s) column; floating point sums cannot be exact';
        ELSIF t::text = 'numeric' AND coalesce(countercache.column_scale(source_schema, source_table, sum_column), 99)
                                      > scale THEN
            RETURN QUERY SELECT d || ': ' || format('sum column %I.%I.%I is %s, with more decimal places than the counter''s %s',
                source_schema, source_table, sum_column,
                countercache.column_format(source_schema, source_table, sum_column), column_type),
                'give the sum column a scale (numeric(p,s)) and the counter field at least as many decimal places';
        END IF;
    END IF;
    -- PostgreSQL judges the condition, parsed and typed against the source table in two contexts, each through a
    -- cursor, which refuses a text of more than one statement: as a WHERE (so it is boolean) and inside ARRAY[( )]
    -- (a text that closed the parenthesis to add a clause of its own could not fit both).
    IF has_source THEN
        BEGIN
            OPEN probe FOR EXECUTE format('SELECT 1 FROM %I.%I AS %I WHERE (%s) LIMIT 0',
                source_schema, source_table, source_table, coalesce(condition, 'true'));
            CLOSE probe;
            OPEN probe FOR EXECUTE format('SELECT ARRAY[(%s)] FROM %I.%I AS %I LIMIT 0',
                coalesce(condition, 'true'), source_schema, source_table, source_table);
            CLOSE probe;
        EXCEPTION WHEN OTHERS THEN
            RETURN QUERY SELECT d || ': ' || format('where = "%s" is not one boolean expression over %I.%I: %s',
                condition, source_schema, source_table, SQLERRM),
                'write the condition as a boolean SQL expression over the columns of the source table, '
                'with functions outside pg_catalog schema-qualified';
        END;
    END IF;
    t := countercache.column_type(target_schema, target_table, target_column);
    IF t::text NOT IN ('smallint', 'integer', 'bigint', 'numeric') THEN
        RETURN QUERY SELECT d || ': ' || format('counter column %I.%I.%I is %s', target_schema, target_table, target_column, t),
            'make the counter column an integer, bigint or numeric(p,s)';
    ELSIF scale > 0 AND t IS NOT NULL
          AND countercache.column_scale(target_schema, target_table, target_column) IS DISTINCT FROM scale THEN
        RETURN QUERY SELECT d || ': ' || format('counter column %I.%I.%I is %s, the entity model says %s',
            target_schema, target_table, target_column,
            countercache.column_format(target_schema, target_table, target_column), column_type),
            'make the column match the field''s precision and scale (or the field match the column)';
    END IF;
END
$fn$;

-- Problems and their fixes as the lines of one error message.
CREATE OR REPLACE FUNCTION countercache.problem_list(problems text[], fixes text[])
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT string_agg(E'\n  ' || p || E'\n      fix: ' || f, '' ORDER BY i)
      FROM unnest(problems, fixes) WITH ORDINALITY AS u(p, f, i)
$fn$;

-- Raises one error listing every problem found (the changelog checks all its counters this way before it installs
-- any, so that a run reports them together), or does nothing when there are none.
CREATE OR REPLACE FUNCTION countercache.report_problems(problems text[], fixes text[])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF cardinality(problems) > 0 THEN
        RAISE EXCEPTION 'countercache: % problem% with the @CounterCache declarations:%', cardinality(problems),
            CASE WHEN cardinality(problems) > 1 THEN 's' ELSE '' END,
            countercache.problem_list(problems, fixes)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
END
$fn$;

-- Checks a counter against the database, records it in the catalog and adds the counter column when it is missing.
-- Returns true when the counter is new or its definition changed; a recount of it is then requested (see
-- request_recount): the changelog runs it after the triggers are in place, in batches that writers never wait for.
DROP FUNCTION IF EXISTS countercache.define_counter(integer, text, text, name, name, name, text, name, text, name,
                                                    name, name, text, name, text);
DROP FUNCTION IF EXISTS countercache.define_counter(integer, text, text, name, name, name, text, name, text, name,
                                                    name, name, text, name, text, integer, text);
CREATE OR REPLACE FUNCTION countercache.define_counter(
    id integer, name text, declared_by text,
    target_schema name, target_table name, target_key name, key_type text, target_column name, column_type text,
    source_schema name, source_table name, source_fk name, condition text, sum_column name,
    strategy text, slots integer, definition_hash text,
    via_schema name DEFAULT NULL, via_table name DEFAULT NULL, via_key name DEFAULT NULL,
    via_key_type text DEFAULT NULL, via_fk name DEFAULT NULL, scale integer DEFAULT 0)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    t regtype;
    old_hash text;
    first record;
    guard text := coalesce(current_setting('countercache.ddl_guard', true), '');
BEGIN
    SELECT * INTO first FROM countercache.counter_problems(declared_by, target_schema, target_table, target_key,
        key_type, target_column, column_type, source_schema, source_table, source_fk, condition, sum_column, strategy,
        slots, via_schema, via_table, via_key, via_key_type, via_fk, scale) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '%', first.problem USING HINT = first.fix, ERRCODE = 'invalid_parameter_value';
    END IF;
    -- the counter's own column is not a schema change the DDL guard should stop
    PERFORM set_config('countercache.ddl_guard', 'off', true);
    t := countercache.column_type(target_schema, target_table, target_column);
    IF t IS NULL THEN
        EXECUTE format('ALTER TABLE %I.%I ADD COLUMN %I %s NOT NULL DEFAULT 0',
            target_schema, target_table, target_column, column_type);   -- column_type: checked above
    ELSIF NOT EXISTS (SELECT 1 FROM pg_attrdef ad JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
                       WHERE a.attrelid = to_regclass(format('%I.%I', target_schema, target_table))
                         AND a.attname = target_column) THEN
        -- Hibernate never inserts the counter column, so new rows must start from a default.
        EXECUTE format('ALTER TABLE %I.%I ALTER COLUMN %I SET DEFAULT 0', target_schema, target_table, target_column);
    END IF;
    PERFORM set_config('countercache.ddl_guard', guard, true);

    SELECT k.definition_hash INTO old_hash FROM countercache.counter k WHERE k.id = define_counter.id;
    IF old_hash IS NOT DISTINCT FROM definition_hash THEN
        RETURN false;
    END IF;
    INSERT INTO countercache.counter AS k (id, name, declared_by, target_schema, target_table, target_key, key_type,
                                          target_column, source_schema, source_table, source_fk, condition,
                                          sum_column, strategy, slots, definition_hash,
                                          via_schema, via_table, via_key, via_key_type, via_fk, scale)
    VALUES (id, name, declared_by, target_schema, target_table, target_key, key_type,
            target_column, source_schema, source_table, source_fk, condition, sum_column, strategy, slots,
            definition_hash, via_schema, via_table, via_key, via_key_type, via_fk, scale)
    ON CONFLICT ON CONSTRAINT counter_pkey DO UPDATE
       SET name = excluded.name, declared_by = excluded.declared_by,
           target_schema = excluded.target_schema, target_table = excluded.target_table,
           target_key = excluded.target_key, key_type = excluded.key_type, target_column = excluded.target_column,
           source_schema = excluded.source_schema, source_table = excluded.source_table,
           source_fk = excluded.source_fk, condition = excluded.condition, sum_column = excluded.sum_column,
           strategy = excluded.strategy, slots = excluded.slots, definition_hash = excluded.definition_hash,
           via_schema = excluded.via_schema, via_table = excluded.via_table, via_key = excluded.via_key,
           via_key_type = excluded.via_key_type, via_fk = excluded.via_fk, scale = excluded.scale, defined_at = now();
    PERFORM countercache.request_recount(define_counter.id);
    RETURN true;
END
$fn$;

-- The problems of the installed counters with the database as it is now (as counter_problems finds them, plus a
-- counter column gone missing), for the counters of these tables (schema.table, quoted as format's %I quotes) and
-- those whose tables are missing, or for every counter when tables is NULL. The DDL guard refuses a statement that
-- leaves any; the CLI's status lists them.
CREATE OR REPLACE FUNCTION countercache.installed_problems(tables text[] DEFAULT NULL)
RETURNS TABLE (counter text, problem text, fix text)
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH k AS (
        SELECT * FROM countercache.counter k
         WHERE EXISTS (SELECT FROM (VALUES (k.target_schema, k.target_table), (k.source_schema, k.source_table),
                                           (k.via_schema, k.via_table)) AS r(s, t)
                        WHERE r.t IS NOT NULL
                          -- a table renamed is missing under its name
                          AND (tables IS NULL OR format('%I.%I', r.s, r.t) = ANY (tables)
                               OR to_regclass(format('%I.%I', r.s, r.t)) IS NULL))
    ), found AS (
        SELECT k.name, p.problem, p.fix
          FROM k CROSS JOIN LATERAL countercache.counter_problems(k.declared_by,
               k.target_schema, k.target_table, k.target_key, k.key_type, k.target_column,
               CASE WHEN k.scale > 0 THEN format('numeric(38,%s)', k.scale) ELSE 'bigint' END,
               k.source_schema, k.source_table, k.source_fk, k.condition, k.sum_column, k.strategy, k.slots,
               k.via_schema, k.via_table, k.via_key,
               CASE WHEN k.via_table IS NOT NULL
                    THEN coalesce(k.via_key_type, countercache.column_type(k.via_schema, k.via_table, k.via_key)::text)
               END,
               k.via_fk, k.scale) p
        UNION ALL
        SELECT k.name, format('@CounterCache on %s: counter column %I.%I.%I is missing', k.declared_by,
               k.target_schema, k.target_table, k.target_column), 'give the counter column back its name (or the field the column''s name)'
          FROM k
         WHERE to_regclass(format('%I.%I', k.target_schema, k.target_table)) IS NOT NULL
           AND countercache.column_type(k.target_schema, k.target_table, k.target_column) IS NULL
    )
    SELECT f.name, f.problem, f.fix FROM found f ORDER BY f.name, f.problem
$fn$;

-- The DDL guard: an event trigger that refuses an ALTER TABLE or DROP TABLE (a user's own migration, say) that
-- would break an installed counter: a counted column renamed, dropped or given another type, a source, target or
-- middle table renamed or dropped. Its error names each counter in the way and what is wrong, with the fix. The
-- installed capture triggers name columns, so without it such a change would surface as a bare "column does not
-- exist" at the application's next insert. A migration that changes a counted column on purpose, together with the
-- entity, runs SET LOCAL countercache.ddl_guard = off first and the regenerated countercache changelog after it, in
-- the same update. It checks the statements of the migrator (the role that owns the countercache schema, and its
-- members), not the application's. Only a superuser can create event triggers: the install creates them when it
-- runs as one, and docs/security.md has the two statements for a superuser to run otherwise.
CREATE OR REPLACE FUNCTION countercache.ddl_guard()
RETURNS event_trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    touched text[];   -- the tables the statement altered or dropped, as schema.table
    problems text[];
    fixes text[];
BEGIN
    IF current_setting('countercache.ddl_guard', true) = 'off'
       OR to_regclass('countercache.counter') IS NULL
       OR NOT pg_has_role((SELECT n.nspowner FROM pg_namespace n WHERE n.nspname = 'countercache'), 'USAGE') THEN
        RETURN;
    END IF;
    IF TG_EVENT = 'sql_drop' THEN
        SELECT array_agg(format('%I.%I', o.schema_name, o.object_name)) INTO touched
          FROM pg_event_trigger_dropped_objects() o WHERE o.object_type = 'table';
    ELSE
        SELECT array_agg(format('%I.%I', n.nspname, r.relname)) INTO touched
          FROM pg_event_trigger_ddl_commands() c
          JOIN pg_class r ON r.oid = c.objid JOIN pg_namespace n ON n.oid = r.relnamespace
         WHERE c.classid = 'pg_class'::regclass;
    END IF;
    SELECT array_agg(f.problem ORDER BY f.counter, f.problem), array_agg(f.fix ORDER BY f.counter, f.problem)
      INTO problems, fixes
      FROM countercache.installed_problems(coalesce(touched, '{}')) f;
    IF cardinality(problems) > 0 THEN
        RAISE EXCEPTION 'countercache: % would break % counter%:%', TG_TAG, cardinality(problems),
            CASE WHEN cardinality(problems) > 1 THEN 's' ELSE '' END,
            countercache.problem_list(problems, fixes)
            USING ERRCODE = 'dependent_objects_still_exist',
                  HINT = 'to change the column or table with its entity on purpose: SET LOCAL countercache.ddl_guard = off '
                         'in that migration, and apply the regenerated countercache changelog after it; to stop '
                         'counting: remove the @CounterCache and apply the regenerated changelog first';
    END IF;
END
$fn$;
DO $guard$
BEGIN
    IF (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER) THEN
        IF NOT EXISTS (SELECT FROM pg_catalog.pg_event_trigger e
                        WHERE e.evtname OPERATOR(pg_catalog.=) 'countercache_ddl_guard') THEN
            CREATE EVENT TRIGGER countercache_ddl_guard ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
                EXECUTE FUNCTION countercache.ddl_guard();
        END IF;
        IF NOT EXISTS (SELECT FROM pg_catalog.pg_event_trigger e
                        WHERE e.evtname OPERATOR(pg_catalog.=) 'countercache_drop_guard') THEN
            CREATE EVENT TRIGGER countercache_drop_guard ON sql_drop WHEN TAG IN ('DROP TABLE')
                EXECUTE FUNCTION countercache.ddl_guard();
        END IF;
    END IF;
END
$guard$;

-- Records that the changelog named changelog installs exactly the counters in keep, and forgets every other counter
-- of that changelog (or of none, installed before changelogs had names): its queued, slotted, dead-lettered and
-- orphaned deltas, its recount, its catalog row, and the triggers of tables that no longer feed or hold any counter.
-- Counters of other changelogs are left alone, so several changelogs (modules, services) share one database. Counter
-- columns are left in place: dropping data is the user's call. Returns how many tables lost their triggers.
DROP FUNCTION IF EXISTS countercache.prune(text[]);
CREATE OR REPLACE FUNCTION countercache.prune(changelog text, keep text[])
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    removed integer := 0;
    s record;
    tg text;
BEGIN
    UPDATE countercache.counter k SET changelog = prune.changelog
     WHERE k.name = ANY (keep) AND k.changelog IS DISTINCT FROM prune.changelog;
    PERFORM countercache.forget(ARRAY(SELECT k.id FROM countercache.counter k
                                       WHERE NOT (k.name = ANY (keep)) AND k.changelog IN (prune.changelog, '')));
    -- every trigger of the library calls a function of this schema named capture_... (sources) or target_...
    FOR s IN
        SELECT n.nspname, c.relname, p.oid::regprocedure AS fn,
               array_agg(tg.tgname ORDER BY tg.tgname) AS triggers
          FROM pg_trigger tg
          JOIN pg_proc p ON p.oid = tg.tgfoid
          JOIN pg_class c ON c.oid = tg.tgrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE p.pronamespace = 'countercache'::regnamespace
           AND ((p.proname LIKE 'capture\_%'
                 AND NOT EXISTS (SELECT 1 FROM countercache.counter k
                                  WHERE k.source_schema = n.nspname AND k.source_table = c.relname))
             OR (p.proname LIKE 'target\_%'
                 AND NOT EXISTS (SELECT 1 FROM countercache.counter k
                                  WHERE k.target_schema = n.nspname AND k.target_table = c.relname))
             OR (p.proname LIKE 'via\_%'
                 AND NOT EXISTS (SELECT 1 FROM countercache.counter k
                                  WHERE k.via_schema = n.nspname AND k.via_table = c.relname)))
         GROUP BY n.nspname, c.relname, p.oid
    LOOP
        FOREACH tg IN ARRAY s.triggers LOOP
            EXECUTE format('DROP TRIGGER %I ON %I.%I', tg, s.nspname, s.relname);
        END LOOP;
        removed := removed + 1;
    END LOOP;
    PERFORM countercache.drop_unused_trigger_functions();
    RETURN removed;
END
$fn$;

-- Forgets these counters: their catalog rows, queued (both queues), slotted, dead-lettered and orphaned deltas, and
-- recounts. Their columns stay: dropping data is the user's call.
CREATE OR REPLACE FUNCTION countercache.forget(counter_ids integer[])
RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH gone AS (
        DELETE FROM countercache.counter k WHERE k.id = ANY (counter_ids) RETURNING k.id
    ), dead AS (
        DELETE FROM countercache.dead_letter x USING gone WHERE x.counter_id = gone.id
    ), orphans AS (
        DELETE FROM countercache.orphan x USING gone WHERE x.counter_id = gone.id
    ), jobs AS (
        DELETE FROM countercache.recount_job x USING gone WHERE x.counter_id = gone.id
    ), unlogged AS (
        DELETE FROM countercache.delta_unlogged x USING gone WHERE x.counter_id = gone.id
    ), slots AS (
        DELETE FROM countercache.slot x USING gone WHERE x.counter_id = gone.id
    )
    DELETE FROM countercache.delta q USING gone WHERE q.counter_id = gone.id
$fn$;

-- Drops the library's trigger functions that no trigger uses any more (their table lost its counters, or the
-- function was renamed).
CREATE OR REPLACE FUNCTION countercache.drop_unused_trigger_functions()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s record;
BEGIN
    FOR s IN
        SELECT p.oid::regprocedure AS fn FROM pg_proc p
         WHERE p.pronamespace = 'countercache'::regnamespace
           AND (p.proname LIKE 'capture\_%' OR p.proname LIKE 'target\_%' OR p.proname LIKE 'via\_%')
           AND NOT EXISTS (SELECT 1 FROM pg_trigger tg WHERE tg.tgfoid = p.oid)
    LOOP
        EXECUTE format('DROP FUNCTION %s', s.fn);
    END LOOP;
END
$fn$;

-- The rollback of one changeset of a table (Liquibase runs them in reverse): drops the table's triggers of one kind
-- (capture, target or via) and, for a source, forgets its counters as prune does (their queued, slotted, parked and
-- orphaned deltas, recounts, catalog rows). Counter columns stay. Applying the changeset again defines the counters
-- anew, so they are recounted.
CREATE OR REPLACE FUNCTION countercache.uninstall(kind text, tbl_schema name, tbl name, counter_ids integer[])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s record;
BEGIN
    IF kind NOT IN ('capture', 'target', 'via') THEN
        RAISE EXCEPTION 'countercache.uninstall: kind must be capture, target or via, not %', kind
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM countercache.forget(counter_ids);
    FOR s IN
        SELECT tg.tgname FROM pg_trigger tg JOIN pg_proc p ON p.oid = tg.tgfoid
         WHERE tg.tgrelid = to_regclass(format('%I.%I', tbl_schema, tbl))
           AND p.pronamespace = 'countercache'::regnamespace AND p.proname LIKE kind || '\_%'
    LOOP
        EXECUTE format('DROP TRIGGER %I ON %I.%I', s.tgname, tbl_schema, tbl);
    END LOOP;
    PERFORM countercache.drop_unused_trigger_functions();
END
$fn$;

-- The statement that applies claimed deltas to one target table (see rollup_report). The claimed rows come as arrays
-- ($1 ids, $2 counters, $3 bigint keys, $4 uuid keys, $5 deltas, $6 enqueue times); $7 the counters of this table to
-- apply, $8 one key (as text) to restrict to, or NULL. Deltas of busy rows go back to the queue under their own ids.
-- It returns one jsonb array: per counter, the deltas it consumed (n) and, when with_keys, the keys it touched (k).
-- One value, so that a statement that fails part way has reported nothing.
DROP FUNCTION IF EXISTS countercache.apply_sql(name, name, name, text, integer[], name[], boolean);
CREATE OR REPLACE FUNCTION countercache.apply_sql(target_schema name, target_table name, target_key name,
                                                  key_type text, counters integer[], columns name[],
                                                  scales integer[], with_keys boolean)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format(
        $q$WITH q AS (
               SELECT q.id, q.counter_id, q.%4$I AS k, q.delta, q.enqueued_at
                 FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::uuid[], $5::bigint[], $6::timestamptz[])
                      AS q(id, counter_id, target_id, target_uuid, delta, enqueued_at)
                WHERE q.counter_id = ANY ($7) AND ($8::text IS NULL OR q.%4$I::text = $8)
           ), d AS (
               SELECT q.k, %5$s FROM q GROUP BY q.k
           ), locked AS (
               -- each key's sums beside its row, locked: joined through the row's index, key by key, so that the
               -- update below needs no join between two lists (whose sizes the planner cannot know)
               SELECT d.* FROM d JOIN %1$I.%2$I t ON t.%3$I = d.k
                  FOR NO KEY UPDATE OF t SKIP LOCKED
           ), applied AS (
               UPDATE %1$I.%2$I t SET %6$s
                 FROM locked d WHERE t.%3$I = d.k
               RETURNING t.%3$I AS k
           ), busy AS (
               SELECT t.%3$I AS k FROM %1$I.%2$I t
                WHERE t.%3$I IN (SELECT d.k FROM d WHERE d.k NOT IN (SELECT l.k FROM locked l))
           ), fate AS (
               SELECT q.*, q.k IN (SELECT a.k FROM applied a) AS applied, q.k IN (SELECT b.k FROM busy b) AS busy
                 FROM q
           ), requeued AS (
               INSERT INTO countercache.delta (id, counter_id, %4$I, delta, enqueued_at) OVERRIDING SYSTEM VALUE
               SELECT f.id, f.counter_id, f.k, f.delta, f.enqueued_at FROM fate f WHERE f.busy
           ), orphaned AS (
               INSERT INTO countercache.orphan (counter_id, %4$I, delta, enqueued_at)
               SELECT f.counter_id, f.k, sum(f.delta), min(f.enqueued_at) FROM fate f
                WHERE NOT f.applied AND NOT f.busy GROUP BY f.counter_id, f.k HAVING sum(f.delta) <> 0
           )
           SELECT jsonb_agg(jsonb_build_object('c', s.counter_id, 'n', s.n, 'k', s.keys)) FROM (
               SELECT f.counter_id, count(*) AS n, %7$s AS keys FROM fate f WHERE NOT f.busy GROUP BY f.counter_id) s$q$,
        target_schema, target_table, target_key,
        CASE WHEN key_type = 'uuid' THEN 'target_uuid' ELSE 'target_id' END,
        (SELECT string_agg(format('sum(q.delta) FILTER (WHERE q.counter_id = %s) AS d%s', c, i), ', ' ORDER BY i)
           FROM unnest(counters) WITH ORDINALITY AS u(c, i)),
        (SELECT string_agg(format('%1$I = coalesce(t.%1$I, 0) + coalesce(d.d%2$s, 0)%3$s', u.col, u.i,
                                  CASE WHEN u.s > 0 THEN ' * 1e-' || u.s END),
                           ', ' ORDER BY u.i)
           FROM unnest(columns, scales) WITH ORDINALITY AS u(col, s, i)),
        CASE WHEN with_keys THEN 'jsonb_agg(DISTINCT f.k) FILTER (WHERE f.applied)' ELSE 'NULL::jsonb' END)
$fn$;

-- Applies at most max_deltas queued deltas of each queue (logged and unlogged) and reports, per counter (in one or more rows), how many deltas it
-- consumed and, when with_keys, which targets it touched (target_ids for integer and bigint keys, target_uuids for
-- uuid keys), so that a caller can lock and release cached copies of exactly those rows around the commit.
--
-- Concurrency. The claim is one DELETE of the oldest queued rows picked with FOR UPDATE SKIP LOCKED, so concurrent
-- rollups take disjoint batches without waiting for each other's claims, and a rollup that fails or dies rolls back
-- with its rows back in the queue. Claimed deltas are folded per target row, and each target table gets ONE statement for all
-- of its counters, which first locks the rows with FOR NO KEY UPDATE SKIP LOCKED:
--   * A row another transaction holds is not waited for: its claimed deltas go back to the queue under their own
--     ids (the rows this round deleted), so they keep their place before any later delta of the same target.
--   * Each target row is updated at most once per round. A second update of a row the transaction already updated
--     would make PostgreSQL re-check the row's foreign keys, taking FOR KEY SHARE on the parent row, which an
--     application may hold FOR UPDATE: the rollup would wait, and could deadlock.
--   * Writers' foreign-key checks take FOR KEY SHARE on the target, which does not conflict with FOR NO KEY UPDATE.
--   * Deltas of a target row that does not exist are moved to countercache.orphan (never dropped); so are deltas of
--     a row inserted but not yet visible to this round. Each round first moves orphans whose row now exists back.
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
-- older delta of the same counter and target is still queued (another round holds it): then they go back to the
-- queue under their own ids, to be applied after it. Transient failures (deadlock, serialization, lock timeout,
-- resources, shutdown) abort the round.
DROP FUNCTION IF EXISTS countercache.rollup_report(integer);
DROP FUNCTION IF EXISTS countercache.apply_sql(name, name, name, text, integer[], name[]);
CREATE OR REPLACE FUNCTION countercache.rollup_report(max_deltas integer DEFAULT 10000, with_keys boolean DEFAULT true)
RETURNS TABLE (counter_id integer, consumed bigint, target_ids bigint[], target_uuids uuid[])
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '200ms'
AS $fn$
#variable_conflict use_column
DECLARE
    ids bigint[]; cids integer[]; tids bigint[]; tuuids uuid[]; deltas bigint[]; ats timestamptz[];
    tb record;
    apply text;
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
    given_up integer[] := '{}';
    given_up_before integer;
BEGIN
    IF max_deltas IS NULL OR max_deltas < 1 THEN
        RAISE EXCEPTION 'countercache.rollup_report: max_deltas must be at least 1, got %', max_deltas
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- a crash that emptied the unlogged queue is noticed before anything is claimed
    PERFORM countercache.check_unlogged_queue();
    -- orphans whose target row exists again, and the slots' amounts, go to the queue first: this round applies them
    PERFORM countercache.adopt_orphans(max_deltas);
    PERFORM countercache.flush_slots(max_deltas);
    LOOP   -- passes: each claims past the counters of the tables given up so far
        given_up_before := cardinality(given_up);
        WITH claimed AS (
            DELETE FROM countercache.delta q
             WHERE q.id = ANY (ARRAY(SELECT p.id FROM countercache.delta p WHERE p.counter_id <> ALL (given_up)
                                      ORDER BY p.id LIMIT max_deltas FOR UPDATE SKIP LOCKED))
            RETURNING q.*
        ), claimed_unlogged AS (
            DELETE FROM countercache.delta_unlogged q
             WHERE q.id = ANY (ARRAY(SELECT p.id FROM countercache.delta_unlogged p WHERE p.counter_id <> ALL (given_up)
                                      ORDER BY p.id LIMIT max_deltas FOR UPDATE SKIP LOCKED))
            RETURNING q.*
        )
        SELECT array_agg(c.id), array_agg(c.counter_id), array_agg(c.target_id), array_agg(c.target_uuid),
               array_agg(c.delta), array_agg(c.enqueued_at)
          INTO ids, cids, tids, tuuids, deltas, ats
          FROM (SELECT * FROM claimed UNION ALL SELECT * FROM claimed_unlogged) c;

        -- deltas of counters that are no longer installed are consumed without effect
        SELECT coalesce(jsonb_agg(jsonb_build_object('c', g.c, 'n', g.n)), '[]') INTO part
          FROM (SELECT u.c, count(*) AS n FROM unnest(cids) u(c)
                 WHERE NOT EXISTS (SELECT 1 FROM countercache.counter k WHERE k.id = u.c) GROUP BY u.c) g;
        report := report || part;

        FOR tb IN
            SELECT c.target_schema, c.target_table, c.target_key, c.key_type,
                   array_agg(c.id ORDER BY c.id) AS counters, array_agg(c.target_column ORDER BY c.id) AS columns,
                   array_agg(c.scale ORDER BY c.id) AS scales
              FROM countercache.counter c
             WHERE c.id IN (SELECT DISTINCT u.c FROM unnest(cids) u(c))
             GROUP BY c.target_schema, c.target_table, c.target_key, c.key_type
             ORDER BY c.target_schema, c.target_table
        LOOP
            apply := countercache.apply_sql(tb.target_schema, tb.target_table, tb.target_key, tb.key_type,
                                            tb.counters, tb.columns, tb.scales, with_keys);
            kc := CASE WHEN tb.key_type = 'uuid' THEN 'target_uuid' ELSE 'target_id' END;
            BEGIN
                EXECUTE apply INTO part USING ids, cids, tids, tuuids, deltas, ats, tb.counters, NULL::text;
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
                            USING HINT = 'grant the rollup''s role what docs/security.md lists for a worker';
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
                 GROUP BY 1
            LOOP
                BEGIN
                    EXECUTE apply INTO part USING ids, cids, tids, tuuids, deltas, ats, key_counters, key;
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
                        EXECUTE apply USING ids, cids, tids, tuuids, deltas, ats, ARRAY[cid], key;
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
                    EXECUTE apply INTO part USING ids, cids, tids, tuuids, deltas, ats, accepted, key;
                    report := report || coalesce(part, '[]');
                END IF;
                EXECUTE format(
                    $q$WITH q AS (
                           SELECT q.id, q.counter_id, q.%1$I AS k, q.delta, q.enqueued_at
                             FROM unnest($1::bigint[], $2::integer[], $3::bigint[], $4::uuid[], $5::bigint[], $6::timestamptz[])
                                  AS q(id, counter_id, target_id, target_uuid, delta, enqueued_at)
                            WHERE q.counter_id = ANY ($7) AND q.%1$I::text = $8
                       ), waits AS (
                           SELECT DISTINCT q.counter_id FROM q
                            WHERE EXISTS (SELECT 1 FROM countercache.delta x
                                           WHERE x.counter_id = q.counter_id AND x.%1$I = q.k AND x.id < q.id)
                               OR EXISTS (SELECT 1 FROM countercache.delta_unlogged x
                                           WHERE x.counter_id = q.counter_id AND x.%1$I = q.k AND x.id < q.id)
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
                           -- folded into one row, unless the sum itself overflows: then one row per delta
                           INSERT INTO countercache.dead_letter (counter_id, %1$I, delta, deltas, first_enqueued_at,
                                                                 sqlstate, error)
                           SELECT p.counter_id, p.k, sum(p.delta), count(*), min(p.enqueued_at), p.state, p.message
                             FROM parked p WHERE p.total BETWEEN -9223372036854775808 AND 9223372036854775807
                            GROUP BY p.counter_id, p.k, p.state, p.message
                           UNION ALL
                           SELECT p.counter_id, p.k, p.delta, 1, p.enqueued_at, p.state, p.message
                             FROM parked p WHERE p.total NOT BETWEEN -9223372036854775808 AND 9223372036854775807
                       )
                       SELECT coalesce(jsonb_agg(jsonb_build_object('c', s.counter_id, 'n', s.n)), '[]') FROM (
                           SELECT q.counter_id, count(*) AS n FROM q
                            WHERE q.counter_id NOT IN (SELECT w.counter_id FROM waits w) GROUP BY q.counter_id) s$q$, kc)
                    INTO part USING ids, cids, tids, tuuids, deltas, ats, refused, key, states, messages;
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

-- Moves orphaned deltas whose target row now exists back to the queue, and folds the others (one row per counter and
-- key; a key whose orphans sum to zero is forgotten). Orphans are claimed with FOR UPDATE SKIP LOCKED like the queue.
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
                              EXISTS (SELECT 1 FROM %1$I.%2$I t WHERE t.%3$I = c.k) AS present
                         FROM claimed c GROUP BY c.k
                   ), gone AS (
                       DELETE FROM countercache.orphan o USING claimed c JOIN g ON g.k = c.k
                        WHERE o.id = c.id AND (g.present OR g.delta = 0 OR g.n > 1)
                   ), back AS (
                       INSERT INTO countercache.delta (counter_id, %4$I, delta, enqueued_at)
                       SELECT $1, g.k, g.delta, g.since FROM g WHERE g.present AND g.delta <> 0
                   )
                   INSERT INTO countercache.orphan (counter_id, %4$I, delta, enqueued_at)
                   SELECT $1, g.k, g.delta, g.since FROM g WHERE NOT g.present AND g.delta <> 0 AND g.n > 1$q$,
                c.target_schema, c.target_table, c.target_key,
                CASE WHEN c.key_type = 'uuid' THEN 'target_uuid' ELSE 'target_id' END)
                USING c.id, max_rows;
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
    LOCK TABLE countercache.unlogged_marker IN EXCLUSIVE MODE;   -- one rollup acts; the others wait, then see it
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
    SELECT array_agg(l.t), array_agg(l.n) INTO rows, amounts
      FROM (SELECT s.ctid AS t, s.n FROM countercache.slot s WHERE s.n <> 0 LIMIT max_slots FOR UPDATE SKIP LOCKED) l;
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
CREATE OR REPLACE FUNCTION countercache.prune_slots(max_rows integer DEFAULT 10000)
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

-- Applies at most max_deltas queued deltas and returns how many it consumed (0 when there is nothing to do).
CREATE OR REPLACE FUNCTION countercache.rollup(max_deltas integer DEFAULT 10000)
RETURNS bigint
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT coalesce(sum(r.consumed), 0)::bigint FROM countercache.rollup_report(max_deltas, false) r
$fn$;

-- The state of the queue, for workers, health checks and tools: deltas waiting (in either queue, and non-zero
-- slots), the age of the oldest queued delta (0 when the queues are empty), and dead letters.
CREATE OR REPLACE FUNCTION countercache.queue_state()
RETURNS TABLE (depth bigint, oldest_seconds double precision, dead_letters bigint)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT count(*) + (SELECT count(*) FROM countercache.slot s WHERE s.n <> 0),
           coalesce(extract(epoch FROM now() - min(q.enqueued_at)), 0)::double precision,
           (SELECT count(*) FROM countercache.dead_letter)
      FROM (SELECT d.enqueued_at FROM countercache.delta d
            UNION ALL SELECT u.enqueued_at FROM countercache.delta_unlogged u) q
$fn$;

-- Limit counters (Cybertec's "concurrent counting"): at most N admissions per key per period, exactly, under any
-- concurrency. One row per limit, key and period counts what was admitted and what was attempted; an admission is
-- one INSERT ... ON CONFLICT DO UPDATE of that row, so it locks that row only and different keys never wait for each
-- other. The limit in force is read after a shared advisory lock that a change of the limit takes exclusively, so an
-- admission either sees a committed change or the change waits for it: every admission is judged against the limit in
-- force when it is made, and the count it checks is the locked row's latest.
CREATE TABLE IF NOT EXISTS countercache.limit_def (
    name            text        PRIMARY KEY,
    period          interval    NOT NULL CHECK (period OPERATOR(pg_catalog.>) interval '0'),
    time_zone       text        NOT NULL DEFAULT 'UTC',
    default_limit   bigint      NOT NULL CHECK (default_limit OPERATOR(pg_catalog.>=) 0),
    retention       integer     NOT NULL DEFAULT 2 CHECK (retention OPERATOR(pg_catalog.>=) 1),   -- past periods kept, besides the current one
    declared_by     text,
    definition_hash text,
    defined_at      timestamptz NOT NULL DEFAULT pg_catalog.now()
);
ALTER TABLE countercache.limit_def ADD COLUMN IF NOT EXISTS changelog text NOT NULL DEFAULT '';

-- Limits of single keys that differ from the default, each for a time range; no two ranges of one key overlap.
CREATE TABLE IF NOT EXISTS countercache.limit_key (
    limit_name text      NOT NULL REFERENCES countercache.limit_def (name) ON DELETE CASCADE,
    key        text      NOT NULL,
    max_admits bigint    NOT NULL CHECK (max_admits OPERATOR(pg_catalog.>=) 0),
    valid      tstzrange NOT NULL CHECK (NOT pg_catalog.isempty(valid)),
    PRIMARY KEY (limit_name, key, valid)
);

-- The counts: fillfactor leaves room on each page for the updates of a row to stay HOT.
CREATE TABLE IF NOT EXISTS countercache.limit_usage (
    limit_name    text        NOT NULL,
    key           text        NOT NULL,
    period_start  timestamptz NOT NULL,
    admitted      bigint      NOT NULL,
    attempted     bigint      NOT NULL,
    last_admitted boolean     NOT NULL,   -- whether the latest attempt was admitted
    max_admits    bigint      NOT NULL,   -- the limit the latest attempt was judged against
    PRIMARY KEY (limit_name, key, period_start)
) WITH (fillfactor = 70);

-- The advisory lock keys of a limit (whole) and of one of its keys.
CREATE OR REPLACE FUNCTION countercache.limit_lock(limit_name text, key text)
RETURNS bigint
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT hashtextextended(limit_name || CASE WHEN key IS NULL THEN '' ELSE E'\x01' || key END, 1668248948)
$fn$;

-- The start of the period that contains a time, aligned in the limit's time zone: whole months from 2000-01-01 for
-- periods made of months, otherwise date_bin from 2000-01-01 (midnight, in that zone).
CREATE OR REPLACE FUNCTION countercache.period_start(period interval, time_zone text, at timestamptz)
RETURNS timestamptz
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN x.months > 0 THEN
               (timestamp '2000-01-01'
                + floor(((extract(year FROM x.t) - 2000) * 12 + extract(month FROM x.t) - 1) / x.months) * x.months
                  * interval '1 month') AT TIME ZONE time_zone
           ELSE date_bin(period, x.t, timestamp '2000-01-01') AT TIME ZONE time_zone END
      FROM (SELECT at AT TIME ZONE time_zone AS t,
                   (extract(year FROM period) * 12 + extract(month FROM period))::integer AS months) x
$fn$;

-- Declares a limit (or changes it): name, period, default limit, time zone of the period's alignment, periods kept.
CREATE OR REPLACE FUNCTION countercache.define_limit(name text, period interval, default_limit bigint,
                                                    time_zone text DEFAULT 'UTC', retention integer DEFAULT 2,
                                                    declared_by text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    who text := coalesce(declared_by, 'countercache.define_limit(' || coalesce(quote_literal(name), 'NULL') || ')');
BEGIN
    IF name IS NULL OR name = '' THEN
        RAISE EXCEPTION '%: a limit needs a name', who USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF period IS NULL OR period <= interval '0' THEN
        RAISE EXCEPTION '%: period must be a positive interval, got %', who, coalesce(period::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'for example interval ''1 day''';
    END IF;
    IF extract(month FROM period) + extract(year FROM period) * 12 > 0
       AND period <> (extract(year FROM period) * 12 + extract(month FROM period)) * interval '1 month' THEN
        RAISE EXCEPTION '%: period % mixes months with smaller units', who, period
            USING ERRCODE = 'invalid_parameter_value', HINT = 'use whole months, or days and smaller units';
    END IF;
    IF default_limit IS NULL OR default_limit < 0 THEN
        RAISE EXCEPTION '%: the limit must be 0 or more, got %', who, coalesce(default_limit::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF time_zone IS NULL OR NOT EXISTS (SELECT 1 FROM pg_timezone_names z WHERE z.name = time_zone) THEN
        RAISE EXCEPTION '%: unknown time zone %', who, coalesce(quote_literal(time_zone), 'NULL')
            USING ERRCODE = 'invalid_parameter_value', HINT = 'use a name from pg_timezone_names, such as UTC or Europe/Vienna';
    END IF;
    IF retention IS NULL OR retention < 1 THEN
        RAISE EXCEPTION '%: retention must be at least 1 period, got %', who, coalesce(retention::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM pg_advisory_xact_lock(countercache.limit_lock(name, NULL));
    INSERT INTO countercache.limit_def AS l (name, period, time_zone, default_limit, retention, declared_by)
    VALUES (name, period, time_zone, default_limit, retention, define_limit.declared_by)
    ON CONFLICT ON CONSTRAINT limit_def_pkey DO UPDATE
       SET period = excluded.period, time_zone = excluded.time_zone, default_limit = excluded.default_limit,
           retention = excluded.retention, declared_by = excluded.declared_by, defined_at = now()
     WHERE (l.period, l.time_zone, l.default_limit, l.retention, l.declared_by)
           IS DISTINCT FROM (excluded.period, excluded.time_zone, excluded.default_limit, excluded.retention,
                             excluded.declared_by);
END
$fn$;

-- Sets the limit of one key for a time range (NULL bounds are open), refusing a range that overlaps another of the
-- same key.
CREATE OR REPLACE FUNCTION countercache.set_key_limit(limit_name text, key text, max_admits bigint,
                                                     valid_from timestamptz DEFAULT NULL,
                                                     valid_until timestamptz DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    r tstzrange;
    other tstzrange;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM countercache.limit_def l WHERE l.name = set_key_limit.limit_name) THEN
        PERFORM countercache.unknown_limit(limit_name);
    END IF;
    IF key IS NULL OR max_admits IS NULL OR max_admits < 0 THEN
        RAISE EXCEPTION 'countercache.set_key_limit(%): the key must not be NULL and the limit must be 0 or more, got %',
            quote_literal(limit_name), coalesce(max_admits::text, 'NULL') USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF valid_from IS NOT NULL AND valid_until IS NOT NULL AND valid_until <= valid_from THEN
        RAISE EXCEPTION 'countercache.set_key_limit(%, %): the range ends (%) before it starts (%)',
            quote_literal(limit_name), quote_literal(key), valid_until, valid_from USING ERRCODE = 'invalid_parameter_value';
    END IF;
    r := tstzrange(valid_from, valid_until, '[)');
    -- exclusive against the admissions of this key, and against another change of it: no overlap can slip in
    PERFORM pg_advisory_xact_lock(countercache.limit_lock(limit_name, key));
    SELECT k.valid INTO other FROM countercache.limit_key k
     WHERE k.limit_name = set_key_limit.limit_name AND k.key = set_key_limit.key AND k.valid && r LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'countercache.set_key_limit(%, %): % overlaps the range % this key already has', quote_literal(limit_name),
            quote_literal(key), r, other
            USING ERRCODE = 'exclusion_violation', HINT = 'end or remove the other range first (DELETE FROM countercache.limit_key)';
    END IF;
    INSERT INTO countercache.limit_key (limit_name, key, max_admits, valid) VALUES (limit_name, key, max_admits, r);
END
$fn$;

CREATE OR REPLACE FUNCTION countercache.unknown_limit(name text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    RAISE EXCEPTION 'countercache: no limit named %', coalesce(quote_literal(name), 'NULL')
        USING ERRCODE = 'invalid_parameter_value',
              HINT = coalesce('the limits are: ' || (SELECT string_agg(quote_literal(l.name), ', ' ORDER BY l.name)
                                                       FROM countercache.limit_def l),
                              'no limit is defined: declare one with countercache.define_limit');
END
$fn$;

-- Admits one request of a key if the key's count in the current period is below the limit in force, counting the
-- attempt either way, in the caller's transaction (a rollback takes both back). Returns whether it was admitted, the
-- period's admitted and attempted counts after it, the limit it was judged against and the period's start.
CREATE OR REPLACE FUNCTION countercache.admit_report(limit_name text, key text)
RETURNS TABLE (admitted boolean, admitted_count bigint, attempted_count bigint, max_admits bigint,
               period_start timestamptz)
LANGUAGE plpgsql
SECURITY DEFINER   -- an application granted EXECUTE admits without any right on the count table
SET search_path = pg_catalog, pg_temp
AS $fn$
#variable_conflict use_column
BEGIN
    IF key IS NULL THEN
        RAISE EXCEPTION 'countercache.admit(%, NULL): the key must not be NULL', quote_literal(limit_name)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM pg_advisory_xact_lock_shared(countercache.limit_lock(admit_report.limit_name, NULL)),
            pg_advisory_xact_lock_shared(countercache.limit_lock(admit_report.limit_name, admit_report.key));
    -- a new statement, so a new snapshot: it sees any change of the limit committed before the locks were granted
    INSERT INTO countercache.limit_usage AS u (limit_name, key, period_start, admitted, attempted, last_admitted,
                                              max_admits)
    SELECT l.name, admit_report.key, countercache.period_start(l.period, l.time_zone, now()),
           least(1, x.cap), 1, x.cap > 0, x.cap
      FROM countercache.limit_def l,
           LATERAL (SELECT coalesce((SELECT k.max_admits FROM countercache.limit_key k
                                      WHERE k.limit_name = l.name AND k.key = admit_report.key AND k.valid @> now()),
                                    l.default_limit) AS cap) x
     WHERE l.name = admit_report.limit_name
    ON CONFLICT ON CONSTRAINT limit_usage_pkey DO UPDATE
       SET attempted = u.attempted + 1,
           admitted = u.admitted + CASE WHEN u.admitted < excluded.max_admits THEN 1 ELSE 0 END,
           last_admitted = u.admitted < excluded.max_admits,
           max_admits = excluded.max_admits
    RETURNING u.last_admitted, u.admitted, u.attempted, u.max_admits, u.period_start
         INTO admit_report.admitted, admit_report.admitted_count, admit_report.attempted_count,
              admit_report.max_admits, admit_report.period_start;
    IF NOT FOUND THEN
        PERFORM countercache.unknown_limit(limit_name);
    END IF;
    RETURN NEXT;
END
$fn$;

-- Whether one request of a key is admitted (see admit_report).
CREATE OR REPLACE FUNCTION countercache.admit(limit_name text, key text)
RETURNS boolean
LANGUAGE sql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT r.admitted FROM countercache.admit_report(limit_name, key) r
$fn$;

-- Usage per limit, key and period, with the limit in force now.
CREATE OR REPLACE VIEW countercache.limit_usage_report AS
    SELECT u.limit_name, u.key, u.period_start, u.period_start + l.period AS period_end, u.admitted, u.attempted,
           u.attempted - u.admitted AS rejected,
           coalesce((SELECT k.max_admits FROM countercache.limit_key k
                      WHERE k.limit_name = u.limit_name AND k.key = u.key AND k.valid @> now()), l.default_limit)
               AS max_admits_now
      FROM countercache.limit_usage u
      JOIN countercache.limit_def l ON l.name = u.limit_name;

-- Deletes the counts of periods older than each limit's retention, in batches of max_rows; returns how many went.
CREATE OR REPLACE FUNCTION countercache.prune_limit_usage(max_rows integer DEFAULT 10000)
RETURNS bigint
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH old AS (
        SELECT u.ctid FROM countercache.limit_usage u JOIN countercache.limit_def l ON l.name = u.limit_name
         WHERE u.period_start < countercache.period_start(l.period, l.time_zone, now()) - l.period * l.retention
         LIMIT max_rows FOR UPDATE OF u SKIP LOCKED
    ), gone AS (
        DELETE FROM countercache.limit_usage u USING old WHERE u.ctid = old.ctid RETURNING 1
    )
    SELECT count(*) FROM gone
$fn$;

-- Records that the changelog named changelog declares exactly the limits in keep, and forgets every other limit of
-- that changelog (or of none), with its key limits and counts; other changelogs' limits stay. Returns how many went.
DROP FUNCTION IF EXISTS countercache.prune_limits(text[]);
CREATE OR REPLACE FUNCTION countercache.prune_limits(changelog text, keep text[])
RETURNS integer
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH mine AS (
        UPDATE countercache.limit_def l SET changelog = prune_limits.changelog
         WHERE l.name = ANY (keep) AND l.changelog IS DISTINCT FROM prune_limits.changelog
    ), gone AS (
        DELETE FROM countercache.limit_def l
         WHERE NOT (l.name = ANY (keep)) AND l.changelog IN (prune_limits.changelog, '')
        RETURNING l.name
    ), counts AS (
        DELETE FROM countercache.limit_usage u USING gone WHERE u.limit_name = gone.name
    )
    SELECT count(*)::integer FROM gone
$fn$;

-- Least privilege: nothing here is anyone's but the owner's until granted (docs/security.md has the grant scripts).
-- Writers need no right at all: the capture and target triggers run SECURITY DEFINER.
REVOKE ALL ON SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL PROCEDURES IN SCHEMA countercache FROM PUBLIC;

-- Which schema.sql this is, so that a boot check can tell an installation made by another version.
CREATE OR REPLACE FUNCTION countercache.schema_version()
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$ SELECT '37c9d44c69e856ca' $fn$;

-- countercache-unit: countercache-check
SELECT countercache.report_problems(pg_catalog.array_agg(p.problem), pg_catalog.array_agg(p.fix))
  FROM (
    SELECT * FROM countercache.counter_problems(declared_by => 'Article.totalComments',
        target_schema => 'public', target_table => 'blog_article', target_key => 'id', key_type => 'bigint',
        target_column => 'total_comments', column_type => 'bigint',
        source_schema => 'public', source_table => 'blog_comment', source_fk => 'article_id',
        condition => NULL, sum_column => NULL,
        strategy => 'queue', slots => 0)
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'Article.totalLikes',
        target_schema => 'public', target_table => 'blog_article', target_key => 'id', key_type => 'bigint',
        target_column => 'total_likes', column_type => 'bigint',
        source_schema => 'public', source_table => 'blog_comment', source_fk => 'article_id',
        condition => NULL, sum_column => 'likes',
        strategy => 'queue', slots => 0)
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'Article.totalPublicComments',
        target_schema => 'public', target_table => 'blog_article', target_key => 'id', key_type => 'bigint',
        target_column => 'total_public_comments', column_type => 'bigint',
        source_schema => 'public', source_table => 'blog_comment', source_fk => 'article_id',
        condition => 'publish_status = ''public''', sum_column => NULL,
        strategy => 'queue', slots => 0)
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'User.totalPublicComments',
        target_schema => 'public', target_table => 'blog_user', target_key => 'id', key_type => 'bigint',
        target_column => 'total_public_comments', column_type => 'bigint',
        source_schema => 'public', source_table => 'blog_comment', source_fk => 'creator_id',
        condition => 'publish_status = ''public''', sum_column => NULL,
        strategy => 'queue', slots => 0)
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'Product.approvedReviews',
        target_schema => 'public', target_table => 'product', target_key => 'id', key_type => 'bigint',
        target_column => 'approved_reviews', column_type => 'bigint',
        source_schema => 'public', source_table => 'review', source_fk => 'product_id',
        condition => 'approved', sum_column => NULL,
        strategy => 'queue', slots => 0)
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'Product.stars',
        target_schema => 'public', target_table => 'product', target_key => 'id', key_type => 'bigint',
        target_column => 'stars', column_type => 'bigint',
        source_schema => 'public', source_table => 'review', source_fk => 'product_id',
        condition => 'approved', sum_column => 'stars',
        strategy => 'queue', slots => 0)
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'Shelf.books',
        target_schema => 'public', target_table => 'shelf', target_key => 'id', key_type => 'bigint',
        target_column => 'books', column_type => 'bigint',
        source_schema => 'public', source_table => 'book', source_fk => 'shelf_id',
        condition => NULL, sum_column => NULL,
        strategy => 'queue', slots => 0)
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'Shop.approvedReviews',
        target_schema => 'public', target_table => 'shop', target_key => 'id', key_type => 'bigint',
        target_column => 'approved_reviews', column_type => 'bigint',
        source_schema => 'public', source_table => 'review', source_fk => 'product_id',
        condition => 'approved', sum_column => NULL,
        strategy => 'queue', slots => 0,
        via_schema => 'public', via_table => 'product', via_key => 'id', via_key_type => 'bigint', via_fk => 'shop_id')
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'Shop.stars',
        target_schema => 'public', target_table => 'shop', target_key => 'id', key_type => 'bigint',
        target_column => 'stars', column_type => 'bigint',
        source_schema => 'public', source_table => 'review', source_fk => 'product_id',
        condition => NULL, sum_column => 'stars',
        strategy => 'queue', slots => 0,
        via_schema => 'public', via_table => 'product', via_key => 'id', via_key_type => 'bigint', via_fk => 'shop_id')
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'Order.total',
        target_schema => 'public', target_table => 'shop_order', target_key => 'id', key_type => 'uuid',
        target_column => 'total', column_type => 'bigint',
        source_schema => 'public', source_table => 'shop_line', source_fk => 'order_id',
        condition => NULL, sum_column => 'amount',
        strategy => 'queue', slots => 0)
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'Order.value',
        target_schema => 'public', target_table => 'shop_order', target_key => 'id', key_type => 'uuid',
        target_column => 'value', column_type => 'numeric(14,2)',
        source_schema => 'public', source_table => 'shop_line', source_fk => 'order_id',
        condition => NULL, sum_column => 'price',
        strategy => 'queue', slots => 0,
        scale => 2)
    UNION ALL
    SELECT * FROM countercache.counter_problems(declared_by => 'Tag.uses',
        target_schema => 'public', target_table => 'tag', target_key => 'id', key_type => 'integer',
        target_column => 'uses', column_type => 'integer',
        source_schema => 'public', source_table => 'tagging', source_fk => 'tag_id',
        condition => NULL, sum_column => NULL,
        strategy => 'queue', slots => 0)
  ) p;

-- countercache-unit: countercache-source-public.blog_comment
SELECT countercache.fail('Article.totalComments, Article.totalLikes, Article.totalPublicComments, User.totalPublicComments', pg_catalog.format('source table public.blog_comment also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.source_schema OPERATOR(pg_catalog.=) 'public' AND k.source_table OPERATOR(pg_catalog.=) 'blog_comment'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
-- Keeps writers of public.blog_comment out until commit (milliseconds: recounts run later), so that each write is counted by either the old triggers or the new ones.
SELECT countercache.fail('Article.totalComments, Article.totalLikes, Article.totalPublicComments, User.totalPublicComments', 'source table public.blog_comment does not exist',
    'apply the changelog that creates it before the countercache changelog')
 WHERE pg_catalog.to_regclass('"public"."blog_comment"') IS NULL;
LOCK TABLE "public"."blog_comment" IN SHARE ROW EXCLUSIVE MODE;

SELECT countercache.define_counter(
    id => 347335187, name => 'public.blog_article.total_comments', declared_by => 'Article.totalComments',
    target_schema => 'public', target_table => 'blog_article', target_key => 'id', key_type => 'bigint',
    target_column => 'total_comments', column_type => 'bigint',
    source_schema => 'public', source_table => 'blog_comment', source_fk => 'article_id',
    condition => NULL, sum_column => NULL,
    strategy => 'queue', slots => 0,
    definition_hash => 'b1145ba5c3998fdf7b45e1ec');

SELECT countercache.define_counter(
    id => 1341308473, name => 'public.blog_article.total_likes', declared_by => 'Article.totalLikes',
    target_schema => 'public', target_table => 'blog_article', target_key => 'id', key_type => 'bigint',
    target_column => 'total_likes', column_type => 'bigint',
    source_schema => 'public', source_table => 'blog_comment', source_fk => 'article_id',
    condition => NULL, sum_column => 'likes',
    strategy => 'queue', slots => 0,
    definition_hash => '26059c6866cadd03f2db7304');

SELECT countercache.define_counter(
    id => 1324712807, name => 'public.blog_article.total_public_comments', declared_by => 'Article.totalPublicComments',
    target_schema => 'public', target_table => 'blog_article', target_key => 'id', key_type => 'bigint',
    target_column => 'total_public_comments', column_type => 'bigint',
    source_schema => 'public', source_table => 'blog_comment', source_fk => 'article_id',
    condition => 'publish_status = ''public''', sum_column => NULL,
    strategy => 'queue', slots => 0,
    definition_hash => '00df31d6fcff75166bac9d98');

SELECT countercache.define_counter(
    id => 1854263637, name => 'public.blog_user.total_public_comments', declared_by => 'User.totalPublicComments',
    target_schema => 'public', target_table => 'blog_user', target_key => 'id', key_type => 'bigint',
    target_column => 'total_public_comments', column_type => 'bigint',
    source_schema => 'public', source_table => 'blog_comment', source_fk => 'creator_id',
    condition => 'publish_status = ''public''', sum_column => NULL,
    strategy => 'queue', slots => 0,
    definition_hash => '8b1cd055cdfc30d225e4664b');

CREATE OR REPLACE FUNCTION countercache."capture_public_blog_comment_402851d4"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $capture$
#variable_conflict use_column
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'blog_comment' THEN
        RAISE EXCEPTION 'countercache: % serves public.blog_comment only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ 347335187 AS c, "blog_comment"."article_id" AS k, 1 AS d FROM countercache_new AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Article.totalLikes */ 1341308473 AS c, "blog_comment"."article_id" AS k, coalesce("blog_comment"."likes", 0)::bigint AS d FROM countercache_new AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Article.totalPublicComments */ 1324712807 AS c, "blog_comment"."article_id" AS k, 1 AS d FROM countercache_new AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL AND (publish_status = 'public')
            UNION ALL
            SELECT /* @CounterCache on User.totalPublicComments */ 1854263637 AS c, "blog_comment"."creator_id" AS k, 1 AS d FROM countercache_new AS "blog_comment" WHERE "blog_comment"."creator_id" IS NOT NULL AND (publish_status = 'public')
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ 347335187 AS c, "blog_comment"."article_id" AS k, -1 AS d FROM countercache_old AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Article.totalLikes */ 1341308473 AS c, "blog_comment"."article_id" AS k, -coalesce("blog_comment"."likes", 0)::bigint AS d FROM countercache_old AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Article.totalPublicComments */ 1324712807 AS c, "blog_comment"."article_id" AS k, -1 AS d FROM countercache_old AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL AND (publish_status = 'public')
            UNION ALL
            SELECT /* @CounterCache on User.totalPublicComments */ 1854263637 AS c, "blog_comment"."creator_id" AS k, -1 AS d FROM countercache_old AS "blog_comment" WHERE "blog_comment"."creator_id" IS NOT NULL AND (publish_status = 'public')
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ 347335187 AS c, "blog_comment"."article_id" AS k, 1 AS d FROM countercache_new AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Article.totalComments */ 347335187 AS c, "blog_comment"."article_id" AS k, -1 AS d FROM countercache_old AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Article.totalLikes */ 1341308473 AS c, "blog_comment"."article_id" AS k, coalesce("blog_comment"."likes", 0)::bigint AS d FROM countercache_new AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Article.totalLikes */ 1341308473 AS c, "blog_comment"."article_id" AS k, -coalesce("blog_comment"."likes", 0)::bigint AS d FROM countercache_old AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Article.totalPublicComments */ 1324712807 AS c, "blog_comment"."article_id" AS k, 1 AS d FROM countercache_new AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL AND (publish_status = 'public')
            UNION ALL
            SELECT /* @CounterCache on Article.totalPublicComments */ 1324712807 AS c, "blog_comment"."article_id" AS k, -1 AS d FROM countercache_old AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL AND (publish_status = 'public')
            UNION ALL
            SELECT /* @CounterCache on User.totalPublicComments */ 1854263637 AS c, "blog_comment"."creator_id" AS k, 1 AS d FROM countercache_new AS "blog_comment" WHERE "blog_comment"."creator_id" IS NOT NULL AND (publish_status = 'public')
            UNION ALL
            SELECT /* @CounterCache on User.totalPublicComments */ 1854263637 AS c, "blog_comment"."creator_id" AS k, -1 AS d FROM countercache_old AS "blog_comment" WHERE "blog_comment"."creator_id" IS NOT NULL AND (publish_status = 'public')
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted
        PERFORM countercache.require_read_committed('TRUNCATE of public.blog_comment',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ 347335187 AS c, "blog_comment"."article_id" AS k, -1 AS d FROM "public"."blog_comment" AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Article.totalLikes */ 1341308473 AS c, "blog_comment"."article_id" AS k, -coalesce("blog_comment"."likes", 0)::bigint AS d FROM "public"."blog_comment" AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Article.totalPublicComments */ 1324712807 AS c, "blog_comment"."article_id" AS k, -1 AS d FROM "public"."blog_comment" AS "blog_comment" WHERE "blog_comment"."article_id" IS NOT NULL AND (publish_status = 'public')
            UNION ALL
            SELECT /* @CounterCache on User.totalPublicComments */ 1854263637 AS c, "blog_comment"."creator_id" AS k, -1 AS d FROM "public"."blog_comment" AS "blog_comment" WHERE "blog_comment"."creator_id" IS NOT NULL AND (publish_status = 'public')
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    END IF;
    RETURN NULL;
END
$capture$;
REVOKE ALL ON FUNCTION countercache."capture_public_blog_comment_402851d4"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_insert AFTER INSERT ON "public"."blog_comment"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_blog_comment_402851d4"();
CREATE OR REPLACE TRIGGER countercache_update AFTER UPDATE ON "public"."blog_comment"
    REFERENCING OLD TABLE AS countercache_old NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_blog_comment_402851d4"();
CREATE OR REPLACE TRIGGER countercache_delete AFTER DELETE ON "public"."blog_comment"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_blog_comment_402851d4"();
CREATE OR REPLACE TRIGGER countercache_truncate BEFORE TRUNCATE ON "public"."blog_comment"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_blog_comment_402851d4"();

-- countercache-unit: countercache-source-public.book
SELECT countercache.fail('Shelf.books', pg_catalog.format('source table public.book also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.source_schema OPERATOR(pg_catalog.=) 'public' AND k.source_table OPERATOR(pg_catalog.=) 'book'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
-- Keeps writers of public.book out until commit (milliseconds: recounts run later), so that each write is counted by either the old triggers or the new ones.
SELECT countercache.fail('Shelf.books', 'source table public.book does not exist',
    'apply the changelog that creates it before the countercache changelog')
 WHERE pg_catalog.to_regclass('"public"."book"') IS NULL;
LOCK TABLE "public"."book" IN SHARE ROW EXCLUSIVE MODE;

SELECT countercache.define_counter(
    id => 172503673, name => 'public.shelf.books', declared_by => 'Shelf.books',
    target_schema => 'public', target_table => 'shelf', target_key => 'id', key_type => 'bigint',
    target_column => 'books', column_type => 'bigint',
    source_schema => 'public', source_table => 'book', source_fk => 'shelf_id',
    condition => NULL, sum_column => NULL,
    strategy => 'queue', slots => 0,
    definition_hash => 'ff9903551719a22bad470604');

CREATE OR REPLACE FUNCTION countercache."capture_public_book_77dab5b4"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $capture$
#variable_conflict use_column
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'book' THEN
        RAISE EXCEPTION 'countercache: % serves public.book only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Shelf.books */ 172503673 AS c, "book"."shelf_id" AS k, 1 AS d FROM countercache_new AS "book" WHERE "book"."shelf_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Shelf.books */ 172503673 AS c, "book"."shelf_id" AS k, -1 AS d FROM countercache_old AS "book" WHERE "book"."shelf_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Shelf.books */ 172503673 AS c, "book"."shelf_id" AS k, 1 AS d FROM countercache_new AS "book" WHERE "book"."shelf_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shelf.books */ 172503673 AS c, "book"."shelf_id" AS k, -1 AS d FROM countercache_old AS "book" WHERE "book"."shelf_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted
        PERFORM countercache.require_read_committed('TRUNCATE of public.book',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Shelf.books */ 172503673 AS c, "book"."shelf_id" AS k, -1 AS d FROM "public"."book" AS "book" WHERE "book"."shelf_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    END IF;
    RETURN NULL;
END
$capture$;
REVOKE ALL ON FUNCTION countercache."capture_public_book_77dab5b4"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_insert AFTER INSERT ON "public"."book"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_book_77dab5b4"();
CREATE OR REPLACE TRIGGER countercache_update AFTER UPDATE ON "public"."book"
    REFERENCING OLD TABLE AS countercache_old NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_book_77dab5b4"();
CREATE OR REPLACE TRIGGER countercache_delete AFTER DELETE ON "public"."book"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_book_77dab5b4"();
CREATE OR REPLACE TRIGGER countercache_truncate BEFORE TRUNCATE ON "public"."book"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_book_77dab5b4"();

-- countercache-unit: countercache-source-public.review
SELECT countercache.fail('Product.approvedReviews, Product.stars, Shop.approvedReviews, Shop.stars', pg_catalog.format('source table public.review also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.source_schema OPERATOR(pg_catalog.=) 'public' AND k.source_table OPERATOR(pg_catalog.=) 'review'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
-- Keeps writers of public.review out until commit (milliseconds: recounts run later), so that each write is counted by either the old triggers or the new ones.
SELECT countercache.fail('Product.approvedReviews, Product.stars, Shop.approvedReviews, Shop.stars', 'source table public.review does not exist',
    'apply the changelog that creates it before the countercache changelog')
 WHERE pg_catalog.to_regclass('"public"."review"') IS NULL;
LOCK TABLE "public"."review" IN SHARE ROW EXCLUSIVE MODE;

SELECT countercache.define_counter(
    id => 11400920, name => 'public.product.approved_reviews', declared_by => 'Product.approvedReviews',
    target_schema => 'public', target_table => 'product', target_key => 'id', key_type => 'bigint',
    target_column => 'approved_reviews', column_type => 'bigint',
    source_schema => 'public', source_table => 'review', source_fk => 'product_id',
    condition => 'approved', sum_column => NULL,
    strategy => 'queue', slots => 0,
    definition_hash => '7a06d3d3b37120088c851687');

SELECT countercache.define_counter(
    id => 1551684280, name => 'public.product.stars', declared_by => 'Product.stars',
    target_schema => 'public', target_table => 'product', target_key => 'id', key_type => 'bigint',
    target_column => 'stars', column_type => 'bigint',
    source_schema => 'public', source_table => 'review', source_fk => 'product_id',
    condition => 'approved', sum_column => 'stars',
    strategy => 'queue', slots => 0,
    definition_hash => '3eba6714cbd3888ef2020ff2');

SELECT countercache.define_counter(
    id => 2019686914, name => 'public.shop.approved_reviews', declared_by => 'Shop.approvedReviews',
    target_schema => 'public', target_table => 'shop', target_key => 'id', key_type => 'bigint',
    target_column => 'approved_reviews', column_type => 'bigint',
    source_schema => 'public', source_table => 'review', source_fk => 'product_id',
    condition => 'approved', sum_column => NULL,
    strategy => 'queue', slots => 0,
    via_schema => 'public', via_table => 'product', via_key => 'id', via_key_type => 'bigint', via_fk => 'shop_id',
    definition_hash => '0da805ccb0d0911398291e72');

SELECT countercache.define_counter(
    id => 592141636, name => 'public.shop.stars', declared_by => 'Shop.stars',
    target_schema => 'public', target_table => 'shop', target_key => 'id', key_type => 'bigint',
    target_column => 'stars', column_type => 'bigint',
    source_schema => 'public', source_table => 'review', source_fk => 'product_id',
    condition => NULL, sum_column => 'stars',
    strategy => 'queue', slots => 0,
    via_schema => 'public', via_table => 'product', via_key => 'id', via_key_type => 'bigint', via_fk => 'shop_id',
    definition_hash => 'f0f2fe577fc44c94450a6f21');

CREATE OR REPLACE FUNCTION countercache."capture_public_review_1f442f93"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $capture$
#variable_conflict use_column
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'review' THEN
        RAISE EXCEPTION 'countercache: % serves public.review only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ 11400920 AS c, "review"."product_id" AS k, 1 AS d FROM countercache_new AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Product.stars */ 1551684280 AS c, "review"."product_id" AS k, coalesce("review"."stars", 0)::bigint AS d FROM countercache_new AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ 2019686914 AS c, v."shop_id" AS k, s.d FROM (SELECT "review"."product_id" AS f, 1 AS d FROM countercache_new AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)) s JOIN "public"."product" v ON v."id" = s.f WHERE v."shop_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ 592141636 AS c, v."shop_id" AS k, s.d FROM (SELECT "review"."product_id" AS f, coalesce("review"."stars", 0)::bigint AS d FROM countercache_new AS "review" WHERE "review"."product_id" IS NOT NULL) s JOIN "public"."product" v ON v."id" = s.f WHERE v."shop_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM FROM "public"."product" v WHERE v."id" IN (SELECT x."product_id" FROM countercache_old x)
            ORDER BY v."id" FOR KEY SHARE OF v;
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ 11400920 AS c, "review"."product_id" AS k, -1 AS d FROM countercache_old AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Product.stars */ 1551684280 AS c, "review"."product_id" AS k, -coalesce("review"."stars", 0)::bigint AS d FROM countercache_old AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ 2019686914 AS c, v."shop_id" AS k, s.d FROM (SELECT "review"."product_id" AS f, -1 AS d FROM countercache_old AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)) s JOIN "public"."product" v ON v."id" = s.f WHERE v."shop_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ 592141636 AS c, v."shop_id" AS k, s.d FROM (SELECT "review"."product_id" AS f, -coalesce("review"."stars", 0)::bigint AS d FROM countercache_old AS "review" WHERE "review"."product_id" IS NOT NULL) s JOIN "public"."product" v ON v."id" = s.f WHERE v."shop_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        PERFORM FROM "public"."product" v WHERE v."id" IN (SELECT x."product_id" FROM countercache_old x)
            ORDER BY v."id" FOR KEY SHARE OF v;
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ 11400920 AS c, "review"."product_id" AS k, 1 AS d FROM countercache_new AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Product.approvedReviews */ 11400920 AS c, "review"."product_id" AS k, -1 AS d FROM countercache_old AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Product.stars */ 1551684280 AS c, "review"."product_id" AS k, coalesce("review"."stars", 0)::bigint AS d FROM countercache_new AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Product.stars */ 1551684280 AS c, "review"."product_id" AS k, -coalesce("review"."stars", 0)::bigint AS d FROM countercache_old AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ 2019686914 AS c, v."shop_id" AS k, s.d FROM (SELECT "review"."product_id" AS f, 1 AS d FROM countercache_new AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)) s JOIN "public"."product" v ON v."id" = s.f WHERE v."shop_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ 2019686914 AS c, v."shop_id" AS k, s.d FROM (SELECT "review"."product_id" AS f, -1 AS d FROM countercache_old AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)) s JOIN "public"."product" v ON v."id" = s.f WHERE v."shop_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ 592141636 AS c, v."shop_id" AS k, s.d FROM (SELECT "review"."product_id" AS f, coalesce("review"."stars", 0)::bigint AS d FROM countercache_new AS "review" WHERE "review"."product_id" IS NOT NULL) s JOIN "public"."product" v ON v."id" = s.f WHERE v."shop_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ 592141636 AS c, v."shop_id" AS k, s.d FROM (SELECT "review"."product_id" AS f, -coalesce("review"."stars", 0)::bigint AS d FROM countercache_old AS "review" WHERE "review"."product_id" IS NOT NULL) s JOIN "public"."product" v ON v."id" = s.f WHERE v."shop_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted
        PERFORM countercache.require_read_committed('TRUNCATE of public.review',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        PERFORM FROM "public"."product" v WHERE v."id" IN (SELECT x."product_id" FROM "public"."review" x)
            ORDER BY v."id" FOR KEY SHARE OF v;
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ 11400920 AS c, "review"."product_id" AS k, -1 AS d FROM "public"."review" AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Product.stars */ 1551684280 AS c, "review"."product_id" AS k, -coalesce("review"."stars", 0)::bigint AS d FROM "public"."review" AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ 2019686914 AS c, v."shop_id" AS k, s.d FROM (SELECT "review"."product_id" AS f, -1 AS d FROM "public"."review" AS "review" WHERE "review"."product_id" IS NOT NULL AND (approved)) s JOIN "public"."product" v ON v."id" = s.f WHERE v."shop_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ 592141636 AS c, v."shop_id" AS k, s.d FROM (SELECT "review"."product_id" AS f, -coalesce("review"."stars", 0)::bigint AS d FROM "public"."review" AS "review" WHERE "review"."product_id" IS NOT NULL) s JOIN "public"."product" v ON v."id" = s.f WHERE v."shop_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    END IF;
    RETURN NULL;
END
$capture$;
REVOKE ALL ON FUNCTION countercache."capture_public_review_1f442f93"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_insert AFTER INSERT ON "public"."review"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_review_1f442f93"();
CREATE OR REPLACE TRIGGER countercache_update AFTER UPDATE ON "public"."review"
    REFERENCING OLD TABLE AS countercache_old NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_review_1f442f93"();
CREATE OR REPLACE TRIGGER countercache_delete AFTER DELETE ON "public"."review"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_review_1f442f93"();
CREATE OR REPLACE TRIGGER countercache_truncate BEFORE TRUNCATE ON "public"."review"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_review_1f442f93"();

-- countercache-unit: countercache-source-public.shop_line
SELECT countercache.fail('Order.total, Order.value', pg_catalog.format('source table public.shop_line also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.source_schema OPERATOR(pg_catalog.=) 'public' AND k.source_table OPERATOR(pg_catalog.=) 'shop_line'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
-- Keeps writers of public.shop_line out until commit (milliseconds: recounts run later), so that each write is counted by either the old triggers or the new ones.
SELECT countercache.fail('Order.total, Order.value', 'source table public.shop_line does not exist',
    'apply the changelog that creates it before the countercache changelog')
 WHERE pg_catalog.to_regclass('"public"."shop_line"') IS NULL;
LOCK TABLE "public"."shop_line" IN SHARE ROW EXCLUSIVE MODE;

SELECT countercache.define_counter(
    id => 1200304570, name => 'public.shop_order.total', declared_by => 'Order.total',
    target_schema => 'public', target_table => 'shop_order', target_key => 'id', key_type => 'uuid',
    target_column => 'total', column_type => 'bigint',
    source_schema => 'public', source_table => 'shop_line', source_fk => 'order_id',
    condition => NULL, sum_column => 'amount',
    strategy => 'queue', slots => 0,
    definition_hash => 'cdb16a62cff2f3f4c673f5d2');

SELECT countercache.define_counter(
    id => 416516304, name => 'public.shop_order.value', declared_by => 'Order.value',
    target_schema => 'public', target_table => 'shop_order', target_key => 'id', key_type => 'uuid',
    target_column => 'value', column_type => 'numeric(14,2)',
    source_schema => 'public', source_table => 'shop_line', source_fk => 'order_id',
    condition => NULL, sum_column => 'price',
    strategy => 'queue', slots => 0,
    scale => 2,
    definition_hash => '15b2e21fe3ad2e71a499ee6a');

CREATE OR REPLACE FUNCTION countercache."capture_public_shop_line_25283294"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $capture$
#variable_conflict use_column
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'shop_line' THEN
        RAISE EXCEPTION 'countercache: % serves public.shop_line only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_uuid, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ 1200304570 AS c, "shop_line"."order_id" AS k, coalesce("shop_line"."amount", 0)::bigint AS d FROM countercache_new AS "shop_line" WHERE "shop_line"."order_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Order.value */ 416516304 AS c, "shop_line"."order_id" AS k, (coalesce("shop_line"."price", 0) * 100)::bigint AS d FROM countercache_new AS "shop_line" WHERE "shop_line"."order_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_uuid, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ 1200304570 AS c, "shop_line"."order_id" AS k, -coalesce("shop_line"."amount", 0)::bigint AS d FROM countercache_old AS "shop_line" WHERE "shop_line"."order_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Order.value */ 416516304 AS c, "shop_line"."order_id" AS k, -(coalesce("shop_line"."price", 0) * 100)::bigint AS d FROM countercache_old AS "shop_line" WHERE "shop_line"."order_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO countercache.delta (counter_id, target_uuid, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ 1200304570 AS c, "shop_line"."order_id" AS k, coalesce("shop_line"."amount", 0)::bigint AS d FROM countercache_new AS "shop_line" WHERE "shop_line"."order_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Order.total */ 1200304570 AS c, "shop_line"."order_id" AS k, -coalesce("shop_line"."amount", 0)::bigint AS d FROM countercache_old AS "shop_line" WHERE "shop_line"."order_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Order.value */ 416516304 AS c, "shop_line"."order_id" AS k, (coalesce("shop_line"."price", 0) * 100)::bigint AS d FROM countercache_new AS "shop_line" WHERE "shop_line"."order_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Order.value */ 416516304 AS c, "shop_line"."order_id" AS k, -(coalesce("shop_line"."price", 0) * 100)::bigint AS d FROM countercache_old AS "shop_line" WHERE "shop_line"."order_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted
        PERFORM countercache.require_read_committed('TRUNCATE of public.shop_line',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_uuid, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ 1200304570 AS c, "shop_line"."order_id" AS k, -coalesce("shop_line"."amount", 0)::bigint AS d FROM "public"."shop_line" AS "shop_line" WHERE "shop_line"."order_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Order.value */ 416516304 AS c, "shop_line"."order_id" AS k, -(coalesce("shop_line"."price", 0) * 100)::bigint AS d FROM "public"."shop_line" AS "shop_line" WHERE "shop_line"."order_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    END IF;
    RETURN NULL;
END
$capture$;
REVOKE ALL ON FUNCTION countercache."capture_public_shop_line_25283294"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_insert AFTER INSERT ON "public"."shop_line"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_shop_line_25283294"();
CREATE OR REPLACE TRIGGER countercache_update AFTER UPDATE ON "public"."shop_line"
    REFERENCING OLD TABLE AS countercache_old NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_shop_line_25283294"();
CREATE OR REPLACE TRIGGER countercache_delete AFTER DELETE ON "public"."shop_line"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_shop_line_25283294"();
CREATE OR REPLACE TRIGGER countercache_truncate BEFORE TRUNCATE ON "public"."shop_line"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_shop_line_25283294"();

-- countercache-unit: countercache-source-public.tagging
SELECT countercache.fail('Tag.uses', pg_catalog.format('source table public.tagging also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.source_schema OPERATOR(pg_catalog.=) 'public' AND k.source_table OPERATOR(pg_catalog.=) 'tagging'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
-- Keeps writers of public.tagging out until commit (milliseconds: recounts run later), so that each write is counted by either the old triggers or the new ones.
SELECT countercache.fail('Tag.uses', 'source table public.tagging does not exist',
    'apply the changelog that creates it before the countercache changelog')
 WHERE pg_catalog.to_regclass('"public"."tagging"') IS NULL;
LOCK TABLE "public"."tagging" IN SHARE ROW EXCLUSIVE MODE;

SELECT countercache.define_counter(
    id => 314919807, name => 'public.tag.uses', declared_by => 'Tag.uses',
    target_schema => 'public', target_table => 'tag', target_key => 'id', key_type => 'integer',
    target_column => 'uses', column_type => 'integer',
    source_schema => 'public', source_table => 'tagging', source_fk => 'tag_id',
    condition => NULL, sum_column => NULL,
    strategy => 'queue', slots => 0,
    definition_hash => 'b151cb2f4a47a9a671ba520c');

CREATE OR REPLACE FUNCTION countercache."capture_public_tagging_eea7bcde"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $capture$
#variable_conflict use_column
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'tagging' THEN
        RAISE EXCEPTION 'countercache: % serves public.tagging only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ 314919807 AS c, "tagging"."tag_id" AS k, 1 AS d FROM countercache_new AS "tagging" WHERE "tagging"."tag_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ 314919807 AS c, "tagging"."tag_id" AS k, -1 AS d FROM countercache_old AS "tagging" WHERE "tagging"."tag_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ 314919807 AS c, "tagging"."tag_id" AS k, 1 AS d FROM countercache_new AS "tagging" WHERE "tagging"."tag_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Tag.uses */ 314919807 AS c, "tagging"."tag_id" AS k, -1 AS d FROM countercache_old AS "tagging" WHERE "tagging"."tag_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted
        PERFORM countercache.require_read_committed('TRUNCATE of public.tagging',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ 314919807 AS c, "tagging"."tag_id" AS k, -1 AS d FROM "public"."tagging" AS "tagging" WHERE "tagging"."tag_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    END IF;
    RETURN NULL;
END
$capture$;
REVOKE ALL ON FUNCTION countercache."capture_public_tagging_eea7bcde"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_insert AFTER INSERT ON "public"."tagging"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_tagging_eea7bcde"();
CREATE OR REPLACE TRIGGER countercache_update AFTER UPDATE ON "public"."tagging"
    REFERENCING OLD TABLE AS countercache_old NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_tagging_eea7bcde"();
CREATE OR REPLACE TRIGGER countercache_delete AFTER DELETE ON "public"."tagging"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_tagging_eea7bcde"();
CREATE OR REPLACE TRIGGER countercache_truncate BEFORE TRUNCATE ON "public"."tagging"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."capture_public_tagging_eea7bcde"();

-- countercache-unit: countercache-target-public.blog_article
SELECT countercache.fail('Article.totalComments, Article.totalLikes, Article.totalPublicComments', pg_catalog.format('target table public.blog_article also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.target_schema OPERATOR(pg_catalog.=) 'public' AND k.target_table OPERATOR(pg_catalog.=) 'blog_article'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
CREATE OR REPLACE FUNCTION countercache."target_public_blog_article_8d1d5daa"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $target$
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'blog_article' THEN
        RAISE EXCEPTION 'countercache: % serves public.blog_article only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 347335187 AS c, r."id" AS k, -coalesce(r."total_comments", 0)::bigint AS d FROM countercache_new AS r
            UNION ALL
            SELECT 1341308473 AS c, r."id" AS k, -coalesce(r."total_likes", 0)::bigint AS d FROM countercache_new AS r
            UNION ALL
            SELECT 1324712807 AS c, r."id" AS k, -coalesce(r."total_public_comments", 0)::bigint AS d FROM countercache_new AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 347335187 AS c, r."id" AS k, coalesce(r."total_comments", 0)::bigint AS d FROM countercache_old AS r
            UNION ALL
            SELECT 1341308473 AS c, r."id" AS k, coalesce(r."total_likes", 0)::bigint AS d FROM countercache_old AS r
            UNION ALL
            SELECT 1324712807 AS c, r."id" AS k, coalesce(r."total_public_comments", 0)::bigint AS d FROM countercache_old AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        -- the key changed (a row trigger, only then): the old key gets its values back
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (VALUES
            (347335187, OLD."id", coalesce(OLD."total_comments", 0)::bigint), (347335187, NEW."id", -coalesce(NEW."total_comments", 0)::bigint),
            (1341308473, OLD."id", coalesce(OLD."total_likes", 0)::bigint), (1341308473, NEW."id", -coalesce(NEW."total_likes", 0)::bigint),
            (1324712807, OLD."id", coalesce(OLD."total_public_comments", 0)::bigint), (1324712807, NEW."id", -coalesce(NEW."total_public_comments", 0)::bigint)
        ) v(c, k, d) WHERE d <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        PERFORM countercache.require_read_committed('TRUNCATE of public.blog_article',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 347335187 AS c, r."id" AS k, coalesce(r."total_comments", 0)::bigint AS d FROM "public"."blog_article" AS r
            UNION ALL
            SELECT 1341308473 AS c, r."id" AS k, coalesce(r."total_likes", 0)::bigint AS d FROM "public"."blog_article" AS r
            UNION ALL
            SELECT 1324712807 AS c, r."id" AS k, coalesce(r."total_public_comments", 0)::bigint AS d FROM "public"."blog_article" AS r
        ) s WHERE d <> 0;
    END IF;
    RETURN NULL;
END
$target$;
REVOKE ALL ON FUNCTION countercache."target_public_blog_article_8d1d5daa"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_target_insert AFTER INSERT ON "public"."blog_article"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_blog_article_8d1d5daa"();
CREATE OR REPLACE TRIGGER countercache_target_delete AFTER DELETE ON "public"."blog_article"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_blog_article_8d1d5daa"();
CREATE OR REPLACE TRIGGER countercache_target_key AFTER UPDATE OF "id" ON "public"."blog_article"
    FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION countercache."target_public_blog_article_8d1d5daa"();
CREATE OR REPLACE TRIGGER countercache_target_truncate BEFORE TRUNCATE ON "public"."blog_article"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_blog_article_8d1d5daa"();

-- countercache-unit: countercache-target-public.blog_user
SELECT countercache.fail('User.totalPublicComments', pg_catalog.format('target table public.blog_user also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.target_schema OPERATOR(pg_catalog.=) 'public' AND k.target_table OPERATOR(pg_catalog.=) 'blog_user'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
CREATE OR REPLACE FUNCTION countercache."target_public_blog_user_f9fc9c8c"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $target$
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'blog_user' THEN
        RAISE EXCEPTION 'countercache: % serves public.blog_user only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 1854263637 AS c, r."id" AS k, -coalesce(r."total_public_comments", 0)::bigint AS d FROM countercache_new AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 1854263637 AS c, r."id" AS k, coalesce(r."total_public_comments", 0)::bigint AS d FROM countercache_old AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        -- the key changed (a row trigger, only then): the old key gets its values back
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (VALUES
            (1854263637, OLD."id", coalesce(OLD."total_public_comments", 0)::bigint), (1854263637, NEW."id", -coalesce(NEW."total_public_comments", 0)::bigint)
        ) v(c, k, d) WHERE d <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        PERFORM countercache.require_read_committed('TRUNCATE of public.blog_user',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 1854263637 AS c, r."id" AS k, coalesce(r."total_public_comments", 0)::bigint AS d FROM "public"."blog_user" AS r
        ) s WHERE d <> 0;
    END IF;
    RETURN NULL;
END
$target$;
REVOKE ALL ON FUNCTION countercache."target_public_blog_user_f9fc9c8c"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_target_insert AFTER INSERT ON "public"."blog_user"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_blog_user_f9fc9c8c"();
CREATE OR REPLACE TRIGGER countercache_target_delete AFTER DELETE ON "public"."blog_user"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_blog_user_f9fc9c8c"();
CREATE OR REPLACE TRIGGER countercache_target_key AFTER UPDATE OF "id" ON "public"."blog_user"
    FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION countercache."target_public_blog_user_f9fc9c8c"();
CREATE OR REPLACE TRIGGER countercache_target_truncate BEFORE TRUNCATE ON "public"."blog_user"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_blog_user_f9fc9c8c"();

-- countercache-unit: countercache-target-public.product
SELECT countercache.fail('Product.approvedReviews, Product.stars', pg_catalog.format('target table public.product also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.target_schema OPERATOR(pg_catalog.=) 'public' AND k.target_table OPERATOR(pg_catalog.=) 'product'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
CREATE OR REPLACE FUNCTION countercache."target_public_product_4d27a91c"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $target$
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'product' THEN
        RAISE EXCEPTION 'countercache: % serves public.product only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 11400920 AS c, r."id" AS k, -coalesce(r."approved_reviews", 0)::bigint AS d FROM countercache_new AS r
            UNION ALL
            SELECT 1551684280 AS c, r."id" AS k, -coalesce(r."stars", 0)::bigint AS d FROM countercache_new AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 11400920 AS c, r."id" AS k, coalesce(r."approved_reviews", 0)::bigint AS d FROM countercache_old AS r
            UNION ALL
            SELECT 1551684280 AS c, r."id" AS k, coalesce(r."stars", 0)::bigint AS d FROM countercache_old AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        -- the key changed (a row trigger, only then): the old key gets its values back
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (VALUES
            (11400920, OLD."id", coalesce(OLD."approved_reviews", 0)::bigint), (11400920, NEW."id", -coalesce(NEW."approved_reviews", 0)::bigint),
            (1551684280, OLD."id", coalesce(OLD."stars", 0)::bigint), (1551684280, NEW."id", -coalesce(NEW."stars", 0)::bigint)
        ) v(c, k, d) WHERE d <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        PERFORM countercache.require_read_committed('TRUNCATE of public.product',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 11400920 AS c, r."id" AS k, coalesce(r."approved_reviews", 0)::bigint AS d FROM "public"."product" AS r
            UNION ALL
            SELECT 1551684280 AS c, r."id" AS k, coalesce(r."stars", 0)::bigint AS d FROM "public"."product" AS r
        ) s WHERE d <> 0;
    END IF;
    RETURN NULL;
END
$target$;
REVOKE ALL ON FUNCTION countercache."target_public_product_4d27a91c"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_target_insert AFTER INSERT ON "public"."product"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_product_4d27a91c"();
CREATE OR REPLACE TRIGGER countercache_target_delete AFTER DELETE ON "public"."product"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_product_4d27a91c"();
CREATE OR REPLACE TRIGGER countercache_target_key AFTER UPDATE OF "id" ON "public"."product"
    FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION countercache."target_public_product_4d27a91c"();
CREATE OR REPLACE TRIGGER countercache_target_truncate BEFORE TRUNCATE ON "public"."product"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_product_4d27a91c"();

-- countercache-unit: countercache-target-public.shelf
SELECT countercache.fail('Shelf.books', pg_catalog.format('target table public.shelf also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.target_schema OPERATOR(pg_catalog.=) 'public' AND k.target_table OPERATOR(pg_catalog.=) 'shelf'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
CREATE OR REPLACE FUNCTION countercache."target_public_shelf_718ddc52"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $target$
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'shelf' THEN
        RAISE EXCEPTION 'countercache: % serves public.shelf only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 172503673 AS c, r."id" AS k, -coalesce(r."books", 0)::bigint AS d FROM countercache_new AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 172503673 AS c, r."id" AS k, coalesce(r."books", 0)::bigint AS d FROM countercache_old AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        -- the key changed (a row trigger, only then): the old key gets its values back
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (VALUES
            (172503673, OLD."id", coalesce(OLD."books", 0)::bigint), (172503673, NEW."id", -coalesce(NEW."books", 0)::bigint)
        ) v(c, k, d) WHERE d <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        PERFORM countercache.require_read_committed('TRUNCATE of public.shelf',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 172503673 AS c, r."id" AS k, coalesce(r."books", 0)::bigint AS d FROM "public"."shelf" AS r
        ) s WHERE d <> 0;
    END IF;
    RETURN NULL;
END
$target$;
REVOKE ALL ON FUNCTION countercache."target_public_shelf_718ddc52"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_target_insert AFTER INSERT ON "public"."shelf"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_shelf_718ddc52"();
CREATE OR REPLACE TRIGGER countercache_target_delete AFTER DELETE ON "public"."shelf"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_shelf_718ddc52"();
CREATE OR REPLACE TRIGGER countercache_target_key AFTER UPDATE OF "id" ON "public"."shelf"
    FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION countercache."target_public_shelf_718ddc52"();
CREATE OR REPLACE TRIGGER countercache_target_truncate BEFORE TRUNCATE ON "public"."shelf"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_shelf_718ddc52"();

-- countercache-unit: countercache-target-public.shop
SELECT countercache.fail('Shop.approvedReviews, Shop.stars', pg_catalog.format('target table public.shop also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.target_schema OPERATOR(pg_catalog.=) 'public' AND k.target_table OPERATOR(pg_catalog.=) 'shop'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
CREATE OR REPLACE FUNCTION countercache."target_public_shop_3a59ad7e"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $target$
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'shop' THEN
        RAISE EXCEPTION 'countercache: % serves public.shop only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 2019686914 AS c, r."id" AS k, -coalesce(r."approved_reviews", 0)::bigint AS d FROM countercache_new AS r
            UNION ALL
            SELECT 592141636 AS c, r."id" AS k, -coalesce(r."stars", 0)::bigint AS d FROM countercache_new AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 2019686914 AS c, r."id" AS k, coalesce(r."approved_reviews", 0)::bigint AS d FROM countercache_old AS r
            UNION ALL
            SELECT 592141636 AS c, r."id" AS k, coalesce(r."stars", 0)::bigint AS d FROM countercache_old AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        -- the key changed (a row trigger, only then): the old key gets its values back
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (VALUES
            (2019686914, OLD."id", coalesce(OLD."approved_reviews", 0)::bigint), (2019686914, NEW."id", -coalesce(NEW."approved_reviews", 0)::bigint),
            (592141636, OLD."id", coalesce(OLD."stars", 0)::bigint), (592141636, NEW."id", -coalesce(NEW."stars", 0)::bigint)
        ) v(c, k, d) WHERE d <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        PERFORM countercache.require_read_committed('TRUNCATE of public.shop',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 2019686914 AS c, r."id" AS k, coalesce(r."approved_reviews", 0)::bigint AS d FROM "public"."shop" AS r
            UNION ALL
            SELECT 592141636 AS c, r."id" AS k, coalesce(r."stars", 0)::bigint AS d FROM "public"."shop" AS r
        ) s WHERE d <> 0;
    END IF;
    RETURN NULL;
END
$target$;
REVOKE ALL ON FUNCTION countercache."target_public_shop_3a59ad7e"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_target_insert AFTER INSERT ON "public"."shop"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_shop_3a59ad7e"();
CREATE OR REPLACE TRIGGER countercache_target_delete AFTER DELETE ON "public"."shop"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_shop_3a59ad7e"();
CREATE OR REPLACE TRIGGER countercache_target_key AFTER UPDATE OF "id" ON "public"."shop"
    FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION countercache."target_public_shop_3a59ad7e"();
CREATE OR REPLACE TRIGGER countercache_target_truncate BEFORE TRUNCATE ON "public"."shop"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_shop_3a59ad7e"();

-- countercache-unit: countercache-target-public.shop_order
SELECT countercache.fail('Order.total, Order.value', pg_catalog.format('target table public.shop_order also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.target_schema OPERATOR(pg_catalog.=) 'public' AND k.target_table OPERATOR(pg_catalog.=) 'shop_order'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
CREATE OR REPLACE FUNCTION countercache."target_public_shop_order_e2057f56"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $target$
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'shop_order' THEN
        RAISE EXCEPTION 'countercache: % serves public.shop_order only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_uuid, delta)
        SELECT c, k, d FROM (
            SELECT 1200304570 AS c, r."id" AS k, -coalesce(r."total", 0)::bigint AS d FROM countercache_new AS r
            UNION ALL
            SELECT 416516304 AS c, r."id" AS k, -(coalesce(r."value", 0) * 100)::bigint AS d FROM countercache_new AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_uuid, delta)
        SELECT c, k, d FROM (
            SELECT 1200304570 AS c, r."id" AS k, coalesce(r."total", 0)::bigint AS d FROM countercache_old AS r
            UNION ALL
            SELECT 416516304 AS c, r."id" AS k, (coalesce(r."value", 0) * 100)::bigint AS d FROM countercache_old AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        -- the key changed (a row trigger, only then): the old key gets its values back
        INSERT INTO countercache.delta (counter_id, target_uuid, delta)
        SELECT c, k, d FROM (VALUES
            (1200304570, OLD."id", coalesce(OLD."total", 0)::bigint), (1200304570, NEW."id", -coalesce(NEW."total", 0)::bigint),
            (416516304, OLD."id", (coalesce(OLD."value", 0) * 100)::bigint), (416516304, NEW."id", -(coalesce(NEW."value", 0) * 100)::bigint)
        ) v(c, k, d) WHERE d <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        PERFORM countercache.require_read_committed('TRUNCATE of public.shop_order',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_uuid, delta)
        SELECT c, k, d FROM (
            SELECT 1200304570 AS c, r."id" AS k, coalesce(r."total", 0)::bigint AS d FROM "public"."shop_order" AS r
            UNION ALL
            SELECT 416516304 AS c, r."id" AS k, (coalesce(r."value", 0) * 100)::bigint AS d FROM "public"."shop_order" AS r
        ) s WHERE d <> 0;
    END IF;
    RETURN NULL;
END
$target$;
REVOKE ALL ON FUNCTION countercache."target_public_shop_order_e2057f56"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_target_insert AFTER INSERT ON "public"."shop_order"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_shop_order_e2057f56"();
CREATE OR REPLACE TRIGGER countercache_target_delete AFTER DELETE ON "public"."shop_order"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_shop_order_e2057f56"();
CREATE OR REPLACE TRIGGER countercache_target_key AFTER UPDATE OF "id" ON "public"."shop_order"
    FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION countercache."target_public_shop_order_e2057f56"();
CREATE OR REPLACE TRIGGER countercache_target_truncate BEFORE TRUNCATE ON "public"."shop_order"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_shop_order_e2057f56"();

-- countercache-unit: countercache-target-public.tag
SELECT countercache.fail('Tag.uses', pg_catalog.format('target table public.tag also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.target_schema OPERATOR(pg_catalog.=) 'public' AND k.target_table OPERATOR(pg_catalog.=) 'tag'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
CREATE OR REPLACE FUNCTION countercache."target_public_tag_c84fd5b6"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $target$
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'tag' THEN
        RAISE EXCEPTION 'countercache: % serves public.tag only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 314919807 AS c, r."id" AS k, -coalesce(r."uses", 0)::bigint AS d FROM countercache_new AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 314919807 AS c, r."id" AS k, coalesce(r."uses", 0)::bigint AS d FROM countercache_old AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        -- the key changed (a row trigger, only then): the old key gets its values back
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (VALUES
            (314919807, OLD."id", coalesce(OLD."uses", 0)::bigint), (314919807, NEW."id", -coalesce(NEW."uses", 0)::bigint)
        ) v(c, k, d) WHERE d <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        PERFORM countercache.require_read_committed('TRUNCATE of public.tag',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 314919807 AS c, r."id" AS k, coalesce(r."uses", 0)::bigint AS d FROM "public"."tag" AS r
        ) s WHERE d <> 0;
    END IF;
    RETURN NULL;
END
$target$;
REVOKE ALL ON FUNCTION countercache."target_public_tag_c84fd5b6"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_target_insert AFTER INSERT ON "public"."tag"
    REFERENCING NEW TABLE AS countercache_new
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_tag_c84fd5b6"();
CREATE OR REPLACE TRIGGER countercache_target_delete AFTER DELETE ON "public"."tag"
    REFERENCING OLD TABLE AS countercache_old
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_tag_c84fd5b6"();
CREATE OR REPLACE TRIGGER countercache_target_key AFTER UPDATE OF "id" ON "public"."tag"
    FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION countercache."target_public_tag_c84fd5b6"();
CREATE OR REPLACE TRIGGER countercache_target_truncate BEFORE TRUNCATE ON "public"."tag"
    FOR EACH STATEMENT EXECUTE FUNCTION countercache."target_public_tag_c84fd5b6"();

-- countercache-unit: countercache-via-public.product
SELECT countercache.fail('Shop.approvedReviews, Shop.stars', pg_catalog.format('via table public.product also has counters of changelog %L (%s)', pg_catalog.min(k.changelog), pg_catalog.string_agg(k.declared_by, ', ' ORDER BY k.declared_by)),
    'generate every counter of one table into one changelog (or remove them from the other first)')
  FROM countercache.counter k
 WHERE k.via_schema OPERATOR(pg_catalog.=) 'public' AND k.via_table OPERATOR(pg_catalog.=) 'product'
   AND k.changelog OPERATOR(pg_catalog.<>) ALL (ARRAY['default', ''])
HAVING pg_catalog.count(*) OPERATOR(pg_catalog.>) 0;
CREATE OR REPLACE FUNCTION countercache."via_public_product_4d27a91c"()
RETURNS trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $via$
#variable_conflict use_column
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'product' THEN
        RAISE EXCEPTION 'countercache: % serves public.product only, not %.%', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM countercache.require_read_committed('moving a row of public.product (Shop.approvedReviews, Shop.stars)',
        'change the key or the link of a middle row, or delete it, in a READ COMMITTED transaction');
    IF TG_OP = 'UPDATE' THEN
        PERFORM FROM "public"."product" v WHERE v."id" = OLD."id" FOR UPDATE OF v;
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ 2019686914 AS c, NEW."shop_id" AS k, 1 AS d FROM "public"."review" AS "review" WHERE "review"."product_id" = NEW."id" AND NEW."shop_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ 2019686914 AS c, OLD."shop_id" AS k, -1 AS d FROM "public"."review" AS "review" WHERE "review"."product_id" = OLD."id" AND OLD."shop_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ 592141636 AS c, NEW."shop_id" AS k, coalesce("review"."stars", 0)::bigint AS d FROM "public"."review" AS "review" WHERE "review"."product_id" = NEW."id" AND NEW."shop_id" IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ 592141636 AS c, OLD."shop_id" AS k, -coalesce("review"."stars", 0)::bigint AS d FROM "public"."review" AS "review" WHERE "review"."product_id" = OLD."id" AND OLD."shop_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
        RETURN NEW;
    END IF;
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ 2019686914 AS c, OLD."shop_id" AS k, -1 AS d FROM "public"."review" AS "review" WHERE "review"."product_id" = OLD."id" AND OLD."shop_id" IS NOT NULL AND (approved)
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ 592141636 AS c, OLD."shop_id" AS k, -coalesce("review"."stars", 0)::bigint AS d FROM "public"."review" AS "review" WHERE "review"."product_id" = OLD."id" AND OLD."shop_id" IS NOT NULL
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    RETURN OLD;
END
$via$;
REVOKE ALL ON FUNCTION countercache."via_public_product_4d27a91c"() FROM PUBLIC;

CREATE OR REPLACE TRIGGER countercache_via_update BEFORE UPDATE OF "id", "shop_id" ON "public"."product"
    FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id" OR OLD."shop_id" IS DISTINCT FROM NEW."shop_id") EXECUTE FUNCTION countercache."via_public_product_4d27a91c"();
CREATE OR REPLACE TRIGGER countercache_via_delete BEFORE DELETE ON "public"."product"
    FOR EACH ROW EXECUTE FUNCTION countercache."via_public_product_4d27a91c"();

-- countercache-unit: countercache-prune
SELECT countercache.prune('default', ARRAY['public.blog_article.total_comments', 'public.blog_article.total_likes', 'public.blog_article.total_public_comments', 'public.blog_user.total_public_comments', 'public.product.approved_reviews', 'public.product.stars', 'public.shelf.books', 'public.shop.approved_reviews', 'public.shop.stars', 'public.shop_order.total', 'public.shop_order.value', 'public.tag.uses']::text[]);

-- countercache-unit: countercache-limits
SELECT countercache.prune_limits('default', ARRAY[]::text[]);

-- countercache-unit: countercache-recount everyTime
CALL countercache.run_recounts();

