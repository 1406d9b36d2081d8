package io.countercache.example;

import io.countercache.CounterCache;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

import java.time.Instant;

@Entity
@Table(name = "blog_article")
public class Article {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    Long id;

    String content;

    @ManyToOne(fetch = FetchType.LAZY)
    @JoinColumn(name = "blog_id")
    Blog blog;

    @Column(name = "total_comments")
    @CounterCache(source = Comment.class, via = "article")
    long totalComments;

    @Column(name = "total_public_comments")
    @CounterCache(source = Comment.class, via = "article", where = "publish_status = 'public'", touch = "updatedAt")
    long totalPublicComments;

    /** When the public comments last changed; only the counter sets it. */
    @Column(name = "updated_at", insertable = false, updatable = false)
    Instant updatedAt;

    @Column(name = "public_commenters")
    @CounterCache(source = Comment.class, via = "article", where = "publish_status = 'public'", distinct = "creator")
    long publicCommenters;

    protected Article() {
    }

    Article(String content, Blog blog) {
        this.content = content;
        this.blog = blog;
    }
}
