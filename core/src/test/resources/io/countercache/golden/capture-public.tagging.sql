CREATE OR REPLACE FUNCTION countercache.capture_public_tagging_<digest>()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
 SET row_security TO 'off'
AS $function$#variable_conflict use_column
DECLARE
    changed boolean;
    r record;
    held tid;
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'tagging' THEN
        RAISE EXCEPTION 'countercache: % serves % only, not %.%', TG_NAME, 'public.tagging', TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NOT EXISTS (SELECT FROM countercache_new OFFSET 1) THEN
        FOR r IN SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Tag.uses */ tagging.tag_id IS NOT NULL THEN tagging.tag_id END AS k1, 1 AS d1, NULL::text AS v1 FROM countercache_new AS tagging) r,
            LATERAL (VALUES (314919807, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0 ORDER BY k LOOP
            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = 314919807 AND x.target_id = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;
            ELSE
                INSERT INTO countercache.slot (counter_id, target_id, slot, n)
                SELECT 314919807, r.k, f.s, r.d FROM (
                    SELECT g.s FROM generate_series(0, 3) AS g(s)
                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = 314919807 AND y.target_id = r.k AND y.slot = g.s)
                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one
                 WHERE pg_try_advisory_xact_lock(hashtextextended('314919807:' || r.k || ':' || f.s, 0))
                 LIMIT 1
                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;
                IF NOT FOUND THEN
                    INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (314919807, r.k, r.d);
                END IF;
            END IF;
        END LOOP;
        ELSIF NOT EXISTS (SELECT FROM countercache_new OFFSET 1000) THEN
        FOR r IN SELECT 314919807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ s.f AS k, s.v, s.d FROM (SELECT tagging.tag_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS tagging WHERE tagging.tag_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0 ORDER BY k LOOP
            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = 314919807 AND x.target_id = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;
            ELSE
                INSERT INTO countercache.slot (counter_id, target_id, slot, n)
                SELECT 314919807, r.k, f.s, r.d FROM (
                    SELECT g.s FROM generate_series(0, 3) AS g(s)
                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = 314919807 AND y.target_id = r.k AND y.slot = g.s)
                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one
                 WHERE pg_try_advisory_xact_lock(hashtextextended('314919807:' || r.k || ':' || f.s, 0))
                 LIMIT 1
                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;
                IF NOT FOUND THEN
                    INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (314919807, r.k, r.d);
                END IF;
            END IF;
        END LOOP;
        ELSE
        FOR r IN EXECUTE 'SELECT 314919807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ s.f AS k, s.v, s.d FROM (SELECT tagging.tag_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS tagging WHERE tagging.tag_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0 ORDER BY k' LOOP
            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = 314919807 AND x.target_id = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;
            ELSE
                INSERT INTO countercache.slot (counter_id, target_id, slot, n)
                SELECT 314919807, r.k, f.s, r.d FROM (
                    SELECT g.s FROM generate_series(0, 3) AS g(s)
                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = 314919807 AND y.target_id = r.k AND y.slot = g.s)
                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one
                 WHERE pg_try_advisory_xact_lock(hashtextextended('314919807:' || r.k || ':' || f.s, 0))
                 LIMIT 1
                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;
                IF NOT FOUND THEN
                    INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (314919807, r.k, r.d);
                END IF;
            END IF;
        END LOOP;
        END IF;
    ELSIF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT FROM countercache_old OFFSET 1) THEN
        FOR r IN SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Tag.uses */ tagging.tag_id IS NOT NULL THEN tagging.tag_id END AS k1, -1 AS d1, NULL::text AS v1 FROM countercache_old AS tagging) r,
            LATERAL (VALUES (314919807, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0 ORDER BY k LOOP
            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = 314919807 AND x.target_id = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;
            ELSE
                INSERT INTO countercache.slot (counter_id, target_id, slot, n)
                SELECT 314919807, r.k, f.s, r.d FROM (
                    SELECT g.s FROM generate_series(0, 3) AS g(s)
                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = 314919807 AND y.target_id = r.k AND y.slot = g.s)
                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one
                 WHERE pg_try_advisory_xact_lock(hashtextextended('314919807:' || r.k || ':' || f.s, 0))
                 LIMIT 1
                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;
                IF NOT FOUND THEN
                    INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (314919807, r.k, r.d);
                END IF;
            END IF;
        END LOOP;
        ELSIF NOT EXISTS (SELECT FROM countercache_old OFFSET 1000) THEN
        FOR r IN SELECT 314919807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ s.f AS k, s.v, s.d FROM (SELECT tagging.tag_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS tagging WHERE tagging.tag_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0 ORDER BY k LOOP
            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = 314919807 AND x.target_id = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;
            ELSE
                INSERT INTO countercache.slot (counter_id, target_id, slot, n)
                SELECT 314919807, r.k, f.s, r.d FROM (
                    SELECT g.s FROM generate_series(0, 3) AS g(s)
                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = 314919807 AND y.target_id = r.k AND y.slot = g.s)
                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one
                 WHERE pg_try_advisory_xact_lock(hashtextextended('314919807:' || r.k || ':' || f.s, 0))
                 LIMIT 1
                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;
                IF NOT FOUND THEN
                    INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (314919807, r.k, r.d);
                END IF;
            END IF;
        END LOOP;
        ELSE
        FOR r IN EXECUTE 'SELECT 314919807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ s.f AS k, s.v, s.d FROM (SELECT tagging.tag_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS tagging WHERE tagging.tag_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0 ORDER BY k' LOOP
            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = 314919807 AND x.target_id = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;
            ELSE
                INSERT INTO countercache.slot (counter_id, target_id, slot, n)
                SELECT 314919807, r.k, f.s, r.d FROM (
                    SELECT g.s FROM generate_series(0, 3) AS g(s)
                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = 314919807 AND y.target_id = r.k AND y.slot = g.s)
                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one
                 WHERE pg_try_advisory_xact_lock(hashtextextended('314919807:' || r.k || ':' || f.s, 0))
                 LIMIT 1
                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;
                IF NOT FOUND THEN
                    INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (314919807, r.k, r.d);
                END IF;
            END IF;
        END LOOP;
        END IF;
    ELSIF TG_OP = 'UPDATE' THEN
        SELECT CASE WHEN NOT EXISTS (SELECT FROM countercache_new OFFSET 1) THEN EXISTS (SELECT FROM (SELECT tagging.tag_id AS s1, (true) AS s2 FROM countercache_old AS tagging) o, (SELECT tagging.tag_id AS s1, (true) AS s2 FROM countercache_new AS tagging) n WHERE ROW(o.s1, o.s2) IS DISTINCT FROM ROW(n.s1, n.s2)) END INTO changed;
        IF changed THEN
        FOR r IN SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Tag.uses */ tagging.tag_id IS NOT NULL THEN tagging.tag_id END AS k1, -1 AS d1, NULL::text AS v1, tagging.tag_id AS s1_1, (true) AS s1_2 FROM countercache_old AS tagging) o, (SELECT CASE WHEN /* @CounterCache on Tag.uses */ tagging.tag_id IS NOT NULL THEN tagging.tag_id END AS k1, 1 AS d1, NULL::text AS v1, tagging.tag_id AS s1_1, (true) AS s1_2 FROM countercache_new AS tagging) n,
            LATERAL (VALUES (314919807, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2) IS DISTINCT FROM ROW(n.s1_1, n.s1_2)), (314919807, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2) IS DISTINCT FROM ROW(n.s1_1, n.s1_2))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0 ORDER BY k LOOP
            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = 314919807 AND x.target_id = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;
            ELSE
                INSERT INTO countercache.slot (counter_id, target_id, slot, n)
                SELECT 314919807, r.k, f.s, r.d FROM (
                    SELECT g.s FROM generate_series(0, 3) AS g(s)
                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = 314919807 AND y.target_id = r.k AND y.slot = g.s)
                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one
                 WHERE pg_try_advisory_xact_lock(hashtextextended('314919807:' || r.k || ':' || f.s, 0))
                 LIMIT 1
                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;
                IF NOT FOUND THEN
                    INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (314919807, r.k, r.d);
                END IF;
            END IF;
        END LOOP;
        ELSIF changed IS NOT NULL THEN
            RETURN NULL;   -- nothing counted changed
        ELSIF NOT EXISTS (SELECT FROM countercache_new OFFSET 1000) THEN
        IF NOT EXISTS (SELECT FROM (SELECT tagging.id AS k1, tagging.tag_id AS s1, (true) AS s2 FROM countercache_new AS tagging) n LEFT JOIN (SELECT tagging.id AS k1, tagging.tag_id AS s1, (true) AS s2 FROM countercache_old AS tagging) o ON o.k1 = n.k1 AND NOT (ROW(o.s1, o.s2) IS DISTINCT FROM ROW(n.s1, n.s2)) WHERE o.k1 IS NULL) THEN
            RETURN NULL;   -- nothing counted changed
        END IF;
        FOR r IN SELECT 314919807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ s.f AS k, s.v, s.d FROM (SELECT tagging.tag_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS tagging WHERE tagging.tag_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Tag.uses */ s.f AS k, s.v, s.d FROM (SELECT tagging.tag_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS tagging WHERE tagging.tag_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0 ORDER BY k LOOP
            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = 314919807 AND x.target_id = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;
            ELSE
                INSERT INTO countercache.slot (counter_id, target_id, slot, n)
                SELECT 314919807, r.k, f.s, r.d FROM (
                    SELECT g.s FROM generate_series(0, 3) AS g(s)
                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = 314919807 AND y.target_id = r.k AND y.slot = g.s)
                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one
                 WHERE pg_try_advisory_xact_lock(hashtextextended('314919807:' || r.k || ':' || f.s, 0))
                 LIMIT 1
                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;
                IF NOT FOUND THEN
                    INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (314919807, r.k, r.d);
                END IF;
            END IF;
        END LOOP;
        ELSE
        EXECUTE 'SELECT EXISTS (SELECT FROM (SELECT tagging.id AS k1, tagging.tag_id AS s1, (true) AS s2 FROM countercache_new AS tagging) n LEFT JOIN (SELECT tagging.id AS k1, tagging.tag_id AS s1, (true) AS s2 FROM countercache_old AS tagging) o ON o.k1 = n.k1 AND NOT (ROW(o.s1, o.s2) IS DISTINCT FROM ROW(n.s1, n.s2)) WHERE o.k1 IS NULL)' INTO changed;
        IF NOT changed THEN
            RETURN NULL;   -- nothing counted changed
        END IF;
        FOR r IN EXECUTE 'SELECT 314919807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ s.f AS k, s.v, s.d FROM (SELECT tagging.tag_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS tagging WHERE tagging.tag_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Tag.uses */ s.f AS k, s.v, s.d FROM (SELECT tagging.tag_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS tagging WHERE tagging.tag_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0 ORDER BY k' LOOP
            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = 314919807 AND x.target_id = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;
            ELSE
                INSERT INTO countercache.slot (counter_id, target_id, slot, n)
                SELECT 314919807, r.k, f.s, r.d FROM (
                    SELECT g.s FROM generate_series(0, 3) AS g(s)
                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = 314919807 AND y.target_id = r.k AND y.slot = g.s)
                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one
                 WHERE pg_try_advisory_xact_lock(hashtextextended('314919807:' || r.k || ':' || f.s, 0))
                 LIMIT 1
                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;
                IF NOT FOUND THEN
                    INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (314919807, r.k, r.d);
                END IF;
            END IF;
        END LOOP;
        END IF;
    ELSIF TG_OP = 'TRUNCATE' THEN
        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted
        PERFORM countercache.require_read_committed('TRUNCATE of public.tagging',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        FOR r IN EXECUTE 'SELECT 314919807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Tag.uses */ s.f AS k, s.v, s.d FROM (SELECT tagging.tag_id AS f, NULL::text AS v, -1 AS d FROM public.tagging AS tagging WHERE tagging.tag_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0 ORDER BY k' LOOP
            SELECT x.ctid INTO held FROM countercache.slot x WHERE x.counter_id = 314919807 AND x.target_id = r.k LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF FOUND THEN
                UPDATE countercache.slot s SET n = s.n + r.d WHERE s.ctid = held;
            ELSE
                INSERT INTO countercache.slot (counter_id, target_id, slot, n)
                SELECT 314919807, r.k, f.s, r.d FROM (
                    SELECT g.s FROM generate_series(0, 3) AS g(s)
                     WHERE NOT EXISTS (SELECT FROM countercache.slot y WHERE y.counter_id = 314919807 AND y.target_id = r.k AND y.slot = g.s)
                     ORDER BY random() OFFSET 0) AS f   -- OFFSET 0: try the locks one by one
                 WHERE pg_try_advisory_xact_lock(hashtextextended('314919807:' || r.k || ':' || f.s, 0))
                 LIMIT 1
                ON CONFLICT ON CONSTRAINT slot_key DO NOTHING;
                IF NOT FOUND THEN
                    INSERT INTO countercache.delta (counter_id, target_id, delta) VALUES (314919807, r.k, r.d);
                END IF;
            END IF;
        END LOOP;
    END IF;
    RETURN NULL;
END
$function$
