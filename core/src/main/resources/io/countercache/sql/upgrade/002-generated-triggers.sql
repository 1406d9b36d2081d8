-- Version 2: trigger functions are generated in the database from the catalog (install_triggers); a counter is
-- defined by its catalog row (define_counter(jsonb), counter_problems(counter)), which now records the column's
-- declared type; and the schema's version is a number (installed_version, schema_digest) where version 1 had a digest
-- named schema_version; limit and recount locks are row locks, so limit_lock goes.
ALTER TABLE countercache.counter ADD COLUMN column_type text;
UPDATE countercache.counter k
   SET column_type = coalesce((SELECT pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a
                                WHERE a.attrelid OPERATOR(pg_catalog.=) pg_catalog.to_regclass(
                                          pg_catalog.format('%I.%I', k.target_schema, k.target_table))
                                  AND a.attname OPERATOR(pg_catalog.=) k.target_column AND NOT a.attisdropped),
                              'bigint');
ALTER TABLE countercache.counter ALTER COLUMN column_type SET NOT NULL;
DROP FUNCTION IF EXISTS countercache.schema_version();
DROP FUNCTION IF EXISTS countercache.define_counter(integer, text, text, name, name, name, text, name, text, name, name,
                                                    name, text, name, text, integer, text, name, name, name, text,
                                                    name, integer);
DROP FUNCTION IF EXISTS countercache.counter_problems(text, name, name, name, text, name, text, name, name, name, text,
                                                      name, text, integer, name, name, name, text, name, integer);
DROP FUNCTION IF EXISTS countercache.limit_lock(text, text);
