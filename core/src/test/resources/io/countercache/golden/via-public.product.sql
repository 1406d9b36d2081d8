CREATE OR REPLACE FUNCTION countercache.via_public_product_<digest>()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
 SET row_security TO 'off'
AS $function$#variable_conflict use_column
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'product' THEN
        RAISE EXCEPTION 'countercache: % serves % only, not %.%', TG_NAME, 'public.product', TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    PERFORM countercache.require_read_committed('moving a row of public.product (Shop.approvedReviews, Shop.stars)',
        'change the key or the link of a middle row, or delete it, in a READ COMMITTED transaction');
    IF TG_OP = 'UPDATE' THEN
        PERFORM FROM public.product v WHERE v.id = OLD.id FOR UPDATE OF v;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ NEW.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM (SELECT * FROM public.review WHERE product_id = NEW.id) AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s WHERE NEW.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ OLD.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM (SELECT * FROM public.review WHERE product_id = OLD.id) AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s WHERE OLD.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ NEW.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM (SELECT * FROM public.review WHERE product_id = NEW.id) AS review WHERE review.product_id IS NOT NULL) s WHERE NEW.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ OLD.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM (SELECT * FROM public.review WHERE product_id = OLD.id) AS review WHERE review.product_id IS NOT NULL) s WHERE OLD.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ NEW.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, 1 AS d FROM (SELECT * FROM public.review WHERE product_id = NEW.id) AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s WHERE NEW.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.approvedReviews */ OLD.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM (SELECT * FROM public.review WHERE product_id = OLD.id) AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s WHERE OLD.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ NEW.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, coalesce(review.stars, 0)::bigint AS d FROM (SELECT * FROM public.review WHERE product_id = NEW.id) AS review WHERE review.product_id IS NOT NULL) s WHERE NEW.shop_id IS NOT NULL
            UNION ALL
            SELECT /* @CounterCache on Shop.stars */ OLD.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM (SELECT * FROM public.review WHERE product_id = OLD.id) AS review WHERE review.product_id IS NOT NULL) s WHERE OLD.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
        RETURN NEW;
    END IF;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ OLD.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM (SELECT * FROM public.review WHERE product_id = OLD.id) AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s WHERE OLD.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ OLD.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM (SELECT * FROM public.review WHERE product_id = OLD.id) AS review WHERE review.product_id IS NOT NULL) s WHERE OLD.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2019686914 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.approvedReviews */ OLD.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -1 AS d FROM (SELECT * FROM public.review WHERE product_id = OLD.id) AS review WHERE review.product_id IS NOT NULL AND CASE WHEN true THEN (approved) END) s WHERE OLD.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 592141636 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Shop.stars */ OLD.shop_id AS k, s.v, s.d FROM (SELECT review.product_id AS f, NULL::text AS v, -coalesce(review.stars, 0)::bigint AS d FROM (SELECT * FROM public.review WHERE product_id = OLD.id) AS review WHERE review.product_id IS NOT NULL) s WHERE OLD.shop_id IS NOT NULL
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
    RETURN OLD;
END
$function$
