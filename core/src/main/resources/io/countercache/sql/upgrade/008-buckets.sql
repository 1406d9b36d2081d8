-- Version 8: a counter may be kept per parent and per period in rows of their own (@CounterCache(bucket = ...)): its
-- target is a bucket table keyed by (bucket_parent, bucket_column), whose rows the rollup creates, and a source row
-- counts for the period of bucket_period, aligned in bucket_zone, that holds its bucket_source; the workers drop
-- buckets older than bucket_retention periods (NULL: none). NULL for every counter installed before. See buckets.sql.
ALTER TABLE countercache.counter ADD COLUMN bucket_source name;
ALTER TABLE countercache.counter ADD COLUMN bucket_period interval;
ALTER TABLE countercache.counter ADD COLUMN bucket_zone text;
ALTER TABLE countercache.counter ADD COLUMN bucket_parent name;
ALTER TABLE countercache.counter ADD COLUMN bucket_column name;
ALTER TABLE countercache.counter ADD CONSTRAINT counter_bucket
    CHECK (pg_catalog.num_nulls(bucket_source, bucket_period, bucket_zone, bucket_parent, bucket_column)
           OPERATOR(pg_catalog.=) ANY (ARRAY[0, 5]));
ALTER TABLE countercache.counter ADD COLUMN bucket_retention integer
    CHECK (bucket_retention IS NULL OR (bucket_retention OPERATOR(pg_catalog.>) 0 AND bucket_period IS NOT NULL));
