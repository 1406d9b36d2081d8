package io.countercache.example.boot;

import io.countercache.CounterCache;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;

@Entity
public class Topic {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    Long id;

    String title;

    /** Column published_posts: Spring Boot's naming strategy, which the Maven plugin applies too. */
    @CounterCache(source = Post.class, via = "topic", where = "published")
    long publishedPosts;

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
}
