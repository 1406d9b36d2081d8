-- Version 10: a counter of a target whose key has two columns of integers (an @IdClass or @EmbeddedId as (tenant_id,
-- id)): target_parts are those two columns, which the library packs into target_key (keys.sql), and source_parts the
-- source's two foreign key columns that point at them, the first being source_fk. NULL for every other counter, as for
-- every counter installed before.
ALTER TABLE countercache.counter
    ADD COLUMN target_parts name[] CHECK (target_parts IS NULL OR pg_catalog.cardinality(target_parts) OPERATOR(pg_catalog.=) 2),
    ADD COLUMN source_parts name[] CHECK (source_parts IS NULL OR pg_catalog.cardinality(source_parts) OPERATOR(pg_catalog.=) 2);
