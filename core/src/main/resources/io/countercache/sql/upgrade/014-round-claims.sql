-- Version 14: the rows that rounds lock, tried and never waited for, where they took advisory locks before, which any
-- role with a connection could take and so stop them (HostileIT): a lane of a number of lanes (see "Lanes" in
-- rollup_report), and the folding of distinct values (fold_distinct). Locking a row needs UPDATE on its table, which
-- only the worker and the migrator have. Neither is ever written after the install.
CREATE TABLE countercache.lane_claim (
    lanes integer NOT NULL CHECK (lanes OPERATOR(pg_catalog.>=) 2 AND lanes OPERATOR(pg_catalog.<=) 64),
    lane  integer NOT NULL CHECK (lane OPERATOR(pg_catalog.>=) 0 AND lane OPERATOR(pg_catalog.<) lanes),
    PRIMARY KEY (lanes, lane)
);
INSERT INTO countercache.lane_claim
SELECT n, l FROM pg_catalog.generate_series(2, 64) n, pg_catalog.generate_series(0, n OPERATOR(pg_catalog.-) 1) l;
CREATE TABLE countercache.distinct_claim (
    one boolean PRIMARY KEY DEFAULT true CHECK (one)
);
INSERT INTO countercache.distinct_claim DEFAULT VALUES;
