package io.countercache.hibernate;

import io.countercache.CatalogCheck;
import io.countercache.hibernate.internal.CounterModel;
import io.countercache.hibernate.spi.EntityModel;
import io.countercache.spi.CounterDefinition;
import io.countercache.testing.TestDatabase;
import io.countercache.testing.TestPostgres;
import jakarta.persistence.EntityManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counters of collections mapped on the target only: a unidirectional {@code @OneToMany} with a join column counts
 * the element rows (with a condition on their columns), a {@code @ManyToMany} counts its join table's links, from
 * either side ({@code Club.members} counts {@code Owner.clubs} from the far side); through Hibernate, bulk JPQL and
 * native SQL, with the boot check, ending exact.
 */
class HibernateCollectionsIT {

    private static final List<Class<?>> MODEL = List.of(Owner.class, Pet.class, Club.class, Kid.class, Toy.class);
    private static TestDatabase db;
    private static EntityManagerFactory emf;

    @BeforeAll
    static void boot() throws Exception {
        db = TestPostgres.newDatabase(HibernateCollectionsIT.class);
        emf = Units.boot(db, "collections", MODEL);
    }

    @AfterAll
    static void close() {
        emf.close();
    }

    @Test
    void theDefinitionsCountTheElementTableOrTheJoinTable() {
        assertThat(EntityModel.counters(MODEL, Map.of())).extracting(CounterDefinition::declaredBy,
                        d -> d.source().toString(), CounterDefinition::sourceFk, CounterDefinition::condition)
                .containsExactly(
                        org.assertj.core.api.Assertions.tuple("Club.members", "public.owner_club", "clubs_id", null),
                        org.assertj.core.api.Assertions.tuple("Club.ownerCount", "public.owner_club", "clubs_id", null),
                        org.assertj.core.api.Assertions.tuple("Club.vipMembers", "public.owner_club", "clubs_id", null),
                        org.assertj.core.api.Assertions.tuple("Kid.squeakyToys", "public.kid_toy", "kid_id", null),
                        // a where on the far side, per link: the far entity's own rows, by their key
                        org.assertj.core.api.Assertions.tuple("Kid.squeakyToys (per link)", "public.toy", "id",
                                "squeaky"),
                        org.assertj.core.api.Assertions.tuple("Owner.cats", "public.pet", "owner_id", "kind = 'cat'"),
                        org.assertj.core.api.Assertions.tuple("Owner.clubCount", "public.owner_club", "owners_id", null),
                        org.assertj.core.api.Assertions.tuple("Owner.petCount", "public.pet", "owner_id", null),
                        org.assertj.core.api.Assertions.tuple("Club.vipMembers (per link)", "public.owner", "id", "vip"));
    }

    @Test
    void theBootCheckReportsACountPerLinkLeftOnAJoinTableAfterItsFieldIsGone() throws Exception {
        List<CounterDefinition> withoutVips = EntityModel.counters(MODEL, Map.of()).stream()
                .filter(d -> !d.declaredBy().startsWith("Club.vipMembers")).toList();
        try (Connection c = db.dataSource().getConnection()) {
            assertThat(CatalogCheck.differences(c, withoutVips,
                    CounterModel.fromModel(MODEL, Map.of(), CounterModel::mappedTables)))
                    .containsExactlyInAnyOrder(
                            "Club.vipMembers: installed as public.club.vipmembers but no longer declared; its triggers"
                                    + " still queue deltas",
                            "Club.vipMembers (per link): installed as public.owner_club.countercache_club__vipmembers"
                                    + " but no longer declared; its triggers still queue deltas");
        }
    }

    @Test
    void writesThroughTheParentsCollectionsBulkJpqlAndSqlAreCounted() {
        emf.runInTransaction(em -> {
            Owner owner = new Owner();
            owner.id = 1L;
            owner.vip = true;
            for (long i = 1; i <= 3; i++) {
                Pet pet = new Pet();
                pet.id = i;
                pet.kind = i == 1 ? "dog" : "cat";
                em.persist(pet);
                owner.pets.add(pet);
                Club club = new Club();
                club.id = i;
                em.persist(club);
                owner.clubs.add(club);
            }
            em.persist(owner);
        });
        emf.runInTransaction(em -> {
            Owner owner = em.find(Owner.class, 1L);
            owner.pets.removeIf(p -> p.id == 2L);          // unlinks: the join column set to NULL
            owner.clubs.removeIf(c -> c.id == 3L);        // deletes the link row
            em.createQuery("UPDATE Pet p SET p.kind = 'cat' WHERE p.id = 1").executeUpdate();
        });
        db.execute("INSERT INTO pet (id, kind, owner_id) VALUES (4, 'cat', 1); INSERT INTO owner_club (owners_id, clubs_id) VALUES (1, 3)");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
        assertThat(db.queryRows("SELECT petcount, cats, clubcount FROM owner WHERE id = 1"))
                .containsExactly(List.of("3", "3", "3"));
        assertThat(db.queryRows("SELECT id, members, ownercount FROM club ORDER BY id"))
                .as("each club's members, counted from Owner.clubs and from Club.owners, its inverse side")
                .containsExactly(List.of("1", "1", "1"), List.of("2", "1", "1"), List.of("3", "1", "1"));
        assertThat(db.queryRows("SELECT id, vipmembers FROM club ORDER BY id")).as("clubs of a VIP")
                .containsExactly(List.of("1", "1"), List.of("2", "1"), List.of("3", "1"));

        // the owner stops being a VIP: every club of it, read exactly at once, then rolled up
        emf.runInTransaction(em -> em.find(Owner.class, 1L).vip = false);
        Map<Long, Long> exact = emf.callInTransaction(em -> CounterCaches.exact(em, Club.class, "vipMembers",
                List.of(1L, 2L, 3L)));
        assertThat(exact).containsOnly(Map.entry(1L, 0L), Map.entry(2L, 0L), Map.entry(3L, 0L));
        emf.runInTransaction(em -> {
            Owner other = new Owner();
            other.id = 2L;
            other.vip = true;
            other.clubs.add(em.find(Club.class, 2L));
            em.persist(other);
        });
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
        assertThat(db.queryRows("SELECT id, vipmembers FROM club ORDER BY id"))
                .containsExactly(List.of("1", "0"), List.of("2", "1"), List.of("3", "0"));

        // a where on the elements of a collection through a join table: squeaky toys per kid
        emf.runInTransaction(em -> {
            Kid[] kids = {new Kid(), new Kid()};
            kids[0].id = 1L;
            kids[1].id = 3L;
            for (long i = 1; i <= 2; i++) {
                Toy toy = new Toy();
                toy.id = i;
                toy.squeaky = i == 1;
                em.persist(toy);
                kids[0].toys.add(toy);
                kids[1].toys.add(toy);
            }
            em.persist(kids[0]);
            em.persist(kids[1]);
        });
        db.execute("UPDATE toy SET squeaky = true WHERE id = 2");
        while (db.queryLong("SELECT countercache.rollup(1000)") > 0) {
            // until the queue is empty
        }
        assertThat(db.queryRows("SELECT id, squeakytoys FROM kid ORDER BY id"))
                .containsExactly(List.of("1", "2"), List.of("3", "2"));
        assertThat(db.queryRows("SELECT k.name, d.* FROM countercache.counter k, countercache.drift(k.id) d")).isEmpty();
        assertThat(db.queryRows("SELECT * FROM countercache.installed_problems()")).isEmpty();
    }
}
