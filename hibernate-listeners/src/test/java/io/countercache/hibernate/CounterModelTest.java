package io.countercache.hibernate;

import io.countercache.hibernate.internal.CounterModel;
import io.countercache.hibernate.spi.EntityModel;
import io.countercache.CounterCacheException;
import io.countercache.Strategy;
import io.countercache.spi.CounterDefinition;
import io.countercache.spi.KeyType;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

class CounterModelTest {

    @Test
    void namesAreTheOnesHibernateMapsToIncludingQuotedTablesAndJoinColumns() {
        List<CounterDefinition> defs = EntityModel.counters(List.of(Post.class, Remark.class), Map.of());
        assertThat(defs).extracting(CounterDefinition::name).containsExactly(
                "public.Posts.remarkcount", "public.Posts.totalscore", "public.Posts.visible_remarks");
        CounterDefinition visible = defs.get(2);
        assertThat(visible.declaredBy()).isEqualTo("Post.visibleRemarks");
        assertThat(visible.source().toString()).isEqualTo("public.remark");
        assertThat(visible.sourceFk()).isEqualTo("post_ref");
        assertThat(visible.keyType()).isEqualTo(KeyType.BIGINT);
        assertThat(visible.columnType()).isEqualTo("integer");
        assertThat(visible.condition()).isEqualTo("status = 'visible'");
        assertThat(defs.get(1).sumColumn()).isEqualTo("score");
        assertThat(visible.touchColumn()).isEqualTo("remarkedat");
    }

    @Test
    void theTablesTheBootCheckOwnsIncludeJoinTablesWhichHoldCountsPerLink() {
        assertThat(CounterModel.fromModel(List.of(Owner.class, Pet.class, Club.class, Kid.class, Toy.class), Map.of(),
                CounterModel::mappedTables)).extracting(Object::toString)
                .containsExactly("public.club", "public.kid", "public.kid_toy", "public.owner", "public.owner_club",
                        "public.pet", "public.toy");
    }

    @Test
    void aNamingStrategyAndADefaultSchemaAreHonoured() {
        List<CounterDefinition> defs = EntityModel.counters(List.of(Post.class, Remark.class), Map.of(
                "hibernate.physical_naming_strategy", "org.hibernate.boot.model.naming.PhysicalNamingStrategySnakeCaseImpl",
                "hibernate.default_schema", "blog"));
        assertThat(defs).extracting(CounterDefinition::name).containsExactly(
                "blog.Posts.remark_count", "blog.Posts.total_score", "blog.Posts.visible_remarks");
    }

    @Test
    void aCounterTakesItsOwnStrategyElseTheSetting() {
        assertThat(EntityModel.counters(List.of(Post.class, Remark.class), Map.of()))
                .extracting(CounterDefinition::strategy, CounterDefinition::slots)
                .containsExactly(tuple(Strategy.QUEUE, 0), tuple(Strategy.SLOTTED, 8), tuple(Strategy.QUEUE, 0));
        assertThat(EntityModel.counters(List.of(Post.class, Remark.class), Map.of("countercache.strategy", "Direct")))
                .extracting(CounterDefinition::strategy)
                .containsExactly(Strategy.DIRECT, Strategy.SLOTTED, Strategy.DIRECT);
        assertThatThrownBy(() -> EntityModel.counters(List.of(Post.class, Remark.class),
                Map.of("countercache.strategy", "fast")))
                .hasMessage("setting countercache.strategy = \"fast\" must be queue, unlogged, direct or slotted");
    }

    @Test
    void aCollectionCounterOrATouchThatCannotWorkSaysWhyAndWhatToDo() {
        assertThatThrownBy(() -> EntityModel.counters(List.of(Kennel.class, Pet.class), Map.of()))
                .hasMessageContaining("7 @CounterCache problems")
                .hasMessageContaining("@CounterCache on Kennel.touchesText: touch = \"label\" is String; touch a"
                        + " timestamp attribute (Instant, OffsetDateTime, LocalDateTime) that no counter keeps")
                .hasMessageContaining("@CounterCache on Kennel.touchesNothing: touch = \"touchedAt\" is not an"
                        + " attribute of Kennel; name its timestamp attribute (touch = \"updatedAt\")")
                .hasMessageContaining("@CounterCache on Kennel.pointingBack: via = \"kennel\" is not a many-to-one of Pet"
                        + " pointing to Kennel; Pet has none; Kennel maps the relation itself: count its collection with"
                        + " collection = \"residents\" instead of source and via")
                .hasMessageContaining("@CounterCache on Kennel.dogs: collection = \"dogs\" is not a collection of Kennel;"
                        + " Kennel has [residents]")
                .hasMessageContaining("@CounterCache on Kennel.residentIds: collection = \"residents\" goes through the"
                        + " join table public.kennel_pet, which holds links, not the elements' columns; count it without"
                        + " sum, or map the collection with a join column (@JoinColumn) or count from the element entity"
                        + " with source and via")
                .hasMessageContaining("@CounterCache on Kennel.both: collection = \"residents\" names what is counted;"
                        + " leave out source and via")
                .hasMessageContaining("@CounterCache on Kennel.nothing: name what is counted: source and via (source ="
                        + " Comment.class, via = \"article\"), or a collection of Kennel (collection = \"comments\")");
    }

    @Test
    void aSoftDeletedSourceCountsItsLiveRowsAndItsLinksAndACounterInAnEmbeddableAreRefused() {
        assertThat(EntityModel.counters(List.of(Journal.class, Entry.class, Draft.class, Memo.class, Section.class,
                Line.class), Map.of()).stream().map(d -> d.target() + "." + d.column() + ": " + d.condition()))
                .containsExactlyInAnyOrder("public.journal.entries: \"deleted\" = false",
                        "public.journal.drafts: \"active\" = 'Y'", "public.journal.memos: archived = false",
                        "public.section.countercache_journal__lines: null",   // each section's lines, deleted or not
                        "public.journal.lines: \"deleted\" = false");   // the sums of the live sections' lines
        assertThatThrownBy(() -> EntityModel.counters(List.of(Ledger.class, Entry.class, Journal.class, Section.class,
                Line.class), Map.of()))
                .hasMessageContaining("@CounterCache on Ledger.totals.entries: a counter inside an @Embeddable (Totals)"
                        + " is never counted; declare it on Ledger itself");
        assertThatThrownBy(() -> EntityModel.counters(List.of(Binder.class, Entry.class, Journal.class, Section.class,
                Line.class), Map.of()))
                .hasMessageContaining("@CounterCache on Binder.entryCount: \"entries\" counts the links of a join table"
                        + " to Entry, whose rows Hibernate hides (@SoftDelete or @SQLRestriction) while their links stay");
    }

    @Test
    void eachKindOfHierarchyCountsTheRowsOfItsClassAndTheRestAreRefusedWithTheFix() {
        assertThat(EntityModel.counters(List.of(Desk.class, Feedback.class, Praise.class, Urgent.class, Task.class,
                        Ticket.class, Duty.class, Chore.class, Shift.class), Map.of()))
                .extracting(CounterDefinition::declaredBy, d -> d.source().toString(), CounterDefinition::sourceFk,
                        CounterDefinition::condition)
                .containsExactlyInAnyOrder(
                        tuple("Desk.feedback", "public.feedback", "desk_id", null),
                        tuple("Desk.praise", "public.feedback", "desk_id", "\"dtype\" IN ('Praise', 'it''s urgent')"),
                        tuple("Desk.openPraise", "public.feedback", "desk_id",
                                "\"dtype\" IN ('Praise', 'it''s urgent') AND CASE WHEN true THEN (open) END"),
                        tuple("Desk.urgent", "public.feedback", "desk_id", "\"dtype\" IN ('it''s urgent')"),
                        tuple("Desk.tasks", "public.task", "desk_id", null),
                        tuple("Desk.tickets", "public.ticket", "queue_id", null),
                        tuple("Desk.chores", "public.chore", "desk_id", null),
                        // an abstract TABLE_PER_CLASS class: its concrete classes' tables (moreTables holds shift)
                        tuple("Desk.duties", "public.chore", "desk_id", null),
                        tuple("Desk.urgentDuties", "public.chore", "desk_id", "urgent"));
        assertThat(EntityModel.counters(List.of(Desk.class, Feedback.class, Praise.class, Urgent.class, Task.class,
                        Ticket.class, Duty.class, Chore.class, Shift.class), Map.of()))
                .filteredOn(d -> d.declaredBy().contains("uties")).extracting(CounterDefinition::moreTables)
                .containsOnly(List.of("shift"));
        assertThatThrownBy(() -> EntityModel.counters(List.of(Venue.class, Hall.class, Booking.class), Map.of()))
                .as("a TABLE_PER_CLASS target").hasMessageContaining("@CounterCache on Venue.bookings: Venue is a"
                        + " TABLE_PER_CLASS class with subclasses, whose instances live in one table per concrete class");
        assertThatThrownBy(() -> EntityModel.counters(List.of(Office.class, Errand.class, Delivery.class, Visit.class,
                Inspection.class), Map.of()))
                .hasMessageContaining("3 @CounterCache problems")
                .hasMessageContaining("@CounterCache on Office.inspectionsListed: collection = \"listedInspections\": the"
                        + " column of office is in table visit, and the rows of Inspection are in inspection (JOINED);"
                        + " count Visit instead, or declare office on Inspection")
                .hasMessageContaining("@CounterCache on Office.lastErrand: source = Errand is a TABLE_PER_CLASS class"
                        + " with subclasses, whose instances live in one table per concrete class, which feed a count or"
                        + " a sum straight through a many-to-one only; declare the max on each concrete class, or map the"
                        + " hierarchy SINGLE_TABLE or JOINED")
                .hasMessageContaining("@CounterCache on Office.inspections: via = \"office\": the column of office is in"
                        + " table visit, and the rows of Inspection are in inspection (JOINED); count Visit instead, or"
                        + " declare office on Inspection");
    }

    @Test
    void everyBadDeclarationIsReportedWithTheFieldAndTheFix() {
        assertThatThrownBy(() -> EntityModel.counters(List.of(Post.class, Remark.class, Broken.class), Map.of()))
                .isInstanceOf(CounterCacheException.class)
                .hasMessageContaining("28 @CounterCache and @CounterLimit problems")
                .hasMessageContaining("@CounterCache on Broken.primitiveMax: the field is long, which cannot be null when"
                        + " no row counts; declare it as Long (boxed)")
                .hasMessageContaining("@CounterCache on Broken.textMax: the field is String; a min or max keeps a Long,"
                        + " Integer, Short, BigDecimal, Instant, OffsetDateTime, LocalDateTime or LocalDate")
                .hasMessageContaining("@CounterCache on Broken.directMax: strategy DIRECT cannot keep a min or max: it is"
                        + " recomputed by the rollup, so that no writer waits for it; use strategy QUEUE or UNLOGGED")
                .hasMessageContaining("@CounterCache on Broken.mismatchedMin: min = \"score\" is Integer and the field is"
                        + " Long; give the field the attribute's type")
                .hasMessageContaining("@CounterCache on Broken.sumAndMax: declare one of sum, min, max and distinct")
                .hasMessageContaining("@CounterCache on Broken.sumAndDistinct: declare one of sum, min, max and distinct")
                .hasMessageContaining("@CounterCache on Broken.distinctWeights: distinct = \"weight\" is Double; count the"
                        + " distinct values of a many-to-one, or of an integer, UUID, String or Boolean attribute")
                .hasMessageContaining("@CounterCache on Broken.unloggedDistinct: strategy UNLOGGED cannot keep a count of"
                        + " distinct values: its values travel through a queue of their own, which only the queue feeds;"
                        + " use strategy QUEUE")
                .hasMessageContaining("@CounterCache on Broken.pathMax: a max along a path is not supported; keep it on"
                        + " quotedPost's entity, straight from the source (via = \"post\" there)")
                .hasMessageContaining("@CounterLimit(name = \"fortnightly\") on Broken: period = \"1 fortnight\"")
                .hasMessageContaining("@CounterCache on Broken.textSum: sum = \"body\" is String; sum an integral or"
                        + " BigDecimal attribute\n")
                .hasMessageContaining("@CounterCache on Broken.centsIntoWholeNumbers: sum = \"price\" has 2 decimal"
                        + " places and the counter keeps 0; declare the counter BigDecimal with @Column(scale = 2) or"
                        + " more, so that no cent is dropped")
                .hasMessageContaining("@CounterCache on Broken.threeSteps: via = \"post.quotedPost.post\" has 3 steps;"
                        + " a count of distinct values may have a path of two")
                .hasMessageContaining("@CounterCache on Broken.floatingSum: sum = \"weight\" is Double; sum an integral"
                        + " or BigDecimal attribute (floating point sums cannot be exact)")
                .hasMessageContaining("@CounterCache on Broken.badPath: \"nothing\" (in via = \"post.nothing\") is not a"
                        + " many-to-one of Post pointing to Broken; Post has none")
                .hasMessageContaining("@CounterCache on Broken.decimalWithoutSum: a BigDecimal counter adds up a numeric"
                        + " column; name it with sum")
                .hasMessageContaining("@CounterCache on Broken.tooFewSlots: slots = 1 must be between 2 and 1024 for"
                        + " strategy SLOTTED")
                .hasMessageContaining("@CounterCache on Broken.badVia: via = \"article\" is not a many-to-one of Remark"
                        + " pointing to Broken; Remark has none")
                .hasMessageContaining("@CounterCache on Broken.notANumber: the field is String; declare it as long or int"
                        + " (or BigDecimal, for the sum of a numeric column)")
                .hasMessageContaining("@CounterCache on Broken.notAnEntity: source = String.class is not an entity")
                .hasMessageContaining("@CounterCache on Broken.slotsWithoutSlotted: slots = 32 is read by strategy"
                        + " SLOTTED only, and this counter's strategy is QUEUE; remove slots, or set strategy ="
                        + " Strategy.SLOTTED")
                .hasMessageContaining("@CounterCache on Broken.zoneWithoutBucket: zone = \"Europe/Paris\" is read by a"
                        + " counter per bucket only; remove zone, or name bucket and period")
                .hasMessageContaining("@CounterCache on Broken.retentionWithoutBucket: retention = 7 is read by a"
                        + " counter per bucket only; remove retention, or name bucket and period")
                .hasMessageContaining("@CounterCache on Broken.bucketWithoutPeriod: a counter per bucket names both"
                        + " bucket, the source's time attribute, and period")
                .hasMessageContaining("@CounterCache on Broken.fortnightlyBucket: period = \"1 fortnight\" is not a whole"
                        + " number of one unit; write it as \"1 hour\"")
                .hasMessageContaining("@CounterCache on Broken.directBucket: strategy DIRECT cannot keep a counter per"
                        + " bucket")
                .hasMessageContaining("@CounterCache on Broken.bucketOfASingleKey: Broken's identifier is not a parent"
                        + " and a period's start; give it two parts with @IdClass or @EmbeddedId: a many-to-one to Post")
                .hasMessageContaining("@CounterCache on Broken.bucketAlongAPath: a counter per bucket counts through one"
                        + " many-to-one of the source, not along a path (via = \"quotedPost.post\"); keep the buckets of"
                        + " the first step (via = \"quotedPost\", on a bucket entity of quotedPost's entity) and sum"
                        + " them along the path in a query, or give the source a many-to-one to the parent");
    }

    @Test
    void aCounterFedBySeveralAssociationsThatCannotWorkSaysWhyAndWhatToDo() {
        assertThatThrownBy(() -> EntityModel.counters(List.of(Team.class, Fixture.class), Map.of()))
                .hasMessageContaining("4 @CounterCache problems")
                .hasMessageContaining("@CounterCache on Team.twice: via = {\"home\", \"home\"} names the column home_id"
                        + " twice; name each association once")
                .hasMessageContaining("@CounterCache on Team.mostGoals: via = {\"home\", \"away\"}: several associations"
                        + " feed a count or a sum of the source's rows; count a max through one association")
                .hasMessageContaining("@CounterCache on Team.perDay: a counter per bucket counts through one association")
                .hasMessageContaining("@CounterCache on Team.refereed: via = \"referee\" is not a many-to-one of Fixture"
                        + " pointing to Team");
    }

    @Test
    void aKeyOfTwoColumnsPairsThemByWhatTheyReferenceAndOneThatCannotBePackedIsRefused() {
        CounterDefinition lines = EntityModel.counters(List.of(Membership.class, Contribution.class), Map.of()).get(1);
        assertThat(lines.declaredBy()).isEqualTo("Membership.linesAdded");
        assertThat(lines.targetKey()).isEqualTo("countercache_key");
        assertThat(lines.sourceFk()).isEqualTo(lines.pair().sourceColumns().get(0));
        assertThat(java.util.stream.IntStream.range(0, 2).mapToObj(i -> lines.pair().targetColumns().get(i) + " <- "
                + lines.pair().sourceColumns().get(i))).containsExactlyInAnyOrder("team <- member_team",
                "number <- member_number");
        assertThatThrownBy(() -> EntityModel.counters(List.of(Crew.class, Crew.Ship.class), Map.of()))
                .hasMessageContaining("@CounterCache on Ship.paidCrews: the links of public.crew_ships keep a where on"
                        + " their ships_id side already (for Crew.bigShips)")
                .hasMessageContaining("count this side's links without where, or map the join table as an entity");
        assertThatThrownBy(() -> EntityModel.counters(List.of(Jetty.class, Jetty.Dinghy.class), Map.of()))
                .hasMessageContaining("@CounterCache on Jetty.dinghies: Jetty has a composite identifier of other parts"
                        + " than two Long, Integer, UUID or String columns; counters need a single-column Long, Integer"
                        + " or UUID identifier, two such columns or Strings (@IdClass or @EmbeddedId), or a bucket");
    }

    @Test
    void aViaThatIsNotAManyToOneToTheTargetListsTheOnesThatAre() {
        assertThatThrownBy(() -> EntityModel.counters(List.of(Shelf.class, Book.class), Map.of()))
                .hasMessage("@CounterCache on Shelf.books: via = \"shelff\" is not a many-to-one of Book pointing to"
                        + " Shelf; Book has [formerShelf, shelf]");
    }
}
