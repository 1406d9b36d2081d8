-- Version 6: a statement that updated one row takes its own path, as one that inserted or deleted one did, so the
-- generator of that path takes the rows added and removed; its former signature goes, so that no call can reach it.
DROP FUNCTION IF EXISTS countercache.single_sql(countercache.counter[], text, integer);
