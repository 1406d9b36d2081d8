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
        assertThat(Settings.of(Map.of()).workerThreads()).isEqualTo(1);
    }
}
