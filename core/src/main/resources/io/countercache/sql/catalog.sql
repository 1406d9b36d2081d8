-- The catalog: a counter's definition, checked and recorded (define_counter), and forgotten (forget, prune,
-- uninstall); and the helpers every subsystem uses to read it and to name what is wrong. The tables are in
-- upgrade/001-tables.sql.

-- The batch size the SQL functions take when none is given; RollupWorker.DEFAULT_BATCH_SIZE is the same number (a
-- test holds them together).
CREATE OR REPLACE FUNCTION countercache.default_batch_size()
RETURNS integer
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$ SELECT 10000 $fn$;

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

-- The generation of the queue that a writer's deltas go to at a time: the parity of the second (see
-- take_generation). The capture of every statement calls it, so it has no SET clause and is inlined, as lane_of; its
-- body is SQL-standard and names each object with pg_catalog.
CREATE OR REPLACE FUNCTION countercache.generation(at timestamptz)
RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE
RETURN CAST(pg_catalog.floor(pg_catalog.date_part('epoch', at)) AS bigint) OPERATOR(pg_catalog.%) 2;

-- Under REPEATABLE READ or SERIALIZABLE, fails with a serialization failure (40001, which such transactions retry)
-- when take_generation has truncated a generation of the queue since the transaction's snapshot: the snapshot sees
-- the queue without the take's sums, and the truncated generation without its deltas (TRUNCATE is not
-- MVCC-safe), so a read of stored + pending would come out short. Called after the read, whose lock on the
-- generations keeps them from being truncated until the transaction ends. The snapshot's pg_class row names the
-- generation's file before the truncate; the catalog cache names the file now.
CREATE OR REPLACE FUNCTION countercache.require_generations_seen(what text)
RETURNS void
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed'
       AND EXISTS (SELECT FROM pg_class r WHERE r.oid IN ('countercache.delta_0'::regclass, 'countercache.delta_1'::regclass)
                      AND r.relfilenode <> pg_relation_filenode(r.oid)) THEN
        RAISE EXCEPTION 'countercache: % read the queue after a rollup round changed it, in a snapshot older than the round', what
            USING ERRCODE = 'serialization_failure',
                  HINT = 'retry the transaction, or read in a READ COMMITTED transaction, which never needs a retry for this';
    END IF;
END
$fn$;

-- The tables a counter involves, by the kind of trigger each gets from it: its source tables ('capture': source_table
-- and, for a counter fed by several tables, more_tables, all in source_schema), its target ('target') and the middle
-- table of a path ('via'). Every place that asks which tables a counter reads or writes asks here.
CREATE OR REPLACE FUNCTION countercache.counter_tables(c countercache.counter)
RETURNS TABLE (kind text, schema_name name, table_name name)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT 'capture', c.source_schema, t FROM unnest(c.source_table || coalesce(c.more_tables, '{}')) t
     WHERE t IS NOT NULL
    UNION ALL
    SELECT 'target', c.target_schema, c.target_table WHERE c.target_table IS NOT NULL
    UNION ALL
    SELECT 'via', c.via_schema, c.via_table WHERE c.via_table IS NOT NULL
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


-- Checks a counter against the database, records it in the catalog and adds the counter column when it is missing.
-- The definition is the counter's catalog row as JSON (every column but changelog and defined_at), so a new attribute
-- of a counter is a column of the catalog and nothing here. Returns true when the counter is new or its definition
-- changed; a recount of it is then requested (see request_recount): the changelog runs it after the triggers are in
-- place, in batches that writers never wait for.
CREATE OR REPLACE FUNCTION countercache.define_counter(definition jsonb)
RETURNS boolean
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    c countercache.counter := jsonb_populate_record(NULL::countercache.counter, definition);
    old countercache.counter;
    first record;
    guard text := coalesce(current_setting('countercache.ddl_guard', true), '');
BEGIN
    c.more_fks := nullif(c.more_fks, '{}');
    c.more_tables := nullif(c.more_tables, '{}');
    -- a level of a path counter sums a column of the library's on its source (countercache_..., see "Counters along a
    -- path" in the architecture), which the level beneath keeps: whichever of the two is defined first adds it
    IF c.sum_column LIKE 'countercache\_%' AND c.column_type ~ '^(bigint|integer|numeric\(\d{1,4},\d{1,2}\))$'
       AND to_regclass(format('%I.%I', c.source_schema, c.source_table)) IS NOT NULL
       AND countercache.column_type(c.source_schema, c.source_table, c.sum_column) IS NULL THEN
        PERFORM set_config('countercache.ddl_guard', 'off', true);
        EXECUTE format('ALTER TABLE %I.%I ADD COLUMN %I %s NOT NULL DEFAULT 0', c.source_schema, c.source_table,
                       c.sum_column, c.column_type);
        PERFORM set_config('countercache.ddl_guard', guard, true);
    END IF;
    SELECT * INTO first FROM countercache.counter_problems(c) LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '%', first.problem USING HINT = first.fix, ERRCODE = 'invalid_parameter_value';
    END IF;
    -- the counter's own column is not a schema change the DDL guard should stop
    PERFORM set_config('countercache.ddl_guard', 'off', true);
    IF countercache.packed_key_sql(c) IS NOT NULL THEN
        PERFORM countercache.add_packed_key(c);
    END IF;
    IF c.aggregate IN ('min', 'max') THEN
        -- a min or max: NULL until a row counts, of its column's type (checked above)
        IF countercache.column_type(c.target_schema, c.target_table, c.target_column) IS NULL THEN
            EXECUTE format('ALTER TABLE %I.%I ADD COLUMN %I %s', c.target_schema, c.target_table, c.target_column,
                           countercache.column_format(c.source_schema, c.source_table, c.aggregate_column));
        END IF;
    ELSIF countercache.column_type(c.target_schema, c.target_table, c.target_column) IS NULL THEN
        EXECUTE format('ALTER TABLE %I.%I ADD COLUMN %I %s NOT NULL DEFAULT 0',
            c.target_schema, c.target_table, c.target_column, c.column_type);   -- column_type: checked above
    ELSIF NOT EXISTS (SELECT 1 FROM pg_attrdef ad JOIN pg_attribute a ON a.attrelid = ad.adrelid AND a.attnum = ad.adnum
                       WHERE a.attrelid = to_regclass(format('%I.%I', c.target_schema, c.target_table))
                         AND a.attname = c.target_column) THEN
        -- Hibernate never inserts the counter column, so new rows must start from a default.
        EXECUTE format('ALTER TABLE %I.%I ALTER COLUMN %I SET DEFAULT 0', c.target_schema, c.target_table, c.target_column);
    END IF;
    PERFORM set_config('countercache.ddl_guard', guard, true);

    SELECT * INTO old FROM countercache.counter k WHERE k.id = c.id;
    IF old.definition_hash IS NOT DISTINCT FROM c.definition_hash THEN
        RETURN false;
    END IF;
    c.changelog := coalesce(old.changelog, '');
    c.defined_at := now();
    DELETE FROM countercache.counter k WHERE k.id = c.id;
    INSERT INTO countercache.counter SELECT (c).*;
    -- a counter that moved to another source table (a path now counted level by level, a class left its hierarchy)
    -- leaves the capture of its old sources and its old middle table: rebuild them without it (the unit of each of
    -- the new definition's tables rebuilds that one)
    PERFORM countercache.install_triggers(x.schema_name, x.table_name)
       FROM countercache.counter_tables(old) x
      WHERE x.kind IN ('capture', 'via')
        AND (x.schema_name, x.table_name) IS DISTINCT FROM (c.source_schema, c.source_table);
    PERFORM countercache.request_recount(c.id);
    RETURN true;
END
$fn$;

-- Forgets these counters: their catalog rows, queued (both queues), slotted, dead-lettered and orphaned deltas, the
-- values a distinct counter keeps and queues, and recounts, and rebuilds the triggers of the tables they read and
-- wrote from the counters that remain. Their columns stay: dropping data is the user's call.
CREATE OR REPLACE FUNCTION countercache.forget(counter_ids integer[])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    schemas name[];
    names name[];
BEGIN
    SELECT array_agg(x.s ORDER BY x.s, x.t), array_agg(x.t ORDER BY x.s, x.t) INTO schemas, names
      FROM (SELECT DISTINCT x.schema_name AS s, x.table_name AS t
              FROM countercache.counter k, LATERAL countercache.counter_tables(k) x
             WHERE k.id = ANY (counter_ids)) x;
    PERFORM FROM countercache.queue_claim FOR SHARE;   -- waits for a round claiming alone (see rollup_report)
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
    ), values_queued AS (
        DELETE FROM countercache.distinct_delta x USING gone WHERE x.counter_id = gone.id
    ), values_kept AS (
        DELETE FROM countercache.distinct_value x USING gone WHERE x.counter_id = gone.id
    )
    DELETE FROM countercache.delta q USING gone WHERE q.counter_id = gone.id;
    FOR i IN 1 .. coalesce(cardinality(names), 0) LOOP
        PERFORM countercache.install_triggers(schemas[i], names[i]);
    END LOOP;
END
$fn$;

-- Records that the changelog named changelog installs exactly the counters in keep, and forgets every other counter
-- of that changelog (or of none, installed before changelogs had names), which rebuilds the triggers of their tables.
-- Counters of other changelogs are left alone, so several changelogs (modules, services) share one database and
-- one table. Counter columns are left in place: dropping data is the user's call. Returns how many tables lost
-- triggers of a kind they no longer need (left by a counter forgotten some other way).
CREATE OR REPLACE FUNCTION countercache.prune(changelog text, keep text[])
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    removed integer := 0;
    s record;
BEGIN
    UPDATE countercache.counter k SET changelog = prune.changelog
     WHERE k.name = ANY (keep) AND k.changelog IS DISTINCT FROM prune.changelog;
    PERFORM countercache.forget(ARRAY(SELECT k.id FROM countercache.counter k
                                       WHERE NOT (k.name = ANY (keep)) AND k.changelog IN (prune.changelog, '')));
    FOR s IN
        SELECT DISTINCT n.nspname, c.relname, split_part(p.proname, '_', 1) AS kind
          FROM pg_trigger tg
          JOIN pg_proc p ON p.oid = tg.tgfoid
          JOIN pg_class c ON c.oid = tg.tgrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE p.pronamespace = 'countercache'::regnamespace
           AND split_part(p.proname, '_', 1) IN ('capture', 'target', 'via')
           AND tg.tgparentid = 0   -- a partition's clone of its parent's row trigger goes with the parent's
           AND NOT EXISTS (SELECT 1 FROM countercache.counter k, LATERAL countercache.counter_tables(k) x
                            WHERE x.kind = split_part(p.proname, '_', 1) AND x.schema_name = n.nspname
                              AND x.table_name = c.relname)
         ORDER BY 1, 2, 3
    LOOP
        PERFORM countercache.drop_triggers(s.kind, s.nspname, s.relname);
        removed := removed + 1;
    END LOOP;
    PERFORM countercache.drop_unused_trigger_functions();
    RETURN removed;
END
$fn$;

-- The rollback of one changeset of a table (Liquibase runs them in reverse): forgets the counters its changeset
-- defined (a source table's; none for a target's or a middle table's), and rebuilds the table's triggers from the
-- counters that remain, so that another changelog's counters on the same table go on counting; a table left with no
-- counter of a kind loses those triggers. Counter columns stay. Applying the changeset again defines the counters
-- anew, so they are recounted.
CREATE OR REPLACE FUNCTION countercache.uninstall(kind text, tbl_schema name, tbl name, counter_ids integer[])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF kind NOT IN ('capture', 'target', 'via') THEN
        RAISE EXCEPTION 'countercache.uninstall: kind must be capture, target or via, not %', kind
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM countercache.forget(counter_ids);
    PERFORM countercache.install_triggers(tbl_schema, tbl);
END
$fn$;
