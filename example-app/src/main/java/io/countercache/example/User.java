package io.countercache.example;

import io.countercache.CounterCache;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "blog_user")
public class User {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    Long id;

    String username;

    @Column(name = "total_public_comments")
    @CounterCache(source = Comment.class, via = "creator", where = "publish_status = 'public'")
    long totalPublicComments;

    protected User() {
    }

    User(String username) {
        this.username = username;
    }
}
