-- Version 1: the tables of countercache 0.1 (the catalog, the queues, slots, parked deltas, recount jobs, limits).
-- Runs once, on a database without them. An installation made before schema versions existed is taken to be at
-- version 1 (see version.sql).

-- The catalog: one row per installed counter, so that workers and tools need only a database connection.
CREATE TABLE countercache.counter (
    id              integer     PRIMARY KEY,
    name            text        NOT NULL UNIQUE,   -- schema.table.column of the counter column
    declared_by     text        NOT NULL,          -- Entity.field that declares it, for messages
    target_schema   name        NOT NULL,
    target_table    name        NOT NULL,
    target_key      name        NOT NULL,
    key_type        text        NOT NULL CHECK (key_type OPERATOR(pg_catalog.=) ANY (ARRAY['integer', 'bigint', 'uuid'])),
    target_column   name        NOT NULL,
    source_schema   name        NOT NULL,
    source_table    name        NOT NULL,
    source_fk       name        NOT NULL,
    condition       text,
    sum_column      name,
    strategy        text        NOT NULL DEFAULT 'queue',
    definition_hash text        NOT NULL,
    defined_at      timestamptz NOT NULL DEFAULT pg_catalog.now(),
    slots           integer     NOT NULL DEFAULT 0,    -- slot rows a slotted counter spreads a target over (else 0)
    changelog       text        NOT NULL DEFAULT '',   -- the changelog that installed it: a changelog prunes its own
    -- along a path, source_fk points at via_key of the middle table, whose via_fk points at the target key
    via_schema      name,
    via_table       name,
    via_key         name,
    via_key_type    text,
    via_fk          name,
    scale           integer     NOT NULL DEFAULT 0     -- a numeric sum's decimal places: queued in units of 10^-scale
);

-- The queue. Writers only ever INSERT here, in their own transaction; the rollup deletes what it applies.
-- A row names its counter by id and its target by key: integer and bigint keys in target_id, uuid keys in target_uuid.
CREATE TABLE countercache.delta (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    counter_id  integer     NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    delta       bigint      NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);

-- The unlogged queue, for counters of strategy 'unlogged' (depesz's faster queue): the same rows as the queue, ids
-- from the same sequence, no WAL. A crash or an immediate shutdown empties it, and with it unlogged_marker; the first
-- rollup after that notices the missing marker and recounts those counters (see check_unlogged_queue).
CREATE UNLOGGED TABLE countercache.delta_unlogged (
    id          bigint      PRIMARY KEY DEFAULT pg_catalog.nextval('countercache.delta_id_seq'::pg_catalog.regclass),
    counter_id  integer     NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    delta       bigint      NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
CREATE UNLOGGED TABLE countercache.unlogged_marker (
    since timestamptz NOT NULL DEFAULT pg_catalog.now()
);
-- Until a counter uses the unlogged queue, a crash can take nothing from it: the marker is set without a recount.
INSERT INTO countercache.unlogged_marker
SELECT WHERE NOT EXISTS (SELECT FROM countercache.unlogged_marker)
         AND NOT EXISTS (SELECT FROM countercache.counter k WHERE k.strategy OPERATOR(pg_catalog.=) 'unlogged');

-- Slot rows, for counters of strategy 'slotted' (GitHub's slotted counters, Tobias Petry's fanout): a writer adds
-- its delta to one of the target's N slots, one no other transaction holds if it can; the rollup moves non-zero slots
-- to the queue and zeroes them. fillfactor leaves room for those updates to stay HOT.
CREATE TABLE countercache.slot (
    counter_id  integer  NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    slot        smallint NOT NULL,
    n           bigint   NOT NULL,
    CONSTRAINT slot_key UNIQUE NULLS NOT DISTINCT (counter_id, target_id, target_uuid, slot)
) WITH (fillfactor = 50);

-- Deltas that cannot be applied (the new value overflows the column, breaks a CHECK constraint, fails a trigger of
-- the target table): parked here with the error instead of blocking the queue. Nothing is dropped silently.
CREATE TABLE countercache.dead_letter (
    id                bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    counter_id        integer     NOT NULL,
    target_id         bigint,
    target_uuid       uuid,
    delta             bigint      NOT NULL,
    deltas            bigint      NOT NULL,   -- how many queued deltas were folded into delta
    first_enqueued_at timestamptz NOT NULL,
    failed_at         timestamptz NOT NULL DEFAULT pg_catalog.now(),
    sqlstate          text        NOT NULL,
    error             text        NOT NULL
);

-- Deltas whose target row does not exist: a deleted target's leftovers, or rows that point at a key no target row
-- has yet. Parked here rather than dropped, so that the sum of a key's column, queue, dead letters and orphans always
-- equals its recount; the rollup moves them back to the queue once a row with that key exists.
CREATE TABLE countercache.orphan (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    counter_id  integer     NOT NULL,
    target_id   bigint,
    target_uuid uuid,
    delta       bigint      NOT NULL,
    enqueued_at timestamptz NOT NULL
);

-- Recounts in progress, one row per counter: the last target key done, so that a recount in batches can stop and
-- resume, and how far it has come.
CREATE TABLE countercache.recount_job (
    counter_id   integer     PRIMARY KEY,
    after_key    text,                          -- the last target key done; NULL before the first batch
    targets      bigint      NOT NULL DEFAULT 0, -- target rows checked so far
    corrected    bigint      NOT NULL DEFAULT 0, -- keys whose value needed a correction
    requested_at timestamptz NOT NULL DEFAULT pg_catalog.now(),
    updated_at   timestamptz
);


-- Limit counters (Cybertec's "concurrent counting"): at most N admissions per key per period, exactly, under any
-- concurrency. One row per limit, key and period counts what was admitted and what was attempted; an admission is
-- one INSERT ... ON CONFLICT DO UPDATE of that row, so it locks that row only and different keys never wait for each
-- other. The limit in force is read after a shared advisory lock that a change of the limit takes exclusively, so an
-- admission either sees a committed change or the change waits for it: every admission is judged against the limit in
-- force when it is made, and the count it checks is the locked row's latest.
CREATE TABLE countercache.limit_def (
    name            text        PRIMARY KEY,
    period          interval    NOT NULL CHECK (period OPERATOR(pg_catalog.>) interval '0'),
    time_zone       text        NOT NULL DEFAULT 'UTC',
    default_limit   bigint      NOT NULL CHECK (default_limit OPERATOR(pg_catalog.>=) 0),
    retention       integer     NOT NULL DEFAULT 2 CHECK (retention OPERATOR(pg_catalog.>=) 1),   -- past periods kept, besides the current one
    declared_by     text,
    definition_hash text,
    defined_at      timestamptz NOT NULL DEFAULT pg_catalog.now(),
    changelog       text        NOT NULL DEFAULT ''
);

-- Limits of single keys that differ from the default, each for a time range; no two ranges of one key overlap.
CREATE TABLE countercache.limit_key (
    limit_name text      NOT NULL REFERENCES countercache.limit_def (name) ON DELETE CASCADE,
    key        text      NOT NULL,
    max_admits bigint    NOT NULL CHECK (max_admits OPERATOR(pg_catalog.>=) 0),
    valid      tstzrange NOT NULL CHECK (NOT pg_catalog.isempty(valid)),
    PRIMARY KEY (limit_name, key, valid)
);

-- The counts: fillfactor leaves room on each page for the updates of a row to stay HOT.
CREATE TABLE countercache.limit_usage (
    limit_name    text        NOT NULL,
    key           text        NOT NULL,
    period_start  timestamptz NOT NULL,
    admitted      bigint      NOT NULL,
    attempted     bigint      NOT NULL,
    last_admitted boolean     NOT NULL,   -- whether the latest attempt was admitted
    max_admits    bigint      NOT NULL,   -- the limit the latest attempt was judged against
    PRIMARY KEY (limit_name, key, period_start)
) WITH (fillfactor = 70);
