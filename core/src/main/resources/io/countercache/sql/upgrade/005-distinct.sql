-- Version 5: a counter may count the distinct values of a source column (@CounterCache(distinct = ...)). It is a count
-- whose writers queue, per target and value, +1 and -1 in a queue of their own (distinct_delta); the rollup folds them
-- into a count per target and value (distinct_value) and queues +1 or -1 for the target's column only when a value's
-- count leaves or reaches 0. Its ids come from the queue's sequence, so a delta made from them keeps their place.
ALTER TABLE countercache.counter ADD COLUMN distinct_column name;
ALTER TABLE countercache.counter ADD CONSTRAINT counter_distinct_column
    CHECK (distinct_column IS NULL OR (aggregate IS NULL AND sum_column IS NULL));
CREATE TABLE countercache.distinct_delta (
    id          bigint      PRIMARY KEY DEFAULT pg_catalog.nextval('countercache.delta_id_seq'::pg_catalog.regclass),
    counter_id  integer     NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    value       text        NOT NULL,
    delta       bigint      NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
-- How many source rows of each target have each value: a row per target and value that some row counts for (a count
-- of 0 is deleted; one below 0 lasts only while a later round still holds the delta that raises it).
CREATE TABLE countercache.distinct_value (
    counter_id  integer NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    value       text    NOT NULL,
    n           bigint  NOT NULL,
    CONSTRAINT distinct_value_key UNIQUE NULLS NOT DISTINCT (counter_id, target_id, target_uuid, value)
) WITH (fillfactor = 70);
