-- Capture: the triggers that turn every write of a counted table into deltas, generated here from the catalog, so
-- that a table's triggers always serve every counter the catalog holds for it, whichever changelog declared it.
--
-- The formula for what one source row contributes to a counter lives once, in contributions_sql. The capture
-- triggers (the rows a statement added and removed), the path triggers (the rows under a middle row) and the
-- recount (every row of the source, drift_sql) all read it, so stored + pending = recount cannot be broken by two
-- texts that disagree.

-- A counter fed by several foreign keys of its source (via = {"challenger", "opponent"}: a game counts for both of
-- its players) is the sum of its feeds: one copy of it per foreign key, with that key as source_fk, all under its
-- id. A row counts once for each foreign key that points at a target (twice for a player who plays both sides). Every
-- piece of the formula below reads one foreign key; contributions_sql and single_sql read a counter's feeds.
CREATE OR REPLACE FUNCTION countercache.feeds(cs countercache.counter[])
RETURNS countercache.counter[]
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    c countercache.counter;
    fk name;
    fed countercache.counter[] := '{}';
BEGIN
    FOREACH c IN ARRAY cs LOOP
        FOREACH fk IN ARRAY c.source_fk || coalesce(c.more_fks, '{}') LOOP
            c.source_fk := fk;
            c.more_fks := NULL;
            fed := fed || c;
        END LOOP;
    END LOOP;
    RETURN fed;
END
$fn$;

-- A counter fed by several tables (a TABLE_PER_CLASS hierarchy: source_table and more_tables, in one schema, with the
-- columns the counter reads) is the sum of its tables: one copy of it per table, with that table as source_table, all
-- under its id. Each table's capture serves its own copy (install_triggers), so a statement on one table counts that
-- table's rows, as a counter of it alone would; a recount reads every copy (drift_sql). Every piece of the formula
-- below reads one table.
CREATE OR REPLACE FUNCTION countercache.tables_of(c countercache.counter)
RETURNS countercache.counter[]
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    tables name[] := c.source_table || coalesce(c.more_tables, '{}');
    t name;
    copies countercache.counter[] := '{}';
BEGIN
    c.more_tables := NULL;
    FOREACH t IN ARRAY tables LOOP
        c.source_table := t;
        copies := copies || c;
    END LOOP;
    RETURN copies;
END
$fn$;

-- An amount as the queue holds it: a bigint, in units of 10^-scale for a numeric sum (cents for numeric(p,2)).
CREATE OR REPLACE FUNCTION countercache.units_sql(c countercache.counter, value text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN c.scale = 0 THEN format('coalesce(%s, 0)::bigint', value)
                ELSE format('(coalesce(%s, 0) * %s)::bigint', value, (10::numeric ^ c.scale)::bigint) END
$fn$;

-- Whether a counter sums a bigint column: taking such a row back negates its value, and -(-2^63) is no bigint, so
-- its contributions are numeric and a sum too large for one delta is queued in parts (see deltas_sql).
CREATE OR REPLACE FUNCTION countercache.sums_bigint(c countercache.counter)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT c.sum_column IS NOT NULL
           AND countercache.column_type(c.source_schema, c.source_table, c.sum_column) = 'bigint'::regtype
$fn$;

-- The contribution formula, in four pieces that every reader of it shares: whether a row (aliased as the source
-- table) counts for counter c at all: its foreign key is set and the counter's condition holds, judged on the source
-- row alone (and, for a distinct counter, it has a value: count(DISTINCT x) passes NULL over; for a counter per
-- bucket, a time). The condition stands between THEN and END, where the text `a) OR (b`, which the checks take as
-- the one expression `(a) OR (b)`, stays one: after AND it would be `... AND (a) OR (b)`. The planner folds the
-- CASE away;
CREATE OR REPLACE FUNCTION countercache.counts_sql(c countercache.counter)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format('%I.%I IS NOT NULL', c.source_table, c.source_fk)
        || CASE WHEN c.condition IS NULL THEN '' ELSE format(' AND CASE WHEN true THEN (%s) END', c.condition) END
        || CASE WHEN c.distinct_column IS NULL THEN ''
                ELSE format(' AND %I.%I IS NOT NULL', c.source_table, c.distinct_column) END
        -- a time of infinity falls in no period (and would fail the bucket's key)
        || CASE WHEN c.bucket_source IS NULL THEN ''
                ELSE format(' AND isfinite(%I.%I)', c.source_table, c.bucket_source) END
        || CASE WHEN c.source_parts IS NULL THEN ''
                ELSE format(' AND %I.%I IS NOT NULL', c.source_table, c.source_parts[2]) END
$fn$;

-- the key it counts for: its foreign key (the middle row's key, along a path, which contributions_sql looks up), for a
-- counter per bucket the key of its parent's bucket that holds its time (bucket_key_sql), for a counter of a
-- two-column key its two foreign key columns packed (pair_key_sql);
CREATE OR REPLACE FUNCTION countercache.key_sql(c countercache.counter)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN c.bucket_period IS NOT NULL THEN countercache.bucket_key_sql(c)
                WHEN c.source_parts IS NOT NULL THEN countercache.pair_key_sql(c)
                ELSE format('%I.%I', c.source_table, c.source_fk) END
$fn$;

-- the value it counts once per target, for a distinct counter (as text: the checks allow only types whose text is one
-- per value, whatever the session's settings), else NULL;
CREATE OR REPLACE FUNCTION countercache.value_sql(c countercache.counter)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN c.distinct_column IS NULL THEN 'NULL::text'
                ELSE format('%I.%I::text', c.source_table, c.distinct_column) END
$fn$;

-- what it adds when it counts, times sign, in the counter's units (a min or max counter's rows add a touch, 1, on
-- either side: its target's extreme is recomputed, see extreme_sql);
CREATE OR REPLACE FUNCTION countercache.amount_sql(c countercache.counter, sign integer)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN c.aggregate IS NOT NULL THEN '1' WHEN sign < 0 THEN '-' ELSE '' END
        || CASE WHEN c.aggregate IS NOT NULL THEN ''
                WHEN c.sum_column IS NULL THEN '1'
                WHEN countercache.sums_bigint(c) THEN format('coalesce(%I.%I, 0)::numeric', c.source_table, c.sum_column)
                ELSE countercache.units_sql(c, format('%I.%I', c.source_table, c.sum_column)) END
$fn$;

-- and the comment that names the counter in the queries that read the formula, so that an error in its where or sum
-- at run time names it too.
CREATE OR REPLACE FUNCTION countercache.named_sql(c countercache.counter)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format('/* @CounterCache on %s */', regexp_replace(c.declared_by, '[^A-Za-z0-9_.$, ]', '_', 'g'))
$fn$;

-- A min or max counter's value for the target key key (an expression): the extreme of its column over the source rows
-- that count for the key, NULL when none does; one probe of the index on (foreign key, column) that the counter's
-- check requires. NULL for a count or a sum.
CREATE OR REPLACE FUNCTION countercache.extreme_sql(c countercache.counter, key text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN c.aggregate IS NOT NULL
                THEN format('(SELECT %1$s(%2$I.%3$I) FROM %4$I.%2$I AS %2$I WHERE %2$I.%5$I = %6$s AND %7$s)',
                            c.aggregate, c.source_table, c.aggregate_column, c.source_schema, c.source_fk, key,
                            countercache.counts_sql(c)) END
$fn$;

-- The contributions of a relation: a query of (k, v, d), one row per row of rows (a transition table, the source
-- table, a subquery of it) that counts for counter c, with k the target key it counts for, v its value (value_sql)
-- and d what it adds, times sign; for a counter of several foreign keys, one row per foreign key that counts (the
-- union of its feeds').
-- With a path, k is the key its middle row points at now (a join, which a statement of many rows reads once), or the
-- expression target when the caller knows it (a middle table's trigger, for the rows under OLD or NEW).
CREATE OR REPLACE FUNCTION countercache.contributions_sql(c countercache.counter, rows text, sign integer,
                                                          target text DEFAULT NULL)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT string_agg(
           format('SELECT %s %s AS k, s.v, s.d FROM (', countercache.named_sql(f),
                  CASE WHEN target IS NOT NULL THEN target
                       WHEN f.via_table IS NULL THEN 's.f'
                       ELSE format('v.%I', f.via_fk) END)
        || format('SELECT %2$s AS f, %6$s AS v, %3$s AS d FROM %4$s AS %1$I WHERE %5$s', f.source_table,
                  countercache.key_sql(f), countercache.amount_sql(f, sign), rows, countercache.counts_sql(f),
                  countercache.value_sql(f))
        || ') s'
        || CASE WHEN target IS NOT NULL THEN format(' WHERE %s IS NOT NULL', target)
                WHEN f.via_table IS NULL THEN ''
                ELSE format(' JOIN %I.%I v ON v.%I = s.f WHERE v.%I IS NOT NULL', f.via_schema, f.via_table,
                            f.via_key, f.via_fk) END,
           E'\n            UNION ALL\n            ')
      FROM unnest(countercache.feeds(ARRAY[c])) f
$fn$;

-- The same formula for a statement that wrote one row: counter c's key, value and amount for the one row of rows
-- (aliased as the source table) as columns k<i>, v<i> and d<i>, the key NULL when the row does not count; a path's key
-- is looked up in the middle table by its key, with no join.
CREATE OR REPLACE FUNCTION countercache.row_contribution_sql(c countercache.counter, i integer, sign integer)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format('CASE WHEN %s %s THEN %s END AS k%s, %s AS d%4$s, %6$s AS v%4$s', countercache.named_sql(c),
                  countercache.counts_sql(c),
                  CASE WHEN c.via_table IS NULL THEN countercache.key_sql(c)
                       ELSE format('(SELECT v.%I FROM %I.%I v WHERE v.%I = %I.%I)', c.via_fk, c.via_schema,
                                   c.via_table, c.via_key, c.source_table, c.source_fk) END,
                  i, countercache.amount_sql(c, sign), countercache.value_sql(c))
$fn$;

-- What counter c reads of a source row (aliased as the source table): the keys it points at, its condition, its
-- summed, min/max or distinct column, its bucket's time, one expression each. Two versions of a row with the same
-- signature contribute the same to c. A capture compares two versions as ROW(o.s1, ...) IS DISTINCT FROM
-- ROW(n.s1, ...) over these expressions as columns of their own, which PostgreSQL compares column by column: a
-- comparison of two whole records looks each column's equality up anew on every statement (about 5 µs of a
-- single-row UPDATE's capture, PostgreSQL 18).
CREATE OR REPLACE FUNCTION countercache.signature_parts(c countercache.counter)
RETURNS text[]
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT ARRAY[format('%1$I.%2$I', c.source_table, c.source_fk), format('(%s)', coalesce(c.condition, 'true'))]
        || ARRAY(SELECT format('%I.%I', c.source_table, fk) FROM unnest(c.more_fks) WITH ORDINALITY AS u(fk, n) ORDER BY n)
        || ARRAY(SELECT format('%I.%I', c.source_table, x)
                   FROM unnest(ARRAY[coalesce(c.sum_column, c.aggregate_column, c.distinct_column), c.bucket_source,
                                     c.source_parts[2]]) WITH ORDINALITY AS u(x, n)
                  WHERE x IS NOT NULL ORDER BY n)
$fn$;

-- Replaced by signature_parts and signature_columns (2026-11-27): a record of the signature no capture compares now.
DO $drop$ BEGIN   -- without DROP ... IF EXISTS's notice, which a fresh install must not print (UpgradeIT)
    IF to_regprocedure('countercache.signature_sql(countercache.counter)') IS NOT NULL THEN
        DROP FUNCTION countercache.signature_sql(countercache.counter);
    END IF;
END $drop$;

-- The signatures of cs as columns <prefix>1, <prefix>2, ... of a row aliased as the source table (select), each
-- expression once, and the comparison of two such rows aliased o and n (differs): see signature_parts.
CREATE OR REPLACE FUNCTION countercache.signature_columns(cs countercache.counter[], prefix text,
                                                          OUT selected text, OUT differs text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT string_agg(format('%s AS %s%s', x.part, prefix, x.n), ', ' ORDER BY x.n),
           format('ROW(%s) IS DISTINCT FROM ROW(%s)', string_agg(format('o.%s%s', prefix, x.n), ', ' ORDER BY x.n),
                  string_agg(format('n.%s%s', prefix, x.n), ', ' ORDER BY x.n))
      FROM (SELECT y.part, row_number() OVER (ORDER BY min(y.o)) AS n   -- each expression once, in first order
              FROM (SELECT p.part, row_number() OVER (ORDER BY c.name, p.i) AS o
                      FROM unnest(cs) c, unnest(countercache.signature_parts(c)) WITH ORDINALITY AS p(part, i)) y
             GROUP BY y.part) x
$fn$;

-- Every counter of cs for the one row of rows, in one row (see row_contribution_sql); with signed, each counter's
-- signature too, as columns s<i>_1, s<i>_2, ... (signature_columns).
CREATE OR REPLACE FUNCTION countercache.row_contributions_sql(cs countercache.counter[], rows text, sign integer,
                                                              signed boolean DEFAULT false)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format('SELECT %s FROM %s AS %I',
                  string_agg(countercache.row_contribution_sql(cs[i], i, sign)
                             || CASE WHEN signed THEN ', ' || (countercache.signature_columns(ARRAY[cs[i]], format('s%s_', i))).selected
                                     ELSE '' END, ', ' ORDER BY i), rows,
                  (cs[1]).source_table)
      FROM generate_subscripts(cs, 1) i
$fn$;

-- The contributions of one side of a change: a transition table (countercache_new, countercache_old), the whole
-- source table ('source', before a TRUNCATE), or the source rows under a middle row ('NEW', 'OLD').
CREATE OR REPLACE FUNCTION countercache.side_sql(c countercache.counter, side text, sign integer)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE side
        WHEN 'source' THEN countercache.contributions_sql(c, format('%I.%I', c.source_schema, c.source_table), sign)
        WHEN 'NEW' THEN countercache.contributions_sql(c, format('(SELECT * FROM %I.%I WHERE %I = NEW.%I)',
            c.source_schema, c.source_table, c.source_fk, c.via_key), sign, format('NEW.%I', c.via_fk))
        WHEN 'OLD' THEN countercache.contributions_sql(c, format('(SELECT * FROM %I.%I WHERE %I = OLD.%I)',
            c.source_schema, c.source_table, c.source_fk, c.via_key), sign, format('OLD.%I', c.via_fk))
        ELSE countercache.contributions_sql(c, side, sign) END
$fn$;

-- Each counter's contributions from the rows added and removed (either side NULL), summed per counter (c), target (k)
-- and value (v), so that a bulk statement yields one change per target and an update that changes nothing relevant none.
-- Each counter is summed on its own and the sums are appended: a hash of one counter's keys instead of one of every
-- counter's, which took 10 to 19% off the fold of a 200,000-row statement with two counters (67 against 83 ms for an
-- INSERT, 53 against 59 for a DELETE, on PostgreSQL 18 here), and groups a distinct counter's values in their own
-- collation. Each counter's hash may take work_mem.
CREATE OR REPLACE FUNCTION countercache.fold_sql(cs countercache.counter[], added text, removed text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT string_agg(format(E'SELECT %s AS c, x.k, x.v, sum(x.d) AS d FROM (\n            %s\n        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0',
                             c.id,
                             (SELECT string_agg(countercache.side_sql(c, s.side, s.sign), E'\n            UNION ALL\n            '
                                                ORDER BY s.sign DESC)
                                FROM (VALUES (added, 1), (removed, -1)) AS s(side, sign)
                               WHERE s.side IS NOT NULL)),
                      E'\n        UNION ALL\n        ' ORDER BY c.name)
      FROM unnest(cs) c
$fn$;

-- The deltas of a statement that wrote one row (added and removed hold at most one each, either NULL): the row's
-- contributions (row_contributions_sql) turned into (c, k, v, d) rows by a VALUES list. No sort, no grouping, no join.
-- An update's old and new versions count only for the counters whose signature differs between them (for the others
-- they would cancel), so an update that changes nothing counted yields no row.
CREATE OR REPLACE FUNCTION countercache.single_sql(cs countercache.counter[], added text, removed text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN added IS NULL OR removed IS NULL
        THEN format(E'SELECT x.c, x.k, x.v, x.d FROM (%s) r,\n            LATERAL (VALUES %s) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0',
                    countercache.row_contributions_sql(cs, coalesce(added, removed), CASE WHEN added IS NULL THEN -1 ELSE 1 END),
                    string_agg(format('(%s, r.k%s, r.v%2$s, r.d%2$s)', (cs[i]).id, i), ', ' ORDER BY i))
        ELSE format(E'SELECT x.c, x.k, x.v, x.d FROM (%s) o, (%s) n,\n            LATERAL (VALUES %s) AS x(c, k, v, d, moved)'
                    || ' WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0',
                    countercache.row_contributions_sql(cs, removed, -1, true),
                    countercache.row_contributions_sql(cs, added, 1, true),
                    string_agg(format('(%1$s, o.k%2$s, o.v%2$s, o.d%2$s, %3$s), (%1$s, n.k%2$s, n.v%2$s, n.d%2$s, %3$s)',
                                      (cs[i]).id, i,
                                      (countercache.signature_columns(ARRAY[cs[i]], format('s%s_', i))).differs),
                               ', ' ORDER BY i)) END
      FROM generate_subscripts(cs, 1) i
$fn$;

-- The deltas of a statement: of one row written (single_sql, over each counter's feeds) or folded (fold_sql). A sum
-- of a bigint column (see sums_bigint) goes in parts of at most 2^62 each when it does not fit one delta.
CREATE OR REPLACE FUNCTION countercache.deltas_sql(cs countercache.counter[], added text, removed text, single boolean)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN bool_or(countercache.sums_bigint(c)) THEN 'SELECT p.c, p.k, p.v, q.d FROM (' ELSE '' END
        || CASE WHEN single THEN countercache.single_sql(countercache.feeds(cs), added, removed)
                ELSE countercache.fold_sql(cs, added, removed) END
        || CASE WHEN bool_or(countercache.sums_bigint(c))
                THEN E') p,\n            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d'
                     || E'\n                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n),'
                     || ' generate_series(1, m.n) i) q'
                ELSE '' END
      FROM unnest(cs) c
$fn$;

-- The queue column of a counter's key type.
CREATE OR REPLACE FUNCTION countercache.key_column(c countercache.counter)
RETURNS name
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN c.key_type = 'uuid' THEN 'target_uuid' ELSE 'target_id' END::name
$fn$;

-- Touch: the SET items of an update of target rows (aliased t) that stamp each touch column with now() on the rows
-- whose counters it changes. touches holds each counter's touch column (NULL for none), in the order of the sums
-- <alias>.d1, d2, ... the update adds (NULL or 0 where a counter does not change). A touch of a min or max is 1, so
-- a recomputed extreme stamps its row even when the value stays.
CREATE OR REPLACE FUNCTION countercache.touch_sql(touches name[], alias text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT coalesce(string_agg(format(', %1$I = CASE WHEN %2$s THEN now() ELSE t.%1$I END', x.col, x.changed), ''
                               ORDER BY x.col), '')
      FROM (SELECT u.col, string_agg(format('coalesce(%s.d%s, 0) <> 0', alias, u.i), ' OR ' ORDER BY u.i) AS changed
              FROM unnest(touches) WITH ORDINALITY AS u(col, i)
             WHERE u.col IS NOT NULL
             GROUP BY u.col) x
$fn$;

-- One statement of a trigger body: as written, or run with EXECUTE (planned each time, for the statement at hand).
CREATE OR REPLACE FUNCTION countercache.statement_sql(stmt text, dynamic boolean)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN dynamic THEN format(E'        EXECUTE %L;\n', stmt) ELSE format(E'        %s;\n', stmt) END
$fn$;

-- The statements that take the rows added and removed to each counter of cs by its strategy:
--   queue, unlogged: one INSERT per key type into the queue (depesz's queue, or its unlogged twin);
--   distinct (a queue counter of distinct values): one INSERT per key type into the queue of values, distinct_delta;
--   direct: one UPDATE per target table in the writer's transaction; sums for keys no target row has are kept as
--     orphans, as the rollup would keep them, so nothing is lost; inside a rollup round (whose update of a level of a
--     path fires the capture of the level above) the queue instead, since a round never waits for a target row;
--   slotted: per counter and target, add the sum to a slot row no other transaction holds (FOR UPDATE SKIP LOCKED);
--     if every existing slot is held, open one of the counter's N slot numbers that has no row yet and no other
--     writer is opening (each opener holds an advisory lock on the number until it commits), at random; if there is
--     none, queue the sum. So a writer never waits for another's slot. The lock and the update are two statements:
--     the lock returns the row's latest version, which the locking statement's snapshot may not see, the next one's
--     does.
-- The deltas are those of one row (single) or folded (see deltas_sql); a dynamic statement is planned each time it
-- runs (EXECUTE), for the size of the statement at hand.
CREATE OR REPLACE FUNCTION countercache.capture_sql(cs countercache.counter[], added text, removed text, single boolean,
                                                    dynamic boolean)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    g record;
    c countercache.counter;
    out text := '';
    stmt text;
    deltas text;
    queued text;
BEGIN
    -- one group per strategy and key type; a direct counter's group is one target table
    FOR g IN
        SELECT CASE WHEN k.distinct_column IS NULL THEN k.strategy ELSE 'distinct' END AS strategy,
               countercache.key_column(k) AS kc, t.target_schema, t.target_table, t.target_key,
               array_agg(k ORDER BY k.name) AS members
          FROM unnest(cs) k
         LEFT JOIN LATERAL (SELECT k.target_schema, k.target_table, k.target_key WHERE k.strategy = 'direct') t ON true
         GROUP BY 1, 2, 3, 4, 5
         ORDER BY 1, 2, 3, 4
    LOOP
        cs := g.members;
        deltas := CASE WHEN g.strategy <> 'slotted' THEN countercache.deltas_sql(cs, added, removed, single) END;
        -- the queue's insert: the strategy of queue and unlogged counters, and of direct ones inside a round
        queued := format(E'INSERT INTO countercache.%I (counter_id, %I, delta)\n        SELECT s.c, s.k, s.d FROM (%s) s',
                         CASE g.strategy WHEN 'unlogged' THEN 'delta_unlogged' ELSE 'delta' END, g.kc, deltas);
        IF g.strategy IN ('queue', 'unlogged') THEN
            stmt := queued;
        ELSIF g.strategy = 'distinct' THEN
            stmt := format(E'INSERT INTO countercache.distinct_delta (counter_id, %I, value, delta)\n        %s', g.kc,
                deltas);
        ELSIF g.strategy = 'direct' THEN
            stmt := format(E'WITH s AS (\n            %s\n        ), w AS (\n'
                                 || E'            SELECT s.k, %s FROM s GROUP BY s.k\n        ), u AS (\n'
                                 || E'            UPDATE %I.%I t SET %s\n'
                                 || E'              FROM w WHERE t.%I = w.k RETURNING t.%I AS k\n        )\n'
                                 || E'        INSERT INTO countercache.orphan (counter_id, %I, delta, enqueued_at)\n'
                                 || E'        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k)',
                deltas,
                (SELECT string_agg(format('sum(s.d) FILTER (WHERE s.c = %s) AS d%s', (cs[i]).id, i), ', ' ORDER BY i)
                   FROM generate_subscripts(cs, 1) i),
                g.target_schema, g.target_table,
                (SELECT string_agg(format('%1$I = coalesce(t.%1$I, 0) + coalesce(w.d%2$s, 0)%3$s', (cs[i]).target_column,
                                          i, CASE WHEN (cs[i]).scale > 0
                                                  THEN ' * ' || trim_scale(0.1::numeric ^ (cs[i]).scale) ELSE '' END),
                                   ', ' ORDER BY i)
                   FROM generate_subscripts(cs, 1) i)
                || countercache.touch_sql(ARRAY(SELECT (cs[i]).touch_column FROM generate_subscripts(cs, 1) i ORDER BY i), 'w'),
                g.target_key, g.target_key, g.kc);
        END IF;
        IF g.strategy = 'direct' THEN
            -- fired by a rollup round's update (a level of a path): queue, for the round must never wait on a target
            out := out || E'        IF current_setting(''countercache.round'', true) = ''on'' THEN\n'
                || countercache.statement_sql(queued, dynamic) || E'        ELSE\n'
                || countercache.statement_sql(stmt, dynamic) || E'        END IF;\n';
        ELSIF g.strategy = 'queue' THEN
            -- into the generation the clock names (see take_generation): one static INSERT for each
            out := out || E'        IF countercache.generation(clock_timestamp()) = 0 THEN\n'
                || countercache.statement_sql(replace(stmt, 'INTO countercache.delta ', 'INTO countercache.delta_0 '),
                                              dynamic)
                || E'        ELSE\n'
                || countercache.statement_sql(replace(stmt, 'INTO countercache.delta ', 'INTO countercache.delta_1 '),
                                              dynamic)
                || E'        END IF;\n';
        ELSIF g.strategy <> 'slotted' THEN
            out := out || countercache.statement_sql(stmt, dynamic);
        ELSE
            FOREACH c IN ARRAY cs LOOP
                stmt := countercache.deltas_sql(ARRAY[c], added, removed, single) || ' ORDER BY k';
                out := out || format(
                    E'        FOR r IN %1$s LOOP\n'
                    || E'            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = %2$s AND x.%3$I = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;\n'
                    || E'            IF FOUND THEN\n'
                    || E'                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;\n'
                    || E'            ELSE\n'
                    || E'                INSERT INTO countercache.slot (counter_id, %3$I, slot, n)\n'
                    || E'                SELECT %2$s, r.k, f.s, r.d FROM (\n'
                    || E'                    SELECT g.s FROM generate_series(0, %4$s) AS g(s)\n'
                    || E'                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = %2$s AND y.%3$I = r.k AND y.slot = g.s)\n'
                    || E'                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one\n'
                    || E'                 WHERE pg_try_advisory_xact_lock(hashtextextended(%5$L || r.k || '':'' || f.s, 0))\n'
                    || E'                 LIMIT 1\n'
                    || E'                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;\n'
                    || E'                IF NOT FOUND THEN\n'
                    || E'                    INSERT INTO countercache.delta (counter_id, %3$I, delta) VALUES (%2$s, r.k, r.d);\n'
                    || E'                END IF;\n'
                    || E'            END IF;\n'
                    || E'        END LOOP;\n',
                    CASE WHEN dynamic THEN format('EXECUTE %L', stmt) ELSE stmt END, c.id, g.kc, c.slots - 1, c.id || ':');
            END LOOP;
        END IF;
    END LOOP;
    RETURN out;
END
$fn$;

-- Before a capture reads middle rows, it locks the ones its rows point at FOR KEY SHARE (as their foreign key check
-- does for new rows), one statement before the one that reads them, so that the read sees a middle row's latest
-- committed version: a transaction that moves a middle row holds it FOR UPDATE until it commits, and has counted the
-- source rows it could see. See docs/architecture.md, "Counters along a path".
CREATE OR REPLACE FUNCTION countercache.lock_vias_sql(cs countercache.counter[], rows text, dynamic boolean)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT coalesce(string_agg(CASE WHEN dynamic THEN format(E'        EXECUTE %L;\n', 'SELECT ' || l.q)
                                    ELSE format(E'        PERFORM %s;\n', l.q) END, ''
                               ORDER BY l.via_schema, l.via_table, l.via_key, l.source_fk), '')
      FROM (SELECT DISTINCT c.via_schema, c.via_table, c.via_key, c.source_fk,
                   format('FROM %1$I.%2$I v WHERE v.%3$I IN (SELECT x.%4$I FROM %5$s x) ORDER BY v.%3$I FOR KEY SHARE OF v',
                          c.via_schema, c.via_table, c.via_key, c.source_fk, rows) AS q
              FROM unnest(cs) c WHERE c.via_table IS NOT NULL) l
$fn$;

-- Skips an UPDATE that changed nothing any counter of cs reads: when every new row has an old row with its primary
-- key and the same signature (signature_columns, of every counter), every contribution the UPDATE takes back it adds
-- again. One hash join of the two transition tables on the key, where the fold would read each once per counter.
-- Empty for a table without a primary key, or with a deferrable one: a statement may leave two rows with one key
-- until its transaction commits, and then every new row can find an old row like it while the old rows differ.
CREATE OR REPLACE FUNCTION countercache.unchanged_sql(cs countercache.counter[], dynamic boolean)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN coalesce(cardinality(q.keys), 0) = 0 THEN ''
                WHEN dynamic THEN format(E'        EXECUTE %L INTO changed;\n'
                                         || E'        IF NOT changed THEN\n            RETURN NULL;   -- nothing counted changed\n        END IF;\n',
                                         format('SELECT EXISTS (%s)', q.changes))
                ELSE format(E'        IF NOT EXISTS (%s) THEN\n'
                            || E'            RETURN NULL;   -- nothing counted changed\n        END IF;\n', q.changes) END
      FROM (SELECT format('SELECT FROM (%1$s) n LEFT JOIN (%2$s) o ON %3$s AND NOT (%4$s) WHERE o.k1 IS NULL',
               format('SELECT %s, %s FROM countercache_new AS %I', k.selected, s.selected, (cs[1]).source_table),
               format('SELECT %s, %s FROM countercache_old AS %I', k.selected, s.selected, (cs[1]).source_table),
               k.joined, s.differs) AS changes, k.keys
      FROM (SELECT array_agg(a.attname ORDER BY a.attnum) AS keys,
                   string_agg(format('%I.%I AS k%s', (cs[1]).source_table, a.attname, a.n), ', ' ORDER BY a.attnum) AS selected,
                   string_agg(format('o.k%1$s = n.k%1$s', a.n), ' AND ' ORDER BY a.attnum) AS joined
              FROM (SELECT a.attname, a.attnum, row_number() OVER (ORDER BY a.attnum) AS n
                      FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
                     WHERE i.indrelid = to_regclass(format('%I.%I', (cs[1]).source_schema, (cs[1]).source_table))
                       AND i.indisprimary AND i.indimmediate) a) k,
           countercache.signature_columns(cs, 's') s) q
$fn$;

-- One branch of a capture (see sized_capture_sql): the early exit of an update of many rows, the locks, the capture.
CREATE OR REPLACE FUNCTION countercache.capture_work_sql(cs countercache.counter[], added text, removed text,
                                                         single boolean, dynamic boolean)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN added IS NOT NULL AND removed IS NOT NULL AND NOT single
                THEN countercache.unchanged_sql(cs, dynamic) ELSE '' END
        || CASE WHEN removed IS NOT NULL THEN countercache.lock_vias_sql(cs, removed, dynamic) ELSE '' END
        || countercache.capture_sql(cs, added, removed, single, dynamic)
$fn$;

-- A capture's work for the rows added and removed (transition tables, either NULL), by the statement's size:
--   one row inserted, updated or deleted: single_sql;
--   up to 1,000 rows: the fold, with the plan cached from the first such statement;
--   more: the fold planned anew for the statement at hand (EXECUTE), so that a bulk statement never runs a plan made
--     for a few rows (planning takes a fraction of a millisecond; 1,000 rows take several).
-- An UPDATE first returns when nothing counted changed: of one row, when its two versions have the same signatures
-- (one query over the transition tables, which also tells the sizes apart, so the queue is not even opened); of
-- many, unchanged_sql. An UPDATE or DELETE locks the middle rows of the rows it takes back (lock_vias_sql).
CREATE OR REPLACE FUNCTION countercache.sized_capture_sql(cs countercache.counter[], added text, removed text)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN added IS NULL OR removed IS NULL
                THEN format(E'        IF NOT EXISTS (SELECT FROM %s OFFSET 1) THEN\n', coalesce(added, removed))
                     || countercache.capture_work_sql(cs, added, removed, true, false)
                ELSE format(E'        SELECT CASE WHEN NOT EXISTS (SELECT FROM %1$s OFFSET 1) THEN EXISTS (SELECT FROM '
                            || E'(SELECT %3$s FROM %2$s AS %4$I) o, (SELECT %3$s FROM %1$s AS %4$I) n '
                            || E'WHERE %5$s) END INTO changed;\n',
                            added, removed, (countercache.signature_columns(cs, 's')).selected,
                            (cs[1]).source_table, (countercache.signature_columns(cs, 's')).differs)
                     || E'        IF changed THEN\n' || countercache.capture_work_sql(cs, added, removed, true, false)
                     || E'        ELSIF changed IS NOT NULL THEN\n            RETURN NULL;   -- nothing counted changed\n' END
        || format(E'        ELSIF NOT EXISTS (SELECT FROM %s OFFSET 1000) THEN\n', coalesce(added, removed))
        || countercache.capture_work_sql(cs, added, removed, false, false)
        || E'        ELSE\n' || countercache.capture_work_sql(cs, added, removed, false, true) || E'        END IF;\n'
$fn$;

-- A counter column's values in rows (target rows: a transition table, or the table itself before a TRUNCATE) handed
-- back to the queue with this sign, per key: a deleted row's counts go back to the queue and an inserted row's
-- initial values come out of it, so a key's column, queue, dead letters and orphans always add up to its recount,
-- whatever happens to the row. A min or max counter has nothing to hand back: its column is recomputed, never added
-- to. Empty when cs holds no count or sum.
CREATE OR REPLACE FUNCTION countercache.hand_back_sql(cs countercache.counter[], rows text, sign text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT coalesce(format(E'        INSERT INTO countercache.delta (counter_id, %s, delta)\n        SELECT c, k, d FROM (\n            ',
                  countercache.key_column(cs[1]))
        || string_agg(format('SELECT %s AS c, r.%I AS k, %s%s AS d FROM %s AS r', c.id, c.target_key, sign,
                             countercache.units_sql(c, format('r.%I', c.target_column)), rows),
                      E'\n            UNION ALL\n            ' ORDER BY c.name)
        || E'\n        ) s WHERE d <> 0;\n', '')
      FROM unnest(cs) c
     WHERE c.aggregate IS NULL
$fn$;

-- The touches of new target rows (rows) of the recomputed counts among cs: a row that arrives is recomputed, since rows
-- of the source may count for its key already (a link of an article published before, for the count per link of a
-- where on the far entity). A touch of a key that no row has is dropped, not kept (adopt_orphans): the rows touch it
-- when they come.
CREATE OR REPLACE FUNCTION countercache.new_rows_touch_sql(cs countercache.counter[], rows text)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT coalesce(string_agg(format(E'        INSERT INTO countercache.delta (counter_id, %1$s, delta)\n'
                                      || E'        SELECT DISTINCT %2$s, r.%3$I, 1 FROM %4$s AS r WHERE r.%3$I IS NOT NULL;\n',
                                      countercache.key_column(c), c.id, c.target_key, rows), '' ORDER BY c.name), '')
      FROM unnest(cs) c
     WHERE c.aggregate = 'count'
$fn$;

-- The body of the trigger function of one kind for a table, serving the counters cs (all of the table's counters of
-- that kind, from the catalog):
--   capture: the counters fed by a source table. Every INSERT, UPDATE, DELETE and TRUNCATE queues the difference.
--   target: the counters held by a target table (see hand_back_sql); a key change moves the old key's values back.
--   via: the counters along paths through a middle table. A row whose key or link changes, or that is deleted,
--     moves the counts of the source rows under it, counted BEFORE the change (and before any cascade to the source
--     rows, whose own capture then finds the row changed). It first locks the row FOR UPDATE, which waits for every
--     writer that holds it FOR KEY SHARE (a capture, a foreign key check) and makes later ones wait until commit.
-- Each function serves its one table only, and runs SECURITY DEFINER: a writer needs no right on the queue, so it
-- can neither read, forge nor block it.
CREATE OR REPLACE FUNCTION countercache.trigger_body(kind text, cs countercache.counter[])
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    c countercache.counter := cs[1];
    tbl_schema name := CASE kind WHEN 'capture' THEN c.source_schema WHEN 'target' THEN c.target_schema
                                 ELSE c.via_schema END;
    tbl_name name := CASE kind WHEN 'capture' THEN c.source_table WHEN 'target' THEN c.target_table
                               ELSE c.via_table END;
    tbl text := format('%I.%I', tbl_schema, tbl_name);
    declarers text := (SELECT string_agg(k.declared_by, ', ' ORDER BY k.name) FROM unnest(cs) k);
    -- a capture notes whether an update changed anything counted (changed); its slotted counters loop over their
    -- deltas (r) and the slot row they hold (held)
    head text := CASE WHEN kind <> 'target' THEN E'#variable_conflict use_column\n' ELSE '' END
                 || CASE WHEN kind = 'capture' THEN E'DECLARE\n    changed boolean;\n' ELSE '' END
                 || CASE WHEN kind <> 'target' AND EXISTS (SELECT FROM unnest(cs) k WHERE k.strategy = 'slotted')
                         THEN CASE WHEN kind = 'capture' THEN '' ELSE E'DECLARE\n' END || E'    r record;\n    held tid;\n'
                         ELSE '' END
                 || format(E'BEGIN\n    IF TG_TABLE_SCHEMA <> %L OR TG_TABLE_NAME <> %L THEN\n'
                           || E'        RAISE EXCEPTION ''countercache: %% serves %% only, not %%.%%'', TG_NAME, %L, TG_TABLE_SCHEMA, TG_TABLE_NAME\n'
                           || E'            USING ERRCODE = ''insufficient_privilege'';\n    END IF;\n',
                           tbl_schema, tbl_name, tbl);
    truncating text := format(E'        PERFORM countercache.require_read_committed(%L,\n'
                              || E'            ''run TRUNCATE in a READ COMMITTED transaction, or use DELETE'');\n',
                              'TRUNCATE of ' || tbl);
BEGIN
    IF kind = 'capture' THEN
        -- the foreign key check of an INSERT (and of an UPDATE that changes the key) has locked the middle rows of
        -- the new rows already: a path needs that constraint, and it is checked before this trigger
        RETURN head
            || E'    IF TG_OP = ''INSERT'' THEN\n' || countercache.sized_capture_sql(cs, 'countercache_new', NULL)
            || E'    ELSIF TG_OP = ''DELETE'' THEN\n' || countercache.sized_capture_sql(cs, NULL, 'countercache_old')
            || E'    ELSIF TG_OP = ''UPDATE'' THEN\n'
            || countercache.sized_capture_sql(cs, 'countercache_new', 'countercache_old')
            || E'    ELSIF TG_OP = ''TRUNCATE'' THEN\n'
            || E'        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted\n'
            || truncating || countercache.lock_vias_sql(cs, tbl, true)
            || countercache.capture_sql(cs, NULL, 'source', false, true)
            || E'    END IF;\n    RETURN NULL;\nEND\n';
    ELSIF kind = 'target' THEN
        RETURN head
            || E'    IF TG_OP = ''INSERT'' THEN\n' || countercache.hand_back_sql(cs, 'countercache_new', '-')
            || countercache.new_rows_touch_sql(cs, 'countercache_new')
            || E'    ELSIF TG_OP = ''DELETE'' THEN\n' || countercache.hand_back_sql(cs, 'countercache_old', '')
            || E'    ELSIF TG_OP = ''UPDATE'' THEN\n'
            || E'        -- the key changed (a row trigger, only then): the old key gets its values back\n'
            || format(E'        INSERT INTO countercache.delta (counter_id, %s, delta)\n        SELECT c, k, d FROM (VALUES\n            ',
                      countercache.key_column(c))
            || (SELECT string_agg(CASE WHEN k.aggregate IS NOT NULL   -- the new key's extreme is recomputed
                                       THEN format('(%s, NEW.%I, 1)', k.id, k.target_key)
                                       ELSE format('(%s, OLD.%I, %s), (%s, NEW.%I, -%s)', k.id, k.target_key,
                                                   countercache.units_sql(k, format('OLD.%I', k.target_column)), k.id,
                                                   k.target_key, countercache.units_sql(k, format('NEW.%I', k.target_column))) END,
                                  E',\n            ' ORDER BY k.name) FROM unnest(cs) k)
            || E'\n        ) v(c, k, d) WHERE d <> 0;\n'
            || E'    ELSIF TG_OP = ''TRUNCATE'' THEN\n' || truncating || countercache.hand_back_sql(cs, tbl, '')
            || E'    END IF;\n    RETURN NULL;\nEND\n';
    ELSE
        RETURN head
            || format(E'    PERFORM countercache.require_read_committed(%L,\n'
                      || E'        ''change the key or the link of a middle row, or delete it, in a READ COMMITTED transaction'');\n',
                      format('moving a row of %s (%s)', tbl, declarers))
            || E'    IF TG_OP = ''UPDATE'' THEN\n'
            || format(E'        PERFORM FROM %s v WHERE v.%I = OLD.%2$I FOR UPDATE OF v;\n', tbl, c.via_key)
            || countercache.capture_sql(cs, 'NEW', 'OLD', false, false)
            || E'        RETURN NEW;\n    END IF;\n'
            || countercache.capture_sql(cs, NULL, 'OLD', false, false)
            || E'    RETURN OLD;\nEND\n';
    END IF;
END
$fn$;
