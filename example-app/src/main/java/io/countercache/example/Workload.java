package io.countercache.example;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PessimisticLockException;
import org.hibernate.StaleStateException;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Writes to the blog the way an application does: Hibernate transactions from several threads, then plain SQL. */
final class Workload {

    private final EntityManagerFactory emf;
    private final DataSource dataSource;
    private final List<Long> users = new ArrayList<>();
    private final List<Long> articles = new ArrayList<>();
    private final List<Long> blogs = new ArrayList<>();
    private final AtomicLong maxCommentId = new AtomicLong();
    private final AtomicInteger done = new AtomicInteger();
    private final AtomicInteger committed = new AtomicInteger();
    private final AtomicInteger rolledBack = new AtomicInteger();
    private final AtomicInteger conflicts = new AtomicInteger();

    Workload(EntityManagerFactory emf, DataSource dataSource) {
        this.emf = emf;
        this.dataSource = dataSource;
    }

    void seed(int userCount, int articleCount) {
        emf.runInTransaction(em -> {
            for (int i = 0; i < userCount; i++) {
                User u = new User("user" + i);
                em.persist(u);
                em.flush();
                users.add(u.id);
            }
            List<Blog> created = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Blog b = new Blog("blog " + i);
                em.persist(b);
                created.add(b);
            }
            for (int i = 0; i < articleCount; i++) {
                Article a = new Article("article " + i, created.get(i % created.size()));
                em.persist(a);
                em.flush();
                articles.add(a.id);
            }
        });
        emf.runInTransaction(em -> blogs.addAll(em.createQuery("SELECT b.id FROM Blog b", Long.class).getResultList()));
        System.out.printf(Locale.ROOT, "Seeded %d users, %d blogs and %d articles through Hibernate.%n", userCount,
                blogs.size(), articleCount);
    }

    void runConcurrently(int threads, int transactions) throws Exception {
        System.out.printf(Locale.ROOT, "Workload: %,d Hibernate transactions on %d threads (inserts, status flips,"
                + " reparenting, deletes, articles moved to another blog; about one in ten rolled back), two rollup workers"
                + " running...%n", transactions, threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        AtomicInteger next = new AtomicInteger();
        for (int t = 0; t < threads; t++) {
            long seed = 42 + t;
            futures.add(pool.submit(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                while (next.getAndIncrement() < transactions) {
                    transaction(random);
                    done.incrementAndGet();
                }
                return null;
            }));
        }
        pool.shutdown();
        while (!pool.awaitTermination(2, TimeUnit.SECONDS)) {
            System.out.printf(Locale.ROOT, "  %,d/%,d transactions, %,d deltas queued%n", done.get(), transactions,
                    ExampleApp.queued(dataSource));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        System.out.printf(Locale.ROOT, "  done: %,d committed, %,d rolled back on purpose, %,d lost a race for a row"
                + " another transaction deleted (rolled back)%n", committed.get(), rolledBack.get(), conflicts.get());
    }

    private void transaction(SplittableRandom random) {
        EntityManager em = emf.createEntityManager();
        try {
            em.getTransaction().begin();
            int kind = random.nextInt(11);
            Comment c = kind >= 4 && kind < 10 ? randomComment(em, random) : null;
            switch (kind) {
                case 0, 1, 2, 3 -> {
                    for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
                        // written at some time of the last three days: ArticleDay counts them per day
                        Comment added = new Comment(user(em, random), article(em, random), "hello", status(random),
                                Instant.now().minusSeconds(random.nextInt(3 * 24 * 3600)));
                        em.persist(added);
                        em.flush();
                        maxCommentId.accumulateAndGet(added.id, Math::max);
                    }
                }
                case 4, 5 -> {
                    if (c != null) {
                        c.publishStatus = "public".equals(c.publishStatus) ? "private" : "public";
                    }
                }
                case 6 -> {
                    if (c != null) {
                        c.article = article(em, random);
                        c.createdAt = c.createdAt.minusSeconds(random.nextInt(24 * 3600));   // and another day
                    }
                }
                case 7 -> {
                    if (c != null) {
                        c.article = article(em, random);
                        c.creator = user(em, random);
                        c.publishStatus = status(random);
                    }
                }
                case 10 -> {   // the article, with all of its comments, moves to another blog
                    Article a = em.find(Article.class, articles.get(random.nextInt(articles.size())));
                    a.blog = em.getReference(Blog.class, blogs.get(random.nextInt(blogs.size())));
                }
                default -> {
                    if (c != null) {
                        em.remove(c);
                    }
                }
            }
            em.flush();
            if (random.nextInt(10) == 0) {
                em.getTransaction().rollback();
                rolledBack.incrementAndGet();
            } else {
                em.getTransaction().commit();
                committed.incrementAndGet();
            }
        } catch (OptimisticLockException | PessimisticLockException | StaleStateException e) {
            if (em.getTransaction().isActive()) {
                em.getTransaction().rollback();
            }
            conflicts.incrementAndGet();
        } finally {
            em.close();
        }
    }

    private Comment randomComment(EntityManager em, SplittableRandom random) {
        long max = maxCommentId.get();
        if (max == 0) {
            return null;
        }
        List<Comment> found = em.createQuery("SELECT c FROM Comment c WHERE c.id >= :id ORDER BY c.id", Comment.class)
                .setParameter("id", 1 + random.nextLong(max)).setMaxResults(1).getResultList();
        return found.isEmpty() ? null : found.get(0);
    }

    private User user(EntityManager em, SplittableRandom random) {
        return em.getReference(User.class, users.get(random.nextInt(users.size())));
    }

    private Article article(EntityManager em, SplittableRandom random) {
        return em.getReference(Article.class, articles.get(random.nextInt(articles.size())));
    }

    private static String status(SplittableRandom random) {
        return random.nextInt(3) == 0 ? "private" : "public";
    }

    /** Writes that never pass through Hibernate's entities: bulk JPQL and native SQL. */
    void runPlainSql() throws SQLException {
        long low = articles.get(0), high = articles.get(articles.size() - 1);
        long firstUser = users.get(0), lastUser = users.get(users.size() - 1);
        int inserted, reparented, deleted;
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            inserted = st.executeUpdate("INSERT INTO blog_comment (creator_id, article_id, message, publish_status)"
                    + " SELECT " + firstUser + " + g % " + (lastUser - firstUser + 1) + ", " + low + " + g % " + (high - low + 1)
                    + ", 'bulk', CASE WHEN g % 3 = 0 THEN 'private' ELSE 'public' END FROM generate_series(1, 5000) g");
            reparented = st.executeUpdate("UPDATE blog_comment SET article_id = " + low + " WHERE id % 11 = 0");
            deleted = st.executeUpdate("DELETE FROM blog_comment WHERE id % 13 = 0");
        }
        int flipped = emf.callInTransaction(em -> em.createQuery("UPDATE Comment c SET c.publishStatus = 'public'"
                + " WHERE c.publishStatus = 'private' AND mod(c.id, 7) = 0").executeUpdate());
        System.out.printf(Locale.ROOT, "Plain SQL: inserted %,d comments in one INSERT ... SELECT, reparented %,d,"
                + " deleted %,d; bulk JPQL made %,d public.%n", inserted, reparented, deleted, flipped);
    }

}
