package io.countercache.example.boot;

import io.countercache.CounterCache;
import io.countercache.CounterLimit;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;

import java.time.Instant;

/** A topic of the forum; at most 600 posts a minute each ({@code posts_per_topic}, see ForumController). */
@Entity
@CounterLimit(name = "posts_per_topic", period = "1 minute", limit = 600)
public class Topic {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    Long id;

    String title;

    /** Column published_posts: Spring Boot's naming strategy, which the Maven plugin applies too. */
    @CounterCache(source = Post.class, via = "topic", where = "published")
    long publishedPosts;

    /** The newest published post's time, NULL until there is one: a max, recomputed by the rollup. */
    @CounterCache(source = Post.class, via = "topic", where = "published", max = "postedAt")
    Instant lastPostAt;

    protected Topic() {
    }

    public Topic(String title) {
        this.title = title;
    }

    public Long getId() {
        return id;
    }

    public long getPublishedPosts() {
        return publishedPosts;
    }

    public Instant getLastPostAt() {
        return lastPostAt;
    }
}
