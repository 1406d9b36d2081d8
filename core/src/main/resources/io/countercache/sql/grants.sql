-- Least privilege: nothing here is anyone's but the owner's until granted (docs/security.md has the grant scripts).
-- Writers need no right at all: the capture and target triggers run SECURITY DEFINER.
REVOKE ALL ON SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL TABLES IN SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA countercache FROM PUBLIC;
REVOKE ALL ON ALL PROCEDURES IN SCHEMA countercache FROM PUBLIC;
-- Except the packing of a key of two parts (keys.sql), which the generated countercache_key column of a target keyed
-- by two columns, or of a bucket table, computes as whoever writes the row: the application, or the worker creating a
-- bucket row. Neither reads nor writes anything.
GRANT EXECUTE ON FUNCTION countercache.pair_key(bigint, bigint), countercache.digest_key(text, text) TO PUBLIC;

-- What a later release adds to a round goes to whoever may already run one, so that an upgrade does not stop a
-- worker until its grant script (docs/security.md) is run again: the lanes of rollup_report (its three-argument
-- form, lane_of and in_lane, which its claim calls even for one lane, and unwritten, which its applying statements
-- call); the queue's generations, which a round claims from and take_generation locks, reads and truncates, the
-- clock that names them, and the fold both run (queue_sums_sql); the rows a round locks (queue_claim's, which orders
-- the claims, a lane's, and distinct_claim's); the check of row-level security a worker runs when it starts, and
-- that of the DDL guard's event triggers, which it and the CLI's status run (to whoever may list problems); the
-- formulas of packed keys, which key_sql and batch_source_sql call for every counter; the copies of a counter per
-- source table, which drift_sql asks for every counter; the check that drift's snapshot saw every truncated
-- generation; and the batch of a recount that is still requested (continue_recount), which the CLI's repair runs.
DO $grants$
DECLARE
    rule record;
    grantee name;
BEGIN
    FOR rule IN
        SELECT * FROM (VALUES
            ('countercache.rollup_report(integer, boolean)',
             'EXECUTE ON FUNCTION countercache.rollup_report(integer, boolean, integer),'
             ' countercache.lane_of(bigint, uuid, integer), countercache.in_lane(bigint, uuid, integer, integer),'
             ' countercache.unwritten(name, name)'),
            ('countercache.rollup_report(integer, boolean)',
             'SELECT, UPDATE ON countercache.queue_claim, countercache.lane_claim, countercache.distinct_claim'),
            ('countercache.rollup_report(integer, boolean)',
             'EXECUTE ON FUNCTION countercache.row_security_problems(name), countercache.trigger_rights_problems(oid[])'),
            ('countercache.installed_problems(text[])', 'EXECUTE ON FUNCTION countercache.guard_problems()'),
            ('countercache.key_sql(countercache.counter)',
             'EXECUTE ON FUNCTION countercache.packed_key_sql(countercache.counter),'
             ' countercache.pair_key_sql(countercache.counter), countercache.digested(countercache.counter),'
             ' countercache.two_part_key_sql(countercache.counter, text, name, name)'),
            ('countercache.drift_sql(countercache.counter)',
             'EXECUTE ON FUNCTION countercache.tables_of(countercache.counter)'),
            ('countercache.rollup_report(integer, boolean)',
             'SELECT, UPDATE, DELETE, TRUNCATE ON countercache.delta_0, countercache.delta_1'),
            ('countercache.rollup_report(integer, boolean)',
             'EXECUTE ON FUNCTION countercache.generation(timestamptz), countercache.take_generation(integer),'
             ' countercache.queue_sums_sql()'),
            ('countercache.drift(integer, integer)',
             'EXECUTE ON FUNCTION countercache.require_generations_seen(text)'),
            ('countercache.recount_step(integer, integer)',
             'EXECUTE ON FUNCTION countercache.continue_recount(integer, integer)'))
            AS r(held, added)
    LOOP
        FOR grantee IN
            SELECT DISTINCT pg_catalog.pg_get_userbyid(a.grantee)
              FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) a
             WHERE p.oid OPERATOR(pg_catalog.=) rule.held::pg_catalog.regprocedure::pg_catalog.oid
               AND a.privilege_type OPERATOR(pg_catalog.=) 'EXECUTE'
               AND a.grantee OPERATOR(pg_catalog.<>) 0::pg_catalog.oid AND a.grantee OPERATOR(pg_catalog.<>) p.proowner
        LOOP
            EXECUTE pg_catalog.format('GRANT %s TO %I', rule.added, grantee);
        END LOOP;
    END LOOP;
END
$grants$;

-- What this install created goes to the schema's owner, when a member of it (or a superuser) ran it.
SELECT countercache.give_to_schema_owner();
