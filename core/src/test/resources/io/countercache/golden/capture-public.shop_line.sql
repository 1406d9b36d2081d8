CREATE OR REPLACE FUNCTION countercache.capture_public_shop_line_<digest>()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
 SET row_security TO 'off'
AS $function$#variable_conflict use_column
DECLARE
    changed boolean;
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'shop_line' THEN
        RAISE EXCEPTION 'countercache: % serves % only, not %.%', TG_NAME, 'public.shop_line', TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NOT EXISTS (SELECT FROM countercache_new OFFSET 1) THEN
        INSERT INTO countercache.distinct_delta (counter_id, target_uuid, value, delta)
        SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.amounts */ shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL THEN shop_line.order_id END AS k1, 1 AS d1, shop_line.amount::text AS v1 FROM countercache_new AS shop_line) r,
            LATERAL (VALUES (1066643295, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.cheapestLine */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, 1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Order.value */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k2, (coalesce(shop_line.price, 0) * 100)::bigint AS d2, NULL::text AS v2 FROM countercache_new AS shop_line) r,
            LATERAL (VALUES (67735581, r.k1, r.v1, r.d1), (416516304, r.k2, r.v2, r.d2)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.cheapestLine */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, 1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Order.value */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k2, (coalesce(shop_line.price, 0) * 100)::bigint AS d2, NULL::text AS v2 FROM countercache_new AS shop_line) r,
            LATERAL (VALUES (67735581, r.k1, r.v1, r.d1), (416516304, r.k2, r.v2, r.d2)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        END IF;
        INSERT INTO countercache.delta_unlogged (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT p.c, p.k, p.v, q.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.total */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, coalesce(shop_line.amount, 0)::numeric AS d1, NULL::text AS v1 FROM countercache_new AS shop_line) r,
            LATERAL (VALUES (1200304570, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) p,
            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d
                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n), generate_series(1, m.n) i) q) s;
        ELSIF NOT EXISTS (SELECT FROM countercache_new OFFSET 1000) THEN
        INSERT INTO countercache.distinct_delta (counter_id, target_uuid, value, delta)
        SELECT 1066643295 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.amounts */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, shop_line.amount::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, (coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, (coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
        INSERT INTO countercache.delta_unlogged (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT p.c, p.k, p.v, q.d FROM (SELECT 1200304570 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, coalesce(shop_line.amount, 0)::numeric AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) p,
            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d
                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n), generate_series(1, m.n) i) q) s;
        ELSE
        EXECUTE 'INSERT INTO countercache.distinct_delta (counter_id, target_uuid, value, delta)
        SELECT 1066643295 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.amounts */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, shop_line.amount::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, (coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, (coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
        EXECUTE 'INSERT INTO countercache.delta_unlogged (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT p.c, p.k, p.v, q.d FROM (SELECT 1200304570 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, coalesce(shop_line.amount, 0)::numeric AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) p,
            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d
                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n), generate_series(1, m.n) i) q) s';
        END IF;
    ELSIF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT FROM countercache_old OFFSET 1) THEN
        INSERT INTO countercache.distinct_delta (counter_id, target_uuid, value, delta)
        SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.amounts */ shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL THEN shop_line.order_id END AS k1, -1 AS d1, shop_line.amount::text AS v1 FROM countercache_old AS shop_line) r,
            LATERAL (VALUES (1066643295, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.cheapestLine */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, 1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Order.value */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k2, -(coalesce(shop_line.price, 0) * 100)::bigint AS d2, NULL::text AS v2 FROM countercache_old AS shop_line) r,
            LATERAL (VALUES (67735581, r.k1, r.v1, r.d1), (416516304, r.k2, r.v2, r.d2)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.cheapestLine */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, 1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Order.value */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k2, -(coalesce(shop_line.price, 0) * 100)::bigint AS d2, NULL::text AS v2 FROM countercache_old AS shop_line) r,
            LATERAL (VALUES (67735581, r.k1, r.v1, r.d1), (416516304, r.k2, r.v2, r.d2)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        END IF;
        INSERT INTO countercache.delta_unlogged (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT p.c, p.k, p.v, q.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.total */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, -coalesce(shop_line.amount, 0)::numeric AS d1, NULL::text AS v1 FROM countercache_old AS shop_line) r,
            LATERAL (VALUES (1200304570, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) p,
            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d
                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n), generate_series(1, m.n) i) q) s;
        ELSIF NOT EXISTS (SELECT FROM countercache_old OFFSET 1000) THEN
        INSERT INTO countercache.distinct_delta (counter_id, target_uuid, value, delta)
        SELECT 1066643295 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.amounts */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, shop_line.amount::text AS v, -1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -(coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -(coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
        INSERT INTO countercache.delta_unlogged (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT p.c, p.k, p.v, q.d FROM (SELECT 1200304570 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -coalesce(shop_line.amount, 0)::numeric AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) p,
            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d
                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n), generate_series(1, m.n) i) q) s;
        ELSE
        EXECUTE 'INSERT INTO countercache.distinct_delta (counter_id, target_uuid, value, delta)
        SELECT 1066643295 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.amounts */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, shop_line.amount::text AS v, -1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -(coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -(coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
        EXECUTE 'INSERT INTO countercache.delta_unlogged (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT p.c, p.k, p.v, q.d FROM (SELECT 1200304570 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -coalesce(shop_line.amount, 0)::numeric AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) p,
            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d
                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n), generate_series(1, m.n) i) q) s';
        END IF;
    ELSIF TG_OP = 'UPDATE' THEN
        SELECT CASE WHEN NOT EXISTS (SELECT FROM countercache_new OFFSET 1) THEN EXISTS (SELECT FROM (SELECT shop_line.order_id AS s1, (true) AS s2, shop_line.amount AS s3, shop_line.price AS s4 FROM countercache_old AS shop_line) o, (SELECT shop_line.order_id AS s1, (true) AS s2, shop_line.amount AS s3, shop_line.price AS s4 FROM countercache_new AS shop_line) n WHERE ROW(o.s1, o.s2, o.s3, o.s4) IS DISTINCT FROM ROW(n.s1, n.s2, n.s3, n.s4)) END INTO changed;
        IF changed THEN
        INSERT INTO countercache.distinct_delta (counter_id, target_uuid, value, delta)
        SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.amounts */ shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL THEN shop_line.order_id END AS k1, -1 AS d1, shop_line.amount::text AS v1, shop_line.order_id AS s1_1, (true) AS s1_2, shop_line.amount AS s1_3 FROM countercache_old AS shop_line) o, (SELECT CASE WHEN /* @CounterCache on Order.amounts */ shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL THEN shop_line.order_id END AS k1, 1 AS d1, shop_line.amount::text AS v1, shop_line.order_id AS s1_1, (true) AS s1_2, shop_line.amount AS s1_3 FROM countercache_new AS shop_line) n,
            LATERAL (VALUES (1066643295, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (1066643295, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.cheapestLine */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, 1 AS d1, NULL::text AS v1, shop_line.order_id AS s1_1, (true) AS s1_2, shop_line.price AS s1_3, CASE WHEN /* @CounterCache on Order.value */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k2, -(coalesce(shop_line.price, 0) * 100)::bigint AS d2, NULL::text AS v2, shop_line.order_id AS s2_1, (true) AS s2_2, shop_line.price AS s2_3 FROM countercache_old AS shop_line) o, (SELECT CASE WHEN /* @CounterCache on Order.cheapestLine */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, 1 AS d1, NULL::text AS v1, shop_line.order_id AS s1_1, (true) AS s1_2, shop_line.price AS s1_3, CASE WHEN /* @CounterCache on Order.value */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k2, (coalesce(shop_line.price, 0) * 100)::bigint AS d2, NULL::text AS v2, shop_line.order_id AS s2_1, (true) AS s2_2, shop_line.price AS s2_3 FROM countercache_new AS shop_line) n,
            LATERAL (VALUES (67735581, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (67735581, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (416516304, o.k2, o.v2, o.d2, ROW(o.s2_1, o.s2_2, o.s2_3) IS DISTINCT FROM ROW(n.s2_1, n.s2_2, n.s2_3)), (416516304, n.k2, n.v2, n.d2, ROW(o.s2_1, o.s2_2, o.s2_3) IS DISTINCT FROM ROW(n.s2_1, n.s2_2, n.s2_3))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.cheapestLine */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, 1 AS d1, NULL::text AS v1, shop_line.order_id AS s1_1, (true) AS s1_2, shop_line.price AS s1_3, CASE WHEN /* @CounterCache on Order.value */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k2, -(coalesce(shop_line.price, 0) * 100)::bigint AS d2, NULL::text AS v2, shop_line.order_id AS s2_1, (true) AS s2_2, shop_line.price AS s2_3 FROM countercache_old AS shop_line) o, (SELECT CASE WHEN /* @CounterCache on Order.cheapestLine */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, 1 AS d1, NULL::text AS v1, shop_line.order_id AS s1_1, (true) AS s1_2, shop_line.price AS s1_3, CASE WHEN /* @CounterCache on Order.value */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k2, (coalesce(shop_line.price, 0) * 100)::bigint AS d2, NULL::text AS v2, shop_line.order_id AS s2_1, (true) AS s2_2, shop_line.price AS s2_3 FROM countercache_new AS shop_line) n,
            LATERAL (VALUES (67735581, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (67735581, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (416516304, o.k2, o.v2, o.d2, ROW(o.s2_1, o.s2_2, o.s2_3) IS DISTINCT FROM ROW(n.s2_1, n.s2_2, n.s2_3)), (416516304, n.k2, n.v2, n.d2, ROW(o.s2_1, o.s2_2, o.s2_3) IS DISTINCT FROM ROW(n.s2_1, n.s2_2, n.s2_3))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0) s;
        END IF;
        INSERT INTO countercache.delta_unlogged (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT p.c, p.k, p.v, q.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Order.total */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, -coalesce(shop_line.amount, 0)::numeric AS d1, NULL::text AS v1, shop_line.order_id AS s1_1, (true) AS s1_2, shop_line.amount AS s1_3 FROM countercache_old AS shop_line) o, (SELECT CASE WHEN /* @CounterCache on Order.total */ shop_line.order_id IS NOT NULL THEN shop_line.order_id END AS k1, coalesce(shop_line.amount, 0)::numeric AS d1, NULL::text AS v1, shop_line.order_id AS s1_1, (true) AS s1_2, shop_line.amount AS s1_3 FROM countercache_new AS shop_line) n,
            LATERAL (VALUES (1200304570, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (1200304570, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0) p,
            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d
                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n), generate_series(1, m.n) i) q) s;
        ELSIF changed IS NOT NULL THEN
            RETURN NULL;   -- nothing counted changed
        ELSIF NOT EXISTS (SELECT FROM countercache_new OFFSET 1000) THEN
        IF NOT EXISTS (SELECT FROM (SELECT shop_line.id AS k1, shop_line.order_id AS s1, (true) AS s2, shop_line.amount AS s3, shop_line.price AS s4 FROM countercache_new AS shop_line) n LEFT JOIN (SELECT shop_line.id AS k1, shop_line.order_id AS s1, (true) AS s2, shop_line.amount AS s3, shop_line.price AS s4 FROM countercache_old AS shop_line) o ON o.k1 = n.k1 AND NOT (ROW(o.s1, o.s2, o.s3, o.s4) IS DISTINCT FROM ROW(n.s1, n.s2, n.s3, n.s4)) WHERE o.k1 IS NULL) THEN
            RETURN NULL;   -- nothing counted changed
        END IF;
        INSERT INTO countercache.distinct_delta (counter_id, target_uuid, value, delta)
        SELECT 1066643295 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.amounts */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, shop_line.amount::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.amounts */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, shop_line.amount::text AS v, -1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, (coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -(coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, (coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -(coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
        INSERT INTO countercache.delta_unlogged (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT p.c, p.k, p.v, q.d FROM (SELECT 1200304570 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, coalesce(shop_line.amount, 0)::numeric AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.total */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -coalesce(shop_line.amount, 0)::numeric AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) p,
            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d
                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n), generate_series(1, m.n) i) q) s;
        ELSE
        EXECUTE 'SELECT EXISTS (SELECT FROM (SELECT shop_line.id AS k1, shop_line.order_id AS s1, (true) AS s2, shop_line.amount AS s3, shop_line.price AS s4 FROM countercache_new AS shop_line) n LEFT JOIN (SELECT shop_line.id AS k1, shop_line.order_id AS s1, (true) AS s2, shop_line.amount AS s3, shop_line.price AS s4 FROM countercache_old AS shop_line) o ON o.k1 = n.k1 AND NOT (ROW(o.s1, o.s2, o.s3, o.s4) IS DISTINCT FROM ROW(n.s1, n.s2, n.s3, n.s4)) WHERE o.k1 IS NULL)' INTO changed;
        IF NOT changed THEN
            RETURN NULL;   -- nothing counted changed
        END IF;
        EXECUTE 'INSERT INTO countercache.distinct_delta (counter_id, target_uuid, value, delta)
        SELECT 1066643295 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.amounts */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, shop_line.amount::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.amounts */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, shop_line.amount::text AS v, -1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, (coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -(coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, (coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -(coalesce(shop_line.price, 0) * 100)::bigint AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
        EXECUTE 'INSERT INTO countercache.delta_unlogged (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT p.c, p.k, p.v, q.d FROM (SELECT 1200304570 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, coalesce(shop_line.amount, 0)::numeric AS d FROM countercache_new AS shop_line WHERE shop_line.order_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Order.total */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -coalesce(shop_line.amount, 0)::numeric AS d FROM countercache_old AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) p,
            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d
                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n), generate_series(1, m.n) i) q) s';
        END IF;
    ELSIF TG_OP = 'TRUNCATE' THEN
        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted
        PERFORM countercache.require_read_committed('TRUNCATE of public.shop_line',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        EXECUTE 'INSERT INTO countercache.distinct_delta (counter_id, target_uuid, value, delta)
        SELECT 1066643295 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.amounts */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, shop_line.amount::text AS v, -1 AS d FROM public.shop_line AS shop_line WHERE shop_line.order_id IS NOT NULL AND shop_line.amount IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM public.shop_line AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -(coalesce(shop_line.price, 0) * 100)::bigint AS d FROM public.shop_line AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 67735581 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.cheapestLine */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, 1 AS d FROM public.shop_line AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 416516304 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.value */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -(coalesce(shop_line.price, 0) * 100)::bigint AS d FROM public.shop_line AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
        EXECUTE 'INSERT INTO countercache.delta_unlogged (counter_id, target_uuid, delta)
        SELECT s.c, s.k, s.d FROM (SELECT p.c, p.k, p.v, q.d FROM (SELECT 1200304570 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Order.total */ s.f AS k, s.v, s.d FROM (SELECT shop_line.order_id AS f, NULL::text AS v, -coalesce(shop_line.amount, 0)::numeric AS d FROM public.shop_line AS shop_line WHERE shop_line.order_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) p,
            LATERAL (SELECT CASE WHEN i < n THEN trunc(p.d / n) ELSE p.d - trunc(p.d / n) * (n - 1) END::bigint AS d
                       FROM (SELECT greatest(1, ceil(abs(p.d) / 4611686018427387904))::integer) m(n), generate_series(1, m.n) i) q) s';
    END IF;
    RETURN NULL;
END
$function$
