package io.countercache.example;

import io.countercache.CounterCache;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

import java.io.Serializable;
import java.time.LocalDate;

/** An article's public comments on one day in Paris: a counter per bucket, in a row the rollup creates. */
@Entity
@Table(name = "blog_article_day")
@IdClass(ArticleDay.Key.class)
public class ArticleDay {

    /** The identifier: the article's key and the day. */
    public record Key(Long article, LocalDate day) implements Serializable {
    }

    @Id
    @ManyToOne(fetch = FetchType.LAZY)
    @JoinColumn(name = "article_id")
    Article article;

    @Id
    LocalDate day;

    @Column(name = "public_comments")
    @CounterCache(source = Comment.class, via = "article", where = "publish_status = 'public'", bucket = "createdAt",
            period = "1 day", zone = "Europe/Paris")
    long publicComments;

    protected ArticleDay() {
    }
}
