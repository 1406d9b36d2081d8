#!/usr/bin/env bash
# Renders docs/grafana/dashboard.png: the dashboard's panels over a real run of the Spring Boot example, scraped by a
# real Prometheus. No Grafana runs here, so render.html draws each panel of countercache-dashboard.json (its title,
# place and PromQL, read from the JSON) from Prometheus's query_range API with uPlot, and headless Chromium shoots it.
#
# Needs: a PostgreSQL database for the example (PG* variables, and JDBC_URL), prometheus and chromium (Debian's
# packages), npm (for uPlot), the example built (mvn -pl example-spring-boot -am package -DskipTests).
# The run, about four minutes: steady posts through the web API; a bulk insert in SQL; the topic table locked for
# 40 s (the queue backs up, the oldest delta ages); the worker's session terminated (failed
# rounds); a topic over its limit (429s); a CHECK that refuses a counter (dead letters), then dropped and
# the counter recounted (which clears its dead letters).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd); work=$(mktemp -d)
: "${JDBC_URL:?the JDBC URL of the database for the example}"
app=http://localhost:8080
cd "$root/example-spring-boot"
mvn -B -q dependency:build-classpath -Dmdep.outputFile="$work/cp" >/dev/null
java -cp "target/classes:$(cat "$work/cp")" io.countercache.example.boot.ForumApplication \
    --spring.datasource.url="$JDBC_URL" --spring.datasource.username="$PGUSER" \
    --spring.datasource.password="${PGPASSWORD:-}" > "$work/app.log" 2>&1 &
pids=($!)
cat > "$work/prometheus.yml" <<YML
global: {scrape_interval: 2s}
scrape_configs:
  - job_name: forum
    metrics_path: /actuator/prometheus
    static_configs: [{targets: ['localhost:8080']}]
YML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" --web.listen-address=:9090 \
    > "$work/prometheus.log" 2>&1 &
pids+=($!)
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
until curl -sf "$app/actuator/health" >/dev/null; do sleep 1; done
start=$(date +%s)
for i in $(seq 1 20); do curl -sf -X POST "$app/topics?title=t$i" >/dev/null; done
post() { curl -s -o /dev/null -X POST "$app/topics/$1/posts?body=x"; }
( while true; do post $((RANDOM % 20 + 1)); sleep 0.05; done ) & pids+=($!)
sql() { psql -qAtX -v ON_ERROR_STOP=1 -c "$1" >/dev/null; }
counter=$(psql -qAtX -c "SELECT id FROM countercache.counter WHERE name = 'public.topic.published_posts'")
sleep 40
sql "INSERT INTO post (topic_id, body, published) SELECT 1 + i % 20, 'bulk', i % 3 > 0 FROM generate_series(1, 300000) i"
sql "INSERT INTO topic (title) SELECT 'quiet' FROM generate_series(1, 1000000)"   # for the recount to walk
sleep 30
( psql -qAtX -c "BEGIN; LOCK TABLE topic IN SHARE ROW EXCLUSIVE MODE; SELECT pg_sleep(40); COMMIT" >/dev/null ) &
sleep 45
for n in 1 2 3; do
    sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND query LIKE '%countercache.%' AND query NOT LIKE '%pg_terminate_backend%'"
    sleep 5
done
sql "SELECT countercache.set_key_limit('posts_per_topic', '7', 100)"
for n in $(seq 1 400); do post 7; done
at=$(psql -qAtX -c "SELECT published_posts FROM topic WHERE id = 3")
sql "ALTER TABLE topic ADD CONSTRAINT at_most CHECK (id <> 3 OR published_posts <= $at)"   # topic 3 is full
sleep 30
sql "ALTER TABLE topic DROP CONSTRAINT at_most"
sql "SELECT countercache.request_recount($counter)"
sleep 30
end=$(date +%s)
cd "$work" && npm install --silent --no-save uplot@1 >/dev/null
cp "$here/render.html" "$here/countercache-dashboard.json" "$work/"
cp node_modules/uplot/dist/uPlot.iife.min.js node_modules/uplot/dist/uPlot.min.css "$work/"
python3 -m http.server 8099 --directory "$work" > /dev/null 2>&1 & pids+=($!)
sleep 1
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$work/chromium" --hide-scrollbars \
    --window-size=1600,1010 --virtual-time-budget=10000 --screenshot="$here/dashboard.png" \
    "http://localhost:8099/render.html?start=$start&end=$end" 2>/dev/null
echo "wrote $here/dashboard.png ($((end - start)) s of run)"
