-- Version 3: a capture chooses its work by the statement's size (sized_capture_sql), so the generators of capture
-- statements take the mode they build for; their former signatures go, so that no call can reach them.
DROP FUNCTION IF EXISTS countercache.capture_sql(countercache.counter[], text, text);
DROP FUNCTION IF EXISTS countercache.deltas_sql(countercache.counter[], text, text);
DROP FUNCTION IF EXISTS countercache.lock_vias_sql(countercache.counter[], text);
DROP FUNCTION IF EXISTS countercache.unchanged_sql(countercache.counter[]);
