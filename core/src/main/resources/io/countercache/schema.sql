-- countercache schema: the catalog, the delta queue and the functions that maintain counters.
-- Idempotent: every statement can run again on a database that already has it.
-- Every function pins search_path and every identifier taken from the catalog is quoted with format('%I').

CREATE SCHEMA IF NOT EXISTS countercache;

-- The catalog: one row per installed counter, so that workers and tools need only a database connection.
CREATE TABLE IF NOT EXISTS countercache.counter (
    id              integer     PRIMARY KEY,
    name            text        NOT NULL UNIQUE,   -- schema.table.column of the counter column
    declared_by     text        NOT NULL,          -- Entity.field that declares it, for messages
    target_schema   name        NOT NULL,
    target_table    name        NOT NULL,
    target_key      name        NOT NULL,
    key_type        text        NOT NULL CHECK (key_type IN ('integer', 'bigint', 'uuid')),
    target_column   name        NOT NULL,
    source_schema   name        NOT NULL,
    source_table    name        NOT NULL,
    source_fk       name        NOT NULL,
    condition       text,
    sum_column      name,
    strategy        text        NOT NULL DEFAULT 'queue',
    definition_hash text        NOT NULL,
    defined_at      timestamptz NOT NULL DEFAULT now()
);

-- The queue. Writers only ever INSERT here, in their own transaction; the rollup deletes what it applies.
-- A row names its counter by id and its target by key: integer and bigint keys in target_id, uuid keys in target_uuid.
CREATE TABLE IF NOT EXISTS countercache.delta (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    counter_id  integer     NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    delta       bigint      NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT now()
);

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
    failed_at         timestamptz NOT NULL DEFAULT now(),
    sqlstate          text        NOT NULL,
    error             text        NOT NULL
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

-- Sets one counter to the exact recount from its source table and drops its queued deltas.
--
-- Why this is exact while writers keep writing: the SHARE lock waits for every transaction that is writing the
-- source table and keeps new writers out until this transaction ends, so no delta for this counter can be in flight.
-- Deleting the queued deltas waits for any rollup that has claimed some of them and is still applying them; once
-- that rollup commits, its rows are gone and its additions are in the target, which the absolute UPDATE below then
-- overwrites. A later rollup can only see deltas enqueued after this transaction commits, and those describe changes
-- that the recount did not see.
CREATE OR REPLACE FUNCTION countercache.recount(counter_id integer)
RETURNS bigint
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    c countercache.counter;
    changed bigint;
BEGIN
    SELECT * INTO c FROM countercache.counter k WHERE k.id = recount.counter_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'countercache.recount: no counter with id %', recount.counter_id
            USING HINT = 'SELECT id, name FROM countercache.counter lists the installed counters';
    END IF;
    EXECUTE format('LOCK TABLE %I.%I IN SHARE MODE', c.source_schema, c.source_table);
    DELETE FROM countercache.delta q WHERE q.counter_id = c.id;
    DELETE FROM countercache.dead_letter x WHERE x.counter_id = c.id;   -- the recount includes what they held
    EXECUTE format(
        $q$UPDATE %1$I.%2$I t SET %4$I = x.n
             FROM (SELECT t2.%3$I AS k, coalesce(s.n, 0) AS n
                     FROM %1$I.%2$I t2
                     LEFT JOIN (SELECT %6$I.%7$I AS k, %8$s AS n
                                  FROM %5$I.%6$I AS %6$I
                                 WHERE %6$I.%7$I IS NOT NULL AND (%9$s)
                                 GROUP BY 1) s ON s.k = t2.%3$I) x
            WHERE t.%3$I = x.k AND t.%4$I IS DISTINCT FROM x.n$q$,
        c.target_schema, c.target_table, c.target_key, c.target_column,
        c.source_schema, c.source_table, c.source_fk,
        CASE WHEN c.sum_column IS NULL THEN 'count(*)' ELSE format('coalesce(sum(%I.%I), 0)', c.source_table, c.sum_column) END,
        coalesce(c.condition, 'true'));
    GET DIAGNOSTICS changed = ROW_COUNT;
    RETURN changed;
END
$fn$;

-- Checks a counter against the database, records it in the catalog and adds the counter column when it is missing.
-- Returns true when the counter is new or its definition changed; it has then been recounted.
CREATE OR REPLACE FUNCTION countercache.define_counter(
    id integer, name text, declared_by text,
    target_schema name, target_table name, target_key name, key_type text, target_column name, column_type text,
    source_schema name, source_table name, source_fk name, condition text, sum_column name,
    definition_hash text)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    d ALIAS FOR declared_by;
    t regtype;
    old_hash text;
BEGIN
    IF to_regclass(format('%I.%I', target_schema, target_table)) IS NULL THEN
        PERFORM countercache.fail(d, format('target table %I.%I does not exist', target_schema, target_table),
            'apply the changelog that creates it before the countercache changelog');
    END IF;
    t := countercache.column_type(target_schema, target_table, target_key);
    IF t IS NULL OR t::text <> key_type THEN
        PERFORM countercache.fail(d, format('key %I.%I.%I is %s, the entity model says %s',
            target_schema, target_table, target_key, coalesce(t::text, 'missing'), key_type),
            'make the table match the entity (or the entity match the table) and regenerate the changelog');
    END IF;
    IF to_regclass(format('%I.%I', source_schema, source_table)) IS NULL THEN
        PERFORM countercache.fail(d, format('source table %I.%I does not exist', source_schema, source_table),
            'apply the changelog that creates it before the countercache changelog');
    END IF;
    t := countercache.column_type(source_schema, source_table, source_fk);
    IF t IS NULL OR t::text <> key_type THEN
        PERFORM countercache.fail(d, format('foreign key column %I.%I.%I is %s, the key it points at is %s',
            source_schema, source_table, source_fk, coalesce(t::text, 'missing'), key_type),
            'give the foreign key column the type of the target key');
    END IF;
    IF sum_column IS NOT NULL THEN
        t := countercache.column_type(source_schema, source_table, sum_column);
        IF t IS NULL OR t::text NOT IN ('smallint', 'integer', 'bigint') THEN
            PERFORM countercache.fail(d, format('sum column %I.%I.%I is %s',
                source_schema, source_table, sum_column, coalesce(t::text, 'missing')),
                'sum an existing smallint, integer or bigint column (store money as cents)');
        END IF;
    END IF;
    BEGIN
        EXECUTE format('SELECT 1 FROM %I.%I AS %I WHERE (%s) LIMIT 0',
            source_schema, source_table, source_table, coalesce(condition, 'true'));
    EXCEPTION WHEN OTHERS THEN
        PERFORM countercache.fail(d, format('where = "%s" does not compile against %I.%I: %s',
            condition, source_schema, source_table, SQLERRM),
            'write the condition as a boolean SQL expression over the columns of the source table, '
            'with functions outside pg_catalog schema-qualified');
    END;
    t := countercache.column_type(target_schema, target_table, target_column);
    IF t IS NULL THEN
        EXECUTE format('ALTER TABLE %I.%I ADD COLUMN %I %s NOT NULL DEFAULT 0',
            target_schema, target_table, target_column, column_type::regtype);
    ELSIF t::text NOT IN ('smallint', 'integer', 'bigint', 'numeric') THEN
        PERFORM countercache.fail(d, format('counter column %I.%I.%I is %s',
            target_schema, target_table, target_column, t),
            'make the counter column an integer or bigint');
    ELSIF NOT EXISTS (SELECT 1 FROM pg_attrdef ad JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
                       WHERE a.attrelid = to_regclass(format('%I.%I', target_schema, target_table))
                         AND a.attname = target_column) THEN
        -- Hibernate never inserts the counter column, so new rows must start from a default.
        EXECUTE format('ALTER TABLE %I.%I ALTER COLUMN %I SET DEFAULT 0', target_schema, target_table, target_column);
    END IF;

    SELECT k.definition_hash INTO old_hash FROM countercache.counter k WHERE k.id = define_counter.id;
    IF old_hash IS NOT DISTINCT FROM definition_hash THEN
        RETURN false;
    END IF;
    INSERT INTO countercache.counter AS k (id, name, declared_by, target_schema, target_table, target_key, key_type,
                                          target_column, source_schema, source_table, source_fk, condition,
                                          sum_column, definition_hash)
    VALUES (id, name, declared_by, target_schema, target_table, target_key, key_type,
            target_column, source_schema, source_table, source_fk, condition, sum_column, definition_hash)
    ON CONFLICT ON CONSTRAINT counter_pkey DO UPDATE
       SET name = excluded.name, declared_by = excluded.declared_by,
           target_schema = excluded.target_schema, target_table = excluded.target_table,
           target_key = excluded.target_key, key_type = excluded.key_type, target_column = excluded.target_column,
           source_schema = excluded.source_schema, source_table = excluded.source_table,
           source_fk = excluded.source_fk, condition = excluded.condition, sum_column = excluded.sum_column,
           definition_hash = excluded.definition_hash, defined_at = now();
    PERFORM countercache.recount(define_counter.id);
    RETURN true;
END
$fn$;

-- Forgets every counter whose name is not in keep: its queued deltas, its catalog row, and the capture triggers of
-- source tables that no longer feed any counter. Counter columns are left in place: dropping data is the user's call.
-- Returns how many source tables lost their capture triggers.
CREATE OR REPLACE FUNCTION countercache.prune(keep text[])
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    removed integer;
    s record;
BEGIN
    WITH gone AS (
        DELETE FROM countercache.counter k WHERE NOT (k.name = ANY (keep)) RETURNING k.id
    )
    , dropped AS (
        DELETE FROM countercache.dead_letter x USING gone WHERE x.counter_id = gone.id
    )
    DELETE FROM countercache.delta q USING gone WHERE q.counter_id = gone.id;
    removed := 0;
    FOR s IN
        SELECT DISTINCT n.nspname AS source_schema, c.relname AS source_table, tg.tgfoid::regprocedure AS fn
          FROM pg_trigger tg
          JOIN pg_class c ON c.oid = tg.tgrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE tg.tgname = 'countercache_insert'
           AND NOT EXISTS (SELECT 1 FROM countercache.counter k
                            WHERE k.source_schema = n.nspname AND k.source_table = c.relname)
    LOOP
        EXECUTE format('DROP TRIGGER countercache_insert ON %I.%I', s.source_schema, s.source_table);
        EXECUTE format('DROP TRIGGER IF EXISTS countercache_update ON %I.%I', s.source_schema, s.source_table);
        EXECUTE format('DROP TRIGGER IF EXISTS countercache_delete ON %I.%I', s.source_schema, s.source_table);
        EXECUTE format('DROP TRIGGER IF EXISTS countercache_truncate ON %I.%I', s.source_schema, s.source_table);
        EXECUTE format('DROP FUNCTION IF EXISTS %s', s.fn);
        removed := removed + 1;
    END LOOP;
    RETURN removed;
END
$fn$;

-- TRUNCATE fires no row or statement DELETE trigger, so every counter fed by the truncated table is recounted.
CREATE OR REPLACE FUNCTION countercache.capture_truncate()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    k integer;
BEGIN
    FOR k IN SELECT c.id FROM countercache.counter c
              WHERE c.source_schema = TG_TABLE_SCHEMA AND c.source_table = TG_TABLE_NAME ORDER BY c.id
    LOOP
        PERFORM countercache.recount(k);
    END LOOP;
    RETURN NULL;
END
$fn$;

-- Applies at most max_deltas queued deltas and reports, per counter, how many deltas it consumed and which targets
-- it touched (target_ids for integer and bigint keys, target_uuids for uuid keys), so that a caller can evict cached
-- copies of exactly those rows once the transaction has committed.
--
-- Concurrency: the claim is a DELETE of rows picked with FOR UPDATE SKIP LOCKED, so concurrent rollups take disjoint
-- batches and never wait for each other; if a rollup fails or its connection dies, its transaction rolls back and
-- the rows are back in the queue. Claimed deltas are summed per target, and each counter's targets are updated by
-- one statement that first locks them with FOR NO KEY UPDATE SKIP LOCKED: a target row that another transaction
-- holds locked is not waited for; its summed delta goes back to the queue (one row, keeping the oldest enqueue time)
-- for a later round. Foreign-key checks of writers take FOR KEY SHARE, which does not conflict with that lock, so
-- inserting comments never holds up the rollup of their article. Deltas for a target row that no longer exists,
-- or for a counter that was removed, are consumed without effect. A target whose new value is refused (overflow,
-- CHECK constraint) has its summed delta moved to countercache.dead_letter with the error; the batch goes on.
CREATE OR REPLACE FUNCTION countercache.rollup_report(max_deltas integer DEFAULT 10000)
RETURNS TABLE (counter_id integer, consumed bigint, target_ids bigint[], target_uuids uuid[])
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
#variable_conflict use_column
DECLARE
    b record;
    requeued bigint;
    one bigint;
    apply text;
    state text;
    message text;
BEGIN
    IF max_deltas IS NULL OR max_deltas < 1 THEN
        RAISE EXCEPTION 'countercache.rollup_report: max_deltas must be at least 1, got %', max_deltas
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    FOR b IN
        WITH claimed AS (
            DELETE FROM countercache.delta q
             WHERE q.id = ANY (ARRAY(SELECT p.id FROM countercache.delta p
                                      ORDER BY p.id LIMIT max_deltas FOR UPDATE SKIP LOCKED))
            RETURNING q.counter_id, q.target_id, q.target_uuid, q.delta, q.enqueued_at
        ), per_target AS (
            SELECT q.counter_id, q.target_id, q.target_uuid,
                   sum(q.delta)::bigint AS delta, count(*) AS n, min(q.enqueued_at) AS since
              FROM claimed q
             GROUP BY q.counter_id, q.target_id, q.target_uuid
        )
        SELECT p.counter_id, c.id IS NOT NULL AS installed,
               c.target_schema, c.target_table, c.target_key, c.key_type, c.target_column,
               sum(p.n) AS n,
               array_agg(p.target_id) FILTER (WHERE p.delta <> 0) AS ids,
               array_agg(p.target_uuid) FILTER (WHERE p.delta <> 0) AS uuids,
               array_agg(p.delta) FILTER (WHERE p.delta <> 0) AS deltas,
               array_agg(p.n) FILTER (WHERE p.delta <> 0) AS ns,
               array_agg(p.since) FILTER (WHERE p.delta <> 0) AS sinces
          FROM per_target p
          LEFT JOIN countercache.counter c ON c.id = p.counter_id
         GROUP BY p.counter_id, c.id
         ORDER BY p.counter_id
    LOOP
        counter_id := b.counter_id;
        consumed := b.n;
        -- array_agg keeps NULLs: report only the column that holds this counter's keys
        target_ids := CASE WHEN b.key_type = 'uuid' THEN NULL ELSE b.ids END;
        target_uuids := CASE WHEN b.key_type = 'uuid' THEN b.uuids END;
        IF NOT b.installed OR b.deltas IS NULL THEN
            RETURN NEXT;
            CONTINUE;
        END IF;
        apply := format(
            $q$WITH d AS (
                   SELECT * FROM unnest(%6$s, $2::bigint[], $3::bigint[], $4::timestamptz[]) AS d(k, delta, n, since)
               ), locked AS (
                   SELECT t.%3$I AS k FROM %1$I.%2$I t WHERE t.%3$I = ANY (%6$s)
                      FOR NO KEY UPDATE SKIP LOCKED
               ), applied AS (
                   UPDATE %1$I.%2$I t SET %4$I = coalesce(t.%4$I, 0) + d.delta
                     FROM d JOIN locked l ON l.k = d.k
                    WHERE t.%3$I = d.k
               ), busy AS (
                   SELECT d.* FROM d
                    WHERE NOT EXISTS (SELECT 1 FROM locked l WHERE l.k = d.k)
                      AND EXISTS (SELECT 1 FROM %1$I.%2$I t WHERE t.%3$I = d.k)
               ), requeued AS (
                   INSERT INTO countercache.delta (counter_id, %5$I, delta, enqueued_at)
                   SELECT $5, busy.k, busy.delta, busy.since FROM busy
               )
               SELECT coalesce(sum(busy.n), 0) FROM busy$q$,
            b.target_schema, b.target_table, b.target_key, b.target_column,
            CASE WHEN b.key_type = 'uuid' THEN 'target_uuid' ELSE 'target_id' END,
            CASE WHEN b.key_type = 'uuid' THEN '$6' ELSE '$1' END);
        BEGIN
            EXECUTE apply INTO requeued USING b.ids, b.deltas, b.ns, b.sinces, b.counter_id, b.uuids;
        EXCEPTION WHEN OTHERS THEN
            -- One target's new value is refused. Apply target by target, each in its own subtransaction, and park
            -- the refused ones in the dead-letter table so the rest of the queue keeps flowing.
            requeued := 0;
            FOR i IN 1 .. array_length(b.deltas, 1) LOOP
                BEGIN
                    EXECUTE apply INTO one USING ARRAY[b.ids[i]], ARRAY[b.deltas[i]], ARRAY[b.ns[i]],
                                                 ARRAY[b.sinces[i]], b.counter_id, ARRAY[b.uuids[i]];
                    requeued := requeued + one;
                EXCEPTION WHEN OTHERS THEN
                    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
                    -- transient failures (deadlock, serialization, lock timeout, resources, shutdown) abort the
                    -- round instead: it rolls back and the worker retries it
                    IF left(state, 2) IN ('40', '53', '57', '58', '08') OR state IN ('55P03', '55006') THEN
                        RAISE;
                    END IF;
                    INSERT INTO countercache.dead_letter (counter_id, target_id, target_uuid, delta, deltas,
                                                          first_enqueued_at, sqlstate, error)
                    VALUES (b.counter_id, b.ids[i], b.uuids[i], b.deltas[i], b.ns[i], b.sinces[i], state, message);
                END;
            END LOOP;
        END;
        consumed := consumed - requeued;
        RETURN NEXT;
    END LOOP;
END
$fn$;

-- Applies at most max_deltas queued deltas and returns how many it consumed (0 when there is nothing to do).
CREATE OR REPLACE FUNCTION countercache.rollup(max_deltas integer DEFAULT 10000)
RETURNS bigint
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT coalesce(sum(r.consumed), 0)::bigint FROM countercache.rollup_report(max_deltas) r
$fn$;
