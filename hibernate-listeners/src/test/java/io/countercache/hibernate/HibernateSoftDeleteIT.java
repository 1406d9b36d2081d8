package io.countercache.hibernate;

import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A counter counts the rows Hibernate loads: an entity it soft-deletes ({@code @SoftDelete}, either way round and
 * through a converter) or that its {@code @SQLRestriction} hides leaves the count, though its row stays.
 */
class HibernateSoftDeleteIT {

    private static final List<Class<?>> MODEL = List.of(Journal.class, Entry.class, Draft.class, Memo.class,
            Section.class, Line.class);
    private static TestDatabase db;
    private static EntityManagerFactory emf;

    @BeforeAll
    static void boot() throws Exception {
        db = TestPostgres.newDatabase(HibernateSoftDeleteIT.class);
        emf = Units.boot(db, "soft", MODEL);
    }

    @AfterAll
    static void close() {
        emf.close();
    }

    @Test
    void whatHibernateHidesLeavesTheCount() {
        inTransaction(em -> {
            Journal journal = new Journal();
            journal.id = 1L;
            em.persist(journal);
            for (long i = 1; i <= 3; i++) {
                Entry entry = new Entry();
                entry.id = i;
                entry.journal = journal;
                em.persist(entry);
                Draft draft = new Draft();
                draft.id = i;
                draft.journal = journal;
                em.persist(draft);
                Memo memo = new Memo();
                memo.id = i;
                memo.journal = journal;
                em.persist(memo);
            }
        });
        inTransaction(em -> {
            em.remove(em.find(Entry.class, 1L));   // soft: deleted = true
            em.remove(em.find(Draft.class, 1L));   // soft: active = 'N'
            em.remove(em.find(Memo.class, 1L));    // a real delete
            em.find(Memo.class, 2L).archived = true;
        });
        assertThat(db.queryLong("SELECT count(*) FROM entry")).as("rows kept by the soft delete").isEqualTo(3);
        assertThat(db.queryLong("SELECT count(*) FROM draft")).isEqualTo(3);
        drain();
        inTransaction(em -> {
            Journal journal = em.find(Journal.class, 1L);
            em.refresh(journal);
            assertThat(List.of(journal.entries, journal.drafts, journal.memos)).as("entries, drafts, memos")
                    .containsExactly(count(em, "Entry"), count(em, "Draft"), count(em, "Memo"))
                    .containsExactly(2L, 2L, 1L);
        });
        inTransaction(em -> em.find(Memo.class, 3L).journal = null);
        drain();
        assertThat(db.queryLong("SELECT memos FROM journal WHERE id = 1")).isZero();
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
    }

    @Test
    void theRowsOfASoftDeletedMiddleEntityLeaveTheCountAlongAPath() {
        inTransaction(em -> {
            Journal journal = new Journal();
            journal.id = 2L;
            em.persist(journal);
            for (long s = 10; s <= 11; s++) {
                Section section = new Section();
                section.id = s;
                section.journal = journal;
                em.persist(section);
                for (long i = 0; i < 3; i++) {
                    Line line = new Line();
                    line.id = s * 10 + i;
                    line.section = section;
                    em.persist(line);
                }
            }
        });
        assertThat(lines()).as("two sections of three lines").containsExactly(6L, 6L);
        inTransaction(em -> em.remove(em.find(Section.class, 10L)));   // soft: deleted = true, its lines stay
        assertThat(db.queryLong("SELECT count(*) FROM line WHERE section_id = 10")).isEqualTo(3);
        assertThat(lines()).as("section 10's lines left with it").containsExactly(3L, 3L);
        db.execute("UPDATE line SET section_id = 10 WHERE id = 110");   // into the deleted section: out of the count
        assertThat(lines()).containsExactly(2L, 2L);
        db.execute("UPDATE section SET deleted = false WHERE id = 10");   // undeleted: its four lines come back
        assertThat(lines()).containsExactly(6L, 6L);
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
    }

    /** Journal 2's lines after a rollup, then as Hibernate counts them: the lines of sections it loads. */
    private static List<Long> lines() {
        drain();
        List<Long> lines = new ArrayList<>();
        inTransaction(em -> {
            lines.add(em.find(Journal.class, 2L).lines);
            lines.add(em.createQuery("SELECT count(l) FROM Line l JOIN l.section s WHERE s.journal.id = 2", Long.class)
                    .getSingleResult());
        });
        return lines;
    }

    private static void drain() {
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
    }

    /** What Hibernate counts of an entity in journal 1: the rows it loads. */
    private static long count(EntityManager em, String entity) {
        return em.createQuery("SELECT count(x) FROM " + entity + " x WHERE x.journal.id = 1", Long.class).getSingleResult();
    }

    private static void inTransaction(java.util.function.Consumer<EntityManager> work) {
        EntityManager em = emf.createEntityManager();
        try {
            em.getTransaction().begin();
            work.accept(em);
            em.getTransaction().commit();
        } finally {
            em.close();
        }
    }
}
