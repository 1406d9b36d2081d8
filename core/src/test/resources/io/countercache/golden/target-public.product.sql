CREATE OR REPLACE FUNCTION countercache.target_public_product_<digest>()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
 SET row_security TO 'off'
AS $function$BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'product' THEN
        RAISE EXCEPTION 'countercache: % serves % only, not %.%', TG_NAME, 'public.product', TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 11400920 AS c, r.id AS k, -coalesce(r.approved_reviews, 0)::bigint AS d FROM countercache_new AS r
            UNION ALL
            SELECT 1551684280 AS c, r.id AS k, -coalesce(r.stars, 0)::bigint AS d FROM countercache_new AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 11400920 AS c, r.id AS k, coalesce(r.approved_reviews, 0)::bigint AS d FROM countercache_old AS r
            UNION ALL
            SELECT 1551684280 AS c, r.id AS k, coalesce(r.stars, 0)::bigint AS d FROM countercache_old AS r
        ) s WHERE d <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        -- the key changed (a row trigger, only then): the old key gets its values back
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (VALUES
            (11400920, OLD.id, coalesce(OLD.approved_reviews, 0)::bigint), (11400920, NEW.id, -coalesce(NEW.approved_reviews, 0)::bigint),
            (1551684280, OLD.id, coalesce(OLD.stars, 0)::bigint), (1551684280, NEW.id, -coalesce(NEW.stars, 0)::bigint)
        ) v(c, k, d) WHERE d <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        PERFORM countercache.require_read_committed('TRUNCATE of public.product',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, d FROM (
            SELECT 11400920 AS c, r.id AS k, coalesce(r.approved_reviews, 0)::bigint AS d FROM public.product AS r
            UNION ALL
            SELECT 1551684280 AS c, r.id AS k, coalesce(r.stars, 0)::bigint AS d FROM public.product AS r
        ) s WHERE d <> 0;
    END IF;
    RETURN NULL;
END
$function$
