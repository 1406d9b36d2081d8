-- The library's triggers: which ones each kind of table gets, their functions' names, and their (re)building from
-- the catalog. Every trigger of the library calls a function of the countercache schema named capture_... (on a
-- source table), target_... or via_... (on a middle table of a path), so the library finds its own by the function.

-- The library's triggers, per kind: name, and how it fires ({key}: the key column; {columns}: the middle table's
-- key and links; {changed}: a condition that one of them changed).
CREATE OR REPLACE FUNCTION countercache.trigger_specs()
RETURNS TABLE (kind text, name name, fires text)
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    VALUES ('capture', 'countercache_insert', 'AFTER INSERT ON %s REFERENCING NEW TABLE AS countercache_new FOR EACH STATEMENT'),
           ('capture', 'countercache_update', 'AFTER UPDATE ON %s REFERENCING OLD TABLE AS countercache_old NEW TABLE AS countercache_new FOR EACH STATEMENT'),
           ('capture', 'countercache_delete', 'AFTER DELETE ON %s REFERENCING OLD TABLE AS countercache_old FOR EACH STATEMENT'),
           ('capture', 'countercache_truncate', 'BEFORE TRUNCATE ON %s FOR EACH STATEMENT'),
           ('target', 'countercache_target_insert', 'AFTER INSERT ON %s REFERENCING NEW TABLE AS countercache_new FOR EACH STATEMENT'),
           ('target', 'countercache_target_delete', 'AFTER DELETE ON %s REFERENCING OLD TABLE AS countercache_old FOR EACH STATEMENT'),
           ('target', 'countercache_target_key', 'AFTER UPDATE OF {columns} ON %s FOR EACH ROW WHEN ({changed})'),
           ('target', 'countercache_target_truncate', 'BEFORE TRUNCATE ON %s FOR EACH STATEMENT'),
           ('via', 'countercache_via_update', 'BEFORE UPDATE OF {columns} ON %s FOR EACH ROW WHEN ({changed})'),
           ('via', 'countercache_via_delete', 'BEFORE DELETE ON %s FOR EACH ROW')
$fn$;

-- The name of a table's trigger function of one kind: readable, at most 63 bytes, and unique per table, since it
-- ends with a digest of the qualified name (a.b_c and a_b.c differ).
CREATE OR REPLACE FUNCTION countercache.trigger_function(kind text, tbl_schema name, tbl name)
RETURNS name
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    readable text := kind || '_' || tbl_schema || '_' || tbl;
BEGIN
    WHILE octet_length(readable) > 54 LOOP
        readable := left(readable, -1);
    END LOOP;
    RETURN readable || '_' || left(md5(format('%I.%I', tbl_schema, tbl)), 8);
END
$fn$;

-- (Re)builds every trigger of the library on one table from the catalog, each kind the table has counters of, and
-- drops the kinds it no longer has. The triggers fire ALWAYS, so a session with session_replication_role = replica
-- (a superuser's bulk load, a logical replication apply worker) is counted too: see docs/security.md. Under a lock that keeps the table's writers out until commit (milliseconds), so
-- that each write is counted by either the old triggers or the new ones. Does nothing for a table that is missing.
CREATE OR REPLACE FUNCTION countercache.install_triggers(tbl_schema name, tbl name)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    qualified text := format('%I.%I', tbl_schema, tbl);
    each_kind text;
    cs countercache.counter[];
    fn name;
    columns text[];
    s record;
    guard text := coalesce(current_setting('countercache.ddl_guard', true), '');
BEGIN
    IF to_regclass(qualified) IS NULL THEN
        RETURN;
    END IF;
    EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', qualified);
    PERFORM set_config('countercache.ddl_guard', 'off', true);   -- the guards would see the triggers half built
    FOREACH each_kind IN ARRAY ARRAY['capture', 'target', 'via'] LOOP
        -- a counter fed by several tables is served here by its copy on this table (see tables_of)
        cs := ARRAY(SELECT CASE WHEN each_kind = 'capture' AND k.more_tables IS NOT NULL
                                THEN (SELECT x FROM unnest(countercache.tables_of(k)) x WHERE x.source_table = tbl)
                                ELSE k END
                      FROM countercache.counter k
                     WHERE EXISTS (SELECT FROM countercache.counter_tables(k) x
                                    WHERE x.kind = each_kind AND x.schema_name = tbl_schema AND x.table_name = tbl)
                     ORDER BY k.name);
        IF cardinality(cs) = 0 THEN
            PERFORM countercache.drop_triggers(each_kind, tbl_schema, tbl);
            CONTINUE;
        END IF;
        fn := countercache.trigger_function(each_kind, tbl_schema, tbl);
        -- row_security off: a table the trigger reads (a path's middle table, the source a TRUNCATE empties) whose
        -- policies applied to the owner would hide rows from the capture, or run their code with the owner's
        -- rights; such a statement fails instead, and counter_problems names the table before it can
        EXECUTE format(E'CREATE OR REPLACE FUNCTION countercache.%I()\nRETURNS trigger\nLANGUAGE plpgsql\n'
                       || E'SECURITY DEFINER\nSET search_path = pg_catalog, pg_temp\nSET row_security = off\nAS %L',
                       fn, countercache.trigger_body(each_kind, cs));
        EXECUTE format('REVOKE ALL ON FUNCTION countercache.%I() FROM PUBLIC', fn);
        columns := CASE each_kind WHEN 'target' THEN ARRAY[(cs[1]).target_key]
                             WHEN 'via' THEN ARRAY[(cs[1]).via_key]
                                             || ARRAY(SELECT DISTINCT k.via_fk FROM unnest(cs) k ORDER BY 1)
                             ELSE '{}' END;
        FOR s IN SELECT * FROM countercache.trigger_specs() t WHERE t.kind = each_kind LOOP
            EXECUTE format('CREATE OR REPLACE TRIGGER %I ', s.name)
                || replace(replace(format(s.fires, qualified),
                       '{columns}', coalesce((SELECT string_agg(quote_ident(x), ', ') FROM unnest(columns) x), '')),
                       '{changed}', coalesce((SELECT string_agg(format('OLD.%1$I IS DISTINCT FROM NEW.%1$I', x), ' OR ')
                                                FROM unnest(columns) x), ''))
                || format(' EXECUTE FUNCTION countercache.%I()', fn);
            -- ALWAYS: also under session_replication_role = replica, which would otherwise skip them unseen
            EXECUTE format('ALTER TABLE %s ENABLE ALWAYS TRIGGER %I', qualified, s.name);
        END LOOP;
    END LOOP;
    PERFORM set_config('countercache.ddl_guard', guard, true);
    PERFORM countercache.drop_unused_trigger_functions();
    PERFORM countercache.give_to_schema_owner();   -- a new trigger function runs with the owner's rights
END
$fn$;

-- The library that generated a changelog's unit of a table, by the digest of its SQL (schema_digest() is the
-- installed library's). Every such unit names it, so that its text, and so Liquibase's and Flyway's checksum of it,
-- changes with the library's SQL: an upgrade of the library reruns the unit of every table, which rebuilds the
-- table's triggers with the generator the schema's unit has just installed. The trigger bodies are generated in the
-- database, so a fix or a speed-up of the generator reaches the tables installed before, though no counter changed.
-- Another digest than the installed one's means a changelog of another release applied after this schema: the
-- triggers it rebuilds are those of the installed library, which it says.
CREATE OR REPLACE FUNCTION countercache.built_by(digest text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF digest IS DISTINCT FROM countercache.schema_digest() THEN
        RAISE WARNING 'countercache: this changelog comes from a library whose SQL has digest %, the countercache schema here from one with digest %: the triggers it rebuilds are the installed library''s',
            digest, countercache.schema_digest()
            USING HINT = 'give the applications that share this database one countercache release, or apply the newest one''s changelog last';
    END IF;
END
$fn$;

-- install_triggers for a changelog's unit of a table that holds counters, lies on their paths or feeds them besides
-- their first source, then a check that the rebuilt triggers serve each counter named in serving. The names are in
-- the unit's text, so that the text changes whenever the counters the table serves do: Liquibase runs a changeset
-- again only when its text changes (runOnChange), and a table's triggers must be rebuilt when a counter comes to it.
CREATE OR REPLACE FUNCTION countercache.install_triggers(tbl_schema name, tbl name, serving text[])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    missing text;
BEGIN
    PERFORM countercache.install_triggers(tbl_schema, tbl);
    SELECT string_agg(n, ', ') INTO missing FROM unnest(serving) n
     WHERE NOT EXISTS (SELECT FROM countercache.counter k, LATERAL countercache.counter_tables(k) x
                        WHERE k.name = n AND x.schema_name = tbl_schema AND x.table_name = tbl);
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'countercache: %.% serves no counter %', tbl_schema, tbl, missing
            USING HINT = 'apply the whole countercache changelog, whose source changesets define the counters first',
                  ERRCODE = 'invalid_parameter_value';
    END IF;
END
$fn$;

-- The same for a changelog that also names each serving counter's definition hash: the hashes are in the unit's text
-- too, so a counter whose key, scale or aggregate changed (which the target's, middle table's and further sources'
-- triggers read) reruns the unit, after the source units have defined every counter anew. It checks that the catalog
-- holds those definitions, which it does once the changelog's source units have run.
CREATE OR REPLACE FUNCTION countercache.install_triggers(tbl_schema name, tbl name, serving text[], definitions text[])
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    other text;
BEGIN
    SELECT string_agg(s.name, ', ') INTO other FROM unnest(serving, definitions) AS s(name, hash)
     WHERE NOT EXISTS (SELECT FROM countercache.counter k WHERE k.name = s.name AND k.definition_hash = s.hash);
    IF other IS NOT NULL THEN
        RAISE EXCEPTION 'countercache: the catalog holds other definitions of % than the changelog that rebuilds %.%',
            other, tbl_schema, tbl
            USING HINT = 'apply the whole countercache changelog, whose source changesets define the counters first',
                  ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM countercache.install_triggers(tbl_schema, tbl, serving);
END
$fn$;

-- Drops a table's library triggers of one kind (those whose function is countercache.<kind>_...).
CREATE OR REPLACE FUNCTION countercache.drop_triggers(kind text, tbl_schema name, tbl name)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    s record;
BEGIN
    FOR s IN
        SELECT tg.tgname FROM pg_trigger tg JOIN pg_proc p ON p.oid = tg.tgfoid
         WHERE tg.tgrelid = to_regclass(format('%I.%I', tbl_schema, tbl)) AND tg.tgparentid = 0
           AND p.pronamespace = 'countercache'::regnamespace AND p.proname LIKE kind || '\_%'
    LOOP
        EXECUTE format('DROP TRIGGER %I ON %I.%I', s.tgname, tbl_schema, tbl);
    END LOOP;
END
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
           AND p.prorettype = 'trigger'::regtype
           AND NOT EXISTS (SELECT 1 FROM pg_trigger tg WHERE tg.tgfoid = p.oid)
    LOOP
        EXECUTE format('DROP FUNCTION %s', s.fn);
    END LOOP;
END
$fn$;
