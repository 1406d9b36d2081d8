CREATE OR REPLACE FUNCTION countercache.capture_public_blog_comment_<digest>()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$#variable_conflict use_column
BEGIN
    IF TG_TABLE_SCHEMA <> 'public' OR TG_TABLE_NAME <> 'blog_comment' THEN
        RAISE EXCEPTION 'countercache: % serves % only, not %.%', TG_NAME, 'public.blog_comment', TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF TG_OP = 'INSERT' THEN
        WITH s AS (
            SELECT c, k, sum(d) AS d FROM (
            SELECT 1341308473 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (true)) s) x
        ) s GROUP BY c, k HAVING sum(d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT 347335187 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (true)) s) x
            UNION ALL
            SELECT 1324712807 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (publish_status = 'public')) s) x
            UNION ALL
            SELECT 1854263637 AS c, x.k, x.d FROM (SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.d FROM (SELECT blog_comment.creator_id AS f, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND (publish_status = 'public')) s) x
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'DELETE' THEN
        WITH s AS (
            SELECT c, k, sum(d) AS d FROM (
            SELECT 1341308473 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, -coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (true)) s) x
        ) s GROUP BY c, k HAVING sum(d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT 347335187 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (true)) s) x
            UNION ALL
            SELECT 1324712807 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (publish_status = 'public')) s) x
            UNION ALL
            SELECT 1854263637 AS c, x.k, x.d FROM (SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.d FROM (SELECT blog_comment.creator_id AS f, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND (publish_status = 'public')) s) x
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'UPDATE' THEN
        IF NOT EXISTS (SELECT FROM (SELECT blog_comment.id AS k1, ROW(blog_comment.article_id, (true), blog_comment.article_id, (true), blog_comment.likes, blog_comment.article_id, (publish_status = 'public'), blog_comment.creator_id, (publish_status = 'public')) AS sig FROM countercache_new AS blog_comment) n LEFT JOIN (SELECT blog_comment.id AS k1, ROW(blog_comment.article_id, (true), blog_comment.article_id, (true), blog_comment.likes, blog_comment.article_id, (publish_status = 'public'), blog_comment.creator_id, (publish_status = 'public')) AS sig FROM countercache_old AS blog_comment) o ON o.k1 = n.k1 AND o.sig IS NOT DISTINCT FROM n.sig
                        WHERE o.k1 IS NULL) THEN
            RETURN NULL;   -- nothing counted changed
        END IF;
        WITH s AS (
            SELECT c, k, sum(d) AS d FROM (
            SELECT 1341308473 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (true)) s) x
            UNION ALL
            SELECT 1341308473 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, -coalesce(blog_comment.likes, 0)::bigint AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (true)) s) x
        ) s GROUP BY c, k HAVING sum(d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT 347335187 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (true)) s) x
            UNION ALL
            SELECT 347335187 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (true)) s) x
            UNION ALL
            SELECT 1324712807 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (publish_status = 'public')) s) x
            UNION ALL
            SELECT 1324712807 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (publish_status = 'public')) s) x
            UNION ALL
            SELECT 1854263637 AS c, x.k, x.d FROM (SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.d FROM (SELECT blog_comment.creator_id AS f, 1 AS d FROM countercache_new AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND (publish_status = 'public')) s) x
            UNION ALL
            SELECT 1854263637 AS c, x.k, x.d FROM (SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.d FROM (SELECT blog_comment.creator_id AS f, -1 AS d FROM countercache_old AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND (publish_status = 'public')) s) x
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    ELSIF TG_OP = 'TRUNCATE' THEN
        -- BEFORE TRUNCATE, under its ACCESS EXCLUSIVE lock: take back what every row counted
        PERFORM countercache.require_read_committed('TRUNCATE of public.blog_comment',
            'run TRUNCATE in a READ COMMITTED transaction, or use DELETE');
        WITH s AS (
            SELECT c, k, sum(d) AS d FROM (
            SELECT 1341308473 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalLikes */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, -coalesce(blog_comment.likes, 0)::bigint AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (true)) s) x
        ) s GROUP BY c, k HAVING sum(d) <> 0
        ), w AS (
            SELECT s.k, sum(s.d) FILTER (WHERE s.c = 1341308473) AS d1 FROM s GROUP BY s.k
        ), u AS (
            UPDATE public.blog_article t SET total_likes = coalesce(t.total_likes, 0) + coalesce(w.d1, 0)
              FROM w WHERE t.id = w.k RETURNING t.id AS k
        )
        INSERT INTO countercache.orphan (counter_id, target_id, delta, enqueued_at)
        SELECT s.c, s.k, s.d, now() FROM s WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = s.k);
        INSERT INTO countercache.delta (counter_id, target_id, delta)
        SELECT c, k, sum(d) AS d FROM (
            SELECT 347335187 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalComments */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, -1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (true)) s) x
            UNION ALL
            SELECT 1324712807 AS c, x.k, x.d FROM (SELECT /* @CounterCache on Article.totalPublicComments */ s.f AS k, s.d FROM (SELECT blog_comment.article_id AS f, -1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.article_id IS NOT NULL AND (publish_status = 'public')) s) x
            UNION ALL
            SELECT 1854263637 AS c, x.k, x.d FROM (SELECT /* @CounterCache on User.totalPublicComments */ s.f AS k, s.d FROM (SELECT blog_comment.creator_id AS f, -1 AS d FROM public.blog_comment AS blog_comment WHERE blog_comment.creator_id IS NOT NULL AND (publish_status = 'public')) s) x
        ) s GROUP BY c, k HAVING sum(d) <> 0;
    END IF;
    RETURN NULL;
END
$function$
