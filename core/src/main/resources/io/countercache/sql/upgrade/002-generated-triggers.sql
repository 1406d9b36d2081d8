-- Version 2: trigger functions are generated in the database from the catalog (install_triggers), and the schema's
-- version is a number (installed_version, schema_digest) where version 1 had a digest named schema_version.
DROP FUNCTION IF EXISTS countercache.schema_version();
