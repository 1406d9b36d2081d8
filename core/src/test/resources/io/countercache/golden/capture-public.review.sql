CREATE OR REPLACE FUNCTION countercache.capture_public_review_<digest>()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
 SET row_security TO 'off'
AS $function$#variable_conflict use_column
DECLARE
    changed boolean;
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'review' THEN
        RAISE EXCEPTION 'countercache: % serves % only, not %.%', TG_NAME, 'public.review', TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NOT EXISTS (SELECT FROM countercache_new OFFSET 1) THEN
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Product.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k1, 1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Product.stars */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k2, coalesce(review.stars, 0)::bigint AS d2, NULL::text AS v2, CASE WHEN /* @CounterCache on Shop.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k3, 1 AS d3, NULL::text AS v3, CASE WHEN /* @CounterCache on Shop.stars */ review.product_id IS NOT NULL THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k4, coalesce(review.stars, 0)::bigint AS d4, NULL::text AS v4 FROM countercache_new AS review) r,
            LATERAL (VALUES (11400920, r.k1, r.v1, r.d1), (1551684280, r.k2, r.v2, r.d2), (2019686914, r.k3, r.v3, r.d3), (592141636, r.k4, r.v4, r.d4)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Product.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k1, 1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Product.stars */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k2, coalesce(review.stars, 0)::bigint AS d2, NULL::text AS v2, CASE WHEN /* @CounterCache on Shop.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k3, 1 AS d3, NULL::text AS v3, CASE WHEN /* @CounterCache on Shop.stars */ review.product_id IS NOT NULL THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k4, coalesce(review.stars, 0)::bigint AS d4, NULL::text AS v4 FROM countercache_new AS review) r,
            LATERAL (VALUES (11400920, r.k1, r.v1, r.d1), (1551684280, r.k2, r.v2, r.d2), (2019686914, r.k3, r.v3, r.d3), (592141636, r.k4, r.v4, r.d4)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        END IF;
        ELSIF NOT EXISTS (SELECT FROM countercache_new OFFSET 1000) THEN
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
        ELSE
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
        END IF;
    ELSIF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT FROM countercache_old OFFSET 1) THEN
        PERFORM FROM public.product v WHERE v.id IN (SELECT x.product_id FROM countercache_old x) ORDER BY v.id FOR KEY SHARE OF v;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Product.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k1, -1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Product.stars */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k2, -coalesce(review.stars, 0)::bigint AS d2, NULL::text AS v2, CASE WHEN /* @CounterCache on Shop.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k3, -1 AS d3, NULL::text AS v3, CASE WHEN /* @CounterCache on Shop.stars */ review.product_id IS NOT NULL THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k4, -coalesce(review.stars, 0)::bigint AS d4, NULL::text AS v4 FROM countercache_old AS review) r,
            LATERAL (VALUES (11400920, r.k1, r.v1, r.d1), (1551684280, r.k2, r.v2, r.d2), (2019686914, r.k3, r.v3, r.d3), (592141636, r.k4, r.v4, r.d4)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Product.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k1, -1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Product.stars */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k2, -coalesce(review.stars, 0)::bigint AS d2, NULL::text AS v2, CASE WHEN /* @CounterCache on Shop.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k3, -1 AS d3, NULL::text AS v3, CASE WHEN /* @CounterCache on Shop.stars */ review.product_id IS NOT NULL THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k4, -coalesce(review.stars, 0)::bigint AS d4, NULL::text AS v4 FROM countercache_old AS review) r,
            LATERAL (VALUES (11400920, r.k1, r.v1, r.d1), (1551684280, r.k2, r.v2, r.d2), (2019686914, r.k3, r.v3, r.d3), (592141636, r.k4, r.v4, r.d4)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        END IF;
        ELSIF NOT EXISTS (SELECT FROM countercache_old OFFSET 1000) THEN
        PERFORM FROM public.product v WHERE v.id IN (SELECT x.product_id FROM countercache_old x) ORDER BY v.id FOR KEY SHARE OF v;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
        ELSE
        EXECUTE 'SELECT FROM public.product v WHERE v.id IN (SELECT x.product_id FROM countercache_old x) ORDER BY v.id FOR KEY SHARE OF v';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
        END IF;
    ELSIF TG_OP = 'UPDATE' THEN
        SELECT CASE WHEN NOT EXISTS (SELECT FROM countercache_new OFFSET 1) THEN EXISTS (SELECT FROM (SELECT review.product_id AS s1, (approved) AS s2, review.stars AS s3, (true) AS s4 FROM countercache_old AS review) o, (SELECT review.product_id AS s1, (approved) AS s2, review.stars AS s3, (true) AS s4 FROM countercache_new AS review) n WHERE ROW(o.s1, o.s2, o.s3, o.s4) IS DISTINCT FROM ROW(n.s1, n.s2, n.s3, n.s4)) END INTO changed;
        IF changed THEN
        PERFORM FROM public.product v WHERE v.id IN (SELECT x.product_id FROM countercache_old x) ORDER BY v.id FOR KEY SHARE OF v;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Product.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k1, -1 AS d1, NULL::text AS v1, review.product_id AS s1_1, (approved) AS s1_2, CASE WHEN /* @CounterCache on Product.stars */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k2, -coalesce(review.stars, 0)::bigint AS d2, NULL::text AS v2, review.product_id AS s2_1, (approved) AS s2_2, review.stars AS s2_3, CASE WHEN /* @CounterCache on Shop.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k3, -1 AS d3, NULL::text AS v3, review.product_id AS s3_1, (approved) AS s3_2, CASE WHEN /* @CounterCache on Shop.stars */ review.product_id IS NOT NULL THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k4, -coalesce(review.stars, 0)::bigint AS d4, NULL::text AS v4, review.product_id AS s4_1, (true) AS s4_2, review.stars AS s4_3 FROM countercache_old AS review) o, (SELECT CASE WHEN /* @CounterCache on Product.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k1, 1 AS d1, NULL::text AS v1, review.product_id AS s1_1, (approved) AS s1_2, CASE WHEN /* @CounterCache on Product.stars */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k2, coalesce(review.stars, 0)::bigint AS d2, NULL::text AS v2, review.product_id AS s2_1, (approved) AS s2_2, review.stars AS s2_3, CASE WHEN /* @CounterCache on Shop.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k3, 1 AS d3, NULL::text AS v3, review.product_id AS s3_1, (approved) AS s3_2, CASE WHEN /* @CounterCache on Shop.stars */ review.product_id IS NOT NULL THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k4, coalesce(review.stars, 0)::bigint AS d4, NULL::text AS v4, review.product_id AS s4_1, (true) AS s4_2, review.stars AS s4_3 FROM countercache_new AS review) n,
            LATERAL (VALUES (11400920, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2) IS DISTINCT FROM ROW(n.s1_1, n.s1_2)), (11400920, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2) IS DISTINCT FROM ROW(n.s1_1, n.s1_2)), (1551684280, o.k2, o.v2, o.d2, ROW(o.s2_1, o.s2_2, o.s2_3) IS DISTINCT FROM ROW(n.s2_1, n.s2_2, n.s2_3)), (1551684280, n.k2, n.v2, n.d2, ROW(o.s2_1, o.s2_2, o.s2_3) IS DISTINCT FROM ROW(n.s2_1, n.s2_2, n.s2_3)), (2019686914, o.k3, o.v3, o.d3, ROW(o.s3_1, o.s3_2) IS DISTINCT FROM ROW(n.s3_1, n.s3_2)), (2019686914, n.k3, n.v3, n.d3, ROW(o.s3_1, o.s3_2) IS DISTINCT FROM ROW(n.s3_1, n.s3_2)), (592141636, o.k4, o.v4, o.d4, ROW(o.s4_1, o.s4_2, o.s4_3) IS DISTINCT FROM ROW(n.s4_1, n.s4_2, n.s4_3)), (592141636, n.k4, n.v4, n.d4, ROW(o.s4_1, o.s4_2, o.s4_3) IS DISTINCT FROM ROW(n.s4_1, n.s4_2, n.s4_3))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Product.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k1, -1 AS d1, NULL::text AS v1, review.product_id AS s1_1, (approved) AS s1_2, CASE WHEN /* @CounterCache on Product.stars */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k2, -coalesce(review.stars, 0)::bigint AS d2, NULL::text AS v2, review.product_id AS s2_1, (approved) AS s2_2, review.stars AS s2_3, CASE WHEN /* @CounterCache on Shop.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k3, -1 AS d3, NULL::text AS v3, review.product_id AS s3_1, (approved) AS s3_2, CASE WHEN /* @CounterCache on Shop.stars */ review.product_id IS NOT NULL THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k4, -coalesce(review.stars, 0)::bigint AS d4, NULL::text AS v4, review.product_id AS s4_1, (true) AS s4_2, review.stars AS s4_3 FROM countercache_old AS review) o, (SELECT CASE WHEN /* @CounterCache on Product.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k1, 1 AS d1, NULL::text AS v1, review.product_id AS s1_1, (approved) AS s1_2, CASE WHEN /* @CounterCache on Product.stars */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN review.product_id END AS k2, coalesce(review.stars, 0)::bigint AS d2, NULL::text AS v2, review.product_id AS s2_1, (approved) AS s2_2, review.stars AS s2_3, CASE WHEN /* @CounterCache on Shop.approvedReviews */ review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k3, 1 AS d3, NULL::text AS v3, review.product_id AS s3_1, (approved) AS s3_2, CASE WHEN /* @CounterCache on Shop.stars */ review.product_id IS NOT NULL THEN (SELECT v.shop_id FROM public.product v WHERE v.id = review.product_id) END AS k4, coalesce(review.stars, 0)::bigint AS d4, NULL::text AS v4, review.product_id AS s4_1, (true) AS s4_2, review.stars AS s4_3 FROM countercache_new AS review) n,
            LATERAL (VALUES (11400920, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2) IS DISTINCT FROM ROW(n.s1_1, n.s1_2)), (11400920, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2) IS DISTINCT FROM ROW(n.s1_1, n.s1_2)), (1551684280, o.k2, o.v2, o.d2, ROW(o.s2_1, o.s2_2, o.s2_3) IS DISTINCT FROM ROW(n.s2_1, n.s2_2, n.s2_3)), (1551684280, n.k2, n.v2, n.d2, ROW(o.s2_1, o.s2_2, o.s2_3) IS DISTINCT FROM ROW(n.s2_1, n.s2_2, n.s2_3)), (2019686914, o.k3, o.v3, o.d3, ROW(o.s3_1, o.s3_2) IS DISTINCT FROM ROW(n.s3_1, n.s3_2)), (2019686914, n.k3, n.v3, n.d3, ROW(o.s3_1, o.s3_2) IS DISTINCT FROM ROW(n.s3_1, n.s3_2)), (592141636, o.k4, o.v4, o.d4, ROW(o.s4_1, o.s4_2, o.s4_3) IS DISTINCT FROM ROW(n.s4_1, n.s4_2, n.s4_3)), (592141636, n.k4, n.v4, n.d4, ROW(o.s4_1, o.s4_2, o.s4_3) IS DISTINCT FROM ROW(n.s4_1, n.s4_2, n.s4_3))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0) s;
        END IF;
        ELSIF changed IS NOT NULL THEN
            RETURN NULL;   -- nothing counted changed
        ELSIF NOT EXISTS (SELECT FROM countercache_new OFFSET 1000) THEN
        IF NOT EXISTS (SELECT FROM (SELECT review.id AS k1, review.product_id AS s1, (approved) AS s2, review.stars AS s3, (true) AS s4 FROM countercache_new AS review) n LEFT JOIN (SELECT review.id AS k1, review.product_id AS s1, (approved) AS s2, review.stars AS s3, (true) AS s4 FROM countercache_old AS review) o ON o.k1 = n.k1 AND NOT (ROW(o.s1, o.s2, o.s3, o.s4) IS DISTINCT FROM ROW(n.s1, n.s2, n.s3, n.s4)) WHERE o.k1 IS NULL) THEN
            RETURN NULL;   -- nothing counted changed
        END IF;
        PERFORM FROM public.product v WHERE v.id IN (SELECT x.product_id FROM countercache_old x) ORDER BY v.id FOR KEY SHARE OF v;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
            UNION ALL
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
            UNION ALL
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
            UNION ALL
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
            UNION ALL
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
        ELSE
        EXECUTE 'SELECT EXISTS (SELECT FROM (SELECT review.id AS k1, review.product_id AS s1, (approved) AS s2, review.stars AS s3, (true) AS s4 FROM countercache_new AS review) n LEFT JOIN (SELECT review.id AS k1, review.product_id AS s1, (approved) AS s2, review.stars AS s3, (true) AS s4 FROM countercache_old AS review) o ON o.k1 = n.k1 AND NOT (ROW(o.s1, o.s2, o.s3, o.s4) IS DISTINCT FROM ROW(n.s1, n.s2, n.s3, n.s4)) WHERE o.k1 IS NULL)' INTO changed;
        IF NOT changed THEN
            RETURN NULL;   -- nothing counted changed
        END IF;
        EXECUTE 'SELECT FROM public.product v WHERE v.id IN (SELECT x.product_id FROM countercache_old x) ORDER BY v.id FOR KEY SHARE OF v';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
            UNION ALL
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
            UNION ALL
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
            UNION ALL
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
            UNION ALL
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM countercache_new AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM countercache_old AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
        END IF;
    ELSIF TG_OP = 'TRUNCATE' THEN
        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted
        PERFORM countercache.require_read_committed('TRUNCATE of public.review',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        EXECUTE 'SELECT FROM public.product v WHERE v.id IN (SELECT x.product_id FROM public.review x) ORDER BY v.id FOR KEY SHARE OF v';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM public.review AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM public.review AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM public.review AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM public.review AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 11400920 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.approvedReviews */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM public.review AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1551684280 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Product.stars */ s.f AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM public.review AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM public.review AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ v.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM public.review AS review WHERE review.product_id IS NOT NULL) s JOIN public.product v ON v.id = s.f WHERE v.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
    END IF;
    RETURN NULL;
END
$function$
