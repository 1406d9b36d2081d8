package io.countercache.example.boot;

import io.countercache.Limits;
import io.countercache.hibernate.CounterCaches;
import jakarta.persistence.EntityManager;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.Map;

/**
 * The forum's web API: a post is admitted by the topic's limit ({@code posts_per_topic}) in the same transaction that
 * saves it, and a topic is read with its counter as an ordinary property.
 */
@RestController
class ForumController {

    private final TopicRepository topics;
    private final PostRepository posts;
    private final EntityManager em;

    ForumController(TopicRepository topics, PostRepository posts, EntityManager em) {
        this.topics = topics;
        this.posts = posts;
        this.em = em;
    }

    @PostMapping("/topics")
    Map<String, Object> create(@RequestParam String title) {
        return view(topics.save(new Topic(title)));
    }

    @GetMapping("/topics/{id}")
    ResponseEntity<Map<String, Object>> read(@PathVariable long id) {
        return ResponseEntity.of(topics.findById(id).map(ForumController::view));
    }

    @PostMapping("/topics/{id}/posts")
    @Transactional
    ResponseEntity<Map<String, Object>> post(@PathVariable long id, @RequestParam String body,
                                             @RequestParam(defaultValue = "true") boolean published) {
        Limits.Admission admission = CounterCaches.admit(em, "posts_per_topic", id);
        if (!admission.admitted()) {
            return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                    .body(Map.of("limit", admission.limit(), "periodStart", admission.periodStart().toString()));
        }
        Post post = posts.save(new Post(topics.getReferenceById(id), body, published));
        return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("id", post.id));
    }

    private static Map<String, Object> view(Topic t) {
        return Map.of("id", t.getId(), "title", t.title, "publishedPosts", t.getPublishedPosts());
    }
}
