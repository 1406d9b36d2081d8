-- Packed keys: a target key of two parts kept as one uuid. The queue, the orphans, the dead letters, the slots, the
-- target triggers, the recount and drift name a target row by one key, so a target whose rows are keyed by two parts
-- gets a generated column of the library's (countercache_key, with a unique index) that packs them: the first part in
-- the high 64 bits (two's complement), the second in the low 64. The catalog row's target key is that column and its
-- key type uuid, and every subsystem treats it as any uuid key. Two kinds of counter have one:
--   a counter per bucket (buckets.sql): a parent and the start of a period, in seconds since the epoch;
--   a counter of a target with a two-column key (target_parts, as (tenant_id, id)), which its source points at with
--   two foreign key columns (source_parts, the first of them source_fk).
-- Two integer parts fit the 128 bits side by side. A part that is a uuid or a text does not: such a key is a digest
-- of both parts instead (digest_key, the first 128 bits of their SHA-256), which two keys share with a chance of
-- about 2^-128 per pair; the unique index on the column refuses the second of two target rows that would, so a
-- collision can fail an insert loudly but never merge two rows' counts.
-- The first part of a packed key orders the keys, so a recount's batch of keys reads one range of the source's first
-- foreign key column (batch_source_sql); a batch of digests reads the whole source.

-- The key of two parts. It runs in every capture of such a counter, so it is inlined into the capture's queries: a SQL
-- body of one expression, with no SET clause (a function with one is never inlined), bound when created to what it
-- names, each qualified with pg_catalog, so that no search_path can change what it calls. NULL when a part is NULL.
CREATE OR REPLACE FUNCTION countercache.pair_key(high bigint, low bigint)
RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CAST(pg_catalog.lpad(pg_catalog.to_hex(high), 16, '0') OPERATOR(pg_catalog.||)
            pg_catalog.lpad(pg_catalog.to_hex(low), 16, '0') AS pg_catalog.uuid);

-- The key of two parts of which one is not an integer (a uuid or a text), in their text forms: the first 128 bits of
-- the SHA-256 of "first/second", with each '\' and '/' of a part escaped by a '\' (a text may hold them; the forms of
-- a uuid and an integer do not, so their keys are the same as before text parts were kept), in UTF-8 whatever the
-- client's encoding (as Java hashes them, CounterDefinition.Pair.key). Bound as pair_key is, and for the same reason
-- executable by anyone: the generated column of such a target computes it as the row's writer. Not inlined (the
-- conversion is stable), which costs a function call per key.
CREATE OR REPLACE FUNCTION countercache.digest_key(first text, second text)
RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CAST(pg_catalog.encode(pg_catalog.substr(pg_catalog.sha256(pg_catalog.convert_to(
                pg_catalog.replace(pg_catalog.replace(first, E'\\', E'\\\\'), '/', E'\\/')
                OPERATOR(pg_catalog.||) '/' OPERATOR(pg_catalog.||)
                pg_catalog.replace(pg_catalog.replace(second, E'\\', E'\\\\'), '/', E'\\/'), 'UTF8')), 1, 16), 'hex')
            AS pg_catalog.uuid);

-- Whether counter c's key of two parts is a digest: one of the target's key columns is not an integer.
CREATE OR REPLACE FUNCTION countercache.digested(c countercache.counter)
RETURNS boolean
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT c.target_parts IS NOT NULL
           AND EXISTS (SELECT FROM unnest(c.target_parts) p
                        WHERE countercache.column_type(c.target_schema, c.target_table, p)
                              NOT IN ('integer'::regtype, 'bigint'::regtype))
$fn$;

-- The key of two parts of columns first and second of a relation (aliased as rel): packed, or their digest.
CREATE OR REPLACE FUNCTION countercache.two_part_key_sql(c countercache.counter, rel text, first name, second name)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN countercache.digested(c)
                THEN format('countercache.digest_key(%1$s%2$I::text, %1$s%3$I::text)', rel, first, second)
                ELSE format('countercache.pair_key(%1$s%2$I, %1$s%3$I)', rel, first, second) END
$fn$;

-- The first part of a packed key: a bucket's parent, or a two-column key's first column.
CREATE OR REPLACE FUNCTION countercache.key_parent(key uuid)
RETURNS bigint
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT ('x' || left(encode(uuid_send(key), 'hex'), 16))::bit(64)::bigint
$fn$;

-- Whether counter c's target key is packed, and the expression of the target's columns that packs it.
CREATE OR REPLACE FUNCTION countercache.packed_key_sql(c countercache.counter)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT CASE WHEN c.bucket_period IS NOT NULL
                THEN format('countercache.bucket_key(%I, %I)', c.bucket_parent, c.bucket_column)
                WHEN c.target_parts IS NOT NULL
                THEN countercache.two_part_key_sql(c, '', c.target_parts[1], c.target_parts[2]) END
$fn$;

-- The key a source row (aliased as the source table) points at under a counter of a two-column key.
CREATE OR REPLACE FUNCTION countercache.pair_key_sql(c countercache.counter)
RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT countercache.two_part_key_sql(c, format('%I.', c.source_table), c.source_parts[1], c.source_parts[2])
$fn$;

-- Gives counter c's target the generated column that packs its key, and that column's unique index, unless it has them.
CREATE OR REPLACE FUNCTION countercache.add_packed_key(c countercache.counter)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
BEGIN
    IF countercache.column_type(c.target_schema, c.target_table, c.target_key) IS NULL THEN
        EXECUTE format('ALTER TABLE %I.%I ADD COLUMN %I uuid GENERATED ALWAYS AS (%s) STORED',
                       c.target_schema, c.target_table, c.target_key, countercache.packed_key_sql(c));
    END IF;
    IF NOT EXISTS (SELECT FROM pg_index i
                    WHERE i.indrelid = to_regclass(format('%I.%I', c.target_schema, c.target_table))
                      AND i.indisunique AND i.indpred IS NULL AND i.indkey::text = (
                          SELECT a.attnum::text FROM pg_attribute a
                           WHERE a.attrelid = i.indrelid AND a.attname = c.target_key)) THEN
        EXECUTE format('CREATE UNIQUE INDEX %I ON %I.%I (%I)', left(c.target_table, 45) || '_countercache_key',
                       c.target_schema, c.target_table, c.target_key);
    END IF;
END
$fn$;

-- The problem of a target key column that is there but is not the one add_packed_key makes of c's parts.
CREATE OR REPLACE FUNCTION countercache.packed_key_problems(c countercache.counter)
RETURNS TABLE (problem text, fix text)
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $fn$
    SELECT format('@CounterCache on %s: %I.%I.%I is not the key the library keeps of (%s)', c.declared_by,
                  c.target_schema, c.target_table, c.target_key,
                  substring(countercache.packed_key_sql(c) FROM '\((.*)\)$')),
           format('drop the column %I: the library adds it, generated from the parts of the key', c.target_key)
     WHERE countercache.column_type(c.target_schema, c.target_table, c.target_key) IS NOT NULL
       AND NOT EXISTS (SELECT FROM pg_attribute a,
                               LATERAL (SELECT pg_get_expr(ad.adbin, a.attrelid) AS e FROM pg_attrdef ad
                                         WHERE ad.adrelid = a.attrelid AND ad.adnum = a.attnum) g,
                               -- the parts it packs, each as a whole word, in the order the library packs them
                               LATERAL (SELECT array_agg(format('(^|[^[:alnum:]_])%s([^[:alnum:]_]|$)',
                                                                regexp_replace(quote_ident(x.part), '([^[:alnum:]_])',
                                                                               '\\\1', 'g')) ORDER BY x.i) AS r
                                          FROM unnest(ARRAY[coalesce(c.bucket_parent, c.target_parts[1]),
                                                            coalesce(c.bucket_column, c.target_parts[2])])
                                               WITH ORDINALITY AS x(part, i)) p
                        WHERE a.attrelid = to_regclass(format('%I.%I', c.target_schema, c.target_table))
                          AND a.attname = c.target_key AND a.attgenerated = 's' AND a.atttypid = 'uuid'::regtype
                          AND g.e LIKE split_part(countercache.packed_key_sql(c), '(', 1) || '(%'
                          AND regexp_instr(g.e, p.r[1]) BETWEEN 1 AND regexp_instr(g.e, p.r[2]) - 1)
$fn$;

-- The problems only a counter of a two-column key can have (counter_problems checks the rest).
CREATE OR REPLACE FUNCTION countercache.pair_problems(c countercache.counter)
RETURNS TABLE (problem text, fix text)
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $fn$
DECLARE
    d constant text := '@CounterCache on ' || c.declared_by;
    i integer;
    t regtype;
BEGIN
    IF c.via_table IS NOT NULL OR c.aggregate IS NOT NULL OR c.distinct_column IS NOT NULL
       OR c.bucket_period IS NOT NULL OR c.more_fks IS NOT NULL THEN
        RETURN QUERY SELECT d || ': a counter of a two-column key counts or sums rows of a source that points straight'
            || ' at it', 'leave out min, max, distinct and bucket, and name one many-to-one of the source with via';
    END IF;
    IF c.key_type <> 'uuid' OR cardinality(c.target_parts) <> 2 OR cardinality(c.source_parts) IS DISTINCT FROM 2
       OR c.source_parts[1] <> c.source_fk THEN
        RETURN QUERY SELECT d || ': the parts of the key are not the library''s', 'regenerate the changelog';
        RETURN;
    END IF;
    IF to_regclass(format('%I.%I', c.target_schema, c.target_table)) IS NULL THEN
        RETURN;
    END IF;
    FOR i IN 1 .. 2 LOOP
        t := countercache.column_type(c.target_schema, c.target_table, c.target_parts[i]);
        IF t IS NULL OR t NOT IN ('integer'::regtype, 'bigint'::regtype, 'uuid'::regtype, 'text'::regtype,
                                  'character varying'::regtype) THEN
            RETURN QUERY SELECT d || ': ' || format('key column %I.%I.%I is %s', c.target_schema, c.target_table,
                c.target_parts[i], coalesce(t::text, 'missing')),
                'a key of two columns is kept when each is an integer, a bigint, a uuid, a text or a varchar; give'
                || ' the entity such an identifier';
        ELSIF NOT (SELECT coalesce(bool_and(co.collisdeterministic), true)
                     FROM pg_attribute a JOIN pg_collation co ON co.oid = a.attcollation
                    WHERE a.attrelid = format('%I.%I', c.target_schema, c.target_table)::regclass
                      AND a.attname = c.target_parts[i]) THEN
            -- a digest hashes the characters: keys that such a collation takes as equal would hash apart
            RETURN QUERY SELECT d || ': ' || format('key column %I.%I.%I has a nondeterministic collation',
                c.target_schema, c.target_table, c.target_parts[i]),
                'give the key column a deterministic collation (the database''s default is one)';
        END IF;
        IF i = 2 AND to_regclass(format('%I.%I', c.source_schema, c.source_table)) IS NOT NULL THEN
            -- the first foreign key column is checked with every counter's (counter_problems)
            RETURN QUERY SELECT d || ': ' || x.p, 'give the foreign key column the type of the key it points at'
              FROM (SELECT countercache.type_problem('foreign key column', c.source_schema, c.source_table,
                                                     c.source_parts[2], t::text, 'the key it points at is') AS p) x
             WHERE t IS NOT NULL AND x.p IS NOT NULL;
        END IF;
    END LOOP;
    RETURN QUERY SELECT * FROM countercache.packed_key_problems(c);
END
$fn$;
