package io.countercache.example.boot;

import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;

import java.time.Instant;

@Entity
public class Post {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    Long id;

    @ManyToOne(fetch = FetchType.LAZY)
    Topic topic;

    String body;

    boolean published;

    Instant postedAt = Instant.now();

    protected Post() {
    }

    public Post(Topic topic, String body, boolean published) {
        this.topic = topic;
        this.body = body;
        this.published = published;
    }

    public void publish() {
        this.published = true;
    }
}
