package io.countercache.example;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/** Counters read as entity properties beside exact recounts from blog_comment. */
final class Report {

    private Report() {
    }

    static boolean print(EntityManagerFactory emf, DataSource dataSource) throws SQLException {
        List<Article> articles;
        List<User> users;
        List<Blog> blogs;
        EntityManager em = emf.createEntityManager();
        try {
            blogs = em.createQuery("SELECT b FROM Blog b ORDER BY b.id", Blog.class).getResultList();
            articles = em.createQuery("SELECT a FROM Article a ORDER BY a.id", Article.class).getResultList();
            users = em.createQuery("SELECT u FROM User u ORDER BY u.id", User.class).getResultList();
        } finally {
            em.close();
        }
        Map<Long, Long> allByArticle = recount(dataSource, "article_id", "true");
        Map<Long, Long> publicByArticle = recount(dataSource, "article_id", "publish_status = 'public'");
        Map<Long, Long> publicByUser = recount(dataSource, "creator_id", "publish_status = 'public'");
        Map<Long, Long> allByBlog = recount(dataSource, "(SELECT a.blog_id FROM blog_article a WHERE a.id = article_id)", "true");
        Map<Long, Long> commentersByArticle = recount(dataSource, "article_id", "count(DISTINCT creator_id)",
                "publish_status = 'public'");
        // per article and day in Paris: the bucket rows the rollup created, beside a recount of every bucket
        Map<String, Long> perDay = new HashMap<>();
        em = emf.createEntityManager();
        try {
            em.createQuery("SELECT d FROM ArticleDay d JOIN FETCH d.article", ArticleDay.class).getResultList()
                    .forEach(d -> perDay.put(d.article.id + " " + d.day, d.publicComments));
        } finally {
            em.close();
        }
        Map<String, Long> perDayRecount = recountByKey(dataSource, "article_id || ' ' || (created_at AT TIME ZONE"
                + " 'Europe/Paris')::date", "publish_status = 'public'");
        List<String> days = java.util.stream.Stream.concat(perDay.keySet().stream(), perDayRecount.keySet().stream())
                .distinct().toList();

        System.out.println();
        System.out.println("counter                              targets   sum of entity values   sum of recounts   differing");
        int differing = row("blog_article.total_comments", articles, a -> a.totalComments, a -> allByArticle.getOrDefault(a.id, 0L))
                + row("blog_article.total_public_comments", articles, a -> a.totalPublicComments, a -> publicByArticle.getOrDefault(a.id, 0L))
                + row("blog_user.total_public_comments", users, u -> u.totalPublicComments, u -> publicByUser.getOrDefault(u.id, 0L))
                + row("blog.total_comments (along a path)", blogs, b -> b.totalComments, b -> allByBlog.getOrDefault(b.id, 0L))
                + row("blog_article.public_commenters", articles, a -> a.publicCommenters,
                        a -> commentersByArticle.getOrDefault(a.id, 0L))
                + row("blog_article_day.public_comments", days, d -> perDay.getOrDefault(d, 0L),
                        d -> perDayRecount.getOrDefault(d, 0L))
                // an article with public comments had its count changed, so its updated_at was touched
                + row("blog_article.updated_at (touched)", articles, a -> a.updatedAt != null ? 1 : 0,
                        a -> publicByArticle.getOrDefault(a.id, 0L) > 0 ? 1 : a.updatedAt != null ? 1 : 0);
        System.out.println();
        System.out.println("busiest articles   total_comments (entity / recount)   total_public_comments (entity / recount)");
        articles.stream().sorted(Comparator.comparingLong((Article a) -> -a.totalComments)).limit(5).forEach(a ->
                System.out.printf(Locale.ROOT, "article %-9d  %14d / %-18d  %21d / %d%n", a.id, a.totalComments,
                        allByArticle.getOrDefault(a.id, 0L), a.totalPublicComments, publicByArticle.getOrDefault(a.id, 0L)));
        System.out.println();
        return differing == 0;
    }

    private static <T> int row(String name, List<T> targets, ToLongFunction<T> value, ToLongFunction<T> recount) {
        long sumValue = 0, sumRecount = 0;
        int differing = 0;
        for (T t : targets) {
            long v = value.applyAsLong(t), r = recount.applyAsLong(t);
            sumValue += v;
            sumRecount += r;
            if (v != r) {
                differing++;
            }
        }
        System.out.printf(Locale.ROOT, "%-35s %8d   %20d   %15d   %9d%n", name, targets.size(), sumValue, sumRecount, differing);
        return differing;
    }

    private static Map<Long, Long> recount(DataSource dataSource, String fk, String where) throws SQLException {
        return recount(dataSource, fk, "count(*)", where);
    }

    private static Map<String, Long> recountByKey(DataSource dataSource, String key, String where) throws SQLException {
        Map<String, Long> counts = new HashMap<>();
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT " + key + ", count(*) FROM blog_comment WHERE " + where
                     + " GROUP BY 1")) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }

    private static Map<Long, Long> recount(DataSource dataSource, String fk, String aggregate, String where)
            throws SQLException {
        Map<Long, Long> counts = new HashMap<>();
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT " + fk + ", " + aggregate + " FROM blog_comment WHERE " + where
                     + " GROUP BY 1")) {
            while (rs.next()) {
                counts.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return counts;
    }
}
