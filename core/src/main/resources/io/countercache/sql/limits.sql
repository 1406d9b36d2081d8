-- Limit counters (Cybertec's "concurrent counting"): at most N admissions per key per period, exactly, under any
-- concurrency; the tables and the argument are in upgrade/001-tables.sql.

-- The start of the period that contains a time, aligned in the limit's time zone: whole months from 2000-01-01 for
-- periods made of months, otherwise date_bin from 2000-01-01 (midnight, in that zone). The capture of a counter per
-- bucket runs it for every row, so it is inlined as bucket_key is (see buckets.sql): one expression, no SET clause,
-- every function and operator qualified with pg_catalog.
CREATE OR REPLACE FUNCTION countercache.period_start(period interval, time_zone text, at timestamptz)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN EXTRACT(month FROM period) OPERATOR(pg_catalog.>) 0 OR EXTRACT(year FROM period) OPERATOR(pg_catalog.>) 0
            THEN (TIMESTAMP '2000-01-01' OPERATOR(pg_catalog.+) pg_catalog.make_interval(months =>
                      CAST(pg_catalog.floor(((EXTRACT(year FROM at AT TIME ZONE time_zone) OPERATOR(pg_catalog.-) 2000)
                                             OPERATOR(pg_catalog.*) 12
                                             OPERATOR(pg_catalog.+) EXTRACT(month FROM at AT TIME ZONE time_zone)
                                             OPERATOR(pg_catalog.-) 1)
                                            OPERATOR(pg_catalog./) (EXTRACT(year FROM period) OPERATOR(pg_catalog.*) 12
                                                                    OPERATOR(pg_catalog.+) EXTRACT(month FROM period)))
                           OPERATOR(pg_catalog.*) (EXTRACT(year FROM period) OPERATOR(pg_catalog.*) 12
                                                   OPERATOR(pg_catalog.+) EXTRACT(month FROM period)) AS integer)))
                 AT TIME ZONE time_zone
            ELSE pg_catalog.date_bin(period, at AT TIME ZONE time_zone, TIMESTAMP '2000-01-01') AT TIME ZONE time_zone
       END;

-- What is wrong with a period to align by (NULL: nothing): it must be positive, and whole months or no months at all.
CREATE OR REPLACE FUNCTION countercache.period_problem(period interval)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN period IS NULL OR period <= interval '0'
                THEN format('must be a positive interval, got %s', coalesce(period::text, 'NULL'))
                WHEN extract(month FROM period) + extract(year FROM period) * 12 > 0
                     AND period <> (extract(year FROM period) * 12 + extract(month FROM period)) * interval '1 month'
                THEN format('%s mixes months with smaller units', period)
                -- a bucket's key holds its start in whole seconds: two periods within one second would share it
                WHEN extract(microseconds FROM period) % 1000000 <> 0
                THEN format('%s is not a whole number of seconds', period) END
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
    IF countercache.period_problem(period) IS NOT NULL THEN
        RAISE EXCEPTION '%: period %', who, countercache.period_problem(period)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = CASE WHEN period > interval '0' THEN 'use whole months, or days and smaller units'
                              ELSE 'for example interval ''1 day''' END;
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
    -- a change of a limit waits for the admissions in flight and makes later ones wait (they lock its row FOR KEY
    -- SHARE); a new limit has no row yet and no admission to wait for
    PERFORM FROM countercache.limit_def l WHERE l.name = define_limit.name FOR UPDATE;
    INSERT INTO countercache.limit_def AS l (name, period, time_zone, default_limit, retention, declared_by)
    VALUES (name, period, time_zone, default_limit, retention, define_limit.declared_by)
    ON CONFLICT ON CONSTRAINT limit_def_pkey DO UPDATE
       SET period = excluded.period, time_zone = excluded.time_zone, default_limit = excluded.default_limit,
           retention = excluded.retention, declared_by = excluded.declared_by, defined_at = now()
     -- the period as written: interval's = takes '1 month' for '30 days', and would keep the old one
     WHERE (l.period::text, l.time_zone, l.default_limit, l.retention, l.declared_by)
           IS DISTINCT FROM (excluded.period::text, excluded.time_zone, excluded.default_limit, excluded.retention,
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
    -- exclusive against the admissions of the limit, and against another change of it: no overlap can slip in
    PERFORM FROM countercache.limit_def l WHERE l.name = set_key_limit.limit_name FOR UPDATE;
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
DECLARE
    -- the time the admission is made: not the transaction's start (now()), which a transaction open across the turn
    -- of a period would spend the old period's room by, nor the statement's, which a procedure that commits as it
    -- goes keeps for hours
    made_at constant timestamptz := clock_timestamp();
BEGIN
    IF key IS NULL THEN
        RAISE EXCEPTION 'countercache.admit(%, NULL): the key must not be NULL', quote_literal(limit_name)
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    -- Judged against the limit committed before its lock was granted, which only READ COMMITTED's new snapshot per
    -- statement sees: a transaction's older snapshot would admit by a limit a committed change replaced
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        PERFORM countercache.require_read_committed('an admission',
            'admit in a READ COMMITTED transaction (the default), or in one of its own: Limits.admit(DataSource, ...)');
    END IF;
    -- The limit's row FOR KEY SHARE, which admissions share and a change of the limit (FOR UPDATE) excludes, as a
    -- foreign key check shares its parent row. A row lock, not an advisory lock: only the library's roles have the
    -- right on limit_def that locking its rows needs, where any role could take an advisory lock and stall a limit.
    PERFORM FROM countercache.limit_def l WHERE l.name = admit_report.limit_name FOR KEY SHARE;
    -- a new statement, so a new snapshot: it sees any change of the limit committed before the lock was granted
    INSERT INTO countercache.limit_usage AS u (limit_name, key, period_start, admitted, attempted, last_admitted,
                                              max_admits)
    SELECT l.name, admit_report.key, countercache.period_start(l.period, l.time_zone, made_at),
           least(1, x.cap), 1, x.cap > 0, x.cap
      FROM countercache.limit_def l,
           LATERAL (SELECT coalesce((SELECT k.max_admits FROM countercache.limit_key k
                                      WHERE k.limit_name = l.name AND k.key = admit_report.key
                                        AND k.valid @> made_at),
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

-- Usage per limit, key and period, with the limit in force now. A period ends on the limit's clock, as it starts
-- (period_start): the session's time zone would move the end of a day or a month by an hour across a DST change.
CREATE OR REPLACE VIEW countercache.limit_usage_report AS
    SELECT u.limit_name, u.key, u.period_start,
           ((u.period_start AT TIME ZONE l.time_zone) + l.period) AT TIME ZONE l.time_zone AS period_end,
           u.admitted, u.attempted,
           u.attempted - u.admitted AS rejected,
           coalesce((SELECT k.max_admits FROM countercache.limit_key k
                      WHERE k.limit_name = u.limit_name AND k.key = u.key AND k.valid OPERATOR(pg_catalog.@>) now()),
                    l.default_limit)
               AS max_admits_now
      FROM countercache.limit_usage u
      JOIN countercache.limit_def l ON l.name = u.limit_name;

-- Deletes the counts of periods older than each limit's retention, in batches of max_rows; returns how many went.
CREATE OR REPLACE FUNCTION countercache.prune_limit_usage(max_rows integer DEFAULT countercache.default_batch_size())
RETURNS bigint
LANGUAGE sql
SET search_path = pg_catalog, pg_temp
AS $fn$
    WITH old AS (
        SELECT u.ctid FROM countercache.limit_usage u JOIN countercache.limit_def l ON l.name = u.limit_name
         -- counted back on the limit's clock, as bucket_cutoff counts: in the session's time zone a month's cutoff
         -- would fall an hour after the start of a period it keeps, across a DST change
         WHERE u.period_start < (countercache.period_start(l.period, l.time_zone, now()) AT TIME ZONE l.time_zone
                                 - l.period * l.retention) AT TIME ZONE l.time_zone
         LIMIT max_rows FOR UPDATE OF u SKIP LOCKED
    ), gone AS (
        DELETE FROM countercache.limit_usage u USING old WHERE u.ctid = old.ctid RETURNING 1
    )
    SELECT count(*) FROM gone
$fn$;

-- Records that the changelog named changelog declares exactly the limits in keep, and forgets every other limit of
-- that changelog (or of none), with its key limits and counts; other changelogs' limits stay. Returns how many went.
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
