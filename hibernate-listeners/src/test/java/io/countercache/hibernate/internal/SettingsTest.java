package io.countercache.hibernate.internal;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A bad setting fails the boot naming the setting and what it must be (docs/errors.md). */
class SettingsTest {

    @Test
    void eachKindOfBadValueNamesTheSettingAndWhatItMustBe() {
        assertThatThrownBy(() -> Settings.of(Map.of("countercache.worker.threads", "x")))
                .hasMessage("setting countercache.worker.threads = \"x\" must be a whole number of at least 1");
        assertThatThrownBy(() -> Settings.of(Map.of("countercache.worker.enabled", "yes")))
                .hasMessage("setting countercache.worker.enabled = \"yes\" must be true or false");
        assertThatThrownBy(() -> Settings.of(Map.of("countercache.validation", "maybe")))
                .hasMessage("setting countercache.validation = \"maybe\" must be fail, warn or none");
        assertThatThrownBy(() -> Settings.of(Map.of("countercache.worker.poll_interval", "60000")))
                .hasMessage("setting countercache.worker.max_backoff = 30000 must be at least"
                        + " countercache.worker.poll_interval = 60000: the worker waits at least a poll interval between retries");
        assertThat(Settings.of(Map.of()).workerThreads()).isEqualTo(1);
        assertThat(Settings.of(Map.of("countercache.worker.shutdown_timeout", "0")).shutdownTimeout())
                .as("cancel at once").isZero();
    }
}
