-- Checks: every problem of a counter's declaration against the database, each with its fix, and the DDL guard that
-- refuses a schema change that would break an installed counter.

-- The functions a stored expression (a node tree, as pg_rewrite.ev_action or pg_trigger.tgqual print it) calls,
-- by name or through an operator: the one reading of PostgreSQL's node syntax the checks make.
CREATE OR REPLACE FUNCTION countercache.functions_named(tree text)
RETURNS SETOF oid
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT m[1]::oid FROM regexp_matches(coalesce(tree, ''), ':(?:funcid|opfuncid) (\d+)', 'g') m
$fn$;

-- Whether a role is one the application cannot be: a superuser, or the owner of this schema (the migrator) or a
-- member of it;
-- pg_database_owner (the owner of public) stands for the database's owner.
CREATE OR REPLACE FUNCTION countercache.trusted_role(r oid)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT coalesce((SELECT a.rolsuper OR pg_has_role(a.oid, n.nspowner, 'MEMBER')
                       FROM pg_roles a, pg_namespace n WHERE a.oid = x.o AND n.nspname = 'countercache'), false)
      FROM (SELECT CASE WHEN r = 'pg_database_owner'::regrole
                        THEN (SELECT d.datdba FROM pg_database d WHERE d.datname = current_database()) ELSE r END) x(o)
$fn$;

-- Every problem of a counter's definition (a catalog row, installed or not) against the database as it is now
-- ("@CounterCache on Entity.field: ..."), each with its fix, in the order the checks meet them (a check that needs a
-- missing table is skipped); no rows when the counter can be installed. define_counter raises the first; report_problems raises all of a changelog's at
-- once, before any counter is installed; the DDL guard raises those a schema change would cause.
CREATE OR REPLACE FUNCTION countercache.counter_problems(c countercache.counter)
RETURNS TABLE (problem text, fix text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    declared_by text := c.declared_by;
    target_schema name := c.target_schema;
    target_table name := c.target_table;
    target_key name := c.target_key;
    key_type text := c.key_type;
    target_column name := c.target_column;
    column_type text := c.column_type;
    source_schema name := c.source_schema;
    source_table name := c.source_table;
    source_fk name := c.source_fk;
    condition text := c.condition;
    sum_column name := c.sum_column;
    strategy text := c.strategy;
    slots integer := c.slots;
    via_schema name := c.via_schema;
    via_table name := c.via_table;
    via_key name := c.via_key;
    via_key_type text := c.via_key_type;
    via_fk name := c.via_fk;
    scale integer := c.scale;
    d constant text := '@CounterCache on ' || declared_by;
    t regtype;
    probe refcursor;
    untrusted text;
    elsewhere text;
    parsed text[];       -- the condition's tree under each of three settings of what converts its literals
    saved text[];
    -- the type source_fk must have: the middle table's key, a bucket's parent, a two-column key's first column, or
    -- the target key
    fk_type text := coalesce(via_key_type,
                             countercache.column_type(c.target_schema, c.target_table,
                                                      coalesce(c.bucket_parent, c.target_parts[1]))::text,
                             key_type);
    model_fix constant text := 'make the table match the entity (or the entity match the table) and regenerate the changelog';
    missing_fix constant text := 'apply the changelog that creates it before the countercache changelog';
    has_target boolean := to_regclass(format('%I.%I', target_schema, target_table)) IS NOT NULL;
    has_source boolean := to_regclass(format('%I.%I', source_schema, source_table)) IS NOT NULL;
    has_via boolean := via_table IS NULL OR to_regclass(format('%I.%I', via_schema, via_table)) IS NOT NULL;
BEGIN
    IF c.more_tables IS NOT NULL THEN   -- several tables feed the counter: each is checked as the source it is
        IF via_table IS NOT NULL OR c.aggregate IS NOT NULL OR c.distinct_column IS NOT NULL
           OR c.bucket_period IS NOT NULL OR c.target_parts IS NOT NULL THEN
            RETURN QUERY SELECT d || ': ' || format('the tables %s feed one counter, which can only count or sum their'
                                                    ' rows by a foreign key to a target with a key of one column',
                                                    array_to_string(source_table || c.more_tables, ', ')),
                'count along a path, per bucket, into a target keyed by two columns, a min, a max or distinct values '
                || 'of one table: declare the counter on each concrete class';
        END IF;
        RETURN QUERY SELECT d || ': ' || format('table %I.%I is named more than once', source_schema, x.t),
            'name each table once'
          FROM unnest(source_table || c.more_tables) x(t) GROUP BY x.t HAVING count(*) > 1;
        RETURN QUERY SELECT DISTINCT p.problem, p.fix
          FROM unnest(countercache.tables_of(c)) x, LATERAL countercache.counter_problems(x) p;
        RETURN;
    END IF;
    IF c.aggregate IS NOT NULL THEN
        RETURN QUERY SELECT * FROM countercache.extreme_problems(c);
    ELSIF column_type !~ '^(bigint|integer|numeric\(\d{1,4},\d{1,2}\))$' THEN
        RETURN QUERY SELECT d || ': ' || format('column type %L is not supported', column_type),
            'declare the counter field as long, int or BigDecimal';
    ELSIF scale IS DISTINCT FROM coalesce(substring(column_type FROM ',(\d+)\)$')::integer, 0) THEN
        RETURN QUERY SELECT d || ': ' || format('scale %s does not match column type %s', scale, column_type),
            'regenerate the changelog';
    END IF;
    IF c.distinct_column IS NOT NULL THEN
        RETURN QUERY SELECT * FROM countercache.distinct_problems(c);
    END IF;
    IF c.bucket_period IS NOT NULL THEN
        RETURN QUERY SELECT * FROM countercache.bucket_problems(c);
    END IF;
    IF c.target_parts IS NOT NULL OR c.source_parts IS NOT NULL THEN
        RETURN QUERY SELECT * FROM countercache.pair_problems(c);
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
        target_key, key_type, 'the entity model says') AS p) x WHERE has_target AND x.p IS NOT NULL
        -- a packed key is the library's to add (add_packed_key), and packed_key_problems checks it
        AND countercache.packed_key_sql(c) IS NULL;
    -- A rule on INSERT or UPDATE of the target, even DO ALSO, makes PostgreSQL refuse what writes it: the rollup's
    -- UPDATE ... RETURNING in a WITH, a direct counter's UPDATE, a bucket's INSERT ... ON CONFLICT (and a rule on
    -- DELETE the pruning of old buckets). Every delta would go to the dead letters.
    RETURN QUERY SELECT d || ': ' || format('target table %I.%I has rule %I on %s, and PostgreSQL refuses'
                                            ' countercache''s writes of a table with such a rule: every delta would'
                                            ' go to the dead letters', target_schema, target_table, r.rulename,
                                            CASE r.ev_type WHEN '2' THEN 'UPDATE' WHEN '3' THEN 'INSERT'
                                                 ELSE 'DELETE' END),
        format('drop the rule (DROP RULE %I ON %I.%I), and do what it does in a trigger', r.rulename, target_schema,
               target_table)
      FROM pg_rewrite r
     WHERE r.ev_class = to_regclass(format('%I.%I', target_schema, target_table))
       AND (r.ev_type IN ('2', '3') OR r.ev_type = '4' AND c.bucket_period IS NOT NULL)
     ORDER BY r.rulename;
    IF NOT has_source THEN
        RETURN QUERY SELECT d || ': ' || format('source table %I.%I does not exist', source_schema, source_table), missing_fix;
    END IF;
    RETURN QUERY SELECT d || ': ' || x.p, 'give the foreign key column the type of the key it points at'
      FROM (SELECT countercache.type_problem('foreign key column', source_schema, source_table, source_fk, fk_type,
                                             'the key it points at is') AS p) x WHERE has_source AND x.p IS NOT NULL;
    IF c.more_fks IS NOT NULL THEN   -- several foreign keys feed the counter (see feeds)
        IF via_table IS NOT NULL OR c.aggregate IS NOT NULL OR c.distinct_column IS NOT NULL
           OR c.bucket_period IS NOT NULL THEN
            RETURN QUERY SELECT d || ': ' || format('the foreign keys %s feed one counter, which can only count or'
                                                    ' sum the rows of its source',
                                                    array_to_string(source_fk || c.more_fks, ', ')),
                'count along a path, per bucket, a min, a max or distinct values through one foreign key';
        END IF;
        RETURN QUERY SELECT d || ': ' || format('foreign key %I is named more than once', x.fk),
            'name each foreign key once'
          FROM unnest(source_fk || c.more_fks) x(fk) GROUP BY x.fk HAVING count(*) > 1;
        RETURN QUERY SELECT d || ': ' || x.p, 'give the foreign key column the type of the key it points at'
          FROM unnest(c.more_fks) fk, LATERAL (SELECT countercache.type_problem('foreign key column', source_schema,
                                               source_table, fk, fk_type, 'the key it points at is') AS p) x
         WHERE has_source AND x.p IS NOT NULL;
    END IF;
    -- The capture is statement triggers, which fire only for the table a statement names: a statement on a partition
    -- or an inheritance child fires none of its parent's, and one on the parent (which reaches the children's rows)
    -- none of the children's. Either would write uncounted rows, and a recount of the parent reads the children's.
    -- A partitioned target stays allowed: the rollup writes it by key, and only a row inserted or deleted through one
    -- of its partitions skips the hand-back of its column (docs/security.md).
    RETURN QUERY SELECT d || ': ' || format('table %s %s, and a statement that names %s fires none of its'
                                            ' triggers, so the rows it writes would not be counted', x.r,
                                            CASE WHEN x.parent THEN 'has child tables (partitions or INHERITS)'
                                                 ELSE 'is a partition or child of another table' END,
                                            CASE WHEN x.parent THEN 'a child' ELSE 'the parent' END),
        'count a table that has no child tables and is no child: countercache does not count partitioned or'
        || ' inherited tables'
      FROM (SELECT k.oid::regclass AS r, k.relkind = 'p' OR EXISTS (SELECT FROM pg_inherits i WHERE i.inhparent = k.oid) AS parent
              FROM pg_class k
             WHERE k.oid = to_regclass(format('%I.%I', source_schema, source_table))
               AND (k.relkind = 'p' OR EXISTS (SELECT FROM pg_inherits i WHERE k.oid IN (i.inhparent, i.inhrelid)))) x;
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
                CASE WHEN countercache.column_scale(source_schema, source_table, sum_column) IS NULL
                     THEN 'give the sum column a scale (numeric(p,s)) and the counter field at least as many decimal places'
                     ELSE format('keep at least %1$s decimal places in the counter (a BigDecimal field with @Column(scale = %1$s))',
                                 countercache.column_scale(source_schema, source_table, sum_column)) END;
        END IF;
    END IF;
    -- PostgreSQL judges the condition, parsed and typed against the source table in two contexts, each through a
    -- cursor, which refuses a text of more than one statement: as a WHERE (so it is boolean) and inside ARRAY[( )]
    -- (a text that closed the parenthesis to add a clause of its own could not fit both). Each sits behind a
    -- constant false that the planner folds first, so that planning the probe never runs a function it calls; IS
    -- TRUE keeps the planner from pulling a subquery of the condition up into a join, which it does before folding.
    -- With row_security off: planning would add the policies of a table the probe reads whose row-level security
    -- applies to the role that checks (the migrator, the schema's owner in a boot check), and fold a function of
    -- theirs with that role's rights; instead PostgreSQL refuses the probe before planning it.
    IF has_source AND condition IS NOT NULL THEN
        BEGIN
            saved := ARRAY[current_setting('row_security')];
            PERFORM set_config('row_security', 'off', true);   -- an error puts it back with the block
            OPEN probe FOR EXECUTE format('SELECT 1 FROM %I.%I AS %I WHERE false AND ((%s) IS TRUE)',
                source_schema, source_table, source_table, condition);
            CLOSE probe;
            OPEN probe FOR EXECUTE format('SELECT CASE WHEN false THEN ARRAY[(%s)] END FROM %I.%I AS %I',
                condition, source_schema, source_table, source_table);
            CLOSE probe;
            PERFORM set_config('row_security', saved[1], true);
            -- The capture runs the condition as the migrator (SECURITY DEFINER), so it may call only functions a
            -- role the application cannot be owns (a superuser, or the owner of this schema): a function the
            -- application could replace would run its code with the migrator's rights. And only IMMUTABLE ones: the
            -- condition is judged when its row is written, so one whose result can change while the row does not
            -- (now(), a cast that reads the time zone, a function that reads a table) would never take back what it
            -- counted, and one with side effects would run them. A view over the condition lists what it calls
            -- (pg_depend), unplanned.
            EXECUTE format('CREATE OR REPLACE TEMP VIEW countercache_probe AS SELECT (%s) AS x FROM %I.%I AS %I',
                condition, source_schema, source_table, source_table);
            -- The name is looked up again whenever the capture is planned: a schema outside pg_catalog where such a
            -- role may create functions (or operators) would let it add an overload that fits the call better.
            SELECT string_agg(DISTINCT format('%s (%s)', f.oid::regprocedure,
                       CASE WHEN f.provolatile = 'v' THEN 'VOLATILE'
                            WHEN f.provolatile = 's' THEN 'STABLE: its result may change while the row does not'
                            WHEN NOT countercache.trusted_role(f.proowner) THEN 'owned by ' || f.proowner::regrole
                            ELSE format('in schema %s, where %s may add an overload', x.s::regnamespace, x.r) END), ', ')
              INTO untrusted
              FROM (-- what it calls: the functions and operators pg_depend lists (none of pg_catalog's, which are
                    -- pinned), and every function the stored expression names, pg_catalog's too (now())
                    SELECT CASE WHEN d.refclassid = 'pg_proc'::regclass THEN d.refobjid END AS fn, o.oid AS op
                      FROM pg_depend d
                      JOIN pg_rewrite rw ON rw.oid = d.objid
                      LEFT JOIN pg_operator o ON d.refclassid = 'pg_operator'::regclass AND o.oid = d.refobjid
                     WHERE d.classid = 'pg_rewrite'::regclass AND rw.ev_class = 'pg_temp.countercache_probe'::regclass
                       AND d.refclassid IN ('pg_proc'::regclass, 'pg_operator'::regclass)
                    UNION
                    SELECT n.fn, NULL
                      FROM pg_rewrite rw, countercache.functions_named(rw.ev_action::text) n(fn)
                     WHERE rw.ev_class = 'pg_temp.countercache_probe'::regclass) called
              LEFT JOIN pg_operator o ON o.oid = called.op
              JOIN pg_proc f ON f.oid = coalesce(called.fn, o.oprcode)
              LEFT JOIN LATERAL (
                  SELECT n.oid AS s, string_agg(DISTINCT CASE WHEN a.grantee = 0 THEN 'PUBLIC'
                                                              ELSE a.grantee::regrole::text END, ', ') AS r
                    FROM pg_namespace n,
                         LATERAL (SELECT n.nspowner AS grantee
                                  UNION ALL
                                  SELECT e.grantee FROM aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) e
                                   WHERE e.privilege_type = 'CREATE') a
                   WHERE n.oid IN (f.pronamespace, o.oprnamespace) AND n.nspname <> 'pg_catalog'
                     AND (a.grantee = 0 OR NOT countercache.trusted_role(a.grantee))
                   GROUP BY n.oid LIMIT 1) x ON true
             WHERE f.provolatile <> 'i' OR NOT countercache.trusted_role(f.proowner) OR x.s IS NOT NULL;
            -- CURRENT_DATE, CURRENT_TIMESTAMP, CURRENT_USER and their kin are no function calls, and not immutable
            IF EXISTS (SELECT FROM pg_rewrite rw WHERE rw.ev_class = 'pg_temp.countercache_probe'::regclass
                                                  AND rw.ev_action::text LIKE '%{SQLVALUEFUNCTION %') THEN
                untrusted := concat_ws(', ', untrusted, 'a CURRENT_... value (STABLE: it may change while the row does not)');
            END IF;
            -- The condition is judged on the source row alone, when that row is written: a table it reads besides
            -- (a subquery) can change without any write of the source, and the count would drift unseen.
            SELECT string_agg(DISTINCT d.refobjid::regclass::text, ', ') INTO elsewhere
              FROM pg_depend d
              JOIN pg_rewrite rw ON rw.oid = d.objid
             WHERE d.classid = 'pg_rewrite'::regclass AND rw.ev_class = 'pg_temp.countercache_probe'::regclass
               AND d.refclassid = 'pg_class'::regclass
               AND d.refobjid NOT IN ('pg_temp.countercache_probe'::regclass,
                                      to_regclass(format('%I.%I', source_schema, source_table)));
            -- Nor is a cast through text (created_at::text), which calls the types' output and input functions,
            -- never named in the tree: the text of a time depends on TimeZone and DateStyle. PostgreSQL tells whether
            -- such an expression is immutable when it is made a stored generated column: of a copy of the source's
            -- columns, dropped with its subtransaction. Only that copy's own end (CC000) passes. A condition
            -- already refused for what it calls is not judged again: the copy would fail on that call, and name a
            -- cast that is not to blame.
            IF elsewhere IS NULL AND untrusted IS NULL AND EXISTS (SELECT FROM pg_rewrite rw
                                              WHERE rw.ev_class = 'pg_temp.countercache_probe'::regclass
                                                AND rw.ev_action::text LIKE '%{COERCEVIAIO %') THEN
                BEGIN
                    IF to_regclass(format('pg_temp.%I', source_table)) IS NOT NULL THEN
                        RAISE 'this session has a temporary table named %', source_table;
                    END IF;
                    EXECUTE format('CREATE TEMP TABLE %I (LIKE %I.%I)', source_table, source_schema, source_table);
                    EXECUTE format('ALTER TABLE pg_temp.%I ADD COLUMN countercache_x boolean GENERATED ALWAYS AS'
                                   ' ((%s)) STORED', source_table, condition);
                    RAISE SQLSTATE 'CC000';
                EXCEPTION
                    WHEN SQLSTATE 'CC000' THEN
                        NULL;
                    WHEN OTHERS THEN   -- "generation expression is not immutable", or what kept it from being judged
                        untrusted := concat_ws(', ', untrusted, format('a cast through text that is not immutable, as'
                            ' PostgreSQL judges it: %s (the text of a time depends on TimeZone and DateStyle, an'
                            ' enum''s label may be renamed)', SQLERRM));
                END;
            END IF;
            -- A literal compared with a column is converted once, when the condition is parsed, by the settings of
            -- the session that parses it: a writer's for the capture, the worker's for a recount. '2024-01-01'
            -- against a timestamptz column (TimeZone), '01/02/2024' (DateStyle) or an interval's '-1 2:00'
            -- (IntervalStyle) would count a row in one and not in the other. The view is parsed again, in place
            -- (its own oid stays, which its tree names), under three settings of each; a condition whose tree
            -- differs, or that one of them cannot read, is refused. Only a quote or a dollar sign starts such a
            -- literal, so a condition without either is not parsed again.
            IF condition ~ '[''$]' THEN
                saved := ARRAY[current_setting('TimeZone'), current_setting('DateStyle'), current_setting('IntervalStyle')];
                BEGIN
                    FOR i IN 1..3 LOOP
                        PERFORM set_config('TimeZone', (ARRAY['Pacific/Kiritimati', 'Pacific/Pago_Pago', 'UTC'])[i], true),
                                set_config('DateStyle', (ARRAY['ISO, DMY', 'ISO, MDY', 'ISO, YMD'])[i], true),
                                set_config('IntervalStyle', (ARRAY['postgres', 'sql_standard', 'iso_8601'])[i], true);
                        EXECUTE format('CREATE OR REPLACE TEMP VIEW countercache_probe AS SELECT (%s) AS x FROM %I.%I AS %I',
                            condition, source_schema, source_table, source_table);
                        parsed[i] := (SELECT rw.ev_action::text FROM pg_rewrite rw
                                       WHERE rw.ev_class = 'pg_temp.countercache_probe'::regclass);
                    END LOOP;
                EXCEPTION WHEN OTHERS THEN
                    parsed := NULL;   -- a literal one of the settings cannot read (13/01/2024 as a month first)
                END;
                PERFORM set_config('TimeZone', saved[1], true), set_config('DateStyle', saved[2], true),
                        set_config('IntervalStyle', saved[3], true);
                IF parsed IS NULL OR parsed[1] IS DISTINCT FROM parsed[2] OR parsed[1] IS DISTINCT FROM parsed[3] THEN
                    RETURN QUERY SELECT d || ': ' || format('where = "%s" reads differently in another time zone,'
                        ' date style or interval style', condition),
                        'a literal it compares is converted by the settings of the session that parses it (each'
                        ' writer''s, and the worker''s): write times with their offset (''2024-01-01 00:00+00''),'
                        ' dates as ISO (''2024-01-31''), and intervals without a leading sign';
                END IF;
            END IF;
            DROP VIEW pg_temp.countercache_probe;
            IF elsewhere IS NOT NULL THEN
                RETURN QUERY SELECT d || ': ' || format('where = "%s" reads %s besides %I.%I', condition, elsewhere,
                    source_schema, source_table),
                    'a condition is judged on the source row when that row is written, so a change of another table '
                    'would never move the count: name only columns of the source (count along a path to reach a '
                    'middle entity, or keep the column the condition needs on the source)';
            END IF;
            IF untrusted IS NOT NULL THEN
                RETURN QUERY SELECT d || ': ' || format('where = "%s" calls %s', condition, untrusted),
                    'a condition is judged once, when its row is written, with the migrator''s rights: call only '
                    'IMMUTABLE functions (not now(), current_date or a cast that reads the time zone) owned by a '
                    'superuser or by the owner of the countercache schema (ALTER FUNCTION ... OWNER TO it, and keep '
                    'the application from replacing it), in a schema where no other role may create (REVOKE CREATE '
                    'ON SCHEMA ... FROM PUBLIC and the application, or move the function to a schema of its own)';
            END IF;
        EXCEPTION WHEN insufficient_privilege THEN
            RETURN QUERY SELECT d || ': ' || format('where = "%s" is not checked: %s (as %I)', condition, SQLERRM,
                                                    current_user),
                format('let %I read every row of what the condition reads, as the message says: where row-level'
                       ' security is the cause, ALTER ROLE %I BYPASSRLS (as a superuser), or ALTER TABLE ... NO FORCE'
                       ' ROW LEVEL SECURITY on a table it owns; else GRANT SELECT on the table, or TEMPORARY on the'
                       ' database', current_user, current_user);
        WHEN OTHERS THEN
            RETURN QUERY SELECT d || ': ' || format('where = "%s" is not one boolean expression over %I.%I: %s',
                condition, source_schema, source_table, SQLERRM),
                'write the condition as a boolean SQL expression over the columns of the source table, '
                'with functions outside pg_catalog schema-qualified';
        END;
    END IF;
    t := countercache.column_type(target_schema, target_table, target_column);
    IF c.aggregate IS NOT NULL THEN
        NULL;   -- extreme_problems compared it with the column it keeps the extreme of
    ELSIF t::text NOT IN ('smallint', 'integer', 'bigint', 'numeric') THEN
        RETURN QUERY SELECT d || ': ' || format('counter column %I.%I.%I is %s', target_schema, target_table, target_column, t),
            'make the counter column an integer, bigint or numeric(p,s)';
    ELSIF t::text = 'smallint' AND column_type IN ('integer', 'bigint') OR t::text = 'integer' AND column_type = 'bigint' THEN
        -- a count past the column's range would go to the dead letters, key by key
        RETURN QUERY SELECT d || ': ' || format('counter column %I.%I.%I is %s, narrower than the field''s %s',
            target_schema, target_table, target_column, t, column_type),
            format('ALTER TABLE %I.%I ALTER COLUMN %I TYPE %s in a changelog applied before the countercache one (or '
                   'make the field as narrow as the column)', target_schema, target_table, target_column, column_type);
    ELSIF scale > 0 AND t IS NOT NULL
          AND countercache.column_scale(target_schema, target_table, target_column) IS DISTINCT FROM scale THEN
        RETURN QUERY SELECT d || ': ' || format('counter column %I.%I.%I is %s, the entity model says %s',
            target_schema, target_table, target_column,
            countercache.column_format(target_schema, target_table, target_column), column_type),
            'make the column match the field''s precision and scale (or the field match the column)';
    END IF;
    t := countercache.column_type(target_schema, target_table, c.touch_column);
    IF c.touch_column IS NOT NULL AND has_target
       AND (t IS NULL OR t::text NOT IN ('timestamp with time zone', 'timestamp without time zone')) THEN
        RETURN QUERY SELECT d || ': ' || format('touch column %I.%I.%I is %s', target_schema, target_table,
            c.touch_column, coalesce(t::text, 'missing')),
            'touch a timestamp column of the target (an Instant, OffsetDateTime or LocalDateTime field)';
    ELSIF c.touch_column = target_column OR EXISTS (
            SELECT FROM countercache.counter k
             WHERE k.target_schema = c.target_schema AND k.target_table = c.target_table
               AND k.target_column = c.touch_column) THEN
        RETURN QUERY SELECT d || ': ' || format('touch column %I.%I.%I is a counter', target_schema, target_table,
            c.touch_column), 'touch a timestamp column that no counter keeps';
    END IF;
    -- The triggers, exact reads and the bucket rows' parent locks run as the schema's owner (SECURITY DEFINER) with
    -- row_security off: on a counted table (a source, a middle table, a target, which exact reads and whose
    -- TRUNCATE's trigger reads, a bucket's parent) whose row-level security applies to that role, a policy would hide
    -- rows from them (a count left short), or run code the table's owner wrote with the schema owner's rights;
    -- instead the statement fails. Said here, at install and boot, not at that statement.
    RETURN QUERY
    SELECT d || ': ' || format('row-level security on %s applies to %I, the owner of the countercache schema, as'
                               ' whom the triggers read it', rel.oid::regclass, o.rolname),
           format('ALTER ROLE %I BYPASSRLS (as a superuser), or have %I own %s without FORCE ROW LEVEL SECURITY',
                  o.rolname, o.rolname, rel.oid::regclass)
      FROM pg_namespace n
      JOIN pg_roles o ON o.oid = n.nspowner
     CROSS JOIN (SELECT to_regclass(format('%I.%I', x.s, x.t)) AS tbl
                   FROM countercache.counter_tables(c) x(kind, s, t)
                 UNION
                 SELECT p.tbl FROM countercache.bucket_parent_table(c) p) r
      JOIN pg_class rel ON rel.oid = r.tbl
     WHERE n.nspname = 'countercache' AND rel.relrowsecurity AND NOT (o.rolsuper OR o.rolbypassrls)
       AND (rel.relforcerowsecurity OR NOT pg_has_role(o.oid, rel.relowner, 'USAGE'));
END
$fn$;

-- The problems only a min or max counter can have (see counter_problems, which checks the rest): its column must be
-- of a type with an order that as_number reads (an integer, a numeric, a time), the counter column of the same type;
-- it is kept through the queue (the recompute is the rollup's, never a writer's), so not by the direct or slotted
-- strategies, and straight from its source, not along a path; its counter column may be NULL, the extreme of no
-- rows; and the rollup recomputes a target by an index on (foreign key, column), which must exist.
CREATE OR REPLACE FUNCTION countercache.extreme_problems(c countercache.counter)
RETURNS TABLE (problem text, fix text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    d constant text := '@CounterCache on ' || c.declared_by;
    source regclass := to_regclass(format('%I.%I', c.source_schema, c.source_table));
    v regtype := countercache.column_type(c.source_schema, c.source_table, c.aggregate_column);
    t regtype := countercache.column_type(c.target_schema, c.target_table, c.target_column);
BEGIN
    IF c.aggregate NOT IN ('min', 'max', 'count') OR c.aggregate_column IS NULL OR c.sum_column IS NOT NULL THEN
        RETURN QUERY SELECT d || ': ' || format('aggregate %L over %L is not a min or a max of one column', c.aggregate,
            c.aggregate_column), 'declare one of sum, min and max';
        RETURN;
    END IF;
    IF c.aggregate = 'count' THEN
        RETURN QUERY SELECT * FROM countercache.recomputed_count_problems(c);
        RETURN;
    END IF;
    IF c.strategy NOT IN ('queue', 'unlogged') THEN
        RETURN QUERY SELECT d || ': ' || format('a %s cannot use strategy %s', c.aggregate, c.strategy),
            format('a %s is recomputed by the rollup, so that no writer waits for it: use strategy QUEUE or UNLOGGED',
                   c.aggregate);
    END IF;
    IF c.via_table IS NOT NULL THEN
        RETURN QUERY SELECT d || ': ' || format('a %s along a path is not supported', c.aggregate),
            'keep it on the middle entity, straight from the source (via one many-to-one)';
    END IF;
    IF source IS NULL THEN
        RETURN;   -- counter_problems reports the missing table
    END IF;
    IF v IS NULL OR v::text NOT IN ('smallint', 'integer', 'bigint', 'numeric', 'timestamp with time zone',
                                    'timestamp without time zone', 'date') THEN
        RETURN QUERY SELECT d || ': ' || format('%s column %I.%I.%I is %s', c.aggregate, c.source_schema, c.source_table,
            c.aggregate_column, coalesce(v::text, 'missing')),
            format('take the %s of an existing integer, numeric, timestamp or date column', c.aggregate);
        RETURN;
    END IF;
    IF t IS NOT NULL AND t <> v THEN
        RETURN QUERY SELECT d || ': ' || format('counter column %I.%I.%I is %s, the %s of a %s', c.target_schema,
            c.target_table, c.target_column, t, c.aggregate, v),
            format('give the counter column (and field) the type of %I.%I', c.source_table, c.aggregate_column);
    END IF;
    -- no row counts for a new target, nor for one whose last row goes: its extreme is NULL then
    IF EXISTS (SELECT FROM pg_attribute a
                WHERE a.attrelid = to_regclass(format('%I.%I', c.target_schema, c.target_table))
                  AND a.attname = c.target_column AND a.attnotnull) THEN
        RETURN QUERY SELECT d || ': ' || format('counter column %I.%I.%I is NOT NULL, and the %s of no rows is NULL'
            ' (a target with none, or whose last one goes)', c.target_schema, c.target_table, c.target_column,
            c.aggregate),
            format('ALTER TABLE %I.%I ALTER COLUMN %I DROP NOT NULL in a changelog applied before the countercache '
                   'one, and map the field as nullable', c.target_schema, c.target_table, c.target_column);
    END IF;
    IF NOT countercache.has_index(source, ARRAY[c.source_fk, c.aggregate_column]) THEN
        RETURN QUERY SELECT d || ': ' || format('%I.%I has no index on (%I, %I), by which the rollup recomputes a %s',
            c.source_schema, c.source_table, c.source_fk, c.aggregate_column, c.aggregate),
            format('CREATE INDEX ON %I.%I (%I, %I) in a changelog applied before the countercache one',
                   c.source_schema, c.source_table, c.source_fk, c.aggregate_column);
    END IF;
END
$fn$;

-- Whether table tbl has a btree index, without a predicate, whose first key columns are columns, in order: the index
-- by which the rollup recomputes a min or max, or finds the rows of a recomputed count's key.
CREATE OR REPLACE FUNCTION countercache.has_index(tbl regclass, columns name[])
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT EXISTS (
        SELECT FROM pg_index i
         WHERE i.indrelid = tbl AND i.indpred IS NULL AND i.indnkeyatts >= cardinality(columns)
           AND (SELECT m.amname FROM pg_class x JOIN pg_am m ON m.oid = x.relam WHERE x.oid = i.indexrelid) = 'btree'
           AND (SELECT bool_and(i.indkey[n - 1] = (SELECT a.attnum FROM pg_attribute a
                                                    WHERE a.attrelid = tbl AND a.attname = columns[n]))
                  FROM generate_subscripts(columns, 1) n))
$fn$;

-- The problems only a recomputed count can have (extreme_problems checks the rest), the count per link of a where on
-- the far entity of a many-to-many: its source is the far table, counted by its own key (aggregate_column), into a
-- count column of the join table keyed by the link's column that points at the far row. The rollup recomputes it by
-- the source's key and updates the rows of a key by an index on the target's key, which must exist.
CREATE OR REPLACE FUNCTION countercache.recomputed_count_problems(c countercache.counter)
RETURNS TABLE (problem text, fix text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    d constant text := '@CounterCache on ' || c.declared_by;
    target regclass := to_regclass(format('%I.%I', c.target_schema, c.target_table));
BEGIN
    IF c.strategy NOT IN ('queue', 'unlogged') OR c.via_table IS NOT NULL OR c.column_type NOT IN ('bigint', 'integer')
       OR c.source_fk <> c.aggregate_column OR c.bucket_period IS NOT NULL OR c.target_parts IS NOT NULL
       OR c.more_fks IS NOT NULL OR c.distinct_column IS NOT NULL THEN
        RETURN QUERY SELECT d || ': a recomputed count is a count of a source''s rows by its own key, kept through the'
            || ' queue', 'regenerate the changelog';
    END IF;
    -- the rollup updates a table's rows once per round, by one key: a second key would update a row twice in a round,
    -- and the second update would check its foreign keys, waiting for an application that holds a parent
    RETURN QUERY SELECT d || ': ' || format('%I.%I''s rows are counted by %I already (%s)', c.target_schema,
                                            c.target_table, k.target_key, k.declared_by),
        'keep one where on the far side per join table: count the other side''s links without where, or map the '
        || 'join table as an entity with two many-to-ones and count from it'
      FROM countercache.counter k
     WHERE k.target_schema = c.target_schema AND k.target_table = c.target_table AND k.target_key <> c.target_key
       AND k.id <> c.id
     LIMIT 1;
    IF target IS NOT NULL AND NOT countercache.has_index(target, ARRAY[c.target_key]) THEN
        RETURN QUERY SELECT d || ': ' || format('%I.%I has no index on (%I), by which the rollup updates the rows of a'
            || ' recomputed count', c.target_schema, c.target_table, c.target_key),
            format('CREATE INDEX ON %I.%I (%I) in a changelog applied before the countercache one', c.target_schema,
                   c.target_table, c.target_key);
    END IF;
END
$fn$;

-- The problems only a distinct counter can have (see counter_problems, which checks the rest): it counts rows into an
-- integer column, one per value, so it sums nothing and keeps no extreme; its values travel, as text, through a queue
-- of their own that only the queue strategy feeds (the others add amounts per target, not per value); and a value's
-- text must be one per value whatever the session's settings (a time's text follows TimeZone and DateStyle, a
-- numeric's keeps its trailing zeros), so the column is an integer, a uuid, a text or a boolean.
CREATE OR REPLACE FUNCTION countercache.distinct_problems(c countercache.counter)
RETURNS TABLE (problem text, fix text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    d constant text := '@CounterCache on ' || c.declared_by;
    v regtype := countercache.column_type(c.source_schema, c.source_table, c.distinct_column);
BEGIN
    IF c.sum_column IS NOT NULL OR c.aggregate IS NOT NULL OR c.column_type NOT IN ('bigint', 'integer') THEN
        RETURN QUERY SELECT d || ': ' || format('a count of distinct %I cannot also sum, keep a min or max, or be a %s',
            c.distinct_column, c.column_type), 'declare one of sum, min, max and distinct, on a long or int field';
    END IF;
    IF c.strategy <> 'queue' THEN
        RETURN QUERY SELECT d || ': ' || format('a count of distinct values cannot use strategy %s', c.strategy),
            'use strategy QUEUE: the values travel through a queue of their own, which the other strategies '
            || '(adding amounts per target, not per value) do not feed';
    END IF;
    IF to_regclass(format('%I.%I', c.source_schema, c.source_table)) IS NOT NULL
       AND (v IS NULL OR v::text NOT IN ('smallint', 'integer', 'bigint', 'uuid', 'text', 'character varying',
                                         'character', 'boolean')) THEN
        RETURN QUERY SELECT d || ': ' || format('distinct column %I.%I.%I is %s', c.source_schema, c.source_table,
            c.distinct_column, coalesce(v::text, 'missing')),
            'count the distinct values of an existing integer, uuid, text or boolean column (a foreign key, a name)';
    ELSIF NOT (SELECT coalesce(bool_and(co.collisdeterministic), true)
                 FROM pg_attribute a JOIN pg_collation co ON co.oid = a.attcollation
                WHERE a.attrelid = to_regclass(format('%I.%I', c.source_schema, c.source_table))
                  AND a.attname = c.distinct_column) THEN
        -- values are kept as text, one row per text: two that such a collation takes as equal ('bob', 'BOB') are
        -- one value to the source's count(DISTINCT) and two to the library's
        RETURN QUERY SELECT d || ': ' || format('distinct column %I.%I.%I has a nondeterministic collation',
            c.source_schema, c.source_table, c.distinct_column),
            'give the column a deterministic collation (the database''s default is one), or count distinct values of'
            || ' an expression the library can compare as text (a lower-cased copy of the column)';
    END IF;
END
$fn$;

-- The problems of a counter's definition as define_counter takes it (its catalog row as JSON), before it is defined.
-- A level of a path counter sums a column of the library's (countercache_...) that the counter beneath adds when the
-- changelog defines it, before this one: that column may not exist yet, and define_counter checks it then.
CREATE OR REPLACE FUNCTION countercache.definition_problems(definition jsonb)
RETURNS TABLE (problem text, fix text)
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT p.problem, p.fix
      FROM jsonb_populate_record(NULL::countercache.counter, definition) c, countercache.counter_problems(c) p
     WHERE CASE WHEN c.sum_column LIKE 'countercache\_%'
                     AND countercache.column_type(c.source_schema, c.source_table, c.sum_column) IS NULL
                THEN p.problem <> format('@CounterCache on %s: sum column %I.%I.%I is missing', c.declared_by,
                                         c.source_schema, c.source_table, c.sum_column)
                ELSE true END
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

-- The counters whose triggers are not all in place on these tables (schema.table as %I quotes; all tables when
-- NULL): a trigger missing, disabled, not firing ALWAYS (so skipping sessions in replica mode, or firing only
-- there), or calling another function than the library's. Any of these would let writes go uncounted unseen.
CREATE OR REPLACE FUNCTION countercache.trigger_problems(tables text[] DEFAULT NULL)
RETURNS TABLE (counter text, problem text, fix text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT k.name,
           format('@CounterCache on %s: %s of %I.%I: %s', k.declared_by,
                  CASE x.kind WHEN 'capture' THEN 'capture triggers' WHEN 'target' THEN 'target triggers'
                              ELSE 'path triggers' END, x.s, x.t,
                  string_agg(format('%I %s', s.name,
                                    CASE WHEN tg.oid IS NULL THEN 'is missing'
                                         WHEN tg.tgfoid IS DISTINCT FROM to_regprocedure(format('countercache.%I()',
                                                  countercache.trigger_function(x.kind, x.s, x.t)))
                                              THEN 'calls another function'
                                         WHEN tg.tgenabled = 'D' THEN 'is disabled'
                                         WHEN tg.tgenabled = 'R' THEN 'fires for replicas only'
                                         ELSE 'skips sessions in replica mode' END), ', ' ORDER BY s.name)),
           format('rebuild them as the migrator: SELECT countercache.install_triggers(%L, %L); applying the '
                  'countercache changelog does the same', x.s, x.t)
      FROM countercache.counter k
     CROSS JOIN LATERAL countercache.counter_tables(k) AS x(kind, s, t)
      JOIN countercache.trigger_specs() s ON s.kind = x.kind
      LEFT JOIN pg_trigger tg ON tg.tgrelid = to_regclass(format('%I.%I', x.s, x.t)) AND tg.tgname = s.name
     WHERE x.t IS NOT NULL AND to_regclass(format('%I.%I', x.s, x.t)) IS NOT NULL
       AND (tables IS NULL OR format('%I.%I', x.s, x.t) = ANY (tables))
       AND (tg.oid IS NULL OR tg.tgenabled <> 'A'
            OR tg.tgfoid IS DISTINCT FROM to_regprocedure(
                   format('countercache.%I()', countercache.trigger_function(x.kind, x.s, x.t))))
     GROUP BY k.name, k.declared_by, x.kind, x.s, x.t
$fn$;

-- The triggers (all, or these) of the tables the library writes (targets, middle tables) whose code a role the
-- application can be may change: a SECURITY INVOKER function owned by a role trusted_role does not trust. Such a
-- trigger runs with the rights of the role that writes the table, the rollup's, or the migrator's for a direct
-- counter's capture and a changelog's recount, and so would let that role act as them. The trigger guard refuses
-- to create one; the worker logs those there are when it starts. A table's partitions and child tables count as
-- the table: an UPDATE of the table writes their rows and fires their row triggers (a partition's clone of one of
-- the table's own triggers is the table's to report). Other code a table's owner can attach (a WHEN clause, a rule,
-- a policy, a default) runs as the writer too: docs/security.md.
CREATE OR REPLACE FUNCTION countercache.trigger_rights_problems(triggers oid[] DEFAULT NULL)
RETURNS TABLE (table_name text, problem text, fix text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format('%I.%I', x.s, x.t),
           format('trigger %I of %s calls %s, which runs with the rights of the role that writes the table'
                  ' (the rollup''s, or the migrator''s) and which %s may change', tg.tgname, tg.tgrelid::regclass,
                  f.oid::regprocedure, f.proowner::regrole),
           'make the function SECURITY DEFINER (it then runs as its owner), or have the migrator own it '
           '(ALTER FUNCTION ... OWNER TO), and create triggers on tables countercache writes as the migrator'
      FROM countercache.counter k
     CROSS JOIN LATERAL countercache.counter_tables(k) AS x(kind, s, t)
     CROSS JOIN LATERAL (WITH RECURSIVE tree(rel) AS (   -- the table, its partitions and child tables
                             SELECT to_regclass(format('%I.%I', x.s, x.t))::oid
                             UNION
                             SELECT i.inhrelid FROM pg_inherits i JOIN tree ON i.inhparent = tree.rel)
                         SELECT tree.rel FROM tree) w
      JOIN pg_trigger tg ON tg.tgrelid = w.rel AND tg.tgparentid = 0
      -- its function, and those its WHEN clause calls (the stored expression names them); joined by oid, since
      -- an OR in the join made it a scan of pg_proc per trigger (the worker's start check took the whole of a test)
     CROSS JOIN LATERAL (SELECT tg.tgfoid
                         UNION
                         SELECT countercache.functions_named(tg.tgqual::text)) called(fn)
      JOIN pg_proc f ON f.oid = called.fn
     WHERE x.kind <> 'capture' AND x.t IS NOT NULL AND NOT tg.tgisinternal AND tg.tgenabled IN ('O', 'A')
       AND (triggers IS NULL OR tg.oid = ANY (triggers))
       AND NOT f.prosecdef AND NOT countercache.trusted_role(f.proowner)
     GROUP BY x.s, x.t, tg.tgname, tg.tgrelid, f.oid, f.proowner
$fn$;

-- The counted tables whose rows row-level security may hide from a role (the rollup's), one row per table, naming
-- its counters and the fix. The worker reads sources to recount and recompute, and locks and updates targets: a row
-- a policy hides is left out of a recount (a wrong count, written) and looks busy to a round (its deltas go back to
-- the queue, round after round). Only a role that bypasses row security (a superuser, BYPASSRLS, the table's owner
-- unless the table forces it) or that a policy shows every row (a permissive one for every command whose condition
-- and check are true, and no restrictive one) is safe; other policies may be, but no catalog can tell. The worker
-- logs these when it starts. SECURITY DEFINER: it calls the catalog's functions, which only the migrator runs.
CREATE OR REPLACE FUNCTION countercache.row_security_problems(for_role name)
RETURNS TABLE (table_name text, problem text, fix text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH me AS (
        SELECT r.oid, r.rolname, r.rolsuper OR r.rolbypassrls AS bypasses FROM pg_roles r WHERE r.rolname = for_role
    ), counted AS (
        SELECT k.declared_by, to_regclass(format('%I.%I', v.s, v.t)) AS tbl
          FROM countercache.counter k, LATERAL countercache.counter_tables(k) v(kind, s, t)
        UNION
        SELECT k.declared_by, p.tbl FROM countercache.counter k, LATERAL countercache.bucket_parent_table(k) p
    ), applies AS (   -- the policies of a table that apply to the role
        SELECT p.* FROM pg_policy p, me
         WHERE 0 = ANY (p.polroles) OR EXISTS (SELECT FROM unnest(p.polroles) g WHERE pg_has_role(me.oid, g, 'USAGE'))
    )
    SELECT format('%s', c.tbl),
           format('row-level security on %s applies to the rollup''s role %I, and its policies may hide rows from it:'
                  ' a recount would leave them out and a round could not update them (@CounterCache on %s)',
                  c.tbl, me.rolname, string_agg(DISTINCT c.declared_by, ', ')),
           format('ALTER ROLE %I BYPASSRLS (as a superuser), or CREATE POLICY countercache_worker ON %s TO %I'
                  ' USING (true) WITH CHECK (true)', me.rolname, c.tbl, me.rolname)
      FROM counted c JOIN pg_class t ON t.oid = c.tbl, me
     WHERE t.relrowsecurity AND NOT me.bypasses
       AND (t.relforcerowsecurity OR NOT pg_has_role(me.oid, t.relowner, 'USAGE'))
       AND NOT (EXISTS (SELECT FROM applies a WHERE a.polrelid = t.oid AND a.polpermissive AND a.polcmd = '*'
                         AND pg_get_expr(a.polqual, a.polrelid) = 'true'
                         AND coalesce(pg_get_expr(a.polwithcheck, a.polrelid), 'true') = 'true')
                AND NOT EXISTS (SELECT FROM applies a WHERE a.polrelid = t.oid AND NOT a.polpermissive))
     GROUP BY c.tbl, me.rolname
$fn$;

-- The problems of the installed counters with the database as it is now (as counter_problems finds them, plus a
-- counter column gone missing), for the counters of these tables (schema.table, quoted as format's %I quotes) and
-- those whose tables are missing, or for every counter when tables is NULL. The DDL guard refuses a statement that
-- leaves any; the CLI's status lists them.
CREATE OR REPLACE FUNCTION countercache.installed_problems(tables text[] DEFAULT NULL)
RETURNS TABLE (counter text, problem text, fix text)
LANGUAGE sql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH k AS (
        SELECT * FROM countercache.counter k
         WHERE EXISTS (SELECT FROM countercache.counter_tables(k) AS r(kind, s, t)
                          -- a table renamed is missing under its name
                        WHERE tables IS NULL OR format('%I.%I', r.s, r.t) = ANY (tables)
                              OR to_regclass(format('%I.%I', r.s, r.t)) IS NULL)
    ), found AS (
        SELECT k.name, p.problem, p.fix
          FROM k CROSS JOIN LATERAL countercache.counter_problems(
                   (SELECT c FROM countercache.counter c WHERE c.id = k.id)) p
        UNION ALL
        SELECT k.name, format('@CounterCache on %s: counter column %I.%I.%I is missing', k.declared_by,
               k.target_schema, k.target_table, k.target_column), 'give the counter column back its name (or the field the column''s name)'
          FROM k
         WHERE to_regclass(format('%I.%I', k.target_schema, k.target_table)) IS NOT NULL
           AND countercache.column_type(k.target_schema, k.target_table, k.target_column) IS NULL
        UNION ALL
        SELECT t.counter, t.problem, t.fix FROM countercache.trigger_problems(tables) t
    )
    SELECT f.name, f.problem, f.fix FROM found f ORDER BY f.name, f.problem
$fn$;

-- The DDL guard: an event trigger that refuses an ALTER TABLE, DROP TABLE, DROP INDEX or CREATE RULE (a user's own
-- migration, say) that would break an installed counter: a counted column renamed, dropped or given another type, a
-- source, target or middle table renamed or dropped, the index a min or max is recomputed by dropped, a rule on a
-- target. Its error names each counter in the way and what is wrong, with the fix. The installed capture triggers name
-- columns, so without it such a change would surface as a bare "column does not exist" at the application's next
-- insert. A migration that changes a counted column on purpose, together with the entity, runs SET LOCAL
-- countercache.ddl_guard = off first and the regenerated countercache changelog after it, in the same update. It
-- checks the statements of the migrator (the role that owns the countercache schema, and its members), not the
-- application's. Only a superuser can create event triggers: the install creates them when it runs as one, and
-- docs/security.md has the statements for a superuser to run otherwise.
CREATE OR REPLACE FUNCTION countercache.ddl_guard()
RETURNS event_trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    touched text[];   -- the tables the statement altered or dropped, as schema.table
    problems text[];
    fixes text[];
    broken integer;   -- the counters in the way (a counter may have several problems)
BEGIN
    IF current_setting('countercache.ddl_guard', true) = 'off'
       OR to_regclass('countercache.counter') IS NULL
       OR NOT pg_has_role((SELECT n.nspowner FROM pg_namespace n WHERE n.nspname = 'countercache'), 'USAGE') THEN
        RETURN;
    END IF;
    IF TG_EVENT = 'sql_drop' THEN
        -- a dropped index names no table once it is gone: the sources of the min and max counters of its schema,
        -- and the targets of its recomputed counts, which need one, are checked again
        SELECT array_agg(DISTINCT t.name) INTO touched
          FROM (SELECT format('%I.%I', o.schema_name, o.object_name)
                  FROM pg_event_trigger_dropped_objects() o WHERE o.object_type = 'table'
                UNION ALL
                SELECT format('%I.%I', k.source_schema, k.source_table)
                  FROM pg_event_trigger_dropped_objects() o
                  JOIN countercache.counter k ON k.source_schema = o.schema_name AND k.aggregate IN ('min', 'max')
                 WHERE o.object_type = 'index'
                UNION ALL   -- and the join tables of the recomputed counts, which need an index on their key
                SELECT format('%I.%I', k.target_schema, k.target_table)
                  FROM pg_event_trigger_dropped_objects() o
                  JOIN countercache.counter k ON k.target_schema = o.schema_name AND k.aggregate = 'count'
                 WHERE o.object_type = 'index') AS t(name);
    ELSE
        -- and their children and parents: ATTACH PARTITION names the parent of the table it makes a child, and
        -- CREATE TABLE ... INHERITS or PARTITION OF the child of a table it makes a parent. Of a CREATE TABLE, only
        -- the parents: a new table is no counter's yet, and other tables' problems are not its business.
        SELECT array_agg(DISTINCT format('%I.%I', n.nspname, r.relname)) INTO touched
          FROM (SELECT CASE WHEN d.classid = 'pg_rewrite'::regclass   -- CREATE RULE: the rule's table
                            THEN (SELECT w.ev_class FROM pg_rewrite w WHERE w.oid = d.objid) ELSE d.objid END
                  FROM pg_event_trigger_ddl_commands() d
                 WHERE d.classid IN ('pg_class'::regclass, 'pg_rewrite'::regclass)) c(objid)
          LEFT JOIN pg_inherits i ON c.objid IN (i.inhparent, i.inhrelid)
          JOIN pg_class r ON r.oid IN (c.objid, i.inhrelid, i.inhparent) JOIN pg_namespace n ON n.oid = r.relnamespace
         WHERE TG_TAG <> 'CREATE TABLE' OR r.oid = i.inhparent;
        IF touched IS NULL AND TG_TAG = 'CREATE TABLE' THEN
            RETURN;
        END IF;
    END IF;
    SELECT array_agg(f.problem ORDER BY f.counter, f.problem), array_agg(f.fix ORDER BY f.counter, f.problem),
           count(DISTINCT f.counter)
      INTO problems, fixes, broken
      FROM countercache.installed_problems(coalesce(touched, '{}')) f;
    IF cardinality(problems) > 0 THEN
        RAISE EXCEPTION 'countercache: % would break % counter%:%', TG_TAG, broken,
            CASE WHEN broken > 1 THEN 's' ELSE '' END,
            countercache.problem_list(problems, fixes)
            USING ERRCODE = 'dependent_objects_still_exist',
                  HINT = 'to change the column or table with its entity on purpose: SET LOCAL countercache.ddl_guard = off '
                         'in that migration, and apply the regenerated countercache changelog after it; to stop '
                         'counting: remove the @CounterCache and apply the regenerated changelog first';
    END IF;
END
$fn$;
-- The trigger guard: an event trigger that refuses, from any role, a statement that leaves a trigger of the library
-- not in place (see trigger_problems): CREATE OR REPLACE TRIGGER over one of ours, which the TRIGGER privilege (in
-- GRANT ALL) allows; ALTER TABLE ... DISABLE or ENABLE [REPLICA] TRIGGER by a table's owner; and a new trigger on a
-- table the library writes whose code such a role may change (trigger_rights_problems). It runs SECURITY
-- DEFINER, since the roles it checks have no right on the catalog; only a session of the migrator (the schema owner
-- or a member) may turn it off with SET LOCAL countercache.ddl_guard = off, as install_triggers does.
CREATE OR REPLACE FUNCTION countercache.trigger_guard()
RETURNS event_trigger
LANGUAGE plpgsql
SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    touched text[];
    problems text[];
    fixes text[];
BEGIN
    IF current_setting('countercache.ddl_guard', true) = 'off'
       AND pg_has_role(session_user, (SELECT n.nspowner FROM pg_namespace n WHERE n.nspname = 'countercache'), 'USAGE') THEN
        RETURN;
    END IF;
    SELECT array_agg(DISTINCT format('%I.%I', n.nspname, r.relname)) INTO touched
      FROM pg_event_trigger_ddl_commands() c
      JOIN pg_class r ON r.oid = CASE WHEN c.classid = 'pg_trigger'::regclass
                                      THEN (SELECT t.tgrelid FROM pg_trigger t WHERE t.oid = c.objid) ELSE c.objid END
      JOIN pg_namespace n ON n.oid = r.relnamespace
     WHERE c.classid IN ('pg_class'::regclass, 'pg_trigger'::regclass);
    SELECT array_agg(t.problem ORDER BY t.k, t.problem), array_agg(t.fix ORDER BY t.k, t.problem)
      INTO problems, fixes
      FROM (SELECT p.counter AS k, p.problem, p.fix FROM countercache.trigger_problems(coalesce(touched, '{}')) p
            UNION ALL   -- a trigger it creates, not those there are: they are the worker's warnings
            SELECT p.table_name, p.problem, p.fix
              FROM countercache.trigger_rights_problems(ARRAY(
                       SELECT c.objid FROM pg_event_trigger_ddl_commands() c
                        WHERE c.classid = 'pg_trigger'::regclass)) p) t;
    IF cardinality(problems) > 0 THEN
        RAISE EXCEPTION 'countercache: % would let writes go uncounted or run as the rollup:%', TG_TAG,
            countercache.problem_list(problems, fixes)
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'the triggers named countercache_* belong to countercache, and a trigger of a table it '
                         'writes runs with its rights; to stop counting, remove the @CounterCache and apply the '
                         'regenerated changelog';
    END IF;
END
$fn$;
-- The guard's three event triggers (ddl_guard behind two, trigger_guard behind one) that are not in place as this
-- version makes them: missing, made by an earlier version that watched fewer statements, or disabled; each with its
-- fix, and the statement that creates it (none for a disabled one: a superuser disabled it). Only a superuser can
-- create event triggers: the install creates them when the migrator is one and warns of them otherwise; the worker
-- logs them when it starts and the CLI's status lists them.
CREATE OR REPLACE FUNCTION countercache.guard_problems()
RETURNS TABLE (guard name, problem text, fix text, statement text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT g.name,
           format('the event trigger %I of countercache''s DDL guard %s: a migration may break a counter or a trigger'
                  ' unseen (the boot check and status still find what it breaks)', g.name,
                  CASE WHEN e.oid IS NULL THEN 'is missing'
                       WHEN NOT e.evttags @> g.tags THEN 'is out of date (made by an earlier version)'
                       ELSE 'is disabled' END),
           CASE WHEN e.oid IS NULL OR NOT e.evttags @> g.tags
                THEN 'a superuser runs the guard script of docs/security.md, "The DDL guard, when the migrator is not a'
                     ' superuser" (or applies the changelog as one)'
                ELSE format('a superuser runs ALTER EVENT TRIGGER %I ENABLE', g.name) END,
           CASE WHEN e.oid IS NULL OR NOT e.evttags @> g.tags
                THEN format('CREATE EVENT TRIGGER %I ON %s WHEN TAG IN (%s) EXECUTE FUNCTION countercache.%I()',
                            g.name, g.event, (SELECT string_agg(quote_literal(t), ', ') FROM unnest(g.tags) t),
                            g.handler) END
      FROM (VALUES ('countercache_ddl_guard'::name, 'ddl_command_end',
                    ARRAY['ALTER TABLE', 'CREATE TABLE', 'CREATE RULE'], 'ddl_guard'::name),
                   -- CREATE TABLE: a table made a child (INHERITS, PARTITION OF) of a counted one; CREATE RULE: a
                   -- rule on a target
                   ('countercache_drop_guard', 'sql_drop', ARRAY['DROP TABLE', 'DROP INDEX'], 'ddl_guard'),
                   ('countercache_trigger_guard', 'ddl_command_end', ARRAY['CREATE TRIGGER', 'ALTER TABLE'],
                    'trigger_guard'))
           AS g(name, event, tags, handler)
      LEFT JOIN pg_event_trigger e ON e.evtname = g.name
     WHERE e.oid IS NULL OR NOT e.evttags @> g.tags OR e.evtenabled = 'D'
     ORDER BY g.name
$fn$;
DO $guard$
DECLARE
    g record;
    super boolean := (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER);
BEGIN
    FOR g IN SELECT * FROM countercache.guard_problems() LOOP
        IF NOT super THEN
            RAISE WARNING 'countercache: %', g.problem USING HINT = g.fix;
        ELSIF g.statement IS NOT NULL THEN
            IF EXISTS (SELECT FROM pg_catalog.pg_event_trigger e WHERE e.evtname OPERATOR(pg_catalog.=) g.guard) THEN
                EXECUTE pg_catalog.format('DROP EVENT TRIGGER %I', g.guard);   -- an earlier version's
            END IF;
            EXECUTE g.statement;
        END IF;
    END LOOP;
END
$guard$;
