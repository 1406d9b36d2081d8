package io.countercache.example;

import io.countercache.CounterCache;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "blog")
public class Blog {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    Long id;

    String name;

    /** The comments on all of the blog's articles: a comment counts for the blog of its article. */
    @Column(name = "total_comments")
    @CounterCache(source = Comment.class, via = "article.blog")
    long totalComments;

    protected Blog() {
    }

    Blog(String name) {
        this.name = name;
    }
}
