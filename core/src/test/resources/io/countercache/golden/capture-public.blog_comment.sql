CREATE OR REPLACE FUNCTION countercache.capture_public_blog_comment_<digest>()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
 SET row_security TO 'off'
AS $function$#variable_conflict use_column
DECLARE
    changed boolean;
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'blog_comment' THEN
        RAISE EXCEPTION 'countercache: % serves % only, not %.%', TG_NAME, 'public.blog_comment', TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        IF NOT EXISTS (SELECT FROM countercache_new OFFSET 1) THEN
        IF current_setting('countercache.round', true) = 'on' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.totalLikes */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k1, coalesce(blog_comment.likes, 0)::bigint AS d1, NULL::text AS v1 FROM countercache_new AS blog_comment) r,
            LATERAL (VALUES (1341308473, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        WITH s AS (
            SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.totalLikes */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k1, coalesce(blog_comment.likes, 0)::bigint AS d1, NULL::text AS v1 FROM countercache_new AS blog_comment) r,
            LATERAL (VALUES (1341308473, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);
        END IF;
        INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)
        SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.commenters */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END AND blog_comment.creator_id IS NOT NULL THEN blog_comment.article_id END AS k1, 1 AS d1, blog_comment.creator_id::text AS v1 FROM countercache_new AS blog_comment) r,
            LATERAL (VALUES (187538352, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.mostLikes */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k1, 1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Article.totalComments */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k2, 1 AS d2, NULL::text AS v2, CASE WHEN /* @CounterCache on Article.totalPublicComments */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k3, 1 AS d3, NULL::text AS v3, CASE WHEN /* @CounterCache on User.totalPublicComments */ blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.creator_id END AS k4, 1 AS d4, NULL::text AS v4 FROM countercache_new AS blog_comment) r,
            LATERAL (VALUES (2094792818, r.k1, r.v1, r.d1), (347335187, r.k2, r.v2, r.d2), (1324712807, r.k3, r.v3, r.d3), (1854263637, r.k4, r.v4, r.d4)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.mostLikes */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k1, 1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Article.totalComments */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k2, 1 AS d2, NULL::text AS v2, CASE WHEN /* @CounterCache on Article.totalPublicComments */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k3, 1 AS d3, NULL::text AS v3, CASE WHEN /* @CounterCache on User.totalPublicComments */ blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.creator_id END AS k4, 1 AS d4, NULL::text AS v4 FROM countercache_new AS blog_comment) r,
            LATERAL (VALUES (2094792818, r.k1, r.v1, r.d1), (347335187, r.k2, r.v2, r.d2), (1324712807, r.k3, r.v3, r.d3), (1854263637, r.k4, r.v4, r.d4)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        END IF;
        ELSIF NOT EXISTS (SELECT FROM countercache_new OFFSET 1000) THEN
        IF current_setting('countercache.round', true) = 'on' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        WITH s AS (
            SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);
        END IF;
        INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)
        SELECT 187538352 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.commenters */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, blog_comment.creator_id::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END AND blog_comment.creator_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
        ELSE
        IF current_setting('countercache.round', true) = 'on' THEN
        EXECUTE 'INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'WITH s AS (
            SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k)';
        END IF;
        EXECUTE 'INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)
        SELECT 187538352 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.commenters */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, blog_comment.creator_id::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END AND blog_comment.creator_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
        END IF;
    ELSIF TG_OP = 'DELETE' THEN
        IF NOT EXISTS (SELECT FROM countercache_old OFFSET 1) THEN
        IF current_setting('countercache.round', true) = 'on' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.totalLikes */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k1, -coalesce(blog_comment.likes, 0)::bigint AS d1, NULL::text AS v1 FROM countercache_old AS blog_comment) r,
            LATERAL (VALUES (1341308473, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        WITH s AS (
            SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.totalLikes */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k1, -coalesce(blog_comment.likes, 0)::bigint AS d1, NULL::text AS v1 FROM countercache_old AS blog_comment) r,
            LATERAL (VALUES (1341308473, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);
        END IF;
        INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)
        SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.commenters */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END AND blog_comment.creator_id IS NOT NULL THEN blog_comment.article_id END AS k1, -1 AS d1, blog_comment.creator_id::text AS v1 FROM countercache_old AS blog_comment) r,
            LATERAL (VALUES (187538352, r.k1, r.v1, r.d1)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.mostLikes */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k1, 1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Article.totalComments */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k2, -1 AS d2, NULL::text AS v2, CASE WHEN /* @CounterCache on Article.totalPublicComments */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k3, -1 AS d3, NULL::text AS v3, CASE WHEN /* @CounterCache on User.totalPublicComments */ blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.creator_id END AS k4, -1 AS d4, NULL::text AS v4 FROM countercache_old AS blog_comment) r,
            LATERAL (VALUES (2094792818, r.k1, r.v1, r.d1), (347335187, r.k2, r.v2, r.d2), (1324712807, r.k3, r.v3, r.d3), (1854263637, r.k4, r.v4, r.d4)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.mostLikes */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k1, 1 AS d1, NULL::text AS v1, CASE WHEN /* @CounterCache on Article.totalComments */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k2, -1 AS d2, NULL::text AS v2, CASE WHEN /* @CounterCache on Article.totalPublicComments */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k3, -1 AS d3, NULL::text AS v3, CASE WHEN /* @CounterCache on User.totalPublicComments */ blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.creator_id END AS k4, -1 AS d4, NULL::text AS v4 FROM countercache_old AS blog_comment) r,
            LATERAL (VALUES (2094792818, r.k1, r.v1, r.d1), (347335187, r.k2, r.v2, r.d2), (1324712807, r.k3, r.v3, r.d3), (1854263637, r.k4, r.v4, r.d4)) AS x(c, k, v, d) WHERE x.k IS NOT NULL AND x.d <> 0) s;
        END IF;
        ELSIF NOT EXISTS (SELECT FROM countercache_old OFFSET 1000) THEN
        IF current_setting('countercache.round', true) = 'on' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        WITH s AS (
            SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);
        END IF;
        INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)
        SELECT 187538352 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.commenters */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, blog_comment.creator_id::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END AND blog_comment.creator_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
        ELSE
        IF current_setting('countercache.round', true) = 'on' THEN
        EXECUTE 'INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'WITH s AS (
            SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k)';
        END IF;
        EXECUTE 'INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)
        SELECT 187538352 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.commenters */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, blog_comment.creator_id::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END AND blog_comment.creator_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
        END IF;
    ELSIF TG_OP = 'UPDATE' THEN
        SELECT CASE WHEN NOT EXISTS (SELECT FROM countercache_new OFFSET 1) THEN EXISTS (SELECT FROM (SELECT blog_comment.article_id AS s1, (publish_status = 'public') AS s2, blog_comment.creator_id AS s3, blog_comment.likes AS s4, (true) AS s5 FROM countercache_old AS blog_comment) o, (SELECT blog_comment.article_id AS s1, (publish_status = 'public') AS s2, blog_comment.creator_id AS s3, blog_comment.likes AS s4, (true) AS s5 FROM countercache_new AS blog_comment) n WHERE ROW(o.s1, o.s2, o.s3, o.s4, o.s5) IS DISTINCT FROM ROW(n.s1, n.s2, n.s3, n.s4, n.s5)) END INTO changed;
        IF changed THEN
        IF current_setting('countercache.round', true) = 'on' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.totalLikes */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k1, -coalesce(blog_comment.likes, 0)::bigint AS d1, NULL::text AS v1, blog_comment.article_id AS s1_1, (true) AS s1_2, blog_comment.likes AS s1_3 FROM countercache_old AS blog_comment) o, (SELECT CASE WHEN /* @CounterCache on Article.totalLikes */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k1, coalesce(blog_comment.likes, 0)::bigint AS d1, NULL::text AS v1, blog_comment.article_id AS s1_1, (true) AS s1_2, blog_comment.likes AS s1_3 FROM countercache_new AS blog_comment) n,
            LATERAL (VALUES (1341308473, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (1341308473, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        WITH s AS (
            SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.totalLikes */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k1, -coalesce(blog_comment.likes, 0)::bigint AS d1, NULL::text AS v1, blog_comment.article_id AS s1_1, (true) AS s1_2, blog_comment.likes AS s1_3 FROM countercache_old AS blog_comment) o, (SELECT CASE WHEN /* @CounterCache on Article.totalLikes */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k1, coalesce(blog_comment.likes, 0)::bigint AS d1, NULL::text AS v1, blog_comment.article_id AS s1_1, (true) AS s1_2, blog_comment.likes AS s1_3 FROM countercache_new AS blog_comment) n,
            LATERAL (VALUES (1341308473, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (1341308473, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);
        END IF;
        INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)
        SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.commenters */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END AND blog_comment.creator_id IS NOT NULL THEN blog_comment.article_id END AS k1, -1 AS d1, blog_comment.creator_id::text AS v1, blog_comment.article_id AS s1_1, (publish_status = 'public') AS s1_2, blog_comment.creator_id AS s1_3 FROM countercache_old AS blog_comment) o, (SELECT CASE WHEN /* @CounterCache on Article.commenters */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END AND blog_comment.creator_id IS NOT NULL THEN blog_comment.article_id END AS k1, 1 AS d1, blog_comment.creator_id::text AS v1, blog_comment.article_id AS s1_1, (publish_status = 'public') AS s1_2, blog_comment.creator_id AS s1_3 FROM countercache_new AS blog_comment) n,
            LATERAL (VALUES (187538352, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (187538352, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.mostLikes */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k1, 1 AS d1, NULL::text AS v1, blog_comment.article_id AS s1_1, (publish_status = 'public') AS s1_2, blog_comment.likes AS s1_3, CASE WHEN /* @CounterCache on Article.totalComments */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k2, -1 AS d2, NULL::text AS v2, blog_comment.article_id AS s2_1, (true) AS s2_2, CASE WHEN /* @CounterCache on Article.totalPublicComments */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k3, -1 AS d3, NULL::text AS v3, blog_comment.article_id AS s3_1, (publish_status = 'public') AS s3_2, CASE WHEN /* @CounterCache on User.totalPublicComments */ blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.creator_id END AS k4, -1 AS d4, NULL::text AS v4, blog_comment.creator_id AS s4_1, (publish_status = 'public') AS s4_2 FROM countercache_old AS blog_comment) o, (SELECT CASE WHEN /* @CounterCache on Article.mostLikes */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k1, 1 AS d1, NULL::text AS v1, blog_comment.article_id AS s1_1, (publish_status = 'public') AS s1_2, blog_comment.likes AS s1_3, CASE WHEN /* @CounterCache on Article.totalComments */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k2, 1 AS d2, NULL::text AS v2, blog_comment.article_id AS s2_1, (true) AS s2_2, CASE WHEN /* @CounterCache on Article.totalPublicComments */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k3, 1 AS d3, NULL::text AS v3, blog_comment.article_id AS s3_1, (publish_status = 'public') AS s3_2, CASE WHEN /* @CounterCache on User.totalPublicComments */ blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.creator_id END AS k4, 1 AS d4, NULL::text AS v4, blog_comment.creator_id AS s4_1, (publish_status = 'public') AS s4_2 FROM countercache_new AS blog_comment) n,
            LATERAL (VALUES (2094792818, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (2094792818, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (347335187, o.k2, o.v2, o.d2, ROW(o.s2_1, o.s2_2) IS DISTINCT FROM ROW(n.s2_1, n.s2_2)), (347335187, n.k2, n.v2, n.d2, ROW(o.s2_1, o.s2_2) IS DISTINCT FROM ROW(n.s2_1, n.s2_2)), (1324712807, o.k3, o.v3, o.d3, ROW(o.s3_1, o.s3_2) IS DISTINCT FROM ROW(n.s3_1, n.s3_2)), (1324712807, n.k3, n.v3, n.d3, ROW(o.s3_1, o.s3_2) IS DISTINCT FROM ROW(n.s3_1, n.s3_2)), (1854263637, o.k4, o.v4, o.d4, ROW(o.s4_1, o.s4_2) IS DISTINCT FROM ROW(n.s4_1, n.s4_2)), (1854263637, n.k4, n.v4, n.d4, ROW(o.s4_1, o.s4_2) IS DISTINCT FROM ROW(n.s4_1, n.s4_2))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT x.c, x.k, x.v, x.d FROM (SELECT CASE WHEN /* @CounterCache on Article.mostLikes */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k1, 1 AS d1, NULL::text AS v1, blog_comment.article_id AS s1_1, (publish_status = 'public') AS s1_2, blog_comment.likes AS s1_3, CASE WHEN /* @CounterCache on Article.totalComments */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k2, -1 AS d2, NULL::text AS v2, blog_comment.article_id AS s2_1, (true) AS s2_2, CASE WHEN /* @CounterCache on Article.totalPublicComments */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k3, -1 AS d3, NULL::text AS v3, blog_comment.article_id AS s3_1, (publish_status = 'public') AS s3_2, CASE WHEN /* @CounterCache on User.totalPublicComments */ blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.creator_id END AS k4, -1 AS d4, NULL::text AS v4, blog_comment.creator_id AS s4_1, (publish_status = 'public') AS s4_2 FROM countercache_old AS blog_comment) o, (SELECT CASE WHEN /* @CounterCache on Article.mostLikes */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k1, 1 AS d1, NULL::text AS v1, blog_comment.article_id AS s1_1, (publish_status = 'public') AS s1_2, blog_comment.likes AS s1_3, CASE WHEN /* @CounterCache on Article.totalComments */ blog_comment.article_id IS NOT NULL THEN blog_comment.article_id END AS k2, 1 AS d2, NULL::text AS v2, blog_comment.article_id AS s2_1, (true) AS s2_2, CASE WHEN /* @CounterCache on Article.totalPublicComments */ blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.article_id END AS k3, 1 AS d3, NULL::text AS v3, blog_comment.article_id AS s3_1, (publish_status = 'public') AS s3_2, CASE WHEN /* @CounterCache on User.totalPublicComments */ blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END THEN blog_comment.creator_id END AS k4, 1 AS d4, NULL::text AS v4, blog_comment.creator_id AS s4_1, (publish_status = 'public') AS s4_2 FROM countercache_new AS blog_comment) n,
            LATERAL (VALUES (2094792818, o.k1, o.v1, o.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (2094792818, n.k1, n.v1, n.d1, ROW(o.s1_1, o.s1_2, o.s1_3) IS DISTINCT FROM ROW(n.s1_1, n.s1_2, n.s1_3)), (347335187, o.k2, o.v2, o.d2, ROW(o.s2_1, o.s2_2) IS DISTINCT FROM ROW(n.s2_1, n.s2_2)), (347335187, n.k2, n.v2, n.d2, ROW(o.s2_1, o.s2_2) IS DISTINCT FROM ROW(n.s2_1, n.s2_2)), (1324712807, o.k3, o.v3, o.d3, ROW(o.s3_1, o.s3_2) IS DISTINCT FROM ROW(n.s3_1, n.s3_2)), (1324712807, n.k3, n.v3, n.d3, ROW(o.s3_1, o.s3_2) IS DISTINCT FROM ROW(n.s3_1, n.s3_2)), (1854263637, o.k4, o.v4, o.d4, ROW(o.s4_1, o.s4_2) IS DISTINCT FROM ROW(n.s4_1, n.s4_2)), (1854263637, n.k4, n.v4, n.d4, ROW(o.s4_1, o.s4_2) IS DISTINCT FROM ROW(n.s4_1, n.s4_2))) AS x(c, k, v, d, moved) WHERE x.moved AND x.k IS NOT NULL AND x.d <> 0) s;
        END IF;
        ELSIF changed IS NOT NULL THEN
            RETURN NULL;   -- nothing counted changed
        ELSIF NOT EXISTS (SELECT FROM countercache_new OFFSET 1000) THEN
        IF NOT EXISTS (SELECT FROM (SELECT blog_comment.id AS k1, blog_comment.article_id AS s1, (publish_status = 'public') AS s2, blog_comment.creator_id AS s3, blog_comment.likes AS s4, (true) AS s5 FROM countercache_new AS blog_comment) n LEFT JOIN (SELECT blog_comment.id AS k1, blog_comment.article_id AS s1, (publish_status = 'public') AS s2, blog_comment.creator_id AS s3, blog_comment.likes AS s4, (true) AS s5 FROM countercache_old AS blog_comment) o ON o.k1 = n.k1 AND NOT (ROW(o.s1, o.s2, o.s3, o.s4, o.s5) IS DISTINCT FROM ROW(n.s1, n.s2, n.s3, n.s4, n.s5)) WHERE o.k1 IS NULL) THEN
            RETURN NULL;   -- nothing counted changed
        END IF;
        IF current_setting('countercache.round', true) = 'on' THEN
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        WITH s AS (
            SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);
        END IF;
        INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)
        SELECT 187538352 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.commenters */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, blog_comment.creator_id::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END AND blog_comment.creator_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Article.commenters */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, blog_comment.creator_id::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END AND blog_comment.creator_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0;
        IF countercache.generation(clock_timestamp()) = 0 THEN
        INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
            UNION ALL
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
            UNION ALL
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        ELSE
        INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
            UNION ALL
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
            UNION ALL
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = 'public') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s;
        END IF;
        ELSE
        EXECUTE 'SELECT EXISTS (SELECT FROM (SELECT blog_comment.id AS k1, blog_comment.article_id AS s1, (publish_status = ''public'') AS s2, blog_comment.creator_id AS s3, blog_comment.likes AS s4, (true) AS s5 FROM countercache_new AS blog_comment) n LEFT JOIN (SELECT blog_comment.id AS k1, blog_comment.article_id AS s1, (publish_status = ''public'') AS s2, blog_comment.creator_id AS s3, blog_comment.likes AS s4, (true) AS s5 FROM countercache_old AS blog_comment) o ON o.k1 = n.k1 AND NOT (ROW(o.s1, o.s2, o.s3, o.s4, o.s5) IS DISTINCT FROM ROW(n.s1, n.s2, n.s3, n.s4, n.s5)) WHERE o.k1 IS NULL)' INTO changed;
        IF NOT changed THEN
            RETURN NULL;   -- nothing counted changed
        END IF;
        IF current_setting('countercache.round', true) = 'on' THEN
        EXECUTE 'INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'WITH s AS (
            SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k)';
        END IF;
        EXECUTE 'INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)
        SELECT 187538352 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.commenters */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, blog_comment.creator_id::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END AND blog_comment.creator_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Article.commenters */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, blog_comment.creator_id::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END AND blog_comment.creator_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
            UNION ALL
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
            UNION ALL
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
            UNION ALL
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
            UNION ALL
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
            UNION ALL
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
        END IF;
    ELSIF TG_OP = 'TRUNCATE' THEN
        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted
        PERFORM countercache.require_read_committed('TRUNCATE of public.blog_comment',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        IF current_setting('countercache.round', true) = 'on' THEN
        EXECUTE 'INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -coalesce(blog_comment.likes, 0)::bigint AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'WITH s AS (
            SELECT 1341308473 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -coalesce(blog_comment.likes, 0)::bigint AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k)';
        END IF;
        EXECUTE 'INSERT INTO countercache.distinct_delta (counter_id, target_id, value, delta)
        SELECT 187538352 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.commenters */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, blog_comment.creator_id::text AS v, -1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END AND blog_comment.creator_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0';
        IF countercache.generation(clock_timestamp()) = 0 THEN
        EXECUTE 'INSERT INTO countercache.delta_0 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, -1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        ELSE
        EXECUTE 'INSERT INTO countercache.delta_1 (counter_id, target_id, delta)
        SELECT s.c, s.k, s.d FROM (SELECT 2094792818 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.mostLikes */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, 1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 347335187 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1324712807 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.article_id AS f, NULL::text AS v, -1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0
        UNION ALL
        SELECT 1854263637 AS c, x.k, x.v, sum(x.d) AS d FROM (
            SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.v, s.d FROM (SELECT blog_comment.creator_id AS f, NULL::text AS v, -1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND CASE WHEN true THEN (publish_status = ''public'') END) s
        ) x GROUP BY x.k, x.v HAVING sum(x.d) <> 0) s';
        END IF;
    END IF;
    RETURN NULL;
END
$function$
