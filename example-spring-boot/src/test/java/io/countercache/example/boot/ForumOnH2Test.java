package io.countercache.example.boot;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a team that tests on H2 gets: the application boots and writes as before, with no counting and no workers,
 * and its health stays UP; the countercache component says UNKNOWN and why.
 */
@SpringBootTest(properties = {
        "spring.datasource.url=jdbc:h2:mem:forum;DB_CLOSE_DELAY=-1",
        "spring.liquibase.enabled=false",
        "spring.jpa.hibernate.ddl-auto=create-drop"})
class ForumOnH2Test {

    @Autowired
    TopicRepository topics;
    @Autowired
    PostRepository posts;
    @Autowired
    HealthEndpoint health;

    @Test
    void theApplicationBootsWritesAndStaysHealthyWithoutCounting() {
        Topic topic = topics.save(new Topic("welcome"));
        posts.save(new Post(topic, "first", true));
        assertThat(posts.count()).isEqualTo(1);
        assertThat(topics.findById(topic.getId()).orElseThrow().getPublishedPosts()).as("nothing counts on H2").isZero();

        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        var countercache = health.healthForPath("countercache");
        assertThat(countercache.getStatus()).isEqualTo(Status.UNKNOWN);
        assertThat(countercache).extracting("details").asString()
                .contains("the database is H2, not PostgreSQL: countercache keeps no counters here");
    }
}
