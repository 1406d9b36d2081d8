package io.countercache.example.boot;

import com.jayway.jsonpath.JsonPath;
import io.countercache.hibernate.CounterCaches;
import io.countercache.spring.CounterCacheEndpoint;
import io.countercache.spring.CounterCacheHealthIndicator;
import io.countercache.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.persistence.EntityManagerFactory;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;

import org.springframework.core.env.Environment;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter end to end, against real PostgreSQL: Spring Boot's migration tool (Liquibase in {@link ForumIT},
 * Flyway in {@link ForumOnFlywayIT}) installs the schema and the generated counters, Spring Data JPA writes, the
 * worker the starter runs folds the queue, and health, endpoint and metrics tell the state.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
abstract class ForumTests {

    /** Each subclass's own database, handed to Spring Boot as its DataSource. */
    static void database(DynamicPropertyRegistry registry, TestDatabase db) {
        registry.add("spring.datasource.url", db::jdbcUrl);
        registry.add("spring.datasource.username", db::user);
        registry.add("spring.datasource.password", db::password);
    }

    @Autowired
    TopicRepository topics;
    @Autowired
    PostRepository posts;
    @Autowired
    EntityManagerFactory emf;
    @Autowired
    CounterCacheHealthIndicator health;
    @Autowired
    MeterRegistry meters;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    CounterCacheEndpoint endpoint;
    @Autowired
    Environment environment;

    @Test
    void writesThroughSpringDataAreCountedByTheStartersWorker() throws Exception {
        Topic topic = topics.save(new Topic("welcome"));
        posts.save(new Post(topic, "first", true));
        posts.save(new Post(topic, "second", true));
        Post draft = posts.save(new Post(topic, "draft", false));
        try (var em = emf.createEntityManager()) {
            assertThat(CounterCaches.exact(em, Topic.class, "publishedPosts", topic.getId())).isEqualTo(2);
        }
        draft.publish();
        posts.save(draft);
        assertThat(eventually(() -> topics.findById(topic.getId()).orElseThrow().getPublishedPosts(), 3L))
                .as("the column, once the in-process worker has rolled up").isEqualTo(3);
        // a max: the newest published post's time, exact at once, in the column once rolled up
        Instant newest = jdbc.queryForObject("SELECT max(posted_at) FROM post WHERE topic_id = ? AND published",
                java.time.OffsetDateTime.class, topic.getId()).toInstant();
        try (var em = emf.createEntityManager()) {
            assertThat(CounterCaches.exactExtreme(em, Topic.class, "lastPostAt", topic.getId(), Instant.class))
                    .isEqualTo(newest);
        }
        assertThat(eventuallyEqual(() -> topics.findById(topic.getId()).orElseThrow().getLastPostAt(), newest))
                .isEqualTo(newest);

        assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
        assertThat(health.health(true).getDetails()).containsEntry("deadLetters", 0L);
        jdbc.update("INSERT INTO countercache.dead_letter (counter_id, target_id, delta, deltas, first_enqueued_at,"
                + " sqlstate, error) SELECT k.id, 1, 1, 1, now(), '22003', 'out of range' FROM countercache.counter k"
                + " WHERE k.name = 'public.topic.published_posts'");
        assertThat(health.health(true).getStatus()).isEqualTo(Status.DOWN);
        assertThat(endpoint.verify("public.topic.published_posts")).containsEntry("exact", false)
                .containsEntry("deadLetters", 1L);
        jdbc.update("DELETE FROM countercache.dead_letter");

        // the actuator endpoint: each counter's state, and a verify of one
        assertThat(endpoint.counters()).hasSize(2).anySatisfy(c -> {
            assertThat(c).containsEntry("counter", "public.topic.published_posts").containsEntry("strategy", "queue")
                    .containsEntry("deadLetters", 0L).containsEntry("triggersInstalled", true);
        });
        assertThat(endpoint.verify("public.topic.published_posts")).containsEntry("exact", true)
                .containsEntry("deadLetters", 0L);
        assertThat(endpoint.verify("public.topic.last_post_at")).containsEntry("exact", true);
        jdbc.update("UPDATE topic SET published_posts = published_posts + 5 WHERE id = ?", topic.getId());
        assertThat(endpoint.verify("public.topic.published_posts")).containsEntry("exact", false)
                .extracting(r -> r.get("drift")).asList().singleElement().asString().contains("stored=8");
        jdbc.update("UPDATE topic SET published_posts = published_posts - 5 WHERE id = ?", topic.getId());
        assertThat(endpoint.verify("public.topic.nothing")).containsKey("error");

        assertThat(meters.find("countercache.deltas.applied").functionCounter()).isNotNull();
        assertThat(meters.get("countercache.deltas.applied").functionCounter().count()).isPositive();
        // the web API: posts admitted by the topic's limit, a 429 past it, the counter read as a property
        long id = Long.parseLong(http("POST", "/topics?title=api", 200).replaceAll(".*\"id\":(\\d+).*", "$1"));
        jdbc.queryForList("SELECT countercache.set_key_limit('posts_per_topic', ?, 2)", Long.toString(id));
        http("POST", "/topics/" + id + "/posts?body=a", 201);
        http("POST", "/topics/" + id + "/posts?body=b", 201);
        assertThat(http("POST", "/topics/" + id + "/posts?body=c", 429)).contains("\"limit\":2");
        assertThat(eventually(() -> topics.findById(id).orElseThrow().getPublishedPosts(), 2L)).isEqualTo(2);
        assertThat(http("GET", "/topics/" + id, 200)).contains("\"publishedPosts\":2");

        // every series the Grafana dashboard (docs/grafana) reads is in the Prometheus scrape of this application,
        // at the path the README gives Prometheus
        String scrape = http("GET", "/actuator/prometheus", 200);
        String dashboard = Files.readString(Path.of("../docs/grafana/countercache-dashboard.json"));
        Set<String> series = new TreeSet<>();
        Matcher m = Pattern.compile("countercache_[a-z_]+").matcher(dashboard);
        while (m.find()) {
            series.add(m.group());
        }
        assertThat(series).as("series the dashboard reads").hasSizeGreaterThanOrEqualTo(8)
                .allSatisfy(name -> assertThat(scrape).as("the scrape").containsPattern("(?m)^" + name + "[{ ]"));

        assertThat(new ClassPathResource("META-INF/spring-configuration-metadata.json")
                .getContentAsString(StandardCharsets.UTF_8))
                .as("IDEs complete countercache.* from the starter's metadata")
                .contains("countercache.worker.enabled", "countercache.health.max-lag");
    }

    /** The health component as an operator reaches it: over HTTP, with the properties the README gives. */
    @Test
    void theHealthComponentAnswersOverHttpWithItsDetails() throws Exception {
        Map<String, Object> health = JsonPath.read(http("GET", "/actuator/health/countercache", 200), "$");
        assertThat(health).containsEntry("status", "UP").extractingByKey("details", as(InstanceOfAssertFactories.MAP))
                .containsKeys("pending", "oldestPendingSeconds").containsEntry("deadLetters", 0);
    }

    /** The endpoint over HTTP: each counter's state once the worker has applied the writes, and a verify of one. */
    @Test
    void theEndpointListsEachCounterAndVerifiesOneOverHttp() throws Exception {
        Topic topic = topics.save(new Topic("over http"));
        posts.save(new Post(topic, "first", true));
        posts.save(new Post(topic, "second", true));
        assertThat(eventually(() -> topics.findById(topic.getId()).orElseThrow().getPublishedPosts(), 2L)).isEqualTo(2);

        String counter = "public.topic.published_posts";
        assertThat(counterOverHttp(counter)).as("once the column shows every write")
                .containsKeys("declaredBy", "oldestPendingSeconds", "recountTargets", "triggersInstalled")
                .containsEntry("strategy", "queue").containsEntry("pending", 0).containsEntry("deadLetters", 0)
                .containsEntry("recounting", false);
        jdbc.update("INSERT INTO countercache.dead_letter (counter_id, target_id, delta, deltas, first_enqueued_at,"
                + " sqlstate, error) SELECT c.id, ?, 1, 1, now(), '22003', 'out of range' FROM countercache.counters() c"
                + " WHERE c.name = ?", topic.getId(), counter);
        assertThat(counterOverHttp(counter)).containsEntry("deadLetters", 1);
        jdbc.update("DELETE FROM countercache.dead_letter");

        assertThat(http("POST", "/actuator/countercache/" + counter, 200))
                .contains("\"counter\":\"" + counter + "\"", "\"exact\":true", "\"drift\":[]");
        jdbc.update("UPDATE topic SET published_posts = published_posts + 5 WHERE id = ?", topic.getId());
        assertThat(http("POST", "/actuator/countercache/" + counter, 200)).contains("\"exact\":false", "\"stored\":7");
        jdbc.update("UPDATE topic SET published_posts = published_posts - 5 WHERE id = ?", topic.getId());
    }

    /** One counter's row of GET /actuator/countercache. */
    private Map<String, Object> counterOverHttp(String name) throws Exception {
        List<Map<String, Object>> found = JsonPath.read(http("GET", "/actuator/countercache", 200),
                "$[?(@.counter == '" + name + "')]");
        assertThat(found).as(name).hasSize(1);
        return found.get(0);
    }

    /** The body of a request to this application, which must answer with this status. */
    String http(String method, String path, int status) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        "http://localhost:" + environment.getProperty("local.server.port") + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isEqualTo(status);
        return response.body();
    }

    /** Polls until the value equals what is expected, for at most 30 s. */
    private static <T> T eventuallyEqual(java.util.function.Supplier<T> value, T expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        T v = value.get();
        while (!java.util.Objects.equals(v, expected) && System.nanoTime() < deadline) {
            Thread.sleep(20);
            v = value.get();
        }
        return v;
    }

    /** Polls until the value is what is expected (the worker runs on its own thread), for at most 30 s. */
    private static long eventually(java.util.function.LongSupplier value, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long v = value.getAsLong();
        while (v != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
            v = value.getAsLong();
        }
        return v;
    }
}
