-- Version 7: a counter may name a timestamp column of its target (@CounterCache(touch = "updatedAt")) that every
-- update changing the counter sets to now(), in the same statement. NULL for every counter installed before.
ALTER TABLE countercache.counter ADD COLUMN touch_column name;
