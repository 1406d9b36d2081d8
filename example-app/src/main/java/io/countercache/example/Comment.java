package io.countercache.example;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

import java.time.Instant;

@Entity
@Table(name = "blog_comment")
public class Comment {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    Long id;

    @ManyToOne(fetch = FetchType.LAZY)
    @JoinColumn(name = "creator_id")
    User creator;

    @ManyToOne(fetch = FetchType.LAZY)
    @JoinColumn(name = "article_id")
    Article article;

    String message;

    @Column(name = "publish_status")
    String publishStatus;

    /** Counted per day by {@link ArticleDay}. */
    @Column(name = "created_at")
    Instant createdAt;

    protected Comment() {
    }

    Comment(User creator, Article article, String message, String publishStatus, Instant createdAt) {
        this.creator = creator;
        this.article = article;
        this.message = message;
        this.publishStatus = publishStatus;
        this.createdAt = createdAt;
    }
}
