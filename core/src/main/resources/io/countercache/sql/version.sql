-- Schema versions. The tables change only through the numbered scripts of upgrade/, each run once, in order, and
-- recorded here; the functions (every other file) are replaced on every install. A database whose schema is newer
-- than the library that installs it is refused: its tables may hold what this library cannot keep exact.
-- Every function pins search_path and every identifier taken from the catalog is quoted with format('%I'); column
-- defaults and checks name pg_catalog's functions and operators, so a migrator whose search_path puts another
-- schema first cannot bind them to look-alikes.

CREATE SCHEMA IF NOT EXISTS countercache;

-- One row per upgrade script applied.
CREATE TABLE IF NOT EXISTS countercache.schema_version (
    version     integer     PRIMARY KEY,
    upgraded_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);

-- The installed schema's version: the last upgrade applied (0 on an empty database).
CREATE OR REPLACE FUNCTION countercache.installed_version()
RETURNS integer
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT coalesce(max(v.version), 0) FROM countercache.schema_version v
$fn$;

-- Applies upgrade script number version unless the schema has it already. The library's install passes every
-- script, in order, after begin_upgrades has refused a schema newer than the library (known: its newest version).
CREATE OR REPLACE FUNCTION countercache.upgrade(version integer, script text)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
SET client_min_messages = warning   -- a script's DROP ... IF EXISTS of what a fresh schema never had
AS $fn$
DECLARE
    guard text := current_setting('countercache.ddl_guard', true);
BEGIN
    IF countercache.installed_version() >= upgrade.version THEN
        RETURN;
    END IF;
    IF countercache.installed_version() <> upgrade.version - 1 THEN
        RAISE EXCEPTION 'countercache: upgrade % needs schema version %, the database has %', upgrade.version,
            upgrade.version - 1, countercache.installed_version() USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    -- the library's own tables count nothing, and an older guard may call what is gone. Not a SET clause, which only a
    -- superuser may give a setting of the library's own (PostgreSQL 15 and later)
    PERFORM set_config('countercache.ddl_guard', 'off', true);
    EXECUTE script;
    PERFORM set_config('countercache.ddl_guard', coalesce(guard, ''), true);
    INSERT INTO countercache.schema_version (version) VALUES (upgrade.version);
END
$fn$;

-- Refuses to install over a schema newer than known (a downgrade: an older library's changelog applied after a
-- newer one's), and takes an installation made before versions existed, whose tables are version 1's, as version 1.
-- Holds a lock that a second install waits for, so that two migrators never upgrade at once.
CREATE OR REPLACE FUNCTION countercache.begin_upgrades(known integer)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    LOCK TABLE countercache.schema_version IN EXCLUSIVE MODE;
    IF countercache.installed_version() > known THEN
        RAISE EXCEPTION 'countercache: the database''s countercache schema is version %, newer than this library''s %',
            countercache.installed_version(), known
            USING HINT = 'apply the changelog of the newest countercache library that uses this database; '
                         'a schema is never downgraded',
                  ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    IF countercache.installed_version() = 0 AND to_regclass('countercache.counter') IS NOT NULL THEN
        -- the last column 0.1 added to its catalog
        IF EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = 'countercache.counter'::regclass AND a.attname = 'scale') THEN
            INSERT INTO countercache.schema_version (version) VALUES (1);
        ELSE
            RAISE EXCEPTION 'countercache: the installed countercache schema predates version 1'
                USING HINT = 'apply the changelog of countercache 0.1 first, then this one',
                      ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
    END IF;
END
$fn$;
