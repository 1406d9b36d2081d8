-- Schema versions. The tables change only through the numbered scripts of upgrade/, each run once, in order, and
-- recorded here; the functions (every other file) are replaced on every install. A database whose schema is newer
-- than the library that installs it is refused: its tables may hold what this library cannot keep exact.
-- Every function pins search_path and every identifier taken from the catalog is quoted with format('%I'); column
-- defaults and checks name pg_catalog's functions and operators, so a migrator whose search_path puts another
-- schema first cannot bind them to look-alikes.

-- Only the schema's owner (or a role that has its rights, or a superuser) may install over it: another role's install
-- would stop at its first CREATE OR REPLACE with "must be owner of function". Say who owns it, and how to hand it
-- over (transfer_ownership, below: an install made by a superuser, then upgraded by a migrator that is not one).
DO $owner$
DECLARE
    owners text;
BEGIN
    SELECT pg_catalog.string_agg(DISTINCT pg_catalog.pg_get_userbyid(o.owner), ', ') INTO owners
      FROM pg_catalog.pg_namespace n,
           LATERAL (SELECT n.nspowner
                    UNION SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.relnamespace = n.oid
                    UNION SELECT p.proowner FROM pg_catalog.pg_proc p WHERE p.pronamespace = n.oid) o(owner)
     WHERE n.nspname = 'countercache' AND NOT pg_catalog.pg_has_role(current_user, o.owner, 'USAGE');
    IF owners IS NOT NULL THEN
        RAISE EXCEPTION
            'countercache: role % cannot install over the countercache schema, which % owns (or some of it)',
            current_user, owners
            USING ERRCODE = 'insufficient_privilege',
                  HINT = CASE WHEN NOT EXISTS (SELECT FROM pg_catalog.pg_proc p, pg_catalog.pg_namespace n
                                                WHERE p.pronamespace = n.oid AND n.nspname = 'countercache'
                                                  AND p.proname = 'transfer_ownership')
                      THEN pg_catalog.format('apply this changelog as %s or a superuser, who can then hand the'
                           ' schema to %s: SELECT countercache.transfer_ownership(%L)', owners, current_user,
                           current_user)
                      ELSE pg_catalog.format('have %s or a superuser hand the schema to %s first: '
                           'SELECT countercache.transfer_ownership(%L); or apply this changelog as %s',
                           owners, current_user, current_user, owners) END;
    END IF;
END
$owner$;

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

-- Hands the countercache schema and everything in it to another role, which can then apply later changelogs (and
-- becomes the migrator that docs/security.md trusts). It runs as its caller, the schema's owner or a superuser, so
-- PostgreSQL's rules for ALTER ... OWNER TO apply: the caller must be able to SET ROLE to the new owner. Sequences
-- and indexes follow their tables; the DDL guard's event triggers stay a superuser's, as PostgreSQL requires.
-- Returns how many objects changed hands.
CREATE OR REPLACE FUNCTION countercache.transfer_ownership(new_owner regrole)
RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    object record;
    moved integer := 0;
BEGIN
    FOR object IN
        -- the schema first: a new owner that is not a superuser needs its CREATE right to own what is in it
        SELECT 0 AS rank, 'SCHEMA' AS kind, quote_ident(n.nspname) AS name FROM pg_namespace n
         WHERE n.nspname = 'countercache' AND n.nspowner <> new_owner
        UNION ALL
        SELECT 1, CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' ELSE 'TABLE' END, c.oid::regclass::text
          FROM pg_class c
         WHERE c.relnamespace = 'countercache'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'S')
           AND c.relowner <> new_owner
           AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                            AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i'))
        UNION ALL
        SELECT 1, 'ROUTINE', p.oid::regprocedure::text FROM pg_proc p
         WHERE p.pronamespace = 'countercache'::regnamespace AND p.proowner <> new_owner
        ORDER BY 1
    LOOP
        EXECUTE format('ALTER %s %s OWNER TO %I', object.kind, object.name, pg_get_userbyid(new_owner));
        moved := moved + 1;
    END LOOP;
    RETURN moved;
END
$fn$;

-- Hands what the caller created in the schema to the schema's owner, when the caller is not that owner but installs
-- with its rights (a member of it, after transfer_ownership; or a superuser): a later release's new objects, and the
-- trigger functions of a table counted for the first time. Else they would be the caller's: a trigger function runs
-- with its owner's rights, and the next install would refuse a migrator that is not the caller's member. Called at
-- the end of the install and by install_triggers; nothing to do when the caller owns the schema.
CREATE OR REPLACE FUNCTION countercache.give_to_schema_owner()
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    owner oid := (SELECT n.nspowner FROM pg_namespace n WHERE n.nspname = 'countercache');
BEGIN
    IF owner <> (SELECT r.oid FROM pg_roles r WHERE r.rolname = current_user) THEN
        PERFORM countercache.transfer_ownership(owner::regrole);
    END IF;
END
$fn$;

